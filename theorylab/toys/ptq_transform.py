"""A toy proxy of AdaQTransform: post-training quantisation of one random linear layer with a per-channel affine
transformation of its quantised output ("From Decoupling to Adaptive Transformation: a Wider Optimization Space
for PTQ", ICLR 2025, OpenReview JElN0LJMKB; no arXiv id or code was found).

What the paper says (abstract and OpenReview reviews, third-party): AdaQTransform applies a per-channel
transformation, scale xi and translation eta, to the quantised output feature so that it fits the FP32 output
better; it is learnt during reconstruction with AdaRound-style rounding and the activation step, and merged at
inference, so that it has no inference cost.  Everything below is our toy of that mechanism [derived]:

* Layer: y = x W^T + b, W (d_out, d_in), inputs x with per-feature scales (:func:`random_layer`,
  :func:`layer_inputs`).
* Quantiser: signed b-bit integers q = clip(rint(v / s), -2^(b-1), 2^(b-1) - 1) (numpy ``rint``: round half to
  even), one step per output channel for the weights, one step per tensor for the activations; each step either
  the min-max one, max|v| / (2^(b-1) - 1) (:func:`absmax_step`), or the minimum quantisation MSE over a grid of
  clipping ratios (:func:`mse_step`).
* Rounding of the weights: ``"nearest"`` (rint) or ``"adaptive"``, an AdaRound-like choice: every weight is
  floor or ceil of v / s (AdaRound's search space), chosen by greedy coordinate descent on the layer's output error
  on the calibration inputs, || X W^T - Q(X) What^T ||^2 with the activations quantised (AdaRound instead anneals a
  sigmoid relaxation h(alpha); the objective and the search space are the same, the optimiser is ours).
* Quantised output: yhat_j = s_x s_w,j (x_int . w_int,j) + b_j (:func:`quant_forward`).
* Transformation: ytilde_j = xi_j yhat_j + eta_j, (xi_j, eta_j) the per-channel least-squares fit of y_j on
  yhat_j over the calibration set (:func:`fit_transform`; closed form, after rounding, not learnt jointly).
* Fold [derived, exact in real arithmetic]: xi_j (s_x s_w,j acc_j + b_j) + eta_j = s_x (xi_j s_w,j) acc_j +
  (xi_j b_j + eta_j), so s_w,j <- xi_j s_w,j and b_j <- xi_j b_j + eta_j with the integer weights unchanged
  (:func:`fold_transform`).  Into a following linear layer z = V ytilde + c: V <- V diag(xi), c <- c + V eta
  (:func:`merge_into_next`), exact only if nothing (a ReLU, a re-quantisation) lies between the two layers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.core import (as_generator, check_array, check_budget, check_choice, check_int, check_real,
                            require_finite)

__all__ = ["ROUNDINGS", "MAX_BITS", "Layer", "QuantLayer", "random_layer", "layer_inputs", "int_range", "mse_step", "absmax_step",
           "quantize", "quantize_layer", "quant_forward", "float_forward", "fit_transform", "apply_transform",
           "fold_transform", "merge_into_next", "channel_mse"]

#: The weight rounding methods (module docstring).
ROUNDINGS = ("nearest", "adaptive")
#: The largest bit width accepted (the integer grid must stay exact in float64).
MAX_BITS = 16
#: Clipping ratios searched by :func:`mse_step` (step = ratio * max|v| / 2^(b-1)).
CLIP_RATIOS = np.linspace(0.05, 1.0, 96)
#: Work budget of the adaptive rounding: d_out * d_in^2 * sweeps multiply-adds (a sweep visits d_in columns, each
#: a few numpy operations on d_out x d_in arrays; measured ~0.15 s per sweep at d_in = d_out = 256, i.e. ~1e8 per
#: second on the loaded 2-core machine, so the cap keeps a call under ~10 s).
MAX_ROUNDING_WORK = 10**9


@dataclass(frozen=True)
class Layer:
    """A float linear layer y = x W^T + b."""

    W: np.ndarray
    b: np.ndarray

    def __post_init__(self):
        W = check_array("W", self.W, ndim=2)
        if min(W.shape) < 1:
            raise ValueError(f"W must have shape (d_out, d_in) with both >= 1; got {W.shape}")
        object.__setattr__(self, "W", W)
        object.__setattr__(self, "b", check_array("b", self.b, shape=(W.shape[0],)))


@dataclass(frozen=True)
class QuantLayer:
    """A quantised linear layer: integer weights W_int (d_out, d_in) on the signed ``w_bits`` grid, per-channel
    weight steps s_w, bias b, and the per-tensor activation step s_x on the signed ``a_bits`` grid."""

    W_int: np.ndarray
    s_w: np.ndarray
    b: np.ndarray
    s_x: float
    w_bits: int
    a_bits: int

    def __post_init__(self):
        w_bits = check_int("w_bits", self.w_bits, low=1, high=MAX_BITS)
        a_bits = check_int("a_bits", self.a_bits, low=1, high=MAX_BITS)
        W_int = check_array("W_int", self.W_int, ndim=2)
        lo, hi = int_range(w_bits)
        if min(W_int.shape) < 1 or np.any(W_int != np.rint(W_int)) or W_int.min() < lo or W_int.max() > hi:
            raise ValueError(f"W_int must be a non-empty (d_out, d_in) array of integers in [{lo}, {hi}] "
                             f"(w_bits = {w_bits})")
        for name, v in (("W_int", W_int), ("s_w", check_array("s_w", self.s_w, shape=(W_int.shape[0],))),
                        ("b", check_array("b", self.b, shape=(W_int.shape[0],))),
                        ("s_x", check_real("s_x", self.s_x, low=0.0, low_open=True)),
                        ("w_bits", w_bits), ("a_bits", a_bits)):
            object.__setattr__(self, name, v)

    @property
    def shape(self) -> tuple:
        return self.W_int.shape


def _bits(name, bits) -> int:
    return check_int(name, bits, low=1, high=MAX_BITS)


def int_range(bits: int) -> tuple:
    """The signed integer grid of ``bits`` bits: (-2^(bits-1), 2^(bits-1) - 1)."""
    bits = _bits("bits", bits)
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def random_layer(d_in: int = 256, d_out: int = 256, *, bias_scale: float = 0.5, seed=0) -> Layer:
    """W_jk ~ N(0, 1 / d_in), b_j ~ N(0, bias_scale^2) (a nonzero bias, so that a fold that drops xi on it shows)."""
    d_in = check_int("d_in", d_in, low=1, high=10**5)
    d_out = check_int("d_out", d_out, low=1, high=10**5)
    check_budget("the weight matrix", d_in * d_out, d_in=d_in, d_out=d_out)
    bias_scale = check_real("bias_scale", bias_scale, low=0.0, high=1e6)
    rng = as_generator(seed)
    return Layer(rng.standard_normal((d_out, d_in)) / np.sqrt(d_in), bias_scale * rng.standard_normal(d_out))


def layer_inputs(n: int, d_in: int = 256, *, scale_ratio: float = 4.0, seed=0) -> np.ndarray:
    """n inputs x_ik = s_k z_ik, z ~ N(0, 1), feature scales s_k log-spaced over [1, scale_ratio]."""
    n = check_int("n", n, low=2, high=10**7)
    d_in = check_int("d_in", d_in, low=1, high=10**5)
    check_budget("the input matrix", n * d_in, n=n, d_in=d_in)
    scale_ratio = check_real("scale_ratio", scale_ratio, low=1.0, high=1e6)
    return as_generator(seed).standard_normal((n, d_in)) * np.logspace(0.0, np.log10(scale_ratio), d_in)


def quantize(v, step, bits: int) -> np.ndarray:
    """Nearest-rounded integers clip(rint(v / step), -2^(bits-1), 2^(bits-1) - 1) (as floats); ``step`` a positive
    scalar or an array broadcasting against ``v`` (one step per row: shape (rows, 1))."""
    v = check_array("v", v)
    bits = _bits("bits", bits)
    step = check_array("step", step)
    if np.any(step <= 0):
        raise ValueError(f"step must be positive; got minimum {step.min():.3g}")
    try:
        np.broadcast_shapes(v.shape, step.shape)
    except ValueError:
        raise ValueError(f"step of shape {step.shape} does not broadcast against v of shape {v.shape}") from None
    lo, hi = int_range(bits)
    return np.clip(np.rint(v / step), lo, hi)


def mse_step(v, bits: int, *, per_row: bool = False) -> np.ndarray | float:
    """The step minimising the nearest-rounding quantisation MSE of ``v`` over ratio * max|v| / 2^(bits-1), ratio in
    :data:`CLIP_RATIOS`: one step for the whole array, or one per row (``per_row``, shape (rows, 1))."""
    v = check_array("v", v, ndim=2)
    bits = _bits("bits", bits)
    if not isinstance(per_row, (bool, np.bool_)):
        raise TypeError(f"per_row must be True or False; got {per_row!r}")
    check_budget("the step search", v.size * CLIP_RATIOS.size, v_size=v.size)
    m = np.abs(v).max(axis=1, keepdims=True) if per_row else np.full((1, 1), np.abs(v).max())
    if np.any(m == 0):
        raise ValueError("v must have a nonzero entry (in every row, with per_row)")
    steps = CLIP_RATIOS[:, None, None] * m[None] / 2 ** (bits - 1)
    errs = [((v - s * quantize(v, s, bits)) ** 2).sum(axis=1 if per_row else None) for s in steps]
    k = np.argmin(np.array(errs).reshape(CLIP_RATIOS.size, -1), axis=0)
    best = steps[k, np.arange(k.size) if per_row else 0, 0]
    return best.reshape(-1, 1) if per_row else float(best[0])


def float_forward(layer: Layer, X) -> np.ndarray:
    """y = X W^T + b."""
    layer = _layer(layer)
    X = check_array("X", X, shape=(None, layer.W.shape[1]))
    return X @ layer.W.T + layer.b


def _layer(layer):
    if not isinstance(layer, Layer):
        raise TypeError(f"layer must be a Layer (from random_layer); got {type(layer).__name__}")
    return layer


def _qlayer(qlayer):
    if not isinstance(qlayer, QuantLayer):
        raise TypeError(f"qlayer must be a QuantLayer (from quantize_layer); got {type(qlayer).__name__}")
    return qlayer


def _adaptive_round(W, s_w, Xq, X, bits, sweeps):
    """Floor/ceil of W / s_w chosen by greedy coordinate descent on || X W^T - Xq (s_w * W_int)^T ||_F^2: flipping
    weight (j, i) by delta (in units of the step) changes the error by 2 delta s_j R_ji + delta^2 s_j^2 Hq_ii, with
    R = What Hq - W C, Hq = Xq^T Xq, C = X^T Xq; R is updated by delta s_j Hq_i on each accepted flip."""
    lo, hi = int_range(bits)
    ratio = W / s_w
    W_int = np.clip(np.rint(ratio), lo, hi)                          # start from nearest rounding
    Hq, C = Xq.T @ Xq, X.T @ Xq
    R = (s_w * W_int) @ Hq - W @ C
    allowed = [np.clip(np.floor(ratio), lo, hi), np.clip(np.ceil(ratio), lo, hi)]
    for _ in range(sweeps):
        changed = 0
        for i in range(W.shape[1]):
            cur = W_int[:, i]
            other = np.where(cur == allowed[0][:, i], allowed[1][:, i], allowed[0][:, i])
            delta = (other - cur) * s_w[:, 0]
            gain = 2 * delta * R[:, i] + delta ** 2 * Hq[i, i]
            flip = (gain < -1e-12 * Hq[i, i]) & (delta != 0)
            if flip.any():
                W_int[flip, i] = other[flip]
                R[flip] += delta[flip, None] * Hq[i][None, :]
                changed += int(flip.sum())
        if changed == 0:
            break
    return W_int


def absmax_step(v, bits: int, *, per_row: bool = False) -> np.ndarray | float:
    """The min-max (absmax) step max|v| / 2^(bits-1) (1 for 1 bit), for the whole array or per row."""
    v = check_array("v", v, ndim=2)
    bits = _bits("bits", bits)
    if not isinstance(per_row, (bool, np.bool_)):
        raise TypeError(f"per_row must be True or False; got {per_row!r}")
    m = np.abs(v).max(axis=1, keepdims=True) if per_row else np.abs(v).max()
    if np.any(m == 0):
        raise ValueError("v must have a nonzero entry (in every row, with per_row)")
    return m / max(2 ** (bits - 1) - 1, 1) if per_row else float(m / max(2 ** (bits - 1) - 1, 1))


#: The step rules of :func:`quantize_layer`.
STEP_RULES = {"mse": mse_step, "absmax": absmax_step}


def quantize_layer(layer: Layer, X_calib, *, w_bits: int = 2, a_bits: int = 2, rounding: str = "nearest",
                   w_step: str = "mse", a_step: str = "mse", sweeps: int = 4) -> QuantLayer:
    """Quantise ``layer`` with ``w_bits``-bit weights (per-channel steps by the rule ``w_step``, a key of
    :data:`STEP_RULES`) and ``a_bits``-bit activations (one step by ``a_step`` on the calibration inputs
    ``X_calib``), the weights rounded by ``rounding`` (:data:`ROUNDINGS`; ``"adaptive"`` runs at most ``sweeps``
    coordinate-descent sweeps on the calibration inputs)."""
    layer = _layer(layer)
    X = check_array("X_calib", X_calib, shape=(None, layer.W.shape[1]))
    if X.shape[0] < 2:
        raise ValueError(f"X_calib must have at least 2 rows (calibration inputs); got {X.shape[0]}")
    w_bits, a_bits = _bits("w_bits", w_bits), _bits("a_bits", a_bits)
    rounding = check_choice("rounding", rounding, ROUNDINGS)
    sweeps = check_int("sweeps", sweeps, low=1, high=100)
    d_out, d_in = layer.W.shape
    check_budget("the calibration arrays", X.size + d_in * (d_in + d_out), n_calib=X.shape[0], d_in=d_in, d_out=d_out)
    if rounding == "adaptive":
        check_budget("the adaptive rounding", d_out * d_in * d_in * sweeps, max_elements=MAX_ROUNDING_WORK,
                     unit="updates", d_out=d_out, d_in=d_in, sweeps=sweeps)
    w_step = check_choice("w_step", w_step, tuple(STEP_RULES))
    a_step = check_choice("a_step", a_step, tuple(STEP_RULES))
    s_w = STEP_RULES[w_step](layer.W, w_bits, per_row=True)
    s_x = STEP_RULES[a_step](X, a_bits)
    if rounding == "nearest":
        W_int = quantize(layer.W, s_w, w_bits)
    else:
        W_int = _adaptive_round(layer.W, s_w, s_x * quantize(X, s_x, a_bits), X, w_bits, sweeps)
    return QuantLayer(W_int, s_w[:, 0], layer.b.copy(), s_x, w_bits, a_bits)


def quant_forward(qlayer: QuantLayer, X) -> np.ndarray:
    """yhat = s_x (X_int W_int^T) s_w + b, X_int the ``a_bits``-bit activations of X (nearest rounding)."""
    q = _qlayer(qlayer)
    X = check_array("X", X, shape=(None, q.shape[1]))
    acc = quantize(X, q.s_x, q.a_bits) @ q.W_int.T
    return require_finite("yhat", q.s_x * acc * q.s_w + q.b)


def fit_transform(yhat, y) -> tuple:
    """Per-channel least squares of y_j on yhat_j (columns): xi_j = Cov(yhat_j, y_j) / Var(yhat_j), eta_j =
    mean(y_j) - xi_j mean(yhat_j).  A channel with constant yhat_j gets xi_j = 1, eta_j = mean(y_j - yhat_j)."""
    yhat = check_array("yhat", yhat, ndim=2)
    y = check_array("y", y, shape=yhat.shape)
    if yhat.shape[0] < 2:
        raise ValueError(f"yhat must have at least 2 rows (samples); got {yhat.shape[0]}")
    mh, my = yhat.mean(0), y.mean(0)
    var = ((yhat - mh) ** 2).mean(0)
    cov = ((yhat - mh) * (y - my)).mean(0)
    flat = var <= 1e-300
    xi = np.where(flat, 1.0, cov / np.where(flat, 1.0, var))
    return xi, my - xi * mh


def _xi_eta(xi, eta, d):
    return check_array("xi", xi, shape=(d,)), check_array("eta", eta, shape=(d,))


def apply_transform(yhat, xi, eta) -> np.ndarray:
    """ytilde = xi * yhat + eta, per channel (column)."""
    yhat = check_array("yhat", yhat, ndim=2)
    xi, eta = _xi_eta(xi, eta, yhat.shape[1])
    return yhat * xi + eta


def fold_transform(qlayer: QuantLayer, xi, eta) -> QuantLayer:
    """The same layer with the transformation folded in: s_w <- xi s_w, b <- xi b + eta, W_int unchanged."""
    q = _qlayer(qlayer)
    xi, eta = _xi_eta(xi, eta, q.shape[0])
    return QuantLayer(q.W_int.copy(), xi * q.s_w, xi * q.b + eta, q.s_x, q.w_bits, q.a_bits)


def merge_into_next(V, c, xi, eta) -> tuple:
    """A following linear layer z = V ytilde + c with the transformation merged: (V diag(xi), c + V eta)."""
    V = check_array("V", V, ndim=2)
    c = check_array("c", c, shape=(V.shape[0],))
    xi, eta = _xi_eta(xi, eta, V.shape[1])
    return V * xi, c + V @ eta


def channel_mse(y, yhat) -> np.ndarray:
    """Per-channel mean squared error mean_i (y_ij - yhat_ij)^2."""
    y = check_array("y", y, ndim=2)
    yhat = check_array("yhat", yhat, shape=y.shape)
    return ((y - yhat) ** 2).mean(0)
