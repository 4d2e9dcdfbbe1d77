"""A toy proxy of BP-modified local loss (paper bp_localloss): Ren Lianhai, Qianxiao Li (ICLR 2025), "BP-Modified
Local Loss for Efficient Training of Deep Neural Networks", OpenReview MtW30ql5Oj.  No code of the authors was
found; the update's structure is read in the OpenReview reviews of that forum (third-party): block h's local-loss
gradient is corrected by an offset Delta g_h = g^BP_h - g^loc_h computed on a separate small batch B' and
refreshed every K steps (lazy update), scaled by alpha_h.  The paper's formulas for alpha_h, lambda_h and its
optimal scaling were not read; lambda_h is not modelled (taken as 1).  Everything else here is a derived toy.

The toy (derived).  x ~ N(0, I_d), y = A x + sigma eps, eps ~ N(0, I_p).  A deep linear network
z_h = W_h z_{h-1} (z_0 = x, h = 1..L, widths d -> k -> ... -> k -> p, a bottleneck k < p) has the global loss
    F(W) = 1/2 E (z_L - y)^T M (z_L - y)                                  (M diagonal, positive)
and block h < L has the local probe loss l_h = 1/2 E |P_h z_h - y|^2 with its own trainable linear probe P_h
(the last block's local loss is F itself, so its offset is 0).  With M = I the probes' optimum (the top-k
singular subspace of A) is also F's; with M != I it is not, and only the BP offset can move the hidden blocks.

Update of W_h (h < L) at step t, with the offset last refreshed at step t0 = K floor(t / K):
    u_h = g^loc_h(B_t) + alpha (g^BP_h(B'_{t0}) - g^loc_h(B'_{t0}))      (B'_{t0} an independent batch at W_{t0})
and W_h <- W_h - eta u_h; the probes follow their own local gradient; W_L follows g^BP_L(B_t).

Exact moments at a fixed network (derived).  Population gradients, with R_h = W_h ... W_1, L_h = W_L ... W_{h+1}:
    G^BP_h = L_h^T M (R_L - A) R_{h-1}^T,   G^loc_h = P_h^T (P_h R_h - A) R_{h-1}^T,
so with K = 1 (offset at the same network) E u = G^loc + alpha (G^BP - G^loc): the bias E u - G^BP equals
(1 - alpha)(G^loc - G^BP).  Each per-sample gradient is a b^T with a = F x + G eps and b = R_{h-1} x jointly
Gaussian and centred, so by Isserlis tr Cov(a b^T) = tr(S_aa) tr(S_bb) + |S_ab|_F^2 (S_aa = F F^T + sigma^2 G G^T,
S_bb = R_{h-1} R_{h-1}^T, S_ab = F R_{h-1}^T); B and B' independent give
    tr Cov u = V_loc / B + alpha^2 V_off / B'
with V_loc, V_off the per-sample traces of the local gradient and of the offset (BP minus local, same sample).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.core.seeding import as_generator, child_seed
from theorylab.core.validate import check_array, check_int, check_real

__all__ = ["LinearTask", "linear_task", "init_network", "population_gradients", "batch_gradients",
           "update_moments", "sample_updates", "global_loss", "global_minimum", "train_local"]

MAX_ELEMENTS = 50_000_000     # budget on arrays allocated by the sampling and training loops


@dataclass(frozen=True)
class LinearTask:
    """Gaussian regression y = A x + sigma eps with output weighting M = diag(m) and a depth-L linear network of
    hidden width k."""
    A: np.ndarray
    m: np.ndarray
    sigma: float
    width: int
    depth: int

    def __post_init__(self):
        A = check_array("A", self.A, ndim=2)
        p = A.shape[0]
        m = check_array("m", self.m, ndim=1)
        if m.shape != (p,) or np.any(m <= 0):
            raise ValueError(f"m must be {p} finite positive weights (the diagonal of M, one per row of A); got {m!r}")
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "sigma", check_real("sigma", self.sigma, low=0.0, high=1e6))
        object.__setattr__(self, "width", check_int("width", self.width, low=1, high=10_000))
        object.__setattr__(self, "depth", check_int("depth", self.depth, low=2, high=64))
        if A.size == 0:
            raise ValueError(f"A must be a non-empty matrix; got shape {A.shape}")

    @property
    def d(self) -> int:
        return self.A.shape[1]

    @property
    def p(self) -> int:
        return self.A.shape[0]


def linear_task(d: int = 6, p: int = 4, width: int = 2, depth: int = 3, m=None, sigma: float = 0.5,
                seed: int = 0) -> LinearTask:
    """A Gaussian regression task: A (p x d) with i.i.d. N(0, 1/d) entries from ``seed``; ``m`` the diagonal of M
    (default all ones, M = I); bottleneck ``width`` < p so that M changes the global optimum."""
    d, p = check_int("d", d, low=1, high=10_000), check_int("p", p, low=1, high=10_000)
    width, depth = check_int("width", width, low=1, high=10_000), check_int("depth", depth, low=2, high=64)
    m = np.ones(p) if m is None else m
    A = as_generator(seed).standard_normal((p, d)) / np.sqrt(d)
    return LinearTask(A=A, m=m, sigma=sigma, width=width, depth=depth)


def _check_task(task):
    if not isinstance(task, LinearTask):
        raise TypeError(f"task must be a LinearTask (from linear_task); got {type(task).__name__}")
    return task


def _check_weights(task, W):
    """W: depth arrays (R, out, in), R >= 1, with the task's widths, all finite."""
    _check_task(task)
    sizes = [task.d] + [task.width] * (task.depth - 1) + [task.p]
    if not isinstance(W, (list, tuple)) or len(W) != task.depth:
        raise TypeError(f"W must be a list of {task.depth} stacked weight arrays; got {type(W).__name__}")
    W = [check_array(f"W[{h}]", w, ndim=3) for h, w in enumerate(W)]
    R = W[0].shape[0]
    for h, w in enumerate(W):
        if R < 1 or w.shape != (R, sizes[h + 1], sizes[h]):
            raise ValueError(f"W[{h}] must have shape (R >= 1, {sizes[h + 1]}, {sizes[h]}) with R of W[0]; "
                             f"got {w.shape}")
    return W


