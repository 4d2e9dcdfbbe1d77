"""Normalised SGD with momentum under heavy-tailed gradient noise: the simulator of paper ``nsgdm_heavy``.

Z. Liu, Z. Zhou, "Nonconvex Stochastic Optimization under Heavy-Tailed Noises: Optimal Convergence without
Gradient Clipping", ICLR 2025 (arXiv:2412.19529).  Algorithm 1 (Batched NSGDM; restated by third parties, the
paper has no code; m_0 = g_1 per the OpenReview review):

    g_t = (1/B) sum_i g_t^i,   m_t = beta m_{t-1} + (1 - beta) g_t,   x_{t+1} = x_t - eta m_t / ||m_t||.

Noise: g_t^i = grad F(x_t) + s(x_t) xi_t^i with xi of a law of theorylab.stochastic.noise and s(x) =
sqrt(sigma0^2 + sigma1^2 ||grad F(x)||^2).  Metric of Theorems 3.2 / 3.6: (1/T) sum_{t=1}^T ||grad F(x_t)||.

Schedules [derived in the spec, not read in the paper]: with 1 - beta = T^-a and eta = T^-b the NSGDM descent
inequality gives (1/T) sum ||grad F|| <~ T^(b-1) + T^(a-b) + T^(-a(p-1)/p); equating the three,

    known p:    a = p/(3p - 2),  b = (2p - 1)/(3p - 2),  rate T^((1-p)/(3p-2))        (Theorem 3.2)
    unknown p:  a = 1/2,         b = 3/4,                rate T^((1-p)/(2p)) for p < 2 (Theorem 3.6).

Test functions: ``"quadratic"`` F = 1/2 ||x||^2 and the (L0, L1)-smooth ``"cosh"`` F = sum_i (cosh x_i - 1), whose
Hessian diag(cosh x_i) is bounded by 1 + ||grad F|| (L0 = L1 = 1) [derived].

Controls: plain SGD (x <- x - eta g) and clipped SGD (x <- x - eta min(1, clip/||g||) g).

API: :func:`schedule`, :func:`predicted_rate`, :func:`run_methods` (jitted, many runs) and
:func:`run_methods_numpy` (vectorised numpy reference), :func:`ema_error` (eta = 0: the stationary EMA error
E||m - grad F||), :func:`objective` (F and grad F in numpy).

Example::

    from theorylab.stochastic.nsgdm import schedule, run_methods
    eta, beta = schedule(8000, "known_p", p=1.5)
    r = run_methods("quadratic", 8000, eta=eta, beta=beta, law="student_t", nu=1.8, n_runs=16, seed=1)
    r.avg_grad_norm.mean()          # (1/T) sum_t ||grad F(x_t)||, averaged over 16 runs
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from theorylab.core.parallel import map_blocks
from theorylab.core.seeding import as_generator, spawn_seeds
from theorylab.core.validate import (SimulationDiverged, check_array, check_budget, check_choice, check_int,
                                     check_real, check_size)
from theorylab.stochastic import _kernels_nsgdm as K
from theorylab.stochastic import noise as N
from theorylab.core.validate import check_record

__all__ = ["OBJECTIVES", "METHODS", "SCHEDULES", "MethodRuns", "schedule", "schedule_exponents", "predicted_rate",
           "objective", "default_x1", "balanced_eta0", "run_methods", "run_methods_numpy", "ema_error",
           "ema_moment_exact"]

OBJECTIVES = ("quadratic", "cosh")
METHODS = ("nsgdm", "sgd", "clipped_sgd")
SCHEDULES = ("known_p", "unknown_p")
_OBJ = {"quadratic": K.OBJ_QUADRATIC, "cosh": K.OBJ_COSH}
_METHOD = {"nsgdm": K.METHOD_NSGDM, "sgd": K.METHOD_SGD, "clipped_sgd": K.METHOD_CLIPPED}
#: n_runs * T * d * batch noise draws of one call (about 3e7 per second per core)
MAX_WORK = 2 * 10**9
MAX_WORK_NUMPY = 2 * 10**8
MAX_STEPS = 10**8
MAX_D = 10**5
X1_MAX = {"quadratic": 1e100, "cosh": 50.0}     # cosh overflows beyond |x| ~ 710
ETA_MAX = 1e6
#: each thread of a threaded call gets at least this many noise draws (core.parallel.map_blocks)
PARALLEL_MIN_WORK = 10**7


def _check_p(p):
    """The moment order p of the heavy-tailed assumption: p in (1, 2]."""
    return check_real("p", p, low=1.0, low_open=True, high=2.0)


def schedule_exponents(kind: str = "known_p", p: float = 1.5):
    """(a, b) with 1 - beta = T^-a and eta = T^-b [derived]: known p a = p/(3p-2), b = (2p-1)/(3p-2); unknown p
    a = 1/2, b = 3/4 (``p`` is still validated to (1, 2])."""
    kind = check_choice("kind", kind, SCHEDULES)
    p = _check_p(p)
    if kind == "known_p":
        return p / (3 * p - 2), (2 * p - 1) / (3 * p - 2)
    return 0.5, 0.75


def schedule(T: int, kind: str = "known_p", p: float = 1.5, *, eta0: float = 1.0):
    """(eta, beta) = (eta0 T^-b, 1 - T^-a) of :func:`schedule_exponents` for horizon T."""
    T = check_size("T", T, budget=MAX_STEPS)
    eta0 = check_real("eta0", eta0, low=0.0, low_open=True, high=ETA_MAX)
    a, b = schedule_exponents(kind, p)
    return eta0 * float(T) ** (-b), 1.0 - float(T) ** (-a)


def predicted_rate(kind: str = "known_p", p: float = 1.5) -> float:
    """The exponent of the theorems: (1-p)/(3p-2) (Theorem 3.2, known p) or (1-p)/(2p) (Theorem 3.6)."""
    kind = check_choice("kind", kind, SCHEDULES)
    p = _check_p(p)
    return (1 - p) / (3 * p - 2) if kind == "known_p" else (1 - p) / (2 * p)


def objective(name: str, x):
    """(F(x), grad F(x)) in numpy: quadratic 1/2 ||x||^2, x; cosh sum (cosh x_i - 1), sinh x."""
    name = check_choice("name", name, OBJECTIVES)
    x = check_array("x", np.atleast_1d(check_array("x", x)), ndim=1)
    if np.abs(x).max(initial=0.0) > X1_MAX[name]:
        raise ValueError(f"x must lie within {X1_MAX[name]:g} of 0 for {name!r}; got max |x| = {np.abs(x).max():.3g}")
    if name == "quadratic":
        return 0.5 * float(x @ x), x.copy()
    return float(np.sum(np.cosh(x) - 1.0)), np.sinh(x)


def default_x1(name: str, d: int) -> np.ndarray:
    """The spec's starting points: quadratic ||x1|| = 1 (x1 = 1/sqrt(d)), cosh x1 = 3 (every coordinate)."""
    name = check_choice("name", name, OBJECTIVES)
    d = check_size("d", d, budget=MAX_D)
    return np.full(d, 1 / np.sqrt(d)) if name == "quadratic" else np.full(d, 3.0)


