"""Build notebooks/cpwl_decomp.ipynb with nbformat: ``python notebooks/build.py cpwl_decomp``."""

from __future__ import annotations

from nbformat.v4 import new_code_cell, new_markdown_cell

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook

def cells():
    return header_cells("cpwl_decomp") + [
    new_markdown_cell(
        "## The objects\n\n"
        "Fix a polyhedral complex P; the decompositions f = g - h into convex CPWL functions "
        "on P form a polyhedron D_P(f) = V_P^+ ∩ (V_P^+ + f). Minimal decompositions are vertices, irreducible "
        "ones the bounded faces. `THEORYLAB_SCALE=ci` keeps this notebook tiny."),
    new_code_cell(
        "import os\n"
        "from fractions import Fraction\n"
        "from theorylab.cpwl import (CPWLFunction, DecompositionPolyhedron, hexagon_fan, random_planar_fan,\n"
        "                            random_ray_values, braid_fan, lovasz_extension, naive_decomposition)\n"
        "SCALE = os.environ.get('THEORYLAB_SCALE', 'full')\n"
        "N_RANDOM = 3 if SCALE == 'ci' else 20\n"
        "SCALE"),
    new_markdown_cell("## The hexagon fan: the worked example of the spec\n"
                      "Values of f at the rays (1,0), (1,1), (0,1), (-1,0), (-1,-1), (0,-1)."),
    new_code_cell(
        "fan = hexagon_fan()\n"
        "f = CPWLFunction.from_ray_values(fan, [0, -1, 0, 0, 2, 0])\n"
        "D = DecompositionPolyhedron(f)\n"
        "print('bends of f:', [str(v) for v in f.bends], '| dim V_P/Aff =', D.d)\n"
        "D.vertex_table()[['bends_g', 'bends_h', 'pieces_g', 'pieces_h', 'total_pieces', 'exact_identity']]"),
    new_code_cell("D.faces().query('bounded')  # the bounded faces = irreducible decompositions"),
    new_markdown_cell("## Explore: minimal vs naive decompositions (the figure `piece_counts`)\n"
                      "pieces(g) + pieces(h) of the best vertex of D_P(f) against the naive decomposition "
                      "(f + t phi, phi strictly convex), for random integer f on random planar fans with 4..m_max rays. "
                      "Move the sliders (needs the `notebook` extra, ipywidgets); headless the cell draws once."),
    new_code_cell("from theorylab.validations.cpwl_decomp import piece_counts"),
    explore_cell("piece_counts(sizes=tuple(range(4, m_max + 1)), n_random=n_random, seed=seed)[1]"
                 ".groupby('m')[['f_pieces', 'minimal', 'naive', 'vertices']].mean()",
                 {"m_max": (6, "IntSlider(value=6, min=4, max=10)"),
                  "n_random": (3, "IntSlider(value=3, min=1, max=30)"),
                  "seed": (0, "IntSlider(value=0, min=0, max=50)")}),
    new_markdown_cell("One random f and its vertices, on a random fan of m rays:"),
    new_code_cell(
        "def vertices(m=6, seed=0):\n"
        "    fan = random_planar_fan(m, seed=seed)\n"
        "    f = CPWLFunction.from_ray_values(fan, random_ray_values(fan, seed=seed))\n"
        "    D = DecompositionPolyhedron(f)\n"
        "    mins, table = D.minimal_decompositions()\n"
        "    print(f'{m} rays {fan.rays}; f has {f.n_pieces()} pieces; {len(table)} vertices; '\n"
        "          f'minimal pieces {mins[0].pieces}, naive {naive_decomposition(f).pieces}')\n"
        "    return table[['bends_g', 'bends_h', 'total_pieces']]\n"
        "\n"
        "vertices(m=6, seed=1)"),
    new_markdown_cell("## Submodular functions: the braid fan\n"
                      "Lovász extensions of set functions on 2^[3]; convex ⇔ submodular."),
    new_code_cell(
        "B = braid_fan(3)\n"
        "rows = []\n"
        "for seed in range(N_RANDOM):\n"
        "    from theorylab.cpwl import random_set_function\n"
        "    F = random_set_function(3, seed=seed)\n"
        "    D = DecompositionPolyhedron(lovasz_extension(B, F))\n"
        "    V, R = D.vrep()\n"
        "    rows.append((F, len(V), len(R)))\n"
        "rows"),
    new_markdown_cell("## Tran & Wang's canonical rule in 2-D and 3-D (reconstruction, see `theorylab/cpwl/tran_wang.py`)\n"
                      "The least-edge-length vertex of D_P(f) is Tran & Wang's canonical decomposition in 2-D; on this "
                      "3-D fan it has more pieces than the best vertex."),
    new_code_cell(
        "from theorylab.cpwl import polytope_fan, tran_wang_decomposition\n"
        "from theorylab.cpwl.experiments import TW_EXAMPLE_3D\n"
        "f3 = CPWLFunction.from_ray_values(polytope_fan(TW_EXAMPLE_3D['rays']), TW_EXAMPLE_3D['values'])\n"
        "tw, ties = tran_wang_decomposition(f3)\n"
        "mins, table = DecompositionPolyhedron(f3).minimal_decompositions()\n"
        "print('Tran-Wang rule pieces', tw.pieces, '| best vertex', mins[0].pieces, '| vertices', len(table))"),
    new_markdown_cell("## A ReLU network for a convex CPWL function\n"
                      "f = max of k affine pieces as a signed sum of maxima of <= n+1 pieces over a triangulation: "
                      "ceil(log2(n+1)) hidden layers, proved equal to f cell by cell in exact arithmetic."),
    new_code_cell(
        "from theorylab.cpwl import convex_cpwl_network, max_tree_network, random_convex_pieces, verify_network\n"
        "A, c = random_convex_pieces(3 if SCALE == 'ci' else 5, 2, seed=0)\n"
        "net, info = convex_cpwl_network(A, c)\n"
        "print(info, '| one tournament: depth', max_tree_network(A, c).depth)\n"
        "verify_network(net, A, c)"),
    new_markdown_cell("## The polyhedra themselves (the figure `polygons_4ray`; a few seconds, so full scale only)"),
    new_code_cell(
        "if SCALE != 'ci':\n"
        "    from theorylab.validations.cpwl_decomp import polygons_4ray\n"
        "    fig, table = polygons_4ray(n_panels=2, seed=0)"),
    ]


def build(path=None):
    return write_notebook("cpwl_decomp", cells(), path)


if __name__ == "__main__":
    print(build())
