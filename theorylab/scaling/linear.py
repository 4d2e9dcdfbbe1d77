"""Closed forms for the linear activation g(x) = x (Worschech & Rosenow 2025, Sec. 4).

With u = (1/sqrt K) sum_i J_i - (1/sqrt M) sum_n B_n, one SGD step is u <- u - (eta/N)(u.xi) xi,
so K and M drop out.  For the mean square D_l of u over eigen-group l (spec [DERIVED], the
paper's "exact analytical expression" for the linear case):

    dD_l/dalpha = -2 eta lambda_l D_l + (eta^2 / L) lambda_l sum_m lambda_m D_m,
    eps_g = (1/(2L)) sum_l lambda_l D_l.

The matrix  A = -2 eta diag(lambda) + (eta^2/L) lambda lambda^T  is symmetric, so the exact
solution is an eigen-decomposition.  Its small-eta limit is the sum of exponentials
eps_g = (1/(2L)) sum_l lambda_l D_l(0) exp(-2 eta lambda_l alpha), which for large L and
1/(2 eta lambda_1) << alpha << 1/(2 eta lambda_L) is the power law

    eps_g ~ Gamma(beta/(1+beta)) lambda_1 / (2 L (1+beta)) (2 eta lambda_1 alpha)^(-beta/(1+beta)).
"""

from __future__ import annotations

import numpy as np
from scipy.special import gamma, zeta

from theorylab.core import check_array, check_int, check_positive

from .model import check_beta, check_eta, eigenvalues, sgd_stability_sum


def _alphas(alphas):
    return check_array("alphas", np.atleast_1d(alphas), ndim=1)


def drift_matrix(L, beta, eta, *, n_trained_groups=None):
    """A with dD/dalpha = A D (rows of untrained groups are zero)."""
    lam = eigenvalues(L, beta)
    eta = check_eta(eta, "linear")
    A = -2.0 * eta * np.diag(lam) + (eta ** 2 / L) * np.outer(lam, lam)
    if n_trained_groups is not None:
        A[check_int("n_trained_groups", n_trained_groups, low=0, high=L):] = 0.0
    return A


def linear_group_errors(alphas, *, L, beta, eta, D0=None):
    """Exact per-group mean squares D_l(alpha) (n_alpha, L) of the linear network.

    ``D0`` defaults to 1 in every group (random N(0, 1) teacher, sigma_J -> 0).
    The per-group error contributions are ``lambda_l D_l / (2L)``.
    """
    alphas = _alphas(alphas)
    A = drift_matrix(L, beta, eta)
    D0 = np.ones(L) if D0 is None else check_array("D0", D0, shape=(L,))
    w, V = np.linalg.eigh(A)
    if np.max(w) >= 0:
        raise ValueError(f"eta={eta} is outside the stable range of the linear ODE (largest rate {w.max():.3g} >= 0)")
    c = V.T @ D0
    return (np.exp(np.outer(alphas, w)) * c) @ V.T


def linear_eps(alphas, *, L, beta, eta, D0=None):
    """Exact eps_g(alpha) of the linear ODE (with the eta^2 term)."""
    lam = eigenvalues(L, beta)
    return linear_group_errors(alphas, L=L, beta=beta, eta=eta, D0=D0) @ lam / (2 * L)


def linear_eps_small_eta(alphas, *, L, beta, eta, D0=None):
    """The small-eta solution (1/(2L)) sum_l lambda_l D_l(0) exp(-2 eta lambda_l alpha)."""
    alphas = _alphas(alphas)
    lam = eigenvalues(L, beta)
    eta = check_positive("eta", eta)
    D0 = np.ones(L) if D0 is None else check_array("D0", D0, shape=(L,))
    return np.exp(-2 * eta * np.outer(alphas, lam)) @ (lam * D0) / (2 * L)


def power_law_exponent(beta):
    """-beta/(1+beta), the exponent of eps_g in alpha in the power-law window."""
    beta = check_beta(beta)
    return -beta / (1.0 + beta)


def power_law_window(*, L, beta, eta):
    """(1/(2 eta lambda_1), 1/(2 eta lambda_L)): the window where the power law holds (<< and >>)."""
    lam = eigenvalues(L, beta)
    eta = check_positive("eta", eta)
    return 1.0 / (2 * eta * lam[0]), 1.0 / (2 * eta * lam[-1])


