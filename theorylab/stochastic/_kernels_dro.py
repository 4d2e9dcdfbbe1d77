"""Jitted kernels of paper ``dro_dsgdc``: the chi-square dual DRO objective on a finite sample and the two
stochastic methods, D-SGD-C and the SPIDER variant, over many independent runs.

Dual objective (Jin et al. 2021 form, spec [I]), per sample i with loss l_i(x) = loss(a_i . x, b_i):
    L(x, eta) = mean_i lam psi*((l_i - eta)/lam) + eta,     psi*(u) = (u + 1)_+^2 / 2 - 1/2,
    w_i = (u_i + 1)_+ = psi*'(u_i),   grad_x L = mean_i w_i l_i'(z_i) a_i,   d_eta L = 1 - mean_i w_i.
Losses (``kind``): 0 square, l = (z - b)^2 / 2; 1 tanh single-index, l = (tanh z - b)^2 / 2.

No input checking here (theorylab.stochastic.dro validates).  Each run owns a xoshiro256** state seeded from
its entry of ``seeds`` (theorylab.core.rng): minibatches are drawn with replacement by ``below``.
"""

import numpy as np
from numba import njit

from ..core.rng import below, seed_state

SQUARE = 0
TANH = 1


@njit(cache=True, inline="always")
def loss_terms(z, b, kind):
    """(l, dl/dz, d2l/dz2) of one sample at z = a . x."""
    if kind == SQUARE:
        r = z - b
        return 0.5 * r * r, r, 1.0
    t = np.tanh(z)
    e = t - b
    s = 1.0 - t * t
    return 0.5 * e * e, e * s, s * s - 2.0 * e * t * s


@njit(cache=True)
def batch_gradient(A, b, kind, lam, x, eta, idx, gx):
    """Minibatch estimate over the rows ``idx``: gx <- mean w_i l_i' a_i, returns d_eta L = 1 - mean w_i."""
    d = x.size
    gx[:] = 0.0
    sw = 0.0
    for k in range(idx.size):
        i = idx[k]
        z = 0.0
        for j in range(d):
            z += A[i, j] * x[j]
        ell, g, _ = loss_terms(z, b[i], kind)
        w = (ell - eta) / lam + 1.0
        if w > 0.0:
            sw += w
            c = w * g
            for j in range(d):
                gx[j] += c * A[i, j]
    m = idx.size
    for j in range(d):
        gx[j] /= m
    return 1.0 - sw / m


@njit(cache=True)
def full_gradient_norm(A, b, kind, lam, x, eta, gx):
    """||grad L(x, eta)|| = sqrt(||grad_x L||^2 + (d_eta L)^2) over all n samples."""
    n, d = A.shape
    gx[:] = 0.0
    sw = 0.0
    for i in range(n):
        z = 0.0
        for j in range(d):
            z += A[i, j] * x[j]
        ell, g, _ = loss_terms(z, b[i], kind)
        w = (ell - eta) / lam + 1.0
        if w > 0.0:
            sw += w
            c = w * g
            for j in range(d):
                gx[j] += c * A[i, j]
    s = (1.0 - sw / n) ** 2
    for j in range(d):
        s += (gx[j] / n) ** 2
    return np.sqrt(s)


@njit(cache=True, inline="always")
def clipped_x_step(x, v, beta, c):
    """x <- x - beta_t v with beta_t = min(beta, c / ||v||) (spec's clipping form); returns ||v||."""
    nv = 0.0
    for j in range(v.size):
        nv += v[j] * v[j]
    nv = np.sqrt(nv)
    bt = beta if beta * nv <= c else c / nv
    for j in range(x.size):
        x[j] -= bt * v[j]
    return nv


@njit(cache=True)
def draw(state, n, idx):
    for k in range(idx.size):
        idx[k] = below(state, n)


