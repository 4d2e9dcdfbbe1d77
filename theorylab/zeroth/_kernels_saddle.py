"""Jitted kernel: perturbed gradient descent (PGD) with an inexact oracle over many independent runs.

The algorithm is PGD of Jin, Ge, Netrapalli, Kakade & Jordan (2017, "How to Escape Saddle Points
Efficiently", arXiv:1703.00887, Algorithm 2), run with an inexact oracle as in Gong, Zhang & Li (ICLR 2025,
arXiv:2212.02548, the classical part):

    for t = 0, 1, ...:
        if ||g~(x_t)|| <= g_thres and t - t_noise > t_thres:      # perturb
            x~ <- x_t, t_noise <- t, x_t <- x~ + xi,  xi ~ Uniform(B(0, r))
        if t - t_noise == t_thres and f~(x_t) - f~(x~) > -f_thres:  # no decrease after the perturbation
            return x~
        x_{t+1} <- x_t - eta g~(x_t)

Objective (separable, the zoo's strict saddle, kind "saddle" of theorylab.zeroth.oracles):
    f(x) = sum_i phi_i(x_i),  phi_i(u) = hv_i u^2 / 2 + q u^4 / 4,
the coordinates with hv_i < 0 spanning the negative-curvature (escape) directions of the saddle at 0.

Oracles (``oracle``):
  ORACLE_GRADIENT  g~ = grad f + e,  ||e|| <= nu;  f~ = f (the termination test uses the exact value)
  ORACLE_VALUE     f~ = f + n,  |n| <= nu;  g~_i = (f~(x + h e_i) - f~(x - h e_i)) / (2h)  (2d queries);
                   each query's f(y) is evaluated as S - phi_i(x_i) + phi_i(y_i) (separability, O(1) per query)
Noise (``noise``):
  NOISE_ADVERSARIAL  gradient: e = -min(1, nu / ||P grad f||) P grad f, P the projection on the escape
                     coordinates (the oracle cancels the escape component up to norm nu);
                     value: n(y) = clip(-sum_{escape i} phi_i(y_i), 0, 2 nu) - nu, which flattens f~ along
                     the escape coordinates wherever the saddle's dip is shallower than 2 nu and shifts it by
                     -nu elsewhere (|n| <= nu: the whole admissible range; central differences do not see the
                     constant shift)
  NOISE_RANDOM       gradient: e ~ Uniform(B(0, nu));  value: n ~ Uniform[-nu, nu] independently per query

No input checking here (theorylab.zeroth.saddle validates).  One serial function with everything inline
(the compile stays a few seconds); every run owns a xoshiro256** state seeded from its entry of ``seeds``,
so run m gives the same numbers whatever the batch it is in, and the adversarial runs draw random numbers
only for the perturbations (common random numbers across noise levels).
"""

import numpy as np
from numba import njit

from ..core.rng import normal, seed_state, uniform

ORACLE_GRADIENT = 0
ORACLE_VALUE = 1
NOISE_NONE = 0
NOISE_ADVERSARIAL = 1
NOISE_RANDOM = 2

#: columns of ``info``
INFO_ITERATIONS, INFO_PERTURBATIONS, INFO_TERMINATED, INFO_QUERIES, INFO_DIVERGED = 0, 1, 2, 3, 4


@njit(cache=True)
def _phi(hi, q, u):
    """One coordinate's part phi_i(u) = hv_i u^2/2 + q u^4/4 of f."""
    u2 = u * u
    return 0.5 * hi * u2 + 0.25 * q * u2 * u2


@njit(cache=True)
def _value(hv, q, x, oracle, noise, num, state):
    """f~(x): one value query (the exact f for the gradient oracle, whose noise acts on gradients only)."""
    fx = 0.0
    sneg = 0.0
    for i in range(x.size):
        p = _phi(hv[i], q, x[i])
        fx += p
        if hv[i] < 0.0:
            sneg += p
    if oracle == ORACLE_VALUE:
        if noise == NOISE_ADVERSARIAL:
            fx += min(max(-sneg, 0.0), 2.0 * num) - num
        elif noise == NOISE_RANDOM:
            fx += num * (2.0 * uniform(state) - 1.0)
    return fx


@njit(cache=True)
def _ball(z, radius, state):
    """z <- a uniform draw from the ball B(0, radius) (direction from normals, radius U^(1/d))."""
    d = z.size
    nz = 0.0
    for i in range(d):
        z[i] = normal(state)
        nz += z[i] * z[i]
    c = radius * uniform(state) ** (1.0 / d) / np.sqrt(nz)
    for i in range(d):
        z[i] *= c


