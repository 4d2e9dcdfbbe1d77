"""Exact moments of family estimators and of the missing mass under a known p.

For an estimator  E = sum_j coef_j Phi_{k_j}(m_j)  and the missing mass M_0(n), everything
needed for the MSE  E[(E - M_0(n))^2]  follows from first and second moments of the atoms
Phi_k(m) / C(m, k) and M_0(n), computed exactly from pairwise multinomial probabilities
(see ``_kernels``).  Three paths:

* :func:`exact_moments` — float64, jitted, classes grouped by their distinct probabilities
  (cost O(T^2 D^2 w) for T terms, D distinct values of p, w <= 1 + max |m_i - m_j|; D = 1 for
  the uniform distribution, D = S for a Dirichlet draw);
* :func:`exact_moments_rational` — the same formulas in exact ``fractions.Fraction``
  arithmetic (small S, n; identity checks);
* :func:`brute_force_moments` — enumeration of all S^n sequences (tiny cases; the reference
  the other two are tested against).

Facts used (Lee & Böhme, ICLR 2025, Section 3): E[Phi_k(m)] = C(m, k) sum_x p_x^k (1-p_x)^(m-k),
E[M_0(n)] = sum_x p_x (1-p_x)^n = E[Phi_1(n+1)] / (n+1).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from theorylab.core import SimulationDiverged, check_int, check_probability_vector

from . import _kernels as K
from ._checks import MAX_N, MAX_PAIR_WORK, check_n, check_prob_like, exact_sequence, pair_work
from .estimators import Estimator

_LF_CACHE = {}


def _logfact(n_max):
    size = max(64, 1 << int(n_max + 1).bit_length())
    lf = _LF_CACHE.get(size)
    if lf is None:
        lf = K.log_factorials(size)
        _LF_CACHE[size] = lf
    return lf


def group_probabilities(p):
    """Distinct non-zero values of the probability vector ``p`` and their multiplicities (zero classes
    never count)."""
    p = check_prob_like("p", p)
    u, c = np.unique(p[p > 0], return_counts=True)
    return u, c.astype(float)


@dataclass(frozen=True)
class Moments:
    """Exact moments of an estimator E of M_0(n) under p."""

    mean: float          # E[E]
    mean_m0: float       # E[M_0(n)]
    var: float           # Var(E)
    var_m0: float        # Var(M_0(n))
    cov: float           # Cov(E, M_0(n))
    mse: float           # E[(E - M_0(n))^2]

    def __post_init__(self):
        from theorylab.core import check_real

        for name in ("mean", "mean_m0", "var", "var_m0", "cov", "mse"):
            object.__setattr__(self, name, check_real(name, getattr(self, name)))

    @property
    def bias(self) -> float:
        return self.mean - self.mean_m0

    def as_dict(self):
        return dict(mean=self.mean, mean_m0=self.mean_m0, bias=self.bias, var=self.var,
                    var_m0=self.var_m0, cov=self.cov, mse=self.mse)


def _check_estimator(est, n):
    if not isinstance(est, Estimator):
        raise TypeError(f"estimator must be a theorylab.missing_mass.Estimator; got {type(est).__name__}")
    if est.n_required > n:
        raise ValueError(f"the estimator uses prefixes up to n' = {est.n_required} > n = {n}; "
                         "n' must not exceed the sample size n")


def atoms_with_mass(est: Estimator, n: int):
    """Atom arrays (m, k, w) = the estimator's terms, then M_0(n) last; and its coefficients."""
    m = np.append(est.m, n).astype(np.int64)
    k = np.append(est.k, 0).astype(np.int64)
    w = np.append(np.zeros(est.n_terms, dtype=np.int64), 1)
    a = np.append(est.g_coef(), -1.0)
    return m, k, w, a


def moments_from_gram(G, mu, a) -> Moments:
    """Moments from the Gram matrix E[Y_i Y_j] and means over (terms..., M_0) with coefs a."""
    t = slice(0, len(a) - 1)
    ae = a[t]
    mean = float(ae @ mu[t])
    mean_m0 = float(mu[-1])
    second = float(ae @ G[t, t] @ ae)
    cross = float(ae @ G[t, -1])
    var = second - mean**2
    var_m0 = float(G[-1, -1]) - mean_m0**2
    cov = cross - mean * mean_m0
    mse = second - 2 * cross + float(G[-1, -1])
    values = dict(mean=mean, mean_m0=mean_m0, var=var, var_m0=var_m0, cov=cov, mse=mse)
    if not np.all(np.isfinite(list(values.values()))):
        raise SimulationDiverged(f"exact moments are not finite: {values} (coefficients too large for float64; "
                                 "use exact_moments_rational)")
    return Moments(**values)


