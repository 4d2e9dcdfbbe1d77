"""Small numpy MLPs on a synthetic Gaussian-mixture classification task, trained by plain mini-batch SGD,
with the authors' per-coordinate optimal coefficient alpha* measured against an epoch-start snapshot.

Setting (paper Sec. 3, "a deeper model has a smaller optimal coefficient", measured there on MLPs and
logistic regression; here a smaller synthetic stand-in): ``depth`` linear layers (depth 1 is softmax
regression), ReLU between them, He-initialised weights, cross-entropy loss.  The snapshot is the model at
the start of an epoch and the mini-batches are that epoch's (the authors' ``Cache_SVRG``: engine.py takes
the snapshot pass at the start of every epoch, with ``snapshot_pass_freq`` one epoch by default); alpha* at
iteration t of the epoch is :func:`theorylab.finite_sum.svrg.code_optimal_coefficient` of the epoch's
mini-batch gradients at theta^t and at the snapshot (clamped to [-2, 2] as in svrg.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.core.parallel import blas_threads
from theorylab.core import (SimulationDiverged, as_generator, check_array, check_budget, check_int, check_positive,
                            check_real)
from theorylab.finite_sum.svrg import code_optimal_coefficient

__all__ = ["Mixture", "gaussian_mixture", "init_mlp", "mlp_loss_grad", "minibatch_grads", "train_measure_alpha"]

MAX_WIDTH = 1024


@dataclass(frozen=True)
class Mixture:
    """Inputs X (n, dim) and integer labels y (n,) in [0, classes)."""

    X: np.ndarray
    y: np.ndarray
    classes: int

    def __post_init__(self):
        classes = check_int("classes", self.classes, low=2, high=1000)
        X = check_array("X", self.X, ndim=2)
        if X.shape[0] < 2 or X.shape[1] < 1 or X.shape[1] > MAX_WIDTH:
            raise ValueError(f"X must have shape (n, dim) with n >= 2, 1 <= dim <= {MAX_WIDTH}; got {X.shape}")
        y = check_array("y", self.y, shape=(X.shape[0],), dtype=np.int64)
        if y.min() < 0 or y.max() >= classes:
            raise ValueError(f"y must hold labels in [0, {classes - 1}]; got values in [{y.min()}, {y.max()}]")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "classes", classes)


def gaussian_mixture(n: int = 1000, dim: int = 20, classes: int = 10, *, separation: float = 2.0,
                     seed=0) -> Mixture:
    """n points, label c uniform, x = mu_c + N(0, I_dim) with class means mu_c ~ N(0, separation^2 / dim I)."""
    n = check_int("n", n, low=2, high=10**6)
    dim = check_int("dim", dim, low=1, high=MAX_WIDTH)
    classes = check_int("classes", classes, low=2, high=1000)
    separation = check_real("separation", separation, low=0.0, high=1e3)
    check_budget("the inputs", n * dim, n=n, dim=dim)
    rng = as_generator(seed)
    mu = rng.standard_normal((classes, dim)) * separation / np.sqrt(dim)
    y = rng.integers(0, classes, size=n)
    return Mixture(mu[y] + rng.standard_normal((n, dim)), y, classes)


def init_mlp(depth: int, dim: int, width: int, classes: int, *, seed=0) -> list:
    """He-initialised weights [(W_1, b_1), ..., (W_depth, b_depth)], W_l of shape (fan_out, fan_in)."""
    depth = check_int("depth", depth, low=1, high=64)
    dim = check_int("dim", dim, low=1, high=MAX_WIDTH)
    width = check_int("width", width, low=1, high=MAX_WIDTH)
    classes = check_int("classes", classes, low=2, high=1000)
    sizes = [dim] + [width] * (depth - 1) + [classes]
    check_budget("the weights", sum(a * b for a, b in zip(sizes[:-1], sizes[1:])), depth=depth, width=width)
    rng = as_generator(seed)
    return [(rng.standard_normal((o, i)) * np.sqrt(2.0 / i), np.zeros(o)) for i, o in zip(sizes[:-1], sizes[1:])]


def _check_params(params):
    if not isinstance(params, list) or not params or not all(
            isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], np.ndarray) and p[0].ndim == 2 for p in params):
        raise TypeError("params must be a non-empty list of (W, b) numpy pairs (from init_mlp)")
    return params


def _flat(grads):
    return np.concatenate([np.concatenate([gW.reshape(gW.shape[0], -1), gb], axis=1) for gW, gb in grads], axis=1)


def _forward_backward(params, X, y):
    """Per-batch mean loss and the gradients of each batch: X (m, B, dim), y (m, B); returns loss (m,) and
    [(dW (m, out, in), db (m, out))]."""
    acts, h = [X], X
    for layer, (W, b) in enumerate(params):
        z = h @ W.T + b
        h = np.maximum(z, 0.0) if layer < len(params) - 1 else z
        acts.append(h)
    z = acts[-1]
    z = z - z.max(axis=-1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=-1, keepdims=True)
    B = X.shape[1]
    onehot = np.zeros_like(p)
    np.put_along_axis(onehot, y[..., None], 1.0, axis=-1)
    loss = -(onehot * np.log(np.maximum(p, 1e-300))).sum(-1).mean(-1)
    delta = (p - onehot) / B
    grads = []
    for layer in range(len(params) - 1, -1, -1):
        W = params[layer][0]
        grads.append((np.matmul(delta.transpose(0, 2, 1), acts[layer]), delta.sum(axis=1)))
        if layer:
            delta = (delta @ W) * (acts[layer] > 0)
    return loss, grads[::-1]


def mlp_loss_grad(params, X, y) -> tuple[float, list]:
    """Mean cross-entropy over (X, y) and its gradient [(dW, db)] (same shapes as ``params``)."""
    params = _check_params(params)
    X = check_array("X", X, ndim=2)
    y = check_array("y", y, shape=(X.shape[0],), dtype=np.int64)
    loss, grads = _forward_backward(params, X[None], y[None])
    return float(loss[0]), [(gW[0], gb[0]) for gW, gb in grads]


def minibatch_grads(params, X, y, batches) -> np.ndarray:
    """The flattened gradient of every mini-batch: ``batches`` (m, B) indices -> (m, n_params), each row the
    layers' (W, b) in order, W row-major."""
    params = _check_params(params)
    X = check_array("X", X, ndim=2)
    y = check_array("y", y, shape=(X.shape[0],), dtype=np.int64)
    batches = check_array("batches", batches, ndim=2, dtype=np.int64)
    if batches.size == 0 or batches.min() < 0 or batches.max() >= X.shape[0]:
        raise ValueError(f"batches must be a non-empty (m, B) array of indices in [0, {X.shape[0] - 1}]")
    _, grads = _forward_backward(params, X[batches], y[batches])
    return _flat(grads)


