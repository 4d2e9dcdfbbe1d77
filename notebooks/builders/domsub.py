"""Builds notebooks/domsub.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py domsub``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("domsub") + [
        ("md", r"""## The toy: alignment of SGD's gradients with the dominant direction

$f(x, y) = (\lambda_1 x^2 + \lambda_2 y^2)/2$ with $N(0, s^2)$ noise on the $x$-gradient. In SGD's stationary law
$\lambda_1 x \sim N(0, \sigma^2)$, $\sigma^2 = \lambda_1\eta s^2/(2 - \eta\lambda_1)$, and with $a = \lambda_2|y|/\sigma$ the
full-batch gradient has $E\chi = e^{a^2/2}\operatorname{erfc}(a/\sqrt2)$ and
$E\chi^2 = 1 - a\sqrt{\pi/2}\,e^{a^2/2}\operatorname{erfc}(a/\sqrt2)$ (the stochastic gradient: $\sigma^2 \to \sigma^2 + s^2$).
Dom-SGD never moves $y$; Bulk-SGD never moves $x$."""),
        ("code", """import numpy as np
from theorylab.krylov import dominant as D
for method in D.METHODS:
    r = D.toy_run(method, steps=400, paths=500, seed=0)
    f = 0.5 * (100 * r["x"] ** 2 + r["y"] ** 2)
    print(f"{method:5s}: y_400 = {r['y'][-1, 0]:8.4f}, mean f at the end = {f[-1].mean():.4f}, "
          f"mean chi^2 (full-batch) over the run = {r['chi2_full'].mean():.3f}")"""),
        ("code", """from theorylab.validations.domsub import fig_toy_alignment
def show(paths=2000):
    fig, table = fig_toy_alignment(paths=paths, seed=0)
    return table.iloc[::80]"""),
        explore_cell("show(paths)", {"paths": (2000, "IntSlider(value=2000, min=200, max=20000)")}),
        ("md", r"""## A tanh MLP with its exact Hessian

The closed-form Hessian (Gauss-Newton part plus the residual part) against central differences of the exact gradient,
then SGD, Dom-SGD, Bulk-SGD and GD from the same switch point."""),
        ("code", """from theorylab.finite_sum import gaussian_mixture
p = D.tanh_mlp(gaussian_mixture(300, 10, 5, separation=3.0, seed=0), width=12)
theta = D.tanh_mlp_init(p, seed=1)
H = D.tanh_mlp_hessian(p, theta)
print(p.n_params, "parameters; max |H - H_fd| / max |H| =", np.abs(H - D.hessian_fd(p, theta)).max() / np.abs(H).max())
print("top-5 eigenvalues at initialisation:", np.round(D.top_eigenspace(H, 5)[0], 3))"""),
        ("code", """out = D.train_switch(p, lr=0.1, batch=25, switch=150, steps_after=150, seed=0)
for m, v in out["methods"].items():
    print(f"{m:5s}: loss {v['loss'][0]:.4f} -> {v['loss'][-1]:.4f}, mean chi^2 after the switch {v['chi2'][1:].mean():.2e}")"""),
    ]


if __name__ == "__main__":
    print(write_notebook("domsub", cells()))
