"""bp_localloss — Ren Lianhai, Qianxiao Li (ICLR 2025), "BP-Modified Local Loss for Efficient Training of Deep
Neural Networks", OpenReview MtW30ql5Oj (no arXiv id or code found).  The paper is empirical (CIFAR-100, ResNet-50
and ViT); what is checked here is a TOY PROXY of its mechanism, every statement says so.  The update's structure
(offset = BP gradient minus local gradient on a split mini-batch B', refreshed every K steps, scaled by alpha_h) is
read in the forum's reviews (third-party); the toy, its exact moments and all assertions are ours (derived; see
theorylab.toys.local_loss).  The paper's alpha_h / lambda_h formulas and its SME/OU statement were not read, so no
interior optimal alpha is asserted.

Checks (toy proxy; deep linear network d = 6 -> 2 -> 2 -> 4, local linear probes, Gaussian regression):
* ``bias_law`` / ``variance_law``: at a fixed network with refresh period 1, E u - g^BP = (1 - alpha)(G^loc - G^BP)
  and tr Cov u = V_loc / B + alpha^2 V_off / B' (exact moments against Monte Carlo, within 4 s.e.).
* ``offset_reduces_excess_loss``: with M != I (the probes' optimum is not the global one) the final excess global
  loss at alpha = 1 is below alpha = 0 at refresh period 1 by >= 4 s.e.; the M = I control's gain is reported.
* ``stability_falls_with_refresh``: the largest stable alpha on a grid falls from K = 1 to the largest K.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pandas as pd

from theorylab.core import Bound, Estimate, Paper, claim, figure, mean_ci
from theorylab.core.evidence import z_of
from theorylab.core.plotting import subplots
from theorylab.core.seeding import child_seed
from theorylab.toys import local_loss as T

PAPER = Paper(
    id="bp_localloss",
    title="BP-Modified Local Loss for Efficient Training of Deep Neural Networks",
    authors="Ren Lianhai, Qianxiao Li",
    arxiv="",
)

# the toy instance (stated in every statement)
TASK = dict(d=6, p=4, width=2, depth=3, sigma=0.5)
M_WEIGHTS = (4.0, 1.0, 0.25, 0.25)
TRAIN = dict(eta=0.03, batch=32, batch_prime=32)
Z4 = 4.0
LEVEL4 = 2 * NormalDist().cdf(Z4) - 1     # the two-sided level of +-4 s.e.
CITE = ("OpenReview reviews of forum MtW30ql5Oj (third-party): offset = BP minus local gradient on a split "
        "mini-batch B', lazily refreshed every K steps, scaled by alpha_h; the toy proxy, its exact moments and the "
        "assertion are derived (theorylab.toys.local_loss docstring)")


TASK_SEED = 0     # the toy instance A is fixed (drawn once); a run's seed draws initialisations and batches


def task(weighted: bool = True, seed: int = 0):
    """The toy instance (A from TASK_SEED whatever the run's seed; ``seed`` is kept for the notebook's calls)."""
    return T.linear_task(**TASK, m=M_WEIGHTS if weighted else None, seed=child_seed(TASK_SEED, "task"))


def fixed_network_table(alphas, draws, groups, batch, batch_prime, seed) -> pd.DataFrame:
    """Per alpha: Monte Carlo of the refresh-period-1 update at a fixed random network, against its exact moments.
    ``proj``: (mean u - G^BP) projected on the unit offset direction (predicted (1 - alpha) c); ``trace``: mean over
    ``groups`` of the groups' sample tr Cov (predicted tr Cov u)."""
    tk = task(True, seed)
    W, P = T.init_network(tk, 0.5, 1, seed=child_seed(seed, "network"))
    rows = []
    for a in alphas:
        mom = T.update_moments(tk, W, P, a, batch, batch_prime)
        c = float(mom["offset_norm"][0])
        base = T.update_moments(tk, W, P, 0.0, batch, batch_prime)["bias"][0] / c      # (G^loc - G^BP) / c
        u = T.sample_updates(tk, W, P, a, batch, batch_prime, draws, seed=child_seed(seed, "draws", float(a)))
        proj = (u - mom["g_bp"][0]) @ base
        tr = np.array([g.var(axis=0, ddof=1).sum() for g in np.array_split(u, groups)])
        rows.append(dict(alpha=float(a), c=c, proj=proj.mean(), proj_se=proj.std(ddof=1) / np.sqrt(draws),
                         bias_pred=(1 - a) * c, trace=tr.mean(), trace_se=tr.std(ddof=1) / np.sqrt(groups),
                         trace_pred=float(mom["trace_cov"][0]), v_loc=float(mom["v_loc"][0]),
                         v_off=float(mom["v_off"][0])))
    return pd.DataFrame(rows)


