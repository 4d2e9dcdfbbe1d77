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
function with the objective written inline: a cold compile of the parallel, multi-function version took
~14 s on the shared CI machine (this paper's whole CI share is 15 s), and the paths are short and many.
"""

import numpy as np
from numba import njit

from ..core._rng import below, normal, seed_state

RULE_EXACT = 0
RULE_FD = 1
RULE_DECREASING = 2

LAW_SPHERE = 0
LAW_NORMAL = 1
LAW_COORDINATE = 2


@njit(cache=True)
def stp_paths(lam, theta_star, power, theta0, L, rule, alpha0, gamma, h, law, b, n_steps, record_at, seeds, f_out,
              rejected):
    """``seeds.size`` independent STP paths from theta0 with ``b`` directions per step (b = 1 is STP: the best
    of 2b + 1 points).  f_out[m, k] = f(theta^m_{record_at[k]}) - f*; rejected[m] counts the steps at which no
    trial point was strictly better (theta_{t+1} = theta_t)."""
    d = theta0.size
    quad = power == 2.0
    state = np.empty(4, dtype=np.uint64)
    theta = np.empty(d)
    s = np.zeros(d)
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
            step = 0.0
            for j in range(b):
                # s ~ D, E[s s^T] = I/d
                if law == LAW_COORDINATE:
                    s[:] = 0.0
                    s[below(state, d)] = 1.0
                else:
                    nrm = 0.0
                    for i in range(d):
                        s[i] = normal(state)
                        nrm += s[i] * s[i]
                    c = 1.0 / np.sqrt(nrm) if law == LAW_SPHERE else 1.0 / np.sqrt(d)
                    for i in range(d):
                        s[i] *= c
                # step size alpha_t (module docstring)
                if rule == RULE_DECREASING:
                    alpha = alpha0 * (t + 1.0) ** (-gamma)
                elif rule == RULE_EXACT:
                    D = 0.0                       # <grad f(theta), s>
                    for i in range(d):
                        u = theta[i] - theta_star[i]
                        if quad:
                            D += lam[i] * u * s[i]
                        elif u != 0.0:
                            D += lam[i] * np.sign(u) * abs(u) ** (power - 1.0) * s[i]
                    alpha = abs(D) / L
                else:
                    fh = 0.0                      # f(theta + h s) - f*
                    for i in range(d):
                        u = abs(theta[i] + h * s[i] - theta_star[i])
                        fh += lam[i] * (0.5 * u * u if quad else u ** power / power)
                    alpha = abs(fh - f) / (h * L)
                fp = 0.0                          # f(theta +- alpha s) - f*
                fm = 0.0
                for i in range(d):
                    u = theta[i] - theta_star[i]
                    up = abs(u + alpha * s[i])
                    um = abs(u - alpha * s[i])
                    if quad:
                        fp += lam[i] * 0.5 * up * up
                        fm += lam[i] * 0.5 * um * um
                    else:
                        fp += lam[i] * up ** power / power
                        fm += lam[i] * um ** power / power
                if fp < f_new and fp <= fm:
                    f_new = fp
                    step = alpha
                    best[:] = s
                elif fm < f_new:
                    f_new = fm
                    step = -alpha
                    best[:] = s
            if f_new < f:
                for i in range(d):
                    theta[i] += step * best[i]
                f = f_new
            else:
                rej += 1
            while k < record_at.size and record_at[k] == t + 1:
                f_out[m, k] = f
                k += 1
        rejected[m] = rej