def balanced_eta0(name: str, d: int, x1=None) -> float:
    """eta0 = sqrt(Delta_1 / L0), Delta_1 = F(x1) - inf F (inf F = 0 for both test functions), L0 = 1 [derived]:
    minimising Delta_1/(eta T) + L0 eta/(1 - beta) over eta with 1 - beta = T^-a gives eta = eta0 T^-(1+a)/2, and
    (1 + a)/2 = b for the known-p exponents, so this is the constant that balances the first two terms."""
    name = check_choice("name", name, OBJECTIVES)
    d = check_size("d", d, budget=MAX_D)
    x1 = default_x1(name, d) if x1 is None else check_array("x1", np.atleast_1d(check_array("x1", x1)),
                                                            shape=(d,))
    delta1 = objective(name, x1)[0]
    if not delta1 > 0:
        raise ValueError(f"x1 must not be the minimiser (Delta_1 = F(x1) - inf F = {delta1!r}; eta0 would be 0)")
    return float(np.sqrt(delta1))


@dataclass(frozen=True)
class MethodRuns:
    """Per run: ``avg_grad_norm`` = (1/T) sum_{t=1}^T ||grad F(x_t)||, ``last_grad_norm`` = ||grad F(x_T)||.
    ``diverged_at``: -1, or (with ``on_divergence="report"``) the step at which the run's gradient norm overflowed
    or left its bound; such a run's average is over the steps before it, and its last norm is that of the last
    finite step."""

    avg_grad_norm: np.ndarray
    last_grad_norm: np.ndarray
    diverged_at: np.ndarray

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)

    @property
    def diverged(self) -> np.ndarray:
        return self.diverged_at >= 0


