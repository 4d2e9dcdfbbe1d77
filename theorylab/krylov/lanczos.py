"""Lanczos and conjugate-gradient utilities for SPD linear systems, with reorthogonalisation options and
Hessian-vector-product (HVP) counters (Yang, Gao, Yuan, "LancBiO: Dynamic Lanczos-aided Bilevel Optimization via
Krylov Subspace", ICLR 2025, arXiv:2404.03331, Sec. 3; code github.com/UCAS-YanYang/LancBiO).

Lanczos on an SPD matrix H from a start vector r (q_1 = r / |r|, beta_0 = 0):

    u_j = H q_j - beta_{j-1} q_{j-1},   alpha_j = q_j^T u_j,   w_j = u_j - alpha_j q_j,
    beta_j = |w_j|,   q_{j+1} = w_j / beta_j,

so that H Q_j = Q_j T_j + beta_j q_{j+1} e_j^T with T_j = tridiag(beta, alpha, beta).  The Galerkin
(Lanczos) solution of H s = r in K_j(H, r) is s_j = Q_j T_j^{-1} Q_j^T r = |r| Q_j T_j^{-1} e_1, which in exact
arithmetic is the j-th conjugate-gradient iterate from 0 (both minimise the H-norm error over K_j(H, r); Saad,
"Iterative Methods for Sparse Linear Systems", 2nd ed., Sec. 6.7.1).  CG meets the classical bound

    |s - s_j|_H <= 2 ((sqrt(kappa) - 1) / (sqrt(kappa) + 1))^j |s - s_0|_H,   kappa = cond(H)   (Saad, Thm 6.29).

In floating point, plain Lanczos (``reorth="none"``, as in the authors' code) loses orthogonality once a Ritz
value converges, and its Galerkin solution then drifts away from CG's; ``reorth="full"`` (Gram-Schmidt of each
new vector against all previous ones, twice) keeps Q_j orthonormal to rounding.
"""

from __future__ import annotations

import math

import numpy as np

from theorylab.core import check_array, check_budget, check_choice, check_int, check_real

__all__ = ["HVPCounter", "check_spd", "lanczos_basis", "lanczos_iterates", "cg_iterates", "cg_error_bound",
           "REORTH_CHOICES"]

#: Reorthogonalisation options of :func:`lanczos_basis`: none (the three-term recurrence only, as the authors' code)
#: or full (each new vector orthogonalised twice against all previous ones).
REORTH_CHOICES = ("none", "full")
#: Largest matrix side accepted (a dense n x n matrix and an n x (steps + 1) basis are held in memory).
MAX_N = 20_000


def check_spd(name: str, H) -> np.ndarray:
    """Return ``H`` as a float array after checking it is square, finite, symmetric (to 1e-10 relative) and
    positive definite (a Cholesky factorisation succeeds)."""
    H = check_array(name, H, ndim=2)
    n = H.shape[0]
    if H.shape != (n, n) or n < 1:
        raise ValueError(f"{name} must be a square (n, n) matrix with n >= 1; got shape {H.shape}")
    if n > MAX_N:
        raise ValueError(f"{name} has side {n}, over the limit {MAX_N}")
    scale = float(np.abs(H).max())
    if float(np.abs(H - H.T).max()) > 1e-10 * max(scale, 1e-300):
        raise ValueError(f"{name} must be symmetric positive definite; it is not symmetric "
                         f"(max |H - H^T| = {float(np.abs(H - H.T).max()):.3g})")
    try:
        np.linalg.cholesky(H)
    except np.linalg.LinAlgError:
        lam_min = float(np.linalg.eigvalsh(H)[0])
        raise ValueError(f"{name} must be symmetric positive definite; its smallest eigenvalue is {lam_min:.3g}") \
            from None
    return H


class HVPCounter:
    """A symmetric matrix seen only through Hessian-vector products, counting them (``calls``)."""

    def __init__(self, H):
        self.H = check_spd("H", H)
        self.calls = 0

    @property
    def n(self) -> int:
        return self.H.shape[0]

    def __call__(self, v) -> np.ndarray:
        v = check_array("v", v, shape=(self.n,))
        self.calls += 1
        return self.H @ v


def _operator(H):
    return H if isinstance(H, HVPCounter) else HVPCounter(H)


