"""Builds notebooks/quantum_sosp.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py quantum_sosp``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("quantum_sosp") + [
        ("md", r"""## The instance and the algorithm

$f(x) = \tfrac12\sum_i h_i x_i^2 + \tfrac14\sum_i x_i^4$ with $h = (1,\dots,1,-1)$ in $d = 10$: a strict saddle
at $0$ ($\lambda_{\min} = -1$) and minima at $x_d = \pm 1$. PGD (Jin et al. 2017, Alg. 2) starts on the saddle's
stable manifold, reaches the saddle, perturbs by $\xi \sim \mathrm{Unif}(B(0, r))$, $r = \epsilon = 0.1$, and
returns the pre-perturbation point if $f$ has not dropped by $f_{thres}$ after $t_{thres}$ steps.
An adversarial oracle of level $\nu$ hides the escape direction: the run is trapped iff $|\xi_d| \le x_c(\nu)$
(derived), so $P(\text{escape}) = 1 - I_{(x_c/r)^2}(\tfrac12, \tfrac{d+1}2)$. `THEORYLAB_SCALE=ci` keeps every
cell tiny."""),
        ("code", """import os
import numpy as np
from theorylab.zeroth import saddle as S
from theorylab.core.plotting import pyplot
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
N = 60 if CI else 1000
for oracle in S.ORACLES:
    print(f"{oracle:8s}: derived crossover nu_1/2 = {S.critical_noise(0.5, oracle=oracle):.4g}")
print("abstract's levels with constant 1:", S.paper_thresholds(0.1, 10))"""),
        ("md", r"""## Per-run critical levels

With the adversary, run $m$ (its perturbation fixed by its seed) succeeds exactly below a level $\nu_m$; the
empirical survival function of the $\nu_m$ is the escape curve, their median the crossover."""),
        ("code", """nu_m = S.critical_levels(oracle="value", n_runs=N, n_bisect=12 if CI else 24, seed=2)
print(f"median nu_m = {np.median(nu_m):.4g}; derived nu_1/2 = {S.critical_noise(0.5, oracle='value'):.4g}")"""),
        ("md", r"""## Escape probability against the oracle level (the figure `escape_vs_noise`)

Measured fraction of runs reaching an $(\epsilon, \sqrt\epsilon)$-SOSP (95% Clopper-Pearson) against the derived
curve, for both adversarial oracles, and the fraction escaped under random value noise of the same level; the
dotted lines are the abstract's levels with constant 1. The cell redraws under sliders in Jupyter (ipywidgets)."""),
        ("code", """from theorylab.validations.quantum_sosp import fig_escape_vs_noise

def show(n_runs=40 if CI else 500, n_levels=4 if CI else 12):
    fig, table = fig_escape_vs_noise(n_runs=n_runs, n_levels=n_levels, seed=1)
    plt.show()
    return table[["oracle", "noise", "nu", "sosp", "escaped", "predicted_adversarial"]]"""),
        explore_cell("show(n_runs, n_levels)", {
            "n_runs": (40, "IntSlider(value=200, min=20, max=2000, step=20)"),
            "n_levels": (4, "IntSlider(value=8, min=3, max=25)")}),
    ]


if __name__ == "__main__":
    print(write_notebook("quantum_sosp", cells()))
