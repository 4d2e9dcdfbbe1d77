"""Jitted kernels of paper ``cs_reg``: the Cauchy-Schwarz regularisers with their gradients, and the projected
accelerated gradient solver of the recovery protocol, run over many trials.

Regulariser codes (``kind``; formulas and citations in theorylab.exact.cs_regularizers):

  BIN      N sum x^4 - (sum x^2)^2                          BIN_H    sqrt(N) ||x||_4^2 - ||x||_2^2
  BIN_SI   sqrt(N) ||x||_4^2 / ||x||_2^2 - 1                L2L1     N ||x||_2^2 - ||x||_1^2
  BBIN     N sum (1+x^2)^-2 - (sum (1+x^2)^-1)^2            BIN_EXP  N sum e^{-2x^2} - (sum e^{-x^2})^2
  BETA     sum (x^2 - beta)^2 (beta fixed)                  OSB      (sum x^2)(sum x^4) - (sum x^3)^2
  TER      (sum x^2)(sum x^6) - (sum x^4)^2                 EIG      ||Cx||^2 ||x||^2 - (x^T C x)^2, C symmetric

Solver (:func:`recover_trials`): minimise l(x) over {Ax = b}, written {x : U^T x = c} with U (N x M) an
orthonormal basis of range(A^T), so that the projection is z - U(U^T z - c) (= the authors'
z - A^T(AA^T)^{-1}(Az - b)) and the gradient is projected onto null(A) by (I - UU^T).  FISTA (Beck & Teboulle
2009) with Armijo backtracking on the projected gradient (the step grows by 1.2 before each search, halves
until sufficient decrease) and O'Donoghue & Candes' (2015) gradient restart of the momentum.  A start stops
on (i) the oracle ||x - x*|| / ||x*|| < thr_rec (the authors' ``stopNow``), (ii) ||P grad l(y)|| <= tol times
its largest value in the start (FASTA's relative residual), or (iii) max_iter iterations.  A failed start is
followed by a fresh one (projection of an N(0, I) draw), up to ``max_starts``.

No input checking here.  Trial i draws its starts from its own xoshiro256** state seeded by ``seeds[i]``.
"""

import numpy as np
from numba import njit

from ..core.rng import normal, seed_state

BIN, BIN_H, BIN_SI, L2L1, BBIN, BIN_EXP, BETA, OSB, TER, EIG = range(10)


@njit(cache=True, nogil=True)
def value_grad(kind, x, C, beta, g):
    """l(x) of regulariser ``kind``; writes its gradient into ``g`` (C is read by EIG only)."""
    N = x.size
    if kind == EIG:
        Cx = C @ x
        nx, q, r = np.dot(x, x), np.dot(Cx, Cx), np.dot(x, Cx)
        CCx = C @ Cx
        for i in range(N):
            g[i] = 2.0 * CCx[i] * nx + 2.0 * q * x[i] - 4.0 * r * Cx[i]
        return q * nx - r * r
    s1 = s2 = s3 = s4 = s6 = 0.0
    for i in range(N):
        xi = x[i]
        x2 = xi * xi
        if kind == L2L1:
            s1 += abs(xi)
            s2 += x2
        elif kind == BBIN or kind == BIN_EXP:
            u = 1.0 / (1.0 + x2) if kind == BBIN else np.exp(-x2)
            s1 += u
            s2 += u * u
        elif kind == BETA:
            s2 += (x2 - beta) * (x2 - beta)
        else:
            s2 += x2
            s3 += x2 * xi
            s4 += x2 * x2
            s6 += x2 * x2 * x2
    sN = np.sqrt(N)
    for i in range(N):
        xi = x[i]
        x2 = xi * xi
        if kind == BIN:
            g[i] = 4.0 * N * x2 * xi - 4.0 * s2 * xi
        elif kind == BIN_H:
            g[i] = 2.0 * sN * x2 * xi / np.sqrt(s4) - 2.0 * xi
        elif kind == BIN_SI:
            g[i] = sN * (2.0 * x2 * xi * s2 / np.sqrt(s4) - 2.0 * np.sqrt(s4) * xi) / (s2 * s2)
        elif kind == L2L1:
            g[i] = 2.0 * N * xi - 2.0 * s1 * np.sign(xi)
        elif kind == BBIN:
            u = 1.0 / (1.0 + x2)
            g[i] = -4.0 * N * xi * u * u * u + 4.0 * s1 * xi * u * u
        elif kind == BIN_EXP:
            u = np.exp(-x2)
            g[i] = -4.0 * N * xi * u * u + 4.0 * s1 * xi * u
        elif kind == BETA:
            g[i] = 4.0 * (x2 - beta) * xi
        elif kind == OSB:
            g[i] = 2.0 * xi * (s4 + 2.0 * s2 * x2 - 3.0 * s3 * xi)
        else:
            g[i] = 2.0 * xi * (s6 + 3.0 * s2 * x2 * x2 - 4.0 * s4 * x2)
    if kind == BIN:
        return N * s4 - s2 * s2
    if kind == BIN_H:
        return sN * np.sqrt(s4) - s2
    if kind == BIN_SI:
        return sN * np.sqrt(s4) / s2 - 1.0
    if kind == L2L1 or kind == BBIN or kind == BIN_EXP:
        return N * s2 - s1 * s1
    if kind == BETA:
        return s2
    if kind == OSB:
        return s2 * s4 - s3 * s3
    return s2 * s6 - s4 * s4


