"""Two-layer networks after one gradient step on Gaussian-mixture data, and their Hermite equivalent model.

Demir, Dogan (ICLR 2025), "Asymptotic Analysis of Two-Layer Neural Networks after One Gradient Step under
Gaussian Mixtures Data with Structure", arXiv:2503.00856 (OpenReview tNn6Hskmti); the authors' notebooks
github.com/KU-MLIP/2-Layer-NNs-with-Gaussian-Mixtures-Data (Fig1b-alpha.ipynb: data, step, readout, Hermite model).

* Data (Assumption A.3): x ~ sum_c pi_c N(0, Sigma_c), zero-mean components, Sigma_c = I_d + U_c diag(theta_c) U_c^T
  (finite-rank spikes, U_c orthonormal columns); target y = relu(xi^T x) + delta eps with
  xi = g / (||g|| ||Sigma_bar||_2^{1/2}), Sigma_bar = sum_c pi_c Sigma_c (the authors' normalisation).
* Network f(x) = w^T sigma(F x) / sqrt(k), F in R^{k x d} with i.i.d. N(0, 1/tr Sigma_bar) entries, w ~ N(0, I/k).
  One full-batch gradient step on F (eq. 12) on its own sample (X~, y~) of size m:
  G = (1/m) [(w/sqrt(k)) (y~^T - w^T sigma(F X~^T)/sqrt(k)) * sigma'(F X~^T)] X~,  F^ = F + eta G.
* Readout: ridge on Phi = sigma(F^ X^T)/sqrt(k) (an independent sample of size m),
  w^ = (Phi Phi^T + lambda m I)^{-1} Phi y; train error 1/2 mean (y - Phi^T w^)^2 + lambda/2 ||w^||^2, test error
  1/2 mean (y' - Phi'^T w^)^2 on fresh data.
* Hermite equivalent model (eq. 17, Thm 4): with b = (d / tr Sigma_bar)^{1/2} the bulk scale of the
  pre-activations, sigma_l(z) = sum_{j<=l} (mu_j / j!) He_j(z / b) + mu_* zeta, mu_j = E[sigma(bZ) He_j(Z)],
  mu_*^2 = E[sigma(bZ)^2] - sum_{j<=l} mu_j^2 / j! (variance matching), zeta i.i.d. N(0, 1) per entry, fresh at
  every evaluation.  The step F^ is taken with the true sigma (as in the authors' code); only the readout features
  use sigma_l.
* The degree rule (the authors' code): with eta theta = d^beta, l* = clip(ceil(beta / (1 - beta)), 1, 4).

ReLU coefficients in closed form (Stein's lemma: E[relu(Z) He_j(Z)] = E[relu^{(j)}(Z)], relu'' = delta_0):
mu_0 = phi(0), mu_1 = 1/2, mu_j = phi(0) He_{j-2}(0) for j >= 2, times b for sigma(b .); so odd degrees >= 3
vanish and E relu(bZ)^2 = b^2 / 2.  Gauss-Hermite quadrature (any activation) is the reference path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve
from scipy.special import roots_hermitenorm  # noqa: F401 - also used by the tests

from theorylab.core.seeding import as_generator, child_seed
from theorylab.core.validate import (check_array, check_budget, check_choice, check_int, check_real, check_record,
                                     check_size, require_finite)

__all__ = ["ACTIVATIONS", "MAX_DEGREE", "SpikedMixture", "HermiteModel", "spiked_mixture", "sample_mixture",
           "target_direction", "hermite_coefficients", "hermite_model", "degree_rule", "gradient_step", "ridge_readout",
           "one_step_trial"]

ACTIVATIONS = ("relu", "tanh")
MAX_DEGREE = 10
MAX_NODES = 5000


def _act(name, z):
    return np.maximum(z, 0.0) if name == "relu" else np.tanh(z)


def _act_prime(name, z):
    return (z > 0).astype(float) if name == "relu" else 1.0 - np.tanh(z) ** 2


@dataclass(frozen=True)
class SpikedMixture:
    """x ~ sum_c weights[c] N(0, I + U[c] diag(thetas[c]) U[c]^T); ``U`` has shape (C, d, r) (orthonormal columns)."""

    U: np.ndarray
    thetas: np.ndarray
    weights: np.ndarray

    def __post_init__(self):
        check_record(self)
        if self.U.ndim != 3 or self.thetas.shape != (self.U.shape[0], self.U.shape[2]) or self.U.shape[1] < 1 \
                or self.U.shape[2] < 1 or self.weights.shape != (self.U.shape[0],):
            raise ValueError(f"SpikedMixture: U must have shape (C, d, r), thetas (C, r), weights (C,); got shapes "
                             f"{self.U.shape}, {self.thetas.shape}, {self.weights.shape}")
        if np.any(self.thetas <= -1.0):
            raise ValueError(f"SpikedMixture: thetas must all be > -1 (positive-definite covariances); got min "
                             f"{self.thetas.min()!r}")
        if np.any(self.weights < 0) or abs(self.weights.sum() - 1.0) > 1e-9:
            raise ValueError(f"SpikedMixture: weights must be a probability vector; got {self.weights!r}")
        for c in range(self.U.shape[0]):
            if not np.allclose(self.U[c].T @ self.U[c], np.eye(self.U.shape[2]), atol=1e-8):
                raise ValueError(f"SpikedMixture: U[{c}] must have orthonormal columns")

    @property
    def d(self) -> int:
        return self.U.shape[1]

    def covariance(self, c: int) -> np.ndarray:
        """Sigma_c as a dense d x d matrix."""
        c = check_int("c", c, low=0, high=len(self.weights) - 1)
        return np.eye(self.d) + (self.U[c] * self.thetas[c]) @ self.U[c].T

    def trace(self) -> float:
        """tr Sigma_bar = d + sum_c pi_c sum_r theta_cr."""
        return float(self.d + np.sum(self.weights[:, None] * self.thetas))

    def spectral_norm(self) -> float:
        """||Sigma_bar||_2 = 1 + the top eigenvalue of the (C r) x (C r) Gram matrix of sqrt(pi theta) U."""
        V = (self.U * np.sqrt(self.weights[:, None, None] * self.thetas[:, None, :])).transpose(1, 0, 2)
        V = V.reshape(self.d, -1)
        return float(1.0 + max(np.linalg.eigvalsh(V.T @ V).max(), 0.0))

    def sample(self, n: int, seed=0) -> np.ndarray:
        """n i.i.d. rows (labels i.i.d. from the weights): x = z + U_c ((sqrt(1 + theta_c) - 1) * U_c^T z)."""
        n = check_size("n", n)
        check_budget("the sample", n * self.d, n=n, d=self.d)
        rng = as_generator(seed)
        labels = rng.choice(len(self.weights), size=n, p=self.weights)
        Z = rng.standard_normal((n, self.d))
        for c in range(len(self.weights)):
            rows = labels == c
            Z[rows] += ((Z[rows] @ self.U[c]) * (np.sqrt(1.0 + self.thetas[c]) - 1.0)) @ self.U[c].T
        return Z


def spiked_mixture(d: int, thetas, weights=None, align: float = 0.0, seed=0) -> SpikedMixture:
    """A zero-mean spiked mixture: ``thetas`` of shape (C,) or (C, r) (spike strengths, each > -1 so that Sigma_c
    is positive definite), ``weights`` a probability vector (default uniform), spike directions Haar-random with
    U_c = align U_0 + sqrt(1 - align^2) V_c (re-orthonormalised), as in the authors' Fig. 2a."""
    d = check_int("d", d, low=2, high=20000)
    th = check_array("thetas", thetas, dtype=float)
    if th.ndim == 1:
        th = th[:, None]
    if th.ndim != 2 or th.size == 0:
        raise ValueError(f"thetas must have shape (C,) or (C, r) with C, r >= 1; got shape {np.shape(thetas)}")
    C, r = th.shape
    if r > d // 2:
        raise ValueError(f"thetas has r = {r} spikes per component; at most d // 2 = {d // 2} allowed")
    if np.any(th <= -1.0):
        raise ValueError(f"thetas must all be > -1 (Sigma_c = I + U diag(theta) U^T positive definite); got min "
                         f"{th.min()!r}")
    pi = np.full(C, 1.0 / C) if weights is None else check_array("weights", weights, ndim=1, shape=(C,))
    if np.any(pi < 0) or abs(pi.sum() - 1.0) > 1e-9:
        raise ValueError(f"weights must be a probability vector of length {C}; got {pi!r}")
    align = check_real("align", align, low=0.0, high=1.0)
    rng = as_generator(seed)
    U0 = np.linalg.qr(rng.standard_normal((d, r)))[0]
    U = np.empty((C, d, r))
    for c in range(C):
        V = np.linalg.qr(rng.standard_normal((d, r)))[0]
        U[c] = U0 if align == 1.0 else np.linalg.qr(align * U0 + math.sqrt(1.0 - align ** 2) * V)[0]
    return SpikedMixture(U=U, thetas=th.copy(), weights=pi / pi.sum())


