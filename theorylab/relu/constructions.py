"""Upper-bound constructions for F_n = max(0, x_1, ..., x_n) (AHM, Sec. 1; HBDS NeurIPS'21).

* ``max2``: max(a, b) = ReLU(a - b) + ReLU(b) - ReLU(-b) with one hidden layer of 3 neurons
  and weights in {-1, 0, 1}; a value passed through a layer uses ReLU(c) - ReLU(-c).
* ``max_network(n)``: a balanced tournament over the n + 1 values (0, x_1, ..., x_n); each
  round halves the number of candidates, so it has ceil(log2(n + 1)) hidden layers.
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil, log2

import numpy as np

from theorylab.core.validate import check_int

from .network import ReLUNetwork, point_array, to_fraction


def ceil_log(base: int, m: int) -> int:
    """ceil(log_base(m)) for integers m >= 1, base >= 2, in exact integer arithmetic."""
    base = check_int("base", base, low=2)
    m = check_int("m", m, low=1)
    k, power = 0, 1
    while power < m:
        power *= base
        k += 1
    return k


def _round_layers(m: int):
    """Hidden layer W (from m candidates) and read-out R (to ceil(m/2) candidates) of one round."""
    pairs = m // 2
    odd = m % 2
    rows, readout = [], []
    for j in range(pairs):
        a, b = 2 * j, 2 * j + 1
        base = len(rows)
        for coeffs in ({a: 1, b: -1}, {b: 1}, {b: -1}):      # ReLU(a-b), ReLU(b), ReLU(-b)
            r = [0] * m
            for i, c in coeffs.items():
                r[i] = c
            rows.append(r)
        readout.append((base, [1, 1, -1]))
    if odd:
        c = m - 1
        base = len(rows)
        for s in (1, -1):                                      # ReLU(c), ReLU(-c)
            r = [0] * m
            r[c] = s
            rows.append(r)
        readout.append((base, [1, -1]))
    R = np.zeros((len(readout), len(rows)), dtype=object)
    for out, (base, cs) in enumerate(readout):
        for t, cval in enumerate(cs):
            R[out, base + t] = cval
    return np.array(rows, dtype=object), R


def max_network(n: int) -> ReLUNetwork:
    """The balanced-tournament network for F_n = max(0, x_1, ..., x_n).

    Parameters
    ----------
    n : int >= 1
        Number of inputs.

    Returns
    -------
    ReLUNetwork
        Integer weights in {-1, 0, 1}, no biases, ceil(log2(n + 1)) hidden layers.
    """
    n = check_int("n", n, low=1, high=10**5)     # O(n) neurons, O(n^2) weight entries
    m = n + 1
    # candidate vector c = (0, x_1, ..., x_n) = E x with a zero first row
    E = np.zeros((m, n), dtype=np.int64)
    for i in range(n):
        E[i + 1, i] = 1
    weights = []
    prev = E                        # linear map from the previous hidden layer to the candidates
    while m > 1:
        W, R = _round_layers(m)
        W, R = W.astype(np.int64), R.astype(np.int64)
        weights.append(W @ prev)
        prev = R
        m = R.shape[0]
    weights.append(prev)
    return ReLUNetwork([M.astype(object) for M in weights])


def max2_network() -> ReLUNetwork:
    """max(a, b) with one hidden layer: ReLU(a - b) + ReLU(b) - ReLU(-b)."""
    return ReLUNetwork([[[1, -1], [0, 1], [0, -1]], [[1, 1, -1]]])


def depth_upper_bound_tournament(n: int) -> int:
    """ceil(log2(n + 1)): hidden layers of :func:`max_network` (integer weights; HBDS'21)."""
    return ceil_log(2, check_int("n", n, low=1) + 1)


def F_n(X):
    """Exact F_n(x) = max(0, x_1, ..., x_n) row-wise on an (m, n) array of ints, Fractions or
    strings (floats refused: see :func:`theorylab.relu.to_fraction`)."""
    X = point_array(X, max_entries=10**7)
    return np.array([max([Fraction(0)] + [to_fraction(f"X[{i}, {j}]", v) for j, v in enumerate(row)])
                     for i, row in enumerate(X)], dtype=object)
