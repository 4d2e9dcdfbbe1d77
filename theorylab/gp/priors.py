"""Gaussian-process priors and posteriors for Bayesian optimisation on boxes (issue 20: papers tsroots, gameopt).

Kernel.  The squared-exponential (SE, "RBF") kernel with automatic relevance determination,

    k(x, x') = sigma_f^2 exp( -1/2 sum_i (x_i - x'_i)^2 / l_i^2 ),                     (SE)

``variance`` = sigma_f^2 and ``lengthscale`` = l (a scalar, or one l_i per coordinate).

Exact GP regression (Rasmussen & Williams 2006, Eqs. 2.25-2.26) with observations y = f(X) + eps,
eps ~ N(0, sigma_n^2 I), ``noise`` = sigma_n^2 (a variance):

    mu(x)      = k(x, X) (K + sigma_n^2 I)^{-1} y,
    sigma^2(x) = k(x, x) - k(x, X) (K + sigma_n^2 I)^{-1} k(X, x),                       (GP)

computed with one Cholesky factor of K + sigma_n^2 I.  ``sigma`` is the standard deviation of the latent f(x)
(no noise added).  The upper confidence bound is UCB_beta(x) = mu(x) + beta sigma(x) (Srinivas et al. 2010).

Prior draws on a finite set X (``sample_gp_prior``) are exact up to a stated jitter: f = L z with
L L^T = K + JITTER sigma_f^2 I and z ~ N(0, I); the SE Gram matrix of close points is numerically singular, and
the jitter (a relative 1e-10, raised tenfold up to 1e-6 only if the factorisation fails) is a white-noise term of
standard deviation <= 1e-3 sigma_f added to the draw.

Separable sample paths (used by paper ``tsroots``) live in :mod:`theorylab.gp.tsroots`.

Example::

    import numpy as np
    from theorylab.gp import priors
    X = np.linspace(0, 1, 50)[:, None]
    f = priors.sample_gp_prior(X, lengthscale=0.2, seed=0)[0]
    mu, sd = priors.gp_posterior(X[::10], f[::10], X, lengthscale=0.2, noise=1e-6)
    a = priors.ucb(mu, sd, 2.0)
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular

from theorylab.core.seeding import as_generator
from theorylab.core.validate import (SimulationDiverged, check_array, check_budget, check_int, check_real, check_size,
                                     require_finite)

__all__ = ["JITTER", "MAX_DATA", "check_points", "check_lengthscale", "se_kernel", "gp_posterior",
           "sample_gp_prior", "ucb"]

#: relative jitter added to the diagonal of a prior Gram matrix before its Cholesky factorisation (raised
#: tenfold, at most to 1e-6, only when the factorisation fails)
JITTER = 1e-10
#: largest number of points of one dense Gram matrix that is factorised (data of a posterior, points of a draw)
MAX_DATA = 5000
#: largest dimension of an input space
MAX_DIM = 10**4


def check_points(name, X, *, d=None, of=None) -> np.ndarray:
    """``X`` as a finite (n, d) float array with n >= 1 points; a 1-d array is read as n points in d = 1.

    ``d`` (if given) is the dimension the points must have.
    """
    if of is not None and not isinstance(of, str):
        raise TypeError(f"of must be None or the name (a str) of the input that fixes d; got {of!r}"[:200])
    A = check_array(name, X)
    if d is not None:
        d = check_int("d", d, low=1, high=MAX_DIM)
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2:
        raise ValueError(f"{name} must be an (n, d) array of points (or a 1-d array of n points in d = 1); "
                         f"got shape {A.shape}")
    if A.shape[0] == 0:
        raise ValueError(f"{name} must hold at least one point; got shape {A.shape}")
    if A.shape[1] == 0 or A.shape[1] > MAX_DIM:
        raise ValueError(f"{name} must have a dimension d in [1, {MAX_DIM}]; got shape {A.shape}")
    if d is not None and A.shape[1] != d:
        raise ValueError(f"{name} must have d = {d} columns (the dimension of {of or 'the other inputs'}); got shape {A.shape}")
    return A


def check_lengthscale(lengthscale, d: int, of=None) -> np.ndarray:
    """The SE length scales as a (d,) array: a positive scalar (shared) or one positive value per coordinate,
    each in [1e-6, 1e6]."""
    d = check_int("d", d, low=1, high=MAX_DIM)
    if of is not None and not isinstance(of, str):
        raise TypeError(f"of must be None or the name (a str) of the input that fixes d; got {of!r}"[:200])
    if np.ndim(lengthscale) == 0 and not isinstance(lengthscale, (str, bytes)) and lengthscale is not None:
        ell = check_real("lengthscale", lengthscale, low=1e-6, high=1e6)
        return np.full(d, ell)
    ell = check_array("lengthscale", lengthscale, ndim=1)
    if ell.shape != (d,):
        raise ValueError(f"lengthscale must be a positive scalar or a vector of length d = {d}"
                         f"{f' (the dimension of {of})' if of else ''}; got shape {ell.shape}")
    if np.any(ell < 1e-6) or np.any(ell > 1e6):
        raise ValueError(f"lengthscale must lie in [1e-6, 1e6] in every coordinate; got values in "
                         f"[{ell.min():.3g}, {ell.max():.3g}]")
    return ell


def _variance(variance) -> float:
    return check_real("variance", variance, low=1e-12, high=1e12)


def _se(X, Y, ell, variance):
    """(SE) on validated inputs: the (n, m) Gram matrix."""
    A, B = X / ell, Y / ell
    sq = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * A @ B.T
    return variance * np.exp(-0.5 * np.maximum(sq, 0.0))


def se_kernel(X, Y, *, lengthscale, variance=1.0) -> np.ndarray:
    """The squared-exponential Gram matrix k(X, Y) of (SE), shape (n, m), for X (n, d) and Y (m, d)."""
    X = check_points("X", X)
    Y = check_points("Y", Y, d=X.shape[1], of="X")
    ell = check_lengthscale(lengthscale, X.shape[1], of="X")
    v = _variance(variance)
    check_budget("the Gram matrix", X.shape[0] * Y.shape[0] * X.shape[1], n=X.shape[0], m=Y.shape[0], d=X.shape[1])
    return _se(X, Y, ell, v)


def _factor(K, scale, what, *, first=JITTER):
    """Cholesky factor of K + jitter I, the jitter starting at ``first`` * scale and raised to 1e-8, 1e-6 only if
    the factorisation fails (module docstring)."""
    n = K.shape[0]
    for rel in (first, 1e-8, 1e-6):
        try:
            return cholesky(K + rel * scale * np.eye(n), lower=True)
        except np.linalg.LinAlgError:
            continue
    raise SimulationDiverged(f"{what} is not positive definite even with a relative jitter of 1e-6 (n = {n})")


def gp_posterior(X_data, y_data, X_query, *, lengthscale, variance=1.0, noise=1e-3):
    """Exact GP posterior (GP) of the latent f at ``X_query`` given y_data = f(X_data) + N(0, noise).

    Returns ``(mean, std)``, two arrays of shape (q,).  ``noise`` is the observation-noise variance sigma_n^2
    (>= 0; with 0 the relative jitter of :data:`JITTER` keeps the factorisation defined, and a failing
    factorisation raises the jitter as in the module docstring).
    """
    Xd = check_points("X_data", X_data)
    d = Xd.shape[1]
    m = check_size("the number of data points", Xd.shape[0], budget=MAX_DATA)
    y = check_array("y_data", y_data, ndim=1)
    if y.shape != (m,):
        raise ValueError(f"y_data must have one value per row of X_data, shape ({m},); got shape {y.shape}")
    Xq = check_points("X_query", X_query, d=d, of="X_data")
    ell = check_lengthscale(lengthscale, d, of="X_data")
    v = _variance(variance)
    s2 = check_real("noise", noise, low=0.0, high=1e12)
    q = Xq.shape[0]
    check_budget("the cross-covariance k(X_query, X_data)", q * m * d, q=q, m=m, d=d)
    K = _se(Xd, Xd, ell, v) + s2 * np.eye(m)
    L = _factor(K, v, "K + noise I", first=0.0 if s2 > 0 else JITTER)
    Kq = _se(Xq, Xd, ell, v)
    alpha = cho_solve((L, True), y)
    mean = Kq @ alpha
    W = solve_triangular(L, Kq.T, lower=True)
    var = np.maximum(v - (W * W).sum(0), 0.0)
    return require_finite("mean", mean, m=m), np.sqrt(var)


def sample_gp_prior(X, *, lengthscale, variance=1.0, n_samples=1, seed=0) -> np.ndarray:
    """Exact joint draws of f ~ GP(0, k) at the points X (n, d): shape (n_samples, n).

    f = L z with L L^T = K + jitter I (module docstring: relative jitter 1e-10, raised only if needed).
    """
    X = check_points("X", X)
    n, d = X.shape
    n = check_size("the number of points", n, budget=MAX_DATA)
    ell = check_lengthscale(lengthscale, d, of="X")
    v = _variance(variance)
    n_samples = check_size("n_samples", n_samples, budget=10**6)
    check_budget("the prior draws", n_samples * n, n_samples=n_samples, n=n)
    L = _factor(_se(X, X, ell, v), v, "the prior Gram matrix")
    z = as_generator(seed).standard_normal((n, n_samples))
    return (L @ z).T


def ucb(mean, std, beta) -> np.ndarray:
    """Upper confidence bound UCB_beta = mean + beta * std (elementwise); std >= 0, beta >= 0 finite."""
    mu = check_array("mean", mean)
    sd = check_array("std", std)
    if mu.shape != sd.shape:
        raise ValueError(f"mean and std must have the same shape; got {mu.shape} and {sd.shape}")
    if np.any(sd < 0):
        raise ValueError(f"std must be >= 0 (a standard deviation); got minimum {sd.min():.3g}")
    b = check_real("beta", beta, low=0.0, high=1e12)
    return mu + b * sd
