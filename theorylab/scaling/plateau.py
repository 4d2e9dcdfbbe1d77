"""The symmetric plateau of the erf committee machine (Worschech & Rosenow 2025, Sec. 5).

On the symmetric plateau every student unit overlaps every teacher unit alike: R_in = R,
Q_ii = Q, Q_ik = C.  With every group's teacher overlaps t^l = I (the N -> infinity teacher),
the group ODEs dq^l = eta lam_l [A q^l + q^l A^T + B r^l^T + r^l B^T + eta D],
dr^l = eta lam_l [A r^l + B] have a fixed point with all groups equal, q^l = Q, r^l = R:

    A R + B = 0,     A Q + Q A^T + B R^T + R B^T + eta E[delta delta^T] = 0,

the same equations as for isotropic inputs (each group's drift is lam_l times one common map),
so the plateau height depends on eta, K, M but not on L or beta (spec [DERIVED]; the paper's
own plateau-height formula, its Eq. (12), could not be read).  The eta term shifts the height
by a relative +0.2 eta/0.01 % for K = M = 2 (0.005805 at eta -> 0, 0.005921 at eta = 0.1).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import root

from theorylab.core import check_array, check_int, check_positive, check_real

from . import _kernels as kr

MAX_UNITS = 64  # K, M: each drift evaluation needs K^2 (K + M)^2 four-point integrals


def _symmetric_cov(Q, C, R, K, M):
    cov = np.full((K + M, K + M), 0.0)
    cov[:K, :K] = C
    cov[np.arange(K), np.arange(K)] = Q
    cov[:K, K:] = R
    cov[K:, :K] = R
    cov[K:, K:] = np.eye(M)
    return cov


def _drift_residual(x, K, M, eta):
    Q, C, R = x
    cov = _symmetric_cov(Q, C, R, K, M)
    A, Bm, D = np.empty((K, K)), np.empty((K, M)), np.zeros((K, K))
    if eta > 0:  # the eta^2 term needs K^2 (K + M)^2 four-point integrals; at eta = 0 only A and Bm
        kr.drift_matrices(cov, K, M, True, A, Bm, D)
    else:
        kr.drift_ab(cov, K, M, True, A, Bm)
    Qm, Rm = cov[:K, :K], cov[:K, K:]
    dQ = A @ Qm + Qm @ A.T + Bm @ Rm.T + Rm @ Bm.T + eta * D
    dR = A @ Rm + Bm
    out = [dR[0, 0], dQ[0, 0]]
    if K > 1:
        out.append(dQ[0, 1])
    return np.array(out)


def plateau_fixed_point(*, K=2, M=2, eta=0.0, guess=None):
    """The symmetric fixed point Q_ii = Q, Q_ik = C, R_in = R (T = I) and its eps_g.

    Solves A R + B T = 0 and A Q + Q A^T + B R^T + R B^T + eta E[delta delta^T] = 0 restricted
    to the symmetric manifold (all students alike, every student equally overlapping every
    teacher); ``eta = 0`` is the small-learning-rate plateau.

    Returns
    -------
    dict with keys ``Q``, ``C``, ``R``, ``eps``.
    """
    K = check_int("K", K, low=1, high=MAX_UNITS)
    M = check_int("M", M, low=1, high=MAX_UNITS)
    eta = check_real("eta", eta, low=0.0, high=2.0)
    if guess is not None:
        guess = check_array("guess", guess, shape=(3,))
        if not (guess[0] > 0 and abs(guess[1]) < guess[0] and abs(guess[2]) < np.sqrt(guess[0])):
            raise ValueError(f"guess (Q, C, R) must be a valid covariance: Q > 0, |C| < Q, |R| < sqrt(Q); got {tuple(guess)}")
    if guess is None:  # the isotropic K = M values Q = C = 1/(2K-1), R = 1/sqrt(K(2K-1)) as a start
        guess = (1.0 / (2 * K - 1), 1.0 / (2 * K - 1), 1.0 / np.sqrt(K * (2 * K - 1)))
    x0 = np.array(guess, float)[[0, 1, 2] if K > 1 else [0, 2]]
    fun = ((lambda x: _drift_residual(x, K, M, eta)) if K > 1
           else (lambda x: _drift_residual((x[0], x[0], x[1]), K, M, eta)))
    try:
        sol = root(fun, x0, tol=1e-13)
    except (ZeroDivisionError, FloatingPointError, ValueError) as exc:  # the solver left the covariance domain
        raise RuntimeError(f"plateau fixed point not found for K={K}, M={M}, eta={eta} from guess {tuple(x0)}: "
                           f"{type(exc).__name__}: {exc}") from exc
    converged = sol.success or (np.all(np.isfinite(sol.x)) and np.max(np.abs(fun(sol.x))) < 1e-12)
    if not converged or not np.all(np.isfinite(sol.x)):  # (hybr stalls at rounding level from a near-exact guess)
        raise RuntimeError(f"plateau fixed point not found for K={K}, M={M}, eta={eta}: {sol.message}")
    Q, C, R = (sol.x if K > 1 else (sol.x[0], sol.x[0], sol.x[1]))
    eps = kr.eps_from_cov(_symmetric_cov(Q, C, R, K, M), K, M, True)
    return {"Q": float(Q), "C": float(C), "R": float(R), "eps": float(eps)}


def plateau_height(*, K=2, M=2, eta=0.0):
    """eps_g on the symmetric plateau (L- and beta-independent, see module doc); eta = 0: small-eta limit."""
    return plateau_fixed_point(K=K, M=M, eta=eta)["eps"]


def escape_time(alphas, eps, *, height, fraction=0.5):
    """First alpha at which eps_g falls below ``fraction * height`` (linear interpolation in log eps).

    Returns NaN if it never does within ``alphas``.
    """
    alphas = check_array("alphas", alphas, ndim=1)
    if alphas.size == 0:
        raise ValueError("alphas must hold at least one time; got an empty array")
    eps = check_array("eps", eps, shape=(alphas.size,))
    height = check_positive("height", height)
    fraction = check_real("fraction", fraction, low=0.0, high=1.0, low_open=True)
    if alphas.size == 0 or np.any(np.diff(alphas) < 0) or np.any(eps < 0):
        raise ValueError(f"alphas must be non-empty and non-decreasing and eps >= 0; got {alphas.size} points")
    thr = fraction * height
    below = np.flatnonzero(eps < thr)
    if below.size == 0:
        return float("nan")
    j = int(below[0])
    if j == 0:
        return float(alphas[0])
    a0, a1 = alphas[j - 1], alphas[j]
    e0, e1 = np.log(eps[j - 1]), np.log(max(eps[j], 1e-300))
    w = (np.log(thr) - e0) / (e1 - e0)
    return float(a0 + w * (a1 - a0))


def plateau_value(alphas, eps, *, window):
    """eps_g at the flattest point (min |d log eps / d log alpha|) of the curve inside ``window``."""
    alphas = check_array("alphas", alphas, ndim=1)
    if alphas.size < 3:
        raise ValueError(f"alphas must hold at least 3 times (a slope needs neighbours); got {alphas.size}")
    eps = check_array("eps", eps, shape=(alphas.size,))
    window = check_array("window", window, shape=(2,))
    if not window[0] < window[1]:
        raise ValueError(f"window must be (low, high) with low < high; got {tuple(window)}")
    m = (alphas >= window[0]) & (alphas <= window[1]) & (alphas > 0) & (eps > 0)
    a, e = np.log(alphas[m]), np.log(eps[m])
    if a.size < 3:
        raise ValueError(f"window {window} holds {a.size} usable points; need at least 3")
    s = np.abs(np.gradient(e, a))
    return float(np.exp(e[np.argmin(s)])), float(s.min())


def plateau_instability_rate(*, L, K=2, M=2, beta=1.0, eta=0.1, step=1e-6):
    """Largest real part of the eigenvalues of the group ODE's Jacobian at the symmetric plateau.

    The fixed point of :func:`plateau_fixed_point` (with the eta^2 term), placed in every group
    (q^l = Q, r^l = R, t^l = I, which is a fixed point of the group ODEs, see module doc); the
    Jacobian of (q, r) -> (dq, dr) over all L groups by central differences of width ``step``.
    A trajectory leaves the plateau along the unstable direction at this rate, so the plateau
    lasts about log(1/delta_0) / rate for an initial asymmetry delta_0 (the reviewers' M^2/L law
    for the escape time corresponds to a rate ~ L/M^2).  Cost: 2 L K (K + M) right-hand sides.
    """
    from .model import check_beta, eigenvalues

    L = check_int("L", L, low=1, high=256)
    K = check_int("K", K, low=1, high=MAX_UNITS)
    M = check_int("M", M, low=1, high=MAX_UNITS)
    beta = check_beta(beta)
    eta = check_real("eta", eta, low=0.0, high=2.0, low_open=True)
    step = check_real("step", step, low=0.0, high=1e-2, low_open=True)
    fp = plateau_fixed_point(K=K, M=M, eta=eta)
    lam = eigenvalues(L, beta)
    q = np.full((K, K, L), fp["C"])
    q[np.arange(K), np.arange(K)] = fp["Q"]
    r = np.full((K, M, L), fp["R"])
    t = np.zeros((M, M, L))
    t[np.arange(M), np.arange(M)] = 1.0
    w, el = lam / L, eta * lam
    C, A, Bm, D = np.empty((K + M, K + M)), np.empty((K, K)), np.empty((K, M)), np.empty((K, K))
    dq, dr = np.empty_like(q), np.empty_like(r)
    nq = q.size

    def f(y):
        kr.group_rhs(np.ascontiguousarray(y[:nq].reshape(q.shape)), np.ascontiguousarray(y[nq:].reshape(r.shape)),
                     t, w, el, eta, True, dq, dr, C, A, Bm, D)
        return np.concatenate([dq.ravel(), dr.ravel()])

    y0 = np.concatenate([q.ravel(), r.ravel()])
    jac = np.empty((y0.size, y0.size))
    for j in range(y0.size):
        e = np.zeros(y0.size)
        e[j] = step
        jac[:, j] = (f(y0 + e) - f(y0 - e)) / (2 * step)
    return float(np.linalg.eigvals(jac).real.max())


def plateau_specialization_rate(*, L, K=2, M=2, beta=1.0, eta=0.1, small_eta=False, step=1e-6):
    """Growth rate of the specialisation mode of the symmetric plateau (K = M), from an L x L matrix.

    At the symmetric fixed point (every group q^l = Q, r^l = R, t^l = I) the ODE is invariant
    under permuting students and, separately, teachers, so its Jacobian is block-diagonal over
    the irreducible representations of S_K x S_M.  The specialisation direction
    r^l -> r^l + x_l P with P = I - 11^T/M (student i towards teacher i) spans the
    (standard x standard) representation, which only r carries, once per group: there the
    Jacobian acts as one L x L matrix G, G[l, j] = <d dr^l / d x_j, P> / <P, P>, built here from
    2L right-hand sides that need only the first-order Stein coefficients A and Bm
    (dr^l = eta lam_l (A r^l + Bm t^l)).  Its largest real eigenvalue equals
    :func:`plateau_instability_rate` (the whole Jacobian) where both were computed (M = 2..6 at
    L = 8, tests) at a cost of O(L K (K + M)) integrals instead of O(L K^3 (K + M)^3).

    ``small_eta=True``: the eta -> 0 limit of rate / eta (fixed point without the eta^2 term),
    the rate per unit of eta alpha of the small-learning-rate ODE.
    """
    from .model import check_beta, eigenvalues

    L = check_int("L", L, low=1, high=4096)
    K = check_int("K", K, low=1, high=MAX_UNITS)
    M = check_int("M", M, low=1, high=MAX_UNITS)
    if K != M:
        raise ValueError(f"K and M must be equal (the specialisation mode pairs student i with teacher i); got K={K}, M={M}")
    if M < 2:
        raise ValueError(f"M must be >= 2 (one unit has no symmetric plateau to leave); got M={M}")
    beta = check_beta(beta)
    if not isinstance(small_eta, (bool, np.bool_)):
        raise TypeError(f"small_eta must be a bool; got {small_eta!r}")
    eta = 0.0 if small_eta else check_real("eta", eta, low=0.0, high=2.0, low_open=True)
    step = check_real("step", step, low=0.0, high=1e-2, low_open=True)
    fp = plateau_fixed_point(K=K, M=M, eta=eta)
    lam = eigenvalues(L, beta)
    w, el = lam / L, (1.0 if small_eta else eta) * lam
    q = np.full((K, K), fp["C"])
    q[np.arange(K), np.arange(K)] = fp["Q"]
    P = np.eye(M) - 1.0 / M
    A, Bm, cov = np.empty((K, K)), np.empty((K, M)), np.empty((K + M, K + M))
    cov[:K, :K], cov[K:, K:] = q, np.eye(M)

    def dr_along_P(x):  # x: (L,) amplitudes of P per group -> (L,) components of dr^l along P
        r = fp["R"] + x[:, None, None] * P  # (L, K, M)
        cov[:K, K:] = np.tensordot(w, r, axes=1)
        cov[K:, :K] = cov[:K, K:].T
        kr.drift_ab(cov, K, M, True, A, Bm)
        dr = el[:, None, None] * (A @ r + Bm)  # t^l = I
        return np.einsum("lim,im->l", dr, P) / (P * P).sum()

    G = np.empty((L, L))
    for j in range(L):
        e = np.zeros(L)
        e[j] = step
        G[:, j] = (dr_along_P(e) - dr_along_P(-e)) / (2 * step)
    return float(np.linalg.eigvals(G).real.max())
