"""Relative-error approximations of d_TV between product distributions, with their contracts.

Exact d_TV between two products on {0,1}^n is #P-complete (Bhattacharyya et al., IJCAI 2023,
quoted in the ICLR 2025 paper's Sec. 1), so these are the tractable alternatives that the
paper's related-work discussion builds on. Neither algorithm's text could be read in the
corpus; both are implemented from the reconstructions in the spec (§4(a), [INFERRED]) and
the derivations in the docstrings below, which are the contracts the checks test.

coupling_estimate  randomized (eps, delta): |est/TV - 1| <= eps with probability >= 1 - delta
                   (the coupling/importance-sampling estimator of Feng-Guo-Jerrum-Wang type)
fptas_uniform      deterministic (eps, 0) when Q is the uniform distribution on [q]^n
coupling_bounds    the exact sandwich Z/n <= d_TV <= Z
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from theorylab.core.parallel import map_blocks
from theorylab.core.seeding import seed_sequence
from theorylab.core.seeding import spawn_seeds
from theorylab.core.validate import check_budget, check_int, check_real, require_finite
from theorylab.core.validate import check_record

from ._kernels import coupling_g_kernel, uniform_dp_kernel
from .distributions import Mixture, check_same_space

CHUNK = 2048  # draws per seeded chunk of the parallel sampler (fixed: results thread-independent)


def _require_product(name, D: Mixture):
    if D.k != 1:
        raise ValueError(f"{name} must be a product distribution (k = 1 component); got a mixture with k = {D.k}")


@dataclass(frozen=True)
class CouplingParts:
    """The exact quantities of the coupling C = (x)_i C_i of optimal coordinate couplings.

    d[i] = d_TV(P_i, Q_i); Z = Pr_C[X != Y] = 1 - prod_i (1 - d_i); first[i] = the law of
    the first mismatching coordinate, prod_{j<i}(1 - d_j) d_i / Z.
    """

    d: np.ndarray
    Z: float
    first: np.ndarray
    mins: np.ndarray


def coupling_parts(P: Mixture, Q: Mixture) -> CouplingParts:
    """Exact coordinate distances, Z and first-mismatch law for two products."""
    check_same_space(P, Q)
    _require_product("P", P)
    _require_product("Q", Q)
    p, q_ = P.marginals[0], Q.marginals[0]
    mins = np.minimum(p, q_)
    d = np.clip(1.0 - mins.sum(axis=1), 0.0, 1.0)
    log_match = np.concatenate([[0.0], np.cumsum(np.log1p(-np.minimum(d, 1.0))[:-1])])
    Z = -math.expm1(float(np.sum(np.log1p(-np.minimum(d, 1.0))))) if np.all(d < 1) else 1.0
    with np.errstate(divide="ignore"):
        first = np.exp(log_match) * d
    first = first / Z if Z > 0 else first
    return CouplingParts(d, Z, first, mins)


def coupling_bounds(P: Mixture, Q: Mixture):
    """``(Z / n, Z)``: Z/n <= max_i d_i <= d_TV(P, Q) <= Pr_C[X != Y] = Z (coupling inequality)."""
    parts = coupling_parts(P, Q)
    return parts.Z / P.n, parts.Z


def coupling_samples_needed(P: Mixture, Q: Mixture, eps, delta) -> int:
    """Draws that make :func:`coupling_estimate` meet its (eps, delta) contract.

    g(X) lies in [0, 1] with mean mu = d_TV / Z >= mu_lb := max_i d_i / Z (>= 1/n), and
    multiplicative Chernoff bounds give Pr[|mean - mu| > eps mu] <= 2 exp(-N mu eps^2 / 3)
    for eps in (0, 1); so N = ceil(3 ln(2 / delta) / (eps^2 mu_lb)) suffices.
    """
    eps = check_real("eps", eps, low=0, high=1, low_open=True, high_open=True)
    delta = check_real("delta", delta, low=0, high=1, low_open=True, high_open=True)
    parts = coupling_parts(P, Q)
    if parts.Z == 0:
        return 0
    mu_lb = float(parts.d.max()) / parts.Z
    return int(math.ceil(3.0 * math.log(2.0 / delta) / (eps ** 2 * mu_lb)))


def _cdf(rows):
    s = rows.sum(axis=1, keepdims=True)
    safe = np.where(s > 0, s, 1.0)
    cdf = np.cumsum(rows / safe, axis=1)
    cdf[:, -1] = 1.0
    return np.ascontiguousarray(cdf)


def coupling_g_samples(P: Mixture, Q: Mixture, n_samples, *, seed=0) -> np.ndarray:
    """``n_samples`` (rounded up to a multiple of 2048) draws of g(X), X ~ pi.

    pi(x) = (P(x) - m(x)) / Z is the law of X given X != Y under C, with
    m(x) = prod_i min(P_i(x_i), Q_i(x_i)); g(x) = max(0, 1 - (Q(x) - m(x)) / (P(x) - m(x))).
    Identity: d_TV(P, Q) = sum_x max(0, P(x) - Q(x)) = Z E_pi[g] (spec §4(a), [INFERRED];
    checked exactly by :func:`coupling_identity`).
    """
    if not isinstance(seed, np.random.Generator):  # (a Generator is not consumed)
        seed_sequence(seed)  # checked even where nothing is drawn: a bad seed is an error in any mode
    n_samples = check_int("n_samples", n_samples, low=1)
    check_budget("n_samples (the samples of g returned)", n_samples, n_samples=n_samples)
    parts = coupling_parts(P, Q)
    if parts.Z == 0:
        return np.zeros(n_samples)
    p, q_ = P.marginals[0], Q.marginals[0]
    n_chunks = -(-n_samples // CHUNK)
    with np.errstate(divide="ignore"):
        logP, logQ, logm = np.log(p), np.log(q_), np.log(parts.mins)
    first_cdf = np.cumsum(parts.first)
    first_cdf[-1] = 1.0
    args = (first_cdf, _cdf(parts.mins), _cdf(p - parts.mins), _cdf(p), logP, logQ, logm)
    seeds = spawn_seeds(seed, n_chunks).astype(np.int64)
    g = np.concatenate(map_blocks(lambda s: coupling_g_kernel(*args, seeds[s], CHUNK), n_chunks,
                                  work=n_chunks * CHUNK * P.n, min_work=10**6))
    return require_finite("coupling g samples", g, n=P.n)


def coupling_estimate(P: Mixture, Q: Mixture, *, eps=0.1, delta=0.05, n_samples=None, seed=0) -> float:
    """Randomized relative approximation of d_TV(P, Q) for two product distributions.

    Returns ``Z * mean(g)`` over ``n_samples`` draws (default :func:`coupling_samples_needed`),
    which satisfies ``Pr[|est - d_TV| > eps d_TV] <= delta``.
    """
    if not isinstance(seed, np.random.Generator):  # (a Generator is not consumed)
        seed_sequence(seed)  # checked even where nothing is drawn: a bad seed is an error in any mode
    eps = check_real("eps", eps, low=0, high=1, low_open=True, high_open=True)
    delta = check_real("delta", delta, low=0, high=1, low_open=True, high_open=True)
    if n_samples is not None:  # checked before the Z = 0 shortcut, which ignores it
        n_samples = check_int("n_samples", n_samples, low=1)
        check_budget("n_samples (the samples of g drawn)", n_samples, n_samples=n_samples)
    parts = coupling_parts(P, Q)
    if parts.Z == 0:
        return 0.0
    N = coupling_samples_needed(P, Q, eps, delta) if n_samples is None else n_samples
    g = coupling_g_samples(P, Q, N, seed=seed)[:N]
    return float(parts.Z * g.mean())


def coupling_identity(P: Mixture, Q: Mixture) -> float:
    """Z * E_pi[g] computed exactly by enumeration (float): equals d_TV(P, Q)."""
    from .exact import joint_pmf

    parts = coupling_parts(P, Q)
    Pj = joint_pmf(P)
    Qj = joint_pmf(Q)
    mj = joint_pmf(Mixture(np.ones(1), parts.mins[None], (), ()))
    excess = Pj - mj
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.where(excess > 0, np.maximum(0.0, 1.0 - (Qj - mj) / np.where(excess > 0, excess, 1.0)), 0.0)
    return float(np.sum(excess * g))


# --------------------------------------------------------------------------- FPTAS, Q uniform
@dataclass(frozen=True)
class FptasResult:
    """Value and the quantities behind the deterministic guarantee of :func:`fptas_uniform`."""

    value: float
    eps: float
    D: float        # max_i d_TV(P_i, U_q) <= d_TV(P, U)
    grid: float     # rounding step of the log-likelihood ratios (NaN when D = 0: nothing is rounded)
    states: int     # DP width 2R + 1

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self, nonfinite=("grid",))
        if not (np.isfinite(self.grid) or (np.isnan(self.grid) and self.D == 0)):
            raise ValueError(f"FptasResult: grid must be finite (NaN only when D = 0); got {self.grid!r} with D = {self.D!r}")


def fptas_uniform(P: Mixture, *, eps=0.1) -> FptasResult:
    """Deterministic relative-eps approximation of d_TV(P, U) with U uniform on [q]^n.

    The IJCAI 2023 paper gives an FPTAS for this case (quoted in the ICLR 2025 paper); its text
    was not readable here, so this is our own derivation of one, stated completely:

    * l_i(s) = log(q P_i(s)), l(x) = sum_i l_i(x_i) = log(P(x) / U(x)); d_TV = sum_{l(x) > 0} (P - U)(x).
    * Round l_i to the grid g = 2 eta / n (eta = log(1 + eps D), D = max_i d_TV(P_i, U_q));
      the rounded total differs from l(x) by at most eta, and the DP over integer partial
      sums computes T = sum_{rounded l(x) > 0} (P - U)(x) exactly.
    * x counted wrongly have |l(x)| <= eta, so |T - d_TV| <= (e^eta - 1) U(all) = eps D <= eps d_TV
      because d_TV(P, U) >= d_TV of any one coordinate (projection).
    * max_s l_i(s) <= q d_i, so the DP has O(q n^2 / eps) states and runs in O(q^2 n^3 / eps).
    """
    if not isinstance(P, Mixture):
        raise TypeError(f"P must be a Mixture (from theorylab.tv.product); got {type(P).__name__}")
    _require_product("P", P)
    eps = check_real("eps", eps, low=0, high=1, low_open=True, high_open=True)
    p = P.marginals[0]
    n, q = p.shape
    d = np.clip(p - 1.0 / q, 0.0, None).sum(axis=1)
    D = float(d.max())
    if D == 0.0:
        return FptasResult(0.0, eps, 0.0, float("nan"), 1)
    eta = math.log1p(eps * D) * (1 - 1e-9)  # a hair of slack for float round-off in l_i
    grid = 2.0 * eta / n
    dead = p == 0.0
    with np.errstate(divide="ignore"):
        ell = np.log(q * p)
    w = np.where(dead, 0, np.rint(np.where(dead, 0.0, ell) / grid)).astype(np.int64)
    wmax = np.where(dead, np.iinfo(np.int64).min, w).max(axis=1)
    w = np.where(dead, -(10 ** 15), w)  # a dead symbol: P_i(s) = 0, never in {P > U}
    suffix = np.concatenate([np.cumsum(wmax[::-1])[::-1], [0]]).astype(np.int64)
    R = int(suffix[0])
    if 2 * R + 1 > 50_000_000:
        raise ValueError(f"the FPTAS table would need {2 * R + 1} states (n = {n}, q = {q}, eps = {eps}); "
                         "use a larger eps")
    value = float(uniform_dp_kernel(w, dead, np.ascontiguousarray(p), suffix, q))
    require_finite("fptas_uniform", value, n=n, q=q, eps=eps)
    return FptasResult(value, eps, D, grid, 2 * R + 1)


def uniform(n, q) -> Mixture:
    """The uniform distribution on [q]^n as a product (exact rationals)."""
    from fractions import Fraction

    from .distributions import product

    n = check_int("n", n, low=1)
    q = check_int("q", q, low=1)
    check_budget("uniform's marginal table", n * q, max_elements=10**7, n=n, q=q)
    return product([[Fraction(1, q)] * q for _ in range(n)])
