"""DP-SGD and DiSK's Kalman-filtered private gradient on finite sums of quadratics: the simulator of paper
``disk_dp``.

X. Zhang, Z. Bu, B. Balle, M. Hong, M. Razaviyayn, V. Mirrokni, "DiSK: Differentially Private Optimizer with
Simplified Kalman Filter for Noise Reduction", ICLR 2025 (arXiv:2410.03883).  The update (the authors' ReadMe in
pytorch/opacus research/disk_optimizer, restated in the spec), c = (1 - kappa)/(kappa gamma):

    gt_{t+1/2} = (1/B) sum_{xi in B_t} clip_C(c grad f(x_t + gamma(x_t - x_{t-1}); xi) + (1 - c) grad f(x_t; xi))
                 + w_t,        w_t ~ N(0, sigma^2 C^2 / B^2 I)                 (DP-SGD's privacy noise)
    g_t        = (1 - kappa) g_{t-1} + kappa gt_{t+1/2}        (g_0 = gt_{1/2}, as the optimiser's first call)
    x_{t+1}    = x_t - eta g_t.

kappa = 1 is DP-SGD.  gamma = 0 (or within 1e-3 of (1 - kappa)/kappa) means gamma = (1 - kappa)/kappa, c = 1, one
gradient per sample (the optimiser's convention).  Minibatches: B indices uniform with replacement (the
authors use Poisson sampling; the identities below do not depend on it).  Privacy noise as in the ReadMe,
sigma C / B per coordinate; the KFOptimizer code divides its noise multiplier by sqrt(c^2 + (1 - c)^2) when it
takes two gradients (then accounts with that multiplier), which changes the noise level, not the identities or
the ratios checked here.

Problem class: f(x) = (1/n) sum_i f(x; i), f(x; i) = 1/2 sum_j h_ij (x_j - a_ij)^2 (diagonal per-sample
Hessians; a shared Hessian is diagonal without loss of generality, clipping and isotropic noise being rotation
invariant).  grad f(x) = hbar x - m with hbar = mean_i h_i, m = mean_i h_i a_i.

[derived] With a shared Hessian H and no clipping, e_t = g_t - grad f(x_t) obeys e_t = (1 - kappa) e_{t-1}
+ kappa nu_t exactly, nu_t = (1/B) sum_{B_t} grad f(x_t; xi) - grad f(x_t) + w_t, whatever gamma and eta.  With
per-sample Hessians the residual is (1 - kappa)(Hbar_{B_t} - Hbar)(x_t - x_{t-1}), zero in conditional mean.
So the stationary error power is kappa/(2 - kappa) of DP-SGD's; the stationary E||grad f||^2 solves the
Lyapunov equation of the closed loop (z_{t+1}, e_t) = A (z_t, e_{t-1}) + b nu_t (:func:`lyapunov_gradnorm`).

API: :func:`make_quadratic` -> :class:`Quadratic`; :func:`run_disk` (jitted, many runs, windowed means of
||e||^2, ||grad f||^2, f - f*) and :func:`run_disk_numpy` (vectorised numpy reference); :func:`trace_disk`
(one run, every iterate, batch and noise draw) with :func:`filter_residual`; :func:`noise_variance`,
:func:`error_variance_factor`, :func:`lyapunov_gradnorm`, :func:`gradnorm_ratio`.

Example::

    from theorylab.stochastic.disk import make_quadratic, run_disk, error_variance_factor
    P = make_quadratic(d=50, n=1000)
    disk = run_disk(P, kappa=0.7, gamma=0.5, C=100.0, sigma=1.0, B=64, n_steps=2000, n_runs=4)
    dpsgd = run_disk(P, kappa=1.0, C=100.0, sigma=1.0, B=64, n_steps=2000, n_runs=4)
    disk.err2[:, 10:].mean() / dpsgd.err2[:, 10:].mean(), error_variance_factor(0.7)     # ~ 0.54
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.core.parallel import map_blocks
from theorylab.core.seeding import as_generator, spawn_seeds
from theorylab.core.validate import (SimulationDiverged, check_array, check_budget, check_int, check_real,
                                     check_size)
from theorylab.stochastic import _kernels_disk as K
from theorylab.core.validate import check_record

__all__ = ["Quadratic", "make_quadratic", "disk_coefficients", "run_disk", "run_disk_numpy", "trace_disk",
           "filter_residual", "noise_variance", "error_variance_factor", "lyapunov_gradnorm", "gradnorm_ratio",
           "DiskRun", "DiskTrace"]

#: n_runs * n_steps * B * d per-sample coordinate evaluations of one call (about 3e8 per second per core).
MAX_WORK = 4 * 10**9
MAX_WORK_NUMPY = 4 * 10**8
MAX_BATCH = 10**5
MAX_DIM = 10**5


# --------------------------------------------------------------------------- the problem

@dataclass(frozen=True)
class Quadratic:
    """f(x) = (1/n) sum_i 1/2 sum_j hess[i, j] (x_j - centres[i, j])^2; hess > 0 and centres of shape (n, d)
    (a 1-d array is one sample)."""

    hess: np.ndarray
    centres: np.ndarray

    def __post_init__(self):
        h = check_array("hess", np.atleast_2d(np.asarray(self.hess, dtype=float)) if _numeric(self.hess)
                        else self.hess, ndim=2)
        if h.size == 0 or np.any(h <= 0) or h.max() > 1e8:
            raise ValueError("hess must be a non-empty (n, d) array of per-sample curvatures in (0, 1e8]; got "
                             + ("an empty array" if h.size == 0 else f"min {h.min()!r}, max {h.max()!r}"))
        check_budget("hess (n * d)", h.size, max_elements=10**8, n=h.shape[0], d=h.shape[1])
        a = check_array("centres", np.atleast_2d(np.asarray(self.centres, dtype=float)) if _numeric(self.centres)
                        else self.centres, ndim=2, shape=h.shape)
        if np.abs(a).max() > 1e8:
            raise ValueError(f"centres must lie within 1e8 of 0; got max |centres| = {np.abs(a).max():.3g}")
        object.__setattr__(self, "hess", np.ascontiguousarray(h))
        object.__setattr__(self, "centres", np.ascontiguousarray(a))

    @property
    def n(self) -> int:
        return self.hess.shape[0]

    @property
    def d(self) -> int:
        return self.hess.shape[1]

    @property
    def hbar(self) -> np.ndarray:
        """The Hessian of f: mean_i h_i (diagonal)."""
        return self.hess.mean(0)

    @property
    def m(self) -> np.ndarray:
        """grad f(x) = hbar x - m."""
        return (self.hess * self.centres).mean(0)

    @property
    def x_star(self) -> np.ndarray:
        return self.m / self.hbar

    @property
    def L(self) -> float:
        """Smoothness of f: max_j hbar_j."""
        return float(self.hbar.max())

    @property
    def shared(self) -> bool:
        """Whether every sample has the same Hessian (the exact-filter case)."""
        return bool(np.all(self.hess == self.hess[0]))

    def _point(self, x) -> np.ndarray:
        x = check_array("x", x)
        if x.ndim == 0 or x.shape[-1] != self.d:
            raise ValueError(f"x must be an array of shape (..., d) with d = {self.d}; got shape {x.shape}")
        return x

    def grad(self, x) -> np.ndarray:
        """grad f(x) (x of shape (..., d))."""
        return self.hbar * self._point(x) - self.m

    def per_sample_grads(self, x, idx) -> np.ndarray:
        """grad f(x; i) for i in idx: shape idx.shape + (d,)."""
        x = self._point(x)
        idx = check_array("idx", idx, dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= self.n):
            raise ValueError(f"idx must hold sample indices in [0, n) with n = {self.n}; got values in "
                             f"[{idx.min()}, {idx.max()}]")
        return self.hess[idx] * (x - self.centres[idx])


def _numeric(value) -> bool:
    try:
        return np.asarray(value).dtype.kind in "biuf"
    except (TypeError, ValueError):
        return False


def make_quadratic(d: int = 50, n: int = 1000, *, lam_min: float = 0.05, lam_max: float = 1.0,
                   spread: float = 0.0, centre_scale: float = 1.0, seed=0) -> Quadratic:
    """Eigenvalues lam_j log-spaced in [lam_min, lam_max]; centres a_i ~ N(0, centre_scale^2 I); per-sample
    Hessians h_ij = lam_j (1 + spread u_ij), u_ij uniform on [-1, 1] (spread = 0: one shared Hessian)."""
    d = check_size("d", d, budget=MAX_DIM)
    n = check_size("n", n, budget=10**7)
    check_budget("the data (n * d)", n * d, max_elements=10**8, n=n, d=d)
    lam_min = check_real("lam_min", lam_min, low=0.0, low_open=True, high=1e6)
    lam_max = check_real("lam_max", lam_max, low=lam_min, high=1e6)
    spread = check_real("spread", spread, low=0.0, high=1.0, high_open=True)
    centre_scale = check_real("centre_scale", centre_scale, low=0.0, high=1e6)
    rng = as_generator(seed)
    lam = np.geomspace(lam_min, lam_max, d)
    a = centre_scale * rng.standard_normal((n, d))
    h = lam * (1.0 + spread * rng.uniform(-1.0, 1.0, (n, d))) if spread > 0 else np.tile(lam, (n, 1))
    return Quadratic(h, a)


# --------------------------------------------------------------------------- the method's parameters

def disk_coefficients(kappa: float = 0.7, gamma: float = 0.5):
    """(kappa, gamma_used, c) with c = (1 - kappa)/(kappa gamma): the optimiser's convention, gamma = 0 or within
    1e-3 of (1 - kappa)/kappa means gamma = (1 - kappa)/kappa and c = 1 (one gradient); kappa = 1 (DP-SGD)
    gives c = 0."""
    kappa = check_real("kappa", kappa, low=0.0, low_open=True, high=1.0)
    gamma = check_real("gamma", gamma, low=0.0, high=1e3)
    if 0 < gamma < 1e-3:
        raise ValueError(f"gamma must be 0 (the one-gradient variant) or in [1e-3, 1e3]; got {gamma!r} (c = "
                         "(1 - kappa)/(kappa gamma) would amplify rounding)")
    if kappa == 1.0:
        return kappa, 0.0, 0.0
    g1 = (1 - kappa) / kappa
    if gamma == 0 or abs(gamma - g1) < 1e-3:
        return kappa, g1, 1.0
    return kappa, gamma, (1 - kappa) / (kappa * gamma)


def _method_args(problem, kappa, gamma, eta, C, sigma, B, corrected=True):
    if not isinstance(problem, Quadratic):
        raise TypeError(f"problem must be a Quadratic (see make_quadratic); got {type(problem).__name__}")
    if not isinstance(corrected, (bool, np.bool_)):
        raise TypeError(f"corrected must be a bool; got {corrected!r}"[:200])
    kappa, gamma, c = disk_coefficients(kappa, gamma)
    if not corrected:                       # plain EMA of the privatised gradients: one gradient at x_t
        gamma, c = 0.0, 0.0
    eta = check_real("eta", eta, low=0.0, low_open=True, high=1e6)
    if eta * problem.L >= 2.0:
        raise ValueError(f"eta = {eta!r} gives eta L = {eta * problem.L:.4g} >= 2 (L = max_j hbar_j = "
                         f"{problem.L:.4g}): the iteration diverges; need eta < 2/L = {2 / problem.L:.4g}")
    C = check_real("C", C, low=0.0, low_open=True, high=1e8)
    sigma = check_real("sigma", sigma, low=0.0, high=1e4)
    B = check_int("B", B, low=1, high=MAX_BATCH)
    return kappa, gamma, c, eta, C, sigma, B


def _x0(problem, x0):
    if x0 is None:
        return problem.x_star.copy()
    x0 = check_array("x0", np.atleast_1d(check_array("x0", x0)) if _numeric(x0) else x0,
                     shape=(problem.d,))
    if np.abs(x0).max() > 1e8:
        raise ValueError(f"x0 must lie within 1e8 of 0; got max |x0| = {np.abs(x0).max():.3g}")
    return x0


@dataclass
class DiskRun:
    """Windowed means per run r and window k (steps t with t // record_every = k): err2 = ||g_t - grad
    f(x_t)||^2, grad2 = ||grad f(x_t)||^2, gap = f(x_t) - f*; clipped[r] = clipped per-sample vectors; steps =
    the first step of each window."""

    err2: np.ndarray
    grad2: np.ndarray
    gap: np.ndarray
    clipped: np.ndarray
    steps: np.ndarray
    kappa: float
    gamma: float
    c: float

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        # (the runs check their windowed means with _finite first, so an overflow is SimulationDiverged)
        check_record(self)


def _finite(what: str, **means) -> None:
    """SimulationDiverged if a windowed mean overflowed (before the record, which refuses NaN/inf, is built)."""
    for name, arr in means.items():
        if not np.all(np.isfinite(arr)):
            raise SimulationDiverged(f"{what}: {name} overflowed (the step size eta, the noise sigma C / B or x0 is "
                                     f"too large; first bad window {int(np.argwhere(~np.isfinite(arr))[0][1])})")


def _sizes(n_steps, record_every, n_runs, B, d, max_work, what):
    n_steps = check_size("n_steps", n_steps)
    record_every = check_int("record_every", record_every, low=1, high=n_steps)
    n_runs = check_size("n_runs", n_runs)
    check_budget(f"{what} work", n_runs * n_steps * B * d, max_elements=max_work, unit="per-sample coordinates",
                 n_runs=n_runs, n_steps=n_steps, B=B, d=d)
    record_every = min(record_every, n_steps)
    return n_steps, record_every, n_runs, -(-n_steps // record_every)


def run_disk(problem: Quadratic, *, kappa: float = 0.7, gamma: float = 0.5, eta: float = 1.0, C: float = 100.0,
             sigma: float = 1.0, B: int = 64, n_steps: int = 1000, record_every: int = 10, x0=None,
             n_runs: int = 4, seed=0, corrected: bool = True, parallel: bool = True) -> DiskRun:
    """DiSK (kappa < 1) or DP-SGD (kappa = 1) with SGD as base optimiser, ``n_runs`` independent runs (per-run
    seeds from ``seed``: run r does not depend on n_runs or threads).  x0 defaults to the minimiser.
    ``corrected=False``: the control without DiSK's Hessian correction (c = 0: a plain EMA of the privatised
    gradients, g_t = (1 - kappa) g_{t-1} + kappa gt_t)."""
    if not isinstance(parallel, (bool, np.bool_)):
        raise TypeError(f"parallel must be True or False; got {parallel!r}")
    kappa, gamma, c, eta, C, sigma, B = _method_args(problem, kappa, gamma, eta, C, sigma, B, corrected)
    x0 = _x0(problem, x0)
    n_steps, record_every, n_runs, nK = _sizes(n_steps, record_every, n_runs, B, problem.d, MAX_WORK, "run_disk")
    seeds = spawn_seeds(seed, n_runs)
    out = [np.empty((n_runs, nK)) for _ in range(3)] + [np.zeros(n_runs, dtype=np.int64)]
    P = problem
    args = (P.hess, P.centres, P.hbar, P.m, P.x_star, x0, eta, kappa, c, gamma, C, sigma * C / B, B, n_steps,
            record_every)
    map_blocks(lambda s: K.disk_runs(*args, seeds[s], *(o[s] for o in out)), n_runs,
               work=n_runs * n_steps * B * P.d, parallel=parallel)
    _finite(f"run_disk(kappa={kappa}, eta={eta}, sigma={sigma}, C={C})", err2=out[0], grad2=out[1], gap=out[2])
    return DiskRun(*out, steps=np.arange(nK) * record_every, kappa=kappa, gamma=gamma, c=c)


def run_disk_numpy(problem: Quadratic, *, kappa: float = 0.7, gamma: float = 0.5, eta: float = 1.0,
                   C: float = 100.0, sigma: float = 1.0, B: int = 64, n_steps: int = 1000, record_every: int = 10,
                   x0=None, n_runs: int = 4, seed=0, corrected: bool = True) -> DiskRun:
    """Vectorised numpy reference of :func:`run_disk` (all runs and batch samples at once, numpy's generator:
    the same law, not the same numbers)."""
    kappa, gamma, c, eta, C, sigma, B = _method_args(problem, kappa, gamma, eta, C, sigma, B, corrected)
    x0 = _x0(problem, x0)
    n_steps, record_every, n_runs, nK = _sizes(n_steps, record_every, n_runs, B, problem.d, MAX_WORK_NUMPY,
                                               "run_disk_numpy")
    P, rng, noise_std = problem, as_generator(seed), sigma * C / B
    hbar, m, xs = P.hbar, P.m, P.x_star
    x = np.tile(x0, (n_runs, 1))
    xp, g = x.copy(), np.zeros_like(x)
    acc = np.zeros((3, n_runs, nK))
    clipped = np.zeros(n_runs, dtype=np.int64)
    for t in range(n_steps):
        idx = rng.integers(0, P.n, (n_runs, B))
        hb, ab = P.hess[idx], P.centres[idx]
        y = x + gamma * (x - xp)
        v = c * hb * (y[:, None, :] - ab) + (1 - c) * hb * (x[:, None, :] - ab)
        norm = np.sqrt((v * v).sum(2))
        clipped += (norm > C).sum(1)
        gt = (v * np.minimum(1.0, C / np.maximum(norm, 1e-300))[:, :, None]).mean(1)
        gt += noise_std * rng.standard_normal(x.shape)
        g = gt if t == 0 else (1 - kappa) * g + kappa * gt
        gf = hbar * x - m
        k = t // record_every
        acc[0, :, k] += ((g - gf) ** 2).sum(1)
        acc[1, :, k] += (gf * gf).sum(1)
        acc[2, :, k] += 0.5 * (hbar * (x - xs) ** 2).sum(1)
        if not np.all(acc[2, :, k] < K.OVERFLOW):
            acc[:, :, k:] = np.inf
            break
        xp, x = x, x - eta * g
    cnt = np.minimum(record_every, n_steps - np.arange(nK) * record_every)
    means = acc / cnt
    _finite(f"run_disk_numpy(kappa={kappa}, eta={eta}, sigma={sigma}, C={C})", err2=means[0], grad2=means[1],
            gap=means[2])
    return DiskRun(*means, clipped, steps=np.arange(nK) * record_every, kappa=kappa, gamma=gamma, c=c)


# --------------------------------------------------------------------------- one run, everything recorded

@dataclass
class DiskTrace:
    """One run: x[t] = x_t (t = 0..n_steps), g[t] = g_t, w[t] = the privacy noise w_t, batches[t] = B_t,
    clipped = number of clipped per-sample vectors."""

    x: np.ndarray
    g: np.ndarray
    w: np.ndarray
    batches: np.ndarray
    clipped: int
    kappa: float
    gamma: float
    c: float

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)


def trace_disk(problem: Quadratic, *, kappa: float = 0.7, gamma: float = 0.5, eta: float = 1.0, C: float = 100.0,
               sigma: float = 1.0, B: int = 64, n_steps: int = 200, x0=None, seed=0,
               corrected: bool = True) -> DiskTrace:
    """One run of DiSK (DP-SGD at kappa = 1; plain EMA if not ``corrected``) with every iterate, filtered
    gradient, batch and noise draw."""
    kappa, gamma, c, eta, C, sigma, B = _method_args(problem, kappa, gamma, eta, C, sigma, B, corrected)
    x0 = _x0(problem, x0)
    n_steps = check_size("n_steps", n_steps)
    d = problem.d
    check_budget("the trace arrays", n_steps * (3 * d + B), n_steps=n_steps, d=d, B=B)
    check_budget("trace_disk work", n_steps * B * d, max_elements=MAX_WORK, unit="per-sample coordinates",
                 n_steps=n_steps, B=B, d=d)
    X, G, W = np.empty((n_steps + 1, d)), np.empty((n_steps, d)), np.empty((n_steps, d))
    IDX = np.empty((n_steps, B), dtype=np.int64)
    seed0 = int(spawn_seeds(seed, 1)[0])
    n_clip = K.disk_trace(problem.hess, problem.centres, x0, eta, kappa, c, gamma, C, sigma * C / B, B, seed0,
                          X, G, W, IDX)
    for name, arr in (("x", X), ("g", G)):
        if not np.all(np.isfinite(arr)) or np.abs(arr).max() > 1e100:
            raise SimulationDiverged(f"trace_disk(kappa={kappa}, eta={eta}): {name} overflowed (eta, sigma C / B "
                                     "or x0 too large)")
    return DiskTrace(X, G, W, IDX, int(n_clip), kappa, gamma, c)


def filter_residual(problem: Quadratic, trace: DiskTrace):
    """(r, r_pred), shape (n_steps - 1, d): r_t = e_t - (1 - kappa) e_{t-1} - kappa nu_t for t >= 1, from the
    recorded run, with e_t = g_t - grad f(x_t) and nu_t = (1/B) sum_{B_t} grad f(x_t; xi) - grad f(x_t) + w_t
    recomputed here in numpy; r_pred_t = (kappa c gamma Hbar_{B_t} - (1 - kappa) Hbar)(x_t - x_{t-1}) [derived]:
    for DiSK (kappa c gamma = 1 - kappa) this is (1 - kappa)(Hbar_{B_t} - Hbar) d_t, zero for a shared Hessian; for
    the uncorrected EMA (c = 0) the drift -(1 - kappa) Hbar d_t.  Valid without clipping (trace.clipped == 0)."""
    if not isinstance(problem, Quadratic):
        raise TypeError(f"problem must be a Quadratic; got {type(problem).__name__}")
    if not isinstance(trace, DiskTrace):
        raise TypeError(f"trace must be a DiskTrace (see trace_disk); got {type(trace).__name__}")
    if trace.x.shape[1] != problem.d or trace.batches.max(initial=0) >= problem.n:
        raise ValueError(f"trace does not belong to problem: dimension {trace.x.shape[1]} vs d = {problem.d}, or "
                         f"batch indices beyond n = {problem.n}")
    if trace.g.shape[0] < 2:
        raise ValueError(f"trace needs at least 2 steps; got {trace.g.shape[0]}")
    kappa, X, T = trace.kappa, trace.x, trace.g.shape[0]
    e = trace.g - problem.grad(X[:T])
    mean_batch = np.stack([problem.per_sample_grads(X[t], trace.batches[t]).mean(0) for t in range(T)])
    nu = mean_batch - problem.grad(X[:T]) + trace.w
    r = e[1:] - (1 - kappa) * e[:-1] - kappa * nu[1:]
    hB = problem.hess[trace.batches[1:]].mean(1)
    r_pred = (kappa * trace.c * trace.gamma * hB - (1 - kappa) * problem.hbar) * (X[1:T] - X[:T - 1])
    return r, r_pred


# --------------------------------------------------------------------------- the derived predictions

def error_variance_factor(kappa: float) -> float:
    """Stationary Var(e)/Var(nu) = kappa^2 / (1 - (1 - kappa)^2) = kappa/(2 - kappa) of the AR(1) error
    e_t = (1 - kappa) e_{t-1} + kappa nu_t [derived]."""
    kappa = check_real("kappa", kappa, low=0.0, low_open=True, high=1.0)
    return kappa / (2.0 - kappa)


def noise_variance(problem: Quadratic, *, sigma: float = 1.0, C: float = 100.0, B: int = 64) -> np.ndarray:
    """Per coordinate Var(nu_t) = sigma^2 C^2 / B^2 + Var_i(h_ij a_ij) / B (privacy noise plus the sampling
    noise of a with-replacement batch, for a shared Hessian, where it does not depend on x)."""
    if not isinstance(problem, Quadratic):
        raise TypeError(f"problem must be a Quadratic; got {type(problem).__name__}")
    if not problem.shared:
        raise ValueError("problem must have one shared Hessian (its sampling noise depends on x otherwise)")
    C = check_real("C", C, low=0.0, low_open=True, high=1e8)
    sigma = check_real("sigma", sigma, low=0.0, high=1e4)
    B = check_int("B", B, low=1, high=MAX_BATCH)
    return (sigma * C / B) ** 2 + (problem.hess * problem.centres).var(0) / B


def lyapunov_gradnorm(lam, q, *, eta: float = 1.0, kappa: float = 0.7) -> np.ndarray:
    """Stationary E[(lam_j z_j)^2], z = x - x*, per eigenvalue lam_j with noise variance q_j [derived]: the state
    s_t = (z_{t+1}, e_t) obeys s_t = A s_{t-1} + b nu_t with A = [[1 - eta lam, -eta (1 - kappa)], [0, 1 - kappa]],
    b = (-eta kappa, kappa); P = A P A^T + q b b^T is solved by scipy.linalg.solve_discrete_lyapunov."""
    from scipy.linalg import solve_discrete_lyapunov

    lam = check_array("lam", np.atleast_1d(check_array("lam", lam)) if _numeric(lam) else lam, ndim=1)
    q = check_array("q", np.atleast_1d(check_array("q", q)) if _numeric(q) else q, shape=lam.shape)
    check_size("lam (its length)", lam.size, budget=MAX_DIM)
    if np.any(lam <= 0) or lam.max(initial=0) > 1e8:
        raise ValueError(f"lam must be in (0, 1e8]; got lam in [{lam.min(initial=0)!r}, {lam.max(initial=0)!r}]")
    if np.any(q < 0) or q.max(initial=0) > 1e12:
        raise ValueError(f"q must be in [0, 1e12]; got q in [{q.min(initial=0)!r}, {q.max(initial=0)!r}]")
    eta = check_real("eta", eta, low=0.0, low_open=True, high=1e6)
    kappa = check_real("kappa", kappa, low=0.0, low_open=True, high=1.0)
    if eta * lam.max() >= 2:
        raise ValueError(f"eta = {eta!r} gives eta max(lam) = {eta * lam.max():.4g} >= 2: no stationary law")
    out = np.empty(lam.size)
    for j, (l, qj) in enumerate(zip(lam, q)):
        A = np.array([[1 - eta * l, -eta * (1 - kappa)], [0.0, 1 - kappa]])
        b = np.array([-eta * kappa, kappa])
        out[j] = l * l * solve_discrete_lyapunov(A, qj * np.outer(b, b))[0, 0]
    return out


def gradnorm_ratio(problem: Quadratic, *, kappa: float = 0.7, eta: float = 1.0, sigma: float = 1.0,
                   C: float = 100.0, B: int = 64) -> float:
    """Predicted stationary E||grad f||^2 of DiSK over DP-SGD's (same eta, same noise) on a shared quadratic
    without clipping [derived, :func:`lyapunov_gradnorm`]."""
    q = noise_variance(problem, sigma=sigma, C=C, B=B)
    lam = problem.hbar
    return float(lyapunov_gradnorm(lam, q, eta=eta, kappa=kappa).sum()
                 / lyapunov_gradnorm(lam, q, eta=eta, kappa=1.0).sum())
