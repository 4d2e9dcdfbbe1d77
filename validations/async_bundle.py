"""async_bundle — "An Asynchronous Bundle Method for Distributed Learning Problems" (ICLR 2025; authors' code
github.com/ABMOPT/ABM: the server class ParameterServerABM, src/runners/runnerABM.py, README.md).

Checks (simulator: theorylab.distributed; time is counted in simulated ticks, a worker's reply taking D >= 1
ticks drawn from a seeded delay law, the server's work taking none):
* ``master_dual_matches_qp`` [derived]: the master problem solved through its dual (accelerated projected
  gradient over a product of simplices) against an independent primal QP in cvxpy, with m >= 2 random cuts per
  worker (with m = 1 every simplex is a point and the check would be empty): duality gap <= delta,
  P(x) - P(x_ref) <= delta and |x - x_ref| <= sqrt(2 gap / L) + sqrt(2 (P(x_ref) - D) / L), margins stated
  before the run from the duality certificate (recomputed in numpy from the returned x and dual weights).
* ``model_below_sum`` [derived]: the cutting-plane model of the logistic workers never exceeds sum_i f_i and
  equals f_i at its cut points, to a stated rounding margin.
* ``model_monotone_nested`` [derived]: over nested windows (the last m cuts of one history) the model value rises
  (increment >= 0 up to a 1e-12 rounding margin) and the optimal master value rises up to the solver accuracy
  (>= -delta).
* ``converges_unknown_delays`` [third-party statement, derived instance]: the bundle method, given no delay bound,
  ends in a neighbourhood of F* under constant and geometric delays (heavy-tailed ones: see DELAY_SCALES).
* ``faster_than_piag_loose`` / ``faster_than_piag_tight`` [derived]: time to F - F* <= eps (ticks) of the bundle
  method against delay-adaptive PIAG on the same delays, at two targets.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pandas as pd

from theorylab.core import Bound, Identity, Paper, claim, experiment, figure, grid, sweep
from theorylab.core.plotting import subplots
from theorylab.core.seeding import child_seed, spawn_seeds
from theorylab.distributed import bundle as B
from theorylab.distributed import experiments as X
from theorylab.distributed import problems as PR

PAPER = Paper(id="async_bundle", title="An Asynchronous Bundle Method for Distributed Learning Problems",
              authors="Daniel Cederberg, Xuyang Wu, Stephen P. Boyd, Mikael Johansson")

DELTA = 1e-7                      # master accuracy of the authors' README runs (delta = 1e-7)
M_BUNDLE = 10                     # bundle size of the authors' README runs
#: rounding margin of the model checks, stated before the run: a cut value a + g^T x carries a relative error
#: <= (d + 2) eps_mach ~ 5e-15 of |a| + sum |g_k x_k| (O(10) here); 1e-12 leaves a factor > 10 on that bound.
ROUND = 1e-12
TARGETS = (1e-3, 1e-5)            # the two target accuracies of F(x_k) - F* (absolute; F* ~ 0.5 here)
PIAG_FACTOR = 120                 # PIAG's run length in mean delays (the bundle method's: the scale's horizon)
CITE_ALG = ("[code] ABMOPT/ABM ParameterServerABM (server: cut windows of size m with FIFO replacement, smoothness "
            "estimates after >= 3 cuts, master problem through its dual over a product of simplices, tolerance "
            "delta; README: m = 10, delta = 1e-7); the identities are [derived] in theorylab.distributed.bundle")


@claim(PAPER, "master_dual_matches_qp", source="derived", ref="Sec. 3 (master problem); ParameterServerABM",
       citation=CITE_ALG,
       statement="the master problem min_x sum_i max_j (a_ij + g_ij^T x) + (L/2)|x - zbar|^2 + l1 |x|_1 solved "
                 "through its dual agrees with an independent primal QP (cvxpy, Clarabel) on {instances} random "
                 "instances (n = 9 workers, m in {ms} random cuts each, d = 50, L in {Ls}, l1 = 0.05): duality gap "
                 "P(x) - D(lam) <= delta = 1e-7, P(x) - P(x_ref) <= delta, and |x - x_ref| <= sqrt(2 gap / L) + "
                 "sqrt(2 (P(x_ref) - D(lam)) / L) (margins from the duality certificate recomputed from the returned "
                 "x and lam, stated before the run; plus the rounding margin 1e-12)",
       scales={"ci": dict(ms=(2, 5, 10), Ls=(0.1, 1.0, 10.0), reps=1, instances=9),
               "full": dict(ms=(2, 5, 10), Ls=(0.1, 1.0, 10.0), reps=4, instances=36)})
def master_dual_matches_qp(*, ms, Ls, reps, instances, seed):
    """[derived] P is L-strongly convex, so P(x) - P* >= (L/2)|x - x*|^2; a dual point lam gives D(lam) <= P*,
    hence P(x) - P* <= gap and P(x_ref) - P* <= P(x_ref) - D(lam): the triangle inequality gives the distance
    margin; P(x) - P(x_ref) <= P(x) - P* <= gap <= delta whatever the reference's own accuracy."""
    rows = [X.master_agreement(9, m, 50, L, 0.05, DELTA, child_seed(seed, "master", m, L, r))
            for m in ms for L in Ls for r in range(reps)]
    t = pd.DataFrame(rows)
    excess = np.maximum.reduce([t.gap - DELTA - ROUND, t.value_minus_ref - DELTA - ROUND, t.dist - t.radius - ROUND])
    excess = np.where(t.converged, excess, np.inf)
    return Identity(discrepancy=float(max(0.0, excess.max())), instances=len(t), atol=0.0,
                    what="largest excess over the certified margins", data=t,
                    note=f"dist / margin up to {(t.dist / t.radius).max():.3f}; P - P_ref from "
                         f"{t.value_minus_ref.min():.2e} to {t.value_minus_ref.max():.2e}; dual iterations "
                         f"{t.iterations.min()}..{t.iterations.max()}")


