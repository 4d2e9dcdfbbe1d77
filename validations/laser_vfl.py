"""laser_vfl — Valdeira, Wang, Chi (ICLR 2025), "Vertical Federated Learning with Missing Features During Training
and Inference", arXiv:2410.22564, OpenReview OXi1FmHGzz; code github.com/Valdeira/LASER-VFL (methods/laser.py,
models/model_utils.py).

Instance (theorylab.finite_sum.vfl): least squares, x ~ N(0, I_8) in K = 4 blocks of 2 features, y = x^T theta +
0.5 eps (n = 4000); fixed block embeddings with mean fusion and linear heads (so the objective is a quadratic, PL);
each block observed per batch with probability q; plain SGD, batch 32 with replacement, loss 1/2 (pred - y)^2.

Checks:
* ``subset_weights_exact`` [code]: under the code's sampler (one subset per head and size, weight
  C(m - 1, k - 1) / k) every non-empty subset of the observed set O has expected weight exactly 1, and a step's
  total weight is 2^|O| - 1, by exact rational enumeration over every O with |O| <= 4 (not the weight
  C(|O| - 1, |S| - 1) a reading of laser.py alone suggests: the forward pass samples the subsets).
* ``sampler_monte_carlo`` [code]: the SGD kernel's own sampler (mask per batch, then subsets): each subset's mean
  weight per batch against q^{|S|} = P(S within O) x 1.
* ``pl_floor_linear_in_step_q05`` / ``_q08`` [derived from the paper's PL result]: the stationary excess
  E F - f* is proportional to the step: log-log slope 1.
* ``decay_rate_grows_with_q`` [derived]: the linear decay rate of E F_t - f* grows with q.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pandas as pd

from theorylab.core import Bound, Estimate, Identity, Paper, Slope, claim, experiment, figure, fit_loglog, mean_ci
from theorylab.core.evidence import z_of
from theorylab.core.plotting import subplots
from theorylab.core.seeding import child_seed, spawn_seeds
from theorylab.finite_sum import vfl as V

PAPER = Paper(
    id="laser_vfl",
    title="Vertical Federated Learning with Missing Features During Training and Inference",
    authors="Pedro Valdeira, Shiqiang Wang, Yuejie Chi",
    arxiv="2410.22564",
)

DATA = dict(n=4000, block_sizes=(2, 2, 2, 2), noise=0.5, signal=1.0)
BATCH = 32
#: Stated before the runs: the finite-step correction to the floor's slope.  For a quadratic direction of curvature
#: h with additive noise the stationary excess is (eta s^2 / 4)(1 + eta h / 2 + O(eta^2)); a relative term b eta
#: moves the least-squares slope over a doubling grid of 4 steps by about 0.41 b eta_max, <= 0.41 (L / 2) 0.08
#: <= 0.02 here (L <= 1.13); multiplicative noise (mask, subsets, batch) adds a term of the same form.
SLOPE_MARGIN = 0.05
CITE_PL = ("paper abstract and Sec. 4 (PL case: linear convergence to a neighbourhood of the optimum whose size "
           "scales with the step size); the proportionality floor ~ eta and its slope-1 form are [derived] (SGD "
           "under PL with unbiased gradients: E F_t - f* <= (1 - eta mu)^t Delta_0 + O(eta)); the objective F with "
           "every subset weighted 1 is the code's expectation (theorylab.finite_sum.vfl docstring)")


@experiment(PAPER, disk=False)
def instance(seed: int) -> V.VerticalData:
    return V.vertical_regression(**DATA, seed=child_seed(seed, "data"))


@claim(PAPER, "subset_weights_exact", source="code", ref="models/model_utils.py BaseLaserModel.forward; methods/laser.py",
       citation="[code] Valdeira/LASER-VFL model_utils.py (training: for each head i in O and each size k, "
                "random.sample of one subset containing i) and laser.py train_laser (weight comb(|O|-1, |S|-1) / |S|)",
       statement="under the code's sampler every non-empty subset S of the observed blocks O has expected loss weight "
                 "exactly 1 (summed over heads), and a step's total weight is 2^|O| - 1, for every O with |O| <= "
                 "{max_observed} (exact rational enumeration)",
       scales={"ci": dict(max_observed=4), "full": dict(max_observed=4)})
def subset_weights_exact(*, max_observed, seed):
    """The code weights the sampled (i, S) by C(m-1, k-1)/k and samples S with probability 1/C(m-1, k-1), so
    E weight(i, S) = 1/k and summing over the k heads in S gives 1; total per step sum_k C(m, k) = 2^m - 1."""
    rows, worst = [], 0.0
    for m in range(1, max_observed + 1):
        w = V.expected_subset_weights(range(m))
        total = sum(w.values())
        for S, v in w.items():
            rows.append(dict(observed=m, subset=str(S), size=len(S), expected_weight=float(v),
                             spec_reading=comb(m - 1, len(S) - 1), total=float(total)))
            worst = max(worst, float(abs(v - 1)))
        worst = max(worst, float(abs(total - (2 ** m - 1))))
    t = pd.DataFrame(rows)
    return Identity(discrepancy=worst, instances=len(t), atol=0.0, what="expected subset weight - 1 (and total - "
                    "(2^m - 1))", data=t, note=f"{len(t)} (O, S) pairs; a fixed weight C(m-1, |S|-1) per subset would "
                    f"give up to {int(t.spec_reading.max())}")


@claim(PAPER, "sampler_monte_carlo", source="code", ref="models/model_utils.py BaseLaserModel.forward; methods/laser.py",
       citation="[code] as subset_weights_exact; the sampler is the one theorylab.finite_sum.laser_sgd runs "
                "(_kernels_vfl.draw_subset), with P(S within O) = q^|S| for independent blocks [derived]",
       statement="Monte Carlo of the SGD kernel's sampler (K = 4 blocks, q in {qs}, {replicates} replicates of {draws} "
                 "batches): each subset's mean weight per batch equals q^|S|; measured: the mean over subsets, q and "
                 "replicates of z_S^2, z_S = (mean weight - q^|S|) / s.e. (predicted 1, no model tolerance)",
       scales={"ci": dict(qs=(0.5, 0.8), replicates=8, draws=20_000),
               "full": dict(qs=(0.5, 0.8), replicates=24, draws=100_000)})
def sampler_monte_carlo(*, qs, replicates, draws, seed):
    """E z^2 = 1 for an unbiased mean with its standard error (up to O(1/draws)); a wrong weight moves every
    z^2 by (bias / s.e.)^2, a non-uniform choice within a size moves the z^2 of that size's subsets."""
    rows = []
    for q in qs:
        for r, rs in enumerate(spawn_seeds(child_seed(seed, "sampler", q), replicates)):
            out = V.sampler_weights(4, q, n_draws=draws, seed=int(rs))
            z = (out["mean"] - out["expected"]) / out["se"]
            rows.append(pd.DataFrame({"q": q, "replicate": r, "subset": out["subset"], "size": out["size"],
                                      "mean_weight": out["mean"], "expected": out["expected"], "z": z}))
    t = pd.concat(rows, ignore_index=True)
    t["z2"] = t.z ** 2
    per = t.groupby(["replicate"]).z2.mean().to_numpy()
    m, lo, hi, _ = mean_ci(per)
    pooled = t.groupby(["q", "subset"]).agg(mw=("mean_weight", "mean"), e=("expected", "first"))
    # inconclusive only if the interval is wide relative to the value measured (50% of it, at least 1)
    return Estimate(value=m, ci=(lo, hi), predicted=1.0, data=t, max_ci_width=max(1.0, 0.5 * m),
                    note=f"max |z| {np.abs(t.z).max():.2f} over {len(t)}; pooled mean weight / q^|S| from "
                         f"{(pooled.mw / pooled.e).min():.4f} to {(pooled.mw / pooled.e).max():.4f}")


