"""Softmax attention of a given rank and the nearest-neighbour target: the simulator of paper ``rank_attn``.

N. Amsel, G. Yehudai, J. Bruna, "On the Benefits of Rank in Attention Layers", ICLR 2025 (arXiv:2407.16153).
Only the abstract (and third-party notes restating it) was read: a natural nearest-neighbour-like target is
represented by one full-rank head at any context length, while low-rank heads need many heads.  The exact
target and theorems were not read; what follows is our own formalisation, marked [derived].

Inputs: a query q and keys x_1..x_N, all on the unit sphere of R^d.  Target (nearest neighbour):
    t(q, X) = x_{i*},   i* = argmax_j q.x_j   (= argmin_j |q - x_j| on the sphere).
Model: H heads of rank r (theorylab.exact._kernels_attention):
    f(q, X) = sum_h V_h sum_j softmax_j(q^T Q_h K_h^T x_j) x_j,   Q_h, K_h in R^{d x r},  V_h in R^{d x d}.

Full-rank bound [derived] (:func:`full_rank_bound`).  One head with W_QK = beta I and V = I outputs
z = sum_j p_j x_j, p_j = softmax(beta q.x_j).  Since sum_j p_j = 1,
    z - x_{i*} = sum_{j != i*} p_j (x_j - x_{i*}),  p_j <= exp(-beta (q.x_{i*} - q.x_j)),  |x_j - x_{i*}| <= 2,
hence  |z - x_{i*}| <= 2 sum_{j != i*} exp(-beta (q.x_{i*} - q.x_j)) <= 2 (N - 1) exp(-beta Delta),
Delta = q.x_{i*} - max_{j != i*} q.x_j the gap.  So beta >= log(2 (N - 1)/eps)/Delta gives error <= eps at any
context length N, and d/dbeta log|z - x_{i*}| -> -Delta as beta -> infinity.

Low-rank lower bound [derived] (:func:`subspace_lower_bound`).  If H r < d, all Q_h lie in a subspace S of
dimension < d; for a unit v orthogonal to S and the reflection R = I - 2 v v^T the model cannot tell q from Rq
(f(Rq, X) = f(q, X)), and Rq has the law of q.  Then  E|f - t(q)|^2 = (E|f - t(q)|^2 + E|f - t(Rq)|^2)/2
>= E|t(q) - t(Rq)|^2 / 4  for every such model (v = e_1 by rotation invariance of the instance law).

Example::

    q, X = random_instances(16, 8, 100, seed=0)
    err = full_rank_error(q, X, beta=64.0)        # |z - t| per instance, computed without cancellation
    tight, coarse = full_rank_bound(q, X, beta=64.0)
    fit = fit_low_rank(d=4, N=2, H=4, r=1, seed=0)  # best test MSE of 4 rank-1 heads (L-BFGS, restarts)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core.seeding import as_generator, spawn_seeds
from theorylab.core.validate import check_array, check_budget, check_int, check_real, check_size, require_finite
from theorylab.exact import _kernels_attention as K

__all__ = ["random_instances", "nearest_neighbour_target", "score_gap", "multihead_attention",
           "full_rank_head", "full_rank_error", "full_rank_bound", "beta_for_error", "log_error_slope",
           "attention_loss_grad", "attention_loss_grad_numpy", "fit_low_rank", "subspace_lower_bound",
           "pack_heads", "unpack_heads"]

MAX_DIM = 4096
MAX_BETA = 1e8
#: Largest number of heads accepted (the claims use <= 16).
MAX_HEADS = 4096
#: Work budget (elements of M * N * H * d * max(r, d)) of one loss evaluation.
MAX_WORK = 10**8


# --------------------------------------------------------------------------- instances and the target

def _unit_rows(a):
    return a / np.linalg.norm(a, axis=-1, keepdims=True)


def random_instances(d: int = 16, N: int = 8, n: int = 100, *, seed=0):
    """``n`` independent instances: q (n, d) and keys X (n, N, d), i.i.d. uniform on the unit sphere of R^d."""
    d = check_int("d", d, low=2, high=MAX_DIM)
    N = check_int("N", N, low=2, high=10**6)
    n = check_size("n", n)
    check_budget("the instance arrays", n * (N + 1) * d, n=n, N=N, d=d)
    rng = as_generator(seed)
    q = _unit_rows(rng.standard_normal((n, d)))
    X = _unit_rows(rng.standard_normal((n, N, d)))
    return q, X


def _qx(q, X):
    X = check_array("X", X, ndim=3)
    n, N, d = X.shape
    if n == 0 or N == 0 or d == 0:
        raise ValueError(f"X must be a non-empty (n, N, d) array of keys; got shape {X.shape}")
    q = check_array("q", q, shape=(n, d))
    return q, X


def nearest_neighbour_target(q, X):
    """t(q, X) = x_{i*} with i* = argmax_j q.x_j (the key nearest to q on the sphere); returns (n, d)."""
    q, X = _qx(q, X)
    i_star = np.argmax(np.einsum("nd,njd->nj", q, X), axis=1)
    return X[np.arange(X.shape[0]), i_star]


def score_gap(q, X):
    """Delta = q.x_{i*} - max_{j != i*} q.x_j per instance (n,); needs N >= 2."""
    q, X = _qx(q, X)
    if X.shape[1] < 2:
        raise ValueError(f"X must hold N >= 2 keys for a gap; got N = {X.shape[1]}")
    s = np.sort(np.einsum("nd,njd->nj", q, X), axis=1)
    return s[:, -1] - s[:, -2]


# --------------------------------------------------------------------------- the full-rank head

def _beta(beta, name="beta"):
    return check_real(name, beta, low=0.0, high=MAX_BETA)


def full_rank_head(q, X, beta):
    """Output z = sum_j softmax_j(beta q.x_j) x_j of the head W_QK = beta I, V = I; (n, d)."""
    q, X = _qx(q, X)
    beta = _beta(beta)
    s = beta * np.einsum("nd,njd->nj", q, X)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return np.einsum("nj,njd->nd", p, X)


def _relative_weights(q, X, beta):
    """p_j for j != i* (the others' softmax weights, exact down to underflow) and x_j - x_{i*}."""
    s = np.einsum("nd,njd->nj", q, X)
    i_star = np.argmax(s, axis=1)
    rows = np.arange(X.shape[0])
    gaps = s[rows, i_star][:, None] - s                     # >= 0, zero at i*
    w = np.exp(-beta * gaps)                                 # p_j / p_{i*}
    p = w / w.sum(axis=1, keepdims=True)
    p[rows, i_star] = 0.0
    return p, X - X[rows, i_star][:, None, :], gaps, i_star


def full_rank_error(q, X, beta):
    """|z - t(q, X)| per instance (n,), as |sum_{j != i*} p_j (x_j - x_{i*})| (no cancellation against x_{i*},
    so errors far below 1e-16 are resolved until the weights underflow)."""
    q, X = _qx(q, X)
    beta = _beta(beta)
    p, diff, _, _ = _relative_weights(q, X, beta)
    scale = p.max(axis=1)                                    # rescaled so that |.|^2 does not underflow
    safe = np.where(scale > 0, scale, 1.0)
    return scale * np.linalg.norm(np.einsum("nj,njd->nd", p / safe[:, None], diff), axis=1)


def full_rank_bound(q, X, beta):
    """The [derived] bounds of the module docstring per instance: ``(tight, coarse)`` with
    tight = 2 sum_{j != i*} exp(-beta (q.x_{i*} - q.x_j)) and coarse = 2 (N - 1) exp(-beta Delta)."""
    q, X = _qx(q, X)
    beta = _beta(beta)
    _, _, gaps, i_star = _relative_weights(q, X, beta)
    e = np.exp(-beta * gaps)
    e[np.arange(X.shape[0]), i_star] = 0.0
    delta = score_gap(q, X)
    return 2.0 * e.sum(axis=1), 2.0 * (X.shape[1] - 1) * np.exp(-beta * delta)


def beta_for_error(eps, N, delta):
    """beta = log(2 (N - 1)/eps)/Delta: by the coarse bound, the full-rank head's error is then <= eps."""
    eps = check_real("eps", eps, low=0.0, high=1.0, low_open=True)
    N = check_int("N", N, low=2, high=10**12)
    delta = check_array("delta", np.atleast_1d(check_array("delta", delta)) if not isinstance(delta, str)
                        else delta, ndim=1)
    if np.any(delta <= 0):
        raise ValueError(f"delta must be > 0 (ties have no nearest neighbour); got min {delta.min()!r}")
    return np.log(2.0 * (N - 1) / eps) / delta


def log_error_slope(q, X, beta1, beta2):
    """(log err(beta2) - log err(beta1)) / (beta2 - beta1) per instance: tends to -Delta as beta -> inf."""
    beta1, beta2 = _beta(beta1, "beta1"), _beta(beta2, "beta2")
    if not beta2 > beta1:
        raise ValueError(f"beta2 must be > beta1; got beta1={beta1!r}, beta2={beta2!r}")
    e1, e2 = full_rank_error(q, X, beta1), full_rank_error(q, X, beta2)
    with np.errstate(divide="ignore"):
        return (np.log(e2) - np.log(e1)) / (beta2 - beta1)


# --------------------------------------------------------------------------- multi-head attention of rank r

def _heads(Q, K_, V, d):
    Q = check_array("Q", Q, ndim=3)
    H, dq, r = Q.shape
    if H == 0 or r == 0 or dq != d:
        raise ValueError(f"Q must have shape (H, d={d}, r) with H, r >= 1; got {Q.shape}")
    if r > d:
        raise ValueError(f"the rank r must be in [1, d={d}]; got Q of shape {Q.shape} (r = {r})")
    check_int("H (heads)", H, high=MAX_HEADS)
    K_ = check_array("K", K_, shape=(H, d, r))
    V = check_array("V", V, shape=(H, d, d))
    return Q, K_, V


def multihead_attention(q, X, Q, K, V):
    """f(q, X) = sum_h V_h sum_j softmax_j(q^T Q_h K_h^T x_j) x_j for each instance; (n, d)."""
    q, X = _qx(q, X)
    Q, K, V = _heads(Q, K, V, X.shape[2])
    check_budget("the attention evaluation", X.shape[0] * X.shape[1] * Q.shape[0] * X.shape[2] * max(Q.shape[2], 1),
                 max_elements=MAX_WORK, n=X.shape[0], N=X.shape[1], H=Q.shape[0])
    a = np.einsum("hdr,nd->nhr", Q, q)
    b = np.einsum("hdr,njd->nhjr", K, X)
    s = np.einsum("nhr,nhjr->nhj", a, b)
    p = np.exp(s - s.max(axis=2, keepdims=True))
    p /= p.sum(axis=2, keepdims=True)
    z = np.einsum("nhj,njd->nhd", p, X)
    return np.einsum("hid,nhd->ni", V, z)


def _loss_inputs(q, X, Y, Q, K, V):
    q, X = _qx(q, X)
    Y = check_array("Y", Y, shape=(X.shape[0], X.shape[2]))
    Q, K, V = _heads(Q, K, V, X.shape[2])
    n, N, d = X.shape
    check_budget("the attention loss", n * N * Q.shape[0] * d * max(Q.shape[2], d), max_elements=MAX_WORK,
                 n=n, N=N, H=Q.shape[0], d=d)
    return q, X, Y, Q, K, V


def attention_loss_grad(q, X, Y, Q, K, V):
    """Mean squared error (1/n) sum |f(q, X) - Y|^2 of the heads and its gradients (gQ, gK, gV): jitted."""
    q, X, Y, Q, K, V = _loss_inputs(q, X, Y, Q, K, V)
    gQ, gK, gV = np.empty_like(Q), np.empty_like(K), np.empty_like(V)
    loss = _kernel(q, X, Y, Q, K, V, gQ, gK, gV)
    return loss, gQ, gK, gV


def _kernel(q, X, Y, Q, K_, V, gQ, gK, gV):
    return K.mha_loss_grad(q, X, Y, Q, K_, V, gQ, gK, gV)


def attention_loss_grad_numpy(q, X, Y, Q, K, V):
    """The numpy reference of :func:`attention_loss_grad` (vectorised over samples and heads)."""
    q, X, Y, Q, K, V = _loss_inputs(q, X, Y, Q, K, V)
    M = X.shape[0]
    a = np.einsum("hdr,nd->nhr", Q, q)
    b = np.einsum("hdr,njd->nhjr", K, X)
    s = np.einsum("nhr,nhjr->nhj", a, b)
    p = np.exp(s - s.max(axis=2, keepdims=True))
    p /= p.sum(axis=2, keepdims=True)
    z = np.einsum("nhj,njd->nhd", p, X)
    e = np.einsum("hid,nhd->ni", V, z) - Y
    g = 2.0 * e / M
    gV = np.einsum("ni,nhd->hid", g, z)
    dz = np.einsum("hid,ni->nhd", V, g)
    ds = p * (np.einsum("njd,nhd->nhj", X, dz) - np.einsum("nhd,nhd->nh", z, dz)[:, :, None])
    gQ = np.einsum("nd,nhj,nhjr->hdr", q, ds, b)
    gK = np.einsum("njd,nhj,nhr->hdr", X, ds, a)
    return float(np.sum(e * e) / M), gQ, gK, gV


def pack_heads(Q, K, V):
    """Flatten (Q, K, V) into one parameter vector (the optimiser's variable)."""
    Q = check_array("Q", Q, ndim=3)
    K = check_array("K", K, shape=Q.shape)
    V = check_array("V", V, shape=(Q.shape[0], Q.shape[1], Q.shape[1]))
    return np.concatenate([np.ravel(Q), np.ravel(K), np.ravel(V)])


def unpack_heads(theta, H, d, r):
    """Inverse of :func:`pack_heads`."""
    H, d, r = check_int("H", H, low=1), check_int("d", d, low=1), check_int("r", r, low=1, high=d)
    size = 2 * H * d * r + H * d * d
    theta = check_array("theta", theta, ndim=1)
    if theta.size != size:
        raise ValueError(f"theta must have length 2 H d r + H d^2 = {size} for H={H}, d={d}, r={r}; got "
                         f"{theta.size} (or H, d, r do not match theta)")
    n1 = H * d * r
    return (theta[:n1].reshape(H, d, r), theta[n1:2 * n1].reshape(H, d, r), theta[2 * n1:].reshape(H, d, d))


# --------------------------------------------------------------------------- fitting low-rank heads

def fit_low_rank(d: int = 4, N: int = 2, H: int = 1, r: int = 1, *, n_train: int = 1000, n_test: int = 2000,
                 restarts: int = 4, maxiter: int = 300, init_scale: float = 1.0, return_model: bool = False,
                 seed=0) -> dict:
    """Fit H heads of rank r to the nearest-neighbour target by L-BFGS (scipy) on ``n_train`` random instances,
    from ``restarts`` random initialisations (Q, K ~ N(0, init_scale^2 / r), V ~ N(0, 1/(H d))); returns
    the best restart (by training loss) with its test MSE on ``n_test`` fresh instances, normalised by
    E|t|^2 = 1 (so 1 is the error of the zero predictor):
    ``dict(d, N, H, r, train_mse, test_mse, best_iters, restart_test_mse=[...])``, with ``Q, K, V`` of the best
    restart added if ``return_model``."""
    from scipy.optimize import minimize

    d = check_int("d", d, low=2, high=MAX_DIM)
    N = check_int("N", N, low=2, high=10**4)
    H = check_int("H", H, low=1, high=MAX_HEADS)
    r = check_int("r (the rank)", r, low=1, high=d)
    n_train = check_size("n_train", n_train)
    n_test = check_size("n_test", n_test)
    restarts = check_size("restarts", restarts, budget=1000)
    maxiter = check_size("maxiter", maxiter, budget=10**5)
    init_scale = check_real("init_scale", init_scale, low=0.0, high=1e3, low_open=True)
    if not isinstance(return_model, (bool, np.bool_)):
        raise TypeError(f"return_model must be True or False; got {return_model!r}"[:200])
    check_budget("the fitting work", n_train * N * H * d * max(r, d) * restarts * maxiter,
                 max_elements=10**12, n_train=n_train, H=H, restarts=restarts, maxiter=maxiter)
    s_train, s_test, s_init = spawn_seeds(seed, 3)
    q, X = random_instances(d, N, n_train, seed=int(s_train))
    Y = nearest_neighbour_target(q, X)
    qt, Xt = random_instances(d, N, n_test, seed=int(s_test))
    Yt = nearest_neighbour_target(qt, Xt)
    rng = as_generator(int(s_init))
    gQ, gK, gV = np.empty((H, d, r)), np.empty((H, d, r)), np.empty((H, d, d))

    def fun(theta):
        Qh, Kh, Vh = (np.ascontiguousarray(a) for a in _split(theta, H, d, r))
        loss = _kernel(q, X, Y, Qh, Kh, Vh, gQ, gK, gV)
        return loss, pack_heads(gQ, gK, gV)

    best, tests = None, []
    for _ in range(restarts):
        theta0 = pack_heads(rng.standard_normal((H, d, r)) * init_scale / np.sqrt(r),
                            rng.standard_normal((H, d, r)) * init_scale / np.sqrt(r),
                            rng.standard_normal((H, d, d)) / np.sqrt(H * d))
        res = minimize(fun, theta0, jac=True, method="L-BFGS-B", options=dict(maxiter=maxiter))
        Qh, Kh, Vh = _split(res.x, H, d, r)
        test = float(np.mean(np.sum((multihead_attention(qt, Xt, Qh, Kh, Vh) - Yt) ** 2, axis=1)))
        tests.append(test)
        if best is None or res.fun < best[0]:
            best = (float(res.fun), test, int(res.nit), (Qh.copy(), Kh.copy(), Vh.copy()))
    require_finite("the fitted test error", np.array(tests), d=d, H=H, r=r)
    out = dict(d=d, N=N, H=H, r=r, train_mse=best[0], test_mse=best[1], best_iters=best[2],
               restart_test_mse=tests)
    if return_model:
        out.update(Q=best[3][0], K=best[3][1], V=best[3][2])
    return out


def _split(theta, H, d, r):
    n1 = H * d * r
    return theta[:n1].reshape(H, d, r), theta[n1:2 * n1].reshape(H, d, r), theta[2 * n1:].reshape(H, d, d)


def subspace_lower_bound(d: int = 4, N: int = 2, n: int = 10000, *, seed=0) -> np.ndarray:
    """Per-instance samples of |t(q, X) - t(Rq, X)|^2 / 4, R = I - 2 e_1 e_1^T (n,): their mean is the
    [derived] lower bound (module docstring) on the MSE of any H heads of rank r with H r < d."""
    q, X = random_instances(d, N, n, seed=seed)
    qr = q.copy()
    qr[:, 0] *= -1.0
    return np.sum((nearest_neighbour_target(q, X) - nearest_neighbour_target(qr, X)) ** 2, axis=1) / 4.0