def exact_moments(estimator: Estimator, p, n: int) -> Moments:
    """Exact E, Var, Cov with M_0(n), and MSE of ``estimator`` under ``p`` (float64, jitted).

    Parameters
    ----------
    estimator : Estimator
        Uses prefixes n' <= n.
    p : array (S,)
        The true (or plug-in) distribution.
    n : int
        Sample size (<= 10**6); the target is the missing mass M_0(n).

    The pairwise formulas take (terms + 1)^2 D^2 (1 + spread of the prefixes) inner steps (D the
    distinct values of p); more than 10**10 is refused before computing.
    """
    p = check_prob_like("p", p)
    n = check_n("n", n)
    _check_estimator(estimator, n)
    u, c = group_probabilities(p)
    m, k, w, a = atoms_with_mass(estimator, n)
    work = pair_work(estimator.n_terms, u.size, m)
    if work > MAX_PAIR_WORK:
        raise ValueError(f"estimator x p needs {work:,} steps of the pairwise formulas ({estimator.n_terms} terms, "
                         f"{u.size} distinct values of p), over the budget of {MAX_PAIR_WORK:,}; reduce the terms "
                         "or the distinct values of p")
    lf = _logfact(n + 2)
    G = K.gram(u, c, m, k, w, lf)
    mu = K.means(u, c, m, k, w)
    return moments_from_gram(G, mu, a)


def exact_mse(estimator: Estimator, p, n: int) -> float:
    """E[(estimator - M_0(n))^2] under p (see :func:`exact_moments`)."""
    return exact_moments(estimator, p, n).mse


# ---------------------------------------------------------------------------------------
# exact rational path
# ---------------------------------------------------------------------------------------

#: the exact paths: at most this many classes and this sample size (pure-Python rationals)
MAX_EXACT_S = 1000
MAX_EXACT_N = 2000


def _as_fractions(p):
    """``p`` as exact Fractions; a float is converted exactly (its binary value), so float input
    must sum to 1 exactly in binary (0.5, 0.25, 0.25 does; 0.3, 0.7 does not: pass Fractions)."""
    q = exact_sequence("p", p, max_len=MAX_EXACT_S)
    if any(x < 0 for x in q):
        raise ValueError(f"p must be non-negative; got minimum {min(q)}")
    if sum(q) != 1:
        raise ValueError(f"p must sum to 1 exactly (rational path); got sum {sum(q)}")
    return q


def g_exact(p, m: int, k: int, w: int = 0):
    """E of the atom: sum_x p_x^(k+w) (1 - p_x)^(m-k), exact (= E[Phi_k(m)] / C(m, k) for w = 0).

    ``p``: rationals (Fractions, ints, or floats converted exactly by their binary value), each in
    [0, 1] (the sum is not required: a plug-in sub-vector is fine); 0 <= k <= m <= 2000, 0 <= w <= 2000.
    Returns a Fraction.
    """
    q = _g_values(p)
    m = check_n("m", m, low=0, high=MAX_EXACT_N)
    k = check_int("k", k, low=0)
    if k > m:
        raise ValueError(f"k must be an integer in [0, {m}] (0 <= k <= m = {m}); got {k}")
    w = check_int("w", w, low=0, high=MAX_EXACT_N)
    return _g(q, m, k, w)


def _g_values(p):
    q = exact_sequence("p", p, max_len=MAX_EXACT_S)
    if any(x < 0 or x > 1 for x in q):
        raise ValueError(f"p must hold probabilities in [0, 1]; got min {float(min(q)):.3g}, max {float(max(q)):.3g}")
    return q


def _g(q, m, k, w=0):
    return sum(x ** (k + w) * (1 - x) ** (m - k) for x in q)


def _pair_exact(vals, mult, a1, a2):
    (m1, k1, w1), (m2, k2, w2) = sorted([a1, a2])
    r = m2 - m1
    norm = (1 if w1 else math.comb(m1, k1)) * (1 if w2 else math.comb(m2, k2))
    total = Fraction(0)
    for d, u in enumerate(vals):
        if 0 <= k2 - k1 <= r and k1 <= m1:
            same = (math.comb(m1, k1) * math.comb(r, k2 - k1) * u ** k2 * (1 - u) ** (m2 - k2))
            total += mult[d] * same * u ** (w1 + w2)
        for e, v in enumerate(vals):
            pairs = mult[d] * (mult[e] - 1) if d == e else mult[d] * mult[e]
            if pairs == 0:
                continue
            s = 0
            for j in range(max(0, k2 - r), min(k2, m1 - k1) + 1):
                rest = m1 - k1 - j
                tri = Fraction(math.factorial(m1), math.factorial(k1) * math.factorial(j) * math.factorial(rest))
                s += (tri * u ** k1 * v ** j * (1 - u - v) ** rest
                      * math.comb(r, k2 - j) * v ** (k2 - j) * (1 - v) ** (r - k2 + j))
            total += pairs * s * u ** w1 * v ** w2
    return total / norm


