"""Random bias-free networks with N-ary-fraction weights, for testing the volume invariant."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from theorylab.core.seeding import as_generator
from theorylab.core.validate import check_budget, check_int

from .network import ReLUNetwork


#: Largest number of weights of :func:`random_nary_network` (drawn one by one as Fractions).
MAX_WEIGHTS = 10**6


def random_nary_network(n: int, widths, *, N: int = 1, max_numerator: int = 2, max_exponent: int = 1,
                        p_zero: float = 0.3, seed=0) -> ReLUNetwork:
    """A bias-free ReLU network R^n -> R with weights a / N^e.

    Parameters
    ----------
    n : int >= 1
        Input dimension.
    widths : sequence of int
        Hidden-layer widths; ``len(widths)`` is the depth k.
    N : int >= 1
        Weights are N-ary fractions a / N^e, e in {0..max_exponent} (N = 1: integers).
    max_numerator : int >= 1
        |a| <= max_numerator.
    p_zero : float in [0, 1)
        Probability of a zero weight (sparsity keeps the polytopes small).
    seed : int or Generator

    The weights are Python Fractions drawn one by one (~10 us and ~100 bytes each), so their number,
    sum over layers of (fan-in x fan-out), is capped at ``MAX_WEIGHTS`` (~10 s) before anything
    is allocated.
    """
    n = check_int("n", n, low=1)
    N = check_int("N", N, low=1)
    max_numerator = check_int("max_numerator", max_numerator, low=1)
    max_exponent = check_int("max_exponent", max_exponent, low=0)
    widths = [check_int(f"widths[{i}]", w, low=1) for i, w in enumerate(widths)]
    if not 0 <= p_zero < 1:
        raise ValueError(f"p_zero must be in [0, 1); got {p_zero!r}")
    dims = [n] + widths + [1]
    check_budget("random_nary_network's weights (Python Fractions)", sum(a * b for a, b in zip(dims, dims[1:])),
                 max_elements=MAX_WEIGHTS, n=n, widths=widths)
    rng = as_generator(seed)
    weights = []
    for l in range(len(dims) - 1):
        W = np.empty((dims[l + 1], dims[l]), dtype=object)
        for idx in np.ndindex(W.shape):
            if rng.random() < p_zero:
                W[idx] = Fraction(0)
            else:
                a = int(rng.integers(1, max_numerator + 1)) * (1 if rng.random() < 0.5 else -1)
                e = int(rng.integers(0, max_exponent + 1)) if N > 1 else 0
                W[idx] = Fraction(a, N ** e)
        # no dead rows: every neuron sees at least one input
        for r in range(W.shape[0]):
            if all(v == 0 for v in W[r]):
                W[r, int(rng.integers(0, W.shape[1]))] = Fraction(1)
        weights.append(W)
    return ReLUNetwork(weights)
