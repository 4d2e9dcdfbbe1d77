"""Estimators of the missing mass M_0(n) of the family "sum of coef * Phi_k(n')".

Lee & Böhme (ICLR 2025), Section 3: every estimator here is a finite linear combination of
frequencies of frequencies Phi_k(n') of prefixes n' <= n of the sample.

* Good–Turing: Phi_1(n) / n.
* The minimal-bias estimator induced by the characterisation (Section 3, the f_k series):
  sum_{k=1}^{n} (-1)^(k-1) Phi_k(n) / C(n, k), with bias -(-1)^n sum_x p_x^(n+1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fractions import Fraction

from theorylab.core import check_int, check_real

from ._checks import MAX_N, MAX_TERMS, check_n, exact_sequence
from .sampling import _as_counts, phi_prefix_matrix


def log_comb(m: int, k: int) -> float:
    return math.lgamma(m + 1) - math.lgamma(k + 1) - math.lgamma(m - k + 1)


def times_comb(x: float, m: int, k: int, inverse: bool = False) -> float:
    """x * C(m, k) (or x / C(m, k)), exact binomial where it fits a float, log space beyond."""
    c = math.comb(m, k)
    if c < 1e300:
        return float(x) / c if inverse else float(x) * c
    if x == 0:
        return 0.0
    lg = math.log(abs(float(x))) + (-log_comb(m, k) if inverse else log_comb(m, k))
    return math.copysign(math.exp(lg), float(x)) if lg < 709.78 else math.copysign(math.inf, float(x))


def _to_float(x) -> float:
    try:
        return float(x)
    except OverflowError:
        return math.copysign(math.inf, x)


@dataclass(frozen=True)
class Estimator:
    """sum_j coef_j * Phi_{k_j}(m_j): a small, printable member of the family.

    Parameters
    ----------
    coef : array of float
        The coefficients (of Phi itself, not of Phi / C(m, k)).
    m : array of int
        Prefix lengths n' (1 <= m_j).
    k : array of int
        Frequencies (1 <= k_j <= m_j).
    name : str
        A label for tables and plots.
    exact_coef : sequence of Fraction, optional
        The coefficients as exact rationals (``good_turing`` and ``minimal_bias`` set them); used
        by the exact-arithmetic paths (:func:`~theorylab.missing_mass.exact_moments_rational`,
        :func:`~theorylab.missing_mass.brute_force_moments`).  Without them those paths take the
        binary value of each float coefficient exactly (``Fraction(0.01) != 1/100``).
    """

    coef: np.ndarray
    m: np.ndarray
    k: np.ndarray
    name: str = "estimator"
    exact_coef: tuple | None = None

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str; got {self.name!r}")
        try:
            coef = np.asarray(self.coef, dtype=float).ravel()
            m = np.asarray(self.m).ravel()
            k = np.asarray(self.k).ravel()
        except (TypeError, ValueError) as exc:
            raise TypeError(f"coef, m and k must be 1-d numeric arrays; got coef={self.coef!r}, m={self.m!r}, "
                            f"k={self.k!r}") from exc
        if coef.size > MAX_TERMS:
            raise ValueError(f"coef must have at most {MAX_TERMS} terms; got {coef.size}")
        for nm, arr in (("m", m), ("k", k)):
            if arr.dtype.kind not in "iuf":
                raise TypeError(f"{nm} must hold integers; got dtype {arr.dtype}")
            if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
                raise ValueError(f"{nm} must hold finite integers; got {arr.tolist()}")
            if arr.size and np.max(np.abs(arr)) > MAX_N:
                raise ValueError(f"{nm} must be at most {MAX_N} (the sample-size budget); got {np.max(arr)}")
        if not (coef.size == m.size == k.size):
            raise ValueError(f"coef, m and k must have the same length; got {coef.size}, {m.size}, {k.size}")
        if coef.size == 0:
            raise ValueError("an estimator needs at least one term; got none")
        if not np.all(np.isfinite(coef)):
            raise ValueError("coef must be finite")
        for nm, arr in (("m", m), ("k", k)):
            if arr.dtype.kind not in "iu" and not np.all(arr == np.round(arr)):
                raise TypeError(f"{nm} must hold integers; got {arr.tolist()}")
        m, k = m.astype(np.int64), k.astype(np.int64)
        if np.any(m < 1):
            raise ValueError(f"m (the prefix lengths n') must be >= 1; got minimum {int(m.min())}")
        if np.any(k < 1) or np.any(k > m):
            raise ValueError("k must satisfy 1 <= k <= m for every term; got "
                             f"{[(int(a), int(b)) for a, b in zip(m, k) if not 1 <= b <= a]}")
        object.__setattr__(self, "coef", coef)
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "k", k)
        if self.exact_coef is not None:
            exact = tuple(exact_sequence("exact_coef", self.exact_coef, length=coef.size))
            if not np.allclose([float(x) for x in exact], coef, rtol=1e-12, atol=1e-300):
                raise ValueError("exact_coef must equal coef up to float rounding; got "
                                 f"{[float(x) for x in exact][:4]}... vs {coef[:4].tolist()}...")
            object.__setattr__(self, "exact_coef", exact)

    def rational_coef(self) -> list:
        """The coefficients as Fractions: ``exact_coef`` if given, else each float's exact binary value."""
        return list(self.exact_coef) if self.exact_coef is not None else [Fraction(float(c)) for c in self.coef]
    @property
    def n_required(self) -> int:
        """The sample size the estimator needs (largest prefix n')."""
        return int(self.m.max())

    @property
    def n_terms(self) -> int:
        return int(self.coef.size)

    def g_coef(self) -> np.ndarray:
        """Coefficients of the normalised atoms Phi_k(m) / C(m, k): coef * C(m, k) (from ``exact_coef`` if set,
        so that 1/C(n, k) underflowing in float64 does not lose the term)."""
        if self.exact_coef is not None:
            g = [_to_float(e * math.comb(int(a), int(b))) for e, a, b in zip(self.exact_coef, self.m, self.k)]
        else:
            g = [times_comb(c, int(a), int(b)) for c, a, b in zip(self.coef, self.m, self.k)]
        g = np.array(g)
        if not np.all(np.isfinite(g)):
            j = int(np.flatnonzero(~np.isfinite(g))[0])
            raise ValueError(f"coef * C(m, k) overflows float64 at term (m, k) = ({self.m[j]}, {self.k[j]}); "
                             "use exact_moments_rational")
        return g

    def terms(self):
        """List of (coef, n', k) tuples."""
        return [(float(c), int(a), int(b)) for c, a, b in zip(self.coef, self.m, self.k)]

    def __str__(self) -> str:
        parts = []
        for c, a, b in sorted(self.terms(), key=lambda t: (-t[1], t[2])):
            sign = "-" if c < 0 else "+"
            parts.append(f"{sign} {abs(c):.6g}*Phi_{b}({a})")
        text = " ".join(parts)
        return text[2:] if text.startswith("+ ") else "-" + text[1:]

    def __call__(self, sample=None, *, counts=None) -> float:
        """Evaluate on a label array (any prefix) or, if all n' equal n, on a count vector."""
        if (sample is None) == (counts is None):
            raise ValueError("give exactly one of sample (labels) or counts (a count vector)")
        if counts is not None:
            c = _as_counts(counts)
            n = int(c.sum())
            if np.any(self.m != n):
                raise ValueError(f"a count vector only gives Phi_k(n) for n = {n}; this estimator uses "
                                 f"prefixes n' in {sorted(set(self.m.tolist()))} (pass the labels)")
            phi = np.bincount(c, minlength=n + 2)
            return float(np.sum(self.coef * phi[self.k]))
        Phi = phi_prefix_matrix(sample)
        n = Phi.shape[0] - 1
        if self.n_required > n:
            raise ValueError(f"the estimator needs prefixes up to n' = {self.n_required} but the sample has "
                             f"n = {n} observations (n' > n)")
        return float(np.sum(self.coef * Phi[self.m, self.k]))

    def coefficient_table(self, n: int) -> np.ndarray:
        """Dense coef_at[m, k] (m, k = 0..n+1) for the Monte Carlo kernel; needs n' <= n <= 9998."""
        from ._checks import MAX_TABLE_N

        n = check_n("n", n, high=MAX_TABLE_N)
        if self.n_required > n:
            raise ValueError(f"estimator uses n' = {self.n_required} > n = {n}")
        table = np.zeros((n + 1, n + 2))
        np.add.at(table, (self.m, self.k), self.coef)
        return table


def good_turing(n: int) -> Estimator:
    """Good–Turing estimator Phi_1(n) / n of M_0(n)."""
    n = check_n("n", n)
    return Estimator([1.0 / n], [n], [1], name="Good-Turing", exact_coef=(Fraction(1, n),))


def minimal_bias(n: int) -> Estimator:
    """sum_{k=1}^{n} (-1)^(k-1) Phi_k(n) / C(n, k) (Section 3; |bias| = sum_x p_x^(n+1))."""
    n = check_n("n", n, high=MAX_TERMS)
    k = np.arange(1, n + 1)
    coef = np.array([times_comb((-1.0) ** (j - 1), n, int(j), inverse=True) for j in k])
    exact = tuple(Fraction((-1) ** (j - 1), math.comb(n, j)) for j in range(1, n + 1))
    return Estimator(coef, np.full(n, n), k, name="minimal-bias", exact_coef=exact)


def scaled(est: Estimator, factor: float) -> Estimator:
    factor = check_real("factor", factor)
    return Estimator(est.coef * factor, est.m, est.k, name=est.name)