def _args(obj, T, d, x1, law, nu, sigma0, sigma1, batch, eta, beta, method, clip, n_runs, budget):
    obj = check_choice("objective", obj, OBJECTIVES)
    T = check_size("T", T, budget=MAX_STEPS)
    d = check_size("d", d, budget=MAX_D)
    x1 = default_x1(obj, d) if x1 is None else check_array("x1", np.atleast_1d(check_array("x1", x1)),
                                                           shape=(d,))
    if np.abs(x1).max() > X1_MAX[obj]:
        raise ValueError(f"x1 must lie within {X1_MAX[obj]:g} of 0 for objective {obj!r}; got max |x1| = "
                         f"{np.abs(x1).max():.3g}")
    code, nu, sigma0, sigma1 = N.check_noise(law, nu, sigma0, sigma1)
    batch = check_size("batch", batch, budget=10**6)
    eta = check_real("eta", eta, low=0.0, low_open=True, high=ETA_MAX)
    beta = check_real("beta", beta, low=0.0, high=1.0)
    method = check_choice("method", method, METHODS)
    if method == "sgd" and obj == "quadratic" and eta >= 2.0:
        raise ValueError(f"eta must be < 2 for plain SGD on the quadratic (L = 1: x <- (1 - eta) x diverges for "
                         f"eta >= 2); got eta = {eta!r}")
    if method == "clipped_sgd":
        clip = check_real("clip", clip, low=0.0, low_open=True, high=1e12)
    else:
        clip = 0.0 if clip is None else check_real("clip", clip, low=0.0, low_open=True, high=1e12)
    n_runs = check_size("n_runs", n_runs)
    check_budget("the method runs", n_runs * T * d * batch, max_elements=budget, unit="noise draws",
                 n_runs=n_runs, T=T, d=d, batch=batch)
    return obj, T, d, x1, code, nu, sigma0, sigma1, batch, eta, beta, method, clip, n_runs


def _bound(obj, x1, eta, T, method):
    """A priori bound on ||grad F(x_t)||: a normalised step moves exactly eta, so ||x_t - x1|| <= eta T (quadratic
    ||x1|| + eta T; cosh sqrt(d) sinh(max|x1| + eta T)); otherwise 1e12 (||grad F(x1)|| + 1)."""
    d = x1.size
    if method == "nsgdm":
        with np.errstate(over="ignore"):
            r = (np.linalg.norm(x1) + eta * T if obj == "quadratic"
                 else np.sqrt(d) * np.sinh(np.abs(x1).max() + eta * T))
        return float(r) * (1 + 1e-9) + 1e-9 if np.isfinite(r) else np.inf
    return 1e12 * (np.linalg.norm(objective(obj, x1)[1]) + 1.0)


