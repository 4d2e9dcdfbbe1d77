"""Builds notebooks/cs_reg.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py cs_reg``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("cs_reg") + [
        ("md", r"""## Cauchy–Schwarz regularisers and their zero sets

Each regulariser is $\|a\|^2\|b\|^2 - \langle a, b\rangle^2 = \tfrac12\sum_{i,j}(a_ib_j - a_jb_i)^2 \ge 0$ for a
pair $(a, b)$ built from $x$, zero iff $a \parallel b$: $\ell_{bin}$ ($a = 1$, $b = x^2$: $|x_i|$ constant),
$\ell_{osb}$ ($a = x$, $b = x^2$: $x_i \in \{0, \alpha\}$), $\ell_{ter}$ ($a = x$, $b = x^3$: $x_i \in \{0, \pm\alpha\}$),
$\ell_{eig}$ ($a = x$, $b = Cx$: eigenvectors)."""),
        ("code", """import numpy as np
from theorylab.exact import cs_regularizers as R
rng = np.random.default_rng(0)
C = rng.standard_normal((6, 6)); C = C + C.T
x = rng.standard_normal(6)
for name in R.REGULARIZERS:
    T = R.target_points(name, 3, 6, seed=1, C=C)
    print(f"{name:8s} l(x) = {R.regularizer(name, x, C=C)[0]:10.4g}   Lagrange form {R.lagrange_form(name, x, C=C):10.4g}"
          f"   max l on targets {np.abs(R.regularizer(name, T, C=C)[0]).max():.1e}")
print(R.sympy_identity("osb", 3)[2])   # 0: the identity holds symbolically"""),
        ("md", r"""## Binary recovery: success vs $M/N$ (the authors' protocol, scaled down)

$\ell_{bin}$ from one start and with up to 10 starts, against $\ell_\infty$ minimisation (a linear programme) and
Wendel's exact $\ell_\infty$ success probability."""),
        ("code", """import pandas as pd
from theorylab.validations.cs_reg import binary_point
def show(N=30, n_trials=5):
    rows = [binary_point(gamma=g, N=N, n_trials=n_trials, starts=10, seed=0) for g in (0.3, 0.5, 0.7)]
    return pd.concat(rows).groupby("gamma")[["lbin_first", "lbin", "linf", "wendel"]].mean()"""),
        explore_cell("show(N, n_trials)", {"N": (30, "IntSlider(value=30, min=10, max=100)"),
                                           "n_trials": (5, "IntSlider(value=5, min=5, max=200)")}),
        ("md", r"""## A spurious local minimum of $\ell_{eig}$ on $\{Ax = b\}$"""),
        ("code", """P = R.recovery_problems("eigvec", 6, 20, 10, seed=3)
r = R.recover("eig", P, starts=1, seed=1)
i = int(np.argmin(r["success"]))
x, rel = R.restricted_newton("eig", r["x_hat"][i], P["U"][i], C=P["C"][i])
ev = R.projected_hessian("eig", x, P["U"][i], C=P["C"][i])
print(f"trial {i}: ||x - x*||/||x*|| = {r['relerr'][i]:.3f}, restricted gradient {rel:.1e}, "
      f"smallest projected-Hessian eigenvalue {ev[0]:.3g} (> 0: a strict local minimum)")"""),
    ]


if __name__ == "__main__":
    print(write_notebook("cs_reg", cells()))
