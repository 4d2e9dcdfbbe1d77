"""Builds notebooks/lancbio.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py lancbio``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("lancbio") + [
        ("md", r"""## The hypergradient and its sign

For $g(x, y) = \tfrac12 y^\top H y - y^\top B x$ and $\varphi(x) = f(x, y^*(x))$,
$\nabla\varphi = \nabla_x f - \nabla^2_{xy} g\,[\nabla^2_{yy} g]^{-1}\nabla_y f = \nabla_x f + B^\top H^{-1}\nabla_y f$
(a plus, since $\nabla^2_{xy} g = -B^\top$). Central differences of $\varphi$ agree; the minus does not."""),
        ("code", """import numpy as np
from theorylab.krylov import bilevel as B, lanczos as L
P = B.quadratic_bilevel(30, kappa=100.0, coupling="gaussian", dx=10, seed=0)
x = np.random.default_rng(1).standard_normal(10)
fd = np.array([(P.phi(x + 1e-4 * e) - P.phi(x - 1e-4 * e)) / 2e-4 for e in np.eye(10)])
y = P.y_star(x)
minus = P.grad_x_f(x, y) - P.B.T @ np.linalg.solve(P.H, P.grad_y_f(x, y))
print("plus :", np.abs(P.hypergradient(x) - fd).max(), " minus:", np.abs(minus - fd).max())"""),
        ("md", r"""## Krylov dimension: LancBiO's recursion, CG and the CG bound (frozen problem)"""),
        ("code", """from theorylab.validations.lancbio import fig_krylov_error_and_outer
def show(steps=30, K=80):
    fig, table = fig_krylov_error_and_outer(steps=steps, K=K, seed=0)
    return table[table.panel == "outer"].groupby("method").agg(hvps=("hvps", "first"), final=("value", "last"))"""),
        explore_cell("show(steps, K)", {"steps": (30, "IntSlider(value=30, min=10, max=150)"),
                                        "K": (80, "IntSlider(value=80, min=50, max=800)")}),
        ("md", r"""## Hessian-vector products: K plus one per restart (the code's rule)"""),
        ("code", """ms, restarts = B.restart_schedule(1000)
print("restarts:", restarts.sum(), " HVPs:", 1000 + restarts.sum(), " largest m:", ms.max())"""),
    ]


if __name__ == "__main__":
    print(write_notebook("lancbio", cells()))