def _exact_coef(estimator, coef):
    if coef is None:
        return estimator.rational_coef()
    return exact_sequence("coef", coef, length=estimator.n_terms)


def exact_moments_rational(estimator: Estimator, p, n: int, coef=None) -> dict:
    """Exact moments in rational arithmetic.

    ``p``: rationals summing to 1 exactly (Fractions; floats are converted exactly, by their binary
    value).  The Phi-coefficients are rationals by default: ``coef`` if given, else the estimator's
    ``exact_coef`` (set by :func:`good_turing` and :func:`minimal_bias`, e.g. exactly 1/n), else the
    exact binary value of each float in ``estimator.coef`` (``Fraction(float)``, exact but not 1/n).
    At most 1000 classes and n <= 2000 (pure-Python rationals).
    Returns a dict of Fractions: mean, mean_m0, bias, var, var_m0, cov, mse.
    """
    q = _as_fractions(p)
    n = check_n("n", n, high=MAX_EXACT_N)
    _check_estimator(estimator, n)
    coef = _exact_coef(estimator, coef)
    vals = sorted(set(x for x in q if x > 0))
    mult = [sum(1 for x in q if x == v) for v in vals]
    atoms = [(int(a), int(b), 0) for a, b in zip(estimator.m, estimator.k)] + [(n, 0, 1)]
    g = [c * math.comb(a, b) for c, (a, b, _) in zip(coef, atoms)] + [Fraction(-1)]
    mu = [_g(q, a, b, w) for (a, b, w) in atoms]
    G = [[None] * len(atoms) for _ in atoms]
    for i, j in itertools.combinations_with_replacement(range(len(atoms)), 2):
        G[i][j] = G[j][i] = _pair_exact(vals, mult, atoms[i], atoms[j])
    T = len(atoms) - 1
    mean = sum(g[i] * mu[i] for i in range(T))
    second = sum(g[i] * g[j] * G[i][j] for i in range(T) for j in range(T))
    cross = sum(g[i] * G[i][T] for i in range(T))
    out = dict(mean=mean, mean_m0=mu[T], var=second - mean**2, var_m0=G[T][T] - mu[T] ** 2,
               cov=cross - mean * mu[T], mse=second - 2 * cross + G[T][T])
    out["bias"] = out["mean"] - out["mean_m0"]
    return out


def brute_force_moments(estimator: Estimator, p, n: int, coef=None) -> dict:
    """Moments by enumerating all S^n sample sequences, exactly (tiny S and n only: S^n <= 300000).

    ``p`` and the coefficients as in :func:`exact_moments_rational` (rationals by default).
    """
    q = _as_fractions(p)
    n = check_n("n", n, high=64)
    _check_estimator(estimator, n)
    S = len(q)
    if S ** n > 300_000:
        raise ValueError(f"brute force needs S^n <= 300000; got S={S}, n={n}: reduce n or the length of p")
    coef = _exact_coef(estimator, coef)
    terms = list(zip(coef, estimator.m.tolist(), estimator.k.tolist()))
    E1 = E2 = EM = EM2 = EXM = Fraction(0)
    for seq in itertools.product(range(S), repeat=n):
        prob = Fraction(1)
        for x in seq:
            prob *= q[x]
        if prob == 0:
            continue
        counts_at = {}
        counts = [0] * S
        needed = set(estimator.m.tolist())
        for t, x in enumerate(seq, start=1):
            counts[x] += 1
            if t in needed:
                counts_at[t] = list(counts)
        est = sum(c * sum(1 for v in counts_at[m] if v == k) for c, m, k in terms)
        m0 = sum(q[x] for x in range(S) if counts[x] == 0)
        E1 += prob * est
        E2 += prob * est * est
        EM += prob * m0
        EM2 += prob * m0 * m0
        EXM += prob * est * m0
    out = dict(mean=E1, mean_m0=EM, var=E2 - E1**2, var_m0=EM2 - EM**2, cov=EXM - E1 * EM,
               mse=E2 - 2 * EXM + EM2)
    out["bias"] = out["mean"] - out["mean_m0"]
    return out
