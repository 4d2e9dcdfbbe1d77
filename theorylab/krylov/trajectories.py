"""Directionality of optimisation trajectories: heavy-ball trajectories on quadratics, their exact (complex-root)
form, consecutive-update cosines and trajectory maps (Singh, He, Hofmann, Schölkopf, "The Directionality of
Optimization Trajectories in Neural Networks", ICLR 2025; earlier arXiv:2403.07379).

* Trajectory map (paper Sec. 2; our reading of the abstract): C_{ij} = cos(theta_i, theta_j) over checkpoints, and the
  mean directional similarity MDS = the mean of its off-diagonal entries (:func:`trajectory_map`); the update variant
  uses Delta_i = theta_{i+1} - theta_i.
* Micro-level oscillations (paper Sec. 4.2, modelled here on a quadratic [derived]): heavy ball
  theta_{t+1} = theta_t - eta nabla f(theta_t) + beta (theta_t - theta_{t-1}) on f = (1/2) sum_j lambda_j theta_j^2 with
  theta_{-1} = theta_0.  Each coordinate's update obeys Delta_{t+1} = (1 + beta - eta lambda) Delta_t - beta Delta_{t-1}
  with Delta_{-1} = 0; when (1 + beta - eta lambda)^2 < 4 beta the roots are sqrt(beta) e^{+-i omega},
  cos omega = (1 + beta - eta lambda) / (2 sqrt beta), and Delta_t = -eta lambda theta_0 beta^{t/2} sin((t+1) omega) / sin omega
  (:func:`heavy_ball_exact_updates`).  All modes share the modulus sqrt(beta), so the consecutive-update cosine has no
  dominant root: it oscillates, with the time mean given by the average over independent uniform phases
  (:func:`ergodic_cosine_mean`), and coordinate j changes sign at the rate omega_j / pi.
* Macro level (paper Sec. 3): the trajectory map of a small ReLU MLP trained by SGD with heavy-ball momentum and
  coupled weight decay (the buffer accumulates g + wd theta, as torch.optim.SGD), :func:`mlp_trajectory`; the
  checkpoints are centred at theta_0 (the paper's T_tau with tau = 0).
"""

from __future__ import annotations

import numpy as np

from theorylab.core import (SimulationDiverged, as_generator, check_array, check_budget, check_int, check_positive,
                            check_real, child_seed)
from theorylab.core.parallel import blas_threads
from theorylab.finite_sum.mlp import Mixture, init_mlp, mlp_loss_grad

__all__ = ["root_angles", "heavy_ball", "heavy_ball_exact_updates", "consecutive_cosines", "sign_changes",
           "ergodic_cosine_mean", "trajectory_map", "mlp_trajectory"]

MAX_STEPS = 20_000          # updates shrink like beta^{t/2}: past ~600 / log10(1 / beta) steps (13 000 at beta = 0.9) they underflow


def _check_lams(lams):
    lams = check_array("lams", lams, ndim=1)
    if lams.size == 0 or lams.size > 10**5 or np.any(lams <= 0):
        raise ValueError(f"lams must be a non-empty 1-d array of at most 100000 positive curvatures; got {lams.size} "
                         f"values with minimum {lams.min() if lams.size else 'none'}")
    return lams


def _check_hb(eta, beta):
    eta = check_real("eta", eta, low=0.0, low_open=True, high=1e6)
    beta = check_real("beta", beta, low=0.0, low_open=True, high=1.0, high_open=True)
    return eta, beta


def root_angles(lams, *, eta: float = 1.0, beta: float = 0.9) -> np.ndarray:
    """omega_j = arccos((1 + beta - eta lambda_j) / (2 sqrt beta)), the argument of heavy ball's complex characteristic
    roots sqrt(beta) e^{+-i omega_j}; refused where a root is real ((1 + beta - eta lambda)^2 >= 4 beta)."""
    lams = _check_lams(lams)
    eta, beta = _check_hb(eta, beta)
    c = (1 + beta - eta * lams) / (2 * np.sqrt(beta))
    if np.any(np.abs(c) >= 1):
        j = int(np.argmax(np.abs(c)))
        raise ValueError(f"lams, eta, beta must give complex roots ((1 + beta - eta lambda)^2 < 4 beta); got lambda = "
                         f"{lams[j]:.4g} with (1 + beta - eta lambda) / (2 sqrt beta) = {c[j]:.4g}")
    return np.arccos(c)


