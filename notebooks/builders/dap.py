"""Builds notebooks/dap.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py dap``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("dap") + [
        ("md", r"""## The estimator and the perturbation laws

With a batch of $b$ directions $v_j \sim V$ the two-point estimator is
$\hat g = \frac1b\sum_j \frac{f(x+\delta v_j) - f(x-\delta v_j)}{2\delta} v_j$ (or the forward difference the
authors' code uses). As $\delta\to0$ it is $\frac1b\sum_j v_jv_j^\top\nabla f$, unbiased iff $E[vv^\top] = I$.
The laws: Gaussian, sphere of radius $\sqrt d$, Rademacher, $\sqrt d\,e_i$, DAP
$v = (I - \hat a\hat a^\top)X + \xi\hat a$ (authors' `proj_multiple`), the authors' `get_optimal`, and DAP around
an estimated gradient (`empirical_grad`). `THEORYLAB_SCALE=ci` keeps every cell tiny."""),
        ("code", """import os
import numpy as np
from theorylab.zeroth import estimators as E
from theorylab.zeroth.oracles import quadratic, quadratic_spectrum, product
from theorylab.core.plotting import pyplot
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
TRIALS = 1000 if CI else 100000
d = 20
f = quadratic(quadratic_spectrum(d, 10.0), rotate=True, seed=1)
x = np.random.default_rng(2).standard_normal(d)
g = f.gradient(x)
for law in E.LAWS:
    est = E.estimator_trials(f, x, law=law, b=1, delta=1.0, trials=TRIALS, seed=3)
    err = est - g
    print(f"{law:14s} MSE/|g|^2 = {np.mean(np.sum(err**2, 1)) / (g @ g):7.3f}   "
          f"Var along g / |g|^2 = {np.mean((err @ g) ** 2) / (g @ g) ** 2:.3g}")
print("closed forms: Gaussian d+1 =", d + 1, "; constant magnitude and DAP d-1 =", d - 1)"""),
        ("md", r"""## Normalised MSE against the dimension

The closed forms $d+1$ (Gaussian) and $d-1$ (constant magnitude, DAP) hold for every $d$ and every point; the
error of DAP lies entirely orthogonal to $\nabla f$."""),
        ("code", """def mse_vs_d(law="dap", b=1):
    dims = [2, 4, 8, 16, 32, 64]
    rows = []
    for dd in dims:
        fd = quadratic(quadratic_spectrum(dd, 10.0), rotate=True, seed=dd)
        xd = np.ones(dd)
        gd = fd.gradient(xd)
        est = E.estimator_trials(fd, xd, law=law, b=b, delta=1.0, trials=TRIALS // 4, seed=dd)
        rows.append(np.mean(np.sum((est - gd) ** 2, 1)) / (gd @ gd))
    fig, ax = plt.subplots(figsize=(5.0, 3.5))
    ax.loglog(dims, rows, "o", label=f"{law}, b = {b}")
    ax.loglog(dims, [(dd + 1) / b for dd in dims], ":", label="(d + 1)/b")
    ax.loglog(dims, [(dd - 1) / b for dd in dims], "--", label="(d - 1)/b")
    ax.set_xlabel("d"); ax.set_ylabel("E|est - g|^2 / |g|^2"); ax.legend(fontsize=8); plt.show()"""),
        explore_cell("mse_vs_d(law, b)", {
            "law": ("dap", "Dropdown(options=['gaussian', 'sphere', 'rademacher', 'coordinate', 'dap', 'optimal', "
                           "'dap_estimated'])"),
            "b": (1, "IntSlider(value=1, min=1, max=16)")}),
        ("md", r"""## The authors' figure: $\tau$-MSE against the batch size

Product function, $n = 16$, $x$ from `np.random.seed(42)` with $x_0 = 0$, $\mu = 10^{-8}$, $\tau$-coordinates
$|\nabla_i f| \ge 10^{-4}$. At that point only $\nabla_0 f \neq 0$, so DAP's $\tau$-MSE vanishes by
construction; the right panel uses a point with three large coordinates, with the derived means as dashes."""),
        ("code", """from theorylab.validations.dap import fig_tau_mse_vs_batch
fig, table = fig_tau_mse_vs_batch(trials=30 if CI else 1000, seed=1)
table[(table.b == 8) & (table.statistic != "q25") & (table.statistic != "q75")]"""),
        ("md", r"""## ZO-SGD at equal queries

$d = 100$, $\kappa = 100$ quadratic, step $1.5/(\mathrm{tr}A + 2L)$: the sphere's smaller fourth moment gives a
lower suboptimality than the Gaussian (paired paths: both use the same normals)."""),
        ("code", """from theorylab.zeroth.oracles import diagonal_quadratic
dd = 100
q = diagonal_quadratic(quadratic_spectrum(dd, 100.0))
step = 1.5 / (q.params[dd:].sum() + 2 * q.L)
T, P = (300, 10) if CI else (2000, 200)
fig, ax = plt.subplots(figsize=(5.0, 3.5))
for law in ("gaussian", "sphere"):
    fp = E.zo_sgd(q, np.ones(dd), law=law, b=1, delta=1e-4, step=step, n_iter=T, n_paths=P, record_every=10, seed=4)
    ax.semilogy(np.arange(fp.shape[1]) * 10, np.exp(np.log(fp).mean(0)), label=law)
ax.set_xlabel("iteration"); ax.set_ylabel("geometric mean of f - f*"); ax.legend(); plt.show()"""),
    ]


if __name__ == "__main__":
    print(write_notebook("dap", cells()))
