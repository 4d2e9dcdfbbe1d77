"""Jitted kernels of theorylab.highdim.critical_batch (paper cbs): the exact second-moment recursion of
one-pass minibatch SGD with exponential weight averaging (EWA) on Gaussian linear regression in the
eigenbasis of H, and the stochastic one-pass SGD itself (many seeds, core.rng streams).

No input checks here: :mod:`theorylab.highdim.critical_batch` validates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from theorylab.core.rng import normal, seed_state


@njit(cache=True)
def _moment_step(lam, m, q, p, noise2, B, eta, gamma):
    """One step of the diagonal second moments m = E e^2, q = E[e_bar e], p = E e_bar^2 (in place);
    returns the excess risk sum_i lam_i p_i of the averaged iterate after the step."""
    d = lam.size
    tr = 0.0
    for i in range(d):
        tr += lam[i] * m[i]
    c = eta * eta * (tr + noise2) / B
    g1 = 1.0 - gamma
    risk = 0.0
    for i in range(d):
        li = lam[i]
        a = 1.0 - eta * li
        mn = m[i] * (1.0 - 2.0 * eta * li + eta * eta * (1.0 + 1.0 / B) * li * li) + c * li
        qo = q[i]
        p[i] = g1 * g1 * p[i] + 2.0 * gamma * g1 * a * qo + gamma * gamma * mn
        q[i] = g1 * a * qo + gamma * mn
        m[i] = mn
        risk += li * p[i]
    return risk


@njit(cache=True)
def risk_curve(lam, w2, noise2, B, eta, gamma, n_steps, rec):
    """Excess risk of the EWA iterate at the steps ``rec`` (sorted, <= n_steps), from w_0 = 0."""
    m = w2.copy()
    q = w2.copy()
    p = w2.copy()
    out = np.empty(rec.size)
    r0 = 0.0
    for i in range(lam.size):
        r0 += lam[i] * w2[i]
    j = 0
    while j < rec.size and rec[j] == 0:
        out[j] = r0
        j += 1
    for t in range(1, n_steps + 1):
        r = _moment_step(lam, m, q, p, noise2, B, eta, gamma)
        while j < rec.size and rec[j] == t:
            out[j] = r
            j += 1
    return out


@njit(cache=True)
def steps_to_target(lam, w2, noise2, B, eta, gamma, target, max_steps):
    """First (continuous) step at which the EWA excess risk reaches ``target``: linear interpolation of
    log risk between the two integer steps around the crossing; inf if not reached in ``max_steps``."""
    m = w2.copy()
    q = w2.copy()
    p = w2.copy()
    prev = 0.0
    for i in range(lam.size):
        prev += lam[i] * w2[i]
    if prev <= target:
        return 0.0
    for t in range(1, max_steps + 1):
        r = _moment_step(lam, m, q, p, noise2, B, eta, gamma)
        if not np.isfinite(r) or r > 1e12 * (prev + 1.0):
            return np.inf
        if r <= target:
            lp, lr, lt = np.log(prev), np.log(r), np.log(target)
            return t - 1.0 + (lp - lt) / (lp - lr) if lp > lr else float(t)
        prev = r
    return np.inf


@njit(cache=True)
def steps_grid(lam, w2, noise2, Bs, etas, gammas, target, max_steps, out):
    """out[k, j] = steps_to_target at batch Bs[k], learning rate etas[k, j], EWA rate gammas[k]; a run stops at
    the best count so far at that batch (then inf), which leaves the minimum over j unchanged."""
    for k in range(Bs.size):
        cap = max_steps[k]
        for j in range(etas.shape[1]):
            out[k, j] = steps_to_target(lam, w2, noise2, Bs[k], etas[k, j], gammas[k], target, cap)
            if out[k, j] < cap:
                cap = int(np.ceil(out[k, j]))


@njit(cache=True)
def final_risks(lam, w2, noise2, B, etas, gamma, n_steps, out):
    """out[j] = EWA excess risk after n_steps at learning rate etas[j]."""
    rec = np.array([n_steps])
    for j in range(etas.size):
        out[j] = risk_curve(lam, w2, noise2, B, etas[j], gamma, n_steps, rec)[0]


@njit(cache=True, nogil=True)
def sgd_paths(sqrt_lam, wstar, noise, B, eta, gamma, n_steps, rec, seeds, out):
    """One-pass minibatch SGD on y = <w*, x> + noise xi, x ~ N(0, diag(lam)) (coordinates in the eigenbasis),
    w_0 = 0, fresh samples every step, EWA w_bar <- (1 - gamma) w_bar + gamma w; out[s, j] = exact excess
    risk sum_i lam_i (w_bar_i - w*_i)^2 at step rec[j] of path s (seeded by seeds[s])."""
    d = sqrt_lam.size
    state = np.empty(4, dtype=np.uint64)
    x = np.empty(d)
    g = np.empty(d)
    for s in range(seeds.size):
        seed_state(seeds[s], state)
        e = -wstar.copy()
        eb = -wstar.copy()
        j = 0
        while j < rec.size and rec[j] == 0:
            r = 0.0
            for i in range(d):
                r += sqrt_lam[i] * sqrt_lam[i] * eb[i] * eb[i]
            out[s, j] = r
            j += 1
        for t in range(1, n_steps + 1):
            for i in range(d):
                g[i] = 0.0
            for b in range(B):
                res = 0.0
                for i in range(d):
                    x[i] = sqrt_lam[i] * normal(state)
                    res += x[i] * e[i]
                res -= noise * normal(state)
                for i in range(d):
                    g[i] += res * x[i]
            for i in range(d):
                e[i] -= eta * g[i] / B
                eb[i] = (1.0 - gamma) * eb[i] + gamma * e[i]
            while j < rec.size and rec[j] == t:
                r = 0.0
                for i in range(d):
                    r += sqrt_lam[i] * sqrt_lam[i] * eb[i] * eb[i]
                out[s, j] = r
                j += 1
