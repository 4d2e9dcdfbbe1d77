"""Jitted kernels for the soft committee machine with a power-law input spectrum.

Worschech & Rosenow, ICLR 2025 (arXiv:2410.09005), Sec. 2-4.  Notation follows the paper:
student J_i (i < K), teacher B_n (n < M), input xi ~ N(0, Sigma) with L distinct eigenvalues
lambda_l of multiplicity N/L, pre-activations x_i = J_i.xi/sqrt(N), y_n = B_n.xi/sqrt(N),
outputs (1/sqrt K) sum_i g(x_i) and (1/sqrt M) sum_n g(y_n), g(x) = erf(x/sqrt 2) or x.

Everything here is small and typed by its inputs; no I/O, no validation (see the Python API).
Gaussian integrals for g(x) = erf(x/sqrt 2) are the closed forms of Saad & Solla (1995).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from theorylab.core.parallel import map_blocks

from theorylab.core.rng import normal, seed_state

TWO_OVER_PI = 2.0 / math.pi


# --------------------------------------------------------------------------- Gaussian integrals
@njit(cache=True)
def i2(cuu, cvv, cuv):
    """E[g(u) g(v)] = (2/pi) arcsin(C_uv / sqrt((1+C_uu)(1+C_vv)))."""
    return TWO_OVER_PI * math.asin(cuv / math.sqrt((1.0 + cuu) * (1.0 + cvv)))


@njit(cache=True)
def gp_gp(cuu, cvv, cuv):
    """E[g'(u) g'(v)] = (2/pi) / sqrt((1+C_uu)(1+C_vv) - C_uv^2)."""
    return TWO_OVER_PI / math.sqrt((1.0 + cuu) * (1.0 + cvv) - cuv * cuv)


@njit(cache=True)
def gpp_g(cuu, cvv, cuv):
    """E[g''(u) g(v)] = -(2/pi) C_uv / ((1+C_uu) sqrt((1+C_uu)(1+C_vv) - C_uv^2)) (Price's theorem)."""
    return -TWO_OVER_PI * cuv / ((1.0 + cuu) * math.sqrt((1.0 + cuu) * (1.0 + cvv) - cuv * cuv))


@njit(cache=True)
def i4(C, a, b, c, d):
    """E[g'(u_a) g'(u_b) g(u_c) g(u_d)] for u ~ N(0, C), the 4-point integral of Saad & Solla (1995)."""
    c11 = 1.0 + C[a, a]
    c22 = 1.0 + C[b, b]
    c33 = 1.0 + C[c, c]
    c44 = 1.0 + C[d, d]
    c12, c13, c14 = C[a, b], C[a, c], C[a, d]
    c23, c24, c34 = C[b, c], C[b, d], C[c, d]
    lam4 = c11 * c22 - c12 * c12
    lam0 = lam4 * c34 - c23 * c24 * c11 - c13 * c14 * c22 + c12 * c13 * c24 + c12 * c14 * c23
    lam1 = lam4 * c33 - c23 * c23 * c11 - c13 * c13 * c22 + 2.0 * c12 * c13 * c23
    lam2 = lam4 * c44 - c24 * c24 * c11 - c14 * c14 * c22 + 2.0 * c12 * c14 * c24
    arg = lam0 / math.sqrt(lam1 * lam2)
    if arg > 1.0:
        arg = 1.0
    elif arg < -1.0:
        arg = -1.0
    return (4.0 / (math.pi * math.pi)) / math.sqrt(lam4) * math.asin(arg)


@njit(cache=True)
def output_weights(K, M):
    """c with y - f = sum_a c_a g(u_a), u = (x_1..x_K, y_1..y_M)."""
    c = np.empty(K + M)
    for i in range(K):
        c[i] = -1.0 / math.sqrt(K)
    for n in range(M):
        c[K + n] = 1.0 / math.sqrt(M)
    return c


@njit(cache=True)
def eps_from_cov(C, K, M, erf):
    """Generalisation error eps_g = E[(f - y)^2]/2 from the pre-activation covariance C (exact)."""
    c = output_weights(K, M)
    n = K + M
    s = 0.0
    for a in range(n):
        for b in range(n):
            if erf:
                s += c[a] * c[b] * i2(C[a, a], C[b, b], C[a, b])
            else:
                s += c[a] * c[b] * C[a, b]
    return 0.5 * s


@njit(cache=True)
def drift_ab(C, K, M, erf, A, Bm):
    """The first-order Stein coefficients A[i, k] = E[d delta_i / d x_k], Bm[i, m] = E[d delta_i / d y_m]
    (delta_i = g'(x_i)(y - f)/sqrt(K)), written into A and Bm: K (K + M) two- and three-point integrals."""
    sK = math.sqrt(K)
    sM = math.sqrt(M)
    c = output_weights(K, M)
    if not erf:
        for i in range(K):
            for k in range(K):
                A[i, k] = -1.0 / K
            for m in range(M):
                Bm[i, m] = 1.0 / (sK * sM)
        return
    n = K + M
    for i in range(K):
        s = 0.0  # E[g''(x_i)(y - f)]
        for a in range(n):
            s += c[a] * gpp_g(C[i, i], C[a, a], C[i, a])
        for k in range(K):
            A[i, k] = -gp_gp(C[i, i], C[k, k], C[i, k]) / K
        A[i, i] += s / sK
        for m in range(M):
            Bm[i, m] = gp_gp(C[i, i], C[K + m, K + m], C[i, K + m]) / (sK * sM)


@njit(cache=True)
def drift_matrices(C, K, M, erf, A, Bm, D):
    """Stein-lemma coefficients of the order-parameter ODEs, written into A, Bm, D.

    A, Bm as in :func:`drift_ab`; D[i, k] = E[delta_i delta_k] (K^2 (K + M)^2 four-point
    integrals, the eta^2 term).  Returns eps_g.
    """
    drift_ab(C, K, M, erf, A, Bm)
    if not erf:
        eps = eps_from_cov(C, K, M, erf)
        for i in range(K):
            for k in range(K):
                D[i, k] = 2.0 * eps / K
        return eps
    c = output_weights(K, M)
    n = K + M
    for i in range(K):
        for k in range(i, K):
            s = 0.0
            for a in range(n):  # i4 is symmetric in its last two indices: b >= a, off-diagonal twice
                s += c[a] * c[a] * i4(C, i, k, a, a)
                for b in range(a + 1, n):
                    s += 2.0 * c[a] * c[b] * i4(C, i, k, a, b)
            D[i, k] = s / K
            D[k, i] = D[i, k]
    return eps_from_cov(C, K, M, erf)


# --------------------------------------------------------------------------- ODE (per eigen-group)
# Group overlaps are stored with the group index last, q[i, k, l] = q^l_ik (K, K, L),
# r[i, m, l] (K, M, L), t[n, m, l] (M, M, L), so that every loop over the L groups is a
# contiguous, vectorisable inner loop.
_FM = {"reassoc", "contract"}  # reordering / fused multiply-add only; NaN and inf semantics kept


@njit(cache=True, fastmath=_FM)
def _wsum(w, x):
    s = 0.0
    for l in range(w.shape[0]):
        s += w[l] * x[l]
    return s


@njit(cache=True, fastmath=_FM)
def group_cov(q, r, t, w, K, M, C):
    """Pre-activation covariance C = sum_l w_l [[q^l, r^l], [r^l^T, t^l]] with w_l = lambda_l / L."""
    for i in range(K):
        for k in range(K):
            C[i, k] = _wsum(w, q[i, k])
        for m in range(M):
            C[i, K + m] = _wsum(w, r[i, m])
            C[K + m, i] = C[i, K + m]
    for n in range(M):
        for m in range(M):
            C[K + n, K + m] = _wsum(w, t[n, m])


@njit(cache=True, fastmath=_FM)
def _group_drift(q, r, t, el, eta, A, Bm, D, dq, dr):
    """dq^l = el_l [A q^l + q^l A^T + Bm r^l^T + r^l Bm^T + eta D], dr^l = el_l [A r^l + Bm t^l], el_l = eta lam_l."""
    K, M, L = q.shape[0], t.shape[0], q.shape[2]
    for i in range(K):
        for k in range(i, K):
            out = dq[i, k]
            c = eta * D[i, k]
            for l in range(L):
                out[l] = c
            for j in range(K):
                a1, a2 = A[i, j], A[k, j]
                qjk, qij = q[j, k], q[i, j]
                for l in range(L):
                    out[l] += a1 * qjk[l] + a2 * qij[l]
            for m in range(M):
                b1, b2 = Bm[i, m], Bm[k, m]
                rkm, rim = r[k, m], r[i, m]
                for l in range(L):
                    out[l] += b1 * rkm[l] + b2 * rim[l]
            for l in range(L):
                out[l] *= el[l]
            if k != i:
                for l in range(L):
                    dq[k, i, l] = out[l]
        for m in range(M):
            out = dr[i, m]
            for l in range(L):
                out[l] = 0.0
            for j in range(K):
                a1 = A[i, j]
                rjm = r[j, m]
                for l in range(L):
                    out[l] += a1 * rjm[l]
            for n in range(M):
                b1 = Bm[i, n]
                tnm = t[n, m]
                for l in range(L):
                    out[l] += b1 * tnm[l]
            for l in range(L):
                out[l] *= el[l]


@njit(cache=True)
def group_rhs(q, r, t, w, el, eta, erf, dq, dr, C, A, Bm, D):
    """d q^l/d alpha and d r^l/d alpha of the eigen-group ODEs (group index last); returns eps_g.

    dq^l = eta lam_l [A q^l + q^l A^T + Bm r^l^T + r^l Bm^T] + eta^2 lam_l D,
    dr^l = eta lam_l [A r^l + Bm t^l],   with w_l = lam_l/L and el_l = eta lam_l (0 for a
    frozen, untrained group); A, Bm, D from the level-1 covariance (Stein's lemma).
    """
    K, M = q.shape[0], t.shape[0]
    group_cov(q, r, t, w, K, M, C)
    eps = drift_matrices(C, K, M, erf, A, Bm, D)
    _group_drift(q, r, t, el, eta, A, Bm, D, dq, dr)
    return eps


@njit(cache=True)
def _axpy(out, x, a, k):
    """out = x + a * k (flat, in place)."""
    o, xx, kk = out.ravel(), x.ravel(), k.ravel()
    for p in range(o.size):
        o[p] = xx[p] + a * kk[p]


@njit(cache=True)
def _rk4_combine(x, dt, k1, k2, k3, k4):
    xx, a, b, c, d = x.ravel(), k1.ravel(), k2.ravel(), k3.ravel(), k4.ravel()
    big = 0.0
    for p in range(xx.size):
        xx[p] += (dt / 6.0) * (a[p] + 2.0 * b[p] + 2.0 * c[p] + d[p])
        v = abs(xx[p])
        if not v <= big:  # also catches NaN
            big = v if math.isfinite(v) else math.inf
    return big


@njit(cache=True)
def rk4_groups(q0, r0, t0, lam, trained, eta, erf, h, alpha_rec, blowup):
    """Classical RK4 with step <= h, landing exactly on each time in ``alpha_rec`` (sorted).

    q0 (K, K, L), r0 (K, M, L), t0 (M, M, L): initial group overlaps, group index LAST and
    C-contiguous (the caller moves the axis of ``group_overlaps``' arrays: a transpose and copy
    in here compiled in ~3 s, once per memory layout).  Returns (eps (n_rec,), Q (n_rec, K, K),
    R (n_rec, K, M), status) with status = -1 on success or the index of the record time at
    which the state became non-finite / exceeded ``blowup``.
    """
    K, M, L = q0.shape[0], t0.shape[0], q0.shape[2]
    n_rec = alpha_rec.shape[0]
    eps_out = np.full(n_rec, np.nan)
    Q_out = np.full((n_rec, K, K), np.nan)
    R_out = np.full((n_rec, K, M), np.nan)
    q = q0.copy()
    r = r0.copy()
    t = t0
    w = lam / L
    el = np.empty(L)
    for l in range(L):
        el[l] = eta * lam[l] if trained[l] else 0.0
    qs = np.empty_like(q)
    rs = np.empty_like(r)
    C = np.empty((K + M, K + M))
    A = np.empty((K, K))
    Bm = np.empty((K, M))
    D = np.empty((K, K))
    k1q, k2q, k3q, k4q = np.empty_like(q), np.empty_like(q), np.empty_like(q), np.empty_like(q)
    k1r, k2r, k3r, k4r = np.empty_like(r), np.empty_like(r), np.empty_like(r), np.empty_like(r)
    alpha = 0.0
    for j in range(n_rec):
        while alpha < alpha_rec[j]:
            dt = min(h, alpha_rec[j] - alpha)
            group_rhs(q, r, t, w, el, eta, erf, k1q, k1r, C, A, Bm, D)
            _axpy(qs, q, 0.5 * dt, k1q)
            _axpy(rs, r, 0.5 * dt, k1r)
            group_rhs(qs, rs, t, w, el, eta, erf, k2q, k2r, C, A, Bm, D)
            _axpy(qs, q, 0.5 * dt, k2q)
            _axpy(rs, r, 0.5 * dt, k2r)
            group_rhs(qs, rs, t, w, el, eta, erf, k3q, k3r, C, A, Bm, D)
            _axpy(qs, q, dt, k3q)
            _axpy(rs, r, dt, k3r)
            group_rhs(qs, rs, t, w, el, eta, erf, k4q, k4r, C, A, Bm, D)
            big = max(_rk4_combine(q, dt, k1q, k2q, k3q, k4q), _rk4_combine(r, dt, k1r, k2r, k3r, k4r))
            alpha += dt
            if not big <= blowup:
                return eps_out, Q_out, R_out, j
        group_cov(q, r, t, w, K, M, C)
        eps_out[j] = eps_from_cov(C, K, M, erf)
        for i in range(K):   # (element loops: a 2-d slice assignment compiles in ~1.6 s)
            for k in range(K):
                Q_out[j, i, k] = C[i, k]
            for m in range(M):
                R_out[j, i, m] = C[i, K + m]
    return eps_out, Q_out, R_out, -1


# --------------------------------------------------------------------------- one-pass SGD
@njit(cache=True)
def _eps_sgd(J, B, lam, K, M, N, erf, C):
    """eps_g from the level-1 order parameters C = [J; B] Sigma [J; B]^T / N (exact, O(N (K+M)^2))."""
    for a in range(K + M):
        for b in range(a, K + M):
            s = 0.0
            u = J[a] if a < K else B[a - K]
            v = J[b] if b < K else B[b - K]
            for p in range(N):
                s += lam[p] * u[p] * v[p]
            C[a, b] = s / N
            C[b, a] = C[a, b]
    return eps_from_cov(C, K, M, erf)


@njit(cache=True, fastmath=True)
def _preactivations(W, xi, out, scale):
    """out[i] = scale * W[i] . xi for every row i (the O(N K) half of a step)."""
    for i in range(W.shape[0]):
        s = 0.0
        for p in range(xi.shape[0]):
            s += W[i, p] * xi[p]
        out[i] = s * scale


@njit(cache=True)
def _sgd_steps(J, B, sq, n_trained, eta, erf, n_steps, state, xi, x, y, delta):
    """``n_steps`` one-pass SGD steps in place, J_i <- J_i + (eta/sqrt N) delta_i xi (Sec. 2).

    xi = sqrt(lambda) * z with z standard normal from the path's xoshiro/ziggurat ``state``;
    delta_i = g'(x_i)(y - f)/sqrt(K).  No allocation: xi, x, y, delta are work arrays.
    """
    K, N = J.shape
    M = B.shape[0]
    inv_sN = 1.0 / math.sqrt(N)
    inv_sK = 1.0 / math.sqrt(K)
    inv_sM = 1.0 / math.sqrt(M)
    inv_r2 = 1.0 / math.sqrt(2.0)
    cgp = math.sqrt(2.0 / math.pi)
    for _ in range(n_steps):
        for p in range(N):
            xi[p] = sq[p] * normal(state)
        _preactivations(J, xi, x, inv_sN)
        _preactivations(B, xi, y, inv_sN)
        f = 0.0
        for i in range(K):
            f += math.erf(x[i] * inv_r2) if erf else x[i]
        t = 0.0
        for n in range(M):
            t += math.erf(y[n] * inv_r2) if erf else y[n]
        err = t * inv_sM - f * inv_sK  # y - f
        for i in range(K):
            gp = cgp * math.exp(-0.5 * x[i] * x[i]) if erf else 1.0
            delta[i] = eta * inv_sN * gp * err * inv_sK
        _update(J, xi, delta, n_trained)


@njit(cache=True, fastmath=True)
def _update(J, xi, delta, n_trained):
    """J[i, :n_trained] += delta_i xi[:n_trained] (the other O(N K) half of a step)."""
    for i in range(J.shape[0]):
        di = delta[i]
        for p in range(n_trained):
            J[i, p] += di * xi[p]


@njit(cache=True, nogil=True)
def sgd_path(J0, B, lam, n_trained, eta, erf, rec_steps, seed, blowup):
    """One path of one-pass SGD, J_i <- J_i + (eta/sqrt N) delta_i xi, xi = sqrt(lam) * z.

    Works in the eigenbasis of Sigma (equivalent by rotation invariance of the Gaussian
    initialisation).  Only the first ``n_trained`` coordinates are updated (Sec. 4.3).
    Normals from ``core.rng`` (one xoshiro256** state per path, seeded by ``seed``).
    Returns eps_g at the steps in ``rec_steps`` (computed exactly from the order parameters,
    only at those steps) and the index of the first record that is non-finite or above
    ``blowup`` (-1 if none); the caller derives ``blowup`` from the problem.
    """
    K, N = J0.shape
    M = B.shape[0]
    state = np.empty(4, dtype=np.uint64)
    seed_state(seed, state)
    J = J0.copy()
    sq = np.sqrt(lam)
    xi = np.empty(N)
    x = np.empty(K)
    y = np.empty(M)
    delta = np.empty(K)
    C = np.empty((K + M, K + M))
    n_rec = rec_steps.shape[0]
    eps = np.full(n_rec, np.nan)
    step = 0
    for j in range(n_rec):
        if rec_steps[j] > step:
            _sgd_steps(J, B, sq, n_trained, eta, erf, rec_steps[j] - step, state, xi, x, y, delta)
            step = rec_steps[j]
        e = _eps_sgd(J, B, lam, K, M, N, erf, C)
        if not e <= blowup:  # also catches NaN
            return eps, j
        eps[j] = e
    return eps, -1


def sgd_paths(J0, B, lam, n_trained, eta, erf, rec_steps, seeds, blowup):
    """Independent SGD paths, blocks of paths on threads (:func:`theorylab.core.parallel.map_blocks`
    calling the ``nogil`` :func:`sgd_path` once per path; path p seeded by ``seeds[p]``, whatever the split).

    J0: (P, K, N), B: (P, M, N), lam: (P, N) per-path spectra (so paths may differ in L);
    blowup: (P,) per-path divergence bounds on eps_g.  (A ``prange`` kernel compiled about twice
    as slowly, and a serial kernel looping over the paths would compile sgd_path's tree a second time;
    a path is N x steps work, so one Python call per path costs nothing measurable.)
    """
    P = J0.shape[0]
    eps = np.empty((P, rec_steps.shape[0]))
    status = np.empty(P, dtype=np.int64)
    K, N = J0.shape[1], J0.shape[2]
    work = P * float(rec_steps[-1] if rec_steps.size else 0) * (2 * K + B.shape[1] + 1) * N

    def block(s):
        for p in range(s.start, s.stop):
            eps[p], status[p] = sgd_path(J0[p], B[p], lam[p], n_trained, eta, erf, rec_steps, seeds[p], blowup[p])
    map_blocks(block, P, work=work)
    return eps, status
