"""Order-parameter ODEs for one-pass SGD with L distinct eigenvalues (N -> infinity).

Worschech & Rosenow, ICLR 2025, arXiv:2410.09005, Sec. 3 (the hierarchy of order parameters
Q^(m) = J Sigma^m J^T/N, R^(m) = J Sigma^m B^T/N, T^(m) = B Sigma^m B^T/N closed by the minimal
polynomial of Sigma, so m = 0..L-1 suffice) and App. (the Gaussian integrals).

Two equivalent forms are implemented:

* ``integrate_ode`` (production): the per-eigen-group overlaps q^l, r^l, t^l, related to the
  hierarchy by the Vandermonde map Q^(m) = (1/L) sum_l lambda_l^m q^l.  It is the same
  linear system written in the eigenbasis of the closure; the monomial basis Sigma^m has a
  condition number ~ (lambda_1/lambda_L)^L and loses all digits for L >~ 10, the group basis
  does not.  Integrated by a jitted classical RK4 with a fixed step below the stability limit
  of the fastest mode, 2.8/(eta lambda_1); the right-hand side costs a few microseconds, so
  the Python-callback overhead of ``scipy.integrate.solve_ivp`` would dominate
  (``method="solve_ivp"`` is kept as a cross-check).
* ``hierarchy_rhs`` (reference, numpy, small L): the paper's Sigma^m hierarchy with the
  minimal-polynomial closure Sigma^L = -sum_j p_j Sigma^(L-j).

The ODEs, derived with Stein's lemma (they are the spec's [DERIVED] equations; the paper's
own appendix could not be read):

  dq^l/dalpha = eta lam_l [A q^l + q^l A^T + B r^l^T + r^l B^T] + eta^2 lam_l E[delta delta^T]
  dr^l/dalpha = eta lam_l [A r^l + B t^l]

with A_ik = E[d delta_i/d x_k], B_im = E[d delta_i/d y_m] evaluated on the l = 1 covariances.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.integrate import solve_ivp

from theorylab.core import SimulationDiverged, check_array, check_choice, check_int, check_positive, require_bounded

from . import _kernels as kr
from ._budget import check_memory, check_times, check_work
from .model import ACTIVATIONS, check_beta, check_eta, check_seed, check_sizes, eigenvalues, group_overlaps, init_weights

MAX_HIERARCHY_L = 16  # the monomial basis Sigma^m of the hierarchy has condition ~ (lam_1/lam_L)^L


def _check_overlaps(overlaps, L, K, M):
    """(q, r, t) finite arrays of shapes (L, K, K), (L, K, M), (L, M, M)."""
    if not isinstance(overlaps, (tuple, list)) or len(overlaps) != 3:
        raise TypeError(f"overlaps must be a tuple (q, r, t) of three arrays; got {type(overlaps).__name__}")
    q, r, t = (check_array(n, a) for n, a in zip(("overlaps q", "overlaps r", "overlaps t"), overlaps))
    if q.shape != (L, K, K) or r.shape != (L, K, M) or t.shape != (L, M, M):
        raise ValueError(f"overlaps must have shapes {(L, K, K)}, {(L, K, M)}, {(L, M, M)}; got "
                         f"{q.shape}, {r.shape}, {t.shape}")
    return q, r, t


def ode_work(L, K, M, n_steps):
    """Elementary operations of ``n_steps`` RK4 steps: 4 right-hand sides, each with the K^2 (K+M)^2
    four-point Gaussian integrals of E[delta delta^T] (~50 operations each) and the L group updates."""
    return 4.0 * n_steps * (50.0 * K * K * (K + M) ** 2 + 4.0 * L * K * (K + M))


def eps_bound(q, r, t, lam, K, M, erf):
    """Bound on eps_g beyond which the ODE has diverged: erf, (sqrt K + sqrt M)^2/2 (|g| <= 1, any
    overlaps); linear, 1e6 x the initial eps_g (the linear ODE decays in its stable range eta < 2)."""
    if erf:
        return 0.5 * (np.sqrt(K) + np.sqrt(M)) ** 2 * (1 + 1e-9)
    C = np.empty((K + M, K + M))
    kr.group_cov(*(np.ascontiguousarray(np.moveaxis(a, 0, -1)) for a in (q, r, t)), lam / lam.size, K, M, C)
    return 1e6 * max(kr.eps_from_cov(C, K, M, False), 1e-300)


def initial_overlaps(*, N=1024, L=8, K=2, M=2, sigma_J=0.01, seed=0, exact_teacher=False):
    """Group overlaps (q, r, t) of a random initialisation drawn at finite N (as for SGD).

    ``exact_teacher=True`` replaces the teacher overlaps by their N -> infinity value t^l = I
    (the finite-N draw has t^l = I + O((N/L)^-1/2)); q and r stay the finite-N draw.
    """
    N, L, K, M = check_sizes(N, L, K, M)
    if not isinstance(exact_teacher, (bool, np.bool_)):
        raise TypeError(f"exact_teacher must be a bool; got {exact_teacher!r}")
    J, B = init_weights(N, K, M, sigma_J=sigma_J, seed=seed)
    q, r, t = group_overlaps(J, B, L)
    if exact_teacher:
        t = np.broadcast_to(np.eye(M), t.shape).copy()
    return q, r, t


def _default_alphas():
    return np.concatenate([[0.0], np.geomspace(1e-2, 1e4, 200)])


def integrate_ode(*, L=8, K=2, M=2, beta=1.0, eta=0.1, activation="erf", overlaps=None, N=1024, sigma_J=0.01,
                  seed=0, alphas=None, n_trained_groups=None, method="rk4", h=None, return_overlaps=False):
    """Integrate the order-parameter ODEs; eps_g(alpha) in closed form from the overlaps.

    Parameters
    ----------
    L, K, M, beta, eta, activation
        As in :func:`theorylab.scaling.simulate_sgd`.
    overlaps : (q, r, t), optional
        Initial group overlaps, shapes (L, K, K), (L, K, M), (L, M, M).  Default: drawn from
        a random initialisation at dimension ``N`` with ``sigma_J`` and ``seed`` (the same
        draw as ``simulate_sgd`` path 0 would not be, use ``initial_overlaps`` explicitly to
        share initial conditions).
    alphas : array, optional
        Record times (default 201 log-spaced points in [1e-2, 1e4] and 0).
    n_trained_groups : int, optional
        Only the first groups are trained (Sec. 4.3); default all L.
    method : {"rk4", "solve_ivp"}
        Jitted fixed-step RK4 (default) or scipy's DOP853 with the jitted right-hand side.
    h : float, optional
        RK4 step; default min(0.5, 0.5/(eta lambda_1)).
    return_overlaps : bool
        Also return the recorded level-1 overlaps Q (n, K, K) and R (n, K, M).

    Returns
    -------
    DataFrame with columns ``alpha``, ``eps_g``.
    """
    activation = check_choice("activation", activation, ACTIVATIONS)
    eta = check_eta(eta, activation)
    method = check_choice("method", method, ("rk4", "solve_ivp"))
    L = check_int("L", L, low=1)
    K = check_int("K", K, low=1)
    M = check_int("M", M, low=1)
    check_memory("the group overlaps L x (K + M)^2", L * (K + M) ** 2, L=L, K=K, M=M)
    if overlaps is None:
        q, r, t = initial_overlaps(N=N, L=L, K=K, M=M, sigma_J=sigma_J, seed=seed)
    else:
        q, r, t = _check_overlaps(overlaps, L, K, M)
    lam = eigenvalues(L, beta)
    ntg = L if n_trained_groups is None else check_int("n_trained_groups", n_trained_groups, low=0, high=L)
    trained = np.arange(L) < ntg
    alphas = _default_alphas() if alphas is None else check_times("alphas", alphas)
    check_memory("the recorded overlaps len(alphas) x (K + M)^2", alphas.size * (K + M) ** 2, n_alphas=alphas.size,
                 K=K, M=M)
    if not isinstance(return_overlaps, (bool, np.bool_)):
        raise TypeError(f"return_overlaps must be a bool; got {return_overlaps!r}")
    erf = activation == "erf"
    h = default_step(eta, lam[0]) if h is None else check_positive("h", h)
    alpha_max = float(alphas[-1]) if alphas.size else 0.0
    check_work("the ODE integration (alphas[-1]/h RK4 steps)", ode_work(L, K, M, alpha_max / h + alphas.size),
               alpha_max=alpha_max, h=h, L=L, K=K, M=M)
    ctx = dict(L=L, K=K, M=M, beta=beta, eta=eta, activation=activation)
    ctx_s = ", ".join(f"{k}={v!r}" for k, v in ctx.items())
    bound = eps_bound(q, r, t, lam, K, M, erf)
    if method == "rk4":
        # the state may not grow beyond 1e6 x its initial scale (1 for the teacher overlaps t = I)
        state_bound = 1e6 * max(1.0, float(np.abs(q).max()), float(np.abs(r).max()), float(np.abs(t).max()))
        q_, r_, t_ = (np.ascontiguousarray(np.moveaxis(a, 0, -1)) for a in (q, r, t))   # group index last
        eps, Q, R, status = kr.rk4_groups(q_, r_, t_, lam, trained, eta, erf, h, alphas, state_bound)
        if status >= 0:
            raise SimulationDiverged(f"ODE diverged before alpha={alphas[status]:g}: an overlap left "
                                     f"[-{state_bound:.3g}, {state_bound:.3g}] (1e6 x its initial scale) with {ctx_s}")
    else:
        eps, Q, R = _solve_ivp(q, r, t, lam, trained, eta, erf, alphas, ctx_s)
    require_bounded("eps_g", eps, bound, **ctx)
    table = pd.DataFrame({"alpha": alphas, "eps_g": eps})
    if return_overlaps:
        return table, Q, R
    return table


def default_step(eta, lam_1):
    """integrate_ode's RK4 step: min(1/2, 1/(2 eta lambda_1)), inside RK4's stability region."""
    return min(0.5, 0.5 / (eta * lam_1))


def _solve_ivp(q, r, t, lam, trained, eta, erf, alphas, ctx):
    L, K, M = q.shape[0], q.shape[1], t.shape[1]
    qT, rT, tT = (np.ascontiguousarray(np.moveaxis(a, 0, -1)) for a in (q, r, t))  # group index last
    nq = qT.size
    w, el = lam / L, eta * lam * trained
    C = np.empty((K + M, K + M))
    A, Bm, D = np.empty((K, K)), np.empty((K, M)), np.empty((K, K))
    dq, dr = np.empty_like(qT), np.empty_like(rT)

    def rhs(_, y):
        kr.group_rhs(y[:nq].reshape(qT.shape), y[nq:].reshape(rT.shape), tT, w, el, eta, erf, dq, dr, C, A, Bm, D)
        return np.concatenate([dq.ravel(), dr.ravel()])

    sol = solve_ivp(rhs, (0.0, float(alphas[-1])), np.concatenate([qT.ravel(), rT.ravel()]), method="DOP853",
                    t_eval=alphas, rtol=1e-9, atol=1e-12)
    if not sol.success or not np.all(np.isfinite(sol.y)):
        raise SimulationDiverged(f"solve_ivp failed ({sol.message}) with {ctx}")
    eps = np.empty(alphas.size)
    Q, R = np.empty((alphas.size, K, K)), np.empty((alphas.size, K, M))
    for j in range(alphas.size):
        kr.group_cov(np.ascontiguousarray(sol.y[:nq, j]).reshape(qT.shape),
                     np.ascontiguousarray(sol.y[nq:, j]).reshape(rT.shape), tT, w, K, M, C)
        eps[j] = kr.eps_from_cov(C, K, M, erf)
        Q[j], R[j] = C[:K, :K], C[:K, K:]
    return eps, Q, R


# --------------------------------------------------------------------------- the Sigma^m hierarchy
def to_hierarchy(x, lam):
    """Group overlaps x^l (L, ...) -> hierarchy levels X^(m) = (1/L) sum_l lam_l^m x^l, m = 0..L-1."""
    lam = _check_lam(lam)
    x = check_array("x", x)
    if x.ndim == 0 or x.shape[0] != lam.size:
        raise ValueError(f"x must have the group index first, length len(lam)={lam.size}; got shape {x.shape}")
    L = lam.size
    V = np.vander(lam, L, increasing=True).T / L  # V[m, l] = lam_l^m / L
    return np.tensordot(V, x, axes=(1, 0))


def _check_lam(lam):
    lam = check_array("lam", lam, ndim=1)
    if lam.size == 0 or lam.size > MAX_HIERARCHY_L or np.any(lam <= 0):
        raise ValueError(f"lam must hold 1..{MAX_HIERARCHY_L} positive eigenvalues (the Sigma^m hierarchy is "
                         f"ill-conditioned beyond); got {lam.size} values, min {lam.min() if lam.size else None}")
    return lam


def closure_coefficients(lam):
    """a_j with Sigma^L = sum_{j<L} a_j Sigma^j, from the minimal polynomial prod_l (x - lambda_l)."""
    lam = _check_lam(lam)
    p = np.poly(lam)  # x^L + p_1 x^(L-1) + ... + p_L
    return -p[1:][::-1]  # a_j multiplies Sigma^j


def hierarchy_rhs(Qh, Rh, Th, lam, *, K, M, eta, activation="erf"):
    """Right-hand side of the paper's hierarchy (levels m = 0..L-1, closed at m = L).

    dR^(m) = eta [A R^(m+1) + B T^(m+1)],
    dQ^(m) = eta [A Q^(m+1) + Q^(m+1) A^T + B R^(m+1)^T + R^(m+1) B^T] + eta^2 (Tr Sigma^(m+1)/N) E[delta delta^T],
    with A, B, E[delta delta^T] at level 1.  Reference implementation for small L.
    """
    L = lam.size
    a = closure_coefficients(lam)

    def up(X, m):  # level m + 1
        return X[m + 1] if m + 1 < L else np.tensordot(a, X, axes=(0, 0))

    Q1, R1, T1 = up(Qh, 0), up(Rh, 0), up(Th, 0)
    C = np.block([[Q1, R1], [R1.T, T1]])
    A, Bm, D = np.empty((K, K)), np.empty((K, M)), np.empty((K, K))
    kr.drift_matrices(np.ascontiguousarray(C), K, M, activation == "erf", A, Bm, D)
    dQ, dR = np.empty_like(Qh), np.empty_like(Rh)
    for m in range(L):
        Qn, Rn, Tn = up(Qh, m), up(Rh, m), up(Th, m)
        tr = np.mean(lam ** (m + 1))
        dQ[m] = eta * (A @ Qn + Qn @ A.T + Bm @ Rn.T + Rn @ Bm.T) + eta ** 2 * tr * D
        dR[m] = eta * (A @ Rn + Bm @ Tn)
    return dQ, dR


def integrate_hierarchy(overlaps, *, beta, eta, K, M, activation="erf", alphas, h=0.05):
    """RK4 integration of the Sigma^m hierarchy (numpy; small L only, for cross-checks).

    Returns eps_g at ``alphas`` (from the level-1 order parameters).
    """
    activation = check_choice("activation", activation, ACTIVATIONS)
    eta = check_eta(eta, activation)
    K = check_int("K", K, low=1, high=64)
    M = check_int("M", M, low=1, high=64)
    if not isinstance(overlaps, (tuple, list)) or len(overlaps) != 3:
        raise TypeError(f"overlaps must be a tuple (q, r, t) of three arrays; got {type(overlaps).__name__}")
    L = int(np.shape(overlaps[0])[0]) if np.ndim(overlaps[0]) == 3 else 0
    if not 1 <= L <= MAX_HIERARCHY_L:
        raise ValueError(f"overlaps q must have shape (L, K, K) with 1 <= L <= {MAX_HIERARCHY_L} (the Sigma^m "
                         f"hierarchy is ill-conditioned beyond; use integrate_ode); got shape {np.shape(overlaps[0])}")
    q, r, t = _check_overlaps(overlaps, L, K, M)
    alphas = check_times("alphas", alphas)
    h = check_positive("h", h)
    alpha_max = float(alphas[-1]) if alphas.size else 0.0
    check_work("the hierarchy integration (alphas[-1]/h RK4 steps)", 25 * ode_work(L, K, M, alpha_max / h + alphas.size),
               alpha_max=alpha_max, h=h, L=L, K=K, M=M)
    lam = eigenvalues(L, beta)
    Qh, Rh, Th = to_hierarchy(q, lam), to_hierarchy(r, lam), to_hierarchy(t, lam)
    a = closure_coefficients(lam)
    erf = activation == "erf"

    def eps_of(Qh, Rh):
        up = (lambda X: X[1]) if L > 1 else (lambda X: np.tensordot(a, X, axes=(0, 0)))
        C = np.block([[up(Qh), up(Rh)], [up(Rh).T, up(Th)]])
        return kr.eps_from_cov(np.ascontiguousarray(C), K, M, erf)

    out, alpha = [], 0.0
    for target in np.asarray(alphas, float):
        while alpha < target - 1e-12:
            dt = min(h, target - alpha)
            k1 = hierarchy_rhs(Qh, Rh, Th, lam, K=K, M=M, eta=eta, activation=activation)
            k2 = hierarchy_rhs(Qh + dt / 2 * k1[0], Rh + dt / 2 * k1[1], Th, lam, K=K, M=M, eta=eta, activation=activation)
            k3 = hierarchy_rhs(Qh + dt / 2 * k2[0], Rh + dt / 2 * k2[1], Th, lam, K=K, M=M, eta=eta, activation=activation)
            k4 = hierarchy_rhs(Qh + dt * k3[0], Rh + dt * k3[1], Th, lam, K=K, M=M, eta=eta, activation=activation)
            Qh = Qh + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
            Rh = Rh + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
            alpha += dt
        out.append(eps_of(Qh, Rh))
    return require_bounded("eps_g", np.array(out), eps_bound(q, r, t, lam, K, M, erf), L=L, K=K, M=M, beta=beta,
                           eta=eta, activation=activation)
