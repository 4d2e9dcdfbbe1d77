"""Perturbed gradient descent with an inexact oracle: the classical part of paper ``quantum_sosp``.

W. Gong, C. Zhang, T. Li, "Robustness of Quantum Algorithms for Nonconvex Optimization", ICLR 2025
(arXiv:2212.02548).  Their abstract: standard perturbed gradient descent (PGD) "is robust to the noise of
O(eps^6/d^4) and O(eps/d^{0.5+zeta}) for any zeta > 0 on the zeroth- and first-order oracles" when finding an
eps-approximate second-order stationary point (SOSP).  Only the abstract could be read (spec
``quantum_sosp``): the algorithm parameters and constants below are stated here, not the paper's.

Algorithm: PGD of Jin et al. (2017, arXiv:1703.00887, Algorithm 2) -- gradient steps of size eta; a
perturbation xi ~ Uniform(B(0, r)) when ||g~|| <= g_thres and none happened in the last t_thres steps;
return the point before the perturbation if t_thres steps later f has not decreased by f_thres (see
``_kernels_saddle`` for the loop).

Instance: the zoo's strict saddle ``theorylab.zeroth.oracles.strict_saddle`` f(x) = sum_i hv_i x_i^2/2 +
q/4 sum_i x_i^4, hv = (h_pos, ..., h_pos, h_neg): a strict saddle at 0 with lambda_min = h_neg < 0 along
e_d, minima at x_d = +-sqrt(-h_neg/q).  Start x0 = (1/2, ..., 1/2, 0), on the saddle's stable manifold.

Oracles and noise (``oracle`` x ``noise``):

* ``"gradient"`` (first order): g~ = grad f + e with ||e|| <= nu.  ``"adversarial"``: e cancels the escape
  component of grad f up to norm nu (a saddle-trapping adversary); ``"random"``: e ~ Uniform(B(0, nu)).
* ``"value"`` (zeroth order): f~ = f + n with |n| <= nu, gradient from central differences of step h
  (``fd_step``; default "sqrt": h = sqrt(nu), the spec's choice, floored at 1e-6).  ``"adversarial"``:
  the plateau adversary n(y) = clip(-f_neg(y), 0, 2 nu) - nu, f_neg the escape coordinates' part of f, which
  flattens f~ wherever the saddle's dip is shallower than 2 nu and shifts it by the constant -nu elsewhere
  (|n| <= nu; central differences cannot see the shift).  It builds the widest flat trap any admissible value
  noise can build (:func:`critical_displacement`); it is not proven worst-case among all value adversaries.
  ``"random"``: n ~ Uniform[-nu, nu] per query.
* ``"none"``: exact oracle.

Success criteria of a run (:class:`PGDRun`): ``sosp`` -- the returned point is an (eps, sqrt(rho eps))-SOSP
(||grad f|| <= eps and lambda_min(Hessian) >= -sqrt(rho eps), rho = 1 by default); ``escaped`` -- f at the
returned point is below f*/2 (half-way from the saddle's value 0 to the minimum).

Closed forms [derived] (derivations in the docstrings): :func:`critical_displacement` (the trap half-width
x_c(nu) along e_d), :func:`escape_probability` (P(|xi_d| > x_c) for xi uniform in the ball) and
:func:`critical_noise` (the noise level at which that probability is a given value).

Example::

    from theorylab.zeroth.saddle import run_pgd
    run = run_pgd(oracle="value", noise="adversarial", nu=1e-3, n_runs=200, seed=1)
    run.sosp.mean()     # fraction of runs that reached an (eps, sqrt(eps))-SOSP
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import betainc, betaincinv

from theorylab.core.seeding import spawn_seeds
from theorylab.core.validate import (SimulationDiverged, check_array, check_budget, check_choice, check_int,
                                     check_real, check_size)
from theorylab.zeroth import _kernels_saddle as K
from theorylab.zeroth.oracles import strict_saddle
from theorylab.core.validate import check_record

__all__ = ["PGDRun", "ORACLES", "NOISES", "run_pgd", "run_pgd_numpy", "fd_step", "critical_displacement",
           "escape_probability", "critical_noise", "ball_marginal_sf", "paper_thresholds", "critical_levels"]

ORACLES = ("gradient", "value")
NOISES = ("none", "adversarial", "random")
_ORACLE = {"gradient": K.ORACLE_GRADIENT, "value": K.ORACLE_VALUE}
_NOISE = {"none": K.NOISE_NONE, "adversarial": K.NOISE_ADVERSARIAL, "random": K.NOISE_RANDOM}

MAX_DIM = 10**4
#: work budget of one call, n_runs * max_iter * d element-steps (~4e7 per second per core: a few seconds)
MAX_WORK = 2 * 10**8
MAX_WORK_NUMPY = 6 * 10**6
MAX_NOISE = 1e6
FD_FLOOR = 1e-6


@dataclass(frozen=True)
class PGDRun:
    """Outcome of ``n_runs`` independent PGD runs: returned points ``x_out`` (n_runs, d); per run the noise
    level ``nu``, ``escaped`` and ``sosp`` (bool), ``iterations``, ``perturbations``, ``terminated`` (the
    no-decrease rule fired) and ``queries`` (oracle calls: gradients, or function values)."""

    x_out: np.ndarray
    nu: np.ndarray
    escaped: np.ndarray
    sosp: np.ndarray
    iterations: np.ndarray
    perturbations: np.ndarray
    terminated: np.ndarray
    queries: np.ndarray
    eps: float
    rho: float

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)


def _reals(name, value):
    """A finite, non-negative real array (or scalar) with errors naming the argument."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be a real number or array; got {value!r}"[:200])
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number or array; got {value!r}"[:200]) from exc
    if a.size and (not np.all(np.isfinite(a)) or np.any(a < 0)):
        raise ValueError(f"{name} must be finite and >= 0; got {value!r}"[:200])
    check_budget(name, a.size)
    return a