FIXED = {"ci": dict(alphas=(0.0, 0.5, 1.0, 1.5, 2.0), draws=4000, groups=20, batch=8, batch_prime=8),
         "full": dict(alphas=(0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0), draws=40000, groups=40, batch=8, batch_prime=8)}


@claim(PAPER, "bias_law", source="derived", ref="reviews of forum MtW30ql5Oj (offset structure)", citation=CITE,
       statement="toy proxy: at a fixed random deep linear network (d = 6 -> 2 -> 2 -> 4, local linear probes, "
                 "M = diag(4, 1, 1/4, 1/4), noise 0.5) with refresh period 1, the bias E u - g^BP of the offset-"
                 "corrected update along G^loc - G^BP equals (1 - alpha) |G^loc - G^BP| for alpha in {alphas} "
                 "(batch B = {batch}, B' = {batch_prime}); measured: the pooled ratio measured / predicted over "
                 "{draws} draws per alpha, predicted 1 within 4 s.e. (no model tolerance: the law is exact)",
       scales=FIXED)
def bias_law(*, alphas, draws, groups, batch, batch_prime, seed):
    """[derived] E u = G^loc + alpha (G^BP - G^loc) since B' is an independent batch at the same network, so
    E u - G^BP = (1 - alpha)(G^loc - G^BP); projected on the unit direction of G^loc - G^BP it is (1 - alpha) c.
    The pooled ratio sum_a (1 - a) proj_a / (c sum_a (1 - a)^2) is linear in independent means: its s.e. is
    exact."""
    t = fixed_network_table(alphas, draws, groups, batch, batch_prime, seed)
    w = 1 - t.alpha.to_numpy()
    c = t.c.iloc[0]
    value = float(np.sum(w * t.proj) / (c * np.sum(w ** 2)))
    se = float(np.sqrt(np.sum(w ** 2 * t.proj_se ** 2)) / (c * np.sum(w ** 2)))
    z = (t.proj - t.bias_pred) / t.proj_se
    return Estimate.from_se(value, se, predicted=1.0, level=LEVEL4, data=t,
                            note=f"c = |G^loc - G^BP| = {c:.4f}; per alpha max |z| = {np.abs(z).max():.2f}")


@claim(PAPER, "variance_law", source="derived", ref="reviews of forum MtW30ql5Oj (offset structure)", citation=CITE,
       statement="toy proxy: at the same fixed network, tr Cov of the offset-corrected update equals V_loc / B + "
                 "alpha^2 V_off / B' (Isserlis closed form) for alpha in {alphas} (B = {batch}, B' = {batch_prime}); "
                 "measured: the pooled ratio sum measured / sum predicted over {groups} groups of the {draws} draws "
                 "per alpha, predicted 1 within 4 s.e. (no model tolerance: the law is exact)",
       scales=FIXED)
