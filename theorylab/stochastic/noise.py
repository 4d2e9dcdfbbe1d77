"""Gradient-noise laws for stochastic first-order methods (issue 18): Gaussian, Student-t and symmetric Pareto
with tail index ``nu``, and the affine noise scale sqrt(sigma0^2 + sigma1^2 ||grad F||^2).

A stochastic gradient is g(x) = grad F(x) + s(x) xi with xi a vector of i.i.d. unit-scale coordinates of one law
and s(x) = sqrt(sigma0^2 + sigma1^2 ||grad F(x)||^2).  The laws and their tails:

* ``"gaussian"``: xi_i ~ N(0, 1); every moment finite;
* ``"student_t"``: xi_i ~ t(nu) (unit scale, nu degrees of freedom): P(|xi_i| > x) ~ c x^(-nu), so
  E|xi_i|^q < inf iff q < nu, and the variance is infinite for nu <= 2;
* ``"pareto"``: symmetric Pareto of the second kind (Lomax), P(|xi_i| > x) = (1 + x)^(-nu) exactly: again
  E|xi_i|^q < inf iff q < nu.

The heavy-tailed assumption of nsgdm_heavy (E||g - grad F||^p <= sigma0^p + sigma1^p ||grad F||^p with
p in (1, 2]) therefore holds, up to the constant E||xi||^p, for every p < nu; (a^2 + b^2)^(p/2) <= a^p + b^p for
p <= 2 turns the affine *scale* into the affine p-th moment [derived].  The tail index ``nu`` of the noise may
exceed 2 (a Student-t with nu = 3 has finite variance); the moment order ``p`` an algorithm assumes is
validated to (1, 2] by the methods that take it (theorylab.stochastic.nsgdm).

Draws are made in jitted kernels (theorylab.stochastic._kernels_noise) from the xoshiro256** states of
theorylab.core.rng, one state per run seeded from core.spawn_seeds: the same seed gives the same numbers.

Example::

    from theorylab.stochastic.noise import sample_noise, abs_moment
    xi = sample_noise("pareto", 10**5, nu=1.5, seed=1)          # shape (1, 100000)
    abs_moment("pareto", 1.2, nu=1.5)                           # E|xi|^1.2 = Gamma(2.2) Gamma(0.3) / Gamma(1.5)
"""

from __future__ import annotations

import math

import numpy as np

from theorylab.core.seeding import spawn_seeds
from theorylab.core.validate import check_array, check_budget, check_choice, check_real, check_size
from theorylab.stochastic import _kernels_noise as KN

__all__ = ["LAWS", "NU_MAX", "check_noise", "sample_noise", "abs_moment", "tail_probability", "affine_scale"]

LAWS = ("gaussian", "student_t", "pareto")
_CODES = {"gaussian": KN.LAW_GAUSSIAN, "student_t": KN.LAW_STUDENT_T, "pareto": KN.LAW_PARETO}
#: largest tail index accepted (beyond it a Student-t is numerically Gaussian)
NU_MAX = 1e3
SCALE_MAX = 1e6


def check_noise(law: str = "student_t", nu: float | None = 1.5, sigma0: float = 1.0, sigma1: float = 0.0):
    """Validate a noise specification; returns (law code, nu, sigma0, sigma1).

    ``law`` one of :data:`LAWS`; ``nu`` the tail index in (1, NU_MAX] (a mean must exist; ignored, and may be None,
    for ``"gaussian"``); ``sigma0``, ``sigma1`` >= 0 (the affine scale)."""
    law = check_choice("law", law, LAWS)
    if law == "gaussian" and nu is None:
        nu = 2.0
    nu = check_real("nu", nu, low=1.0, low_open=True, high=NU_MAX)
    sigma0 = check_real("sigma0", sigma0, low=0.0, high=SCALE_MAX)
    sigma1 = check_real("sigma1", sigma1, low=0.0, high=SCALE_MAX)
    return _CODES[law], nu, sigma0, sigma1


def sample_noise(law: str = "student_t", n: int = 1000, *, nu: float | None = 1.5, scale: float = 1.0,
                 n_runs: int = 1, seed=0) -> np.ndarray:
    """(n_runs, n) array of i.i.d. draws ``scale * xi`` of ``law`` (jitted; row r from its own seeded state, so it
    does not depend on n_runs)."""
    code, nu, _, _ = check_noise(law, nu, 1.0, 0.0)
    scale = check_real("scale", scale, low=0.0, high=SCALE_MAX)  # named as the caller knows it, not sigma0
    n = check_size("n", n)
    n_runs = check_size("n_runs", n_runs)
    check_budget("the noise array", n * n_runs, n=n, n_runs=n_runs)
    out = np.empty((n_runs, n))
    KN.fill(code, nu, spawn_seeds(seed, n_runs), out)
    return out * scale if scale != 1.0 else out


def abs_moment(law: str, q: float, nu: float | None = 1.5) -> float:
    """E|xi|^q of one unit-scale coordinate, in closed form (inf when q >= nu for the heavy-tailed laws):

    gaussian  2^(q/2) Gamma((q+1)/2) / sqrt(pi);
    student_t nu^(q/2) Gamma((q+1)/2) Gamma((nu-q)/2) / (sqrt(pi) Gamma(nu/2));
    pareto    q B(q, nu - q) = Gamma(q+1) Gamma(nu-q) / Gamma(nu)   (integrating q x^(q-1) (1+x)^(-nu))."""
    code, nu, _, _ = check_noise(law, nu, 1.0, 0.0)
    q = check_real("q", q, low=0.0, low_open=True, high=100.0)
    lg = math.lgamma
    if code == KN.LAW_GAUSSIAN:
        return math.exp(0.5 * q * math.log(2.0) + lg((q + 1) / 2) - 0.5 * math.log(math.pi))
    if q >= nu:
        return math.inf
    if code == KN.LAW_STUDENT_T:
        return math.exp(0.5 * q * math.log(nu) + lg((q + 1) / 2) + lg((nu - q) / 2) - 0.5 * math.log(math.pi)
                        - lg(nu / 2))
    return math.exp(lg(q + 1) + lg(nu - q) - lg(nu))


def tail_probability(law: str, x, nu: float | None = 1.5) -> np.ndarray:
    """P(|xi| > x) for x >= 0 (array): erfc(x/sqrt 2), 2 t_nu.sf(x), (1 + x)^(-nu)."""
    code, nu, _, _ = check_noise(law, nu, 1.0, 0.0)
    x = check_array("x", np.atleast_1d(check_array("x", x)), ndim=1)
    if np.any(x < 0):
        raise ValueError(f"x must be >= 0 (a threshold on |xi|); got minimum {x.min():.3g}")
    from scipy import special, stats

    if code == KN.LAW_GAUSSIAN:
        return special.erfc(x / np.sqrt(2.0))
    if code == KN.LAW_STUDENT_T:
        return 2.0 * stats.t.sf(x, nu)
    return (1.0 + x) ** (-nu)


def affine_scale(grad_norm, sigma0: float = 1.0, sigma1: float = 0.0) -> np.ndarray:
    """s = sqrt(sigma0^2 + sigma1^2 ||grad F||^2), the noise scale at a point with gradient norm ``grad_norm``."""
    _, _, sigma0, sigma1 = check_noise("gaussian", None, sigma0, sigma1)
    g = check_array("grad_norm", np.atleast_1d(check_array("grad_norm", grad_norm)), ndim=1)
    if np.any(g < 0):
        raise ValueError(f"grad_norm must be >= 0; got minimum {g.min():.3g}")
    return np.sqrt(sigma0 * sigma0 + (sigma1 * g) ** 2)
