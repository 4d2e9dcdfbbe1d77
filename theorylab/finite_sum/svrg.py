"""SVRG and alpha-SVRG gradient estimators on finite sums with exact per-sample gradients
(Yin, Xu, Li, Darrell, Liu, "A Coefficient Makes SVRG Effective", ICLR 2025, arXiv:2311.05589,
OpenReview twtTLZnG0B; code github.com/davidyyd/alpha-SVRG).

Estimator (paper Sec. 3; the project page docs/index.html of the authors' repository), for a sample i
drawn uniformly from {0, ..., n-1}, current iterate theta^t and snapshot theta^s:

    g_i = grad f_i(theta^t) - alpha (.) (grad f_i(theta^s) - grad f(theta^s)),

alpha a scalar or one coefficient per coordinate; alpha = 0 is SGD, alpha = 1 is SVRG.  A mini-batch
estimate averages g_i over a batch of indices.

Per-coordinate control-variate algebra [derived; the scalar case is the paper's Sec. 3]: with
G = grad f_i(theta^t)_k, H = grad f_i(theta^s)_k, sigma = sd(G), sigma_s = sd(H), rho = corr(G, H)
(population moments under the uniform index),

    Var(G - alpha (H - E H)) = sigma^2 - 2 alpha rho sigma sigma_s + alpha^2 sigma_s^2,

minimised at alpha* = rho sigma / sigma_s = Cov(G, H) / Var(H), with minimum (1 - rho^2) sigma^2; and
Var(alpha = 1) - Var(alpha = 0) = sigma_s (sigma_s - 2 rho sigma), so SVRG (alpha = 1) has the smaller
variance than SGD exactly where sigma_s < 2 rho sigma.

The authors' code (svrg.py, ``Cache_SVRG.compute_optimal_coefficient``) estimates alpha* from the
mini-batch gradients of one epoch at the current model and at the snapshot,
(E[xy] - E[x]E[y]) / (E[y^2] - E[y]^2 + 1e-24), clamped to [-2, 2]: :func:`code_optimal_coefficient`.
Its schedule (svrg.py, ``svrg_scheduler``, the one main.py calls): :func:`svrg_schedule`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.finite_sum import _kernels as K
from theorylab.core import (as_generator, check_array, check_budget, check_choice, check_int, check_positive,
                            check_real, require_finite)

__all__ = ["LeastSquares", "least_squares", "per_sample_grads", "coordinate_moments", "optimal_coefficient",
           "estimator_variance", "svrg_estimates", "mc_estimator_variance", "mc_estimator_variance_numpy", "code_optimal_coefficient",
           "svrg_schedule", "sgd_steps", "CLAMP"]

#: The clamp of the authors' compute_optimal_coefficient (svrg.py: torch.clamp(value, min=-2, max=2)).
CLAMP = (-2.0, 2.0)
#: The regulariser of the authors' compute_optimal_coefficient denominator (svrg.py).
CODE_EPS = 1e-24


@dataclass(frozen=True)
class LeastSquares:
    """f(theta) = (1/n) sum_i f_i(theta), f_i(theta) = (a_i^T theta - b_i)^2 / 2."""

    A: np.ndarray
    b: np.ndarray

    def __post_init__(self):
        A = check_array("A", self.A, ndim=2)
        if A.shape[0] < 2 or A.shape[1] < 1:
            raise ValueError(f"A must have shape (n, d) with n >= 2, d >= 1; got {A.shape}")
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "b", check_array("b", self.b, shape=(A.shape[0],)))

    @property
    def n(self) -> int:
        return self.A.shape[0]

    @property
    def d(self) -> int:
        return self.A.shape[1]


def least_squares(n: int = 2000, d: int = 50, *, noise: float = 1.0, scale_ratio: float = 10.0,
                  density: float = 1.0, seed=0) -> LeastSquares:
    """A random least-squares finite sum: a_ik = m_ik s_k z_ik with z_ik ~ N(0, 1), m_ik ~ Bernoulli(density)
    (sparse features, so that each residual involves a few coordinates), s_k log-spaced over
    [1, scale_ratio] (k = 0..d-1); b_i = a_i^T theta_true + noise eps_i, theta_true ~ N(0, I)."""
    n = check_int("n", n, low=2, high=10**6)
    d = check_int("d", d, low=1, high=10**4)
    check_budget("the design matrix", n * d, n=n, d=d)
    noise = check_real("noise", noise, low=0.0)
    scale_ratio = check_real("scale_ratio", scale_ratio, low=1.0, high=1e6)
    density = check_real("density", density, low=0.0, high=1.0, low_open=True)
    rng = as_generator(seed)
    s = np.logspace(0.0, np.log10(scale_ratio), d)
    A = rng.standard_normal((n, d)) * s * (rng.random((n, d)) < density)
    theta_true = rng.standard_normal(d)
    b = A @ theta_true + noise * rng.standard_normal(n)
    return LeastSquares(A, b)


def _problem(problem):
    if not isinstance(problem, LeastSquares):
        raise TypeError(f"problem must be a LeastSquares (from least_squares); got {type(problem).__name__}")
    return problem


def per_sample_grads(problem: LeastSquares, theta) -> np.ndarray:
    """The (n, d) matrix of grad f_i(theta) = (a_i^T theta - b_i) a_i."""
    problem = _problem(problem)
    theta = check_array("theta", theta, shape=(problem.d,))
    return (problem.A @ theta - problem.b)[:, None] * problem.A


def _pair(G, H, names=("G", "H")):
    G = check_array(names[0], G, ndim=2)
    H = check_array(names[1], H, shape=G.shape)
    if G.shape[0] < 2 or G.shape[1] < 1:
        raise ValueError(f"{names[0]} must have shape (n, d) with n >= 2 samples and d >= 1 coordinates; got {G.shape}")
    return G, H


def coordinate_moments(G, H) -> dict:
    """Population moments per coordinate k of the current (G, shape (n, d)) and snapshot (H) per-sample
    gradients under the uniform index: sigma_k, sigma_snap_k, rho_k, cov_k, alpha*_k = cov_k / sigma_snap_k^2
    and the minimum variance (1 - rho_k^2) sigma_k^2."""
    G, H = _pair(G, H)
    Gc, Hc = G - G.mean(0), H - H.mean(0)
    var_g, var_h, cov = (Gc ** 2).mean(0), (Hc ** 2).mean(0), (Gc * Hc).mean(0)
    if np.any(var_h <= 0) or np.any(var_g <= 0):
        raise ValueError("G and H must vary across samples in every coordinate (a zero variance leaves rho "
                         "undefined)")
    sigma, sigma_snap = np.sqrt(var_g), np.sqrt(var_h)
    rho = cov / (sigma * sigma_snap)
    return {"sigma": sigma, "sigma_snap": sigma_snap, "rho": rho, "cov": cov, "alpha_star": cov / var_h,
            "min_variance": (1.0 - rho ** 2) * var_g}


def optimal_coefficient(G, H) -> np.ndarray:
    """alpha*_k = Cov(G_k, H_k) / Var(H_k) = rho_k sigma_k / sigma_snap_k (population moments)."""
    return coordinate_moments(G, H)["alpha_star"]


def _alpha(alpha, d):
    if np.ndim(alpha) == 0:
        return np.full(d, check_real("alpha", alpha))
    return check_array("alpha", alpha, shape=(d,))


def svrg_estimates(G, H, alpha, idx) -> np.ndarray:
    """alpha-SVRG estimates g_i = G[i] - alpha (.) (H[i] - mean(H)) for the index array ``idx`` of shape
    (m,) (one sample per estimate) or (m, b) (mini-batches of b, averaged): shape (m, d)."""
    G, H = _pair(G, H)
    a = _alpha(alpha, G.shape[1])
    idx = check_array("idx", idx, dtype=np.int64)
    if idx.ndim not in (1, 2) or idx.size == 0:
        raise ValueError(f"idx must be a non-empty 1-d or 2-d array of sample indices; got shape {idx.shape}")
    if idx.min() < 0 or idx.max() >= G.shape[0]:
        raise ValueError(f"idx must hold indices in [0, {G.shape[0] - 1}]; got values in [{idx.min()}, {idx.max()}]")
    check_budget("the estimates", idx.size * G.shape[1], m=idx.shape[0], d=G.shape[1])
    mu_h = H.mean(0)
    per_sample = G - a * (H - mu_h)
    g = per_sample[idx]
    return g if idx.ndim == 1 else g.mean(axis=1)


def estimator_variance(G, H, alpha) -> np.ndarray:
    """Exact per-coordinate variance of the one-sample estimate under the uniform index, by enumerating
    every index (the estimator applied to all n samples; no moment formula)."""
    G, H = _pair(G, H)
    g = svrg_estimates(G, H, alpha, np.arange(G.shape[0]))
    return g.var(axis=0)


def _mc_draws(G, H, alpha, draws, batch, seed):
    G, H = _pair(G, H)
    a = _alpha(alpha, G.shape[1])
    draws = check_int("draws", draws, low=4, high=10**8)
    batch = check_int("batch", batch, low=1, high=10**6)
    check_budget("the index draws", draws * batch, draws=draws, batch=batch)
    idx = as_generator(seed).integers(0, G.shape[0], size=(draws, batch))
    return G, H, a, idx


def _variance_and_se(m2, m4, draws):
    """Unbiased variance (ddof 1) and its standard error sqrt((mu4 - v^2 (m - 3)/(m - 1)) / m)."""
    v = m2 / (draws - 1)
    mu4 = m4 / draws
    return v, np.sqrt(np.maximum(mu4 - v ** 2 * (draws - 3) / (draws - 1), 0.0) / draws)


def mc_estimator_variance(G, H, alpha, *, draws: int = 10_000, batch: int = 1, seed=0) -> tuple:
    """Monte Carlo per-coordinate variance of the alpha-SVRG estimate over ``draws`` independent mini-batches
    of ``batch`` indices drawn uniformly with replacement: (variance (ddof 1), its standard error from the
    fourth central moment), each of shape (d,).  Streamed by a jitted kernel (no (draws, d) array)."""
    G, H, a, idx = _mc_draws(G, H, alpha, draws, batch, seed)
    mean, m2, m4 = (np.empty(G.shape[1]) for _ in range(3))
    K.estimate_moments_kernel(G, H, H.mean(0), a, idx, mean, m2, m4)
    v, se = _variance_and_se(m2, m4, idx.shape[0])
    require_finite("the Monte Carlo variance", v, draws=draws, batch=batch)
    return v, se


def mc_estimator_variance_numpy(G, H, alpha, *, draws: int = 10_000, batch: int = 1, seed=0) -> tuple:
    """The vectorised numpy reference of :func:`mc_estimator_variance` (same index draws, same numbers to
    rounding): builds the (draws, d) array of estimates with :func:`svrg_estimates`."""
    G, H, a, idx = _mc_draws(G, H, alpha, draws, batch, seed)
    check_budget("the estimates", idx.shape[0] * G.shape[1], draws=draws, d=G.shape[1])
    g = svrg_estimates(G, H, a, idx)
    c = g - g.mean(0)
    return _variance_and_se((c ** 2).sum(0), (c ** 4).sum(0), idx.shape[0])


def code_optimal_coefficient(X, Y, *, clamp: bool = True) -> np.ndarray:
    """The authors' estimate of alpha* (svrg.py, Cache_SVRG.compute_optimal_coefficient): X (m, d) the
    mini-batch gradients of one epoch at the current model, Y (m, d) at the snapshot on the same mini-batches;
    (E[xy] - E[x]E[y]) / (E[y^2] - E[y]^2 + 1e-24), clamped to [-2, 2]."""
    X, Y = _pair(X, Y, ("X", "Y"))
    if not isinstance(clamp, (bool, np.bool_)):
        raise TypeError(f"clamp must be a bool; got {clamp!r:.80} of type {type(clamp).__name__}")
    ex, ey = X.mean(0), Y.mean(0)
    value = ((X * Y).mean(0) - ex * ey) / ((Y ** 2).mean(0) - ey ** 2 + CODE_EPS)
    return np.clip(value, *CLAMP) if clamp else value


def svrg_schedule(alpha0: float, epochs: int, niter_per_epoch: int, snapshot_interval: int,
                  schedule: str = "linear") -> np.ndarray:
    """The coefficient alpha_t of every iteration t in [0, epochs * niter_per_epoch), as the authors' code
    builds it (svrg.py ``svrg_scheduler``, called by main.py with ``args.snapshot_pass_freq``).

    ``"constant"`` (also the code's ``"optimal"``): alpha0 throughout.  Otherwise (the README's ``linear``):
    each epoch is cut into P = ceil(niter_per_epoch / snapshot_interval) snapshot intervals starting at
    0, f, 2f, ... (the last one shorter when f does not divide the epoch); interval k of epoch e holds the
    value linspace(alpha0, 0, epochs * P)[e P + k] for all its iterations.  So alpha is constant between
    snapshots and reaches exactly 0 on the last interval; it equals linspace(alpha0, 0, T) only when
    snapshot_interval = 1."""
    alpha0 = check_real("alpha0", alpha0, low=-1e6, high=1e6)
    epochs = check_int("epochs", epochs, low=1, high=10**6)
    niter_per_epoch = check_int("niter_per_epoch", niter_per_epoch, low=1, high=10**8)
    snapshot_interval = check_int("snapshot_interval", snapshot_interval, low=1, high=10**8)
    schedule = check_choice("schedule", schedule, ("linear", "constant", "optimal"))
    check_budget("the schedule", epochs * niter_per_epoch, epochs=epochs, niter_per_epoch=niter_per_epoch)
    if schedule != "linear":
        return np.full(epochs * niter_per_epoch, alpha0)
    starts = np.arange(0, niter_per_epoch, snapshot_interval)
    ends = np.minimum(starts + snapshot_interval, niter_per_epoch)
    values = np.linspace(alpha0, 0.0, epochs * starts.size)
    lengths = np.tile(ends - starts, epochs)
    return np.repeat(values, lengths)


def sgd_steps(problem: LeastSquares, theta0, *, step: float, n_steps: int, batch: int = 1, seed=0) -> np.ndarray:
    """Plain mini-batch SGD on the least-squares sum (indices uniform with replacement): the iterates
    theta_0, ..., theta_{n_steps}, shape (n_steps + 1, d)."""
    problem = _problem(problem)
    theta = check_array("theta0", theta0, shape=(problem.d,)).copy()
    step = check_positive("step", step)
    n_steps = check_int("n_steps", n_steps, low=0, high=10**7)
    batch = check_int("batch", batch, low=1, high=problem.n)
    check_budget("the iterates", (n_steps + 1) * problem.d, n_steps=n_steps, d=problem.d)
    rng = as_generator(seed)
    out = np.empty((n_steps + 1, problem.d))
    out[0] = theta
    A, b = problem.A, problem.b
    for t in range(n_steps):
        i = rng.integers(0, problem.n, size=batch)
        Ai = A[i]
        theta = theta - step * (Ai.T @ (Ai @ theta - b[i])) / batch
        out[t + 1] = theta
    require_finite("SGD iterates", out, step=step, batch=batch)
    return out
