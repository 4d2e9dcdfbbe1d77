"""Builds notebooks/rshtr.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py rshtr``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("rshtr") + [
        ("md", r"""## The homogenised step in a random subspace (our reconstruction of RSHTR)

With a sketch $P_k\in\mathbb R^{s\times n}$, $\tilde g = P_k\nabla f$, $\tilde H = P_k\nabla^2 f P_k^\top$, the leftmost
eigenpair $(\theta, (v, t))$ of $F = \begin{pmatrix}\tilde H & \tilde g\\ \tilde g^\top & -\delta\end{pmatrix}$ gives
$d = v/t$ with $(\tilde H - \theta I)d = -\tilde g$, $\tilde g^\top d = \delta + \theta$ and $\theta \le -\delta$, hence the
model decrease $m(\eta d) \le -\tfrac12\delta\eta^2\|d\|^2$ for $\eta\in[0, 1]$."""),
        ("code", """import numpy as np
from theorylab.krylov import subspace as S
rng = np.random.default_rng(0)
g, H = rng.standard_normal(6), rng.standard_normal((6, 6)); H = (H + H.T) / 2
for delta in (0.0, 0.1, 1.0):
    D = S.homogenized_direction(g, H, delta)
    print(f"delta = {delta}: theta = {D.theta:.4f} (<= -delta), g.d - (delta + theta) = {g @ D.d - delta - D.theta:.1e}, "
          f"||(H - theta I) d + g|| = {np.linalg.norm((H - D.theta * np.eye(6)) @ D.d + g):.1e}")"""),
        ("md", r"""## Local order: quadratic under rank deficiency ($s \ge r$), linear otherwise

$f(x) = h(Ux)$ with $U$ of rank $r = 5$ in $\mathbb R^{200}$: a subspace of dimension $s \ge r$ captures the Newton step
of $h$; with $s < r$ or with $\delta > 0$ kept near the solution the convergence is linear."""),
        ("code", """from theorylab.validations.rshtr import error_pairs, rank_deficient_runs
for s, delta in ((8, 0.0), (3, 0.0), (8, 0.5)):
    t = error_pairs(rank_deficient_runs(200, 5, s, delta, 3, 0))
    slope = np.polyfit(np.log(t.e), np.log(t.e_next), 1)[0] if len(t) > 1 else float("nan")
    print(f"s = {s}, delta = {delta}: {len(t)} pairs, slope of log e_(k+1) on log e_k = {slope:.2f}")"""),
        ("code", """from theorylab.validations.rshtr import fig_error_pairs
def show(runs=2):
    fig, table = fig_error_pairs(runs=runs, seed=0)
    return table.groupby("case").size()"""),
        explore_cell("show(runs)", {"runs": (2, "IntSlider(value=2, min=1, max=16)")}),
        ("md", r"""## The one-step ratio on $A = I$ is Beta$((n-s)/2, s/2)$

A Newton step in the row space of a Gaussian sketch leaves $(I - \Pi)x$, $\Pi$ a uniformly random rank-$s$ projector."""),
        ("code", """from scipy.special import digamma
Q, n = S.full_rank_quadratic(200), 200
for s in (5, 20, 50):
    r = np.array([S.one_step_ratio(Q, 1e-4 * np.ones(n) / np.sqrt(n), s, seed=k) for k in range(200)])
    print(f"s = {s}: mean {r.mean():.4f} (Beta mean {1 - s / n:.4f}), log-mean {np.log(r).mean():.4f} "
          f"(psi terms {digamma((n - s) / 2) - digamma(n / 2):.4f})")"""),
    ]


if __name__ == "__main__":
    print(write_notebook("rshtr", cells()))
