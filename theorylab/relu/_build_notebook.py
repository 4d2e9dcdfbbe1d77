"""Builds notebooks/relu_depth.ipynb with nbformat: ``python -m theorylab.relu._build_notebook``."""

from nbformat.v4 import new_code_cell, new_markdown_cell

from theorylab.core.notebooks import write_notebook

CELLS = [
    new_markdown_cell(
        "# relu_depth: exact ReLU networks for F_n = max(0, x_1..x_n) and the p-adic depth bound\n\n"
        "Averkov, Hojny, Merkert (ICLR 2025): with N-ary-fraction weights F_n needs at least "
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
    new_code_cell(
        "try:\n"
        "    import ipywidgets as widgets\n"
        "    widgets.interact(lambda N=10: print('p(N) =', smallest_prime_not_dividing(N=N)),\n"
        "                     N=widgets.IntSlider(min=1, max=2310, value=10))\n"
        "except ImportError:\n"
        "    for N in (1, 2, 6, 10, 30, 210, 2310):\n"
        "        print('N =', N, 'p(N) =', smallest_prime_not_dividing(N=N))"),
    new_markdown_cell("## Bound table"),
    new_code_cell("bound_table(ns=[1, 2, 3, 4, 8, 26, 100, 1000], Ns=(1, 10, 210))"),
]


def build(path=None):
    return write_notebook("relu_depth", CELLS, path)


if __name__ == "__main__":
    print(build())