def sample_mixture(n: int, covariances, weights=None, seed=0) -> np.ndarray:
    """n rows of sum_c pi_c N(0, Sigma_c) for explicit covariances (C, d, d); each Sigma_c must be symmetric
    positive definite (refused otherwise: a Cholesky factor is the sampler)."""
    S = check_array("covariances", covariances, ndim=3)
    C, d, d2 = S.shape
    if d != d2 or C < 1 or d < 1:
        raise ValueError(f"covariances must have shape (C, d, d); got {S.shape}")
    n = check_size("n", n)
    check_budget("the sample", n * d + C * d * d, n=n, d=d)
    pi = np.full(C, 1.0 / C) if weights is None else check_array("weights", weights, ndim=1, shape=(C,))
    if np.any(pi < 0) or abs(pi.sum() - 1.0) > 1e-9:
        raise ValueError(f"weights must be a probability vector of length {C}; got {pi!r}")
    L = np.empty_like(S)
    for c in range(C):
        if not np.allclose(S[c], S[c].T, rtol=0, atol=1e-12 * max(1.0, np.abs(S[c]).max())):
            raise ValueError(f"covariances[{c}] must be symmetric")
        try:
            L[c] = np.linalg.cholesky(S[c])
        except np.linalg.LinAlgError:
            raise ValueError(f"covariances[{c}] must be positive definite; its smallest eigenvalue is "
                             f"{np.linalg.eigvalsh(S[c]).min():.3g}") from None
    rng = as_generator(seed)
    labels = rng.choice(C, size=n, p=pi / pi.sum())
    X = rng.standard_normal((n, d))
    for c in range(C):
        X[labels == c] = X[labels == c] @ L[c].T
    return X