def heavy_ball(lams, theta0, *, eta: float = 1.0, beta: float = 0.9, steps: int = 1000) -> np.ndarray:
    """The heavy-ball iterates theta_0..theta_steps on f = (1/2) sum_j lambda_j theta_j^2, theta_{-1} = theta_0
    (simulated, step by step)."""
    lams = _check_lams(lams)
    theta0 = check_array("theta0", theta0, shape=(lams.size,))
    eta, beta = _check_hb(eta, beta)
    steps = check_int("steps", steps, low=1, high=MAX_STEPS)
    check_budget("the trajectory", (steps + 1) * lams.size, steps=steps, d=lams.size)
    out = np.empty((steps + 1, lams.size))
    out[0] = prev = theta0
    for t in range(steps):
        out[t + 1] = out[t] - eta * lams * out[t] + beta * (out[t] - prev)
        prev = out[t]
    if not np.all(np.isfinite(out[-1])):
        raise SimulationDiverged(f"heavy ball diverged (eta = {eta}, beta = {beta}, max lambda = {lams.max():.4g}): "
                                 "some root of x^2 - (1 + beta - eta lambda) x + beta has modulus > 1")
    return out


def heavy_ball_exact_updates(lams, theta0, *, eta: float = 1.0, beta: float = 0.9, steps: int = 1000) -> np.ndarray:
    """The updates Delta_t = theta_{t+1} - theta_t, t = 0..steps-1, in closed form (complex roots):
    Delta_t = -eta lambda theta_0 beta^{t/2} sin((t+1) omega) / sin omega (derivation in the module docstring; the
    solution of the two-term recursion with Delta_{-1} = 0 and Delta_0 = -eta lambda theta_0)."""
    omega = root_angles(lams, eta=eta, beta=beta)
    lams = np.asarray(lams, dtype=float)
    theta0 = check_array("theta0", theta0, shape=(lams.size,))
    steps = check_int("steps", steps, low=1, high=MAX_STEPS)
    check_budget("the updates", steps * lams.size, steps=steps, d=lams.size)
    t = np.arange(steps)[:, None]
    return -eta * lams * theta0 * beta ** (t / 2) * np.sin((t + 1) * omega) / np.sin(omega)


def consecutive_cosines(deltas) -> np.ndarray:
    """cos(Delta_t, Delta_{t+1}) for consecutive rows of ``deltas`` (T, d); T - 1 values."""
    deltas = check_array("deltas", deltas, ndim=2)
    if deltas.shape[0] < 2:
        raise ValueError(f"deltas must have at least 2 rows (updates); got shape {deltas.shape}")
    norms = np.linalg.norm(deltas, axis=1)
    if np.any(norms == 0):
        raise ValueError("deltas must have no zero row (the cosine of a zero update is undefined)")
    u = deltas / norms[:, None]
    return np.einsum("ij,ij->i", u[:-1], u[1:])


def sign_changes(deltas) -> np.ndarray:
    """Per coordinate, the number of t in [0, T-1) with sign(Delta_{t+1}) != sign(Delta_t)."""
    deltas = check_array("deltas", deltas, ndim=2)
    if deltas.shape[0] < 2:
        raise ValueError(f"deltas must have at least 2 rows (updates); got shape {deltas.shape}")
    s = np.sign(deltas)
    return (s[1:] != s[:-1]).sum(axis=0)


def ergodic_cosine_mean(c, omega, *, samples: int = 100_000, seed=0) -> tuple[float, float]:
    """The phase average E_phi[F(phi)] of F(phi) = sum_j c_j^2 sin phi_j sin(phi_j + omega_j) /
    sqrt(sum_j c_j^2 sin^2 phi_j sum_j c_j^2 sin^2(phi_j + omega_j)), phi_j independent uniform on [0, 2 pi): the time
    mean of the consecutive-update cosine of Delta_tj = c_j beta^{t/2} sin((t+1) omega_j) when the omega_j are
    rationally independent (Weyl equidistribution of (t+1) omega mod 2 pi; the common factor beta^{t/2} cancels, and so
    does the sqrt(beta) between t and t+1).  Monte Carlo over ``samples`` phase vectors: returns (mean, s.e.)."""
    c = check_array("c", c, ndim=1)
    omega = check_array("omega", omega, shape=(c.size,))
    samples = check_int("samples", samples, low=2, high=10**8)
    check_budget("the phase samples", samples * c.size, samples=samples, d=c.size)
    rng = as_generator(seed)
    w = c ** 2
    total, total2, done = 0.0, 0.0, 0
    while done < samples:
        m = min(20_000, samples - done)
        phi = rng.uniform(0.0, 2 * np.pi, size=(m, c.size))
        a, b = np.sin(phi), np.sin(phi + omega)
        f = (w * a * b).sum(1) / np.sqrt((w * a * a).sum(1) * (w * b * b).sum(1))
        total, total2, done = total + f.sum(), total2 + (f * f).sum(), done + m
    mean = total / samples
    var = max(total2 / samples - mean ** 2, 0.0) * samples / (samples - 1)
    return float(mean), float(np.sqrt(var / samples))