def floor_point(q, eta, burn, window, rep_seed, data_seed):
    """Stationary excess of one seed: start at W*, run burn / (eta mu) steps, then average F - f* over the next
    window / (eta mu) steps (recorded every 20)."""
    data = instance(data_seed)
    obj = V.laser_objective(data, q)
    n_burn, n_win = int(burn / (eta * obj.mu)), int(window / (eta * obj.mu))
    Ws = V.laser_sgd(data, q, eta, n_burn + n_win, batch=BATCH, W0=obj.W_star, record_every=20, seed=rep_seed)
    ex = obj.value(Ws[n_burn // 20 + 1:]) - obj.f_star
    return float(ex.mean())


@experiment(PAPER)
def floor_table(q, etas, seeds, burn, window, seed) -> pd.DataFrame:
    rows = []
    for r, rs in enumerate(spawn_seeds(child_seed(seed, "floor", q), seeds)):
        for eta in etas:
            rows.append(dict(q=q, eta=eta, rep=r, floor=floor_point(q, eta, burn, window,
                                                                     child_seed(int(rs), "eta", eta), seed)))
    return pd.DataFrame(rows)


def _floor_claim(q, *, etas, seeds, burn, window, seed):
    t = floor_table(q, tuple(etas), seeds, burn, window, seed)
    wide = t.pivot(index="rep", columns="eta", values="floor")
    fit = fit_loglog(np.asarray(wide.columns, float), samples=wide.to_numpy(), seed=child_seed(seed, "boot", q))
    obj = V.laser_objective(instance(seed), q)
    return Slope(fit=fit, predicted=1.0, tol=SLOPE_MARGIN, data=t,
                 note=f"q = {q}: mu = {obj.mu:.4f}, L = {obj.L:.3f}; floor / eta from "
                      f"{(wide.mean() / wide.columns).min():.3f} to {(wide.mean() / wide.columns).max():.3f}")


FLOOR_SCALES = {"ci": dict(etas=(0.01, 0.02, 0.04, 0.08), seeds=8, burn=5.0, window=15.0),
                "full": dict(etas=(0.01, 0.02, 0.04, 0.08), seeds=24, burn=5.0, window=20.0)}
FLOOR_STATEMENT = ("under PL, LASER-VFL SGD from W* settles at a floor E F - f* proportional to the step: log-log "
                   "slope 1 (margin 0.05 for the O(eta^2) term) over eta in {etas}, q = {q}; K = 4 blocks of 2 "
                   "features, n = 4000, batch 32, floor = time average over {window} / (eta mu) steps after "
                   "{burn} / (eta mu), {seeds} seeds")


@claim(PAPER, "pl_floor_linear_in_step_q05", source="derived", ref="abstract; Sec. 4 (PL case)", citation=CITE_PL,
       statement=FLOOR_STATEMENT, scales={k: dict(v, q=0.5) for k, v in FLOOR_SCALES.items()})
def pl_floor_linear_in_step_q05(*, q, etas, seeds, burn, window, seed):
    """[derived] SGD on F with unbiased stochastic gradients and PL constant mu: E F_{t+1} - f* <= (1 - eta mu)
    (E F_t - f*) + eta^2 L sigma^2 / 2, so the floor is O(eta); on a quadratic it is (eta / 4) tr(Q) (1 + O(eta)),
    Q the gradient-noise covariance at W*: slope 1 up to SLOPE_MARGIN."""
    return _floor_claim(q, etas=etas, seeds=seeds, burn=burn, window=window, seed=seed)


@claim(PAPER, "pl_floor_linear_in_step_q08", source="derived", ref="abstract; Sec. 4 (PL case)", citation=CITE_PL,
       statement=FLOOR_STATEMENT, scales={k: dict(v, q=0.8) for k, v in FLOOR_SCALES.items()})
def pl_floor_linear_in_step_q08(*, q, etas, seeds, burn, window, seed):
    """[derived] as pl_floor_linear_in_step_q05, at q = 0.8."""
    return _floor_claim(q, etas=etas, seeds=seeds, burn=burn, window=window, seed=seed)


def decay_rates(qs, eta, tau, seeds, seed) -> pd.DataFrame:
    """Per seed and q: the decay rate ln(Delta_0 / mean_{[tau, 1.25 tau]} (F - f*)) / (1.125 tau) from W0 = 0,
    one SGD stream per seed shared by the values of q (paired)."""
    data = instance(seed)
    rows = []
    for r, rs in enumerate(spawn_seeds(child_seed(seed, "decay"), seeds)):
        for q in qs:
            obj = V.laser_objective(data, q)
            Ws = V.laser_sgd(data, q, eta, int(1.25 * tau), batch=BATCH, record_every=1, seed=int(rs))
            ex = obj.value(Ws) - obj.f_star
            late = ex[tau:].mean()
            rows.append(dict(rep=r, q=q, rate=float(np.log(ex[0] / late) / (1.125 * tau)), delta0=float(ex[0]),
                             excess_tau=float(late), pl_rate=float(-np.log(1 - eta * obj.mu)), mu=obj.mu))
    return pd.DataFrame(rows)


@claim(PAPER, "decay_rate_grows_with_q", source="derived", ref="abstract; Sec. 4 (PL case)", citation=CITE_PL,
       statement="the linear decay rate of F_t - f* (ln(Delta_0 / excess near step tau) / tau, tau = {tau}, from W0 = 0) "
                 "is larger at observation probability q = {q_high} than at q = {q_low}, at step {eta}, by a positive "
                 "paired difference over {seeds} seeds (K = 4 blocks of 2 features, n = 4000, batch 32)",
       scales={"ci": dict(q_low=0.5, q_high=0.8, eta=0.04, tau=300, seeds=8),
               "full": dict(q_low=0.5, q_high=0.8, eta=0.04, tau=300, seeds=40)})
def decay_rate_grows_with_q(*, q_low, q_high, eta, tau, seeds, seed):
    """[derived] F(W; q) = sum_S q^|S| / |S| sum_{i in S} L_S(w_i): every Hessian term grows with q, so H_i(q) grows
    in the PSD order and with it the PL constant mu(q) = min eigenvalue, i.e. the contraction 1 - eta mu(q) of the
    PL bound; the measured rate is the average over the transient (the excess stays above the floor at tau)."""
    t = decay_rates((q_low, q_high), eta, tau, seeds, seed)
    wide = t.pivot(index="rep", columns="q", values="rate")
    diff = (wide[q_high] - wide[q_low]).to_numpy()
    m, lo, hi, _ = mean_ci(diff)
    g = t.groupby("q")[["rate", "pl_rate", "excess_tau", "mu"]].mean()
    return Bound(value=m, bound=0.0, side=">=", ci=(lo, hi), data=t,
                 note="; ".join(f"q = {q}: rate {r.rate:.5f} (PL contraction -ln(1 - eta mu) = {r.pl_rate:.5f}, mu = "
                                f"{r.mu:.4f}), excess at tau {r.excess_tau:.3g}" for q, r in g.iterrows()))


@figure(PAPER, "loss_vs_steps",
        caption="LASER-VFL excess loss F(W_t) - f* (the code's expected objective, every subset weighted 1) against "
                "SGD steps from W0 = 0 for step sizes eta (colours) and observation probabilities q (panels), K = 4 "
                "blocks of 2 features, batch 32; solid: mean over seeds with the shaded 95% interval of the mean; "
                "dashed: the PL contraction Delta_0 (1 - eta mu)^t with mu the exact PL constant; dotted horizontal: "
                "the stationary floor measured from W* (pl_floor claims' runs, one seed); log scale",
        scales={"ci": dict(etas=(0.01, 0.04), qs=(0.5, 0.8), steps=3000, seeds=4),
                "full": dict(etas=(0.01, 0.02, 0.04, 0.08), qs=(0.3, 0.5, 0.8), steps=12000, seeds=16)})
def fig_loss_vs_steps(*, etas, qs, steps, seeds, seed):
    data = instance(seed)
    every = max(1, steps // 300)
    rows = []
    for q in qs:
        obj = V.laser_objective(data, q)
        for eta in etas:
            floor = floor_point(q, eta, 5.0, 15.0, child_seed(seed, "figfloor", q, eta), seed)
            for r, rs in enumerate(spawn_seeds(child_seed(seed, "fig", q, eta), seeds)):
                Ws = V.laser_sgd(data, q, eta, steps, batch=BATCH, record_every=every, seed=int(rs))
                ex = obj.value(Ws) - obj.f_star
                rows.append(pd.DataFrame({"q": q, "eta": eta, "rep": r, "step": np.arange(ex.size) * every,
                                          "excess": ex, "pl_line": ex[0] * (1 - eta * obj.mu) ** (np.arange(ex.size) * every),
                                          "floor": floor, "mu": obj.mu}))
    t = pd.concat(rows, ignore_index=True)
    fig, axes = subplots(1, len(qs), width=3.6)
    z = z_of(0.95)
    for a, q in enumerate(qs):
        ax = axes[0, a]
        for c, eta in enumerate(etas):
            s = t[(t.q == q) & (t.eta == eta)].groupby("step").agg(m=("excess", "mean"), sd=("excess", "std"),
                                                                  pl=("pl_line", "mean"), fl=("floor", "first"))
            se = s.sd / np.sqrt(seeds)
            ax.plot(s.index, s.m, "-", color=f"C{c}", label=f"eta = {eta}")
            ax.fill_between(s.index, np.maximum(s.m - z * se, 1e-12), s.m + z * se, color=f"C{c}", alpha=0.25)
            ax.plot(s.index, s.pl, "--", color=f"C{c}", lw=0.8)
            ax.axhline(s.fl.iloc[0], ls=":", color=f"C{c}", lw=0.8)
        ax.set_yscale("log")
        ax.set_ylim(bottom=max(1e-4, 0.2 * t[t.q == q].floor.min()))
        ax.set_title(f"q = {q}")
        ax.set_xlabel("step t")
        if a == 0:
            ax.set_ylabel(r"$F(W_t) - f^*$")
            ax.legend(fontsize=6)
    return fig, t