@experiment(PAPER, disk=False)
def cut_history(rep_seed: int, m: int):
    return X.worker_cut_history(rep_seed, m)


@claim(PAPER, "model_below_sum", source="derived", ref="Sec. 3 (cutting-plane model)", citation=CITE_ALG,
       statement="the cutting-plane model sum_i max_j (f_i(z_ij) + g_ij^T (x - z_ij)) of the 9 logistic workers "
                 "(N = 1000, d = 20, {m} cuts each at random points around x*) is <= sum_i f_i(x) at {points} random "
                 "points and equals f_i at each of worker i's cut points, within the rounding margin 1e-12 per "
                 "point stated before the run, on {reps} instances",
       scales={"ci": dict(m=10, points=200, reps=2), "full": dict(m=10, points=2000, reps=5)})
def model_below_sum(*, m, points, reps, seed):
    """[derived] each cut is an affine minorant of the convex f_i (first-order condition) and is tight at its own
    point; a max of minorants is a minorant, tight where one of them is."""
    rows = []
    for r, rs in enumerate(spawn_seeds(seed, reps)):
        P, cuts, Z, F = cut_history(int(rs), m)
        rng = np.random.default_rng(child_seed(int(rs), "test points"))
        for k in range(points):
            x = Z[rng.integers(Z.shape[0])] + np.exp(rng.uniform(np.log(1e-3), np.log(3.0))) * rng.standard_normal(P.d)
            fsum = PR.objective(P, x) - P.l1 * np.abs(x).sum()
            rows.append(dict(rep=r, kind="random", excess=B.model_value(cuts, x) - fsum))
        off = cuts.offsets
        for i in range(P.n):
            wi = B.Cuts(cuts.G[off[i]:off[i + 1]], cuts.a[off[i]:off[i + 1]], np.array([m]))
            for j in range(off[i], off[i + 1]):
                rows.append(dict(rep=r, kind="cut point", excess=B.model_value(wi, Z[j]) - F[j]))
    t = pd.DataFrame(rows)
    rand, tight = t[t.kind == "random"].excess, t[t.kind == "cut point"].excess
    disc = max(0.0, rand.max() - ROUND, np.abs(tight).max() - ROUND)
    return Identity(discrepancy=float(disc), instances=len(t), atol=0.0,
                    what="excess over the 1e-12 margin (model - sum f_i; |model_i - f_i| at cut points)", data=t,
                    note=f"max model - sum f = {rand.max():.2e} (min {rand.min():.2e}); max |gap at cut points| = "
                         f"{np.abs(tight).max():.2e}")


