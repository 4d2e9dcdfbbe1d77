"""Density-ratio estimation between two Gaussians and its L_p(P) errors (paper dre_lp: Kitazawa, "Bounds on Lp
Errors in Density Ratio Estimation via f-Divergence Loss Functions", ICLR 2025, arXiv:2410.01516, OpenReview
ttq44QjKda).

The paper's Theorem 3.5 bounds ``||r_hat - r||_{L_p(P)}`` for estimators trained with any f-divergence loss, with
a lower bound growing like ``exp((p - 1) KL)``; this module provides the finite-sample objects to measure it:

- :class:`GaussianPair` ``P = N(m_P, S)``, ``Q = N(m_Q, S)`` (equal covariances), its ratio ``r = q / p``, which
  is log-linear, ``KL(Q || P) = d' S^-1 d / 2`` (``d = m_Q - m_P``) and the Renyi-type moment
  ``E_P[r^p] = exp(p (p - 1) KL)`` in closed form (:func:`ratio_moment`) and by Gauss-Hermite quadrature of an
  independent one-dimensional integral (:func:`ratio_moment_quadrature`): under P, ``log r ~ N(-KL, 2 KL)``.
- :func:`fit_log_linear` log-linear estimators ``r_hat(x) = exp(b + w' x)`` trained by Newton's method on the
  empirical KL loss ``E_P[r_hat] - E_Q[log r_hat]`` (the f-divergence loss of f(t) = t log t) or the logistic
  loss ``E_P[log(1 + r_hat)] + E_Q[log(1 + 1 / r_hat)]``; both are minimised by ``r`` in population, and the
  model contains ``r`` (well specified), so the error is pure estimation error.
- :func:`lp_error` the exact ``||r_hat - r||_{L_p(P)}`` of a log-linear estimator (one-dimensional adaptive
  quadrature after an exponential tilt, derivation in its docstring) and :func:`lp_error_mc` the Monte Carlo
  estimate under samples of P for any estimator (heavy-tailed for large ``p KL``: ``|r_hat - r|^p`` has variance
  ``~ exp(2 p^2 KL)`` relative to its squared mean, so the checks use :func:`lp_error`);
  :func:`lp_error_tilted_mc` the Monte Carlo after the exponential tilt, for any estimator: ``E_P|r_hat - r|^p =
  E_P[r^p] E_{P_p}|r_hat / r - 1|^p`` with ``P_p = N(m_P + p (m_Q - m_P), S)``, whose integrand is tame when
  ``log r_hat - log r`` is (a Lipschitz estimator).
- :func:`fit_mlp_ratio` a one-hidden-layer ReLU network for ``log r_hat`` with each layer's spectral norm
  projected to at most ``lipschitz`` (the Lipschitz estimator class of the theorem), trained by full-batch Adam
  on either loss.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import integrate

from theorylab.core.seeding import as_generator
from theorylab.core.validate import check_array, check_budget, check_choice, check_int, check_real

__all__ = ["LOSSES", "GaussianPair", "LogLinearRatio", "gaussian_pair", "ratio_moment", "ratio_moment_quadrature",
           "fit_log_linear", "lp_error", "lp_error_mc", "lp_error_tilted_mc", "MLPRatio", "fit_mlp_ratio"]

LOSSES = ("kl", "logistic")


def _check_p(p) -> float:
    return check_real("p", p, low=1.0)


def _pd_cov(cov, d):
    S = check_array("cov", cov, ndim=2, shape=(d, d))
    if not np.allclose(S, S.T, rtol=1e-12, atol=1e-12):
        raise ValueError(f"cov must be a symmetric positive-definite ({d}, {d}) matrix; got a non-symmetric one")
    ev = np.linalg.eigvalsh(S)
    if ev.min() <= 1e-12 * max(1.0, ev.max()):
        raise ValueError(f"cov must be positive definite; got smallest eigenvalue {ev.min():.3g}")
    return 0.5 * (S + S.T)


@dataclass(frozen=True)
class GaussianPair:
    """``P = N(mean_p, cov)`` (the reference) and ``Q = N(mean_q, cov)``; the ratio is ``r = q / p``."""

    mean_p: np.ndarray
    mean_q: np.ndarray
    cov: np.ndarray

    def __post_init__(self):
        mp = check_array("mean_p", self.mean_p, ndim=1)
        if mp.size < 1:
            raise ValueError("mean_p must have at least one coordinate; got 0")
        mq = check_array("mean_q", self.mean_q, ndim=1, shape=(mp.size,))
        object.__setattr__(self, "mean_p", mp)
        object.__setattr__(self, "mean_q", mq)
        object.__setattr__(self, "cov", _pd_cov(self.cov, mp.size))

    @property
    def d(self) -> int:
        return self.mean_p.size

    @property
    def weights(self) -> np.ndarray:
        """``S^-1 (m_Q - m_P)``: log r(x) = weights' (x - m_P) - KL."""
        return np.linalg.solve(self.cov, self.mean_q - self.mean_p)

    @property
    def kl(self) -> float:
        """KL(Q || P) = (m_Q - m_P)' S^-1 (m_Q - m_P) / 2."""
        return float(0.5 * (self.mean_q - self.mean_p) @ self.weights)

    def log_ratio(self, x) -> np.ndarray:
        x = check_array("x", x, ndim=2, shape=(None, self.d))
        return (x - self.mean_p) @ self.weights - self.kl

    def ratio(self, x) -> np.ndarray:
        return np.exp(self.log_ratio(x))

    def sample(self, which: str, n: int, seed=0) -> np.ndarray:
        """``n`` draws of P (``which="p"``) or Q (``"q"``)."""
        which = check_choice("which", which, ("p", "q"))
        n = check_int("n", n, low=1)
        check_budget("the samples", n * self.d, n=n, d=self.d)
        m = self.mean_p if which == "p" else self.mean_q
        return as_generator(seed).multivariate_normal(m, self.cov, size=n, method="cholesky")


