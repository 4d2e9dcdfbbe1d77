"""Argument checks and the size budgets of theorylab.missing_mass (built on theorylab.core.validate).

Budgets (refused before anything is allocated; the message names the argument):

* ``MAX_N`` = 10**6 observations in a sample (log-factorial tables, label arrays);
* ``MAX_S`` = 10**7 classes in a distribution (80 MB of float64);
* ``MAX_LABELS`` = 10**8 labels drawn in one call (``reps * n``, 800 MB of int64) and ``MAX_DRAWS``
  = 10**9 draws per Monte Carlo call (about a minute on 2 cores);
* ``MAX_TABLE`` = 10**8 cells of an (n+1) x (n+2) table (``phi_prefix_matrix``, the Monte Carlo
  coefficient table): n <= 9998;
* ``MAX_PAIR_WORK`` = 10**10 inner steps of the pairwise moment formulas (``exact_moments``):
  (terms+1)^2 x D^2 x (1 + spread of the prefixes), D the distinct values of p;
* ``MAX_TERMS`` = 10**4 terms of an estimator, ``MAX_GENOME`` = 10**4 terms of a genome;
* the search: at most 10**5 generations of at most 10**4 parents.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from theorylab.core import check_choice, check_int, check_real
from theorylab.core.validate import _fmt

MAX_N = 10**6
MAX_S = 10**7
MAX_LABELS = 10**8
#: Threads over blocks of paths (core.parallel.map_blocks) get at least this many labels each.
MIN_LABELS_PER_THREAD = 10**5
MAX_DRAWS = 10**9
MAX_TABLE = 10**8
MAX_TABLE_N = 9998  # (n + 1) (n + 2) <= 10**8
MAX_PAIR_WORK = 10**10
MAX_TERMS = 10**4
MAX_GENOME = 10**4
MAX_GENERATIONS = 10**5
MAX_PARENTS = 10**4


def check_n(name, n, *, low=1, high=MAX_N) -> int:
    """A sample size / prefix length in [low, high] (default high: MAX_N = 10**6)."""
    return check_int(name, n, low=low, high=high)


def check_str_choice(name, value, allowed):
    """``value`` must be one of the strings ``allowed`` (arrays and other types are refused by name)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {', '.join(map(repr, allowed))} (a str); got {_fmt(value)} "
                        f"of type {type(value).__name__}")
    return check_choice(name, value, allowed)


def check_bool(name, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {_fmt(value)} of type {type(value).__name__}")
    return bool(value)


def check_rng(name, rng):
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"{name} must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)); "
                        f"got {_fmt(rng)} of type {type(rng).__name__}")
    return rng


def _exact_number(name, x):
    """An int, Fraction or finite float as an exact Fraction (a float by its binary value)."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must hold rationals (Fraction, int or float); got {x!r}")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (numbers.Integral, np.integer)):
        return Fraction(int(x))
    if isinstance(x, (numbers.Real, np.floating)):
        if not np.isfinite(float(x)):
            raise ValueError(f"{name} must hold finite numbers; got {x!r}")
        return Fraction(float(x))  # exact: the binary value of the float
    raise TypeError(f"{name} must hold rationals (Fraction, int or float); got {_fmt(x)} of type {type(x).__name__}")


def exact_sequence(name, values, *, length=None, max_len=MAX_S):
    """A non-empty list of exact Fractions (floats converted exactly, by their binary value)."""
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{name} must be 1-d; got shape {values.shape}")
        values = values.tolist()
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__") or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a sequence of rationals; got {_fmt(values)} of type {type(values).__name__}")
    if len(values) == 0:
        raise ValueError(f"{name} must be non-empty; got an empty sequence")
    if len(values) > max_len:
        raise ValueError(f"{name} must have at most {max_len} entries; got {len(values)}")
    if length is not None and len(values) != length:
        raise ValueError(f"{name} must have {length} entries (one per term); got {len(values)}")
    return [_exact_number(name, x) for x in values]


def check_genome(name, genome, *, n=None):
    """A genome {(m, k): coefficient}: integer keys 1 <= k <= m (m <= n + 1 if n is given),
    finite real or Fraction coefficients, at most MAX_GENOME terms."""
    if not isinstance(genome, dict):
        raise TypeError(f"{name} must be a dict {{(m, k): coefficient}}; got {_fmt(genome)} of type "
                        f"{type(genome).__name__}")
    if len(genome) > MAX_GENOME:
        raise ValueError(f"{name} must have at most {MAX_GENOME} terms; got {len(genome)}")
    top = None if n is None else n + 1
    for key, a in genome.items():
        # fast path first (plain int keys, float/Fraction coefficients: a search calls this per candidate)
        if type(key) is tuple and len(key) == 2 and type(key[0]) is int and type(key[1]) is int:
            ok = True
        else:
            ok = (isinstance(key, tuple) and len(key) == 2
                  and all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in key))
        if not ok or not 1 <= key[1] <= key[0] or (top is not None and key[0] > top):
            bound = "" if top is None else f" and m <= n + 1 = {top}"
            raise ValueError(f"{name} keys must be integer pairs (m, k) with 1 <= k <= m{bound}; got {_fmt(key)}")
        t = type(a)
        if t is Fraction or t is int or (t is float and math.isfinite(a)):
            continue
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (numbers.Real, np.floating)) or not np.isfinite(float(a)):
            raise ValueError(f"{name} coefficients must be finite reals or Fractions; got {_fmt(a)} at {key}")
    return genome


def check_prob_like(name, p):
    """Validate a float probability vector's size before core's check (S <= MAX_S)."""
    from theorylab.core import check_probability_vector

    arr = check_probability_vector(name, p)
    if arr.size > MAX_S:
        raise ValueError(f"{name} must have at most {MAX_S} classes; got {arr.size}")
    return arr


def pair_work(n_terms: int, distinct: int, m) -> int:
    """Inner steps of the pairwise moment formulas for ``n_terms`` atoms (+ M_0) over ``distinct`` values."""
    m = np.asarray(m, dtype=np.int64)
    spread = int(m.max() - m.min()) if m.size else 0
    return (n_terms + 1) ** 2 * distinct ** 2 * (1 + spread)


def check_real_nonneg(name, x, high=None):
    return check_real(name, x, low=0.0, high=high)
