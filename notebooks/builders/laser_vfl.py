"""Builds notebooks/laser_vfl.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py laser_vfl``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("laser_vfl") + [
        ("md", r"""## The subset weights of the authors' code

In a batch with observed blocks $O$ ($m = |O|$), each head $i \in O$ draws, for each size $k = 1..m$, one subset
$S \ni i$ of $O$ uniformly among $\binom{m-1}{k-1}$, weighted $\binom{m-1}{k-1}/k$: every non-empty $S \subseteq O$ has
expected weight exactly 1, and a step's total weight is $2^m - 1$."""),
        ("code", """import numpy as np
from theorylab.finite_sum import vfl as V
for m in range(1, 5):
    w = V.expected_subset_weights(range(m))
    print(m, sorted(set(w.values())), sum(w.values()))
out = V.sampler_weights(4, 0.5, n_draws=50_000, seed=0)
print("Monte Carlo mean weight / q^|S|:", np.round(out["mean"] / out["expected"], 3))"""),
        ("md", r"""## The expected objective and its PL constant

$F(W) = \sum_{S \ne \emptyset} q^{|S|} \frac{1}{|S|} \sum_{i \in S} L_S(w_i)$ is a quadratic per head; its PL constant
$\mu(q)$ grows with the observation probability $q$."""),
        ("code", """from theorylab.validations.laser_vfl import instance
data = instance(0)
for q in (0.3, 0.5, 0.8, 1.0):
    obj = V.laser_objective(data, q)
    print(f"q = {q}: mu = {obj.mu:.4f}, L = {obj.L:.3f}, f* = {obj.f_star:.4f}")"""),
        ("md", r"""## Loss against steps: linear decrease to a floor proportional to the step"""),
        ("code", """from theorylab.validations.laser_vfl import fig_loss_vs_steps
def show(steps=2000, seeds=3):
    fig, table = fig_loss_vs_steps(etas=(0.01, 0.04), qs=(0.5, 0.8), steps=steps, seeds=seeds, seed=0)
    return table.groupby(["q", "eta"]).floor.first()"""),
        explore_cell("show(steps, seeds)", {"steps": (2000, "IntSlider(value=2000, min=500, max=20000)"),
                                            "seeds": (3, "IntSlider(value=3, min=2, max=16)")}),
    ]


if __name__ == "__main__":
    print(write_notebook("laser_vfl", cells()))
