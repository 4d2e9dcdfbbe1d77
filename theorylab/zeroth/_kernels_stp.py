"""Jitted kernel: the Stochastic Three Points method (STP) over many independent paths.

STP (Bergou, Gorbunov & Richtarik 2020; the algorithm analysed by El Bakkali El Kadi & Saadi,
ICLR 2025): draw a direction s_t ~ D, then

    theta_{t+1} = argmin{ f(theta_t), f(theta_t + alpha_t s_t), f(theta_t - alpha_t s_t) }.

Objective (separable, minimum f* = 0 at theta*):  f(theta) = (1/p) sum_i lam_i |theta_i - theta*_i|^p,
p = 2 being the diagonal quadratic 1/2 (theta - theta*)^T diag(lam) (theta - theta*).

Step rules (``rule``):
  RULE_EXACT       alpha_t = |<grad f(theta_t), s_t>| / L          (exact directional derivative)
  RULE_FD          alpha_t = |f(theta_t + h s_t) - f(theta_t)| / (h L)   (forward difference, one extra query)
  RULE_DECREASING  alpha_t = alpha0 (t + 1)^(-gamma)               (a fixed schedule; gamma = 0: constant)
Direction laws (``law``): LAW_SPHERE uniform on the unit sphere, LAW_NORMAL N(0, I/d), LAW_COORDINATE a
uniformly random basis vector e_i (all three have E[s s^T] = I/d).

No input checking here (see theorylab.zeroth.stp).  Every path owns a xoshiro256** state seeded from its
own entry of ``seeds``, so path m is the same whatever the number of paths run with it.  One serial
function with the objective written inline: a cold compile of the parallel (prange), multi-function version
took ~14 s on the shared CI machine (this paper's whole CI share is 15 s).  It releases the GIL (nogil), and
the Python layer runs blocks of paths on threads instead.
"""

import numpy as np
from numba import njit

from ..core.rng import below, normal, seed_state

RULE_EXACT = 0
RULE_FD = 1
RULE_DECREASING = 2

LAW_SPHERE = 0
LAW_NORMAL = 1
LAW_COORDINATE = 2


@njit(cache=True, nogil=True)
def stp_paths(lam, theta_star, power, theta0, L, rule, alpha0, gamma, h, law, b, n_steps, record_at, seeds, f_out,
              rejected):
    """``seeds.size`` independent STP paths from theta0 with ``b`` directions per step (b = 1 is STP: the best
    of 2b + 1 points).  f_out[m, k] = f(theta^m_{record_at[k]}) - f*; rejected[m] counts the steps at which no
    trial point was strictly better (theta_{t+1} = theta_t).

    Every trial value is a direct evaluation of f (no incremental formula), so the recorded gaps are exactly
    non-increasing.  The direction is drawn unnormalised (z) and scaled by c inside the later passes: three
    passes over d per direction (draw with <grad f, z>, the two trial values, the move)."""
    d = theta0.size
    quad = power == 2.0
    p_int = int(power) if power == np.floor(power) else 0
    state = np.empty(4, dtype=np.uint64)
    theta = np.empty(d)
    z = np.zeros(d)
    best = np.zeros(d)
    for m in range(seeds.shape[0]):
        seed_state(seeds[m], state)
        theta[:] = theta0
        f = 0.0                                   # f(theta0) - f*
        for i in range(d):
            u = abs(theta[i] - theta_star[i])
            f += lam[i] * (0.5 * u * u if quad else u ** power / power)
        k = 0
        while k < record_at.size and record_at[k] == 0:
            f_out[m, k] = f
            k += 1
        rej = 0
        for t in range(n_steps):
            f_new = f
            step = 0.0                            # theta_{t+1} = theta_t + step * best
            for j in range(b):
                # z with s = c z ~ D (E[s s^T] = I/d); Dz = <grad f(theta), z> when the exact step needs it
                Dz = 0.0
                if law == LAW_COORDINATE:
                    z[:] = 0.0
                    i0 = below(state, d)
                    z[i0] = 1.0
                    c = 1.0
                    u = theta[i0] - theta_star[i0]
                    if rule == RULE_EXACT:
                        Dz = lam[i0] * u if quad else lam[i0] * np.sign(u) * abs(u) ** (power - 1.0)
                else:
                    nrm = 0.0
                    if rule == RULE_EXACT and quad:
                        for i in range(d):
                            zi = normal(state)
                            z[i] = zi
                            nrm += zi * zi
                            Dz += lam[i] * (theta[i] - theta_star[i]) * zi
                    else:
                        for i in range(d):
                            zi = normal(state)
                            z[i] = zi
                            nrm += zi * zi
                        if rule == RULE_EXACT:
                            for i in range(d):
                                u = theta[i] - theta_star[i]
                                if u != 0.0:
                                    au = abs(u)
                                    if p_int > 0:
                                        v = 1.0
                                        for _ in range(p_int - 1):
                                            v *= au
                                    else:
                                        v = au ** (power - 1.0)
                                    Dz += lam[i] * (v if u > 0 else -v) * z[i]
                    c = 1.0 / np.sqrt(nrm) if law == LAW_SPHERE else 1.0 / np.sqrt(d)
                # step size alpha_t (module docstring)
                if rule == RULE_EXACT:
                    alpha = abs(c * Dz) / L
                elif rule == RULE_DECREASING:
                    alpha = alpha0 * (t + 1.0) ** (-gamma)
                else:
                    a = h * c                     # query f(theta + h s)
                    fh = 0.0
                    if quad:
                        for i in range(d):
                            u = theta[i] + a * z[i] - theta_star[i]
                            fh += lam[i] * u * u
                        fh *= 0.5
                    else:
                        for i in range(d):
                            fh += lam[i] * abs(theta[i] + a * z[i] - theta_star[i]) ** power
                        fh /= power
                    alpha = abs(fh - f) / (h * L)
                a = alpha * c                     # trial points theta +- alpha s = theta +- a z
                fp = 0.0
                fm = 0.0
                if quad:
                    for i in range(d):
                        u = theta[i] - theta_star[i]
                        up = u + a * z[i]
                        um = u - a * z[i]
                        fp += lam[i] * up * up
                        fm += lam[i] * um * um
                    fp *= 0.5
                    fm *= 0.5
                elif p_int > 0:                   # integer p: products instead of pow (4x faster at p = 4)
                    for i in range(d):
                        u = theta[i] - theta_star[i]
                        ap = abs(u + a * z[i])
                        am = abs(u - a * z[i])
                        vp = ap
                        vm = am
                        for _ in range(p_int - 1):
                            vp *= ap
                            vm *= am
                        fp += lam[i] * vp
                        fm += lam[i] * vm
                    fp /= power
                    fm /= power
                else:
                    for i in range(d):
                        u = theta[i] - theta_star[i]
                        fp += lam[i] * abs(u + a * z[i]) ** power
                        fm += lam[i] * abs(u - a * z[i]) ** power
                    fp /= power
                    fm /= power
                if fp < f_new and fp <= fm:
                    f_new = fp
                    step = a
                elif fm < f_new:
                    f_new = fm
                    step = -a
                else:
                    continue
                if b > 1:
                    best[:] = z
            if f_new < f:
                if b > 1:
                    for i in range(d):
                        theta[i] += step * best[i]
                else:
                    for i in range(d):
                        theta[i] += step * z[i]
                f = f_new
            else:
                rej += 1
            while k < record_at.size and record_at[k] == t + 1:
                f_out[m, k] = f
                k += 1
        rejected[m] = rej