def _check_network(task, W, P):
    """W as in _check_weights; P: depth - 1 probes (R, p, width), finite."""
    W = _check_weights(task, W)
    if not isinstance(P, (list, tuple)) or len(P) != task.depth - 1:
        raise TypeError(f"P must be a list of {task.depth - 1} stacked probe arrays; got {type(P).__name__}")
    P = [check_array(f"P[{h}]", q, ndim=3) for h, q in enumerate(P)]
    for h, q in enumerate(P):
        if q.shape != (W[0].shape[0], task.p, task.width):
            raise ValueError(f"P[{h}] must have shape {(W[0].shape[0], task.p, task.width)}; got {q.shape}")
    return W, P


def init_network(task: LinearTask, scale: float = 0.5, replicates: int = 1, seed: int = 0):
    """Weights W_1..W_L and probes P_1..P_{L-1}, each stacked over ``replicates`` (leading axis), with i.i.d.
    N(0, scale^2 / fan_in) entries."""
    _check_task(task)
    scale = check_real("scale", scale, low=0.0, high=1e3)
    R = check_int("replicates", replicates, low=1, high=1_000_000)
    sizes = [task.d] + [task.width] * (task.depth - 1) + [task.p]
    if R * sum(a * b for a, b in zip(sizes[1:], sizes[:-1])) > MAX_ELEMENTS:
        raise ValueError(f"replicates = {R} exceeds the memory budget ({MAX_ELEMENTS} elements)")
    rng = as_generator(seed)
    W = [scale * rng.standard_normal((R, o, i)) / np.sqrt(i) for i, o in zip(sizes[:-1], sizes[1:])]
    P = [scale * rng.standard_normal((R, task.p, task.width)) / np.sqrt(task.width) for _ in range(task.depth - 1)]
    return W, P