def _raise_diverged(where, diverged_at, **params):
    bad = np.flatnonzero(diverged_at >= 0)
    if bad.size:
        ctx = ", ".join(f"{k}={v!r}" for k, v in params.items())
        raise SimulationDiverged(f"{where}: {bad.size} of {diverged_at.size} runs diverged (run {bad[0]} at step "
                                 f"{diverged_at[bad[0]]}: ||grad F|| left its bound or overflowed) with {ctx}; the "
                                 f"step size eta is too large for this method and objective")


def run_methods(objective: str = "quadratic", T: int = 2000, *, d: int = 10, x1=None, law: str = "student_t",
                nu: float | None = 1.5, sigma0: float = 1.0, sigma1: float = 0.0, batch: int = 1,
                eta: float = 0.01, beta: float = 0.9, method: str = "nsgdm", clip: float | None = None,
                n_runs: int = 16, seed=0, parallel: bool = True, on_divergence: str = "raise") -> MethodRuns:
    """``n_runs`` independent runs of T steps of ``method`` ("nsgdm", "sgd" or "clipped_sgd" with threshold
    ``clip``) with constant eta, beta from ``x1`` (default :func:`default_x1`).  If a run's gradient norm
    overflows or leaves its a priori bound: ``on_divergence="raise"`` raises SimulationDiverged, ``"report"``
    marks the run in ``diverged_at`` (see :class:`MethodRuns`)."""
    on_divergence = check_choice("on_divergence", on_divergence, ("raise", "report"))
    parallel = check_choice("parallel", parallel, (True, False))
    obj, T, d, x1, code, nu, sigma0, sigma1, batch, eta, beta, method, clip, n_runs = _args(
        objective, T, d, x1, law, nu, sigma0, sigma1, batch, eta, beta, method, clip, n_runs, MAX_WORK)
    seeds = spawn_seeds(seed, n_runs)
    avg, last, div = np.empty(n_runs), np.empty(n_runs), np.empty(n_runs, dtype=np.int64)
    args = (_OBJ[obj], x1, T, eta, beta, _METHOD[method], clip, code, nu, sigma0, sigma1, batch,
            _bound(obj, x1, eta, T, method))
    map_blocks(lambda s: K.run_methods(*args, seeds[s], avg[s], last[s], div[s]), n_runs,
               work=n_runs * T * d * batch, min_work=PARALLEL_MIN_WORK, parallel=parallel)
    if on_divergence == "raise":
        _raise_diverged(f"run_methods(method={method!r}, objective={obj!r})", div, eta=eta, beta=beta, T=T)
    bad = div >= 0
    avg[bad] = avg[bad] * T / np.maximum(div[bad] - 1, 1)          # the mean over the steps before divergence
    return MethodRuns(avg_grad_norm=avg, last_grad_norm=last, diverged_at=div)


def _noise_numpy(rng, code, nu, shape):
    if code == N.KN.LAW_STUDENT_T:
        return rng.standard_t(nu, shape)
    if code == N.KN.LAW_PARETO:                      # numpy's pareto is Lomax: P(X > x) = (1 + x)^-nu
        return rng.pareto(nu, shape) * rng.choice((-1.0, 1.0), shape)
    return rng.standard_normal(shape)