@claim(PAPER, "model_monotone_nested", source="derived", ref="Sec. 3 (bundle size m)", citation=CITE_ALG,
       statement="over nested windows (the last m = 1..{m_max} cuts of each logistic worker's history) the model "
                 "value at {points} random points never decreases (increment >= -1e-12, the rounding margin stated "
                 "before the run: G x is evaluated anew for each window shape), and the optimal master "
                 "value (L = sum of the workers' smoothness bounds, zbar a random point, l1 = 1e-3, solved to gap "
                 "delta = 1e-7) never decreases by more than delta, on {reps} instances",
       scales={"ci": dict(m_max=10, points=50, reps=2), "full": dict(m_max=10, points=400, reps=5)})
def model_monotone_nested(*, m_max, points, reps, seed):
    """[derived] window(m) is a subset of window(m + 1), so the max over it is no larger (exactly in real
    arithmetic; the float product G x of a differently shaped window may round differently, ~1e-16: margin ROUND); P*_m <= P*_{m+1} and P(x_m) - P*_m <= gap_m <= delta give
    P(x_{m+1}) - P(x_m) >= -delta (tighter than the -2 delta of a two-sided reading)."""
    rows = []
    for r, rs in enumerate(spawn_seeds(seed, reps)):
        P, cuts, Z, _ = cut_history(int(rs), m_max)
        rng = np.random.default_rng(child_seed(int(rs), "monotone points"))
        X_test = Z[rng.integers(Z.shape[0], size=points)] + rng.standard_normal((points, P.d))
        zbar = Z[rng.integers(Z.shape[0])] + 0.3 * rng.standard_normal(P.d)
        L = float(PR.worker_smoothness(P).sum())
        prev_model, prev_val = None, None
        for m in range(1, m_max + 1):
            w = B.nested_window(cuts, m)
            mv = np.array([B.model_value(w, x) for x in X_test])
            sol = B.solve_master(w, zbar, L, P.l1, delta=DELTA)
            if prev_model is not None:
                rows.append(dict(rep=r, m=m, model_increment_min=float((mv - prev_model).min()),
                                 master_increment=sol.value - prev_val, converged=sol.converged))
            prev_model, prev_val = mv, sol.value
    t = pd.DataFrame(rows)
    disc = max(0.0, -t.model_increment_min.min() - ROUND, -(t.master_increment.min() + DELTA + ROUND))
    if not t.converged.all():
        disc = float("inf")
    return Identity(discrepancy=float(disc), instances=len(t), atol=0.0,
                    what="violation of increment >= -1e-12 (model) or >= -delta - 1e-12 (master value)", data=t,
                    note=f"min model increment {t.model_increment_min.min():.2e}; min master increment "
                         f"{t.master_increment.min():.2e}")


def delay_point(*, law, mean_delay, rep, horizon, seed):
    return X.delay_run(law, mean_delay, seed, m=M_BUNDLE, horizon_factor=horizon, piag_factor=PIAG_FACTOR,
                       targets=TARGETS, delta=DELTA)


@experiment(PAPER)
def delay_table(configs: tuple, reps: int, horizon: int, seed: int) -> pd.DataFrame:
    """One row per (law, mean delay, replicate): a bundle run and a PIAG run on the same instance and delays."""
    pts = [dict(law=law, mean_delay=md, rep=r, horizon=horizon) for law, md in configs for r in range(reps)]
    return sweep(delay_point, pts, seed=seed)


