"""adaqtransform — "From Decoupling to Adaptive Transformation: a Wider Optimization Space for PTQ" (ICLR 2025,
OpenReview JElN0LJMKB; no arXiv id or code found).  A TOY PROXY: the paper's results are ImageNet / LLM accuracies
of quantised networks, out of reach here; what is checked is its mechanism on one random linear layer
(theorylab.toys.ptq_transform), and every statement says "toy proxy".

Read in the paper's abstract (OpenReview): an adaptive per-channel transformation of the quantised output feature
"makes the quantized output feature better fit the FP32 counterpart", with "no extra inference cost".  The roles
of xi (scale), eta (translation), their AdaRound-style learning and their merge at inference are from the
OpenReview reviews (third-party).  The toy, the fits and the fold are ours [derived].

Checks (one shared table: replicates x bit widths x rounding methods, each replicate a fresh layer, calibration
set and held-out set):
* ``no_channel_worse_heldout`` (declared finding): at every bit width, no output channel has a larger held-out MSE
  after the transformation, for nearest and AdaRound-like rounding; true at W2A2 in our runs, not from 4 bits on.
* ``heldout_ratio_nearest`` / ``heldout_ratio_adaptive``: the held-out MSE ratio (with / without) is < 1, mean over
  replicates with a t-interval (replicates independent).
* ``fold_same_layer_exact``: folding (xi, eta) into the layer's per-channel step and bias leaves the output
  unchanged to 1e-12 relative in float64, integer weights unchanged.
* ``merge_next_layer_exact``: merging into a following linear layer is exact to 1e-12 (through a ReLU it is not:
  the note gives the error).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core import Bound, Identity, Paper, claim, experiment, figure, mean_ci
from theorylab.core.parallel import blas_threads
from theorylab.core.plotting import subplots
from theorylab.core.seeding import as_generator, child_seed, spawn_seeds
from theorylab.toys import ptq_transform as T

PAPER = Paper(
    id="adaqtransform",
    title="From Decoupling to Adaptive Transformation: a Wider Optimization Space for PTQ",
    authors="authors not identified (OpenReview JElN0LJMKB)",
    arxiv="",
)

#: Float64 margin of the fold and merge identities, stated before the runs: a few products and sums of O(1)
#: numbers, each with relative rounding error 2^-53 ~ 1.1e-16; 1e-12 leaves four orders of magnitude.
FOLD_MARGIN = 1e-12
STEPS = dict(w_step="absmax", a_step="mse")
CITE = ("OpenReview JElN0LJMKB: abstract (per-channel transformation of the quantised output feature, lower "
        "reconstruction error, no extra inference cost) and reviews (scale xi, translation eta, AdaRound-style "
        "learning, merged at inference; third-party); the toy proxy, least-squares fit, fold and margins are ours")
INSTANCE = ("toy proxy: one random linear layer d_in = d_out = {d} (W ~ N(0, 1/d), bias ~ N(0, 0.25)), Gaussian "
            "inputs with feature scales 1..4, signed integer grids, absmax per-channel weight steps and one MSE "
            "activation step, {n_calib} calibration and {n_heldout} held-out inputs, {replicates} replicates")
SCALES = {"ci": dict(d=64, n_calib=256, n_heldout=1024, bits=(2, 4, 8), replicates=6),
          "full": dict(d=256, n_calib=1024, n_heldout=2048, bits=(2, 4, 8), replicates=6)}


#: The figure draws its own replicates (a figure's seed is not a claim's): fewer, to stay within the time budget.
FIGURE_SCALES = {"ci": dict(SCALES["ci"], replicates=3), "full": dict(SCALES["full"], bits=(2, 3, 4, 5, 6, 8), replicates=3)}


def _claim_scales(**extra):
    return {k: dict(v, **extra) for k, v in SCALES.items()}


def replicate_rows(d, n_calib, n_heldout, bits, rep_seed) -> list:
    """One replicate at one bit width (weights and activations), one row per rounding: held-out MSE without and
    with the fitted (xi, eta), the worst channel ratio, the fold and next-layer merge discrepancies."""
    layer = T.random_layer(d, d, seed=child_seed(rep_seed, "layer"))
    Xc = T.layer_inputs(n_calib, d, seed=child_seed(rep_seed, "calib"))
    Xh = T.layer_inputs(n_heldout, d, seed=child_seed(rep_seed, "heldout"))
    yc, y = T.float_forward(layer, Xc), T.float_forward(layer, Xh)
    rng = as_generator(child_seed(rep_seed, "next"))
    V, c = rng.standard_normal((d // 2, d)) / np.sqrt(d), rng.standard_normal(d // 2)
    rows = []
    for rounding in T.ROUNDINGS:
        q = T.quantize_layer(layer, Xc, w_bits=bits, a_bits=bits, rounding=rounding, **STEPS)
        xi, eta = T.fit_transform(T.quant_forward(q, Xc), yc)
        yq = T.quant_forward(q, Xh)
        yt = T.apply_transform(yq, xi, eta)
        m0, m1 = T.channel_mse(y, yq), T.channel_mse(y, yt)
        folded = T.fold_transform(q, xi, eta)
        fold_err = np.abs(T.quant_forward(folded, Xh) - yt).max() / np.abs(yt).max()
        Vm, cm = T.merge_into_next(V, c, xi, eta)
        z, zr = yt @ V.T + c, np.maximum(yt, 0) @ V.T + c
        merge_err = np.abs(yq @ Vm.T + cm - z).max() / np.abs(z).max()
        relu_err = np.abs(np.maximum(yq, 0) @ Vm.T + cm - zr).max() / np.abs(zr).max()
        rows.append(dict(bits=bits, rounding=rounding, mse_without=m0.sum(), mse_with=m1.sum(),
                         ratio=m1.sum() / m0.sum(), rel_err_without=m0.sum() / y.var(0).sum(),
                         rel_err_with=m1.sum() / y.var(0).sum(), worst_channel_ratio=float((m1 / m0).max()),
                         channels_worse=int((m1 > m0).sum()), xi_min=float(xi.min()), xi_max=float(xi.max()),
                         fold_rel_err=float(fold_err), ints_unchanged=bool(np.array_equal(folded.W_int, q.W_int)),
                         merge_rel_err=float(merge_err), relu_merge_rel_err=float(relu_err)))
    return rows


@experiment(PAPER)
def ptq_table(d, n_calib, n_heldout, bits, replicates, seed) -> pd.DataFrame:
    with blas_threads(1):                     # small products, a loaded machine: one BLAS thread (DEVELOPERS.md)
        return pd.DataFrame([dict(replicate=r, **row)
                             for r, rs in enumerate(spawn_seeds(child_seed(seed, "replicates"), replicates))
                             for b in bits for row in replicate_rows(d, n_calib, n_heldout, b, int(rs))])


WHY_NOT_CHANNELS = ("at W2A2 every channel gains (the worst held-out ratio is in the note), but from 4 bits on the "
                    "quantised output of most channels is already close to calibrated: a channel with (almost) no "
                    "population gain loses the estimation error of its two fitted parameters (of order 2 / n_calib of "
                    "its MSE, more in the tail of the max over channels), so some channels get worse on held-out data")


@claim(PAPER, "no_channel_worse_heldout", source="derived", ref="abstract; reviews (xi, eta per channel)",
       citation=CITE, stream="ptq", expect_reproduced=False, why_not=WHY_NOT_CHANNELS,
       statement="toy proxy: at every bit width b in {bits} (WbAb), the per-channel (xi, eta) fitted by least squares "
                 "on the calibration set makes no output channel's held-out MSE larger, with nearest rounding and with "
                 "AdaRound-like rounding (floor/ceil by coordinate descent on the calibration output error); "
                 "measured: the largest held-out MSE ratio (with / without) over channels, bit widths, roundings and "
                 "replicates; " + INSTANCE,
       scales=SCALES)
def no_channel_worse_heldout(*, d, n_calib, n_heldout, bits, replicates, seed):
    """[derived] On the calibration set no channel can get worse (the least-squares family contains xi = 1,
    eta = 0), so the check is on held-out inputs, where it can fail."""
    t = ptq_table(d, n_calib, n_heldout, bits, replicates, seed)
    by = t.groupby("bits").agg(worst=("worst_channel_ratio", "max"), worse=("channels_worse", "sum"))
    return Bound(value=float(t.worst_channel_ratio.max()), bound=1.0, side="<=", data=t,
                 note="worst channel ratio (channels worse, over roundings and replicates) by bit width: "
                      + ", ".join(f"W{b}A{b} {r.worst:.4f} ({int(r.worse)})" for b, r in by.iterrows()))


def _ratio_claim(rounding, d, n_calib, n_heldout, bits, replicates, bits_claim, seed):
    t = ptq_table(d, n_calib, n_heldout, bits, replicates, seed)
    s = t[(t.bits == bits_claim) & (t.rounding == rounding)]
    m, lo, hi, _ = mean_ci(s.ratio.to_numpy())
    return Bound(value=m, bound=1.0, side="<=", ci=(lo, hi), data=t,
                 note=f"held-out relative error without {s.rel_err_without.mean():.4f}, with "
                      f"{s.rel_err_with.mean():.4f} ({rounding} rounding, W{bits_claim}A{bits_claim})")


RATIO_DOC = """[derived] The held-out MSE ratio sum_j MSE_j(with) / sum_j MSE_j(without) per replicate; the interval is
    Student's t over independent replicates (each a fresh layer, calibration and held-out set), so it carries every
    source of randomness of the toy."""


@claim(PAPER, "heldout_ratio_nearest", source="derived", ref="abstract (lower reconstruction error)",
       citation=CITE, stream="ptq",
       statement="toy proxy: at W{bits_claim}A{bits_claim} with nearest rounding (numpy rint, half to even), the "
                 "held-out output MSE with the fitted (xi, eta) over that without is < 1 (mean over replicates, "
                 "95% t-interval below 1); " + INSTANCE,
       scales=_claim_scales(bits_claim=2))
def heldout_ratio_nearest(*, d, n_calib, n_heldout, bits, replicates, bits_claim, seed):
    return _ratio_claim("nearest", d, n_calib, n_heldout, bits, replicates, bits_claim, seed)


@claim(PAPER, "heldout_ratio_adaptive", source="derived", ref="abstract; reviews (AdaRound's h(alpha))",
       citation=CITE, stream="ptq",
       statement="toy proxy: at W{bits_claim}A{bits_claim} with AdaRound-like rounding (each weight floor or ceil, "
                 "chosen by greedy coordinate descent on the calibration output error with quantised activations), "
                 "the held-out output MSE with the fitted (xi, eta) over that without is < 1 (mean over replicates, "
                 "95% t-interval below 1); " + INSTANCE,
       scales=_claim_scales(bits_claim=2))
def heldout_ratio_adaptive(*, d, n_calib, n_heldout, bits, replicates, bits_claim, seed):
    return _ratio_claim("adaptive", d, n_calib, n_heldout, bits, replicates, bits_claim, seed)


heldout_ratio_nearest.__doc__ = heldout_ratio_adaptive.__doc__ = RATIO_DOC


@claim(PAPER, "fold_same_layer_exact", source="derived", ref="reviews (merged at inference, no inference cost)",
       citation=CITE, stream="ptq",
       statement="exact (float64), on the toy proxy: folding xi into the layer's per-channel weight step and eta into "
                 "its bias (s_w <- xi s_w, b <- xi b + eta, integer weights unchanged) gives the transformed output "
                 "to 1e-12 relative (max |difference| / max |output|), at every bit width in {bits}, both "
                 "roundings; " + INSTANCE,
       scales=SCALES)
def fold_same_layer_exact(*, d, n_calib, n_heldout, bits, replicates, seed):
    """[derived] xi_j (s_x s_w,j acc_j + b_j) + eta_j = s_x (xi_j s_w,j) acc_j + (xi_j b_j + eta_j), acc_j the
    integer accumulator; exact in real arithmetic, so float64 leaves only rounding (margin FOLD_MARGIN)."""
    t = ptq_table(d, n_calib, n_heldout, bits, replicates, seed)
    err = float(t.fold_rel_err.max()) if t.ints_unchanged.all() else float("inf")
    return Identity(discrepancy=err, instances=len(t), atol=FOLD_MARGIN, what="folded - transformed (relative)",
                    data=t, note="integer weights unchanged in every instance" if t.ints_unchanged.all()
                    else "the fold changed integer weights")


@claim(PAPER, "merge_next_layer_exact", source="derived", ref="reviews (merged into the following layer)",
       citation=CITE, stream="ptq",
       statement="exact (float64), on the toy proxy: merging (xi, eta) into a following linear layer z = V y + c "
                 "(V <- V diag(xi), c <- c + V eta; V of shape d/2 x d) gives the same z to 1e-12 relative, at every "
                 "bit width in {bits}, both roundings, when nothing lies between the layers (through a ReLU it is not "
                 "exact: see the note); " + INSTANCE,
       scales=SCALES)
def merge_next_layer_exact(*, d, n_calib, n_heldout, bits, replicates, seed):
    """[derived] V (xi * y + eta) + c = (V diag(xi)) y + (c + V eta); through ReLU(xi y + eta) != xi ReLU(y) + eta
    in general, which the note measures."""
    t = ptq_table(d, n_calib, n_heldout, bits, replicates, seed)
    return Identity(discrepancy=float(t.merge_rel_err.max()), instances=len(t), atol=FOLD_MARGIN,
                    what="merged - transformed then next layer (relative)", data=t,
                    note=f"through a ReLU the same merge errs by {t.relu_merge_rel_err.min():.3g} to "
                         f"{t.relu_merge_rel_err.max():.3g} (relative)")


@figure(PAPER, "error_vs_bits",
        caption="Toy proxy, one random linear layer quantised at W b A b. Left: held-out relative output error (sum of "
                "per-channel MSE / total output variance) against the bit width b, without (dashed) and with (solid) "
                "the per-channel transformation (xi, eta) fitted by least squares on the calibration set, for nearest "
                "(blue) and AdaRound-like (orange) rounding; log scale. Right: their ratio (with / without); dotted "
                "line at 1 (no gain). No theory line (the effect is empirical); markers are means over replicates, "
                "shading the 95% t-interval over replicates",
        scales=FIGURE_SCALES)
def fig_error_vs_bits(*, d, n_calib, n_heldout, bits, replicates, seed):
    t = ptq_table(d, n_calib, n_heldout, bits, replicates, seed)
    rows = []
    for (b, rnd), g in t.groupby(["bits", "rounding"]):
        for col in ("rel_err_without", "rel_err_with", "ratio"):
            m, lo, hi, _ = mean_ci(g[col].to_numpy())
            rows.append(dict(bits=b, rounding=rnd, quantity=col, mean=m, lo=lo, hi=hi))
    s = pd.DataFrame(rows)
    fig, ax = subplots(1, 2, width=4.6)
    left, right = ax[0, 0], ax[0, 1]
    for c, rnd in enumerate(T.ROUNDINGS):
        for col, a, ls, label in (("rel_err_without", left, "--", "without (xi, eta)"),
                                  ("rel_err_with", left, "-", "with (xi, eta)"), ("ratio", right, "-", "with / without")):
            g = s[(s.rounding == rnd) & (s.quantity == col)]
            a.plot(g.bits, g["mean"], ls, marker="o", ms=3, color=f"C{c}", label=f"{rnd}, {label}")
            a.fill_between(g.bits, g.lo, g.hi, color=f"C{c}", alpha=0.2, lw=0)
    left.set_yscale("log")
    left.set_ylabel("held-out relative output error")
    right.axhline(1.0, ls=":", color="gray", lw=0.8)
    right.set_ylabel("held-out MSE ratio, with / without (xi, eta)")
    for a in (left, right):
        a.set_xlabel("bit width b (weights and activations)")
        a.legend(fontsize=7)
    return fig, s
