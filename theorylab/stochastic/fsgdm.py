"""Momentum as a linear filter and FSGDM's stage-wise momentum: the simulator of paper ``fsgdm``.

X. Li, Y. Luo, Z. Zheng, ... , Z. Xu, "On the Performance Analysis of Momentum Method: A Frequency Domain
Perspective", ICLR 2025 (arXiv:2411.19671).  FSGDM's update as in the authors' optimiser (GitHub
yinleung/FSGDM, restated in the spec; defaults lr 0.1, c 0.033, v 1, N 300 stages, Sigma 117000 steps):

    delta = Sigma // N,  s = (step // delta) delta,  mu = c Sigma,  u = s / (s + mu)      (step = 1, 2, ...)
    m <- g (first call),  else m <- u m + v g;      theta <- theta - lr m.

Within a stage the momentum is the LTI filter H(z) = v / (1 - u z^-1) [derived]: |H(e^{iw})|^2 =
v^2 / (1 - 2u cos w + u^2), DC gain H(1) = v / (1 - u) = v (s + mu) / mu, Nyquist gain v / (1 + u).

API: :func:`stage_schedule` (jitted, the code's formula) and :func:`stage_schedule_reference` (an independent
stage-by-stage construction), :func:`transfer_power` (numpy) and :func:`transfer_power_sympy` (the exact
symbolic |H|^2), :func:`dc_gain`, :func:`filtered_noise` (white noise through one stage),
:func:`band_periodogram` (Hann-windowed segment periodograms averaged in frequency bands),
:func:`run_momentum_quadratic` / :func:`run_momentum_quadratic_numpy` (FSGDM or a filter with the same DC gain
at every step, on a noisy diagonal quadratic, many seeds).

Example::

    from theorylab.stochastic.fsgdm import stage_schedule, dc_gain
    u = stage_schedule(sigma=117000, n_stages=300, c=0.033)    # u[t - 1] at step t
    dc_gain(u[-1], v=1.0)                                      # 1 + 1/c = 31.3
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from theorylab.core.parallel import map_blocks
from theorylab.core.seeding import as_generator, spawn_seeds
from theorylab.core.validate import (SimulationDiverged, check_array, check_budget, check_choice, check_int,
                                     check_real, check_size)
from theorylab.stochastic import _kernels_fsgdm as K

__all__ = ["stage_schedule", "stage_schedule_reference", "transfer_power", "transfer_power_sympy", "dc_gain",
           "dc_gain_exact", "filtered_noise", "band_periodogram", "run_momentum_quadratic",
           "run_momentum_quadratic_numpy", "METHODS"]

METHODS = ("fsgdm", "matched")
#: n_runs * n_steps * d element-steps of one call (about 1e8 per second per core).
MAX_WORK = 2 * 10**9
MAX_WORK_NUMPY = 10**8
MAX_STEPS = 10**8


def _schedule_args(sigma, n_stages, c):
    sigma = check_size("sigma", sigma, budget=MAX_STEPS)
    n_stages = check_int("n_stages", n_stages, low=1, high=sigma)
    c = check_real("c", c, low=0.0, low_open=True, high=1e6)
    return sigma, n_stages, c, sigma // n_stages, c * sigma


def stage_schedule(sigma: int = 117_000, n_stages: int = 300, c: float = 0.033) -> np.ndarray:
    """u[t - 1] for steps t = 1..sigma, by the optimiser's formula (jitted kernel)."""
    sigma, n_stages, c, delta, mu = _schedule_args(sigma, n_stages, c)
    out = np.empty(sigma)
    K.u_schedule(sigma, delta, mu, out)
    return out


def stage_schedule_reference(sigma: int = 117_000, n_stages: int = 300, c: float = 0.033):
    """Independent construction: stage k = 0, 1, ... covers steps [k delta, (k + 1) delta) intersected with
    [1, sigma] and has u_k = k delta / (k delta + c sigma).  Returns (u per step, stage values u_k, stage
    lengths)."""
    sigma, n_stages, c, delta, mu = _schedule_args(sigma, n_stages, c)
    k_last = sigma // delta
    starts = np.maximum(np.arange(k_last + 1) * delta, 1)
    ends = np.minimum((np.arange(k_last + 1) + 1) * delta - 1, sigma)
    lengths = ends - starts + 1
    s = np.arange(k_last + 1, dtype=float) * delta
    u_k = s / (s + mu)
    return np.repeat(u_k, lengths), u_k, lengths


def _u_v(u, v):
    u = check_real("u", u, low=-1.0, high=1.0, low_open=True, high_open=True)
    v = check_real("v", v, low=0.0, low_open=True, high=1e6)
    return u, v


def transfer_power(omega, u: float, v: float = 1.0) -> np.ndarray:
    """|H(e^{i omega})|^2 = v^2 / (1 - 2 u cos omega + u^2) of m_t = u m_{t-1} + v g_t [derived]."""
    u, v = _u_v(u, v)
    omega = check_array("omega", np.atleast_1d(check_array("omega", omega)), ndim=1)
    return v * v / (1.0 - 2.0 * u * np.cos(omega) + u * u)