def variance_law(*, alphas, draws, groups, batch, batch_prime, seed):
    """[derived] u = g^loc(B) + alpha o(B') with B, B' independent, so tr Cov u = tr Cov g^loc(B) + alpha^2 tr Cov
    o(B'); each per-sample gradient is a b^T with a, b centred jointly Gaussian linear forms, whence (Isserlis)
    tr Cov(a b^T) = tr S_aa tr S_bb + |S_ab|_F^2, and a batch mean divides it by the batch size.  Group sample
    traces (ddof 1) are unbiased; the s.e. is over the independent groups."""
    t = fixed_network_table(alphas, draws, groups, batch, batch_prime, seed)
    value = float(t.trace.sum() / t.trace_pred.sum())
    se = float(np.sqrt(np.sum(t.trace_se ** 2)) / t.trace_pred.sum())
    z = (t.trace - t.trace_pred) / t.trace_se
    return Estimate.from_se(value, se, predicted=1.0, level=LEVEL4, data=t,
                            note=f"V_loc = {t.v_loc.iloc[0]:.3f}, V_off = {t.v_off.iloc[0]:.3f}; per alpha max |z| = "
                                 f"{np.abs(z).max():.2f}")


@claim(PAPER, "offset_reduces_excess_loss", source="derived", ref="reviews of forum MtW30ql5Oj (bias reduction)",
       citation=CITE,
       statement="toy proxy: training the deep linear network (d = 6 -> 2 -> 2 -> 4, trainable local probes, noise "
                 "0.5, one fixed draw of A with N(0, 1/6) entries) for {steps} SGD steps (step 0.03, B = B' = 32) with M = diag(4, 1, 1/4, 1/4), where the "
                 "probes' optimum is not the global one, the final excess global loss at alpha = 1 is below alpha = 0 "
                 "at refresh period 1 by at least 4 s.e. ({replicates} replicates paired by initialisation and "
                 "batches); the M = I control's gain is reported in the note",
       scales={"ci": dict(steps=1500, replicates=8), "full": dict(steps=1500, replicates=24)})
def offset_reduces_excess_loss(*, steps, replicates, seed):
    """[derived] With M = I the probes' optimum (top-k singular subspace of A) is F's optimum (Eckart-Young), so
    local learning already reaches it; with M != I F's optimum is the best rank-k approximation of M^{1/2} A,
    whose subspace the probes do not target, and only the offset (alpha > 0) moves the hidden blocks towards it.
    Pairing: both alphas share initialisation and batch streams (same seed)."""
    rows = []
    for weighted in (True, False):
        tk = task(weighted, seed)
        out = {a: T.train_local(tk, a, 1, steps=steps, replicates=replicates, seed=child_seed(seed, "train"),
                                **TRAIN)["excess"] for a in (0.0, 1.0)}
        rows.append(pd.DataFrame({"M": "weighted" if weighted else "identity", "rep": np.arange(replicates),
                                  "excess_alpha0": out[0.0], "excess_alpha1": out[1.0]}))
    t = pd.concat(rows, ignore_index=True)
    t["gain"] = t.excess_alpha0 - t.excess_alpha1
    w, i = t[t.M == "weighted"].gain.to_numpy(), t[t.M == "identity"].gain.to_numpy()
    m, _, _, se = mean_ci(w)
    mi, _, _, sei = mean_ci(i)
    return Bound(value=m, bound=0.0, side=">=", ci=(m - Z4 * se, m + Z4 * se), level=LEVEL4, data=t,
                 note=f"M != I: gain {m:.4f} (s.e. {se:.4f}); excess at alpha 0 / 1: "
                      f"{t[t.M == 'weighted'].excess_alpha0.mean():.4f} / {t[t.M == 'weighted'].excess_alpha1.mean():.4f}"
                      f"; M = I control: gain {mi:.5f} (s.e. {sei:.5f})")