@njit(cache=True)
def _gradient(hv, q, oracle, noise, num, h, x, g, z, state):
    """g <- g~(x); returns the number of oracle queries (1 gradient, or 2d function values)."""
    d = x.size
    if oracle == ORACLE_GRADIENT:
        sneg = 0.0
        for i in range(d):
            g[i] = hv[i] * x[i] + q * x[i] * x[i] * x[i]
            if hv[i] < 0.0:
                sneg += g[i] * g[i]
        if noise == NOISE_ADVERSARIAL and sneg > 0.0:
            c = num / np.sqrt(sneg)
            if c > 1.0:
                c = 1.0
            for i in range(d):
                if hv[i] < 0.0:
                    g[i] -= c * g[i]
        elif noise == NOISE_RANDOM and num > 0.0:
            _ball(z, num, state)
            for i in range(d):
                g[i] += z[i]
        return 1
    S = 0.0
    sneg = 0.0
    for i in range(d):
        p = _phi(hv[i], q, x[i])
        S += p
        if hv[i] < 0.0:
            sneg += p
    for i in range(d):
        p0 = _phi(hv[i], q, x[i])
        pu = _phi(hv[i], q, x[i] + h)
        pd = _phi(hv[i], q, x[i] - h)
        fu = S - p0 + pu
        fd = S - p0 + pd
        if noise == NOISE_ADVERSARIAL:
            su = sneg
            sd = sneg
            if hv[i] < 0.0:
                su = sneg - p0 + pu
                sd = sneg - p0 + pd
            fu += min(max(-su, 0.0), 2.0 * num) - num
            fd += min(max(-sd, 0.0), 2.0 * num) - num
        elif noise == NOISE_RANDOM:
            fu += num * (2.0 * uniform(state) - 1.0)
            fd += num * (2.0 * uniform(state) - 1.0)
        g[i] = (fu - fd) / (2.0 * h)
    return 2 * d


@njit(cache=True)
def pgd_runs(hv, q, oracle, noise, nu, fd_h, x0, eta, r, g_thres, t_thres, f_thres, max_iter, bound, seeds,
             x_out, info):
    """``seeds.size`` independent PGD runs from ``x0``; run m uses noise level ``nu[m]`` and finite-difference
    step ``fd_h[m]``.  ``x_out[m]`` is the returned point (x~ at termination, else the last iterate);
    ``info[m]`` = (iterations, perturbations, terminated, oracle queries, diverged)."""
    d = x0.size
    state = np.empty(4, dtype=np.uint64)
    x = np.empty(d)
    g = np.empty(d)
    xt = np.empty(d)
    z = np.empty(d)
    for m in range(seeds.shape[0]):
        seed_state(seeds[m], state)
        x[:] = x0
        xt[:] = x0
        num = nu[m]
        h = fd_h[m]
        value_queries = 1 if oracle == ORACLE_VALUE else 0
        t_noise = -t_thres - 1
        f_tilde = 0.0
        queries = 0
        n_pert = 0
        terminated = 0
        diverged = 0
        t = 0
        while t < max_iter:
            queries += _gradient(hv, q, oracle, noise, num, h, x, g, z, state)
            gn = 0.0
            for i in range(d):
                gn += g[i] * g[i]
            if np.sqrt(gn) <= g_thres and t - t_noise > t_thres:          # perturb
                xt[:] = x
                t_noise = t
                f_tilde = _value(hv, q, x, oracle, noise, num, state)
                queries += value_queries
                _ball(z, r, state)
                for i in range(d):
                    x[i] += z[i]
                n_pert += 1
                queries += _gradient(hv, q, oracle, noise, num, h, x, g, z, state)
            if t - t_noise == t_thres:                                     # decrease test
                fx = _value(hv, q, x, oracle, noise, num, state)
                queries += value_queries
                if fx - f_tilde > -f_thres:
                    terminated = 1
                    break
            big = 0.0                                                      # gradient step
            for i in range(d):
                x[i] -= eta * g[i]
                if abs(x[i]) > big:
                    big = abs(x[i])
            t += 1
            if not big <= bound:             # also catches NaN
                diverged = 1
                break
        if terminated == 1:
            x_out[m, :] = xt
        else:
            x_out[m, :] = x
        info[m, 0] = t
        info[m, 1] = n_pert
        info[m, 2] = terminated
        info[m, 3] = queries
        info[m, 4] = diverged