#: the three delay claims share one stream and one table (experiment delay_table)
#: heavy-tailed delays are left out: one delay longer than the horizon leaves a stale cut at the end of a run
#: (F - F* = 0.14 seen once in 8 runs of 20 mean delays), which is the delay bound tau entering Thm 4.5's
#: neighbourhood, not a failure to converge; the loose target at ci needs 12 replicates to be decided, and runs of
#: 22 mean delays left 3 of 20 calibration seeds above 1e-5 at the end (up to 1.5e-4): 30 at both scales.
DELAY_SCALES = {"ci": dict(configs=(("geometric", 4),), reps=12, horizon=30),
                "full": dict(configs=(("constant", 1), ("constant", 4), ("geometric", 4), ("geometric", 16)), reps=6,
                             horizon=30)}
CONFIG_TEXT = ("delay laws (law, mean delay in ticks) {configs}; {reps} replicates each (own instance and delays); "
               "l2-regularised logistic regression with l1 = 1e-3 (N = 1000, d = 20, l2 = 1e-2), 9 workers")


@claim(PAPER, "converges_unknown_delays", source="third-party", ref="Thm 4.5 (as restated in the OpenReview reviews)",
       citation="OpenReview reviews (ICLR 2025) of the paper: Thm 4.5, convergence to a neighbourhood depending on the "
                "delay bound and the master accuracy delta, with no delay bound needed by the method; the instance, "
                "the 1e-5 neighbourhood and the horizon are ours",
       statement="the bundle method (m = 10, delta = 1e-7, no delay bound supplied) has F(x_k) - F* <= 1e-5 throughout "
                 "the last fifth of a run of {horizon} mean delays, in every run: " + CONFIG_TEXT,
       stream="delays", scales=DELAY_SCALES)
def converges_unknown_delays(*, configs, reps, horizon, seed):
    t = delay_table(tuple(tuple(c) for c in configs), reps, horizon, seed)
    worst = float(t.tail_max.max())
    by = t.groupby(["law", "mean_delay"]).agg(tail_max=("tail_max", "max"), t_loose=("t_bundle_0", "mean"),
                                                unconverged=("unconverged", "sum"), updates=("updates", "sum"))
    note = "; ".join(f"{law} {md:g}: tail max {r.tail_max:.1e}, mean time to 1e-3 {r.t_loose:.0f} ticks, "
                     f"{int(r.unconverged)}/{int(r.updates)} master solves stopped before delta"
                     for (law, md), r in by.iterrows())
    return Bound(value=worst, bound=TARGETS[1], side="<=", data=t, note=note)


def _faster(configs, reps, horizon, seed, j):
    """Mean over the configurations of the mean log(T_PIAG / T_bundle) per replicate, stratified: se from the
    per-configuration sample variances; Student t interval with sum(reps - 1) degrees of freedom."""
    from scipy import stats

    t = delay_table(tuple(tuple(c) for c in configs), reps, horizon, seed)
    t = t.assign(log_ratio=np.log(t[f"t_piag_{j}"] / t[f"t_bundle_{j}"]))
    g = t.groupby(["law", "mean_delay"]).log_ratio
    means, var, cnt = g.mean(), g.var(ddof=1), g.size()
    C = len(means)
    value = float(means.mean())
    se = float(np.sqrt((var / cnt).sum()) / C)
    q = float(stats.t.ppf(0.975, int((cnt - 1).sum())))
    note = "; ".join(f"{law} {md:g}: T_bundle {t[(t.law == law) & (t.mean_delay == md)][f't_bundle_{j}'].mean():.0f}, "
                     f"T_PIAG {t[(t.law == law) & (t.mean_delay == md)][f't_piag_{j}'].mean():.0f} ticks "
                     f"(PIAG censored {int(t[(t.law == law) & (t.mean_delay == md)][f'censored_piag_{j}'].sum())})"
                     for (law, md) in means.index)
    return Bound(value=value, bound=0.0, side=">=", ci=(value - q * se, value + q * se), data=t, note=note)