def target_direction(mixture: SpikedMixture, seed=0) -> np.ndarray:
    """xi = g / (||g|| ||Sigma_bar||_2^{1/2}), g ~ N(0, I_d) (the authors' normalisation)."""
    if not isinstance(mixture, SpikedMixture):
        raise TypeError(f"mixture must be a SpikedMixture; got {type(mixture).__name__}")
    g = as_generator(seed).standard_normal(mixture.d)
    return g / (np.linalg.norm(g) * math.sqrt(mixture.spectral_norm()))


def _he_at_zero(j: int) -> float:
    """He_j(0) = (-1)^{j/2} (j - 1)!! for even j, 0 for odd j."""
    if j % 2:
        return 0.0
    return (-1.0) ** (j // 2) * float(np.prod(np.arange(j - 1, 0, -2))) if j else 1.0


def hermite_coefficients(activation: str = "relu", degree: int = 4, scale: float = 1.0, method: str = "closed",
                         nodes: int = 200):
    """(mu, second) with mu[j] = E[sigma(scale Z) He_j(Z)] for j = 0..degree and second = E[sigma(scale Z)^2].

    ``method="closed"`` (ReLU only): the closed forms of the module docstring.  ``method="quadrature"``:
    Gauss-Hermite quadrature with ``nodes`` nodes (probabilists' weight, scipy's roots_hermitenorm)."""
    check_choice("activation", activation, ACTIVATIONS)
    degree = check_int("degree", degree, low=0, high=MAX_DEGREE)
    scale = check_real("scale", scale, low=0.0, low_open=True, high=1e6)
    check_choice("method", method, ("closed", "quadrature"))
    nodes = check_int("nodes", nodes, low=2, high=MAX_NODES)
    if method == "closed":
        if activation != "relu":
            raise ValueError(f"method='closed' is available for activation='relu' only; got activation={activation!r}")
        phi0 = 1.0 / math.sqrt(2.0 * math.pi)
        mu = np.array([phi0, 0.5] + [phi0 * _he_at_zero(j - 2) for j in range(2, degree + 1)])[:degree + 1]
        return scale * mu, scale ** 2 / 2.0
    z, wts = roots_hermitenorm(nodes)
    wts = wts / math.sqrt(2.0 * math.pi)
    s = _act(activation, scale * z)
    He = np.polynomial.hermite_e.hermevander(z, degree)            # (nodes, degree + 1)
    return (wts * s) @ He, float(wts @ s ** 2)


@dataclass(frozen=True)
class HermiteModel:
    """sigma_l(z) = sum_j coef[j] He_j(z / scale) + mu_star zeta (coef[j] = mu_j / j!)."""

    coef: np.ndarray
    mu_star: float
    scale: float

    def __post_init__(self):
        check_record(self)
        if self.coef.ndim != 1 or self.coef.size < 1 or self.coef.size > MAX_DEGREE + 1:
            raise ValueError(f"HermiteModel: coef must be a 1-d array of 1..{MAX_DEGREE + 1} coefficients; got shape "
                             f"{self.coef.shape}")
        if self.mu_star < 0 or self.scale <= 0:
            raise ValueError(f"HermiteModel: mu_star must be >= 0 and scale > 0; got mu_star={self.mu_star!r}, "
                             f"scale={self.scale!r}")

    @property
    def degree(self) -> int:
        return len(self.coef) - 1

    def __call__(self, z, seed=0) -> np.ndarray:
        z = check_array("z", z)
        check_budget("the evaluation", z.size, z_size=z.size)
        noise = as_generator(seed).standard_normal(z.shape)
        return np.polynomial.hermite_e.hermeval(z / self.scale, self.coef) + self.mu_star * noise


def hermite_model(activation: str = "relu", degree: int = 2, scale: float = 1.0, method: str = "closed",
                  nodes: int = 200) -> HermiteModel:
    """The variance-matched Hermite model of degree ``degree`` (mu_*^2 clipped at 0 against rounding)."""
    mu, second = hermite_coefficients(activation, degree, scale, method, nodes)
    fact = np.array([math.factorial(j) for j in range(len(mu))], dtype=float)
    mu_star2 = second - float(np.sum(mu ** 2 / fact))
    return HermiteModel(coef=mu / fact, mu_star=math.sqrt(max(mu_star2, 0.0)), scale=float(scale))


def degree_rule(beta: float) -> int:
    """The authors' degree: l* = clip(ceil(beta / (1 - beta)), 1, 4) for eta theta = d^beta, beta in [0, 1)."""
    beta = check_real("beta", beta, low=0.0, high=1.0, high_open=True)
    return int(min(max(math.ceil(beta / (1.0 - beta) - 1e-12), 1), 4))


def gradient_step(F, w, X, y, eta: float, activation: str = "relu") -> np.ndarray:
    """F^ = F + eta G after one full-batch gradient step on the squared loss (eq. 12; see module docstring)."""
    F = check_array("F", F, ndim=2)
    k, d = F.shape
    w = check_array("w", w, ndim=1, shape=(k,))
    X = check_array("X", X, ndim=2)
    if X.shape[1] != d:
        raise ValueError(f"X must have {d} columns (F has shape {F.shape}); got shape {X.shape}")
    y = check_array("y", y, ndim=1, shape=(X.shape[0],))
    eta = check_real("eta", eta, low=0.0, high=1e8)
    check_choice("activation", activation, ACTIVATIONS)
    check_budget("the pre-activations", k * X.shape[0], k=k, m=X.shape[0])
    Z = F @ X.T
    resid = y - w @ _act(activation, Z) / math.sqrt(k)
    G = ((w[:, None] / math.sqrt(k)) * resid[None, :] * _act_prime(activation, Z)) @ X / X.shape[0]
    return F + eta * G


def ridge_readout(Phi, y, lam: float):
    """w^ = (Phi Phi^T + lam m I)^{-1} Phi y for features Phi (k x m); returns (w^, train error with penalty)."""
    Phi = check_array("Phi", Phi, ndim=2)
    k, m = Phi.shape
    y = check_array("y", y, ndim=1, shape=(m,))
    lam = check_real("lam", lam, low=0.0, low_open=True, high=1e6)
    check_budget("the Gram matrix", k * k, k=k)
    w = solve(Phi @ Phi.T + lam * m * np.eye(k), Phi @ y, assume_a="pos")
    return w, 0.5 * float(np.mean((y - Phi.T @ w) ** 2)) + 0.5 * lam * float(w @ w)


def one_step_trial(mixture: SpikedMixture, xi, *, k: int, m: int, eta: float, degrees=(1, 2, 4), lam: float = 1e-4,
                   delta: float = 0.0, m_test: int | None = None, activation: str = "relu", seed=0) -> dict:
    """One trial: the step on one sample, the readout on a second, the test error on a third (all size m, the
    test ``m_test``, default 2m), for the network and each Hermite model of ``degrees`` on the same F^, sample
    and readout data (closed-form coefficients for ReLU, 200-node quadrature otherwise).  Returns
    {"nn": (train, test), l: (train, test), ...}."""
    if not isinstance(mixture, SpikedMixture):
        raise TypeError(f"mixture must be a SpikedMixture; got {type(mixture).__name__}")
    d = mixture.d
    xi = check_array("xi", xi, ndim=1, shape=(d,))
    k, m = check_int("k", k, low=1, high=20000), check_int("m", m, low=1, high=20000)
    m_test = 2 * m if m_test is None else check_int("m_test", m_test, low=1, high=100000)
    eta = check_real("eta", eta, low=0.0, high=1e8)
    degrees = tuple(check_int("degrees", l, low=0, high=MAX_DEGREE) for l in np.atleast_1d(degrees))
    delta = check_real("delta", delta, low=0.0, high=1e6)
    check_choice("activation", activation, ACTIVATIONS)
    check_budget("the trial", (k + 3 * m + m_test) * d + k * (2 * m + m_test) * (len(degrees) + 1), k=k, m=m, d=d)

    def data(name, size):
        X = mixture.sample(size, seed=child_seed(seed, "data", name))
        eps = as_generator(child_seed(seed, "label_noise", name)).standard_normal(size)
        return X, np.maximum(X @ xi, 0.0) + delta * eps

    tr = mixture.trace()
    rng = as_generator(child_seed(seed, "init"))
    F = rng.standard_normal((k, d)) / math.sqrt(tr)
    w = rng.standard_normal(k) / math.sqrt(k)
    F_hat = gradient_step(F, w, *data("step", m), eta=eta, activation=activation)
    (X, y), (Xt, yt) = data("readout", m), data("test", m_test)
    Z, Zt = F_hat @ X.T, F_hat @ Xt.T
    b = math.sqrt(d / tr)
    method = "closed" if activation == "relu" else "quadrature"
    out = {}
    for key in ("nn",) + degrees:
        if key == "nn":
            Phi, Phit = _act(activation, Z), _act(activation, Zt)
        else:
            h = hermite_model(activation, key, scale=b, method=method)
            Phi, Phit = h(Z, seed=child_seed(seed, "zeta", key, "train")), h(Zt, seed=child_seed(seed, "zeta", key, "test"))
        wh, train = ridge_readout(Phi / math.sqrt(k), y, lam)
        test = 0.5 * float(np.mean((yt - Phit.T @ wh / math.sqrt(k)) ** 2))
        require_finite("the errors", np.array([train, test]), eta=eta, degree=key)
        out[key] = (train, test)
    return out
