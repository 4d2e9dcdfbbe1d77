"""Builds notebooks/relu_depth.ipynb with nbformat: ``python notebooks/build.py relu_depth``."""

from nbformat.v4 import new_code_cell, new_markdown_cell

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook

def cells():
    return header_cells("relu_depth") + [
    new_markdown_cell(
        "## What this notebook does\n\n"
        "With N-ary-fraction weights F_n = max(0, x_1..x_n) needs at least "
        "ceil(log_p(n+1)) hidden layers for every prime p not dividing N (Thm 4; decimal weights give p = 3). "
        "This notebook builds the tournament network, certifies it exactly, and looks at the volume invariant "
        "on random networks. `THEORYLAB_SCALE=ci` keeps every cell tiny."),
    new_code_cell(
        "import os\n"
        "from fractions import Fraction\n"
        "import numpy as np\n"
        "from theorylab.relu import (max_network, certify_max, newton_polytopes, simplex, bound_table,\n"
        "                            volume_invariant_table, smallest_prime_not_dividing)\n"
        "CI = os.environ.get('THEORYLAB_SCALE', 'full') == 'ci'\n"
        "N_CERT = 3 if CI else 5\n"
        "N_NETS = 2 if CI else 10"),
    new_markdown_cell("## The tournament and its exact evaluation"),
    new_code_cell(
        "net = max_network(n=5)\n"
        "print(net, 'hidden layers:', net.depth, 'weights:', sorted(net.weight_values()))\n"
        "X = [[Fraction(1, 3), -2, '7/10', 0, Fraction(-5, 2)], [-1, -1, -1, -1, -1]]\n"
        "print(net.evaluate(X)[:, 0])"),
    new_markdown_cell("## A certificate over all linear regions (exact Farkas certificates)"),
    new_code_cell(
        "for n in range(1, N_CERT + 1):\n"
        "    print(n, certify_max(max_network(n=n)))"),
    new_markdown_cell("## Tropical view: the Newton polytopes satisfy P = Q + Delta_n"),
    new_code_cell(
        "(P, Q), = newton_polytopes(max_network(n=3))\n"
        "print(P, Q, 'P == Q + Delta_3:', P == Q + simplex(n=3))"),
    new_markdown_cell("## The invariant: faces of dimension >= p^k have normalized volume divisible by p"),
    new_code_cell(
        "def summary(N, p, widths=(4,), n=3):\n"
        "    t = volume_invariant_table(n=n, widths=list(widths), N=N, p=p, n_networks=N_NETS, seed=1)\n"
        "    above = t[t['above']]\n"
        "    return f'N={N} p={p}: {int((~above.divisible).sum())}/{len(above)} faces of dim >= {p**len(widths)} not divisible'\n"
        "\n"
        "for N, p in [(1, 2), (10, 3), (2, 3), (2, 2)]:\n"
        "    print(summary(N, p), '(p divides N: no invariant)' if N % p == 0 else '')"),
    new_markdown_cell("## Explore: the invariant on random networks (the figure `invariant_by_face_dimension`)\n"
                      "Share of the faces of the Newton polytopes of `n_networks` random N-ary networks (n inputs, "
                      "one hidden layer of the given width) whose normalized volume is divisible by p, by face "
                      "dimension; the invariant predicts 1 from dimension p^k on when p does not divide N "
                      "(try p = 2 with N = 2: no invariant). Sliders need the `notebook` extra (ipywidgets); "
                      "headless the cell draws once."),
    new_code_cell("from theorylab.validations.relu_depth import invariant_by_face_dimension\n"
                  "print({N: smallest_prime_not_dividing(N=N) for N in (1, 2, 6, 10, 30, 210, 2310)}, '= p(N)')"),
    explore_cell("invariant_by_face_dimension(configs=((n, (width,), N, p, n_networks),), seed=seed)[1]",
                 {"n": (3, "IntSlider(value=3, min=2, max=4)"),
                  "width": (4, "IntSlider(value=4, min=2, max=8)"),
                  "N": (10, "IntSlider(value=10, min=1, max=210)"),
                  "p": (3, "Dropdown(options=[2, 3, 5, 7, 11], value=3)"),
                  "n_networks": (2, "IntSlider(value=2, min=1, max=20)"),
                  "seed": (0, "IntSlider(value=0, min=0, max=50)")}),
    new_markdown_cell("## Bound table"),
    new_code_cell("bound_table(ns=[1, 2, 3, 4, 8, 26, 100, 1000], Ns=(1, 10, 210))"),
    ]


def build(path=None):
    return write_notebook("relu_depth", cells(), path)


if __name__ == "__main__":
    print(build())