FASTER_TEXT = ("time (ticks) to reach and stay at F(x_k) - F* <= {eps}: the bundle method (m = 10, delta = 1e-7) is "
               "no slower than delay-adaptive PIAG (step 1 / (L_F (tau_k + 1)), tau_k the staleness in server updates, "
               "L_F the sum of the workers' smoothness bounds) on the same delays; measured: the mean over "
               "configurations of mean log(T_PIAG / T_bundle) >= 0 (bundle runs of {horizon} mean delays, PIAG runs of 120, "
               "never-reached times censored at 120 mean delays for both, conservative against the bundle method), ")


@claim(PAPER, "faster_than_piag_loose", source="derived", ref="Sec. 5 (experiments: ABM vs delay-adaptive PIAG)",
       citation="paper Sec. 5 compares ABM with DAve-RPG and delay-adaptive PIAG (Wu et al. 2022) in wall-clock time "
                "[third-party: OpenReview reviews]; our unit is the simulated tick and our PIAG step rule is stated",
       statement=FASTER_TEXT.replace("{eps}", "1e-3") + CONFIG_TEXT,
       stream="delays", scales=DELAY_SCALES)
def faster_than_piag_loose(*, configs, reps, horizon, seed):
    return _faster(configs, reps, horizon, seed, 0)


@claim(PAPER, "faster_than_piag_tight", source="derived", ref="Sec. 5 (experiments: ABM vs delay-adaptive PIAG)",
       citation="as faster_than_piag_loose, at the tighter target (at a loose target both can tie at small delay)",
       statement=FASTER_TEXT.replace("{eps}", "1e-5") + CONFIG_TEXT,
       stream="delays", scales=DELAY_SCALES)
def faster_than_piag_tight(*, configs, reps, horizon, seed):
    return _faster(configs, reps, horizon, seed, 1)


@figure(PAPER, "suboptimality_vs_time",
        caption="F(x_k) - F* of the server's iterate against simulated time (ticks; both axes logarithmic) on one logistic "
                "instance (N = 1000, d = 20, 9 workers), geometric delays with mean 1, 4 and 16 ticks (colours): the "
                "bundle method (m = 10, delta = 1e-7; solid) and delay-adaptive PIAG on the same delays (dashed); "
                "dotted horizontal lines: the two target accuracies 1e-3 and 1e-5; no theory line (the rate of "
                "Thm 4.5 was not read); no shading (one run per curve)",
        scales={"ci": dict(mean_delays=(1, 4), horizon_factor=15), "full": dict(mean_delays=(1, 4, 16), horizon_factor=40)})
def fig_suboptimality_vs_time(*, mean_delays, horizon_factor, seed):
    rows = []
    fig, ax = subplots(1, 1, width=5.4)
    ax = ax[0, 0]
    for c, md in enumerate(mean_delays):
        (tb, vb), (tp, vp) = X.trace_pair("geometric", md, seed, m=M_BUNDLE, horizon_factor=horizon_factor, delta=DELTA)
        for name, tk, v, ls in (("bundle", tb, vb, "-"), ("piag", tp, vp, "--")):
            v = np.maximum(v, 1e-16)
            ax.plot(tk, v, ls, color=f"C{c}", lw=1, label=f"{name}, mean delay {md}")
            rows.append(pd.DataFrame({"method": name, "mean_delay": md, "tick": tk, "suboptimality": v}))
    for eps in TARGETS:
        ax.axhline(eps, ls=":", color="gray", lw=0.8)
    ax.set_yscale("log")
    ax.set_xscale("log")                  # ticks >= 1: the first point is the synchronised start
    ax.set_xlabel("simulated time (ticks)")
    ax.set_ylabel(r"$F(x_k) - F^*$")
    ax.legend(fontsize=6)
    return fig, pd.concat(rows, ignore_index=True)
