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

from ._budget import check_memory, check_work
from .model import check_beta, check_eta, eigenvalues, sgd_stability_sum


def _alphas(alphas, *, positive=False):
    a = check_array("alphas", np.atleast_1d(alphas), ndim=1)
    if a.size == 0 or np.any(a <= 0 if positive else a < 0):
        raise ValueError(f"alphas must be a non-empty 1-d array of times {'> 0' if positive else '>= 0'}; got "
                         f"{a.size} values" + (f", min {a.min():.3g}" if a.size else ""))
    check_memory("the alphas x eigenvalues table", a.size * 2.0, n_alphas=a.size)
    return a


def _check_dense(L, n_alphas=1, name="L"):
    """The dense L x L eigen-decomposition: memory L^2, time ~ 10 L^3 (``name``: the argument that sets L)."""
    L = check_int(name, L, low=1)
    check_memory(f"the {name} x {name} drift matrix", float(L) * L, **{name: L})
    check_memory(f"the alphas x {name} table", float(n_alphas) * L, **{name: L}, n_alphas=n_alphas)
    check_work(f"the eigen-decomposition of the {name} x {name} drift matrix",
               10.0 * float(L) ** 3 + float(n_alphas) * L * L, **{name: L})
    return L


def _check_D0(D0, L):
    if D0 is None:
        return np.ones(L)
    D0 = check_array("D0", D0, shape=(L,))
    if np.any(D0 < 0):
        raise ValueError(f"D0 (initial mean squares per group) must be >= 0; got min {D0.min():.3g}")
    return D0


def drift_matrix(L, beta, eta, *, n_trained_groups=None):
    """A with dD/dalpha = A D (rows of untrained groups are zero)."""
    L = _check_dense(L)
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
    L = _check_dense(L, alphas.size)
    A = drift_matrix(L, beta, eta)
    D0 = _check_D0(D0, L)
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
    L = check_int("L", L, low=1)
    check_memory("the alphas x L table", float(alphas.size) * L, L=L, n_alphas=alphas.size)
    lam = eigenvalues(L, beta)
    eta = check_eta(eta, "linear")
    D0 = _check_D0(D0, L)
    return np.exp(-2 * eta * np.outer(alphas, lam)) @ (lam * D0) / (2 * L)


def power_law_exponent(beta):
    """-beta/(1+beta), the exponent of eps_g in alpha in the power-law window."""
    beta = check_beta(beta)
    return -beta / (1.0 + beta)


def power_law_window(*, L, beta, eta):
    """(1/(2 eta lambda_1), 1/(2 eta lambda_L)): the window where the power law holds (<< and >>)."""
    lam = eigenvalues(L, beta)
    eta = check_eta(eta, "linear")
    return 1.0 / (2 * eta * lam[0]), 1.0 / (2 * eta * lam[-1])


def linear_power_law(alphas, *, L, beta, eta):
    """The large-L power law Gamma(b/(1+b)) lambda_1/(2L(1+b)) (2 eta lambda_1 alpha)^(-b/(1+b))."""
    alphas = _alphas(alphas, positive=True)
    lam1 = eigenvalues(L, beta)[0]
    eta = check_eta(eta, "linear")
    b = beta
    return gamma(b / (1 + b)) * lam1 / (2 * L * (1 + b)) * (2 * eta * lam1 * alphas) ** (-b / (1 + b))


def late_time_rate(*, L, beta, eta):
    """Decay rate of the slowest mode of the linear ODE (~ 2 eta lambda_L (1 + O(eta)))."""
    w = np.linalg.eigvalsh(drift_matrix(_check_dense(L), beta, eta))
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
    N = check_int("N", N, low=1, high=10**12)  # (a model size; beyond it the formulas lose precision)
    L = _check_dense(L)
    lam = eigenvalues(L, beta)
    eta = check_eta(eta, "linear")
    G = -2.0 * eta * np.diag(lam) + (eta ** 2 / L) * np.outer(lam, lam) + (2 * eta ** 2 / N) * np.diag(lam ** 2)
    mu = float(np.linalg.eigvalsh(G).max())
    if mu >= 0 or 1 + mu / N <= 0:
        raise ValueError(f"eta={eta} is outside the stable range of the finite-N recursion (N={N}, L={L}, beta={beta})")
    return float(-N * np.log1p(mu / N))