def _layer_slices(params):
    out, start = [], 0
    for W, b in params:
        size = W.size + b.size
        out.append(slice(start, start + size))
        start += size
    return out


def train_measure_alpha(data: Mixture, depth: int, *, width: int = 32, lr: float = 0.05, batch: int = 50,
                        epochs: int = 10, measure_epoch: int | None = None, measure_step: int | None = None,
                        seed=0) -> dict:
    """Train an MLP of ``depth`` layers by plain SGD (no momentum, no weight decay; a fresh random order each
    epoch, mini-batches of ``batch``) for ``epochs`` epochs, and measure the authors' alpha* (clamped) at
    iteration ``measure_step`` (default: the middle) of epoch ``measure_epoch`` (default: epochs // 2),
    against the snapshot taken at the start of that epoch, on that epoch's mini-batches.

    Returns the mean alpha* over all coordinates, the per-layer means (first to last layer), the number of
    coordinates, and the training loss at the end of each epoch."""
    if not isinstance(data, Mixture):
        raise TypeError(f"data must be a Mixture (from gaussian_mixture); got {type(data).__name__}")
    depth = check_int("depth", depth, low=1, high=64)
    width = check_int("width", width, low=1, high=MAX_WIDTH)
    lr = check_positive("lr", lr)
    n = data.X.shape[0]
    batch = check_int("batch", batch, low=1, high=n)
    epochs = check_int("epochs", epochs, low=1, high=10**5)
    niter = n // batch
    if niter < 2:
        raise ValueError(f"batch must leave at least 2 mini-batches per epoch (n = {n}); got {batch}")
    measure_epoch = epochs // 2 if measure_epoch is None else check_int("measure_epoch", measure_epoch, low=0,
                                                                              high=epochs - 1)
    measure_step = niter // 2 if measure_step is None else check_int("measure_step", measure_step, low=1,
                                                                         high=niter - 1)
    check_budget("the training run", epochs * n * width * depth, epochs=epochs, n=n, width=width, depth=depth)
    with blas_threads(1):  # tiny products: threaded BLAS made training ~15x slower on 2 loaded cores
        return _train(data, depth, width, lr, batch, epochs, niter, measure_epoch, measure_step, seed)


def _train(data, depth, width, lr, batch, epochs, niter, measure_epoch, measure_step, seed):
    n = data.X.shape[0]
    rng = as_generator(seed)
    params = init_mlp(depth, data.X.shape[1], width, data.classes, seed=rng)
    losses, alpha = [], None
    for epoch in range(epochs):
        batches = rng.permutation(n)[: niter * batch].reshape(niter, batch)
        snapshot = [(W.copy(), b.copy()) for W, b in params] if epoch == measure_epoch else None
        for t in range(niter):
            if snapshot is not None and t == measure_step:
                X_cur = minibatch_grads(params, data.X, data.y, batches)
                Y_snap = minibatch_grads(snapshot, data.X, data.y, batches)
                alpha = code_optimal_coefficient(X_cur, Y_snap)
            _, grads = _forward_backward(params, data.X[batches[t]][None], data.y[batches[t]][None])
            params = [(W - lr * gW[0], b - lr * gb[0]) for (W, b), (gW, gb) in zip(params, grads)]
        loss, _ = _forward_backward(params, data.X[None], data.y[None])
        if not np.isfinite(loss[0]):
            raise SimulationDiverged(f"SGD diverged at epoch {epoch} (depth = {depth}, lr = {lr}, batch = {batch})")
        losses.append(float(loss[0]))
    layer_means = [float(alpha[s].mean()) for s in _layer_slices(params)]
    return {"alpha_mean": float(alpha.mean()), "alpha_layers": layer_means, "n_coords": int(alpha.size),
            "losses": losses}