@njit(cache=True, nogil=True)
def dsgdc_runs(A, b, kind, lam, x0, eta0, gamma, beta, c, batch, n_iter, record_every, eps_stop, seeds,
               gnorm, xs, etas, n_rec):
    """D-SGD-C: eta_{t+1} = eta_t - gamma d_eta^ L(x_t, eta_t) on one minibatch, then on a fresh one
    v_t = grad_x^ L(x_t, eta_{t+1}) and x_{t+1} = x_t - min(beta, c/||v_t||) v_t.  Iterate k * record_every is
    stored in xs[r, k], etas[r, k] with its full-sample ||grad L|| in gnorm[r, k]; run r stops after n_rec[r]
    records, at the first record where the running mean of gnorm[r, :k + 1] is <= eps_stop (the spec's
    (1/T) sum ||grad L|| <= epsilon; eps_stop <= 0 never stops early) or at a non-finite value."""
    n, d = A.shape
    state = np.empty(4, dtype=np.uint64)
    idx = np.empty(batch, dtype=np.int64)
    x = np.empty(d)
    v = np.empty(d)
    tmp = np.empty(d)
    for r in range(seeds.shape[0]):
        seed_state(seeds[r], state)
        x[:] = x0
        eta = eta0
        total = 0.0
        for t in range(n_iter + 1):
            if t % record_every == 0:
                k = t // record_every
                gnorm[r, k] = full_gradient_norm(A, b, kind, lam, x, eta, tmp)
                xs[r, k, :] = x
                etas[r, k] = eta
                n_rec[r] = k + 1
                total += gnorm[r, k]
                if total <= eps_stop * (k + 1) or not np.isfinite(gnorm[r, k]):
                    break
            if t == n_iter:
                break
            draw(state, n, idx)
            eta -= gamma * batch_gradient(A, b, kind, lam, x, eta, idx, v)
            draw(state, n, idx)
            batch_gradient(A, b, kind, lam, x, eta, idx, v)
            clipped_x_step(x, v, beta, c)


@njit(cache=True, nogil=True)
def spider_runs(A, b, kind, lam, x0, eta0, gamma, beta, c, batch_big, batch_small, q, n_iter, record_every,
                eps_stop, seeds, gnorm, xs, etas, n_rec):
    """SPIDER variant: every q steps (u, v) = a batch_big estimate of (d_eta L, grad_x L) at (x_t, eta_t); in
    between (u, v) += the difference of the batch_small estimates at (x_t, eta_t) and (x_{t-1}, eta_{t-1}) on one
    shared minibatch (Fang et al. 2018).  Then eta_{t+1} = eta_t - gamma u, x_{t+1} = x_t - min(beta, c/||v||) v.
    Storage as in :func:`dsgdc_runs`."""
    n, d = A.shape
    state = np.empty(4, dtype=np.uint64)
    big = np.empty(batch_big, dtype=np.int64)
    small = np.empty(batch_small, dtype=np.int64)
    x = np.empty(d)
    xp = np.empty(d)
    v = np.empty(d)
    g1 = np.empty(d)
    g0 = np.empty(d)
    for r in range(seeds.shape[0]):
        seed_state(seeds[r], state)
        x[:] = x0
        eta = eta0
        etap = eta0
        u = 0.0
        total = 0.0
        for t in range(n_iter + 1):
            if t % record_every == 0:
                k = t // record_every
                gnorm[r, k] = full_gradient_norm(A, b, kind, lam, x, eta, g1)
                xs[r, k, :] = x
                etas[r, k] = eta
                n_rec[r] = k + 1
                total += gnorm[r, k]
                if total <= eps_stop * (k + 1) or not np.isfinite(gnorm[r, k]):
                    break
            if t == n_iter:
                break
            if t % q == 0:
                draw(state, n, big)
                u = batch_gradient(A, b, kind, lam, x, eta, big, v)
            else:
                draw(state, n, small)
                u += batch_gradient(A, b, kind, lam, x, eta, small, g1) \
                    - batch_gradient(A, b, kind, lam, xp, etap, small, g0)
                for j in range(d):
                    v[j] += g1[j] - g0[j]
            xp[:] = x
            etap = eta
            eta -= gamma * u
            clipped_x_step(x, v, beta, c)