def linear_eps_finite_n(alphas, *, N, L, beta, eta, D0=None):
    """Exact E[eps_g](alpha) of linear one-pass SGD at finite N (Gaussian inputs), per coordinate.

    With u the error vector of the module doc and a = eta/N, one step is
    u <- u - a (u.x) x with x ~ N(0, diag(lam)); by Isserlis' theorem the second moments
    d_k = E[u_k^2] obey exactly (the recursion of :func:`finite_n_rate`, per coordinate)

        d <- T d,   T = diag(1 - 2 a lam_k + 2 a^2 lam_k^2) + a^2 lam lam^T,

    and E[eps_g] = (1/(2N)) lam . d.  T is symmetric, so d(n steps) = V diag(w^n) V^T d(0).
    ``D0``: the per-coordinate d(0) (default 1: a +-1 teacher with sigma_J = 0, or the mean of
    a N(0, 1) teacher).  ``alphas`` are rounded to whole steps n = round(alpha N), as in
    :func:`theorylab.scaling.simulate_sgd`.  Its N -> infinity limit is :func:`linear_eps`.
    """
    alphas = _alphas(alphas)
    N = _check_dense(check_int("N", N, low=1), alphas.size, name="N")
    L = check_int("L", L, low=1, high=N)
    if N % L:
        raise ValueError(f"L must divide N (each of the L eigenvalues has multiplicity N/L); got N={N}, L={L}")
    lam = np.repeat(eigenvalues(L, beta), N // L)  # per coordinate (not model.spectrum: kept independent of SGD)
    eta = check_eta(eta, "linear")
    D0 = _check_D0(D0, N)
    a = eta / N
    T = np.diag(1.0 - 2 * a * lam + 2 * a * a * lam ** 2) + a * a * np.outer(lam, lam)
    w, V = np.linalg.eigh(T)
    if np.max(np.abs(w)) >= 1.0:
        raise ValueError(f"eta={eta} is outside the mean-square stable range of linear SGD at N={N} "
                         f"(spectral radius of the second-moment map {np.abs(w).max():.6f} >= 1)")
    n = np.round(alphas * N)
    c = V.T @ D0
    d = (w[None, :] ** n[:, None] * c) @ V.T  # (n_alphas, N): d(n) = V w^n V^T d(0)
    return d @ lam / (2 * N)


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
    N = check_int("N", N, low=1, high=10**12)  # (a model size; beyond it the formulas lose precision)
    check_memory("the N eigenvalues", float(N), N=N)
    lam = eigenvalues(N, beta)
    eta = check_eta(eta, "linear")
    D0 = _check_D0(D0, N)
    n_trained = np.atleast_1d(n_trained)
    if n_trained.ndim != 1 or n_trained.size == 0:
        raise ValueError(f"n_trained must be an integer or a non-empty 1-d sequence of integers; got shape {n_trained.shape}")
    check_work("the stationary errors (len(n_trained) x N)", float(n_trained.size) * N, n_trained=n_trained.size, N=N)
    if not isinstance(finite_n, (bool, np.bool_)):
        raise TypeError(f"finite_n must be a bool; got {finite_n!r}")
    out = []
    for n in n_trained:
        n = check_int("n_trained", n, low=0, high=N)
        denom = 1.0 - (sgd_stability_sum(eta, lam, n) if finite_n else eta / (2 * N) * lam[:n].sum())
        if denom <= 0:
            raise ValueError(f"eta={eta} is outside the stable range for n_trained={n}, N={N}")
        out.append((lam[n:] * D0[n:]).sum() / (2 * N) / denom)
    return np.array(out)


def trainable_power_law(n_trained, *, beta):
    """The large-N law eps_inf ~ n_trained^(-beta) / (2 beta zeta(1+beta)); ``n_trained``: counts (integers >= 1)."""
    beta = check_beta(beta)
    n = check_array("n_trained", np.atleast_1d(n_trained), dtype=np.int64).astype(float)
    if n.size == 0 or np.any(n < 1):
        raise ValueError(f"n_trained must be a non-empty array of counts >= 1; got {n.size} values"
                         + (f", min {n.min():.3g}" if n.size else ""))
    return n ** (-beta) / (2 * beta * zeta(1 + beta))