def gaussian_pair(d: int, kl, cov=None) -> GaussianPair:
    """``P = N(0, S)``, ``Q = N(mu, S)`` with ``mu`` along the first coordinate, scaled so that
    KL(Q || P) = ``kl``: ``mu = sqrt(2 kl / (e' S^-1 e)) e`` with ``e`` the first coordinate vector (S = I by
    default)."""
    d = check_int("d", d, low=1, high=10_000)
    kl = check_real("kl", kl, low=0.0)
    S = np.eye(d) if cov is None else _pd_cov(cov, d)
    e = np.zeros(d)
    e[0] = 1.0
    mu = np.sqrt(2 * kl / (e @ np.linalg.solve(S, e))) * e
    return GaussianPair(np.zeros(d), mu, S)


def _check_pair(pair):
    if not isinstance(pair, GaussianPair):
        raise TypeError(f"pair must be a GaussianPair (gaussian_pair(d, kl)); got {type(pair).__name__}")
    return pair


def ratio_moment(pair: GaussianPair, p) -> float:
    """``E_P[r^p] = exp(p (p - 1) KL(Q || P))`` (closed form, equal covariances)."""
    pair, p = _check_pair(pair), _check_p(p)
    return float(np.exp(p * (p - 1) * pair.kl))


def ratio_moment_quadrature(pair: GaussianPair, p, *, nodes: int = 120) -> float:
    """``E_P[r^p]`` by Gauss-Hermite quadrature of ``E[exp(p V)]``, ``V = log r(X) ~ N(-KL, 2 KL)`` under P (a
    path independent of :func:`ratio_moment`: the law of V is computed from the pair's means and covariance)."""
    pair, p = _check_pair(pair), _check_p(p)
    nodes = check_int("nodes", nodes, low=2, high=400)
    w = pair.weights
    mean_v = -float(0.5 * (pair.mean_q - pair.mean_p) @ w)       # E_P[w' (X - m_P)] = 0
    sd_v = float(np.sqrt(max(w @ pair.cov @ w, 0.0)))
    t, h = np.polynomial.hermite_e.hermegauss(nodes)             # weight exp(-t^2 / 2)
    return float(h @ np.exp(p * (mean_v + sd_v * t)) / np.sqrt(2 * np.pi))