def transfer_power_sympy():
    """(expr, (u, v, omega)): |H|^2 computed by sympy from H(z) = v / (1 - u z^-1) at z = e^{i omega}."""
    import sympy as sp

    u, v, w = sp.symbols("u v omega", real=True)
    z = sp.exp(sp.I * w)
    H = v / (1 - u / z)
    return sp.simplify(sp.expand_complex(H * sp.conjugate(H))), (u, v, w)


def dc_gain(u: float, v: float = 1.0) -> float:
    """H(1) = v / (1 - u)."""
    u, v = _u_v(u, v)
    return v / (1.0 - u)


def _rational(name, value):
    """A positive exact rational from an int, Fraction or finite float (refusing anything else)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, Fraction, float, np.floating)):
        raise TypeError(f"{name} must be a positive int, Fraction or float; got {value!r}"[:200])
    if isinstance(value, (float, np.floating)):
        check_real(name, value, low=0.0, low_open=True, high=1e12)
    q = Fraction(value)
    if q <= 0 or q > 10**12:
        raise ValueError(f"{name} must be a rational in (0, 1e12]; got {value!r}")
    return q


def dc_gain_exact(k: int, delta: int, mu, v=1):
    """Exact rationals (H(1) = v/(1 - u_k), v (s + mu)/mu) at stage k, s = k delta [derived]; mu a Fraction."""
    k = check_int("k", k, low=0, high=10**12)
    delta = check_int("delta", delta, low=1, high=10**12)
    mu, v = _rational("mu", mu), _rational("v", v)
    s = Fraction(k * delta)
    u = s / (s + mu)
    return v / (1 - u), v * (s + mu) / mu


def filtered_noise(u: float, v: float = 1.0, *, n: int = 4096, n_runs: int = 16, burn: int | None = None,
                   seed=0) -> np.ndarray:
    """(n_runs, n) array: independent white N(0, 1) sequences through one stage m_t = u m_{t-1} + v g_t, after
    ``burn`` discarded steps (default: until u^burn < 1e-12, so the output is stationary)."""
    u, v = _u_v(u, v)
    n = check_size("n", n)
    n_runs = check_size("n_runs", n_runs)
    check_budget("the filtered-noise array", n * n_runs, n=n, n_runs=n_runs)
    if burn is None:
        burn = 0 if u == 0 else int(np.ceil(np.log(1e-12) / np.log(abs(u))))
    burn = check_int("burn", burn, low=0, high=MAX_STEPS)
    out = np.empty((n_runs, n))
    K.filter_noise(u, v, burn, spawn_seeds(seed, n_runs), out)
    return out


def band_periodogram(x, *, seglen: int = 4096, n_bands: int = 64):
    """Per run (row of x), the Hann-windowed periodogram of its segments of length ``seglen`` (normalised so
    that white noise of variance s^2 has level s^2), averaged over segments and over the Fourier bins of
    ``n_bands`` equal bands of (0, pi).  Returns (band centres, (runs, n_bands) band powers, the Fourier
    frequencies of each band as a list)."""
    x = check_array("x", x, ndim=2)
    seglen = check_int("seglen", seglen, low=2 * 1, high=x.shape[1])
    n_bands = check_int("n_bands", n_bands, low=1, high=seglen // 2 - 1)
    n_seg = x.shape[1] // seglen
    w = np.hanning(seglen)
    segs = x[:, : n_seg * seglen].reshape(x.shape[0], n_seg, seglen) * w
    P = (np.abs(np.fft.rfft(segs, axis=2)) ** 2).mean(1) / np.sum(w * w)    # (runs, seglen // 2 + 1)
    k = np.arange(1, seglen // 2)                                            # drop DC and Nyquist bins
    edges = np.linspace(0, k.size, n_bands + 1).astype(int)
    bins = [k[edges[j]:edges[j + 1]] for j in range(n_bands)]
    bp = np.stack([P[:, b].mean(1) for b in bins], axis=1)
    omegas = [2 * np.pi * b / seglen for b in bins]
    centres = np.array([o.mean() for o in omegas])
    return centres, bp, omegas


def _quad_args(lam, theta0, lr, noise, wd, sigma, n_stages, c, v, method, u_fixed, n_runs):
    lam = check_array("lam", lam, ndim=1)
    if lam.size == 0 or np.any(lam <= 0):
        raise ValueError("lam must be a non-empty 1-d array of positive eigenvalues; got "
                         f"{'an empty array' if lam.size == 0 else f'min {lam.min()!r}'}")
    check_size("lam (its length d)", lam.size, budget=10**6)
    theta0 = check_array("theta0", np.atleast_1d(check_array("theta0", theta0)), shape=lam.shape)
    if np.abs(theta0).max() > 1e100:
        raise ValueError(f"theta0 must be within 1e100 of 0; got max |theta0| = {np.abs(theta0).max():.3g}")
    lr = check_real("lr", lr, low=0.0, low_open=True, high=1e3)
    noise = check_real("noise", noise, low=0.0, high=1e6)
    wd = check_real("wd", wd, low=0.0, high=1e3)
    sigma, n_stages, c, delta, mu = _schedule_args(sigma, n_stages, c)
    v = check_real("v", v, low=0.0, low_open=True, high=1e6)
    method = check_choice("method", method, METHODS)
    u_fixed = check_real("u_fixed", u_fixed, low=-1.0, high=1.0, low_open=True, high_open=True)
    n_runs = check_size("n_runs", n_runs)
    return lam, theta0, lr, noise, wd, sigma, delta, mu, v, method, u_fixed, n_runs


def _finish(curve, what):
    if not np.all(np.isfinite(curve)) or curve.max() > 1e150:
        raise SimulationDiverged(f"{what}: the loss overflowed (the effective step lr * v / (1 - u) is too large for "
                                 "lam + wd, or the noise too large; "
                                 f"max loss {np.nanmax(np.where(np.isfinite(curve), curve, np.nan)):.3g})")
    return curve


def run_momentum_quadratic(lam, theta0, *, lr: float = 0.02, noise: float = 0.1, wd: float = 0.0,
                           sigma: int = 11_700, n_stages: int = 30, c: float = 0.033, v: float = 1.0,
                           method: str = "fsgdm", u_fixed: float = -0.3, n_runs: int = 16, seed=0,
                           parallel: bool = True) -> np.ndarray:
    """Loss curves f(theta_t) = 1/2 sum lam_i theta_i^2 at t = 0, delta, 2 delta, ..., sigma (delta = sigma //
    n_stages), shape (n_runs, sigma // delta + 1), of momentum SGD with gradient (lam + wd) theta + noise xi.

    ``method="fsgdm"``: FSGDM's u_t and v.  ``method="matched"``: the fixed coefficient ``u_fixed`` (u < 0: a
    high-pass filter) with v_t = v (1 - u_fixed) / (1 - u_t), so its DC gain equals FSGDM's v / (1 - u_t) at
    every step (errata: compare filters at matched effective step)."""
    if not isinstance(parallel, (bool, np.bool_)):
        raise TypeError(f"parallel must be True or False; got {parallel!r}")
    lam, theta0, lr, noise, wd, sigma, delta, mu, v, method, u_fixed, n_runs = _quad_args(
        lam, theta0, lr, noise, wd, sigma, n_stages, c, v, method, u_fixed, n_runs)
    check_budget("momentum_quadratic work", n_runs * sigma * lam.size, max_elements=MAX_WORK, unit="element-steps",
                 n_runs=n_runs, sigma=sigma, d=lam.size)
    seeds = spawn_seeds(seed, n_runs)
    curve = np.empty((n_runs, sigma // delta + 1))
    mode = K.MODE_FSGDM if method == "fsgdm" else K.MODE_MATCHED
    args = (lam, theta0, lr, noise, wd, sigma, delta, mu, v, mode, u_fixed)
    map_blocks(lambda s: K.momentum_quadratic(*args, seeds[s], curve[s]), n_runs, work=n_runs * sigma * lam.size,
               parallel=parallel)
    return _finish(curve, f"run_momentum_quadratic(method={method!r}, lr={lr}, v={v}, u_fixed={u_fixed}, "
                          f"noise={noise}, wd={wd})")


def run_momentum_quadratic_numpy(lam, theta0, *, lr: float = 0.02, noise: float = 0.1, wd: float = 0.0,
                                 sigma: int = 11_700, n_stages: int = 30, c: float = 0.033, v: float = 1.0,
                                 method: str = "fsgdm", u_fixed: float = -0.3, n_runs: int = 16,
                                 seed=0) -> np.ndarray:
    """Vectorised numpy reference of :func:`run_momentum_quadratic` (all runs at once, numpy's generator: the
    same law, not the same numbers)."""
    lam, theta0, lr, noise, wd, sigma, delta, mu, v, method, u_fixed, n_runs = _quad_args(
        lam, theta0, lr, noise, wd, sigma, n_stages, c, v, method, u_fixed, n_runs)
    check_budget("momentum_quadratic_numpy work", n_runs * sigma * lam.size, max_elements=MAX_WORK_NUMPY,
                 unit="element-steps", n_runs=n_runs, sigma=sigma, d=lam.size)
    rng = as_generator(seed)
    theta = np.tile(theta0, (n_runs, 1))
    m = np.zeros_like(theta)
    curve = np.empty((n_runs, sigma // delta + 1))
    curve[:, 0] = 0.5 * (lam * theta**2).sum(1)
    for t in range(1, sigma + 1):
        s = (t // delta) * delta
        ut = s / (s + mu)
        uu, vv = (ut, v) if method == "fsgdm" else (u_fixed, v * (1 - u_fixed) / (1 - ut))
        g = (lam + wd) * theta + noise * rng.standard_normal(theta.shape)
        m = g if t == 1 else uu * m + vv * g
        theta = theta - lr * m
        if t % delta == 0:
            curve[:, t // delta] = 0.5 * (lam * theta**2).sum(1)
    return _finish(curve, f"run_momentum_quadratic_numpy(method={method!r}, lr={lr}, v={v}, "
                                f"u_fixed={u_fixed}, noise={noise}, wd={wd})")