def linear_power_law(alphas, *, L, beta, eta):
    """The large-L power law Gamma(b/(1+b)) lambda_1/(2L(1+b)) (2 eta lambda_1 alpha)^(-b/(1+b))."""
    alphas = _alphas(alphas)
    lam1 = eigenvalues(L, beta)[0]
    eta = check_positive("eta", eta)
    b = beta
    return gamma(b / (1 + b)) * lam1 / (2 * L * (1 + b)) * (2 * eta * lam1 * alphas) ** (-b / (1 + b))


def late_time_rate(*, L, beta, eta):
    """Decay rate of the slowest mode of the linear ODE (~ 2 eta lambda_L (1 + O(eta)))."""
    w = np.linalg.eigvalsh(drift_matrix(L, beta, eta))
    return float(-w.max())


def finite_n_rate(*, N, L, beta, eta):
    """Exact decay rate per unit alpha of E[eps_g] for one-pass SGD at finite N (linear activation).

    For xi ~ N(0, Sigma) the per-coordinate second moments of u obey exactly, per step with
    a = eta/N,  d_k <- d_k (1 - 2 a lam_k + 2 a^2 lam_k^2) + a^2 lam_k sum_j lam_j d_j
    (Gaussian fourth moments).  On group means D this is D <- (I + G_N/N) D with
    G_N = -2 eta diag(lam) + (eta^2/L) lam lam^T + (2 eta^2/N) diag(lam^2), so over one unit of
    alpha (N steps) the slowest mode decays at -N log(1 + mu/N), mu the largest eigenvalue of
    G_N.  As N -> infinity this is the ODE rate :func:`late_time_rate`; for L = 1 it is
    eta(2 - eta) - 2 eta^2/N + O(N^-1).
    """
    N = check_int("N", N, low=1)
    lam = eigenvalues(L, beta)
    eta = check_eta(eta, "linear")
    G = -2.0 * eta * np.diag(lam) + (eta ** 2 / L) * np.outer(lam, lam) + (2 * eta ** 2 / N) * np.diag(lam ** 2)
    mu = float(np.linalg.eigvalsh(G).max())
    if mu >= 0 or 1 + mu / N <= 0:
        raise ValueError(f"eta={eta} is outside the stable range of the finite-N recursion (N={N}, L={L}, beta={beta})")
    return float(-N * np.log1p(mu / N))


def trainable_final_error(n_trained, *, N, beta, eta, D0=None, finite_n=False):
    """Exact alpha -> infinity error when only the first ``n_trained`` of N = L entries are trained.

    ODE (Sec. 4.3; spec [DERIVED]):
        eps_inf = eps_untrained / (1 - (eta/(2N)) sum_{k <= n_trained} lambda_k),
        eps_untrained = (1/(2N)) sum_{k > n_trained} lambda_k D_k(0).
    ``finite_n=True``: the exact stationary E[eps_g] of one-pass SGD at this N (Gaussian inputs),
    from the fixed point of the per-step second-moment recursion (see ``model.check_eta_sgd``):
        eps_inf = eps_untrained / (1 - (a/2) sum_{k <= n_trained} lambda_k / (1 - a lambda_k)),  a = eta/N;
    it differs from the ODE value where eta lambda_k / N is not small (top modes when L = N).
    """
    N = check_int("N", N, low=1)
    lam = eigenvalues(N, beta)
    eta = check_eta(eta, "linear")
    D0 = np.ones(N) if D0 is None else check_array("D0", D0, shape=(N,))
    out = []
    for n in np.atleast_1d(n_trained):
        n = check_int("n_trained", n, low=0, high=N)
        denom = 1.0 - (sgd_stability_sum(eta, lam, n) if finite_n else eta / (2 * N) * lam[:n].sum())
        if denom <= 0:
            raise ValueError(f"eta={eta} is outside the stable range for n_trained={n}, N={N}")
        out.append((lam[n:] * D0[n:]).sum() / (2 * N) / denom)
    return np.array(out)


def trainable_power_law(n_trained, *, beta):
    """The large-N law eps_inf ~ n_trained^(-beta) / (2 beta zeta(1+beta))."""
    beta = check_beta(beta)
    return np.asarray(n_trained, float) ** (-beta) / (2 * beta * zeta(1 + beta))