@njit(cache=True, nogil=True)
def values_grads(kind, X, C, beta, f, G):
    """Row-wise l(X[k]) into f[k] and its gradient into G[k] (C[k] for EIG, else C[0])."""
    for k in range(X.shape[0]):
        f[k] = value_grad(kind, X[k], C[k] if kind == EIG else C[0], beta, G[k])


@njit(cache=True, nogil=True)
def _project_null(U, v, out):
    """out = (I - U U^T) v, the component of v in null(A)."""
    u = U @ (U.T @ v)
    for i in range(v.size):
        out[i] = v[i] - u[i]


@njit(cache=True, nogil=True)
def _rel_dist(x, xs, nxs):
    d2 = 0.0
    for j in range(x.size):
        d2 += (x[j] - xs[j]) ** 2
    return np.sqrt(d2) / nxs


@njit(cache=True, nogil=True)
def _fista_start(kind, U, c, xs, C, beta, max_iter, tol, thr_rec, state, x, x_prev, y, p, g, gp, scratch):
    """One start of projected FISTA; ends with the iterate in ``x``; returns the iterations used."""
    N = x.size
    nxs = np.sqrt(np.dot(xs, xs))
    for j in range(N):
        scratch[j] = normal(state)
    w = U @ (U.T @ scratch - c)
    for j in range(N):
        x[j] = scratch[j] - w[j]
        x_prev[j] = x[j]
    t, tau, res_max = 1.0, 1.0, 0.0
    for it in range(max_iter):
        t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        mom = (t - 1.0) / t_next
        for j in range(N):
            y[j] = x[j] + mom * (x[j] - x_prev[j])
        fy = value_grad(kind, y, C, beta, g)
        _project_null(U, g, gp)
        gn2 = np.dot(gp, gp)
        res_max = max(res_max, np.sqrt(gn2))
        if np.sqrt(gn2) <= tol * res_max or gn2 == 0.0:
            for j in range(N):
                x[j] = y[j]
            return it + 1
        tau *= 1.2
        for _ in range(200):                     # Armijo backtracking along -P grad l(y)
            for j in range(N):
                p[j] = y[j] - tau * gp[j]
            if value_grad(kind, p, C, beta, scratch) <= fy - 0.5 * tau * gn2:
                break
            tau *= 0.5
        dot = 0.0                                # gradient restart of the momentum
        for j in range(N):
            dot += gp[j] * (p[j] - x[j])
        t = 1.0 if dot > 0.0 else t_next
        for j in range(N):
            x_prev[j] = x[j]
            x[j] = p[j]
        if _rel_dist(x, xs, nxs) < thr_rec:
            return it + 1
    return max_iter


@njit(cache=True, nogil=True)
def recover_trials(kind, U, c, x_star, C, beta, max_starts, max_iter, tol, thr_rec, seeds, x_out, starts_out,
                   iters_out, relerr_out, value_out, resid_out, first_relerr_out):
    """Projected FISTA with restarts for ``seeds.size`` trials: trial i uses U[i] (N x M, orthonormal columns),
    c[i] = U[i]^T x*_i, x_star[i] (the oracle stop and the success measure only) and C[i] (EIG; else C[0]).

    Per trial: x_out the end point of the last start, starts_out the starts used, iters_out the iterations over
    all starts, relerr_out ||x - x*|| / ||x*|| at the end, value_out l(x), resid_out ||P grad l|| / ||grad l||
    at the end (0/0 := 0), first_relerr_out the relative error after the first start."""
    N = U.shape[1]
    state = np.empty(4, dtype=np.uint64)
    x, x_prev, y, p = np.empty(N), np.empty(N), np.empty(N), np.empty(N)
    g, gp, scratch = np.empty(N), np.empty(N), np.empty(N)
    for i in range(seeds.shape[0]):
        seed_state(seeds[i], state)
        Ci = C[i] if kind == EIG else C[0]
        nxs = np.sqrt(np.dot(x_star[i], x_star[i]))
        total, start, rel = 0, 0, np.inf
        while start < max_starts:
            start += 1
            total += _fista_start(kind, U[i], c[i], x_star[i], Ci, beta, max_iter, tol, thr_rec, state,
                                  x, x_prev, y, p, g, gp, scratch)
            rel = _rel_dist(x, x_star[i], nxs)
            if start == 1:
                first_relerr_out[i] = rel
            if rel < thr_rec:
                break
        value_out[i] = value_grad(kind, x, Ci, beta, g)
        _project_null(U[i], g, gp)
        gnorm = np.sqrt(np.dot(g, g))
        x_out[i, :] = x
        starts_out[i] = start
        iters_out[i] = total
        relerr_out[i] = rel
        resid_out[i] = np.sqrt(np.dot(gp, gp)) / gnorm if gnorm > 0.0 else 0.0
