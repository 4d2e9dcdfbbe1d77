"""Function-value oracles over a test-function zoo, with optional value noise and a query counter.

An :class:`Oracle` answers f(x) (the zeroth-order query, counted and optionally noisy) and, for the
checks only, the exact gradient and Hessian (never counted).  Members of the zoo:

* :func:`quadratic`        f = 1/2 (x - c)^T A (x - c), A with a given spectrum (optionally rotated);
* :func:`diagonal_quadratic` the same with A diagonal, O(d) per query (kind "diag_quadratic");
* :func:`product`          f = prod_i x_i, the DAP paper's "ProductFunction" (authors' notebook);
* :func:`rosenbrock`       f = sum b (x_{i+1} - x_i^2)^2 + (a - x_i)^2;
* :func:`logistic_loss`    l2-regularised logistic loss on synthetic Gaussian data (per-sample
                           values and gradients available for allocation experiments);
* :func:`strict_saddle`    f = 1/2 sum h_i x_i^2 + q/4 sum x_i^4, a strict saddle at 0 when some h_i < 0.

Value noise (``noise=``): ``"none"``, ``"bounded"`` (uniform on [-level, level], |noise| <= level) or
``"gaussian"`` (N(0, level^2)), independent per query, drawn from the oracle's own seeded stream.

Values and gradients at given points are vectorised numpy (``_np_values`` / ``_np_gradients``); the
jitted kernels in ``theorylab.zeroth._kernels`` (codes ``kind_code`` / ``params``) evaluate the same
formulas inside the estimators' loops (tests/test_dap.py checks that both agree).
"""

from __future__ import annotations

import numpy as np

from theorylab.core.seeding import as_generator
from theorylab.core.validate import (check_array, check_budget, check_choice, check_int, check_real, check_size)
from theorylab.zeroth import _kernels as K

__all__ = ["Oracle", "KINDS", "NOISES", "quadratic", "diagonal_quadratic", "quadratic_spectrum", "product",
           "rosenbrock", "logistic_loss", "strict_saddle"]

KINDS = ("quadratic", "product", "rosenbrock", "logistic", "saddle", "diag_quadratic")
NOISES = ("none", "bounded", "gaussian")
_KIND_CODE = {"quadratic": K.QUADRATIC, "product": K.PRODUCT, "rosenbrock": K.ROSENBROCK,
              "logistic": K.LOGISTIC, "saddle": K.SADDLE, "diag_quadratic": K.DIAG_QUADRATIC}
_NOISE_CODE = {"none": K.NOISE_NONE, "bounded": K.NOISE_BOUNDED, "gaussian": K.NOISE_GAUSSIAN}
MAX_DIM = 10**6


def _n_params(kind: str, d: int, params: np.ndarray) -> int:
    if kind == "quadratic":
        return d + d * d
    if kind == "diag_quadratic":
        return 2 * d
    if kind == "product":
        return 0
    if kind == "rosenbrock":
        return 2
    if kind == "logistic":
        n = int(params[0]) if params.size >= 1 and np.isfinite(params[0]) and params[0] >= 1 else 0
        return 2 + n * d
    return 1 + d


def _real_or_none(name, value):
    """A known constant (a finite real) or None for 'unknown'."""
    if value is None:
        return None
    return check_real(name, value)


def _np_values(kind: str, d: int, p: np.ndarray, X: np.ndarray) -> np.ndarray:
    """f on the rows of X (m, d), vectorised numpy (the same formulas as _kernels.f_value)."""
    if kind == "quadratic":
        c, A = p[:d], p[d:].reshape(d, d)
        R = X - c
        return 0.5 * np.einsum("...i,...i->...", R, R @ A.T)
    if kind == "diag_quadratic":
        return 0.5 * np.sum(p[d:] * (X - p[:d]) ** 2, axis=-1)
    if kind == "product":
        return np.prod(X, axis=-1)
    if kind == "rosenbrock":
        a, b = p
        return np.sum(b * (X[..., 1:] - X[..., :-1] ** 2) ** 2 + (a - X[..., :-1]) ** 2, axis=-1)
    if kind == "logistic":
        n, lam = int(p[0]), p[1]
        Z = p[2:].reshape(n, d)
        return np.mean(np.logaddexp(0.0, -(X @ Z.T)), axis=-1) + 0.5 * lam * np.sum(X**2, -1)
    q, h = p[0], p[1:]
    X2 = X**2
    return np.sum(0.5 * h * X2 + 0.25 * q * X2**2, axis=-1)