def trajectory_map(thetas) -> tuple[np.ndarray, float]:
    """C_{ij} = cos(theta_i, theta_j) over the rows of ``thetas`` (checkpoints or updates), and the mean directional
    similarity, the mean of the off-diagonal entries."""
    thetas = check_array("thetas", thetas, ndim=2)
    if thetas.shape[0] < 2 or thetas.shape[0] > 10_000:
        raise ValueError(f"thetas must have between 2 and 10000 rows; got shape {thetas.shape}")
    norms = np.linalg.norm(thetas, axis=1)
    if np.any(norms == 0):
        raise ValueError("thetas must have no zero row (the cosine of a zero vector is undefined)")
    u = thetas / norms[:, None]
    C = u @ u.T
    k = C.shape[0]
    return C, float((C.sum() - np.trace(C)) / (k * (k - 1)))


def mlp_trajectory(data: Mixture, *, depth: int = 2, width: int = 32, lr: float = 0.05, beta: float = 0.9,
                   weight_decay: float = 0.0, batch: int = 50, steps: int = 1000, every: int = 50, seed=0) -> dict:
    """Train a ReLU MLP (theorylab.finite_sum.mlp: He initialisation, cross-entropy) by SGD with momentum ``beta`` and
    coupled weight decay: v <- beta v + g + wd theta, theta <- theta - lr v (mini-batches of ``batch`` drawn without
    replacement per step).  Returns the checkpoints theta_t - theta_0 every ``every`` steps (rows), their trajectory map
    and mean directional similarity, and the final full-batch loss."""
    if not isinstance(data, Mixture):
        raise TypeError(f"data must be a Mixture (from theorylab.finite_sum.gaussian_mixture); got {type(data).__name__}")
    depth = check_int("depth", depth, low=1, high=8)
    width = check_int("width", width, low=1, high=1024)
    lr = check_positive("lr", lr)
    beta = check_real("beta", beta, low=0.0, high=1.0, high_open=True)
    weight_decay = check_real("weight_decay", weight_decay, low=0.0, high=1e3)
    n = data.X.shape[0]
    batch = check_int("batch", batch, low=1, high=n)
    steps = check_int("steps", steps, low=2, high=10**6)
    every = check_int("every", every, low=1, high=steps // 2)
    check_budget("the training run", steps * batch * width * depth * max(data.X.shape[1], data.classes),
                 max_elements=10**10, unit="flops", steps=steps, batch=batch, width=width)
    with blas_threads(1):
        return _mlp_trajectory(data, depth, width, lr, beta, weight_decay, batch, steps, every, seed)


def _flat(params):
    return np.concatenate([np.concatenate([W.ravel(), b]) for W, b in params])


def _mlp_trajectory(data, depth, width, lr, beta, wd, batch, steps, every, seed):
    rng = as_generator(child_seed(seed, "batches"))
    params = init_mlp(depth, data.X.shape[1], width, data.classes, seed=child_seed(seed, "init"))
    vel = [(np.zeros_like(W), np.zeros_like(b)) for W, b in params]
    theta0, checkpoints = _flat(params), []
    for t in range(steps):
        idx = rng.choice(data.X.shape[0], batch, replace=False)
        _, g = mlp_loss_grad(params, data.X[idx], data.y[idx])
        vel = [(beta * vW + gW + wd * W, beta * vb + gb + wd * b) for (vW, vb), (gW, gb), (W, b) in zip(vel, g, params)]
        params = [(W - lr * vW, b - lr * vb) for (W, b), (vW, vb) in zip(params, vel)]
        if (t + 1) % every == 0:
            checkpoints.append(_flat(params) - theta0)
    ck = np.array(checkpoints)
    if not np.all(np.isfinite(ck)):
        raise SimulationDiverged(f"training diverged (lr = {lr}, beta = {beta}, weight_decay = {wd})")
    C, mds = trajectory_map(ck)
    return {"checkpoints": ck, "map": C, "mds": mds, "loss": mlp_loss_grad(params, data.X, data.y)[0]}