@dataclass(frozen=True)
class LogLinearRatio:
    """``r_hat(x) = exp(intercept + weights' x)``; ``loss``, ``iterations`` and ``converged`` describe the fit."""

    intercept: float
    weights: np.ndarray
    loss: str = ""
    iterations: int = 0
    converged: bool = True

    def __post_init__(self):
        object.__setattr__(self, "intercept", check_real("intercept", self.intercept))
        object.__setattr__(self, "weights", check_array("weights", self.weights, ndim=1))
        object.__setattr__(self, "loss", check_choice("loss", self.loss, ("",) + LOSSES))
        object.__setattr__(self, "iterations", check_int("iterations", self.iterations, low=0))
        if not isinstance(self.converged, (bool, np.bool_)):
            raise TypeError(f"converged must be a bool; got {self.converged!r}")

    def __call__(self, x) -> np.ndarray:
        x = check_array("x", x, ndim=2, shape=(None, self.weights.size))
        return np.exp(self.intercept + x @ self.weights)


def _loss_grad_hess(theta, Fp, Fq, loss):
    """Empirical loss, gradient and Hessian in theta = (b, w) with features F = [1, x]."""
    gp, gq = Fp @ theta, Fq @ theta
    if loss == "kl":
        ep = np.exp(gp)
        val = ep.mean() - gq.mean()
        grad = Fp.T @ ep / len(gp) - Fq.mean(0)
        hess = (Fp * ep[:, None]).T @ Fp / len(gp)
    else:
        sp, sq = 1 / (1 + np.exp(-gp)), 1 / (1 + np.exp(gq))      # sigmoid(g) on P, sigmoid(-g) on Q
        val = np.logaddexp(0, gp).mean() + np.logaddexp(0, -gq).mean()
        grad = Fp.T @ sp / len(gp) - Fq.T @ sq / len(gq)
        hess = (Fp * (sp * (1 - sp))[:, None]).T @ Fp / len(gp) + (Fq * (sq * (1 - sq))[:, None]).T @ Fq / len(gq)
    return val, grad, hess


def fit_log_linear(x_p, x_q, loss: str = "kl", *, tol: float = 1e-10, max_iter: int = 100) -> LogLinearRatio:
    """Minimise the empirical ``loss`` over ``r_hat = exp(b + w' x)`` by damped Newton steps (both losses are
    convex in (b, w)).  ``x_p``: samples of P (n_p, d); ``x_q``: samples of Q (n_q, d).

    ``"kl"``: ``mean_P r_hat - mean_Q log r_hat`` (f(t) = t log t: sup_T E_Q[f'(T)] - E_P[f*(f'(T))] with T = r_hat);
    ``"logistic"``: ``mean_P log(1 + r_hat) + mean_Q log(1 + 1 / r_hat)`` (f(t) = t log t - (1 + t) log(1 + t),
    logistic regression of Q against P with equal class weights).  Stops when the Newton decrement squared is
    below ``tol``."""
    x_p = check_array("x_p", x_p, ndim=2)
    x_q = check_array("x_q", x_q, ndim=2, shape=(None, x_p.shape[1]))
    if len(x_p) < 2 or len(x_q) < 2:
        raise ValueError(f"x_p and x_q need at least 2 samples each; got {len(x_p)} and {len(x_q)}")
    loss = check_choice("loss", loss, LOSSES)
    tol = check_real("tol", tol, low=0.0, low_open=True)
    max_iter = check_int("max_iter", max_iter, low=1, high=10_000)
    Fp = np.hstack([np.ones((len(x_p), 1)), x_p])
    Fq = np.hstack([np.ones((len(x_q), 1)), x_q])
    theta = np.zeros(Fp.shape[1])
    val, g, H = _loss_grad_hess(theta, Fp, Fq, loss)
    converged, it = False, 0
    for it in range(1, max_iter + 1):
        step = np.linalg.solve(H + 1e-12 * np.eye(H.shape[0]), g)
        dec = float(g @ step)
        if dec <= tol:
            converged = True
            break
        t = 1.0
        while t > 1e-10:
            new = _loss_grad_hess(theta - t * step, Fp, Fq, loss)
            if np.isfinite(new[0]) and new[0] <= val - 0.25 * t * dec:
                break
            t *= 0.5
        theta = theta - t * step
        val, g, H = new
    return LogLinearRatio(float(theta[0]), theta[1:].copy(), loss=loss, iterations=it, converged=converged)