def _chain(W, lo, hi, n):
    """W_hi ... W_{lo+1} (stacked), identity of size n when empty (0-based list, product of W[lo:hi])."""
    out = np.broadcast_to(np.eye(n), (W[0].shape[0], n, n)).copy()
    for Wh in W[lo:hi]:
        out = Wh @ out
    return out


def population_gradients(task: LinearTask, W, P):
    """Exact population gradients (module docstring): lists G^BP_h, G^loc_h (h = 1..L, G^loc_L = G^BP_L) and the
    probes' gradients, each stacked over replicates."""
    W, P = _check_network(task, W, P)
    L, M, A = task.depth, np.diag(task.m), task.A
    RL = _chain(W, 0, L, task.d)
    gbp, gloc, gP = [], [], []
    for h in range(L):
        Rm = _chain(W, 0, h, task.d)                          # R_{h-1}
        Lh = _chain(W, h + 1, L, W[h].shape[1])               # L_h
        g = np.swapaxes(Lh, 1, 2) @ M @ (RL - A) @ np.swapaxes(Rm, 1, 2)
        gbp.append(g)
        if h < L - 1:
            Rh = W[h] @ Rm
            e = P[h] @ Rh - A
            gloc.append(np.swapaxes(P[h], 1, 2) @ e @ np.swapaxes(Rm, 1, 2))
            gP.append(e @ np.swapaxes(Rh, 1, 2))
        else:
            gloc.append(g)
    return gbp, gloc, gP


def batch_gradients(task: LinearTask, W, P, x, y):
    """Minibatch gradients (means over the batch axis) of the global loss (BP) and of the local losses, for
    batches ``x`` (R, B, d) and ``y`` (R, B, p): lists g^BP_h, g^loc_h and the probes' gradients."""
    W, P = _check_network(task, W, P)
    x = check_array("x", x, ndim=3)
    y = check_array("y", y, ndim=3)
    if x.shape[0] != W[0].shape[0] or x.shape[1] < 1 or x.shape[2] != task.d:
        raise ValueError(f"x must have shape (R = {W[0].shape[0]}, B >= 1, d = {task.d}); got {x.shape}")
    if y.shape != x.shape[:2] + (task.p,):
        raise ValueError(f"y must have shape {x.shape[:2] + (task.p,)}; got {y.shape}")
    return _batch_gradients(task, W, P, x, y)


def _batch_gradients(task, W, P, x, y):
    """batch_gradients without checks (training loops, where a diverging run may hold non-finite weights)."""
    L = task.depth
    z = [x]
    for Wh in W:
        z.append(z[-1] @ np.swapaxes(Wh, 1, 2))
    n = x.shape[1]
    delta = (z[-1] - y) * task.m
    gbp = [None] * L
    for h in range(L - 1, -1, -1):
        gbp[h] = np.swapaxes(delta, 1, 2) @ z[h] / n
        delta = delta @ W[h]
    gloc, gP = [], []
    for h in range(L - 1):
        e = z[h + 1] @ np.swapaxes(P[h], 1, 2) - y
        gloc.append(np.swapaxes(e @ P[h], 1, 2) @ z[h] / n)
        gP.append(np.swapaxes(e, 1, 2) @ z[h + 1] / n)
    gloc.append(gbp[L - 1])
    return gbp, gloc, gP


def _draw(task, rng, R, n):
    x = rng.standard_normal((R, n, task.d))
    y = x @ task.A.T + task.sigma * rng.standard_normal((R, n, task.p))
    return x, y


def _flat(gs):
    return np.concatenate([g.reshape(g.shape[0], -1) for g in gs], axis=1)


def _trace_cov(F, G, Rm, sigma):
    """Per-sample tr Cov(a b^T) for a = F x + G eps, b = Rm x (Isserlis; module docstring)."""
    Saa = np.trace(F @ np.swapaxes(F, 1, 2), axis1=1, axis2=2) + sigma ** 2 * np.sum(G ** 2, axis=(1, 2))
    Sbb = np.sum(Rm ** 2, axis=(1, 2))
    return Saa * Sbb + np.sum((F @ np.swapaxes(Rm, 1, 2)) ** 2, axis=(1, 2))


