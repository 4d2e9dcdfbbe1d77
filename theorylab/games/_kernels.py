"""Jitted kernels of paper ``gabp``: Euclidean projection onto the simplex, the duality gap and tangent
residual of a two-player zero-sum matrix game, and last-iterate learning dynamics (projected gradient ascent,
APGA, GABP, optimistic GA) over many games / noise seeds.

Game: player x maximises x^T A y, player y maximises -x^T A y, on simplices; the gradient operator is
V(x, y) = (A y, -A^T x) (Abe et al. 2025, Sec. 2).  One run r plays the game A[r] from (x0, y0) with its own
xoshiro256** stream seeded from seeds[r] (theorylab.core.rng), so run r is the same whatever runs are
computed with it.  No input checking here (theorylab.games.matrix_games validates).

Update of every perturbed method (Algorithm 1 / eq. (3), written with the effective anchor s):

    pi^{t+1} = Proj_X( pi^t + eta_t [ Vhat(pi^t) - mu (pi^t - s) ] )

APGA: s = sigma^k.  GABP (paper): s = (k sigma^k + sigma^1)/(k + 1); k starts at 1 with sigma^1 = pi^1 and,
after every T_sigma updates, k <- k + 1 and sigma^k <- pi^{t+1}.  The authors' code (variants *_CODE) instead
re-anchors when its counter exceeds T_sigma (every T_sigma + 1 updates) to the current pi^t, after the
perturbation of that step has been computed, with weight k/(k + 1) where k starts at 0.
"""

import numpy as np
from numba import njit

from ..core.rng import normal, seed_state

GA, APGA, GABP, APGA_CODE, GABP_CODE, OGA = 0, 1, 2, 3, 4, 5
ETA_CONST, ETA_THM43 = 0, 1


@njit(cache=True)
def project_simplex(y, out):
    """out = argmin_{x in simplex} ||x - y|| (Michelot's algorithm): theta = (sum_{i in I} y_i - 1)/|I| over the
    active set I, dropping every i with y_i <= theta until I is stable; then x = max(y - theta, 0).  This is the
    same theta as the sort-based formula (largest rho with u_rho > (sum_{j<=rho} u_j - 1)/rho), without a sort."""
    n = y.size
    total = 0.0
    for i in range(n):
        total += y[i]
    m = n
    theta = (total - 1.0) / m
    changed = True
    while changed:
        changed = False
        total = 0.0
        m_new = 0
        for i in range(n):
            if y[i] > theta:
                total += y[i]
                m_new += 1
        if m_new == 0:              # rounding (|y| >> 1): keep the last active set
            break
        if m_new != m:
            changed = True
            m = m_new
        theta = (total - 1.0) / m
    s = 0.0
    for i in range(n):
        v = y[i] - theta
        out[i] = v if v > 0.0 else 0.0
        s += out[i]
    if s == 0.0:                    # all mass lost to rounding: the vertex of the largest entry
        out[np.argmax(y)] = 1.0


@njit(cache=True)
def tangent_residual_sq(g, x):
    """dist(g, N_simplex(x))^2 = min_lambda sum_{x_i>0} (g_i - lambda)^2 + sum_{x_i=0} (g_i - lambda)_+^2
    (the normal cone of the simplex at x is {a : a_i = lambda on supp x, a_i <= lambda off it}).  The convex
    piecewise quadratic is minimised exactly: lambda = (S + top-m off-support g) / (s + m) for the first m whose
    next off-support value lies below lambda."""
    s = 0
    S = 0.0
    n_off = 0
    off = np.empty(g.size)
    for i in range(g.size):
        if x[i] > 0.0:
            s += 1
            S += g[i]
        else:
            off[n_off] = g[i]
            n_off += 1
    off = np.sort(off[:n_off])[::-1]
    lam = S / s
    acc = S
    for m in range(n_off):
        if off[m] <= lam:
            break
        acc += off[m]
        lam = acc / (s + m + 1)
    r2 = 0.0
    for i in range(g.size):
        if x[i] > 0.0:
            r2 += (g[i] - lam) ** 2
        elif g[i] > lam:
            r2 += (g[i] - lam) ** 2
    return r2


@njit(cache=True)
def payoffs(A, x, y, gx, gy):
    """gx = A y, gy = -A^T x (the gradient operator V)."""
    d1, d2 = A.shape
    for i in range(d1):
        acc = 0.0
        for j in range(d2):
            acc += A[i, j] * y[j]
        gx[i] = acc
    for j in range(d2):
        gy[j] = 0.0
    for i in range(d1):
        xi = x[i]
        for j in range(d2):
            gy[j] -= A[i, j] * xi


@njit(cache=True)
def player_gaps(x, y, gx, gy):
    """(max_i gx_i - <x, gx>, max_j gy_j - <y, gy>): each player's best-response improvement; their sum is
    GAP(pi) = max_{pi~} <V(pi), pi~ - pi> = max_i (A y)_i - min_j (A^T x)_j."""
    bx, vx = gx[0], 0.0
    for i in range(x.size):
        bx = max(bx, gx[i])
        vx += x[i] * gx[i]
    by, vy = gy[0], 0.0
    for j in range(y.size):
        by = max(by, gy[j])
        vy += y[j] * gy[j]
    return bx - vx, by - vy