def _abs_expm1_moment(mean, sd, p):
    """``E|exp(W) - 1|^p`` for ``W ~ N(mean, sd^2)`` by adaptive quadrature split at the kink w = 0."""
    if sd <= 0:
        return abs(np.expm1(mean)) ** p
    f = lambda z: abs(np.expm1(mean + sd * z)) ** p * np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)
    kink = -mean / sd
    lo, hi = min(-12.0, kink - 12.0), max(12.0, kink + 12.0)
    pts = [lo] + ([kink] if lo < kink < hi else []) + [hi]
    return sum(integrate.quad(f, a, b, epsabs=0.0, epsrel=1e-11, limit=200)[0] for a, b in zip(pts[:-1], pts[1:]))


def lp_error(pair: GaussianPair, estimator: LogLinearRatio, p) -> float:
    """The exact ``||r_hat - r||_{L_p(P)} = (E_P|r_hat - r|^p)^(1/p)`` of a log-linear estimator.

    [derived] With ``U = log r_hat(X)``, ``V = log r(X)`` and ``W = U - V``, jointly Gaussian under P,
    ``E|e^U - e^V|^p = E[e^{pV} |e^W - 1|^p] = E[e^{pV}] E~|e^W - 1|^p``, where under the measure tilted by
    ``e^{pV}`` (Cameron-Martin) W is Gaussian with the same variance and mean ``E W + p Cov(W, V)``, and
    ``E[e^{pV}] = exp(p (p - 1) KL)``.  The remaining one-dimensional integral is adaptive quadrature."""
    pair, p = _check_pair(pair), _check_p(p)
    if not isinstance(estimator, LogLinearRatio):
        raise TypeError(f"estimator must be a LogLinearRatio (fit_log_linear); got {type(estimator).__name__}")
    if estimator.weights.size != pair.d:
        raise ValueError(f"estimator must have {pair.d} weights (the pair's dimension); got {estimator.weights.size}")
    S, a, m = pair.cov, pair.weights, pair.mean_p
    kl = pair.kl
    c = estimator.weights - a                                     # W = c' (X - m_P) + const
    mean_w = estimator.intercept + estimator.weights @ m + kl
    var_w = float(c @ S @ c)
    cov_wv = float(c @ S @ a)
    tilt = p * (p - 1) * kl
    inner = _abs_expm1_moment(mean_w + p * cov_wv, np.sqrt(max(var_w, 0.0)), p)
    return float(np.exp(tilt / p) * inner ** (1 / p))


def lp_error_mc(pair: GaussianPair, estimator, p, *, n: int = 100_000, seed=0) -> dict:
    """Monte Carlo of ``E_P|r_hat - r|^p`` over ``n`` draws of P for any callable ``estimator(x) -> (n,)``:
    ``{"moment", "moment_se", "lp"}`` (``lp = moment^(1/p)``)."""
    pair, p = _check_pair(pair), _check_p(p)
    if not callable(estimator):
        raise TypeError(f"estimator must be callable estimator(x) -> array (n,); got {type(estimator).__name__}")
    n = check_int("n", n, low=2)
    x = pair.sample("p", n, seed)
    dev = np.abs(np.asarray(estimator(x), dtype=float) - pair.ratio(x)) ** p
    if dev.shape != (n,):
        raise ValueError(f"estimator must return one value per row of x, shape ({n},); got {dev.shape}")
    m = float(dev.mean())
    return {"moment": m, "moment_se": float(dev.std(ddof=1) / np.sqrt(n)), "lp": m ** (1 / p)}


