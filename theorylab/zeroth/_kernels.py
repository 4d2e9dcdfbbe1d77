"""Jitted kernels of theorylab.zeroth: the test-function zoo and the batched two-point estimators.

No input checking here (the Python layer in oracles.py / estimators.py validates).  A test function
is a pair ``(kind, p)``: an integer code and one flat float64 parameter vector whose layout is
documented per kind below; the dimension is ``x.size``.

Perturbation laws (codes ``LAW_*``) and the estimators follow the authors' code
(mshaocong/dap-zoo-optimization, Synthetic-Experiments.ipynb: GradEstimator.estimate,
proj_multiple, get_optimal); see estimators.py for the formulas and citations.
"""

import numpy as np
from numba import njit, prange

from theorylab.core.rng import below, normal, seed_state, uniform

# ----------------------------------------------------------------------------- function codes
QUADRATIC, PRODUCT, ROSENBROCK, LOGISTIC, SADDLE, DIAG_QUADRATIC = 0, 1, 2, 3, 4, 5
# value noise codes
NOISE_NONE, NOISE_BOUNDED, NOISE_GAUSSIAN = 0, 1, 2
# perturbation laws
LAW_GAUSSIAN, LAW_SPHERE, LAW_RADEMACHER, LAW_COORDINATE, LAW_DAP, LAW_OPTIMAL, LAW_DAP_ESTIMATED = 0, 1, 2, 3, 4, 5, 6
# finite-difference schemes
CENTRAL, FORWARD = 0, 1


@njit(cache=True)
def f_value(kind, p, x):
    """f(x) for the zoo member ``kind`` with parameters ``p``.

    QUADRATIC  p = [c (d), A (d*d, row-major)]:  f = 1/2 (x - c)^T A (x - c)
    PRODUCT    p = []:                           f = prod_i x_i
    ROSENBROCK p = [a, b]:                       f = sum_{i<d-1} b (x_{i+1} - x_i^2)^2 + (a - x_i)^2
    LOGISTIC   p = [n, lam, Z (n*d)]:            f = 1/n sum_j log(1 + exp(-z_j . x)) + lam/2 |x|^2,
                                                 z_j = y_j a_j (label times features)
    SADDLE     p = [q, h (d)]:                   f = 1/2 sum_i h_i x_i^2 + q/4 sum_i x_i^4
    DIAG_QUADRATIC p = [c (d), lam (d)]:         f = 1/2 sum_i lam_i (x_i - c_i)^2
    """
    d = x.size
    if kind == DIAG_QUADRATIC:
        s = 0.0
        for i in range(d):
            r = x[i] - p[i]
            s += p[d + i] * r * r
        return 0.5 * s
    if kind == QUADRATIC:
        s = 0.0
        for i in range(d):
            ri = x[i] - p[i]
            t = 0.0
            for j in range(d):
                t += p[d + i * d + j] * (x[j] - p[j])
            s += ri * t
        return 0.5 * s
    if kind == PRODUCT:
        s = 1.0
        for i in range(d):
            s *= x[i]
        return s
    if kind == ROSENBROCK:
        a, b = p[0], p[1]
        s = 0.0
        for i in range(d - 1):
            u = x[i + 1] - x[i] * x[i]
            w = a - x[i]
            s += b * u * u + w * w
        return s
    if kind == LOGISTIC:
        n = int(p[0])
        lam = p[1]
        s = 0.0
        for k in range(n):
            m = 0.0
            for i in range(d):
                m += p[2 + k * d + i] * x[i]
            # log(1 + exp(-m)) without overflow
            if m > 0:
                s += np.log1p(np.exp(-m))
            else:
                s += -m + np.log1p(np.exp(m))
        r = 0.0
        for i in range(d):
            r += x[i] * x[i]
        return s / n + 0.5 * lam * r
    # SADDLE
    q = p[0]
    s = 0.0
    for i in range(d):
        x2 = x[i] * x[i]
        s += 0.5 * p[1 + i] * x2 + 0.25 * q * x2 * x2
    return s


