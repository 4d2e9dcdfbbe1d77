"""Builds notebooks/gnn_ilp_sym.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py gnn_ilp_sym``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("gnn_ilp_sym") + [
        ("md", r"""## A symmetric ILP and its orbits

Bin packing with interchangeable bins: $x_{ij}$ = item $i$ in bin $j$. Permuting the bins is a formulation
symmetry (Definition 2), so each item row $\{x_{i1},\dots,x_{ik}\}$ is an orbit (Definition 3). Orbits by brute
force over $S_n$ and by colour refinement of the bipartite graph agree."""),
        ("code", """import os
import numpy as np
from theorylab.core import child_seed
from theorylab.exact import ilp_orbits as I
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
A, b, c = I.bin_packing_ilp((3.0, 5.0), 3, 8.0)
G = I.formulation_symmetries(A, b, c)
O = I.orbits_brute_force(A, b, c)
print("|G| =", len(G), " orbits:", O, " refinement:", I.orbits_refinement(A, b, c))"""),
        ("md", r"""## Proposition 1: a GNN cannot tell orbit-mates apart; Orbit augmentation can"""),
        ("code", """def gaps(seed=0):
    p = I.random_gnn(seed=seed)
    y0 = I.gnn_forward(p, A, b, c)
    z = I.orbit_features(O, seed=child_seed(seed, "orbit_features"))
    y1 = I.gnn_forward(p, A, b, c, z)
    print("without z:", np.round(y0, 6))
    print("z (Algorithm 1):", z)
    print("with z:   ", np.round(y1, 6))"""),
        explore_cell("gaps(seed)", {"seed": (0, "IntSlider(value=0, min=0, max=50)")}),
        ("md", r"""## Cardinalities: $c_{o+} < c_o = \prod_k |O_k|! < n!$

Orbit+ reading (errata): each class of column-coupled orbits of size $c$ contributes $c!$ once."""),
        ("code", """print(I.cardinalities(O, G), "enumerated:", len(I.enumerate_orbit_features(O)),
      len(I.enumerate_orbit_plus_features(O, G)))"""),
        ("code", """from theorylab.validations.gnn_ilp_sym import fig_orbit_gaps, FIG_SCALES
params = dict(FIG_SCALES["ci"]) if CI else dict(FIG_SCALES["full"])
if CI:
    params.update(draws=3)
fig, table = fig_orbit_gaps(seed=1, **params)
table.groupby("instance")[["max_gap_before", "min_gap_after"]].agg(["max", "min"])"""),
    ]


if __name__ == "__main__":
    print(write_notebook("gnn_ilp_sym", cells()))
