"""Builds notebooks/highway_bp.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py highway_bp``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("highway_bp") + [
        ("md", r"""## Backpropagation and Highway-BP along the residual path

$x_{i+1} = x_i + f_i(x_i)$, $J_i = \partial f_i/\partial x_i$. BP: $g_i = (I + J_i)^\top g_{i+1}$. Highway-BP
(derived iteration, see `theorylab.exact.highway`): $g^{(0)}_i = g_L$, then $u_j = J_j^\top g^{(t)}_{j+1}$ for all
$j$ in parallel and $g^{(t+1)}_i = g_L + \sum_{j\ge i} u_j$. After $k$ steps $g^{(k)}_i$ holds exactly the paths
through at most $k$ blocks, the terms of degree $\le k$ of $\prod_j (I + zJ_j^\top) g_L$."""),
        ("code", """import numpy as np
from theorylab.exact import highway as H
net = H.residual_mlp(12, 16, rho=0.5, seed=1)
rng = np.random.default_rng(0)
x, J = H.forward_jacobians(net, rng.standard_normal(16))
gL = rng.standard_normal(16)
g = H.backprop(J, gL)
for k in (0, 2, 5, 12):
    gk = H.highway_bp(J, gL, k)
    print(f"k = {k:2d}: max rel. error on layers i >= L-k: "
          f"{(np.linalg.norm(gk - g, axis=1) / np.linalg.norm(g, axis=1))[12 - k:].max():.1e}, "
          f"|g_0 - g^(k)_0 - tail| = {np.linalg.norm(g[0] - gk[0] - H.path_tail(J, gL, k)):.1e}")"""),
        ("md", r"""## Error against $k$ with the path tail and the derived bound $\rho^{k+1}C(L,k)$"""),
        ("code", """from theorylab.validations.highway_bp import fig_error_vs_k
def show(L=12, n=12):
    fig, table = fig_error_vs_k(L=L, n=n, seed=0)
    return table.head()"""),
        explore_cell("show(L, n)", {"L": (12, "IntSlider(value=12, min=2, max=40)"),
                                    "n": (12, "IntSlider(value=12, min=2, max=32)")}),
        ("md", r"""## The marker polynomial against sympy (tiny instance)"""),
        ("code", """net = H.residual_attention(1, 2, 2, seed=2)
_, J = H.forward_jacobians(net, np.linspace(-1, 1, 4))
print(np.abs(H.path_coefficients(J, np.ones(4)) - H.path_coefficients_sympy(J, np.ones(4))).max())"""),
    ]


if __name__ == "__main__":
    print(write_notebook("highway_bp", cells()))