def lp_error_tilted_mc(pair: GaussianPair, estimator, p, *, n: int = 100_000, seed=0) -> dict:
    """Monte Carlo of ``E_P|r_hat - r|^p`` after the exponential tilt, for any callable ``estimator(x) -> (n,)``:
    ``{"moment", "moment_se", "lp"}``.

    [derived] ``r^p dP / E_P[r^p]`` is the density of ``P_p = N(m_P + p (m_Q - m_P), S)`` (complete the square in
    ``exp(p a'(x - m_P))`` with ``a = S^-1 (m_Q - m_P)``), so ``E_P|r_hat - r|^p = exp(p (p - 1) KL)
    E_{P_p}|r_hat / r - 1|^p``; the draws are of ``P_p``."""
    pair, p = _check_pair(pair), _check_p(p)
    if not callable(estimator):
        raise TypeError(f"estimator must be callable estimator(x) -> array (n,); got {type(estimator).__name__}")
    n = check_int("n", n, low=2)
    check_budget("the samples", n * pair.d, n=n, d=pair.d)
    mean = pair.mean_p + p * (pair.mean_q - pair.mean_p)
    x = as_generator(seed).multivariate_normal(mean, pair.cov, size=n, method="cholesky")
    rel = np.abs(np.asarray(estimator(x), dtype=float) / pair.ratio(x) - 1) ** p
    if rel.shape != (n,):
        raise ValueError(f"estimator must return one value per row of x, shape ({n},); got {rel.shape}")
    scale = ratio_moment(pair, p)
    m = float(scale * rel.mean())
    return {"moment": m, "moment_se": float(scale * rel.std(ddof=1) / np.sqrt(n)), "lp": m ** (1 / p)}


@dataclass(frozen=True)
class MLPRatio:
    """``r_hat(x) = exp(g(x))``, ``g(x) = w2' relu(W1 x + b1) + b2``; the spectral norms of ``W1`` and ``w2`` are at
    most ``lipschitz`` each (so g is ``lipschitz^2``-Lipschitz); ``losses`` holds the training loss per step."""

    W1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: float
    lipschitz: float
    loss: str = ""
    losses: np.ndarray | None = None

    def __post_init__(self):
        W1 = check_array("W1", self.W1, ndim=2)
        object.__setattr__(self, "W1", W1)
        object.__setattr__(self, "b1", check_array("b1", self.b1, ndim=1, shape=(W1.shape[0],)))
        object.__setattr__(self, "w2", check_array("w2", self.w2, ndim=1, shape=(W1.shape[0],)))
        object.__setattr__(self, "b2", check_real("b2", self.b2))
        object.__setattr__(self, "lipschitz", check_real("lipschitz", self.lipschitz, low=0.0, low_open=True))
        object.__setattr__(self, "loss", check_choice("loss", self.loss, ("",) + LOSSES))
        if self.losses is not None:
            object.__setattr__(self, "losses", check_array("losses", self.losses, ndim=1))

    def log_ratio(self, x) -> np.ndarray:
        x = check_array("x", x, ndim=2, shape=(None, self.W1.shape[1]))
        return np.maximum(x @ self.W1.T + self.b1, 0.0) @ self.w2 + self.b2

    def __call__(self, x) -> np.ndarray:
        return np.exp(self.log_ratio(x))


