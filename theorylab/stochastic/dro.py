"""Chi-square dual DRO objective (paper ``dro_dsgdc``, partial: objective and exact derivatives only).

Dual of the penalised chi-square DRO problem (Jin et al. 2021 form, spec [I]):
    L(x, eta) = lam * mean psi*((l_i(x) - eta)/lam) + eta,   psi*(u) = (u + 1)_+^2 / 2 - 1/2,
with the smooth loss l_i(x) = (a_i . x - b_i)^2 / 2.  Exact derivatives, w_i = (u_i + 1)_+, 1_i = [u_i > -1]:
    d_eta L = 1 - mean w_i,   d2_eta L = mean 1_i / lam  (<= 1/lam: the bounded eta block),
    grad_x L = mean w_i r_i a_i,   hess_xx L = mean (1_i r_i^2 / lam + w_i) a_i a_i^T   (r_i = a_i . x - b_i).
The primal value max_q sum q_i l_i - lam/n sum (n q_i - 1)^2/2 over the simplex is ``primal_value``.
"""

import numpy as np

from theorylab.core.validate import check_array, check_positive, check_real

__all__ = ["dual_objective", "primal_value"]


def _inputs(A, b, x, lam):
    A = check_array("A", A, ndim=2)
    b = check_array("b", b, ndim=1, shape=(A.shape[0],))
    x = check_array("x", x, ndim=1, shape=(A.shape[1],))
    if A.shape[0] == 0 or A.shape[1] == 0:
        raise ValueError(f"A must be non-empty; got shape {A.shape}")
    return A, b, x, check_positive("lam", lam)


def dual_objective(A, b, x, eta, *, lam=1.0):
    """(L, grad_x L, d_eta L, hess_xx L, d2_eta L) of the chi-square dual at (x, eta), exactly."""
    A, b, x, lam = _inputs(A, b, x, lam)
    eta = check_real("eta", eta)
    r = A @ x - b
    u = (0.5 * r**2 - eta) / lam
    w = np.maximum(u + 1.0, 0.0)
    ind = (u > -1.0).astype(float)
    L = lam * np.mean(0.5 * w**2 - 0.5) + eta
    gx = A.T @ (w * r) / A.shape[0]
    H = (A * (ind * r**2 / lam + w)[:, None]).T @ A / A.shape[0]
    return L, gx, 1.0 - w.mean(), H, ind.mean() / lam


def primal_value(A, b, x, *, lam=1.0):
    """max over the simplex of q . l - (lam n / 2) ||q - 1/n||^2: q = projection of 1/n + l/(lam n)."""
    A, b, x, lam = _inputs(A, b, x, lam)
    n = A.shape[0]
    ell = 0.5 * (A @ x - b) ** 2
    v = 1.0 / n + ell / (lam * n)
    s = np.sort(v)[::-1]
    css = np.cumsum(s) - 1.0
    k = np.nonzero(s - css / np.arange(1, n + 1) > 0)[0][-1]
    q = np.maximum(v - css[k] / (k + 1), 0.0)
    return float(q @ ell - 0.5 * lam * n * np.sum((q - 1.0 / n) ** 2))