@claim(PAPER, "stability_falls_with_refresh", source="derived", ref="reviews of forum MtW30ql5Oj (lazy update)",
       citation=CITE,
       statement="toy proxy: on the same fixed instance with M = diag(4, 1, 1/4, 1/4) (step 0.03, B = B' = 32, {steps} steps), the largest alpha "
                 "in {alphas} whose run does not diverge (global loss above 1e6 times its initial value) is larger at "
                 "refresh period K = 1 than at K = {k_max} (K in {refreshes}): the mean paired difference over {replicates} "
                 "replicates is at least the grid's smallest step, by 4 s.e.",
       scales={"ci": dict(alphas=(0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0), refreshes=(1, 64), k_max=64, steps=512,
                          replicates=8),
               "full": dict(alphas=(0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0), refreshes=(1, 4, 16, 64), k_max=64, steps=512,
                            replicates=24)})
def stability_falls_with_refresh(*, alphas, refreshes, k_max, steps, replicates, seed):
    """[derived] With a stale offset the update is g^loc(W_t) + alpha (g^BP - g^loc)(W_{t0}): between refreshes the
    alpha-scaled term does not follow the network, an open-loop drive that grows with alpha and with K (the
    divergence happens even without gradient noise), so the largest stable alpha falls with K.  Replicates are
    paired across K and alpha (same seed streams); the grid's largest value bounds alpha_max from above."""
    tk = task(True, seed)
    rows = []
    for K in refreshes:
        for a in alphas:
            r = T.train_local(tk, a, K, steps=steps, replicates=replicates, seed=child_seed(seed, "train"), **TRAIN)
            rows.append(pd.DataFrame({"K": K, "alpha": a, "rep": np.arange(replicates), "diverged": r["diverged"]}))
    t = pd.concat(rows, ignore_index=True)
    amax = t[~t.diverged].groupby(["K", "rep"]).alpha.max().unstack("K")
    diff = (amax[1] - amax[k_max]).to_numpy()
    m, _, _, se = mean_ci(diff)
    means = amax.mean()
    step = float(np.min(np.diff(np.sort(alphas))))      # a tie (no change) must not pass
    return Bound(value=m, bound=step, side=">=", ci=(m - Z4 * se, m + Z4 * se), level=LEVEL4, data=t,
                 note="mean largest stable alpha by K: " + ", ".join(f"{k}: {v:.2f}" for k, v in means.items()))


@figure(PAPER, "bias_variance_vs_alpha",
        caption="Toy proxy: bias (projection of E u - g^BP on the offset direction; left) and tr Cov u (right) of the "
                "offset-corrected update against alpha at a fixed random deep linear network, refresh period 1, "
                "B = B' = 8; markers: Monte Carlo with 95% intervals (bars); solid lines: the derived laws "
                "(1 - alpha) c and V_loc / B + alpha^2 V_off / B'",
        scales={"ci": dict(draws=2000), "full": dict(draws=20000)})
def fig_bias_variance(*, draws, seed):
    alphas = np.linspace(0.0, 2.0, 9)
    t = fixed_network_table(alphas, draws, 20, 8, 8, seed)
    grid = np.linspace(0.0, 2.0, 101)
    c, vl, vo = t.c.iloc[0], t.v_loc.iloc[0], t.v_off.iloc[0]
    fig, axes = subplots(1, 2, width=8.0)
    z = z_of(0.95)
    ax = axes[0, 0]
    ax.plot(grid, (1 - grid) * c, "-", color="C0", label="(1 - alpha) c")
    ax.errorbar(t.alpha, t.proj, yerr=z * t.proj_se, fmt="o", ms=3, color="C0", label="Monte Carlo")
    ax.set_xlabel(r"$\alpha$")
    ax.set_ylabel("bias along offset direction")
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    ax.plot(grid, vl / 8 + grid ** 2 * vo / 8, "-", color="C1", label="V_loc/B + alpha^2 V_off/B'")
    ax.errorbar(t.alpha, t.trace, yerr=z * t.trace_se, fmt="o", ms=3, color="C1", label="Monte Carlo")
    ax.set_xlabel(r"$\alpha$")
    ax.set_ylabel("tr Cov u")
    ax.legend(fontsize=7)
    return fig, t
