"""The dominant Hessian subspace and SGD: Dom-SGD and Bulk-SGD (Song, Ahn, Yun, "Does SGD really happen in tiny
subspaces?", ICLR 2025, arXiv:2405.16002).

Definitions (paper Sec. 3; k = number of classes, after Gur-Ari et al. 2018):

* the dominant subspace at theta is spanned by the top-k eigenvectors V_k of the training-loss Hessian
  nabla^2 L(theta); P = V_k V_k^T;
* SGD: theta <- theta - eta g;  Dom-SGD: theta <- theta - eta P g;  Bulk-SGD: theta <- theta - eta (I - P) g,
  with g the mini-batch gradient and V_k recomputed every ``refresh`` steps (the paper: every step or every few);
* the alignment chi(theta) = ||P nabla L|| / ||nabla L|| of the full-batch gradient (we also report chi^2).

Two instances:

* the exact toy: f(x, y) = (lambda_1 x^2 + lambda_2 y^2) / 2 with gradient noise N(0, s^2) on the x-component only,
  k = 1 (:func:`toy_run`, and the closed-form alignment :func:`toy_alignment` of the full-batch gradient when x is
  stationary: a = lambda_2 |y| / sigma, sigma^2 = lambda_1 eta s^2 / (2 - eta lambda_1), E chi = e^{a^2/2} erfc(a/sqrt 2),
  E chi^2 = 1 - a sqrt(pi/2) e^{a^2/2} erfc(a/sqrt 2); derivation in its docstring);
* a two-layer tanh MLP with MSE loss on a Gaussian mixture (inputs from :func:`theorylab.finite_sum.gaussian_mixture`),
  with its exact Hessian in closed form (:func:`tanh_mlp_hessian`, checked against central differences of the
  exact gradient by :func:`hessian_fd`), and :func:`train_switch`: SGD up to a switch step, then SGD, Dom-SGD,
  Bulk-SGD and GD from the same point on the same mini-batches.

Parameters are one flat vector theta = [vec(A), vec(B)], A = [W_1 | b_1] (width x (dim + 1)) and
B = [W_2 | b_2] (classes x (width + 1)), both row-major; f(x) = B [tanh(A [x; 1]); 1];
L(theta) = (1 / 2n) sum_i ||f(x_i) - e_{y_i}||^2 (one-hot targets).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import erfcx

from theorylab.core import (SimulationDiverged, as_generator, check_array, check_budget, check_choice, check_int,
                            check_positive, check_real, child_seed)
from theorylab.core.parallel import blas_threads
from theorylab.finite_sum.mlp import Mixture

__all__ = ["METHODS", "TanhMLP", "toy_stationary_sd", "toy_alignment", "toy_run", "top_eigenspace", "project",
           "tanh_mlp", "tanh_mlp_init", "tanh_mlp_loss_grad", "tanh_mlp_hessian", "hessian_fd", "alignment",
           "train_switch"]

#: the update rules after the switch: SGD, Dom-SGD (P g), Bulk-SGD ((I - P) g), full-batch GD
METHODS = ("sgd", "dom", "bulk", "gd")
MAX_PARAMS = 4000          # dense Hessians: 4000^2 doubles = 128 MB


# ---------------------------------------------------------------- the exact toy

def toy_stationary_sd(lam1: float, eta: float, s: float) -> float:
    """sigma = sd of lambda_1 x in SGD's stationary law on the x-coordinate: x' = (1 - eta lambda_1) x - eta xi,
    xi ~ N(0, s^2), has Var x = eta s^2 / (lambda_1 (2 - eta lambda_1)), so sigma^2 = lambda_1 eta s^2 / (2 - eta lambda_1)
    (needs 0 < eta lambda_1 < 2)."""
    lam1, eta, s = check_positive("lam1", lam1), check_positive("eta", eta), check_positive("s", s)
    if not eta * lam1 < 2:
        raise ValueError(f"eta must satisfy eta * lam1 < 2 (stable x-dynamics); got eta = {eta}, lam1 = {lam1}")
    return float(np.sqrt(lam1 * eta * s ** 2 / (2 - eta * lam1)))


def toy_alignment(y, *, lam1: float = 100.0, lam2: float = 1.0, eta: float = 0.015, s: float = 1.0,
                  gradient: str = "full") -> dict:
    """E chi and E chi^2 of a gradient's alignment with the dominant direction e_x, for x in SGD's stationary law
    (lambda_1 x ~ N(0, sigma^2), :func:`toy_stationary_sd`) and y fixed.  ``gradient="full"``: the full-batch gradient
    (lambda_1 x, lambda_2 y); ``"stochastic"``: the stochastic gradient (lambda_1 x + xi, lambda_2 y) with fresh
    xi ~ N(0, s^2), whose x-component is N(0, sigma^2 + s^2).

    Derivation (full; stochastic with sigma replaced by sqrt(sigma^2 + s^2)): u = lambda_1 x / sigma ~ N(0, 1),
    chi = |u| / sqrt(u^2 + a^2) with a = lambda_2 |y| / sigma.  E chi = 2 int_0^inf u (u^2 + a^2)^{-1/2} phi(u) du; with
    v = sqrt(u^2 + a^2) (v dv = u du) this is 2 e^{a^2/2} int_a^inf phi(v) dv = e^{a^2/2} erfc(a / sqrt 2).
    E chi^2 = 1 - a^2 E[1 / (u^2 + a^2)] and E[1 / (u^2 + a^2)] = sqrt(pi/2) e^{a^2/2} erfc(a / sqrt 2) / a, so
    E chi^2 = 1 - a sqrt(pi/2) e^{a^2/2} erfc(a / sqrt 2).  (e^{z^2} erfc(z) is scipy's erfcx, stable for large a.)"""
    y = check_array("y", y, ndim=None)
    lam2 = check_positive("lam2", lam2)
    gradient = check_choice("gradient", gradient, ("full", "stochastic"))
    sigma = toy_stationary_sd(lam1, eta, s)
    scale = sigma if gradient == "full" else float(np.sqrt(sigma ** 2 + s ** 2))
    a = lam2 * np.abs(y) / scale
    ex = erfcx(a / np.sqrt(2.0))
    return {"a": a, "sigma": scale, "E_chi": ex, "E_chi2": 1.0 - a * np.sqrt(np.pi / 2) * ex}


def top_eigenspace(H, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k largest eigenvalues (descending) of the symmetric matrix H and an orthonormal basis V (n, k) of their
    eigenvectors (numpy's eigh)."""
    H = check_array("H", H, ndim=2)
    if H.shape[0] != H.shape[1] or H.shape[0] > MAX_PARAMS:
        raise ValueError(f"H must be square of size at most {MAX_PARAMS}; got shape {H.shape}")
    k = check_int("k", k, low=1, high=H.shape[0])
    if not np.allclose(H, H.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.abs(H).max()))):
        raise ValueError("H must be symmetric; got an asymmetric matrix")
    w, V = np.linalg.eigh(0.5 * (H + H.T))
    return w[::-1][:k].copy(), V[:, ::-1][:, :k].copy()


def project(g, V, mode: str):
    """``mode="dom"``: P g = V (V^T g); ``"bulk"``: (I - P) g; ``"sgd"`` / ``"gd"``: g unchanged.  V (n, k) has
    orthonormal columns (from :func:`top_eigenspace`); g is (n,) or a batch (m, n)."""
    mode = check_choice("mode", mode, METHODS)
    V = check_array("V", V, ndim=2)
    g = check_array("g", g)
    if g.ndim not in (1, 2) or g.shape[-1] != V.shape[0]:
        raise ValueError(f"g must be (n,) or (m, n) with n = {V.shape[0]} (rows of V); got shape {g.shape}")
    return _project(g, V, mode)


def _project(g, V, mode):
    if mode in ("sgd", "gd"):
        return g
    Pg = (g @ V) @ V.T
    return Pg if mode == "dom" else g - Pg


def toy_run(method: str, *, lam1: float = 100.0, lam2: float = 1.0, eta: float = 0.015, s: float = 1.0,
            y0: float = 10.0, steps: int = 400, paths: int = 1000, seed=0) -> dict:
    """``paths`` independent runs of ``method`` on the toy, x_0 drawn from SGD's stationary law
    (lambda_1 x_0 ~ N(0, sigma^2)), y_0 fixed.  The dominant direction is the top eigenvector of the Hessian
    diag(lambda_1, lambda_2) (k = 1, from :func:`top_eigenspace`), the stochastic gradient (lambda_1 x + xi, lambda_2 y)
    with xi ~ N(0, s^2) (GD: xi = 0).

    Returns x, y (steps + 1, paths), the full-batch gradient's chi^2 at every step and the stochastic gradient's chi
    (the one the update used; steps, paths), and sigma."""
    method = check_choice("method", method, METHODS)
    lam1, lam2 = check_positive("lam1", lam1), check_positive("lam2", lam2)
    if not lam1 > lam2:
        raise ValueError(f"lam1 must exceed lam2 (the sharp direction is x); got lam1 = {lam1}, lam2 = {lam2}")
    sigma = toy_stationary_sd(lam1, eta, s)
    y0 = check_real("y0", y0, low=-1e6, high=1e6)
    steps, paths = check_int("steps", steps, low=1, high=10**6), check_int("paths", paths, low=1, high=10**7)
    check_budget("the toy paths", (steps + 1) * paths * 4, steps=steps, paths=paths)
    _, V = top_eigenspace(np.diag([lam1, lam2]), 1)
    rng = as_generator(child_seed(seed, "toy"))       # common noise for every method
    x = np.empty((steps + 1, paths))
    y = np.empty((steps + 1, paths))
    chi_sg = np.empty((steps, paths))
    x[0] = rng.standard_normal(paths) * sigma / lam1
    y[0] = y0
    for t in range(steps):
        xi = np.zeros(paths) if method == "gd" else s * rng.standard_normal(paths)
        g = np.stack([lam1 * x[t] + xi, lam2 * y[t]], axis=1)
        chi_sg[t] = np.abs(g @ V[:, 0]) / np.maximum(np.linalg.norm(g, axis=1), 1e-300)
        step = _project(g, V, method)
        x[t + 1], y[t + 1] = x[t] - eta * step[:, 0], y[t] - eta * step[:, 1]
    gx, gy = lam1 * x, lam2 * y
    chi2 = gx ** 2 / np.maximum(gx ** 2 + gy ** 2, 1e-300)
    return {"x": x, "y": y, "chi2_full": chi2, "chi_stoch": chi_sg, "sigma": sigma}


# ---------------------------------------------------------------- the tanh MLP with its exact Hessian

@dataclass(frozen=True)
class TanhMLP:
    """A two-layer tanh MLP with MSE loss on one-hot targets: inputs X (n, dim), labels y, and the layer sizes."""

    X: np.ndarray
    y: np.ndarray
    width: int
    classes: int

    def __post_init__(self):
        Mixture(self.X, self.y, self.classes)                      # validates X, y, classes
        check_int("width", self.width, low=1, high=1024)
        if self.n_params > MAX_PARAMS:
            raise ValueError(f"width must keep the parameter count <= {MAX_PARAMS} (dense Hessians); got "
                             f"{self.n_params} parameters for width = {self.width}")
        object.__setattr__(self, "X", np.ascontiguousarray(self.X, dtype=float))
        object.__setattr__(self, "y", np.ascontiguousarray(self.y, dtype=np.int64))

    @property
    def dim(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_params(self) -> int:
        return self.width * (self.dim + 1) + self.classes * (self.width + 1)


def tanh_mlp(data: Mixture, width: int = 16) -> TanhMLP:
    """The two-layer tanh MLP problem on a Gaussian mixture (MSE on one-hot targets)."""
    if not isinstance(data, Mixture):
        raise TypeError(f"data must be a Mixture (from theorylab.finite_sum.gaussian_mixture); got {type(data).__name__}")
    return TanhMLP(data.X, data.y, check_int("width", width, low=1, high=1024), data.classes)


def _check_problem(problem):
    if not isinstance(problem, TanhMLP):
        raise TypeError(f"problem must be a TanhMLP (from tanh_mlp); got {type(problem).__name__}")
    return problem


def _check_theta(problem, theta):
    return check_array("theta", theta, shape=(problem.n_params,))


def tanh_mlp_init(problem: TanhMLP, *, seed=0) -> np.ndarray:
    """theta_0: W_1 ~ N(0, 1/dim), W_2 ~ N(0, 1/width) (LeCun), biases 0."""
    p = _check_problem(problem)
    rng = as_generator(seed)
    A = np.zeros((p.width, p.dim + 1))
    B = np.zeros((p.classes, p.width + 1))
    A[:, :-1] = rng.standard_normal((p.width, p.dim)) / np.sqrt(p.dim)
    B[:, :-1] = rng.standard_normal((p.classes, p.width)) / np.sqrt(p.width)
    return np.concatenate([A.ravel(), B.ravel()])


def _unpack(p, theta):
    na = p.width * (p.dim + 1)
    return theta[:na].reshape(p.width, p.dim + 1), theta[na:].reshape(p.classes, p.width + 1)


def _forward(p, theta, idx=None):
    A, B = _unpack(p, theta)
    X = p.X if idx is None else p.X[idx]
    y = p.y if idx is None else p.y[idx]
    xe = np.concatenate([X, np.ones((X.shape[0], 1))], axis=1)
    h = np.tanh(xe @ A.T)
    he = np.concatenate([h, np.ones((X.shape[0], 1))], axis=1)
    r = he @ B.T
    r[np.arange(X.shape[0]), y] -= 1.0
    return A, B, xe, h, he, r


def _loss_grad(p, theta, idx=None):
    A, B, xe, h, he, r = _forward(p, theta, idx)
    n = xe.shape[0]
    gB = r.T @ he / n
    gA = ((r @ B[:, :-1]) * (1 - h ** 2)).T @ xe / n
    return 0.5 * float((r ** 2).sum()) / n, np.concatenate([gA.ravel(), gB.ravel()])


def tanh_mlp_loss_grad(problem: TanhMLP, theta, idx=None) -> tuple[float, np.ndarray]:
    """L and nabla L on all points (``idx=None``) or on the mini-batch ``idx`` (indices into the data)."""
    p = _check_problem(problem)
    theta = _check_theta(p, theta)
    if idx is not None:
        idx = check_array("idx", idx, ndim=1, dtype=np.int64)
        if idx.size == 0 or idx.min() < 0 or idx.max() >= p.X.shape[0]:
            raise ValueError(f"idx must be a non-empty 1-d array of indices in [0, {p.X.shape[0] - 1}]")
    return _loss_grad(p, theta, idx)


def _hessian(p, theta):
    A, B, xe, h, he, r = _forward(p, theta)
    n, m, d1, C = xe.shape[0], p.width, p.dim + 1, p.classes
    h1 = 1 - h ** 2                                   # tanh'
    h2 = -2 * h * h1                                  # tanh''
    # Gauss-Newton part (1/n) sum_i J_i^T J_i by blocks, with J_i's rows df_c/dA[j,k] = B[c,j] G_i[(j,k)],
    # G_i[(j,k)] = tanh'_j xe_k, and df_c/dB[c',l] = delta_cc' he_l
    G = (h1[:, :, None] * xe[:, None, :]).reshape(n, m * d1)
    Bw = B[:, :-1]                                                   # (C, m)
    na = m * d1
    H = np.empty((na + C * (m + 1), na + C * (m + 1)))
    H[:na, :na] = (G.T @ G) * np.repeat(np.repeat(Bw.T @ Bw, d1, axis=0), d1, axis=1) / n
    Ghe = (G.T @ he) / n                                             # (m d1, m + 1)
    AB = np.repeat(Bw.T, d1, axis=0)[:, :, None] * Ghe[:, None, :]   # (m d1, C, m + 1): B[c,j] Ghe[(j,k), l]
    H[:na, na:] = AB.reshape(na, -1)
    H[na:, :na] = AB.reshape(na, -1).T
    H[na:, na:] = np.kron(np.eye(C), he.T @ he / n)
    # residual part: sum_c r_c nabla^2 f_c
    s = (r @ B[:, :-1]) * h2                          # (n, m)
    AA = np.einsum("ij,ik,il->jkl", s, xe, xe) / n    # (m, d1, d1), block-diagonal over hidden units
    for j in range(m):
        H[j * d1:(j + 1) * d1, j * d1:(j + 1) * d1] += AA[j]
    T = np.einsum("ij,ik,ic->jkc", h1, xe, r) / n    # d^2 / dA[j,k] dB[c,j]
    AB = np.zeros((m, d1, C, m + 1))
    AB[np.arange(m), :, :, np.arange(m)] = T
    H[:na, na:] += AB.reshape(na, -1)
    H[na:, :na] += AB.reshape(na, -1).T
    return 0.5 * (H + H.T)                            # J^T J is symmetric only up to rounding


def tanh_mlp_hessian(problem: TanhMLP, theta) -> np.ndarray:
    """The exact Hessian of L at theta, in closed form: (1/n) sum_i J_i^T J_i (Gauss-Newton) + (1/n) sum_i sum_c
    r_ic nabla^2 f_c(x_i), where nabla^2 f_c has the blocks d^2 f_c / dA[j,k] dA[j,l] = B[c,j] tanh''_j xe_k xe_l and
    d^2 f_c / dA[j,k] dB[c,j] = tanh'_j xe_k (all others 0)."""
    p = _check_problem(problem)
    theta = _check_theta(p, theta)
    check_budget("the Jacobian", p.X.shape[0] * p.classes * p.n_params, n=p.X.shape[0], width=p.width)
    return _hessian(p, theta)


def hessian_fd(problem: TanhMLP, theta, *, h: float = 1e-5) -> np.ndarray:
    """The Hessian by central differences of the exact gradient, column by column (an independent reference for
    :func:`tanh_mlp_hessian`; error O(h^2)), symmetrised."""
    p = _check_problem(problem)
    theta = _check_theta(p, theta)
    h = check_real("h", h, low=1e-10, high=1e-1)
    check_budget("the finite-difference Hessian", 2 * p.n_params * p.X.shape[0] * p.n_params, n=p.X.shape[0],
                 width=p.width)
    H = np.empty((p.n_params, p.n_params))
    for j in range(p.n_params):
        e = np.zeros(p.n_params)
        e[j] = h
        H[:, j] = (_loss_grad(p, theta + e)[1] - _loss_grad(p, theta - e)[1]) / (2 * h)
    return 0.5 * (H + H.T)


def alignment(problem: TanhMLP, theta, k: int) -> dict:
    """chi^2 = ||P nabla L||^2 / ||nabla L||^2 of the full-batch gradient with the top-k Hessian eigenspace, the top-k
    eigenvalues and the loss."""
    p = _check_problem(problem)
    theta = _check_theta(p, theta)
    k = check_int("k", k, low=1, high=p.n_params)
    return _alignment(p, theta, k)


def _alignment(p, theta, k):
    loss, g = _loss_grad(p, theta)
    lam, V = top_eigenspace(_hessian(p, theta), k)
    pg = V.T @ g
    return {"loss": loss, "chi2": float(pg @ pg / max(g @ g, 1e-300)), "eigenvalues": lam}


def train_switch(problem: TanhMLP, *, lr: float = 0.05, batch: int = 25, switch: int = 300, steps_after: int = 300,
                 k: int | None = None, refresh: int = 10, measure_every: int = 25, methods=METHODS, seed=0) -> dict:
    """SGD (mini-batches of ``batch`` drawn without replacement within each step) from :func:`tanh_mlp_init` for
    ``switch`` steps, then each method of ``methods`` for ``steps_after`` steps from that same point on the same
    mini-batch sequence (GD uses the full gradient).  Dom-/Bulk-SGD recompute the top-k eigenspace (k = classes by
    default) every ``refresh`` steps.  Returns, per method, the full-batch loss after every step after the switch
    (index 0 = the switch point) and chi^2 of the full-batch gradient every ``measure_every`` steps; also the SGD
    losses before the switch and the top-k eigenvalues at the switch."""
    p = _check_problem(problem)
    lr = check_positive("lr", lr)
    n = p.X.shape[0]
    batch = check_int("batch", batch, low=1, high=n)
    switch = check_int("switch", switch, low=0, high=10**6)
    steps_after = check_int("steps_after", steps_after, low=1, high=10**6)
    k = p.classes if k is None else check_int("k", k, low=1, high=p.n_params)
    refresh = check_int("refresh", refresh, low=1, high=10**6)
    measure_every = check_int("measure_every", measure_every, low=1, high=10**6)
    if isinstance(methods, str) or not isinstance(methods, (tuple, list)) or not methods:
        raise TypeError(f"methods must be a non-empty tuple of names from {METHODS}; got {methods!r}")
    methods = tuple(check_choice("methods", m, METHODS) for m in methods)
    hess = len(methods) * (steps_after // refresh + steps_after // measure_every + 2)
    check_budget("the Hessians", hess * n * p.classes * p.n_params + (switch + len(methods) * steps_after) * n * p.width,
                 max_elements=5 * 10**9, unit="flops", steps_after=steps_after, refresh=refresh, width=p.width)
    with blas_threads(1):
        return _train_switch(p, lr, batch, switch, steps_after, k, refresh, measure_every, methods, seed)


def _train_switch(p, lr, batch, switch, steps_after, k, refresh, measure_every, methods, seed):
    n = p.X.shape[0]
    rng = as_generator(child_seed(seed, "batches"))
    theta = tanh_mlp_init(p, seed=child_seed(seed, "init"))
    before = []
    for _ in range(switch):
        before.append(_loss_grad(p, theta)[0])
        theta = theta - lr * _loss_grad(p, theta, rng.choice(n, batch, replace=False))[1]
    batches = [rng.choice(n, batch, replace=False) for _ in range(steps_after)]
    lam0, _ = top_eigenspace(_hessian(p, theta), k)
    out = {"before": np.array(before), "eigenvalues_at_switch": lam0, "methods": {}}
    for method in methods:
        th, V = theta.copy(), None
        losses, chi2, at = np.empty(steps_after + 1), [], []
        for t in range(steps_after + 1):
            if t % measure_every == 0 or t == steps_after:
                a = _alignment(p, th, k)
                chi2.append(a["chi2"])
                at.append(t)
            losses[t] = _loss_grad(p, th)[0]
            if not np.isfinite(losses[t]) or losses[t] > 1e6:
                raise SimulationDiverged(f"{method} diverged at step {t} after the switch (lr = {lr})")
            if t == steps_after:
                break
            g = _loss_grad(p, th, None if method == "gd" else batches[t])[1]
            if method in ("dom", "bulk"):
                if t % refresh == 0:
                    V = top_eigenspace(_hessian(p, th), k)[1]
                g = _project(g, V, method)
            th = th - lr * g
        out["methods"][method] = {"loss": losses, "chi2": np.array(chi2), "chi2_steps": np.array(at), "theta": th}
    return out
