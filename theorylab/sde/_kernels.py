"""Jitted kernels of theorylab.sde: Euler–Maruyama for diagonal-noise SDEs, and the
discrete optimizers (SGD, SignSGD, RMSpropW, AdamW) on a quadratic with injected noise.

Conventions (see DEVELOPERS.md): no input checking and no I/O here; the validated API is
in :mod:`theorylab.sde.engine` and :mod:`theorylab.sde.optimizers`.  Every path kernel
(``*_paths``) is serial and ``nogil``, takes one seed per path and seeds a private xoshiro256**
state from it per path (:mod:`theorylab.core.rng`: ziggurat normals); the function of the same
name without ``_paths`` allocates the outputs and runs blocks of paths on threads
(:func:`theorylab.core.parallel.map_blocks`), so a path's numbers do not depend on the thread
count.  (The former ``prange`` kernels compiled about twice as slowly: 23.6 s against 11.5 s
cold for the five of them, measured on the shared 2-core CI machine.)  Student-t draws are ``Z / sqrt(chi2_nu / nu)`` with the chi-square from
Marsaglia–Tsang gamma draws on the same state (:func:`student_t`).

The Gaussian SignSGD drift ``S(y) = erf(y / sqrt 2)`` and its diffusion ``sqrt(1 - S^2)``
come from one piecewise-cubic (Hermite) table, :func:`erf_sde_coeffs`, accurate to below
1e-9 (tested against scipy.special.erf); it replaces a libm ``erf`` and a ``sqrt`` per
element-step, which were 3/4 of the step's cost.

A path whose state becomes non-finite or exceeds ``bound`` in absolute value (checked after
every step; ``bound`` is derived from the problem by the Python layer, see
:func:`theorylab.sde.optimizers.state_bound`) is stopped and its step is returned in
``diverged`` (``-1`` if it did not diverge); the Python layer raises
:class:`theorylab.core.SimulationDiverged` naming the step, path and parameters.  Kernels are
compiled with ``error_model="numpy"``: a division by zero gives inf/NaN (caught by the same
check) instead of raising inside the kernel, which left the (then ``prange``) dispatcher in a
broken state (``SystemError ... returned a result with an exception set`` on later calls).

Built-in SDE models (``model`` argument); state ``y`` and diagonal noise on the first
``n_noise`` components:

=========  ======================================================================  ======
model      SDE (Itô)                                                               state
=========  ======================================================================  ======
OU         dY = th (mu - Y) dt + s dW                         p = [th, mu, s]      Y
GBM        dY = mu Y dt + s Y dW                              p = [mu, s]          Y
SGD        dX = -(H X + theta X) dt + sqrt(eta) sig dW                             X
SIGNSGD    dX = -S(H X / sig) dt + sqrt(eta) sqrt(1 - S^2) dW  (Compagnoni et al.  X
           Thm 3.2 / Cor 3.3; S(y) = E sign(y + xi) = 1 - 2 P(y + xi < 0))
RMSPROPW   dX = -(H X / P + theta X) dt + sqrt(eta) sig / P dW, P = sqrt(V) + eps  X, V
           dV = rho2 ((H X)^2 + sig^2 - V) dt
ADAMW      dX = -(Mh / (sqrt(Vh) + eps) + theta X) dt,                           X, M, V
           Mh = M / g1(t), Vh = V / g2(t), gi(t) = 1 - exp(-rho_i t)
           dM = rho1 (H X - M) dt + sqrt(eta) rho1 sig dW
           dV = rho2 ((H X)^2 + sig^2 - V) dt
=========  ======================================================================  ======

For RMSPROPW/ADAMW the Euler–Maruyama step updates (M, V) first and then X with the updated
moments and the bias corrections at the end of the step (a Gauss–Seidel ordering of the
same first-order scheme): it avoids the 0/0 of g1(0) = g2(0) = 0 and is, at dt = eta, the
moment-matched counterpart of the discrete optimizer step.

Optimizer parameters ``p = [eta, beta1, beta2, eps, theta, noise, nu]`` with ``noise`` 0 for
Gaussian and 1 for Student-t(nu); SDE parameters ``p = [eta, rho1, rho2, eps, theta, noise]``
with ``noise`` 0 (S = erf(y/sqrt 2)) or 1 (S read from ``tab``, a table of
S(tan u) on a uniform grid of u in [-pi/2, pi/2]).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit, types
from scipy import special

from theorylab.core.parallel import map_blocks
from theorylab.core.rng import normal, seed_state, uniform

OU, GBM, SGD, SIGNSGD, RMSPROPW, ADAMW = 0, 1, 2, 3, 4, 5
OPT_SGD, OPT_SIGNSGD, OPT_RMSPROPW, OPT_ADAMW = 0, 1, 2, 3
NO_TABLE = np.zeros(2)      # the ``tab`` argument of models that do not read a table
_SQRT1_2 = 1.0 / math.sqrt(2.0)


def _erf_table(h=1.0 / 64.0, y_max=9.5):
    """Cubic Hermite coefficients, per interval ``[k h, (k+1) h]`` of ``|y|``, of
    ``S(y) = erf(y / sqrt 2)`` and ``G(y) = sqrt(1 - S^2) = sqrt(erfc (2 - erfc))`` (values and
    exact derivatives at both ends; interpolation error <= h^4 max|f^(4)| / 384 < 2e-10).
    Row ``k`` holds ``c0..c3`` of S, then of G, in the local variable ``w = |y| / h - k``.
    Beyond ``y_max`` the kernel uses S = 1, G = 0 (true values within 3e-21 and 7e-11)."""
    y = np.arange(0.0, y_max + h / 2, h)
    a = y * _SQRT1_2
    S = special.erf(a)
    ec = special.erfc(a)
    G = np.sqrt(ec * (2.0 - ec))
    dS = np.sqrt(2.0 / np.pi) * np.exp(-0.5 * y * y)
    dG = -S * dS / G
    rows = []
    for f, df in ((S, dS), (G, dG)):
        f0, f1, d0, d1 = f[:-1], f[1:], h * df[:-1], h * df[1:]
        rows += [f0, d0, 3 * (f1 - f0) - 2 * d0 - d1, 2 * (f0 - f1) + d0 + d1]
    return np.ascontiguousarray(np.stack(rows, axis=1)), 1.0 / h


ERF_TAB, ERF_INV_H = _erf_table()
ERF_N = ERF_TAB.shape[0]


@njit(cache=True, error_model="numpy")
def erf_sde_coeffs(y):
    """``(S, G) = (erf(y / sqrt 2), sqrt(1 - S^2))`` from the Hermite table (|err| < 1e-9)."""
    a = abs(y) * ERF_INV_H
    if not (a < ERF_N):
        return (1.0 if y > 0 else -1.0), 0.0
    k = int(a)
    w = a - k
    s = ERF_TAB[k, 0] + w * (ERF_TAB[k, 1] + w * (ERF_TAB[k, 2] + w * ERF_TAB[k, 3]))
    g = ERF_TAB[k, 4] + w * (ERF_TAB[k, 5] + w * (ERF_TAB[k, 6] + w * ERF_TAB[k, 7]))
    return (s if y >= 0 else -s), g


@njit(cache=True, error_model="numpy")
def std_gamma(a, state):
    """A Gamma(a, 1) draw (Marsaglia & Tsang, ACM TOMS 26(3), 2000; a < 1 by the boost
    Gamma(a) = Gamma(a + 1) U^(1/a))."""
    boost = 1.0
    if a < 1.0:
        boost = uniform(state) ** (1.0 / a)
        a += 1.0
    d = a - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        z = normal(state)
        v = 1.0 + c * z
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform(state)
        if math.log(u) < 0.5 * z * z + d - d * v + d * math.log(v):
            return boost * d * v


@njit(cache=True, error_model="numpy")
def student_t(nu, state):
    """A Student-t(nu) draw ``Z / sqrt(chi2_nu / nu)``, chi2_nu = 2 Gamma(nu / 2); Cauchy
    (nu = 1) as a ratio of two normals."""
    if nu == 1.0:
        z = normal(state)
        w = normal(state)
        while w == 0.0:           # the ziggurat returns exactly 0.0 about once in 2^32 draws
            w = normal(state)
        return z / w
    z = normal(state)
    return z / math.sqrt(2.0 * std_gamma(0.5 * nu, state) / nu)


@njit(cache=True, error_model="numpy")
def fill_noise(kind, nu, seed, out):
    """``out`` filled with noise draws from a fresh state seeded by ``seed`` (for tests)."""
    state = np.empty(4, dtype=np.uint64)
    seed_state(seed, state)
    for i in range(out.size):
        out[i] = draw_noise(kind, nu, state)


@njit(cache=True, error_model="numpy")
def sign_mean_table(y, tab):
    """S(y) by linear interpolation of ``tab`` = S(tan u), u uniform on [-pi/2, pi/2]."""
    n = tab.size
    u = (math.atan(y) + 0.5 * math.pi) / math.pi * (n - 1)
    k = int(u)
    if k >= n - 1:
        return tab[n - 1]
    if k < 0:
        return tab[0]
    w = u - k
    return (1.0 - w) * tab[k] + w * tab[k + 1]


@njit(cache=True, error_model="numpy")
def quad_grad(H, x, g):
    """g = H x: H symmetric (d, d), or a diagonal Hessian stored as its diagonal, shape (1, d)."""
    d = x.size
    if H.shape[0] == 1:
        for i in range(d):
            g[i] = H[0, i] * x[i]
        return
    for i in range(d):
        acc = 0.0
        for j in range(d):
            acc += H[i, j] * x[j]
        g[i] = acc


@njit(cache=True, error_model="numpy")
def quad_loss(H, x):
    """f(x) = x^T H x / 2 (H dense (d, d) or its diagonal as shape (1, d))."""
    d = x.size
    acc = 0.0
    if H.shape[0] == 1:
        for i in range(d):
            acc += H[0, i] * x[i] * x[i]
        return 0.5 * acc
    for i in range(d):
        row = 0.0
        for j in range(d):
            row += H[i, j] * x[j]
        acc += x[i] * row
    return 0.5 * acc


@njit(cache=True, error_model="numpy")
def draw_noise(kind, nu, state):
    """One standard noise draw: N(0, 1) (kind 0) or Student-t(nu) (kind 1; Cauchy for nu = 1)."""
    if kind == 0:
        return normal(state)
    return student_t(nu, state)


@njit(cache=True, error_model="numpy")
def ou_gbm_step(model, dt, y, dw, p):
    """One Euler–Maruyama step of the test SDE ``model`` (OU or GBM) in place."""
    if model == OU:
        for i in range(y.size):
            y[i] += p[0] * (p[1] - y[i]) * dt + p[2] * dw[i]
    else:
        for i in range(y.size):
            y[i] += p[0] * y[i] * dt + p[1] * y[i] * dw[i]


@njit(cache=True, error_model="numpy")
def em_step(model, t, dt, y, dw, H, sig, p, tab, g):
    """One Euler–Maruyama step of ``model`` in place; ``dw`` holds the Brownian increments."""
    if model == OU or model == GBM:
        ou_gbm_step(model, dt, y, dw, p)
        return
    d = sig.size
    eta, rho1, rho2, eps, theta, noise = p[0], p[1], p[2], p[3], p[4], p[5]
    sq_eta = math.sqrt(eta)
    x = y[:d]
    quad_grad(H, x, g)
    if model == SGD:
        for i in range(d):
            x[i] += -(g[i] + theta * x[i]) * dt + sq_eta * sig[i] * dw[i]
    elif model == SIGNSGD:
        for i in range(d):
            yi = g[i] / sig[i]
            if noise == 0:
                s, gi = erf_sde_coeffs(yi)
            else:
                s = sign_mean_table(yi, tab)
                gi = math.sqrt(max(1.0 - s * s, 0.0))
            x[i] += -s * dt + sq_eta * gi * dw[i]
    elif model == RMSPROPW:
        v = y[d:2 * d]
        for i in range(d):
            v[i] += rho2 * (g[i] * g[i] + sig[i] * sig[i] - v[i]) * dt
            P = math.sqrt(max(v[i], 0.0)) + eps
            x[i] += -(g[i] / P + theta * x[i]) * dt + sq_eta * sig[i] / P * dw[i]
    else:  # ADAMW
        m = y[d:2 * d]
        v = y[2 * d:3 * d]
        t1 = t + dt
        g1 = 1.0 - math.exp(-rho1 * t1)
        g2 = 1.0 - math.exp(-rho2 * t1)
        for i in range(d):
            m[i] += rho1 * (g[i] - m[i]) * dt + sq_eta * rho1 * sig[i] * dw[i]
            v[i] += rho2 * (g[i] * g[i] + sig[i] * sig[i] - v[i]) * dt
            vh = max(v[i], 0.0) / g2
            x[i] += -((m[i] / g1) / (math.sqrt(vh) + eps) + theta * x[i]) * dt


@njit(cache=True, error_model="numpy")
def _bad(y, bound):
    """True if a component of ``y`` is NaN/inf or exceeds ``bound`` in absolute value."""
    for i in range(y.size):
        if not (abs(y[i]) <= bound):
            return True
    return False


def em_run(model, y0, n_noise, H, sig, p, tab, t0, dt, n_steps, record_every, seeds, bound):
    """Euler–Maruyama paths of a built-in model; records the state every ``record_every`` steps.

    Returns ``(states (n_paths, n_rec, dim), diverged (n_paths,))``; record 0 is ``y0``.  Blocks of
    paths run :func:`em_run_paths` on threads (:func:`theorylab.core.parallel.map_blocks`).
    """
    n_paths = seeds.size
    out = np.full((n_paths, n_steps // record_every + 1, y0.size), np.nan)
    diverged = np.full(n_paths, -1, dtype=np.int64)
    map_blocks(lambda s: em_run_paths(model, y0, n_noise, H, sig, p, tab, t0, dt, n_steps, record_every, seeds[s],
                                      bound, out[s], diverged[s]), n_paths, work=n_paths * n_steps * y0.size)
    return out, diverged


@njit(cache=True, nogil=True, error_model="numpy")
def em_run_paths(model, y0, n_noise, H, sig, p, tab, t0, dt, n_steps, record_every, seeds, bound, out, diverged):
    """:func:`em_run` on the paths of ``seeds``, written into ``out`` and ``diverged`` (serial)."""
    n_paths = seeds.size
    dim = y0.size
    sq_dt = math.sqrt(dt)
    # Gaussian SignSGD with a diagonal Hessian: the fused step (same numbers as em_step)
    fused = model == SIGNSGD and H.shape[0] == 1 and p[5] == 0.0
    c = np.zeros(sig.size)      # (explicit loops, not array expressions: each compiles in ~1 s)
    if fused:
        for j in range(sig.size):
            c[j] = H[0, j] / sig[j]
    sq_eta_dt = math.sqrt(p[0]) * sq_dt if fused else 0.0
    for i in range(n_paths):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[i], state)
        y = y0.copy()
        dw = np.zeros(dim)
        g = np.zeros(sig.size)
        for j in range(dim):
            out[i, 0, j] = y[j]
        for k in range(n_steps):
            if fused:
                signsgd_diag_step(y, c, dt, sq_eta_dt, state)
            else:
                for j in range(n_noise):
                    dw[j] = sq_dt * normal(state)
                em_step(model, t0 + k * dt, dt, y, dw, H, sig, p, tab, g)
            if _bad(y, bound):
                diverged[i] = k + 1
                break
            if (k + 1) % record_every == 0:
                for j in range(dim):
                    out[i, (k + 1) // record_every, j] = y[j]


def em_levels(model, y0, n_noise, H, sig, p, tab, t_end, n_fine, factors, seeds, bound):
    """Terminal values of Euler–Maruyama at several step sizes driven by ONE Brownian path.

    ``model`` is a test SDE (OU or GBM; :func:`ou_gbm_step`: the optimizers' models are not
    compiled in, which halves this kernel's compilation).  Level ``l`` takes steps of
    ``factors[l] * t_end / n_fine`` whose increments are sums of
    ``factors[l]`` fine increments (the coupling of diffrax's strong-order test); every
    factor must divide ``n_fine``.  Returns ``(y_T (n_paths, n_levels, dim), W_T
    (n_paths, dim), diverged (n_paths,))``.
    """
    n_paths = seeds.size
    yT = np.full((n_paths, factors.size, y0.size), np.nan)
    WT = np.zeros((n_paths, y0.size))
    diverged = np.full(n_paths, -1, dtype=np.int64)
    map_blocks(lambda s: em_levels_paths(model, y0, n_noise, H, sig, p, tab, t_end, n_fine, factors, seeds[s], bound,
                                         yT[s], WT[s], diverged[s]), n_paths, work=n_paths * n_fine * factors.size)
    return yT, WT, diverged


@njit(cache=True, nogil=True, error_model="numpy")
def em_levels_paths(model, y0, n_noise, H, sig, p, tab, t_end, n_fine, factors, seeds, bound, yT, WT, diverged):
    """:func:`em_levels` on the paths of ``seeds``, written into ``yT``, ``WT``, ``diverged`` (serial)."""
    n_paths = seeds.size
    dim = y0.size
    n_lev = factors.size
    h = t_end / n_fine
    sq_h = math.sqrt(h)
    for i in range(n_paths):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[i], state)
        ys = np.empty((n_lev, dim))
        acc = np.zeros((n_lev, dim))
        for l in range(n_lev):
            for j in range(dim):
                ys[l, j] = y0[j]
        w = np.zeros(dim)
        bad = False
        for k in range(n_fine):
            for j in range(n_noise):
                dwj = sq_h * normal(state)
                w[j] += dwj
                for l in range(n_lev):
                    acc[l, j] += dwj
            for l in range(n_lev):
                f = factors[l]
                if (k + 1) % f == 0:
                    ou_gbm_step(model, f * h, ys[l], acc[l], p)
                    if _bad(ys[l], bound):
                        bad = True
                    for j in range(dim):
                        acc[l, j] = 0.0
            if bad:
                diverged[i] = k + 1
                break
        if not bad:
            for l in range(n_lev):
                for j in range(dim):
                    yT[i, l, j] = ys[l, j]
        for j in range(dim):
            WT[i, j] = w[j]


@njit(cache=True, error_model="numpy")
def opt_step(kind, k, x, m, v, g, eta, beta1, beta2, eps, theta, H, sig, noise, nu, xi):
    """One step ``k`` (1-based) of the discrete optimizer with gradient H x + sig * xi."""
    d = x.size
    quad_grad(H, x, g)
    for i in range(d):
        gi = g[i] + sig[i] * xi[i]
        if kind == OPT_SGD:
            x[i] -= eta * (gi + theta * x[i])
        elif kind == OPT_SIGNSGD:
            s = 1.0 if gi > 0 else (-1.0 if gi < 0 else 0.0)
            x[i] -= eta * s
        elif kind == OPT_RMSPROPW:
            v[i] = beta2 * v[i] + (1.0 - beta2) * gi * gi
            x[i] -= eta * (gi / (math.sqrt(v[i]) + eps) + theta * x[i])
        else:
            m[i] = beta1 * m[i] + (1.0 - beta1) * gi
            v[i] = beta2 * v[i] + (1.0 - beta2) * gi * gi
            mh = m[i] / (1.0 - beta1 ** k)
            vh = v[i] / (1.0 - beta2 ** k)
            x[i] -= eta * (mh / (math.sqrt(vh) + eps) + theta * x[i])


def opt_run(kind, x0, v0, H, sig, p, n_steps, record_every, seeds, bound):
    """Discrete optimizer paths on f(x) = x^T H x / 2; records the loss every ``record_every``.

    ``p = [eta, beta1, beta2, eps, theta, noise, nu]``; ``v0`` initialises RMSpropW's second
    moment (AdamW starts from m = v = 0 with bias corrections).  Returns
    ``(loss (n_paths, n_rec), x_final (n_paths, d), diverged (n_paths,))``.
    """
    n_paths = seeds.size
    loss = np.full((n_paths, n_steps // record_every + 1), np.nan)
    xf = np.full((n_paths, x0.size), np.nan)
    diverged = np.full(n_paths, -1, dtype=np.int64)
    map_blocks(lambda s: opt_run_paths(kind, x0, v0, H, sig, p, n_steps, record_every, seeds[s], bound, loss[s],
                                       xf[s], diverged[s]), n_paths, work=n_paths * n_steps * x0.size)
    return loss, xf, diverged


@njit(cache=True, nogil=True, error_model="numpy")
def opt_run_paths(kind, x0, v0, H, sig, p, n_steps, record_every, seeds, bound, loss, xf, diverged):
    """:func:`opt_run` on the paths of ``seeds``, written into ``loss``, ``xf``, ``diverged`` (serial)."""
    n_paths = seeds.size
    d = x0.size
    eta, beta1, beta2, eps, theta = p[0], p[1], p[2], p[3], p[4]
    noise = int(p[5])
    nu = p[6]
    for i in range(n_paths):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[i], state)
        x = x0.copy()
        m = np.zeros(d)
        v = v0.copy() if kind == OPT_RMSPROPW else np.zeros(d)
        g = np.zeros(d)
        xi = np.zeros(d)
        loss[i, 0] = quad_loss(H, x)
        bad = False
        for k in range(1, n_steps + 1):
            for j in range(d):
                xi[j] = draw_noise(noise, nu, state)
            opt_step(kind, k, x, m, v, g, eta, beta1, beta2, eps, theta, H, sig, noise, nu, xi)
            if _bad(x, bound):
                diverged[i] = k
                bad = True
                break
            if k % record_every == 0:
                loss[i, k // record_every] = quad_loss(H, x)
        if not bad:
            for j in range(d):
                xf[i, j] = x[j]


def coupled_run(kind, x0, v0, H, sig, p_opt, p_sde, tab, n_steps, n_sub, record_every, seeds, bound):
    """The discrete optimizer and Euler–Maruyama of its SDE (``n_sub`` steps of eta/n_sub
    per optimizer step) driven by the same Gaussian numbers.

    Per optimizer step and coordinate, ``n_sub`` standard normals z_j give the SDE's
    increments sqrt(eta/n_sub) z_j and the optimizer's gradient noise -/+ sum_j z_j / sqrt(n_sub)
    (exactly N(0, 1), oriented so the noise moves X the same way in both): each marginal is exact, and the pathwise difference of the losses has
    a much smaller variance than two independent runs (a control-variate estimator of the
    weak error).  Returns ``(loss_opt, loss_sde (n_paths, n_rec), diverged)``.
    """
    n_paths = seeds.size
    n_rec = n_steps // record_every + 1
    lo = np.full((n_paths, n_rec), np.nan)
    ls = np.full((n_paths, n_rec), np.nan)
    diverged = np.full(n_paths, -1, dtype=np.int64)
    map_blocks(lambda s: coupled_run_paths(kind, x0, v0, H, sig, p_opt, p_sde, tab, n_steps, n_sub, record_every,
                                           seeds[s], bound, lo[s], ls[s], diverged[s]),
               n_paths, work=n_paths * n_steps * (n_sub + 1) * x0.size)
    return lo, ls, diverged


@njit(cache=True, nogil=True, error_model="numpy")
def coupled_run_paths(kind, x0, v0, H, sig, p_opt, p_sde, tab, n_steps, n_sub, record_every, seeds, bound, lo, ls,
                      diverged):
    """:func:`coupled_run` on the paths of ``seeds``, written into ``lo``, ``ls``, ``diverged`` (serial)."""
    n_paths = seeds.size
    d = x0.size
    eta, beta1, beta2, eps, theta = p_opt[0], p_opt[1], p_opt[2], p_opt[3], p_opt[4]
    gaussian = np.int64(p_opt[5])   # 0: a variable, not the literal 0 (one opt_step compilation with opt_run)
    model = SGD
    if kind == OPT_SIGNSGD:
        model = SIGNSGD
    elif kind == OPT_RMSPROPW:
        model = RMSPROPW
    elif kind == OPT_ADAMW:
        model = ADAMW
    dim = d
    if model == RMSPROPW:
        dim = 2 * d
    elif model == ADAMW:
        dim = 3 * d
    dt = eta / n_sub
    sq_dt = math.sqrt(dt)
    # orientation: the SDE's dW enters X with a + sign for SGD/SignSGD/RMSpropW (gradient noise
    # enters the step with a - sign) and M with a + sign for AdamW
    inv_sq_sub = (1.0 if kind == OPT_ADAMW else -1.0) / math.sqrt(n_sub)
    for i in range(n_paths):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[i], state)
        x = x0.copy()
        m = np.zeros(d)
        v = v0.copy() if kind == OPT_RMSPROPW else np.zeros(d)
        g = np.zeros(d)
        gs = np.zeros(d)
        xi = np.zeros(d)
        y = np.zeros(dim)
        for j in range(d):
            y[j] = x0[j]
        if model == RMSPROPW:
            for j in range(d):
                y[d + j] = v0[j]
        dw = np.zeros(dim)
        lo[i, 0] = quad_loss(H, x)
        ls[i, 0] = lo[i, 0]
        bad = False
        for k in range(1, n_steps + 1):
            for j in range(d):
                xi[j] = 0.0
            for s in range(n_sub):
                for j in range(d):
                    z = normal(state)
                    xi[j] += z * inv_sq_sub
                    dw[j] = sq_dt * z
                em_step(model, (k - 1) * eta + s * dt, dt, y, dw, H, sig, p_sde, tab, gs)
            opt_step(kind, k, x, m, v, g, eta, beta1, beta2, eps, theta, H, sig, gaussian, p_opt[6], xi)
            if _bad(x, bound) or _bad(y, bound):
                diverged[i] = k
                bad = True
                break
            if k % record_every == 0:
                lo[i, k // record_every] = quad_loss(H, x)
                ls[i, k // record_every] = quad_loss(H, y[:d])
        if bad:
            for r in range(lo.shape[1]):
                lo[i, r] = np.nan
                ls[i, r] = np.nan


@njit(cache=True, error_model="numpy")
def signsgd_diag_step(x, c, dt, sq_eta_dt, state):
    """One Euler–Maruyama step of the Gaussian SignSGD SDE (Cor. 3.3) with a diagonal Hessian,
    ``Y_i = c_i x_i`` (``c = h / sig``), drawing the normals in coordinate order as ``em_run``
    does for ``em_step``: ``x_i += -S(Y_i) dt + sqrt(eta dt) G(Y_i) z_i``."""
    for j in range(x.size):
        s, g = erf_sde_coeffs(c[j] * x[j])
        x[j] += -s * dt + sq_eta_dt * g * normal(state)


def signsgd_sde_final(x0, H_diag, sig, eta, dt, n_steps, seeds):
    """Benchmark kernel: final state of the Gaussian SignSGD SDE (Cor. 3.3) with diagonal H.

    The step :func:`signsgd_diag_step` that :func:`em_run` uses for this model, without the
    engine's recording and per-step blow-up check; blocks of paths on threads as :func:`em_run`.
    """
    out = np.empty((seeds.size, x0.size))
    map_blocks(lambda s: signsgd_sde_final_paths(x0, H_diag, sig, eta, dt, n_steps, seeds[s], out[s]), seeds.size,
               work=seeds.size * n_steps * x0.size)
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def signsgd_sde_final_paths(x0, H_diag, sig, eta, dt, n_steps, seeds, out):
    """:func:`signsgd_sde_final` on the paths of ``seeds``, written into ``out`` (serial)."""
    n_paths = seeds.size
    sq = math.sqrt(eta) * math.sqrt(dt)
    c = np.empty(sig.size)
    for j in range(sig.size):
        c[j] = H_diag[j] / sig[j]
    for i in range(n_paths):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[i], state)
        x = x0.copy()
        for k in range(n_steps):
            signsgd_diag_step(x, c, dt, sq, state)
        for j in range(x.size):
            out[i, j] = x[j]


@njit(error_model="numpy", cache=True)
def em_generic_path(drift, diffusion, y0, params, t0, dt, n_steps, record_every, a, b, state, bound):
    """One Euler–Maruyama path of a user SDE (drift/diffusion are jitted functions
    ``f(t, y, params, out)`` writing the drift and the diagonal diffusion into ``out``)."""
    dim = y0.size
    n_rec = n_steps // record_every + 1
    out = np.empty((n_rec, dim))
    for r in range(n_rec):
        for j in range(dim):
            out[r, j] = np.nan
    y = y0.copy()
    for j in range(dim):
        out[0, j] = y[j]
    sq = math.sqrt(dt)
    for k in range(n_steps):
        t = t0 + k * dt
        drift(t, y, params, a)
        diffusion(t, y, params, b)
        for j in range(dim):
            y[j] += a[j] * dt + b[j] * sq * normal(state)
        if _bad(y, bound):
            return out, k + 1
        if (k + 1) % record_every == 0:
            for j in range(dim):
                out[(k + 1) // record_every, j] = y[j]
    return out, -1


def _em_generic(drift, diffusion, y0, params, t0, dt, n_steps, record_every, seeds, bound, res, diverged):
    """Euler–Maruyama for user-supplied jitted drift/diffusion on the paths of ``seeds``, one seed
    each, written into ``res`` and ``diverged`` (serial; :func:`em_generic` runs blocks on threads).

    drift and diffusion arrive as first-class functions of type :data:`GENERIC_FN`, so that this
    kernel is compiled once for every (drift, diffusion) pair and cached on disk; see
    :func:`em_generic`.
    """
    n_paths = seeds.size
    dim = y0.size
    for i in range(n_paths):
        state = np.empty(4, dtype=np.uint64)
        seed_state(seeds[i], state)
        a = np.zeros(dim)
        b = np.zeros(dim)
        path, dv = em_generic_path(drift, diffusion, y0, params, t0, dt, n_steps, record_every, a, b, state, bound)
        for r in range(path.shape[0]):
            for j in range(dim):
                res[i, r, j] = path[r, j]
        diverged[i] = dv


GENERIC_SIG = types.void(types.float64, types.float64[::1], types.float64[::1], types.float64[::1])
GENERIC_FN = types.FunctionType(GENERIC_SIG)  # f(t, y, params, out) -> None


@functools.lru_cache(maxsize=None)
def _em_generic_compiled():
    """The compiled :func:`_em_generic` (built on first use: its explicit signature would
    otherwise compile it at import)."""
    sig = types.void(GENERIC_FN, GENERIC_FN, types.float64[::1], types.float64[::1], types.float64, types.float64,
                     types.int64, types.int64, types.uint64[::1], types.float64, types.float64[:, :, ::1],
                     types.int64[::1])
    return njit(sig, nogil=True, error_model="numpy", cache=True)(_em_generic)


def em_generic():
    """``run(drift, diffusion, y0, params, t0, dt, n_steps, record_every, seeds, bound) -> (paths
    (n_paths, n_rec, dim), diverged (n_paths,))``: :func:`_em_generic` on blocks of paths on threads."""
    kernel = _em_generic_compiled()

    def run(drift, diffusion, y0, params, t0, dt, n_steps, record_every, seeds, bound):
        n_paths = seeds.size
        res = np.full((n_paths, n_steps // record_every + 1, y0.size), np.nan)
        diverged = np.full(n_paths, -1, dtype=np.int64)
        map_blocks(lambda s: kernel(drift, diffusion, y0, params, t0, dt, n_steps, record_every, seeds[s], bound,
                                    res[s], diverged[s]), n_paths, work=n_paths * n_steps * y0.size)
        return res, diverged
    return run
