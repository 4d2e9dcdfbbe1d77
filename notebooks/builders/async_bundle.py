"""Builds notebooks/async_bundle.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py async_bundle``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("async_bundle") + [
        ("md", r"""## The master problem and its dual

$\min_x \sum_i \max_j (a_{ij} + g_{ij}^\top x) + \frac{L}{2}\|x - \bar z\|^2 + \ell_1\|x\|_1$; its dual is a smooth concave
problem over a product of simplices, $x(\lambda) = \mathrm{soft}(\bar z - G^\top\lambda / L, \ell_1 / L)$, and the duality gap
certifies $\|x - x^\star\| \le \sqrt{2\,\mathrm{gap}/L}$. The dual solve against cvxpy's primal QP:"""),
        ("code", """import numpy as np
from theorylab.distributed import bundle as B
for m in (2, 5, 10):
    cuts = B.random_cuts(9, m, 50, seed=m)
    zbar = np.random.default_rng(m).standard_normal(50)
    s = B.solve_master(cuts, zbar, 1.0, 0.05, delta=1e-7)
    x_ref, p_ref = B.solve_master_cvxpy(cuts, zbar, 1.0, 0.05)
    print(f"m = {m:2d}: gap {s.gap:.1e} after {s.iterations} iterations, P - P_cvxpy = {s.value - p_ref:+.1e}, "
          f"|x - x_cvxpy| = {np.linalg.norm(s.x - x_ref):.1e} (certified <= {np.sqrt(2 * s.gap) + np.sqrt(2 * max(p_ref - s.dual, 0)):.1e})")"""),
        ("md", r"""## Bundle method and PIAG under random delays (time in simulated ticks)"""),
        ("code", """from theorylab.validations.async_bundle import fig_suboptimality_vs_time
def show(horizon_factor=10):
    fig, table = fig_suboptimality_vs_time(mean_delays=(1, 4), horizon_factor=horizon_factor, seed=0)
    return table.groupby(["method", "mean_delay"]).suboptimality.min()"""),
        explore_cell("show(horizon_factor)", {"horizon_factor": (10, "IntSlider(value=10, min=5, max=40)")}),
        ("md", r"""## One replicate of the time-to-accuracy comparison"""),
        ("code", """from theorylab.distributed import experiments as X
row = X.delay_run("geometric", 4, 0, m=10, horizon_factor=20, piag_factor=60, targets=(1e-3, 1e-5))
{k: row[k] for k in ("t_bundle_0", "t_piag_0", "t_bundle_1", "t_piag_1", "tail_max", "unconverged", "updates")}"""),
    ]


if __name__ == "__main__":
    print(write_notebook("async_bundle", cells()))
