"""Builds notebooks/stp.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py stp``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("stp") + [
        ("md", r"""## The algorithm and the instance

STP keeps the best of $\theta_t$, $\theta_t + \alpha_t s_t$, $\theta_t - \alpha_t s_t$ with $s_t$ uniform on the
unit sphere. The exact step $\alpha_t = |\nabla f(\theta_t)\cdot s_t|/L$ and its forward difference
$|f(\theta_t + h s_t) - f(\theta_t)|/(hL)$ are the strongly convex theorem's steps; `"decreasing"` is a fixed
schedule $\alpha_0 (t+1)^{-\gamma}$. The instance: $f = \frac12\sum_i \lambda_i\theta_i^2$ with $\lambda$
log-spaced in $[1, 10]$ ($\mu = 1$, $L = 10$). `THEORYLAB_SCALE=ci` keeps every cell tiny."""),
        ("code", """import os
import numpy as np
from theorylab.zeroth import stp as S
from theorylab.zeroth.oracles import quadratic_spectrum
from theorylab.core.plotting import pyplot
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
M = 32 if CI else 400
d = 16
lam = quadratic_spectrum(d, kappa=10, L=10, spacing="geometric")
run = S.run_stp(lam, np.ones(d), n_steps=40 * d, n_paths=M, seed=1)
exact = S.expected_gap(lam, np.ones(d), record_at=run.t)
print("mean gap at T = 40d:", run.gap[:, -1].mean(), " exact recursion:", exact[-1])"""),
        ("md", r"""## Mean gap against the exact recursion and the two bounds

On the quadratic the exact step always moves to $\theta - (g\cdot s)s/L$, so the second moments of
$\theta - \theta^*$ follow a linear recursion (`expected_gap`); the bounds are $(1-\mu/(dL))^t$ and the
ICLR abstract's $(1 - \mu/(2\pi dL))^t$."""),
        ("code", """def compare(d=16, step="exact", distribution="sphere"):
    lam = quadratic_spectrum(d, kappa=10, L=10, spacing="geometric")
    r = S.run_stp(lam, np.ones(d), n_steps=40 * d, n_paths=M, step=step, distribution=distribution, seed=2)
    f0 = r.gap[0, 0]
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    ax.semilogy(r.t, r.gap[:8].T / f0, color="0.8", lw=0.7)
    ax.semilogy(r.t, r.gap.mean(0) / f0, "o-", ms=3, label=f"STP mean ({step}, {distribution})")
    if distribution != "normal" and step == "exact":
        ax.semilogy(r.t, S.expected_gap(lam, np.ones(d), record_at=r.t, distribution=distribution) / f0, "k--",
                    label="exact recursion")
    for moment, ls in (("second", ":"), ("first", "-.")):
        ax.semilogy(r.t, S.contraction_bound(1.0, 10.0, d, moment=moment) ** r.t, ls, label=f"bound ({moment} moment)")
    ax.set_xlabel("iteration t"); ax.set_ylabel("(f_t - f*) / (f_0 - f*)"); ax.legend(fontsize=7); plt.show()"""),
        explore_cell("compare(d, step, distribution)", {
            "d": (16, "IntSlider(value=16, min=2, max=128)"),
            "step": ("exact", "Dropdown(options=['exact', 'finite_difference', 'decreasing'])"),
            "distribution": ("sphere", "Dropdown(options=['sphere', 'normal', 'coordinate'])")}),
        ("md", r"""## The contraction gap against $d$ (the paper's figure `gap_vs_d` at full scale)"""),
        ("code", """from theorylab.validations.stp import fig_gap_vs_d
fig, table = fig_gap_vs_d(dims=(8, 16) if CI else (8, 16, 32, 64, 128), n_paths=M, seed=1)
table[["step", "d", "gap", "gap_exact_recursion", "bound_second_moment", "bound_first_moment"]]"""),
        ("md", r"""## Convex, not strongly convex: $T\,E[f_T - f^*]/d$ against the derived constant $\Phi_0$"""),
        ("code", """lam_c = np.arange(1, 33, dtype=float) ** -2.0
T = 2000 if CI else 100000
rc = S.run_stp(lam_c, np.ones(32), n_steps=T, n_paths=M, record_at=S.record_grid(T, 20), seed=3)
phi = S.convex_bound(lam_c, np.ones(32))
for t, g in zip(rc.t[1::3], rc.gap.mean(0)[1::3]):
    print(f"T = {t:7d}   T E[f_T - f*] / (d Phi_0) = {t * g / (32 * phi):.4f}")"""),
    ]


if __name__ == "__main__":
    print(write_notebook("stp", cells()))
