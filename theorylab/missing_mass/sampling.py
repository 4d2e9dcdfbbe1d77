"""Samples, counts and frequencies of frequencies Phi_k(m) over every prefix m <= n.

A sample is given either as a *label array* (the n observed class labels, any hashable
integers) or as a *count vector* (N_x(n) for each class).  Prefix quantities Phi_k(m), m < n,
need the order of the observations and so need labels.
"""

from __future__ import annotations

import numpy as np

from theorylab.core import check_int, check_probability_vector, spawn_seeds
from theorylab.core.parallel import map_blocks
from theorylab.core.validate import _fmt

from . import _kernels as K
from ._checks import MAX_LABELS, MAX_N, MAX_S, MAX_TABLE_N, MIN_LABELS_PER_THREAD, check_n, check_prob_like


def sample(p, n: int, *, seed=0, reps: int | None = None) -> np.ndarray:
    """Draw ``n`` i.i.d. labels in 0..S-1 from ``p``.

    Parameters
    ----------
    p : array (S,)
        Probability vector (non-negative, sums to 1).
    n : int
        Sample size, n >= 1.
    seed : int, SeedSequence or Generator
    reps : int, optional
        If given, return ``reps`` independent samples as an array (reps, n); path r is seeded
        by ``spawn_seeds(seed, reps)[r]``, so results do not depend on the thread count.
        Budget: n <= 10**6 and reps * n <= 10**8 labels (800 MB).
    """
    p = check_prob_like("p", p)
    n = check_n("n", n)
    R = 1 if reps is None else check_int("reps", reps, low=1, high=MAX_LABELS // n)
    cdf = np.cumsum(p)
    cdf[-1] = 1.0
    seeds = spawn_seeds(seed, R)
    if reps is None:  # one path: the serial kernel (a parallel launch costs more than 100 labels)
        return K.sample_labels_one(cdf, n, seeds[0])
    return np.concatenate(map_blocks(lambda s: K.sample_labels_batch(cdf, n, seeds[s]), R, work=R * n,
                                     min_work=MIN_LABELS_PER_THREAD))


def _as_labels(labels, name="sample"):
    try:
        arr = np.asarray(labels)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a 1-d array of integer class labels; got {_fmt(labels)}") from exc
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array of class labels; got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must be a non-empty sample; got an empty array")
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise TypeError(f"{name} labels must be integers; got dtype {arr.dtype}")
    if arr.size > MAX_N:
        raise ValueError(f"{name} must have at most {MAX_N} observations; got {arr.size}")
    return arr.astype(np.int64)


def _as_counts(counts, name="counts"):
    try:
        arr = np.asarray(counts)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a 1-d integer count vector; got {_fmt(counts)}") from exc
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d count vector; got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must be a non-empty count vector; got an empty array")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} must hold non-negative integers; got {_fmt(arr.tolist())}")
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integer counts; got dtype {arr.dtype}")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative; got minimum {int(arr.min())}")
    if arr.size > MAX_S:
        raise ValueError(f"{name} must have at most {MAX_S} classes; got {arr.size}")
    total = int(arr.astype(object).sum())
    if total == 0:
        raise ValueError(f"{name} must describe a non-empty sample; all counts are 0")
    if total > MAX_N:
        raise ValueError(f"{name} must sum to at most {MAX_N} observations; got {total}")
    return arr.astype(np.int64)


def relabel(labels, S: int | None = None):
    """Map arbitrary integer labels to 0..(#distinct - 1); return (labels, S).

    ``S`` (the number of classes) must be at least the number of observed classes (and <= 10**7).
    """
    if S is not None:
        S = check_int("S", S, low=1, high=MAX_S)
    arr = _as_labels(labels, "labels")
    _, inv = np.unique(arr, return_inverse=True)
    seen = int(inv.max()) + 1
    if S is None:
        S = seen
    if S < seen:
        raise ValueError(f"S must be >= the number of observed classes ({seen}); got {S}")
    return inv.astype(np.int64), S


def counts_from_sample(labels, S: int | None = None) -> np.ndarray:
    """Count vector N_x(n) (observed classes first, then S - #observed zeros)."""
    inv, S = relabel(labels, S)
    return np.bincount(inv, minlength=S).astype(np.int64)  # S <= 10**7 (relabel)


def frequencies_of_frequencies(sample=None, *, counts=None) -> np.ndarray:
    """Phi_k(n) for k = 0..n+1 from a label array ``sample`` or a count vector ``counts``.

    With labels, Phi_0 counts only unseen classes if ``counts`` is not given, i.e. Phi_0 = 0
    (the number of classes is unknown); with a count vector Phi_0 = #zeros in it.
    """
    if (sample is None) == (counts is None):
        raise ValueError("give exactly one of sample (labels) or counts (a count vector)")
    c = np.unique(_as_labels(sample, "sample"), return_counts=True)[1] if counts is None else _as_counts(counts)
    n = int(c.sum())
    return np.bincount(c, minlength=n + 2).astype(np.int64)


def phi_prefix_matrix(labels, S: int | None = None) -> np.ndarray:
    """Phi[m, k] = #{x : N_x(m) = k}, m = 0..n (prefix of the first m labels), k = 0..n+1.

    Column 0 uses ``S`` (default: the number of observed classes).  n <= 9998 (the table has
    (n+1)(n+2) <= 10**8 entries).
    """
    inv, S = relabel(labels, S)
    if inv.size > MAX_TABLE_N:
        raise ValueError(f"labels must have at most {MAX_TABLE_N} observations for the (n+1) x (n+2) prefix table; "
                         f"got n = {inv.size}")
    return K.phi_prefix_matrix(inv, S)