@njit(cache=True)
def f_grad(kind, p, x, out):
    """grad f(x) into ``out`` (same layouts as :func:`f_value`)."""
    d = x.size
    if kind == DIAG_QUADRATIC:
        for i in range(d):
            out[i] = p[d + i] * (x[i] - p[i])
    elif kind == QUADRATIC:
        for i in range(d):
            t = 0.0
            for j in range(d):
                t += p[d + i * d + j] * (x[j] - p[j])
            out[i] = t
    elif kind == PRODUCT:
        # prod_{j != i} x_j by prefix and suffix products (exact with zeros)
        acc = 1.0
        for i in range(d):
            out[i] = acc
            acc *= x[i]
        acc = 1.0
        for i in range(d - 1, -1, -1):
            out[i] *= acc
            acc *= x[i]
    elif kind == ROSENBROCK:
        a, b = p[0], p[1]
        for i in range(d):
            out[i] = 0.0
        for i in range(d - 1):
            u = x[i + 1] - x[i] * x[i]
            out[i] += -4.0 * b * x[i] * u - 2.0 * (a - x[i])
            out[i + 1] += 2.0 * b * u
    elif kind == LOGISTIC:
        n = int(p[0])
        lam = p[1]
        for i in range(d):
            out[i] = lam * x[i]
        for k in range(n):
            m = 0.0
            for i in range(d):
                m += p[2 + k * d + i] * x[i]
            # d/dm log(1 + exp(-m)) = -1 / (1 + exp(m))
            if m > 0:
                e = np.exp(-m)
                w = -e / (1.0 + e)
            else:
                w = -1.0 / (1.0 + np.exp(m))
            for i in range(d):
                out[i] += w * p[2 + k * d + i] / n
    else:
        q = p[0]
        for i in range(d):
            out[i] = p[1 + i] * x[i] + q * x[i] * x[i] * x[i]


@njit(cache=True)
def f_values(kind, p, X):
    """f at each row of ``X`` (m, d)."""
    m = X.shape[0]
    out = np.empty(m)
    for r in range(m):
        out[r] = f_value(kind, p, X[r])
    return out


@njit(cache=True)
def f_grads(kind, p, X):
    """grad f at each row of ``X`` (m, d)."""
    out = np.empty_like(X)
    for r in range(X.shape[0]):
        f_grad(kind, p, X[r], out[r])
    return out


@njit(cache=True)
def noisy_value(kind, p, x, noise, level, state):
    """One oracle query: f(x) plus bounded (uniform on [-level, level]) or Gaussian (sd level) noise."""
    v = f_value(kind, p, x)
    if noise == NOISE_BOUNDED:
        v += level * (2.0 * uniform(state) - 1.0)
    elif noise == NOISE_GAUSSIAN:
        v += level * normal(state)
    return v


# ----------------------------------------------------------------------------- perturbation laws

@njit(cache=True)
def draw_direction(law, a_hat, scale, state, v):
    """One perturbation v into ``v`` (see estimators.py for the laws; ``a_hat`` is a unit vector,
    used by LAW_DAP and LAW_OPTIMAL only; ``scale`` is the radius sqrt(d) of the constant-norm laws)."""
    d = v.size
    if law == LAW_GAUSSIAN:
        for i in range(d):
            v[i] = normal(state)
    elif law == LAW_SPHERE:
        s = 0.0
        for i in range(d):
            v[i] = normal(state)
            s += v[i] * v[i]
        c = scale / np.sqrt(s)
        for i in range(d):
            v[i] *= c
    elif law == LAW_RADEMACHER:
        for i in range(d):
            v[i] = 1.0 if uniform(state) < 0.5 else -1.0
    elif law == LAW_COORDINATE:
        for i in range(d):
            v[i] = 0.0
        v[below(state, d)] = scale
    elif law == LAW_DAP:
        # v = (I - a a^T) X + xi a, X ~ N(0, I), xi = +-1 (authors' proj_multiple)
        dot = 0.0
        for i in range(d):
            v[i] = normal(state)
            dot += a_hat[i] * v[i]
        xi = 1.0 if uniform(state) < 0.5 else -1.0
        for i in range(d):
            v[i] += (xi - dot) * a_hat[i]
    else:
        # LAW_OPTIMAL: w = P p / |P p|, v = xi sqrt(d) (sqrt(1 - 1/d) w + a / sqrt(d)) (authors' get_optimal)
        dot = 0.0
        for i in range(d):
            v[i] = normal(state)
            dot += a_hat[i] * v[i]
        nw = 0.0
        for i in range(d):
            v[i] -= dot * a_hat[i]
            nw += v[i] * v[i]
        nw = np.sqrt(nw)
        xi = 1.0 if uniform(state) < 0.5 else -1.0
        cw = np.sqrt(1.0 - 1.0 / d) / nw if nw > 0 else 0.0
        ca = 1.0 / np.sqrt(d)
        for i in range(d):
            v[i] = xi * scale * (cw * v[i] + ca * a_hat[i])


@njit(cache=True)
def sample_directions(law, a_hat, scale, seeds, out):
    """Row r of ``out`` (n, d): one direction drawn with the state seeded by ``seeds[r]``."""
    state = np.empty(4, dtype=np.uint64)
    for r in range(out.shape[0]):
        seed_state(seeds[r], state)
        draw_direction(law, a_hat, scale, state, out[r])