def _np_gradients(kind: str, d: int, p: np.ndarray, X: np.ndarray) -> np.ndarray:
    """grad f on the rows of X (m, d), vectorised numpy (the same formulas as _kernels.f_grad)."""
    if kind == "quadratic":
        return (X - p[:d]) @ p[d:].reshape(d, d).T
    if kind == "diag_quadratic":
        return p[d:] * (X - p[:d])
    if kind == "product":
        ones = np.ones(X.shape[:-1] + (1,))
        before = np.concatenate([ones, np.cumprod(X[..., :-1], axis=-1)], axis=-1)
        after = np.concatenate([np.cumprod(X[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
        return before * after               # prod_{j != i} x_j, exact with zeros
    if kind == "rosenbrock":
        a, b = p
        u = X[..., 1:] - X[..., :-1] ** 2
        G = np.zeros_like(X)
        G[..., :-1] += -4 * b * X[..., :-1] * u - 2 * (a - X[..., :-1])
        G[..., 1:] += 2 * b * u
        return G
    if kind == "logistic":
        n, lam = int(p[0]), p[1]
        Z = p[2:].reshape(n, d)
        W = -0.5 * (1 - np.tanh(0.5 * (X @ Z.T)))     # d/dm log(1 + exp(-m)) = -1/(1 + exp(m))
        return W @ Z / n + lam * X
    q, h = p[0], p[1:]
    return h * X + q * X**3


class Oracle:
    """A zeroth-order oracle for one zoo member (build it with the factory functions).

    Parameters: ``kind`` (one of :data:`KINDS`), dimension ``d``, the flat parameter vector
    ``params`` (layout in ``_kernels.f_value``), ``noise`` (one of :data:`NOISES`) with
    ``noise_level >= 0``, ``seed`` of the noise stream; optionally the known minimum value
    ``f_star``, a minimiser ``x_star`` and the smoothness / strong-convexity constants ``L``, ``mu``
    (None where unknown).

    Attributes: ``queries`` counts the function values returned by :meth:`value` (points, not
    calls); ``reset_queries()`` sets it to 0.  ``kind_code``, ``params``, ``noise_code`` feed the
    jitted estimators.
    """

    def __init__(self, kind: str, d: int, params, *, noise: str = "none", noise_level: float = 0.0, seed=0,
                 f_star: float | None = None, x_star=None, L: float | None = None, mu: float | None = None):
        self.kind = check_choice("kind", kind, KINDS)
        self.d = check_size("d", d, low=2 if kind == "rosenbrock" else 1, budget=MAX_DIM)
        p = check_array("params", params, ndim=1)
        want = _n_params(self.kind, self.d, p)
        check_budget("params", want)
        if p.size != want:
            raise ValueError(f"params must have {want} entries for a {self.kind} oracle in d = {self.d}; got {p.size}")
        if self.kind == "logistic" and (p.size < 2 or p[0] != int(p[0]) or p[0] < 1):
            raise ValueError(f"params[0] (number of samples) must be a positive integer; got {p[:1]}")
        self.params = p
        self.kind_code = _KIND_CODE[self.kind]
        self.noise = check_choice("noise", noise, NOISES)
        self.noise_code = _NOISE_CODE[self.noise]
        self.noise_level = check_real("noise_level", noise_level, low=0.0)
        self.seed = seed
        self._rng = as_generator(seed)
        self.f_star = _real_or_none("f_star", f_star)
        self.x_star = None if x_star is None else check_array("x_star", x_star, shape=(self.d,))
        self.L = _real_or_none("L", L)
        self.mu = _real_or_none("mu", mu)
        self.queries = 0

    @property
    def cost_per_query(self) -> int:
        """Arithmetic work of one function value (for size budgets): d^2 (dense quadratic), n d (logistic), d."""
        if self.kind == "quadratic":
            return self.d * self.d
        if self.kind == "logistic":
            return self.n_samples * self.d
        return self.d

    def __repr__(self):
        noise = "" if self.noise == "none" else f", noise={self.noise!r}, noise_level={self.noise_level:g}"
        return f"Oracle({self.kind!r}, d={self.d}{noise}, queries={self.queries})"

    # -------------------------------------------------------------- helpers
    def _points(self, x, name="x"):
        arr = check_array(name, x)
        if arr.ndim == 1 and arr.shape[0] == self.d:
            return arr[None, :], True
        if arr.ndim == 2 and arr.shape[1] == self.d:
            check_budget(name, arr.size)
            return arr, False
        raise ValueError(f"{name} must have shape ({self.d},) or (m, {self.d}); got {arr.shape}")

    def with_noise(self, noise: str = "none", noise_level: float = 0.0, seed=0) -> Oracle:
        """A copy of this oracle (same function, fresh counter) with the given value noise."""
        return Oracle(self.kind, self.d, self.params, noise=noise, noise_level=noise_level, seed=seed,
                      f_star=self.f_star, x_star=self.x_star, L=self.L, mu=self.mu)

    def reset_queries(self) -> None:
        self.queries = 0

    def _values(self, X):
        check_budget("the values", X.shape[0] * self.cost_per_query, max_elements=10**9, unit="operations")
        with np.errstate(over="ignore", invalid="ignore"):
            return _np_values(self.kind, self.d, self.params, X)

    # -------------------------------------------------------------- oracle
    def value(self, x):
        """f at ``x`` (shape (d,): a float; shape (m, d): m values), plus the value noise; counted."""
        X, single = self._points(x)
        v = self._values(X)
        if self.noise == "bounded":
            v = v + self.noise_level * self._rng.uniform(-1.0, 1.0, size=v.shape)
        elif self.noise == "gaussian":
            v = v + self.noise_level * self._rng.standard_normal(v.shape)
        self.queries += X.shape[0]
        return float(v[0]) if single else v

    __call__ = value

    def exact_value(self, x):
        """f at ``x`` without noise and without counting (for measuring suboptimality)."""
        X, single = self._points(x)
        v = self._values(X)
        return float(v[0]) if single else v

    def gradient(self, x):
        """The exact gradient at ``x`` (shape (d,) or (m, d)); not counted as a query."""
        X, single = self._points(x)
        check_budget("the gradients", X.shape[0] * self.cost_per_query, max_elements=10**9, unit="operations")
        with np.errstate(over="ignore", invalid="ignore"):
            g = _np_gradients(self.kind, self.d, self.params, X)
        return g[0] if single else g

    def hessian(self, x):
        """The exact Hessian at one point ``x`` (d, d); not counted."""
        X, _ = self._points(x)
        if X.shape[0] != 1:
            raise ValueError(f"x must be one point of shape ({self.d},) for the Hessian; got {X.shape}")
        check_budget("the Hessian", self.d * self.d, d=self.d)
        x1, d, p = X[0], self.d, self.params
        if self.kind == "quadratic":
            return p[d:].reshape(d, d).copy()
        if self.kind == "diag_quadratic":
            return np.diag(p[d:])
        if self.kind == "product":
            H = np.zeros((d, d))
            for i in range(d):
                for j in range(d):
                    if i != j:
                        H[i, j] = np.prod(np.delete(x1, [i, j]))
            return H
        if self.kind == "rosenbrock":
            a, b = p
            H = np.zeros((d, d))
            for i in range(d - 1):
                H[i, i] += 12 * b * x1[i] ** 2 - 4 * b * x1[i + 1] + 2
                H[i + 1, i + 1] += 2 * b
                H[i, i + 1] += -4 * b * x1[i]
                H[i + 1, i] += -4 * b * x1[i]
            return H
        if self.kind == "logistic":
            n, lam = int(p[0]), p[1]
            Z = p[2:].reshape(n, d)
            m = Z @ x1
            s = 0.5 * (1 + np.tanh(m / 2))          # sigma(m), overflow-free
            w = s * (1 - s)
            return (Z * w[:, None]).T @ Z / n + lam * np.eye(d)
        q, h = p[0], p[1:]
        return np.diag(h + 3 * q * x1**2)

    # -------------------------------------------------------------- finite sums (logistic)
    def _logistic_parts(self):
        if self.kind != "logistic":
            raise ValueError(f"component values exist for the logistic oracle only; this oracle is kind={self.kind!r}")
        n = int(self.params[0])
        return n, self.params[1], self.params[2:].reshape(n, self.d)

    def component_values(self, x):
        """Per-sample losses l_j(x) = log(1 + exp(-z_j . x)) + lam/2 |x|^2 (logistic only), shape (n,); counted n."""
        X, single = self._points(x)
        if not single:
            raise ValueError(f"x must be one point of shape ({self.d},); got {X.shape}")
        n, lam, Z = self._logistic_parts()
        m = Z @ X[0]
        v = np.logaddexp(0.0, -m) + 0.5 * lam * float(X[0] @ X[0])
        if self.noise == "bounded":
            v = v + self.noise_level * self._rng.uniform(-1.0, 1.0, size=v.shape)
        elif self.noise == "gaussian":
            v = v + self.noise_level * self._rng.standard_normal(v.shape)
        self.queries += n
        return v

    def component_gradients(self, x):
        """Per-sample gradients (n, d) of the logistic loss at one point (exact, not counted)."""
        X, single = self._points(x)
        if not single:
            raise ValueError(f"x must be one point of shape ({self.d},); got {X.shape}")
        n, lam, Z = self._logistic_parts()
        m = Z @ X[0]
        w = -0.5 * (1 - np.tanh(m / 2))           # -1 / (1 + exp(m))
        return w[:, None] * Z + lam * X[0][None, :]

    @property
    def n_samples(self) -> int:
        """Number of samples of the logistic oracle (0 for the other kinds)."""
        return int(self.params[0]) if self.kind == "logistic" else 0

    @property
    def features(self):
        """The signed feature rows z_j = y_j a_j (logistic only), shape (n, d)."""
        return self._logistic_parts()[2].copy()


# ----------------------------------------------------------------------------- factories

def quadratic_spectrum(d: int, kappa: float = 10.0, *, L: float = 1.0, spacing: str = "linear"):
    """Eigenvalues from L/kappa to L: ``"linear"`` (evenly spaced) or ``"geometric"``; shape (d,)."""
    d = check_size("d", d, budget=MAX_DIM)
    kappa = check_real("kappa", kappa, low=1.0)
    L = check_real("L", L, low=0.0, low_open=True)
    spacing = check_choice("spacing", spacing, ("linear", "geometric"))
    if d == 1:
        return np.array([L])
    if spacing == "linear":
        return np.linspace(L / kappa, L, d)
    return np.geomspace(L / kappa, L, d)


def quadratic(spectrum, *, center=None, rotate: bool = False, noise: str = "none", noise_level: float = 0.0,
              seed=0) -> Oracle:
    """f(x) = 1/2 (x - c)^T A (x - c) with A = Q diag(spectrum) Q^T (Q = I, or Haar-random if ``rotate``).

    ``center`` c defaults to 0; f* = 0 at x* = c; L = max spectrum, mu = min spectrum.  Eigenvalues
    may be negative or zero (then mu <= 0 and f* is only the value at the stationary point c).
    """
    lam = check_array("spectrum", spectrum, ndim=1)
    if lam.size == 0:
        raise ValueError("spectrum must be a non-empty 1-d array of eigenvalues; got an empty array")
    d = check_size("spectrum (its length d)", lam.size, budget=3000)
    c = np.zeros(d) if center is None else check_array("center", center, shape=(d,))
    if not isinstance(rotate, (bool, np.bool_)):
        raise TypeError(f"rotate must be a bool; got {rotate!r}")
    if rotate:
        Q, R = np.linalg.qr(as_generator(seed).standard_normal((d, d)))
        Q = Q * np.sign(np.diag(R))
        A = (Q * lam) @ Q.T
        A = 0.5 * (A + A.T)
    else:
        A = np.diag(lam)
    return Oracle("quadratic", d, np.concatenate([c, A.ravel()]), noise=noise, noise_level=noise_level, seed=seed,
                  f_star=0.0 if lam.min() >= 0 else None, x_star=c, L=float(lam.max()), mu=float(lam.min()))


def diagonal_quadratic(spectrum, *, center=None, noise: str = "none", noise_level: float = 0.0,
                       seed=0) -> Oracle:
    """f(x) = 1/2 sum_i lam_i (x_i - c_i)^2 (kind "diag_quadratic": O(d) per query instead of O(d^2)).

    Same function as ``quadratic(spectrum, center=center)``; f* = 0 at c when all lam_i >= 0.
    """
    lam = check_array("spectrum", spectrum, ndim=1)
    if lam.size == 0:
        raise ValueError("spectrum must be a non-empty 1-d array of eigenvalues; got an empty array")
    d = check_size("spectrum (its length d)", lam.size, budget=MAX_DIM)
    c = np.zeros(d) if center is None else check_array("center", center, shape=(d,))
    return Oracle("diag_quadratic", d, np.concatenate([c, lam]), noise=noise, noise_level=noise_level, seed=seed,
                  f_star=0.0 if lam.min() >= 0 else None, x_star=c, L=float(lam.max()), mu=float(lam.min()))


def product(d: int = 16, *, noise: str = "none", noise_level: float = 0.0, seed=0) -> Oracle:
    """f(x) = prod_i x_i (the authors' ProductFunction; their figure uses d = 16). Unbounded below for d >= 2."""
    d = check_size("d", d, budget=MAX_DIM)
    return Oracle("product", d, np.empty(0), noise=noise, noise_level=noise_level, seed=seed)


def rosenbrock(d: int = 2, *, a: float = 1.0, b: float = 100.0, noise: str = "none", noise_level: float = 0.0,
               seed=0) -> Oracle:
    """The chained Rosenbrock function sum_{i<d} b (x_{i+1} - x_i^2)^2 + (a - x_i)^2; f* = 0 at x = a 1."""
    d = check_size("d", d, low=2, budget=MAX_DIM)
    a = check_real("a", a)
    b = check_real("b", b, low=0.0, low_open=True)
    return Oracle("rosenbrock", d, np.array([a, b]), noise=noise, noise_level=noise_level, seed=seed,
                  f_star=0.0, x_star=np.full(d, a))


def logistic_loss(n_samples: int = 64, d: int = 10, *, lam: float = 0.0, feature_scales=None, noise: str = "none",
                  noise_level: float = 0.0, seed=0) -> Oracle:
    """l2-regularised logistic loss on synthetic data: a_j ~ N(0, I_d) times ``feature_scales[j]``
    (default 1), labels y_j = sign(a_j . w0 + N(0, 1)) for a Gaussian teacher w0; f(x) = mean_j
    log(1 + exp(-y_j a_j . x)) + lam/2 |x|^2.  L <= max_j |a_j|^2 / 4 + lam (stored), mu >= lam.
    """
    n = check_size("n_samples", n_samples, budget=10**6)
    d = check_size("d", d, budget=10**4)
    check_budget("the feature matrix", n * d, max_elements=10**7, n_samples=n, d=d)
    lam = check_real("lam", lam, low=0.0)
    s = np.ones(n) if feature_scales is None else check_array("feature_scales", feature_scales, shape=(n,))
    if np.any(s <= 0):
        raise ValueError(f"feature_scales must be > 0; got minimum {s.min():.3g}")
    rng = as_generator(seed)
    Xf = rng.standard_normal((n, d)) * s[:, None]
    w0 = rng.standard_normal(d) / np.sqrt(d)
    y = np.where(Xf @ w0 + rng.standard_normal(n) >= 0, 1.0, -1.0)
    Z = y[:, None] * Xf
    with np.errstate(over="ignore"):
        L = float(np.max(np.sum(Z**2, 1)) / 4 + lam)
    if not np.isfinite(L):
        raise ValueError(f"feature_scales and lam must keep the smoothness constant finite; got max scale {s.max():.3g}, "
                         f"lam {lam:.3g}")
    return Oracle("logistic", d, np.concatenate([[float(n), lam], Z.ravel()]), noise=noise,
                  noise_level=noise_level, seed=rng, L=L, mu=lam)


def strict_saddle(d: int = 10, *, n_negative: int = 1, h_neg: float = -1.0, h_pos: float = 1.0, q: float = 1.0,
                  noise: str = "none", noise_level: float = 0.0, seed=0) -> Oracle:
    """f(x) = 1/2 sum_i h_i x_i^2 + q/4 sum_i x_i^4 with h = (h_pos, ..., h_pos, h_neg x n_negative).

    x = 0 is a strict saddle (lambda_min = h_neg < 0); the minima are x_i = +-sqrt(-h_neg/q) on the last
    ``n_negative`` coordinates and 0 elsewhere, with f* = -n_negative h_neg^2 / (4q).
    """
    d = check_size("d", d, budget=MAX_DIM)
    k = check_int("n_negative", n_negative, low=1, high=d)
    h_neg = check_real("h_neg", h_neg, high=0.0, high_open=True)
    h_pos = check_real("h_pos", h_pos, low=0.0, low_open=True)
    q = check_real("q", q, low=0.0, low_open=True)
    h = np.full(d, h_pos)
    if k:
        h[d - k:] = h_neg
    x_star = np.zeros(d)
    x_star[d - k:] = np.sqrt(-h_neg / q) if k else 0.0
    with np.errstate(over="ignore"):
        f_star = float(-k * np.float64(h_neg) ** 2 / (4 * q))
    if not (np.isfinite(f_star) and np.all(np.isfinite(x_star))):
        raise ValueError(f"h_neg and q must keep the minimum finite; got h_neg = {h_neg:.3g}, q = {q:.3g}")
    return Oracle("saddle", d, np.concatenate([[q], h]), noise=noise, noise_level=noise_level, seed=seed,
                  f_star=f_star, x_star=x_star, L=float(max(h_pos, abs(h_neg))),
                  mu=float(h.min()))