def update_moments(task: LinearTask, W, P, alpha: float, batch: int, batch_prime: int) -> dict:
    """Exact bias vector E u - G^BP and tr Cov u of the refresh-period-1 update of all blocks' weights, at the
    fixed network (W, P), stacked over replicates (module docstring): ``bias`` (R, n_params), ``bias_norm``,
    ``offset_norm`` = |G^BP - G^loc|, ``trace_cov``, ``v_loc``, ``v_off`` (per-sample traces)."""
    W, P = _check_network(task, W, P)
    alpha = check_real("alpha", alpha, low=0.0, high=1e6)
    batch, batch_prime = check_int("batch", batch, low=1, high=10 ** 9), check_int("batch_prime", batch_prime, low=1, high=10 ** 9)
    gbp, gloc, _ = population_gradients(task, W, P)
    diff = _flat(gloc) - _flat(gbp)
    L, M = task.depth, np.diag(task.m)
    RL = _chain(W, 0, L, task.d)
    v_loc = np.zeros(W[0].shape[0])
    v_off = np.zeros_like(v_loc)
    for h in range(L):
        Rm = _chain(W, 0, h, task.d)
        LtM = np.swapaxes(_chain(W, h + 1, L, W[h].shape[1]), 1, 2) @ M
        F_bp, G_bp = LtM @ (RL - task.A), -LtM
        if h < L - 1:
            Pt = np.swapaxes(P[h], 1, 2)
            F_loc, G_loc = Pt @ (P[h] @ W[h] @ Rm - task.A), -Pt
            v_off += _trace_cov(F_bp - F_loc, G_bp - G_loc, Rm, task.sigma)
        else:
            F_loc, G_loc = F_bp, G_bp
        v_loc += _trace_cov(F_loc, G_loc, Rm, task.sigma)
    return dict(bias=(1 - alpha) * diff, bias_norm=abs(1 - alpha) * np.linalg.norm(diff, axis=1),
                offset_norm=np.linalg.norm(diff, axis=1), v_loc=v_loc, v_off=v_off,
                trace_cov=v_loc / batch + alpha ** 2 * v_off / batch_prime, g_bp=_flat(gbp))


def _offset(task, W, P, rng, batch_prime):
    """The BP offset g^BP - g^loc on a fresh batch B' (the split mini-batch)."""
    xb, yb = _draw(task, rng, W[0].shape[0], batch_prime)
    gbp, gloc, _ = _batch_gradients(task, W, P, xb, yb)
    return [b - c for b, c in zip(gbp, gloc)]


def sample_updates(task: LinearTask, W, P, alpha: float, batch: int, batch_prime: int, draws: int,
                   seed: int = 0) -> np.ndarray:
    """``draws`` independent refresh-period-1 updates u (all blocks' weights, flattened) at the fixed network of
    replicate 0 of (W, P): array (draws, n_params).  Each draw has its own batch B and offset batch B'."""
    W, P = _check_network(task, W, P)
    alpha = check_real("alpha", alpha, low=0.0, high=1e6)
    batch, batch_prime = check_int("batch", batch, low=1, high=10 ** 6), check_int("batch_prime", batch_prime, low=1, high=10 ** 6)
    draws = check_int("draws", draws, low=1, high=10 ** 7)
    if draws * (batch + batch_prime) * (task.d + task.p) > MAX_ELEMENTS:
        raise ValueError(f"draws = {draws} with batch {batch} + {batch_prime} exceeds the memory budget")
    W1 = [np.broadcast_to(w[:1], (draws,) + w.shape[1:]) for w in W]
    P1 = [np.broadcast_to(q[:1], (draws,) + q.shape[1:]) for q in P]
    rng = as_generator(child_seed(seed, "batches"))
    x, y = _draw(task, rng, draws, batch)
    _, gloc, _ = _batch_gradients(task, W1, P1, x, y)
    off = _offset(task, W1, P1, as_generator(child_seed(seed, "offset")), batch_prime)
    return _flat(gloc) + alpha * _flat(off)


