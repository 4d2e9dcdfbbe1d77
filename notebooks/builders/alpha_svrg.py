"""Builds notebooks/alpha_svrg.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py alpha_svrg``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("alpha_svrg") + [
        ("md", r"""## The alpha-SVRG estimate and its optimal coefficient

$g_i = \nabla f_i(\theta^t) - \alpha \odot (\nabla f_i(\theta^s) - \nabla f(\theta^s))$ with $i$ uniform. Per coordinate,
$\mathrm{Var}(g_k) = \sigma_k^2 - 2\alpha\rho_k\sigma_k\sigma_{s,k} + \alpha^2\sigma_{s,k}^2$, minimised at
$\alpha^*_k = \rho_k\sigma_k/\sigma_{s,k}$ with value $(1-\rho_k^2)\sigma_k^2$; SVRG ($\alpha = 1$) beats SGD ($\alpha = 0$)
exactly where $\sigma_{s,k} < 2\rho_k\sigma_k$, i.e. where $\alpha^*_k > 1/2$."""),
        ("code", """import numpy as np
from theorylab.finite_sum import svrg as S
from theorylab.validations.alpha_svrg import staleness_moments
for s in (1, 10, 100):
    gm = staleness_moments(s, 0)
    m = S.coordinate_moments(gm["G"], gm["H"])
    v_star = S.estimator_variance(gm["G"], gm["H"], m["alpha_star"])
    print(f"s = {s:3d}: max |Var(alpha*) / (1 - rho^2) sigma^2 - 1| = {np.abs(v_star / m['min_variance'] - 1).max():.1e}, "
          f"alpha* in [{m['alpha_star'].min():.2f}, {m['alpha_star'].max():.2f}], "
          f"SVRG better on {(m['sigma_snap'] < 2 * m['rho'] * m['sigma']).sum()} of {m['rho'].size} coordinates")"""),
        ("md", r"""## Variance against $\alpha$ per coordinate (Monte Carlo, exact quadratic, minimum $1-\rho^2$)"""),
        ("code", """from theorylab.validations.alpha_svrg import fig_variance_vs_alpha
def show(staleness=100, draws=2000):
    fig, table = fig_variance_vs_alpha(staleness=staleness, draws=draws, seed=0)
    return table.groupby("coord")[["alpha_star", "minimum"]].first()"""),
        explore_cell("show(staleness, draws)", {"staleness": (100, "IntSlider(value=100, min=1, max=1000)"),
                                                "draws": (2000, "IntSlider(value=2000, min=200, max=20000)")}),
        ("md", r"""## The schedule the authors' code calls (svrg.py `svrg_scheduler`)

Constant within each snapshot interval, decaying linearly to 0 over the intervals of all epochs."""),
        ("code", """print(S.svrg_schedule(0.75, 2, 5, 2))
print(np.linspace(0.75, 0, 10))   # what it is not, unless the snapshot is refreshed every iteration"""),
        ("md", r"""## $\alpha^*$ against depth (numpy MLPs, plain SGD, measured mid-training)"""),
        ("code", """from theorylab.validations.alpha_svrg import depth_table
t = depth_table((1, 4), 2, 0)
t.groupby("depth")[["alpha_mean", "alpha_first_layer", "alpha_last_layer", "final_loss"]].mean()"""),
    ]


if __name__ == "__main__":
    print(write_notebook("alpha_svrg", cells()))
