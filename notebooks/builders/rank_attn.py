"""Builds notebooks/rank_attn.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py rank_attn``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("rank_attn") + [
        ("md", r"""## The target and the model

Query $q$ and keys $x_1,\dots,x_N$ on the unit sphere of $\mathbb R^d$; the nearest-neighbour target is
$t(q, X) = x_{i^*}$, $i^* = \arg\max_j q\cdot x_j$. $H$ heads of rank $r$:
$f(q, X) = \sum_h V_h \sum_j \mathrm{softmax}_j(q^\top Q_h K_h^\top x_j)\, x_j$ with $Q_h, K_h\in\mathbb R^{d\times r}$.
Only the paper's abstract was read: the target and both bounds below are our formalisation ([derived]).
`THEORYLAB_SCALE=ci` keeps every cell tiny."""),
        ("code", """import os
import numpy as np
from theorylab.exact import attention as A
from theorylab.core.plotting import pyplot
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
q, X = A.random_instances(16, 8, 200 if CI else 5000, seed=0)
for beta in (1, 4, 16, 64):
    err = A.full_rank_error(q, X, beta)
    tight, coarse = A.full_rank_bound(q, X, beta)
    print(f"beta = {beta:3d}: max error {err.max():.3e}, max error/tight bound {np.max(err / tight):.3f}, "
          f"max error/coarse bound {np.max(err / coarse):.3f}")"""),
        ("md", r"""## One full-rank head at any context length

With $W_{QK} = \beta I$, $V = I$: $|z - x_{i^*}| \le 2\sum_{j\ne i^*} e^{-\beta(q\cdot x_{i^*} - q\cdot x_j)}
\le 2(N-1)e^{-\beta\Delta}$, so $\beta = \log(2(N-1)/\varepsilon)/\Delta$ reaches error $\varepsilon$ for every $N$."""),
        ("code", """def represent(N=64, eps=1e-12):
    qN, XN = A.random_instances(16, N, 50, seed=1)
    delta = A.score_gap(qN, XN)
    beta = A.beta_for_error(eps, N, delta)
    err = np.array([A.full_rank_error(qN[i:i + 1], XN[i:i + 1], b)[0] for i, b in enumerate(beta)])
    print(f"N = {N}: max error {err.max():.3e} (eps = {eps:g}), median beta {np.median(beta):.1f}")"""),
        explore_cell("represent(N, eps)", {"N": (64, "IntSlider(value=64, min=2, max=1024)"),
                                          "eps": (1e-12, "FloatLogSlider(value=1e-12, min=-15, max=-1)")}),
        ("md", r"""## Rank-1 heads fitted to the target (the figure `error_vs_heads` at full scale)

L-BFGS fits of $H$ rank-1 heads ($N = 2$); dotted: the reflection lower bound $E|t(q) - t(Rq)|^2/4$, valid for
$Hr < d$; dashed: one full-rank head with $\beta = 1000$."""),
        ("code", """from theorylab.validations.rank_attn import fig_error_vs_heads, FIT_SCALES
params = dict(FIT_SCALES["ci"]) if CI else dict(FIT_SCALES["full"])
if CI:
    params.update(reps=2)
fig, table = fig_error_vs_heads(seed=1, **params)
table"""),
    ]


if __name__ == "__main__":
    print(write_notebook("rank_attn", cells()))