def _rhs_steps(op, r, steps):
    r = check_array("r", r, shape=(op.n,))
    if not np.any(r):
        raise ValueError("r must be a nonzero vector (the Krylov space of 0 is empty)")
    steps = check_int("steps", steps, low=1, high=op.n)
    check_budget("the Lanczos basis", op.n * (steps + 1), n=op.n, steps=steps)
    return r, steps


def lanczos_basis(H, r, steps: int, *, reorth: str = "none"):
    """``steps`` Lanczos steps on the SPD matrix ``H`` (an array or an :class:`HVPCounter`) from ``r``:
    returns (Q (n, j + 1), alpha (j,), beta (j,)) with j <= steps; j < steps only at an exact breakdown
    (beta_j <= 1e-14 |H| : the Krylov space is invariant and the Galerkin solution exact).  One HVP per step."""
    op = _operator(H)
    r, steps = _rhs_steps(op, r, steps)
    reorth = check_choice("reorth", reorth, REORTH_CHOICES)
    n = op.n
    Q = np.zeros((n, steps + 1))
    alpha, beta = np.zeros(steps), np.zeros(steps)
    Q[:, 0] = r / np.linalg.norm(r)
    tiny = 1e-14 * float(np.abs(op.H).max())
    for j in range(steps):
        u = op(Q[:, j]) - (beta[j - 1] * Q[:, j - 1] if j > 0 else 0.0)
        alpha[j] = Q[:, j] @ u
        w = u - alpha[j] * Q[:, j]
        if reorth == "full":
            for _ in range(2):
                w -= Q[:, :j + 1] @ (Q[:, :j + 1].T @ w)
        beta[j] = np.linalg.norm(w)
        if beta[j] <= tiny:
            return Q[:, :j + 1], alpha[:j + 1], beta[:j + 1]
        Q[:, j + 1] = w / beta[j]
    return Q, alpha, beta


def _tridiagonal(alpha, beta):
    j = alpha.size
    return np.diag(alpha) + np.diag(beta[:j - 1], 1) + np.diag(beta[:j - 1], -1)


def lanczos_iterates(H, r, steps: int, *, reorth: str = "none") -> np.ndarray:
    """The Lanczos-Galerkin solutions s_i = |r| Q_i T_i^{-1} e_1 of H s = r for i = 1..steps, as rows of a
    (steps, n) array (after an exact breakdown at i, the later rows repeat s_i, which is then exact)."""
    Q, alpha, beta = lanczos_basis(H, r, steps, reorth=reorth)
    rnorm = float(np.linalg.norm(check_array("r", r)))
    out = np.empty((int(steps), Q.shape[0]))
    for i in range(int(steps)):
        k = min(i + 1, alpha.size)
        e1 = np.zeros(k)
        e1[0] = rnorm
        out[i] = Q[:, :k] @ np.linalg.solve(_tridiagonal(alpha[:k], beta[:k]), e1)
    return out


def cg_iterates(H, r, steps: int) -> np.ndarray:
    """Conjugate-gradient iterates s_1..s_steps for H s = r from s_0 = 0 (Hestenes-Stiefel), as rows of a
    (steps, n) array; one HVP per step; after an exact convergence (residual 0) the later rows repeat."""
    op = _operator(H)
    r, steps = _rhs_steps(op, r, steps)
    s, res = np.zeros(op.n), r.copy()
    p, rr = res.copy(), float(res @ res)
    out = np.empty((steps, op.n))
    for i in range(steps):
        if rr == 0.0:
            out[i:] = s
            break
        Hp = op(p)
        a = rr / float(p @ Hp)
        s = s + a * p
        res = res - a * Hp
        rr_new = float(res @ res)
        p = res + (rr_new / rr) * p
        rr = rr_new
        out[i] = s
    return out


def cg_error_bound(kappa: float, j) -> np.ndarray:
    """2 ((sqrt(kappa) - 1) / (sqrt(kappa) + 1))^j: the bound on |s - s_j|_H / |s - s_0|_H of CG after j steps on
    a system of condition number kappa (Saad, Thm 6.29)."""
    kappa = check_real("kappa", kappa, low=1.0)
    j = check_array("j", np.atleast_1d(j), ndim=1)
    if np.any(j < 0):
        raise ValueError(f"j must be >= 0; got min {float(j.min())}")
    rho = (math.sqrt(kappa) - 1.0) / (math.sqrt(kappa) + 1.0)
    return 2.0 * rho ** j