def run_methods_numpy(objective: str = "quadratic", T: int = 2000, *, d: int = 10, x1=None,
                      law: str = "student_t", nu: float | None = 1.5, sigma0: float = 1.0, sigma1: float = 0.0,
                      batch: int = 1, eta: float = 0.01, beta: float = 0.9, method: str = "nsgdm",
                      clip: float | None = None, n_runs: int = 16, seed=0) -> MethodRuns:
    """Vectorised numpy reference of :func:`run_methods` (all runs at once, numpy's generator: the same law, not
    the same numbers)."""
    obj, T, d, x1, code, nu, sigma0, sigma1, batch, eta, beta, method, clip, n_runs = _args(
        objective, T, d, x1, law, nu, sigma0, sigma1, batch, eta, beta, method, clip, n_runs, MAX_WORK_NUMPY)
    rng = as_generator(seed)
    bound = _bound(obj, x1, eta, T, method)
    x = np.tile(x1, (n_runs, 1))
    m = np.zeros_like(x)
    total = np.zeros(n_runs)
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(1, T + 1):
            gF = x if obj == "quadratic" else np.sinh(x)
            gn = np.sqrt((gF * gF).sum(1))
            if not np.all(gn <= bound):
                div = np.where(gn <= bound, -1, t)
                _raise_diverged(f"run_methods_numpy(method={method!r}, objective={obj!r})", div, eta=eta,
                                beta=beta, T=T)
            total += gn
            s = np.sqrt(sigma0 ** 2 + (sigma1 * gn) ** 2)[:, None]
            xi = _noise_numpy(rng, code, nu, (n_runs, d, batch)).mean(2) if batch > 1 else \
                _noise_numpy(rng, code, nu, (n_runs, d))
            g = gF + s * xi
            if method == "nsgdm":
                m = g if t == 1 else beta * m + (1 - beta) * g
                mn = np.sqrt((m * m).sum(1))[:, None]
                x = x - eta * np.divide(m, mn, out=np.zeros_like(m), where=mn > 0)
            elif method == "sgd":
                x = x - eta * g
            else:
                nrm = np.sqrt((g * g).sum(1))[:, None]
                x = x - eta * np.minimum(1.0, clip / np.maximum(nrm, 1e-300)) * g
    return MethodRuns(avg_grad_norm=total / T, last_grad_norm=gn, diverged_at=np.full(n_runs, -1))


def ema_error(law: str = "student_t", nu: float | None = 1.5, one_minus_beta: float = 0.01, *, q: float = 1.0,
              d: int = 1, n: int = 100_000, burn: int | None = None, n_runs: int = 16, seed=0) -> np.ndarray:
    """With eta = 0 (x frozen) the momentum error m_t - grad F is the EMA of the noise,
    sum_k (1 - beta) beta^k xi_{t-k}.  Returns, per run, the mean of ||m_t - grad F||^q over ``n`` steps after
    ``burn`` (default 30 / (1 - beta), so beta^burn < 1e-13): the stationary E||m - grad F||^q, q in (0, nu).

    [derived, spec check 3] For nu in (1, 2) the EMA is a sum of about 1/(1 - beta) terms of tail index nu, so by
    the generalised CLT its scale, hence (E||m - grad F||^q)^(1/q) for every q < nu, is of order
    (1 - beta)^(1 - 1/nu) as 1 - beta -> 0; for nu > 2 of order (1 - beta)^(1/2).  The per-run time average of
    ||m||^q has a finite variance across runs only for q < nu/2 (q = 1/2 is safe for every nu > 1)."""
    code, nu, _, _ = N.check_noise(law, nu, 1.0, 0.0)
    omb = check_real("one_minus_beta", one_minus_beta, low=0.0, low_open=True, high=1.0)
    q = check_real("q", q, low=0.0, low_open=True, high=nu, high_open=True)
    d = check_size("d", d, budget=MAX_D)
    n = check_size("n", n, budget=MAX_STEPS)
    if burn is None:
        burn = int(min(math.ceil(30.0 / omb), MAX_STEPS))
    burn = check_int("burn", burn, low=0, high=MAX_STEPS)
    n_runs = check_size("n_runs", n_runs)
    check_budget("the EMA runs", n_runs * (n + burn) * d, max_elements=MAX_WORK, unit="noise draws",
                 n_runs=n_runs, n=n, burn=burn, d=d)
    seeds = spawn_seeds(seed, n_runs)
    out = np.empty(n_runs)
    map_blocks(lambda s: K.ema_noise(code, nu, omb, d, q, burn, n, seeds[s], out[s]), n_runs,
               work=n_runs * (n + burn) * d, min_work=PARALLEL_MIN_WORK)
    return out