@njit(cache=True)
def _anchor(method, k, sig_x, sig_y, sig1_x, sig1_y, s_x, s_y):
    """The effective anchor s of the perturbation: sigma^k (APGA) or (k sigma^k + sigma^1)/(k + 1) (GABP)."""
    if method == GABP or method == GABP_CODE:
        w = k / (k + 1.0)
        s_x[:] = w * sig_x + (1.0 - w) * sig1_x
        s_y[:] = w * sig_y + (1.0 - w) * sig1_y
    else:
        s_x[:] = sig_x
        s_y[:] = sig_y


@njit(cache=True, nogil=True)
def run_dynamics(A_all, x0, y0, method, eta, mu, T_sigma, T, eta_mode, kappa, theta, noise_std, seeds, rec_t,
                 gap_out, res_out, reg_out):
    """For each run r (game A_all[r], stream seeds[r]) play T steps from pi^1 = (x0, y0) and store, at each
    recorded time t = rec_t[j] (1 <= t <= T + 1, increasing): gap_out[r, j] = GAP(pi^t), res_out[r, j] =
    r^tan(pi^t) and reg_out[r, j, p] = sum_{s=1}^{t} of player p's best-response improvement at pi^s (its
    dynamic regret up to t).  eta_mode ETA_THM43: eta_t = 1/(kappa (t - T_sigma (k(t) - 1)) + 2 theta)
    (Theorem 4.3); else eta_t = eta."""
    n_runs = A_all.shape[0]
    d1, d2 = A_all.shape[1], A_all.shape[2]
    state = np.empty(4, dtype=np.uint64)
    x, y = np.empty(d1), np.empty(d2)
    gx, gy = np.empty(d1), np.empty(d2)
    hx, hy = np.empty(d1), np.empty(d2)              # OGA's secondary sequence
    sig_x, sig_y = np.empty(d1), np.empty(d2)        # sigma^k
    s_x, s_y = np.empty(d1), np.empty(d2)            # effective anchor
    zx, zy = np.empty(d1), np.empty(d2)
    for r in range(n_runs):
        A = A_all[r]
        seed_state(seeds[r], state)
        x[:] = x0
        y[:] = y0
        hx[:] = x0
        hy[:] = y0
        sig_x[:] = x0
        sig_y[:] = y0
        k = 1 if method == GABP or method == APGA else 0
        _anchor(method, k, sig_x, sig_y, x0, y0, s_x, s_y)
        tau = 0
        reg_x, reg_y = 0.0, 0.0
        j = 0
        for t in range(1, T + 2):
            payoffs(A, x, y, gx, gy)
            px, py = player_gaps(x, y, gx, gy)
            reg_x += px
            reg_y += py
            while j < rec_t.size and rec_t[j] == t:
                gap_out[r, j] = px + py
                res_out[r, j] = np.sqrt(tangent_residual_sq(gx, x) + tangent_residual_sq(gy, y))
                reg_out[r, j, 0] = reg_x
                reg_out[r, j, 1] = reg_y
                j += 1
            if t == T + 1:
                break
            if noise_std > 0.0:
                for i in range(d1):
                    gx[i] += noise_std * normal(state)
                for i in range(d2):
                    gy[i] += noise_std * normal(state)
            if eta_mode == ETA_THM43:
                eta_t = 1.0 / (kappa * (tau + 1) + 2.0 * theta)
            else:
                eta_t = eta
            if method == OGA:
                for i in range(d1):
                    zx[i] = hx[i] + eta_t * gx[i]
                for i in range(d2):
                    zy[i] = hy[i] + eta_t * gy[i]
                project_simplex(zx, hx)
                project_simplex(zy, hy)
                for i in range(d1):
                    zx[i] = hx[i] + eta_t * gx[i]
                for i in range(d2):
                    zy[i] = hy[i] + eta_t * gy[i]
                project_simplex(zx, x)
                project_simplex(zy, y)
                continue
            m = 0.0 if method == GA else mu
            for i in range(d1):
                zx[i] = x[i] + eta_t * (gx[i] - m * (x[i] - s_x[i]))
            for i in range(d2):
                zy[i] = y[i] + eta_t * (gy[i] - m * (y[i] - s_y[i]))
            if method == APGA_CODE or method == GABP_CODE:
                # the code re-anchors at the current pi^t once its counter exceeds T_sigma
                if T_sigma < tau:
                    tau = 0
                    k += 1
                    sig_x[:] = x
                    sig_y[:] = y
                    _anchor(method, k, sig_x, sig_y, x0, y0, s_x, s_y)
                project_simplex(zx, x)
                project_simplex(zy, y)
                tau += 1
            else:
                project_simplex(zx, x)
                project_simplex(zy, y)
                tau += 1
                if method != GA and tau == T_sigma:
                    k += 1
                    tau = 0
                    sig_x[:] = x
                    sig_y[:] = y
                    _anchor(method, k, sig_x, sig_y, x0, y0, s_x, s_y)