def _project(W, bound):
    """The nearest matrix (Frobenius) with spectral norm <= bound: singular values clipped."""
    U, s, Vt = np.linalg.svd(W, full_matrices=False)
    return (U * np.minimum(s, bound)) @ Vt


def _mlp_loss_grad(params, X, n_p, loss):
    """Empirical loss of g = w2' relu(W1 x + b1) + b2 (rows of X: the n_p samples of P, then those of Q) and its
    gradient in (W1, b1, w2, b2) by back-propagation."""
    W1, b1, w2, b2 = params
    h = np.maximum(X @ W1.T + b1, 0.0)
    g = h @ w2 + b2[0]
    gp, gq = g[:n_p], g[n_p:]
    if loss == "kl":
        val = np.exp(gp).mean() - gq.mean()
        dg = np.concatenate([np.exp(gp) / n_p, -np.ones(len(gq)) / len(gq)])
    else:
        val = np.logaddexp(0, gp).mean() + np.logaddexp(0, -gq).mean()
        dg = np.concatenate([1 / (1 + np.exp(-gp)) / n_p, -1 / (1 + np.exp(gq)) / len(gq)])
    dh = np.outer(dg, w2) * (h > 0)
    return float(val), [dh.T @ X, dh.sum(0), h.T @ dg, np.array([dg.sum()])]


def fit_mlp_ratio(x_p, x_q, loss: str = "kl", *, width: int = 16, lipschitz: float = 5.0, steps: int = 1000,
                  lr: float = 0.01, seed=0) -> MLPRatio:
    """A one-hidden-layer ReLU network ``g = log r_hat`` trained by full-batch Adam on the empirical ``loss`` (as
    in :func:`fit_log_linear`), each layer projected after every step onto spectral norm <= ``lipschitz`` (the
    per-layer reading of "spectral norm <= 5")."""
    x_p = check_array("x_p", x_p, ndim=2)
    x_q = check_array("x_q", x_q, ndim=2, shape=(None, x_p.shape[1]))
    if len(x_p) < 2 or len(x_q) < 2:
        raise ValueError(f"x_p and x_q need at least 2 samples each; got {len(x_p)} and {len(x_q)}")
    loss = check_choice("loss", loss, LOSSES)
    width = check_int("width", width, low=1, high=4096)
    lipschitz = check_real("lipschitz", lipschitz, low=0.0, low_open=True)
    steps = check_int("steps", steps, low=1, high=1_000_000)
    lr = check_real("lr", lr, low=0.0, low_open=True, high=10.0)
    check_budget("the hidden activations", (len(x_p) + len(x_q)) * width, n=len(x_p) + len(x_q), width=width)
    rng = as_generator(seed)
    d, n_p = x_p.shape[1], len(x_p)
    X = np.vstack([x_p, x_q])
    params = [_project(rng.normal(0, 1 / np.sqrt(d), (width, d)), lipschitz), np.zeros(width),
              rng.normal(0, 1 / np.sqrt(width), width), np.zeros(1)]
    params[2] = params[2] * min(1.0, lipschitz / np.linalg.norm(params[2]))
    m = [np.zeros_like(t) for t in params]
    v = [np.zeros_like(t) for t in params]
    history = np.empty(steps)
    for k in range(1, steps + 1):
        history[k - 1], grads = _mlp_loss_grad(params, X, n_p, loss)
        for i, gr in enumerate(grads):                               # Adam (0.9, 0.999, 1e-8)
            m[i] = 0.9 * m[i] + 0.1 * gr
            v[i] = 0.999 * v[i] + 0.001 * gr * gr
            params[i] = params[i] - lr * (m[i] / (1 - 0.9 ** k)) / (np.sqrt(v[i] / (1 - 0.999 ** k)) + 1e-8)
        params[0] = _project(params[0], lipschitz)
        params[2] = params[2] * min(1.0, lipschitz / max(np.linalg.norm(params[2]), 1e-300))
    return MLPRatio(params[0], params[1], params[2], float(params[3][0]), lipschitz, loss=loss, losses=history)