def _log_phi_t(z, nu):
    """log of the Student-t(nu) characteristic function as a function of z = sqrt(nu) |v| > 0:
    phi = z^s K_s(z) / (2^(s-1) Gamma(s)), s = nu/2 (scipy's exponentially scaled kve)."""
    from scipy import special

    s = nu / 2
    return s * np.log(z) + np.log(special.kve(s, z)) - z - special.gammaln(s) - (s - 1) * np.log(2.0)


def ema_moment_exact(nu: float = 1.8, one_minus_beta: float = 0.01, *, q: float = 0.5, n_u: int = 240) -> float:
    """E|m - grad F|^q of the stationary EMA m - grad F = sum_k (1 - beta) beta^k xi_k of i.i.d. Student-t(nu)
    noise in one dimension, computed (not simulated) from its characteristic function [derived]:

        E|S|^q = (2 Gamma(1+q) sin(pi q / 2) / pi) int_0^inf (1 - phi_S(u)) u^(-1-q) du,   0 < q < 2,
        log phi_S(u) = sum_k log phi_t((1 - beta) beta^k u),

    phi_t(v) = z^s K_s(z) / (2^(s-1) Gamma(s)), z = sqrt(nu)|v|, s = nu/2.  The terms with beta^k < 1e-2 are summed
    in closed form from the small-z expansion log phi_t = -A z^nu + z^2 / (4 (1 - s)) + O(z^min(4, 2 + nu)),
    A = pi / (sin(pi s) 4^s Gamma(s) Gamma(1 + s)); the u-integral runs over a log grid of ``n_u`` points up to
    where phi_S < e^-30 and adds int_U^inf u^(-1-q) du = U^-q / q.  This is the finite-(1 - beta) value whose
    log-log slope the simulator must reproduce; the generalised-CLT exponent 1 - 1/nu is its limit."""
    from scipy import integrate, special

    nu = check_real("nu", nu, low=1.0, low_open=True, high=N.NU_MAX)
    omb = check_real("one_minus_beta", one_minus_beta, low=1e-6, high=1.0)
    q = check_real("q", q, low=0.0, low_open=True, high=min(nu, 2.0), high_open=True)
    n_u = check_int("n_u", n_u, low=50, high=10**4)
    if abs(nu - 2.0) < 1e-9 or abs(nu - 4.0) < 1e-9:
        raise ValueError(f"nu must not be 2 or 4 (the small-z expansion has a logarithmic term there); got {nu!r}")
    beta, s = 1.0 - omb, nu / 2
    A = np.pi / (np.sin(np.pi * s) * 4.0**s * special.gamma(s) * special.gamma(1 + s))
    B = 1.0 / (4.0 * (1.0 - s))
    k1 = int(np.ceil(np.log(1e2) / -np.log(beta))) if beta > 0 else 1      # exact terms: beta^k >= 1e-2
    w = np.sqrt(nu) * omb * beta ** np.arange(k1)                          # z_k / u
    scale = omb ** (1 - 1 / nu) if nu < 2 else np.sqrt(omb)
    u = np.geomspace(1e-6, 1e3, n_u) / scale
    L = np.zeros(n_u)
    for j in range(0, k1, 4096):
        L += _log_phi_t(np.outer(u, w[j:j + 4096]), nu).sum(1)
    if beta > 0:                                                            # geometric tail k >= k1
        zt = np.sqrt(nu) * omb * beta**k1 * u
        L += -A * zt**nu / (1 - beta**nu) + B * zt**2 / (1 - beta**2)
    if L[-1] > -30:
        raise ValueError(f"n_u = {n_u}: the u-grid ends before phi_S is negligible (log phi_S = {L[-1]:.3g})")
    integrand = -np.expm1(L) * u ** (-q)                                    # (1 - phi) u^(-1-q) du = ... d log u
    total = integrate.simpson(integrand, x=np.log(u)) + u[-1] ** (-q) / q + (A * (np.sqrt(nu) * u[0]) ** nu
                                                                             * u[0] ** (-q) / (nu - q) if nu < 2 else 0.0)
    return float(2 * special.gamma(1 + q) * np.sin(np.pi * q / 2) / np.pi * total)
