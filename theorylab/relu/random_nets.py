"""Random bias-free networks with N-ary-fraction weights, for testing the volume invariant."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from theorylab.core.seeding import as_generator
from theorylab.core.validate import check_budget, check_int, check_real

from .network import ReLUNetwork
from .polytopes import MAX_COORD


#: Largest number of weights of :func:`random_nary_network` (drawn one by one as Fractions).
MAX_WEIGHTS = 10**6


def check_widths(widths, *, min_layers=0):
    """Hidden widths: a sequence of at least ``min_layers`` ints >= 1 (``widths[i]`` named in errors)."""
    if isinstance(widths, (str, bytes, dict, set)) or not hasattr(widths, "__len__") \
            or (isinstance(widths, np.ndarray) and widths.ndim != 1):
        raise TypeError(f"widths must be a sequence of hidden-layer widths (ints >= 1); got "
                        f"{type(widths).__name__} {widths!r:.60}")
    if len(widths) < min_layers:
        raise ValueError(f"widths must list at least {min_layers} hidden layer(s); got {len(widths)}")
    return [check_int(f"widths[{i}]", w, low=1) for i, w in enumerate(widths)]


def random_nary_network(n: int, widths, *, N: int = 1, max_numerator: int = 2, max_exponent: int = 1,
                        p_zero: float = 0.3, seed=0) -> ReLUNetwork:
    """A bias-free ReLU network R^n -> R with weights a / N^e.

    Parameters
    ----------
    n : int >= 1
        Input dimension.
    widths : sequence of int
        Hidden-layer widths; ``len(widths)`` is the depth k.
    N : int in [1, 2^40]
        Weights are N-ary fractions a / N^e, e in {0..max_exponent <= 64} (N = 1: integers).
    max_numerator : int in [1, 2^40]
        |a| <= max_numerator.
    p_zero : float in [0, 1)
        Probability of a zero weight (sparsity keeps the polytopes small).
    seed : int or Generator

    The weights are Python Fractions drawn one by one (~10 us and ~100 bytes each), so their number,
    sum over layers of (fan-in x fan-out), is capped at ``MAX_WEIGHTS`` (~10 s) before anything
    is allocated.
    """
    n = check_int("n", n, low=1)
    N = check_int("N", N, low=1, high=MAX_COORD)
    max_numerator = check_int("max_numerator", max_numerator, low=1, high=MAX_COORD)
    max_exponent = check_int("max_exponent", max_exponent, low=0, high=64)
    widths = check_widths(widths)
    p_zero = check_real("p_zero", p_zero, low=0.0, high=1.0, high_open=True)
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