def global_loss(task: LinearTask, W) -> np.ndarray:
    """Population global loss F(W) per replicate: 1/2 tr M[(R_L - A)(R_L - A)^T + sigma^2 I]."""
    return _global_loss(task, _check_weights(task, W))


def _global_loss(task, W):
    D = _chain(W, 0, task.depth, task.d) - task.A
    return 0.5 * (np.einsum("rij,i,rij->r", D, task.m, D) + task.sigma ** 2 * task.m.sum())


def global_minimum(task: LinearTask) -> float:
    """min F over networks with bottleneck k: the best rank-k approximation of M^{1/2} A (Eckart-Young), so
    1/2 sum_{i > k} s_i(M^{1/2} A)^2 + sigma^2 tr M / 2."""
    _check_task(task)
    s = np.linalg.svd(np.sqrt(task.m)[:, None] * task.A, compute_uv=False)
    return 0.5 * (np.sum(s[task.width:] ** 2) + task.sigma ** 2 * task.m.sum())


def train_local(task: LinearTask, alpha: float, refresh: int, eta: float, steps: int, batch: int,
                batch_prime: int, replicates: int = 1, init_scale: float = 0.5, diverge_at: float = 1e6,
                seed: int = 0) -> dict:
    """Local-loss training with the lazily refreshed BP offset scaled by ``alpha`` (module docstring), all
    ``replicates`` in lockstep (each its own initialisation and batches).  Returns ``excess`` (R,): F - min F at
    the end (inf where diverged), ``diverged`` (R,) bool: F exceeded ``diverge_at`` times its initial value or
    became non-finite."""
    _check_task(task)
    alpha = check_real("alpha", alpha, low=0.0, high=1e6)
    K = check_int("refresh", refresh, low=1, high=10 ** 9)
    eta = check_real("eta", eta, low=0.0, high=1e6)
    steps = check_int("steps", steps, low=0, high=10 ** 7)
    batch, batch_prime = check_int("batch", batch, low=1, high=10 ** 6), check_int("batch_prime", batch_prime, low=1, high=10 ** 6)
    R = check_int("replicates", replicates, low=1, high=10 ** 6)
    init_scale = check_real("init_scale", init_scale, low=0.0, high=1e3)
    diverge_at = check_real("diverge_at", diverge_at, low=1.0, high=1e300)
    if R * (batch + batch_prime) * (task.d + task.p) > MAX_ELEMENTS:
        raise ValueError(f"replicates = {R} with batch {batch} + {batch_prime} exceeds the memory budget")
    W, P = init_network(task, init_scale, R, seed=child_seed(seed, "init"))
    rng = as_generator(child_seed(seed, "batches"))
    rng_off = as_generator(child_seed(seed, "offset"))
    F0 = _global_loss(task, W)
    dead = np.zeros(R, dtype=bool)
    off = None
    with np.errstate(all="ignore"):
        for t in range(steps):
            if t % K == 0 and alpha > 0:
                off = _offset(task, W, P, rng_off, batch_prime)
            x, y = _draw(task, rng, R, batch)
            _, gloc, gP = _batch_gradients(task, W, P, x, y)
            for h in range(task.depth):
                W[h] = W[h] - eta * (gloc[h] + (alpha * off[h] if off is not None else 0.0))
            for h in range(task.depth - 1):
                P[h] = P[h] - eta * gP[h]
            if t % 16 == 15:
                F = _global_loss(task, W)
                bad = ~np.isfinite(F) | (F > diverge_at * F0)
                if bad.any():
                    dead |= bad
                    for arr in W + P:
                        arr[bad] = 0.0
                    if dead.all():
                        break
        F = _global_loss(task, W)
    dead |= ~np.isfinite(F) | (F > diverge_at * F0)
    excess = np.where(dead, np.inf, F - global_minimum(task))
    return dict(excess=excess, diverged=dead, initial=F0 - global_minimum(task))
