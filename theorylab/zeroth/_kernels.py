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

from theorylab.core._rng import below, normal, seed_state, uniform

# ----------------------------------------------------------------------------- function codes
QUADRATIC, PRODUCT, ROSENBROCK, LOGISTIC, SADDLE = 0, 1, 2, 3, 4
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
    """
    d = x.size
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
    if kind == QUADRATIC:
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