def _reals_signed(name, value):
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a real array; got {value!r}"[:200])
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real array; got {value!r}"[:200]) from exc


def fd_step(nu):
    """The spec's finite-difference step h = sqrt(nu), floored at 1e-6 (array or float)."""
    nu = _reals("nu", nu)
    return np.sqrt(np.maximum(nu, FD_FLOOR**2))


def _levels(name, nu, n_runs):
    if isinstance(nu, (str, bytes)) or nu is None:
        raise TypeError(f"{name} must be a real number or an array of n_runs reals; got {nu!r}"[:200])
    try:
        np.asarray(nu, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number or an array of n_runs reals; got {nu!r}"[:200]) from exc
    if np.ndim(nu) == 0:
        v = check_real(name, nu, low=0.0, high=MAX_NOISE)
        return np.full(n_runs, v)
    a = check_array(name, nu, shape=(n_runs,))
    if np.any(a < 0) or np.any(a > MAX_NOISE):
        raise ValueError(f"{name} must lie in [0, {MAX_NOISE:g}] (a noise level); got min {a.min():.3g}, max {a.max():.3g}")
    return a


def run_pgd(*, oracle: str = "value", noise: str = "adversarial", nu=0.0, n_runs: int = 100, d: int = 10,
            eps: float = 0.1, rho: float = 1.0, h_neg: float = -1.0, h_pos: float = 1.0, q: float = 1.0,
            r=None, eta: float = 0.25, g_thres=None, t_thres: int = 300, f_thres: float = 0.05,
            max_iter: int = 3000, fd_step_rule="sqrt", x0=None, seed=0) -> PGDRun:
    """Run PGD ``n_runs`` times on the strict saddle with an inexact ``oracle`` (module docstring).

    Parameters (defaults are this toolkit's stated choices, not the paper's): ``nu`` the oracle's error level
    (a float, or one level per run); ``eps`` the target accuracy; ``r`` the perturbation radius (default eps);
    ``eta`` the step (1/l with l = 4, the Hessian bound on |x_i| <= 1); ``g_thres`` the perturbation
    threshold (default eps/2); ``t_thres`` steps between a perturbation and its decrease test; ``f_thres``
    the decrease required (a fifth of the saddle-to-minimum depth 1/4); ``fd_step_rule`` "sqrt" (h = sqrt(nu))
    or a fixed step h > 0; ``x0`` the start (default (1/2, ..., 1/2, 0)); ``seed`` the runs' root seed (run m
    uses spawn_seeds(seed, n_runs)[m], so the same seed gives the same numbers at every noise level).
    """
    oracle = check_choice("oracle", oracle, ORACLES)
    noise = check_choice("noise", noise, NOISES)
    n_runs = check_size("n_runs", n_runs, budget=10**7)
    d = check_size("d", d, low=1, budget=MAX_DIM)
    eps = check_real("eps", eps, low=0.0, low_open=True, high=1e3)
    rho = check_real("rho", rho, low=0.0, low_open=True, high=1e6)
    f = strict_saddle(d, n_negative=1, h_neg=h_neg, h_pos=h_pos, q=q)   # validates h_neg < 0 < h_pos, q > 0
    nu = _levels("nu", nu, n_runs)
    r = eps if r is None else check_real("r", r, low=0.0, low_open=True, high=1e3)
    eta = check_real("eta", eta, low=0.0, low_open=True, high=1.0)
    g_thres = eps / 2 if g_thres is None else check_real("g_thres", g_thres, low=0.0, low_open=True, high=1e6)
    t_thres = check_int("t_thres", t_thres, low=1, high=10**7)
    f_thres = check_real("f_thres", f_thres, low=0.0, low_open=True, high=1e6)
    max_iter = check_size("max_iter", max_iter, budget=10**8)
    check_budget("the PGD work n_runs * max_iter * d", n_runs * max_iter * d, max_elements=MAX_WORK,
                 unit="element-steps", n_runs=n_runs, max_iter=max_iter, d=d)
    if isinstance(fd_step_rule, str):
        check_choice("fd_step_rule", fd_step_rule, ("sqrt",))
        hs = fd_step(nu)
    else:
        hs = np.full(n_runs, check_real("fd_step_rule", fd_step_rule, low=FD_FLOOR, high=1.0))
    if x0 is None:
        x0 = np.full(d, 0.5)
        x0[-1] = 0.0
    else:
        x0 = check_array("x0", np.atleast_1d(_reals_signed("x0", x0)), shape=(d,))
        if np.max(np.abs(x0)) > 1e3:
            raise ValueError(f"x0 must lie in [-1000, 1000]^d; got max |x0_i| = {np.max(np.abs(x0)):.3g}")
    hv = f.params[1:].copy()
    bound = 1e3 * max(1.0, float(np.max(np.abs(x0))), np.sqrt(abs(h_neg) / q))   # the iterates of a stable run stay O(1)
    x_out = np.empty((n_runs, d))
    info = np.zeros((n_runs, 5), dtype=np.int64)
    K.pgd_runs(hv, float(q), _ORACLE[oracle], _NOISE[noise], nu, hs, x0, eta, r, g_thres, t_thres, f_thres,
               max_iter, bound, spawn_seeds(seed, n_runs), x_out, info)
    if info[:, K.INFO_DIVERGED].any():
        bad = int(np.argmax(info[:, K.INFO_DIVERGED]))
        raise SimulationDiverged(f"PGD diverged (|x_i| > {bound:.3g}) in run {bad} with oracle={oracle!r}, "
                                 f"noise={noise!r}, nu={nu[bad]:.3g}, eta={eta}, r={r}")
    return _outcome(f, x_out, nu, info, eps, rho)


def _outcome(f, x_out, nu, info, eps, rho):
    grad = f.gradient(x_out)
    q, hv = f.params[0], f.params[1:]
    lam_min = np.min(hv[None, :] + 3 * q * x_out**2, axis=1)         # the Hessian is diagonal
    sosp = (np.linalg.norm(grad, axis=1) <= eps) & (lam_min >= -np.sqrt(rho * eps))
    escaped = f.exact_value(x_out) <= f.f_star / 2
    return PGDRun(x_out=x_out, nu=nu, escaped=escaped, sosp=sosp, iterations=info[:, K.INFO_ITERATIONS].copy(),
                  perturbations=info[:, K.INFO_PERTURBATIONS].copy(), terminated=info[:, K.INFO_TERMINATED] == 1,
                  queries=info[:, K.INFO_QUERIES].copy(), eps=float(eps), rho=float(rho))


def run_pgd_numpy(*, oracle: str = "value", nu=0.0, n_runs: int = 100, d: int = 10, eps: float = 0.1,
                  h_neg: float = -1.0, h_pos: float = 1.0, q: float = 1.0, r=None, eta: float = 0.25,
                  g_thres=None, t_thres: int = 300, f_thres: float = 0.05, max_iter: int = 3000, seed=0) -> PGDRun:
    """Reference for the benchmark: the same PGD with the adversarial oracle, vectorised over runs in numpy
    (full 2d function-value queries per finite-difference gradient); perturbations from numpy's generator,
    so runs agree with :func:`run_pgd` in distribution, not path by path."""
    oracle = check_choice("oracle", oracle, ORACLES)
    n_runs = check_size("n_runs", n_runs, budget=10**6)
    d = check_size("d", d, low=1, budget=1000)
    eps = check_real("eps", eps, low=0.0, low_open=True, high=1e3)
    max_iter = check_size("max_iter", max_iter, budget=10**4)
    check_budget("the numpy PGD work n_runs * max_iter * d", n_runs * max_iter * d, max_elements=MAX_WORK_NUMPY,
                 unit="element-steps", n_runs=n_runs, max_iter=max_iter, d=d)
    f = strict_saddle(d, n_negative=1, h_neg=h_neg, h_pos=h_pos, q=q)
    nu = _levels("nu", nu, n_runs)
    r = eps if r is None else check_real("r", r, low=0.0, low_open=True, high=1e3)
    g_thres = eps / 2 if g_thres is None else check_real("g_thres", g_thres, low=0.0, low_open=True, high=1e6)
    eta = check_real("eta", eta, low=0.0, low_open=True, high=1.0)
    t_thres = check_int("t_thres", t_thres, low=1, high=10**7)
    f_thres = check_real("f_thres", f_thres, low=0.0, low_open=True, high=1e6)
    hv = f.params[1:]
    neg = hv < 0
    rng = np.random.default_rng(spawn_seeds(seed, 1)[0])
    h = fd_step(nu)[:, None]

    def fval(X):                                  # X (..., n_runs, d) -> noisy f~
        phi = 0.5 * hv * X**2 + 0.25 * q * X**4
        return phi.sum(-1) + np.clip(-phi[..., neg].sum(-1), 0.0, 2 * nu) - nu

    def grad(X):
        if oracle == "gradient":
            G = hv * X + q * X**3
            gn = np.linalg.norm(G[:, neg], axis=1)
            c = np.minimum(1.0, nu / np.where(gn > 0, gn, 1.0))
            G[:, neg] *= (1 - c)[:, None]
            return G
        E = np.eye(d)[:, None, :] * h[None]       # (d, n_runs, d)
        return ((fval(X[None] + E) - fval(X[None] - E)) / (2 * h[:, 0])).T

    x = np.tile(np.r_[np.full(d - 1, 0.5), 0.0], (n_runs, 1))
    xt = x.copy()
    f_tilde = np.zeros(n_runs)
    t_noise = np.full(n_runs, -t_thres - 1)
    active = np.ones(n_runs, bool)
    out = x.copy()
    iters = np.zeros(n_runs, np.int64)
    n_pert = np.zeros(n_runs, np.int64)
    ftrue = (lambda X: f.exact_value(X)) if oracle == "gradient" else fval
    for t in range(max_iter):
        G = grad(x)
        p = active & (np.linalg.norm(G, axis=1) <= g_thres) & (t - t_noise > t_thres)
        if p.any():
            xt[p] = x[p]
            t_noise[p] = t
            f_tilde[p] = ftrue(x)[p]
            Z = rng.standard_normal((int(p.sum()), d))
            Z *= (r * rng.uniform(size=(Z.shape[0], 1)) ** (1 / d)) / np.linalg.norm(Z, axis=1, keepdims=True)
            x[p] += Z
            n_pert[p] += 1
            G[p] = grad(x)[p]
        stop = active & (t - t_noise == t_thres) & (ftrue(x) - f_tilde > -f_thres)
        out[stop] = xt[stop]
        iters[stop] = t
        active &= ~stop
        if not active.any():
            break
        x[active] -= eta * G[active]
    out[active] = x[active]
    iters[active] = max_iter
    if not np.all(np.isfinite(out)):
        raise SimulationDiverged(f"numpy PGD diverged with oracle={oracle!r}, eta={eta}, q={q}, h_neg={h_neg}")
    info = np.zeros((n_runs, 5), np.int64)
    info[:, 0], info[:, 1], info[:, 2] = iters, n_pert, ~active
    return _outcome(f, out, nu, info, eps, 1.0)


# ----------------------------------------------------------------------------- closed forms [derived]

def ball_marginal_sf(s, d: int):
    """P(|xi_d| > s r) for xi uniform in the ball B(0, r) of R^d [derived].

    The marginal density of u = xi_d / r is proportional to (1 - u^2)^((d-1)/2) on [-1, 1] (the volume of
    the (d-1)-ball slice), so w = u^2 has density proportional to w^(-1/2) (1 - w)^((d-1)/2), i.e.
    w ~ Beta(1/2, (d+1)/2), and P(|u| > s) = 1 - I_{s^2}(1/2, (d+1)/2) (regularised incomplete beta).
    """
    d = check_size("d", d, low=1, budget=MAX_DIM)
    s = np.clip(_reals("s", s), 0.0, 1.0)
    return 1.0 - betainc(0.5, (d + 1) / 2, s**2)


def critical_displacement(nu, *, oracle: str = "value", h_neg: float = -1.0, q: float = 1.0, fd_step_rule="sqrt"):
    """Half-width x_c(nu) of the trap along the escape coordinate e_d under the adversarial oracle [derived].

    After the perturbation the coordinates decouple (f is separable and the adversary acts on x_d only), and
    x_d follows x_d <- x_d - eta g~_d from xi_d (the start is x_d = 0 and the adversary keeps g~_d(0) = 0).
    With gamma = -h_neg and phi(u) = -gamma u^2/2 + q u^4/4:

    * gradient oracle: g~_d = phi'(x) - clip(phi'(x), -nu, nu) is 0 while |phi'(x)| <= nu and points away from
      0 beyond; so the run is trapped iff |xi_d| <= x_c, the smaller root of gamma x - q x^3 = nu (none,
      i.e. always trapped below the hump, if nu > 2 gamma/3 sqrt(gamma/(3q))).
    * value oracle (the plateau adversary, noise n = clip(-phi, 0, 2 nu) - nu, |n| <= nu):
      f~_d = phi + n = min(0, phi + 2 nu) - nu is flat on |u| <= w, where phi(w) = -2 nu, i.e.
      w^2 = (gamma - sqrt(gamma^2 - 8 q nu)) / q.  The central difference at x is 0 while x + h <= w (both
      queries on the plateau) and negative (pointing outwards) for x > w - h, so x_c = max(w - h, 0) with h
      the finite-difference step (sqrt(nu) under the spec's rule).  For small nu, w ~ 2 sqrt(nu/gamma), so
      x_c ~ (2/sqrt(gamma) - 1) sqrt(nu): with gamma = 1 that is sqrt(nu), 2.41x the half-range adversary's
      (sqrt(2) - 1) sqrt(nu) (noise clip(-phi, 0, nu), the construction used before), whose crossover is
      therefore ~5.8x higher.
      Why no admissible value noise builds a wider flat trap: f~ = phi + n constant on [-W, W] needs
      n(u) = c - phi(u) with |c - phi(u)| <= nu there, so the range of phi over [-W, W], i.e. -phi(W), is at
      most 2 nu: W <= w, attained by c = -nu.  (A non-flat adversary that only keeps each central difference
      from pointing outwards is not covered by this argument.)

    Outside the trap the escape is exponential (rate 1 + eta gamma), so it completes within t_thres steps
    unless |xi_d| - x_c < ~(1 + eta gamma)^(-t_thres) (negligible for t_thres = 300).  Levels above the hump
    (gradient) or half the saddle's depth, gamma^2/(8q) (value), are refused: the trap is then the whole hump.
    """
    oracle = check_choice("oracle", oracle, ORACLES)
    h_neg = check_real("h_neg", h_neg, high=0.0, high_open=True)
    q = check_real("q", q, low=0.0, low_open=True)
    nu = _reals("nu", nu)
    # the finite-difference step (value oracle) is checked in either mode: "sqrt" or a fixed h, as in the runs
    fixed_h = None if isinstance(fd_step_rule, str) and check_choice("fd_step_rule", fd_step_rule, ("sqrt",)) \
        else check_real("fd_step_rule", fd_step_rule, low=FD_FLOOR, high=1.0)
    gamma = -h_neg
    top = _top_level(oracle, gamma, q)
    if nu.size and np.max(nu) > top:
        raise ValueError(f"nu must be <= {top:.6g} for oracle={oracle!r} with h_neg={h_neg:g}, q={q:g} (above it the trap "
                         f"covers the whole hump of the saddle); got max nu = {np.max(nu):.6g}")
    if oracle == "gradient":
        out = np.full(nu.shape, np.inf)
        ok = nu <= top
        # smaller positive root of q x^3 - gamma x + nu = 0 (trigonometric form of the depressed cubic)
        c = np.sqrt(4 * gamma / (3 * q))
        arg = np.clip(3 * nu[ok] / (gamma * c), -1, 1)       # cos(3 theta) = -(3 nu)/(gamma c) for the roots
        theta = np.arccos(-arg) / 3
        roots = np.stack([c * np.cos(theta - 2 * np.pi * k / 3) for k in range(3)])
        roots = np.where(roots >= -1e-15, roots, np.inf)
        x = np.min(roots, axis=0)
        for _ in range(2):                      # Newton polish (the trigonometric form loses digits for tiny nu)
            slope = gamma - 3 * q * x**2
            x = np.where(slope > 0, x - (gamma * x - q * x**3 - nu[ok]) / np.where(slope > 0, slope, 1.0), x)
        out[ok] = x
        return out
    h = np.sqrt(np.maximum(nu, FD_FLOOR**2)) if fixed_h is None else fixed_h
    out = np.full(nu.shape, np.inf)
    ok = nu <= top
    w = np.sqrt((gamma - np.sqrt(gamma**2 - 8 * q * nu[ok])) / q)          # phi(w) = -2 nu
    out[ok] = np.maximum(w - (h[ok] if np.ndim(h) else h), 0.0)
    return out


def _top_level(oracle, gamma, q):
    """The largest level with a bounded trap: the hump max(gamma x - q x^3) (gradient) or half the saddle's
    depth, gamma^2/(8q) (value: the plateau adversary spends 2 nu of depth)."""
    return 2 * gamma / 3 * np.sqrt(gamma / (3 * q)) if oracle == "gradient" else gamma**2 / (8 * q)


def escape_probability(nu, *, oracle: str = "value", d: int = 10, r: float = 0.1, h_neg: float = -1.0,
                       q: float = 1.0, fd_step_rule="sqrt"):
    """P(escape) = P(|xi_d| > x_c(nu)) = ball_marginal_sf(x_c / r, d) under the adversarial oracle [derived]."""
    r = check_real("r", r, low=0.0, low_open=True)
    xc = critical_displacement(nu, oracle=oracle, h_neg=h_neg, q=q, fd_step_rule=fd_step_rule)
    return ball_marginal_sf(np.minimum(xc / r, 1.0), d)


def critical_noise(p: float = 0.5, *, oracle: str = "value", d: int = 10, r: float = 0.1, h_neg: float = -1.0,
                   q: float = 1.0, fd_step_rule="sqrt") -> float:
    """The adversarial noise level at which the escape probability equals ``p`` (p = 1/2: the crossover).

    Solves x_c(nu) = r s_p with s_p^2 = I^{-1}_{1-p}(1/2, (d+1)/2), the (1-p)-quantile of xi_d^2/r^2
    [derived, from :func:`ball_marginal_sf` and :func:`critical_displacement`]."""
    from scipy.optimize import brentq

    p = check_real("p", p, low=0.0, high=1.0, low_open=True, high_open=True)
    d = check_size("d", d, low=1, budget=MAX_DIM)
    r = check_real("r", r, low=0.0, low_open=True, high=1e3)
    target = r * np.sqrt(betaincinv(0.5, (d + 1) / 2, 1 - p))
    gamma = -check_real("h_neg", h_neg, high=0.0, high_open=True)
    q = check_real("q", q, low=0.0, low_open=True)
    oracle = check_choice("oracle", oracle, ORACLES)
    top = _top_level(oracle, gamma, q)
    if not top > 1e-250:
        raise ValueError(f"h_neg = {-gamma:g} and q = {q:g} leave no trap range (maximal level {top:.3g})")

    def gap(lognu):
        return float(critical_displacement(np.exp(lognu), oracle=oracle, h_neg=h_neg, q=q,
                                           fd_step_rule=fd_step_rule)) - target

    lo, hi = np.log(1e-300), np.log(top * (1 - 1e-12))
    if gap(lo) > 0:
        return 0.0
    if gap(hi) < 0:
        raise ValueError(f"r = {r:g} is too large for d = {d} (with h_neg = {-gamma:g}, q = {q:g}, fd_step_rule = "
                         f"{fd_step_rule!r}): the escape probability stays above p = {p:g} up to the largest trapping "
                         f"level {top:.3g} (the trap never holds a fraction 1 - p of the perturbations)")
    return float(np.exp(brentq(gap, lo, hi, xtol=1e-12, rtol=1e-12)))


def paper_thresholds(eps: float, d: int, zeta: float = 0.1) -> dict:
    """The abstract's robustness levels with constant 1: zeroth order eps^6/d^4, first order eps/d^(0.5+zeta)."""
    eps = check_real("eps", eps, low=0.0, low_open=True, high=1e3)
    d = check_size("d", d, low=1, budget=MAX_DIM)
    zeta = check_real("zeta", zeta, low=0.0, low_open=True, high=10.0)
    return {"value": eps**6 / d**4, "gradient": eps / d ** (0.5 + zeta)}


def critical_levels(*, oracle: str = "value", n_runs: int = 100, lo: float = 1e-12, hi: float = 0.2,
                    n_bisect: int = 30, seed=0, **pgd) -> np.ndarray:
    """Per run m, the largest adversarial noise level nu_m at which run m still reaches an SOSP, by bisection
    in log nu between ``lo`` and ``hi`` (run m keeps its seed, hence its perturbation, at every level; under
    the adversary success is monotone in nu).  Runs that succeed at ``hi`` get ``hi``, runs failing at ``lo``
    get ``lo``.  The fraction of runs with nu_m >= nu is the success probability at nu."""
    n_runs = check_size("n_runs", n_runs, budget=10**6)
    lo = check_real("lo", lo, low=0.0, low_open=True, high=MAX_NOISE)
    hi = check_real("hi", hi, low=lo, low_open=True, high=MAX_NOISE)
    n_bisect = check_int("n_bisect", n_bisect, low=1, high=200)
    max_iter = check_size("max_iter", pgd.get("max_iter", 3000), budget=10**8)
    d = check_size("d", pgd.get("d", 10), budget=MAX_DIM)
    check_budget("the bisection work (n_bisect + 2) * n_runs * max_iter * d", (n_bisect + 2) * n_runs * max_iter * d,
                 max_elements=10 * MAX_WORK, unit="element-steps", n_bisect=n_bisect, n_runs=n_runs)
    a = np.full(n_runs, np.log(lo))
    b = np.full(n_runs, np.log(hi))
    ok_lo = run_pgd(oracle=oracle, noise="adversarial", nu=lo, n_runs=n_runs, seed=seed, **pgd).sosp
    ok_hi = run_pgd(oracle=oracle, noise="adversarial", nu=hi, n_runs=n_runs, seed=seed, **pgd).sosp
    for _ in range(n_bisect):
        mid = 0.5 * (a + b)
        ok = run_pgd(oracle=oracle, noise="adversarial", nu=np.exp(mid), n_runs=n_runs, seed=seed, **pgd).sosp
        a = np.where(ok, mid, a)
        b = np.where(ok, b, mid)
    out = np.exp(0.5 * (a + b))
    out[ok_hi] = hi
    out[~ok_lo] = lo
    return out
