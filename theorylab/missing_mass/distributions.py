"""The six species distributions of Lee & Böhme (ICLR 2025), Section 5 (experimental setup).

``uniform``, ``half`` (weight 3 on the first floor(S/2) classes, 1 on the rest), ``zipf``
(p_i ∝ 1/i), ``zipfhalf`` (p_i ∝ i^(-1/2)), ``diri`` (Dirichlet(1, ..., 1)) and ``dirihalf``
(Dirichlet(1/2, ..., 1/2)); the two Dirichlet families are drawn afresh from ``seed``.
The definitions follow the authors' experiment scripts (``ga.py get_p`` in the authors'
repository, its experimental protocol).
"""

from __future__ import annotations

import numpy as np

from theorylab.core.seeding import seed_sequence
from theorylab.core import as_generator, check_int

from ._checks import MAX_S, check_str_choice

DISTRIBUTIONS = ("uniform", "half", "zipf", "zipfhalf", "diri", "dirihalf")
RANDOM_DISTRIBUTIONS = ("diri", "dirihalf")


def make_distribution(name: str, S: int, *, seed=0) -> np.ndarray:
    """The probability vector ``p`` (length ``S``, sorted non-increasing) of a named family.

    Parameters
    ----------
    name : {"uniform", "half", "zipf", "zipfhalf", "diri", "dirihalf"}
    S : int
        Number of classes (species), 1 <= S <= 10**7.
    seed : int, SeedSequence or Generator (default 0)
        Only used by the Dirichlet families.

    Returns
    -------
    numpy.ndarray of shape (S,), summing to 1.
    """
    if not isinstance(seed, np.random.Generator):  # (a Generator is not consumed)
        seed_sequence(seed)  # checked even where nothing is drawn: a bad seed is an error in any mode
    check_str_choice("name", name, DISTRIBUTIONS)
    S = check_int("S", S, low=1, high=MAX_S)
    i = np.arange(1, S + 1, dtype=float)
    if name == "uniform":
        w = np.ones(S)
    elif name == "half":
        w = np.where(i <= S // 2, 3.0, 1.0)
    elif name == "zipf":
        w = 1.0 / i
    elif name == "zipfhalf":
        w = i ** -0.5
    else:
        alpha = 1.0 if name == "diri" else 0.5
        w = np.sort(as_generator(seed).dirichlet(np.full(S, alpha)))[::-1]
        w = np.maximum(w, 0.0)
    return w / w.sum()
