"""Exact total variation distance by enumeration of [q]^n.

d_TV(P, Q) = max_S (P(S) - Q(S)) = 1/2 sum_x |P(x) - Q(x)| (Bhattacharyya et al., ICLR 2025,
Sec. 1, the displayed definition). Exact TV is #P-hard already for two product distributions
(Bhattacharyya et al., IJCAI 2023), so enumeration is the exponential-time ground truth:
a jitted kernel for floats (q^n points, n up to about 20-24 for q = 2), an exact rational
version for tiny instances, and a vectorised numpy version used as the benchmark reference.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from theorylab.core.validate import check_int, require_finite

from ._kernels import mixture_tv_kernel
from .distributions import Mixture, check_same_space, signed_components, warn_if_floats

#: enumeration refuses more points than this unless ``max_points`` is raised
MAX_POINTS = 2 ** 26


def _check_size(P: Mixture, max_points):
    max_points = check_int("max_points", max_points, low=1, high=10**8)  # a cap beyond memory is no cap
    size = P.q ** P.n
    if size > max_points:
        raise ValueError(f"enumeration of [q]^n with q = {P.q}, n = {P.n} visits {size} points, more than "
                         f"max_points = {max_points}; raise max_points or use an approximation")
    return size


def _n_top(q, n, target_blocks=64):
    """Leading coordinates that index the parallel blocks (fixed by (q, n), not the threads)."""
    t = 0
    while t < n and q ** (t + 1) <= target_blocks:
        t += 1
    return t


def tv_exact(P: Mixture, Q: Mixture, *, max_points=MAX_POINTS) -> float:
    """Exact d_TV(P, Q) between two mixtures of products by enumeration (jitted, float64).

    Parameters
    ----------
    P, Q : Mixture
        On the same [q]^n (see :func:`theorylab.tv.mixture`).
    max_points : int
        Refuse instances with more than this many points q^n.

    Returns
    -------
    float
        ``1/2 sum_x |P(x) - Q(x)|``; round-off is about ``1e-16 * (k1 + k2)`` per point.
    """
    return _tv_enumeration(P, Q, max_points)[0]


def _tv_enumeration(P: Mixture, Q: Mixture, max_points=MAX_POINTS):
    """(d_TV, ops): the enumeration's value and its multiply-add count (for cost claims)."""
    check_same_space(P, Q)
    _check_size(P, max_points)
    c, M = signed_components(P, Q)
    tv, ops = mixture_tv_kernel(c, M, _n_top(P.q, P.n))
    tv = float(tv)
    require_finite("tv_exact", tv, n=P.n, q=P.q)
    return tv, int(ops)


def tv_exact_rational(P: Mixture, Q: Mixture, *, max_points=4096) -> Fraction:
    """Exact d_TV(P, Q) as a :class:`fractions.Fraction` (pure Python; tiny instances only).

    Float-built mixtures enter at their exact binary values (FloatInputWarning)."""
    check_same_space(P, Q)
    warn_if_floats("tv_exact_rational", P=P, Q=Q)
    _check_size(P, max_points)
    total = Fraction(0)
    for x in itertools.product(range(P.q), repeat=P.n):
        d = P.pmf_exact(x) - Q.pmf_exact(x)
        if d > 0:
            total += d
    return total


def joint_pmf(P: Mixture, *, max_points=MAX_POINTS) -> np.ndarray:
    """The full pmf of P as an array of shape (q,) * n (vectorised numpy; memory q^n floats)."""
    if not isinstance(P, Mixture):
        raise TypeError(f"P must be a Mixture (from theorylab.tv.mixture/product); got {type(P).__name__}")
    _check_size(P, max_points)
    out = np.zeros((P.q,) * P.n)
    for w, comp in zip(P.weights, P.marginals):
        term = np.array(w)
        for row in comp:
            term = np.multiply.outer(term, row)
        out += term
    return out


def tv_numpy(P: Mixture, Q: Mixture, *, max_points=MAX_POINTS) -> float:
    """Reference d_TV by building both joint pmfs with numpy outer products (benchmark baseline)."""
    check_same_space(P, Q)
    return float(0.5 * np.abs(joint_pmf(P, max_points=max_points) - joint_pmf(Q, max_points=max_points)).sum())