@njit(cache=True)
def _accumulate(kind, p, x, law, a_hat, scale, b, delta, scheme, f0, noise, level, state, v, xp, g):
    """g <- (1/b) sum_j c_j v_j, c_j the central or forward difference quotient along v_j.

    One call site per query kind on purpose: LLVM inlines f_value at every call site, and the
    compile time grows with the number of copies."""
    d = x.size
    for i in range(d):
        g[i] = 0.0
    n_pts = 2 if scheme == CENTRAL else 1
    for _ in range(b):
        draw_direction(law, a_hat, scale, state, v)
        c = 0.0
        for k in range(n_pts):
            sgn = 1.0 if k == 0 else -1.0
            for i in range(d):
                xp[i] = x[i] + sgn * delta * v[i]
            c += sgn * noisy_value(kind, p, xp, noise, level, state)
        if scheme == CENTRAL:
            c /= 2.0 * delta
        else:
            c = (c - f0) / delta
        for i in range(d):
            g[i] += c * v[i]
    for i in range(d):
        g[i] /= b


@njit(cache=True)
def estimate_once(kind, p, x, law, a_hat, scale, b, delta, scheme, noise, level, state, v, xp, g1, g):
    """One gradient estimate into ``g``; LAW_DAP_ESTIMATED runs b sphere directions, then b DAP
    directions around the first estimate, and returns the average of the two (authors' "empirical_grad")."""
    d = x.size
    f0 = 0.0
    if scheme == FORWARD:
        f0 = noisy_value(kind, p, x, noise, level, state)
    two_stage = law == LAW_DAP_ESTIMATED
    sq = np.sqrt(float(d))
    ah = a_hat
    for stage in range(2 if two_stage else 1):
        lw, sc, out = law, scale, g
        if two_stage:
            if stage == 0:
                lw, sc, out = LAW_SPHERE, sq, g1
            else:
                nrm = np.sqrt(np.sum(g1 * g1))
                if nrm > 0:
                    lw, ah = LAW_DAP, g1 / nrm
                else:  # a zero first estimate gives no direction: the second stage falls back to the sphere
                    lw = LAW_SPHERE
                sc = sq
        _accumulate(kind, p, x, lw, ah, sc, b, delta, scheme, f0, noise, level, state, v, xp, out)
    if two_stage:
        for i in range(d):
            g[i] = 0.5 * (g[i] + g1[i])


@njit(cache=True)
def estimate_trials(kind, p, x, law, a_hat, scale, b, delta, scheme, noise, level, seeds, out):
    """Row t of ``out`` (trials, d): an independent estimate at x with the state seeded by ``seeds[t]``."""
    d = x.size
    for t in range(out.shape[0]):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[t], state)
        v = np.empty(d)
        xp = np.empty(d)
        g1 = np.empty(d)
        estimate_once(kind, p, x, law, a_hat, scale, b, delta, scheme, noise, level, state, v, xp, g1, out[t])


@njit(cache=True, parallel=True)
def estimate_trials_parallel(kind, p, x, law, a_hat, scale, b, delta, scheme, noise, level, seeds, out):
    """As :func:`estimate_trials`, threads over trials (same numbers: one state per trial). Row t of ``out`` (trials, d): an independent estimate at x with the state seeded by ``seeds[t]``."""
    d = x.size
    for t in prange(out.shape[0]):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[t], state)
        v = np.empty(d)
        xp = np.empty(d)
        g1 = np.empty(d)
        estimate_once(kind, p, x, law, a_hat, scale, b, delta, scheme, noise, level, state, v, xp, g1, out[t])


@njit(cache=True)
def zo_sgd_paths(kind, p, x0, law, scale, b, delta, scheme, noise, level, step, n_iter, record_every, seeds,
                 out_f, out_x):
    """ZO-SGD x_{t+1} = x_t - step g_t per path; out_f[m, k] = exact f(x_{k record_every}), out_x the final x.

    For LAW_DAP / LAW_OPTIMAL the direction a is the exact gradient at x_t (zero gradient: sphere)."""
    d = x0.size
    for m in range(out_f.shape[0]):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[m], state)
        x = x0.copy()
        v = np.empty(d)
        xp = np.empty(d)
        g1 = np.empty(d)
        g = np.empty(d)
        ah = np.zeros(d)
        k = 0
        for t in range(n_iter + 1):
            if t % record_every == 0:
                out_f[m, k] = f_value(kind, p, x)
                k += 1
            if t == n_iter:
                break
            lw = law
            sc = scale
            if law == LAW_DAP or law == LAW_OPTIMAL:
                f_grad(kind, p, x, ah)
                nrm = np.sqrt(np.sum(ah * ah))
                if nrm > 0:
                    for i in range(d):
                        ah[i] /= nrm
                else:
                    lw = LAW_SPHERE
                    sc = np.sqrt(float(d))
            estimate_once(kind, p, x, lw, ah, sc, b, delta, scheme, noise, level, state, v, xp, g1, g)
            for i in range(d):
                x[i] -= step * g[i]
        for i in range(d):
            out_x[m, i] = x[i]
