"""cbs — Zhang, Morwani, Vyas, Wu, Zou, Ghai, Foster, Kakade (ICLR 2025), "How Does Critical Batch Size Scale in
Pre-training?", arXiv:2410.21676, OpenReview olimv9xl9K; code github.com/hlzhang109/critical-batch-size.

The checks run the paper's Sec. 4.2 setting (one-pass minibatch SGD on least squares with a power-law spectrum,
constant learning rate + EWA as in Sec. 3) through the exact second-moment recursion of
:mod:`theorylab.highdim.critical_batch` (tested against the stochastic SGD), with the critical batch size (CBS)
defined as the largest B with S(B) <= 1.2 S(1) / B (continuous crossing), not by the code's fit S = a + b / B.

* ``cbs_exponent_derived`` [derived]: log-log slope of the CBS against the data budget N equals beta / (a + beta);
* ``cbs_grows_with_data`` [derived]: that slope is at least 0.2 (growth with data);
* ``cbs_flat_in_dimension`` [derived]: the CBS at d and 4 d agree within 25% once d exceeds the effective dimension;
* ``cbs_flat_in_width`` [paper Sec. 4.1, Theorem 1, via a random-feature proxy]: the CBS of random-feature
  regression with muP-style output scaling is within 25% of its infinite-width value for widths >= 2 d_eff.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core import Bound, Paper, Slope, claim, experiment, figure, fit_loglog
from theorylab.core.plotting import subplots
from theorylab.core.seeding import child_seed, spawn_seeds
from theorylab.highdim import critical_batch as C

PAPER = Paper(
    id="cbs",
    title="How Does Critical Batch Size Scale in Pre-training?",
    authors="Hanlin Zhang, Depen Morwani, Nikhil Vyas, Jingfeng Wu, Difan Zou, Udaya Ghai, Dean Foster, Sham Kakade",
    arxiv="2410.21676",
)

A, BETA, NOISE = 1.5, 1.2, 0.1
MARGIN = 0.25  # "within 25%": the stated margin of the flatness claims (set before any run)
CITE_DEF = ("paper Sec. 3 (CBS: steps to a target loss exceed ideal linear scaling by 20%; constant LR + EWA) and "
            "Sec. 4.2 (least squares with power-law spectrum, after Zou et al. 2023); the exponent and the recursion "
            "are [derived] (theorylab.highdim.critical_batch and this module's docstrings)")


def batch_grid(max_log2):
    """Half-octave batch grid 1, 1.41 -> 1, 2, 3, 4, 6, 8, ... up to 2^max_log2 (rounded to integers)."""
    return tuple(float(b) for b in np.unique(np.round(2.0 ** np.arange(0, max_log2 + 0.01, 0.5))))


@experiment(PAPER)
def cbs_point(d, N, n_eta, max_log2, width=0, D=0, sketch_seed=0) -> pd.DataFrame:
    """Tuned S(B) at budget N on the power-law instance of dimension d (width = 0), or on a random-feature
    sketch of the D-dimensional instance with ``width`` features (sketch drawn from sketch_seed)."""
    lam, w2 = C.power_law_problem(D if width else d, a=A, beta=BETA)
    noise = NOISE
    if width:
        lam, w2, noise = C.random_feature_problem(lam, w2, width=width, noise=NOISE, seed=sketch_seed)
    r = C.steps_vs_batch(lam, w2, N=N, batches=batch_grid(max_log2), noise=noise, n_eta=n_eta)
    cbs = C.critical_batch_size(r["batches"], r["steps"])
    return pd.DataFrame({"d": d, "N": N, "width": width, "sketch_seed": sketch_seed, "B": r["batches"],
                         "steps": r["steps"], "ratio": r["ratio"], "target": r["target"], "eta1": r["eta1"],
                         "cbs": cbs, "d_eff": C.effective_dimension(lam, r["eta1"], N)})


def growth_table(d, budgets, n_eta, max_log2):
    return pd.concat([cbs_point(d, int(N), n_eta, max_log2) for N in budgets], ignore_index=True)


def _growth_fit(d, budgets, n_eta, max_log2, seed):
    t = growth_table(d, budgets, n_eta, max_log2)
    g = t.groupby("N").agg(cbs=("cbs", "first"), d_eff=("d_eff", "first"))
    return fit_loglog(g.index.to_numpy(float), g.cbs.to_numpy(), seed=child_seed(seed, "fit")), t, g


GROWTH = ("one-pass SGD (constant LR tuned per batch on 0.9 eta_max 2^(-j/2), j < {n_eta}, EWA window 0.1 N / B "
          "steps) on y = <w*, x> + 0.1 xi, x ~ N(0, diag(i^-1.5)), w*_i^2 ~ i^-1.2, d = {d}; target = the EWA risk "
          "B = 1 reaches with N samples, N in {budgets}; CBS = continuous crossing of B S(B) / S(1) = 1.2 on the "
          "half-octave batch grid up to 2^{max_log2}, exact risk (closed recursion)")
SCALES_G = {"ci": dict(d=150, budgets=(1000, 1400, 2000, 2800, 4000, 5600, 8000), n_eta=12, max_log2=10),
            "full": dict(d=400, budgets=(2500, 5000, 10000, 20000, 40000), n_eta=16, max_log2=12)}


@claim(PAPER, "cbs_exponent_derived", source="derived", ref="Sec. 4.2 (Theorems 2-3, least squares)",
       citation=CITE_DEF, statement="the CBS grows as N^(beta / (a + beta)) = N^0.444 (a = 1.5, beta = 1.2): " + GROWTH,
       scales=SCALES_G, expect_reproduced=False,
       why_not="the measured slope is above beta / (a + beta) = 0.444 at every budget pair (full scale: CBS 34.0, 51.5, "
               "78.6, 114.7, 167.5 at N = 2500 .. 40000, local slopes 0.60, 0.61, 0.55, 0.55, fitted 0.576 [0.547, "
               "0.605]; ci: 0.626 [0.609, 0.644] over N = 1000 .. 8000); d to 4 d moves the CBS by 7-9% only "
               "(cbs_flat_in_dimension), so finite d does not explain the gap. A constant-LR last-iterate balance of the "
               "bias (eta N)^-((a + beta - 1) / a) against the noise eta sigma^2 / B gives (a + beta - 1) / (2 a + beta - 1) "
               "= 0.53 [our heuristic, not the paper's], nearer but also below the interval; the EWA window and the "
               "finite budgets are the untested differences")
def cbs_exponent_derived(*, d, budgets, n_eta, max_log2, seed):
    """[derived] With lam_i ~ i^-a and w*_i^2 ~ i^-beta the CBS grows as N^(beta / (a + beta)) (the corrected
    exponent; growth needs beta > 0).  Exact risks, so the interval is the OLS t-interval of the log-log fit over
    the budgets (its width is the curvature of the pre-asymptotic CBS), no model tolerance."""
    fit, t, g = _growth_fit(d, budgets, n_eta, max_log2, seed)
    return Slope(fit=fit, predicted=BETA / (A + BETA), data=t,
                 note="CBS " + ", ".join(f"N = {n}: {r.cbs:.1f} (d_eff {r.d_eff})" for n, r in g.iterrows()))


@claim(PAPER, "cbs_grows_with_data", source="derived", ref="Sec. 4.2; abstract (CBS scales with data size)",
       citation=CITE_DEF, statement="the CBS grows with the data budget: log-log slope >= 0.2; " + GROWTH,
       scales=SCALES_G)
def cbs_grows_with_data(*, d, budgets, n_eta, max_log2, seed):
    """[derived] At budget N the tuned B = 1 learning rate eta*(N) falls with N (it balances the bias, a decreasing
    function of eta N, against the SGD noise ~ eta sigma^2 / B), so linear scaling eta_B = B eta* holds until eta_B
    reaches the batch-B stability limit (~ 2 / lam_1 for large B): the CBS ~ eta_max / eta*(N) grows with N."""
    fit, t, g = _growth_fit(d, budgets, n_eta, max_log2, seed)
    return Slope(fit=fit, predicted=0.2, side="at_least", data=t,
                 note="CBS " + ", ".join(f"N = {n}: {r.cbs:.1f}" for n, r in g.iterrows()))


@claim(PAPER, "cbs_flat_in_dimension", source="derived", ref="Sec. 4.2 (infinite-dimensional least squares)",
       citation=CITE_DEF,
       statement="the CBS at d = {d} and d = {d_big} agree within 25% at N = {N} (d above 2 x the effective dimension "
                 "#{{i: eta* N lam_i >= 1}}); same instance and CBS definition as cbs_grows_with_data",
       scales={"ci": dict(d=150, d_big=600, N=4000, n_eta=12, max_log2=10),
               "full": dict(d=400, d_big=1600, N=20000, n_eta=16, max_log2=12)})
def cbs_flat_in_dimension(*, d, d_big, N, n_eta, max_log2, seed):
    """[derived] The directions i with eta N lam_i << 1 are not fitted in N samples; they enter the recursion only
    through their (unchanged) bias and their share of tr(H), both O(d_eff^(1-a)) beyond d_eff, so the CBS is
    d-independent once d >> d_eff.  Exact computation: no interval."""
    a, b = cbs_point(d, N, n_eta, max_log2), cbs_point(d_big, N, n_eta, max_log2)
    c1, c2, de = a.cbs.iloc[0], b.cbs.iloc[0], int(b.d_eff.iloc[0])
    if d < 2 * de:
        raise ValueError(f"d = {d} is below 2 d_eff = {2 * de} at N = {N}: the claim would not be tested; raise d")
    return Bound(value=abs(c1 / c2 - 1.0), bound=MARGIN, side="<=",
                 data=pd.concat([a, b], ignore_index=True), note=f"CBS {c1:.1f} (d = {d}) vs {c2:.1f} (d = {d_big}); d_eff {de}")


def width_table(D, N, widths, sketches, n_eta, max_log2, seed):
    rows = [cbs_point(D, N, n_eta, max_log2)]
    for m in widths:
        for s in spawn_seeds(child_seed(seed, "sketch", m), sketches):
            rows.append(cbs_point(D, N, n_eta, max_log2, width=int(m), D=D, sketch_seed=int(s)))
    return pd.concat(rows, ignore_index=True)


@claim(PAPER, "cbs_flat_in_width", source="paper", ref="Sec. 4.1, Theorem 1 (width-independence under muP)",
       citation="paper Sec. 4.1 Theorem 1 (infinite-width limit: loss-vs-steps, hence the CBS, width independent for "
                "fixed data); the random-feature proxy and the 2 x d_eff condition (input dimension D >= 8 x the largest "
                "width) are [derived]",
       statement="random-feature regression f(x) = <v, S x> / m (muP-style output scale) on the D = {D} instance of "
                 "cbs_grows_with_data at N = {N}: the CBS averaged over the widths {widths} (all >= 2 x d_eff) and {sketches} "
                 "sketches per width is within 25% of the infinite-width (D-dimensional) CBS (per-width means in the note)",
       scales={"ci": dict(D=1024, N=2000, widths=(48, 64), sketches=24, n_eta=12, max_log2=10),
               "full": dict(D=2560, N=5000, widths=(80, 112, 160), sketches=16, n_eta=16, max_log2=12)})
def cbs_flat_in_width(*, D, N, widths, sketches, n_eta, max_log2, seed):
    """[derived proxy] Under the muP-style scale the readout SGD in function space is SGD on the features S x / sqrt(m)
    with covariance H^(1/2) S^T S H^(1/2) / m -> H as m -> infinity: the infinite-width limit is the D-dimensional
    problem.  For m << D the sketch keeps about the top-m spectrum, so once m exceeds the directions fitted at N
    (2 d_eff) the CBS is that of the limit.  Interval: percentile bootstrap over the sketches (independent units,
    pooled over the widths) of the mean CBS, mapped to the relative deviation |mean / CBS_inf - 1|.  The sketched
    CBS sits below the limit by an amount that grows with m / D: at full scale with D = 8 x the largest width
    (D = 1280) we measured 0.27 [0.21, 0.34] (inconclusive), at D = 16 x (2560) 0.19 [0.13, 0.25]; the full scale
    uses D = 16 x the largest width, ci too (at ci with D = 8 x, 12 of 20 calibration seeds were inconclusive).  The
    measured deviation (0.12-0.19) sits below the 25% margin by about two interval half-widths, hence the 24 (ci)
    and 16 x 3 (full) sketches."""
    t = width_table(D, N, widths, sketches, n_eta, max_log2, seed)
    inf_row = t[t.width == 0]
    c_inf, de = float(inf_row.cbs.iloc[0]), int(inf_row.d_eff.iloc[0])
    parts = []
    for m in widths:
        v = t[t.width == m].groupby("sketch_seed").cbs.first().to_numpy()
        mean, (lo, hi) = C.bootstrap_cbs(v, seed=child_seed(seed, "boot", m))
        parts.append(f"m = {m}: {mean:.1f} [{lo:.1f}, {hi:.1f}] ({abs(mean / c_inf - 1):.3f})")
    pooled = t[t.width > 0].groupby(["width", "sketch_seed"]).cbs.first().to_numpy()
    mean, (lo, hi) = C.bootstrap_cbs(pooled, seed=child_seed(seed, "boot", "pooled"))
    note = f"infinite width {c_inf:.1f} (d_eff {de}); pooled {mean:.1f} [{lo:.1f}, {hi:.1f}]; " + "; ".join(parts)
    if not (min(widths) >= 2 * de and D >= 8 * max(widths)):
        raise ValueError(f"widths {widths} must be >= 2 d_eff = {2 * de} and D = {D} >= 8 x the largest width: "
                         f"the claim would not be tested ({note})")
    ends = np.abs(np.array([lo, hi]) / c_inf - 1.0)
    dev_ci = (0.0 if lo <= c_inf <= hi else float(ends.min()), float(ends.max()))
    return Bound(value=abs(mean / c_inf - 1.0), bound=MARGIN, side="<=", ci=dev_ci, data=t,
                 note=note)


@figure(PAPER, "steps_vs_batch",
        caption="Tuned steps S(B) to the target loss (the EWA risk B = 1 reaches with N samples) against batch size B "
                "for data budgets N (colours), exact risk of one-pass SGD on the power-law instance (a = 1.5, "
                "beta = 1.2, noise 0.1, d of cbs_grows_with_data); dashed: ideal linear scaling N / B; dotted: "
                "1.2 N / B; markers: the critical batch size (continuous crossing). No shading: the risks are exact.",
        scales={"ci": dict(d=150, budgets=(1000, 2000, 4000, 8000), n_eta=12, max_log2=10),
                "full": dict(d=400, budgets=(2500, 5000, 10000, 20000, 40000), n_eta=16, max_log2=12)})
def fig_steps_vs_batch(*, d, budgets, n_eta, max_log2, seed):
    t = growth_table(d, budgets, n_eta, max_log2)
    fig, axes = subplots(1, 1, width=4.8)
    ax = axes[0, 0]
    for c, (N, g) in enumerate(t.groupby("N")):
        ok = np.isfinite(g.steps)
        ax.plot(g.B[ok], g.steps[ok], "o-", ms=3, color=f"C{c}", label=f"N = {N}")
        ax.plot(g.B, N / g.B, "--", color=f"C{c}", lw=0.7)
        ax.plot(g.B, 1.2 * N / g.B, ":", color=f"C{c}", lw=0.7)
        cbs = g.cbs.iloc[0]
        if np.isfinite(cbs):
            ax.plot([cbs], [1.2 * N / cbs], "*", ms=10, color=f"C{c}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("batch size B")
    ax.set_ylabel("steps to target S(B)")
    ax.legend(fontsize=7)
    return fig, t[["N", "B", "steps", "ratio", "cbs", "target", "eta1", "d_eff"]]
