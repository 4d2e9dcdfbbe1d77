"""alpha_svrg — Yin, Xu, Li, Darrell, Liu (ICLR 2025), "A Coefficient Makes SVRG Effective", arXiv:2311.05589,
OpenReview twtTLZnG0B; code github.com/davidyyd/alpha-SVRG (svrg.py, engine.py, main.py).

Checks:
* ``min_variance_at_alpha_star`` [derived from the paper's Sec. 3 control-variate argument]: the Monte Carlo
  variance of the alpha-SVRG estimate at the per-coordinate alpha*_k equals (1 - rho_k^2) sigma_k^2, on a
  least-squares finite sum (n = 2000, d = 50, sparse features with scales over 10x, label noise 1), snapshot
  theta^s = 0 and theta^t after s steps of SGD (step 0.002, batch 1), s in {1, 10, 100}.  The margin is stated
  before the run: the interval of the pooled ratio (independent replicates of index draws) and no model
  tolerance, since the identity is exact in population moments and the sample variance is unbiased.
* ``svrg_beats_sgd_criterion`` [derived]: alpha = 1 has the smaller estimator variance than alpha = 0 exactly
  on the coordinates with sigma_snap < 2 rho sigma, with exact (enumerated) variances; the instance is chosen
  so that coordinates fall on both sides at s = 30 and 100 (the record's note gives the counts per s; without
  a state with both sides the claim is inconclusive).
* ``schedule_matches_code`` [code]: the coefficient schedule equals the authors' ``svrg_scheduler`` (the one
  main.py calls; not ``utils.reg_scheduler``, which is never called), value by value.
* ``alpha_star_falls_with_depth`` [paper, Sec. 3: "a deeper model has a smaller optimal coefficient"]: mean
  alpha* (the code's estimate, clamped to [-2, 2]) of a 4-layer MLP below that of softmax regression by at least
  4 seed-level standard errors.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pandas as pd

from theorylab.core import Bound, Estimate, Identity, Paper, claim, figure, mean_ci
from theorylab.core.evidence import z_of
from theorylab.core.plotting import subplots
from theorylab.core.seeding import child_seed, spawn_seeds
from theorylab.finite_sum import mlp as M
from theorylab.finite_sum import svrg as S

PAPER = Paper(
    id="alpha_svrg",
    title="A Coefficient Makes SVRG Effective",
    authors="Yida Yin, Zhiqiu Xu, Zhiyuan Li, Trevor Darrell, Zhuang Liu",
    arxiv="2311.05589",
)

# the least-squares instance (stated in every statement that uses it)
LS = dict(n=2000, d=50, noise=1.0, scale_ratio=10.0, density=0.1)
STEP, SGD_BATCH = 0.002, 1
CITE_CV = ("paper Sec. 3 (control variates: alpha* = Cov(X, Y) / Var(Y) = rho sigma_X / sigma_Y, applied per "
           "coordinate, also on the authors' project page docs/index.html); the minimum value (1 - rho^2) sigma^2 and "
           "the alpha = 1 vs alpha = 0 criterion are [derived] (theorylab.finite_sum.svrg docstring)")


def staleness_moments(staleness: int, seed: int) -> dict:
    """Per-sample gradients at the snapshot theta^s = 0 (H) and after ``staleness`` SGD steps from it (G), on the
    least-squares instance drawn from ``seed`` (the SGD path on its own child stream)."""
    P = S.least_squares(**LS, seed=child_seed(seed, "instance"))
    path = S.sgd_steps(P, np.zeros(P.d), step=STEP, n_steps=staleness, batch=SGD_BATCH,
                       seed=child_seed(seed, "sgd", staleness))
    return {"G": S.per_sample_grads(P, path[-1]), "H": S.per_sample_grads(P, path[0])}


def identity_table(stalenesses, replicates, draws, seed) -> pd.DataFrame:
    """One row per (replicate, staleness, coordinate): the Monte Carlo variance of the estimate at alpha* over
    ``draws`` index draws (its own stream per replicate) and the predicted (1 - rho^2) sigma^2."""
    rows = []
    for s in stalenesses:
        gm = staleness_moments(s, seed)
        mom = S.coordinate_moments(gm["G"], gm["H"])
        alpha = S.optimal_coefficient(gm["G"], gm["H"])
        for r, rs in enumerate(spawn_seeds(child_seed(seed, "draws", s), replicates)):
            v, se = S.mc_estimator_variance(gm["G"], gm["H"], alpha, draws=draws, seed=int(rs))
            rows.append(pd.DataFrame({"replicate": r, "staleness": s, "coord": np.arange(v.size), "var_mc": v,
                                      "var_se": se, "predicted": mom["min_variance"], "rho": mom["rho"],
                                      "alpha_star": alpha}))
    t = pd.concat(rows, ignore_index=True)
    t["ratio"] = t.var_mc / t.predicted
    return t


@claim(PAPER, "min_variance_at_alpha_star", source="derived", ref="Sec. 3 (control variates, alpha*_k)",
       citation=CITE_CV,
       statement="the per-coordinate variance of the alpha-SVRG estimate at alpha*_k = rho_k sigma_k / sigma_snap_k "
                 "equals (1 - rho_k^2) sigma_k^2: least squares n = 2000, d = 50 (sparse features, density 0.1, scales "
                 "1..10, noise 1), snapshot 0, current iterate after s in {stalenesses} SGD steps (step 0.002, batch 1); "
                 "measured: the mean over coordinates and s of Monte Carlo variance / (1 - rho^2) sigma^2 "
                 "({replicates} replicates of {draws} index draws; predicted 1, no model tolerance)",
       scales={"ci": dict(stalenesses=(1, 10, 100), replicates=10, draws=1000),
               "full": dict(stalenesses=(1, 10, 100), replicates=40, draws=5000)})
def min_variance_at_alpha_star(*, stalenesses, replicates, draws, seed):
    """[derived] Var(G - a(H - EH)) = sigma^2 - 2 a rho sigma sigma_s + a^2 sigma_s^2 is a quadratic in a with
    minimiser a* = rho sigma / sigma_s and minimum sigma^2 - rho^2 sigma^2 (substitute a*).  The Monte Carlo
    variance (ddof 1, i.i.d. index draws) is unbiased for the exact variance, so each replicate's mean ratio has
    expectation exactly 1; the interval is Student's t over independent replicates (no model tolerance)."""
    t = identity_table(stalenesses, replicates, draws, seed)
    per_rep = t.groupby("replicate").ratio.mean().to_numpy()
    m, lo, hi, _ = mean_ci(per_rep)
    pooled = t.groupby(["staleness", "coord"]).agg(var_mc=("var_mc", "mean"), predicted=("predicted", "first"),
                                                   se=("var_se", lambda x: np.sqrt((x ** 2).sum()) / x.size))
    z = ((pooled.var_mc - pooled.predicted) / pooled.se).to_numpy()
    # inconclusive only if the interval is wide relative to the ratio measured (50% of it)
    return Estimate(value=m, ci=(lo, hi), predicted=1.0, data=t, max_ci_width=0.5 * max(m, 1.0),
                    note=f"per coordinate: {int(np.sum(np.abs(z) <= 4))}/{z.size} within 4 s.e. "
                         f"(max |z| = {np.abs(z).max():.2f}); alpha* from {t.alpha_star.min():.3f} to "
                         f"{t.alpha_star.max():.3f}")


@claim(PAPER, "svrg_beats_sgd_criterion", source="derived", ref="Sec. 3 (control variates)", citation=CITE_CV,
       statement="Var(alpha = 1) < Var(alpha = 0) of the one-sample estimate (exact, enumerating all n indices) on "
                 "exactly the coordinates with sigma_snap < 2 rho sigma (population moments), on the least-squares "
                 "instance (n = 2000, d = 50, sparse features) with snapshot 0 and the current iterate after s in "
                 "{stalenesses} SGD steps (step 0.002, batch 1; the criterion does not depend on the estimate's "
                 "batch size); measured: the number of coordinates where the two disagree (at least one s must have "
                 "coordinates on both sides)",
       scales={"ci": dict(stalenesses=(1, 10, 30, 100)), "full": dict(stalenesses=(1, 10, 30, 100, 300))})
def svrg_beats_sgd_criterion(*, stalenesses, seed):
    """[derived] Var(a = 1) - Var(a = 0) = sigma_s^2 - 2 rho sigma sigma_s = sigma_s (sigma_s - 2 rho sigma), negative
    exactly when sigma_s < 2 rho sigma (sigma_s > 0).  Both sides are computed by independent paths: the variances
    by applying the estimator to every index, the criterion from the population moments."""
    rows = []
    for s in stalenesses:
        gm = staleness_moments(s, seed)
        mom = S.coordinate_moments(gm["G"], gm["H"])
        v1, v0 = S.estimator_variance(gm["G"], gm["H"], 1.0), S.estimator_variance(gm["G"], gm["H"], 0.0)
        rows.append(pd.DataFrame({"staleness": s, "coord": np.arange(v1.size), "var_alpha1": v1, "var_alpha0": v0,
                                  "criterion": mom["sigma_snap"] < 2 * mom["rho"] * mom["sigma"],
                                  "alpha1_better": v1 < v0,
                                  "margin": mom["sigma_snap"] - 2 * mom["rho"] * mom["sigma"]}))
    t = pd.concat(rows, ignore_index=True)
    mismatches = int((t.criterion != t.alpha1_better).sum())
    sides = t.groupby("staleness").criterion.agg(["sum", "size"])
    both = bool(((sides["sum"] > 0) & (sides["sum"] < sides["size"])).any())     # both sides at one state
    note = "; ".join(f"s = {s}: {int(r['sum'])}/{int(r['size'])} with sigma_snap < 2 rho sigma" for s, r in sides.iterrows())
    if not both:
        note += "; no state has coordinates on both sides of the criterion: the claim is not tested"
    return Identity(discrepancy=float(mismatches), instances=len(t) if both else 0, atol=0.0,
                    what="coordinates where the criterion and the exact variances disagree", data=t, note=note)


def reference_schedule(alpha0, epochs, niter, interval):
    """The code's schedule written as a closed form (an independent path): alpha_t =
    linspace(alpha0, 0, E P)[(t // niter) P + (t mod niter) // interval], P = ceil(niter / interval)."""
    P = -(-niter // interval)
    t = np.arange(epochs * niter)
    return np.linspace(alpha0, 0.0, epochs * P)[(t // niter) * P + (t % niter) // interval]


SCHEDULE_CASES = [(0.75, 3, 10, 1), (0.75, 3, 10, 3), (0.5, 4, 7, 7), (1.0, 2, 12, 5), (0.75, 5, 9, 4),
                  (0.5, 2, 5, 10), (1.0, 1, 100, 13)]


@claim(PAPER, "schedule_matches_code", source="code", ref="svrg.py svrg_scheduler; main.py",
       citation="[code] davidyyd/alpha-SVRG svrg.py svrg_scheduler (called by main.py with args.snapshot_pass_freq and "
                "--svrg_schedule linear; the README's commands use --coefficient 0.75): linspace(alpha0, 0, epochs * P) "
                "over the P snapshot intervals per epoch, held constant within each",
       statement="the alpha_t of theorylab.finite_sum.svrg_schedule equals linspace(alpha0, 0, E P)[(t // n) P + "
                 "(t mod n) // f] with P = ceil(n / f) (n iterations per epoch, snapshot every f iterations, E epochs) "
                 "exactly, on {n_cases} cases including f not dividing n and f >= n; it equals linspace(alpha0, 0, T) "
                 "only for f = 1",
       scales={"ci": dict(n_cases=len(SCHEDULE_CASES)), "full": dict(n_cases=len(SCHEDULE_CASES))})
def schedule_matches_code(*, n_cases, seed):
    rows, worst = [], 0.0
    for alpha0, E, n, f in SCHEDULE_CASES[:n_cases]:
        got = S.svrg_schedule(alpha0, E, n, f, "linear")
        ref = reference_schedule(alpha0, E, n, f)
        err = float(np.abs(got - ref).max()) if got.shape == ref.shape else float("inf")
        plain = np.linspace(alpha0, 0.0, E * n)
        rows.append(dict(alpha0=alpha0, epochs=E, niter=n, interval=f, max_abs_err=err,
                         equals_plain_linspace=bool(got.shape == plain.shape and np.array_equal(got, plain)),
                         last=float(got[-1]), constant_ok=bool(np.all(S.svrg_schedule(alpha0, E, n, f, "constant")
                                                                      == alpha0))))
        worst = max(worst, err, 0.0 if rows[-1]["constant_ok"] else float("inf"))
    t = pd.DataFrame(rows)
    flat = t[t.interval == 1].equals_plain_linspace.all() and not t[t.interval > 1].equals_plain_linspace.any()
    return Identity(discrepancy=worst if flat else float("inf"), instances=len(t), atol=0.0,
                    what="alpha_t - code's closed form", data=t,
                    note="equals linspace(alpha0, 0, T) exactly when f = 1 and never otherwise" if flat else
                         "linspace(alpha0, 0, T) comparison failed")


MLP = dict(n=1000, dim=20, classes=10, separation=3.0, width=32, lr=0.3, batch=50, epochs=10)


def depth_point(depth, rep_seed):
    data = M.gaussian_mixture(MLP["n"], MLP["dim"], MLP["classes"], separation=MLP["separation"],
                              seed=child_seed(rep_seed, "data"))
    out = M.train_measure_alpha(data, depth, width=MLP["width"], lr=MLP["lr"], batch=MLP["batch"],
                                epochs=MLP["epochs"], seed=child_seed(rep_seed, "train", depth))
    return dict(depth=depth, alpha_mean=out["alpha_mean"], alpha_first_layer=out["alpha_layers"][0],
                alpha_last_layer=out["alpha_layers"][-1], final_loss=out["losses"][-1])


def depth_table(depths, seeds, seed) -> pd.DataFrame:
    return pd.DataFrame([dict(rep=r, **depth_point(d, int(rs)))
                         for r, rs in enumerate(spawn_seeds(seed, seeds)) for d in depths])


Z4 = 4.0
LEVEL4 = 2 * NormalDist().cdf(Z4) - 1     # the two-sided level of +-4 s.e.


@claim(PAPER, "alpha_star_falls_with_depth", source="paper", ref="Sec. 3 (optimal coefficient vs depth)",
       citation="paper Sec. 3 and the authors' project page: 'a deeper model has a smaller optimal coefficient'; alpha* "
                "as estimated by the authors' code (svrg.py compute_optimal_coefficient, clamp [-2, 2]); the 4 s.e. "
                "margin and the synthetic instance are ours",
       statement="mean alpha* over all coordinates (the code's estimate from one epoch's mini-batch gradients, clamped to "
                 "[-2, 2]) of a {deepest}-layer ReLU MLP is below that of a 1-layer model (softmax regression) by at "
                 "least 4 seed-level standard errors: Gaussian mixture (n = 1000, dim 20, 10 classes), width 32, plain "
                 "SGD (lr 0.3, batch 50, no momentum) for 10 epochs, alpha* measured at the middle iteration of epoch 5 "
                 "against the snapshot at that epoch's start; {seeds} seeds (data and initialisation), paired by seed",
       scales={"ci": dict(depths=(1, 4), deepest=4, seeds=10), "full": dict(depths=(1, 2, 3, 4), deepest=4, seeds=24)})
def alpha_star_falls_with_depth(*, depths, deepest, seeds, seed):
    t = depth_table(depths, seeds, seed)
    wide = t.pivot(index="rep", columns="depth", values="alpha_mean")
    diff = (wide[min(depths)] - wide[deepest]).to_numpy()
    m, _, _, se = mean_ci(diff)
    means = t.groupby("depth").alpha_mean.mean()
    return Bound(value=m, bound=0.0, side=">=", ci=(m - Z4 * se, m + Z4 * se), level=LEVEL4, data=t,
                 note=f"alpha*(1) - alpha*({deepest}) = {m:.4f}, s.e. {se:.4f} ({m / se:.1f} s.e.); mean alpha* by "
                      "depth: " + ", ".join(f"{d}: {v:.3f}" for d, v in means.items()))


@figure(PAPER, "variance_vs_alpha",
        caption="Per-coordinate variance of the alpha-SVRG estimate against alpha, relative to sigma_k^2, for four "
                "coordinates of the least-squares instance after s = 100 SGD steps from the snapshot; markers: Monte "
                "Carlo over index draws with 95% intervals (bars; log scale); solid lines: the exact quadratic "
                "1 - 2 alpha rho sigma_snap / sigma + alpha^2 sigma_snap^2 / sigma^2; dashed horizontal lines: the "
                "derived minimum 1 - rho^2, attained at alpha* (open circles); dotted vertical lines at alpha = 0 (SGD) "
                "and alpha = 1 (SVRG)",
        scales={"ci": dict(staleness=100, draws=2000), "full": dict(staleness=100, draws=20000)})
def fig_variance_vs_alpha(*, staleness, draws, seed):
    gm = staleness_moments(staleness, seed)
    mom = S.coordinate_moments(gm["G"], gm["H"])
    order = np.argsort(mom["alpha_star"])
    coords = order[np.linspace(0, order.size - 1, 4).round().astype(int)]
    alphas = np.linspace(-0.5, 1.5, 11)
    rows = []
    for a in alphas:
        v, se = S.mc_estimator_variance(gm["G"], gm["H"], a, draws=draws, seed=child_seed(seed, "fig", float(a)))
        for k in coords:
            r = mom["sigma_snap"][k] / mom["sigma"][k]
            rows.append(dict(coord=int(k), alpha=float(a), var_mc=v[k] / mom["sigma"][k] ** 2,
                             se=se[k] / mom["sigma"][k] ** 2,
                             exact=1 - 2 * a * mom["rho"][k] * r + a ** 2 * r ** 2,
                             alpha_star=mom["alpha_star"][k], minimum=1 - mom["rho"][k] ** 2))
    t = pd.DataFrame(rows)
    fig, ax = subplots(1, 1, width=5.4)
    ax = ax[0, 0]
    grid = np.linspace(-0.5, 1.5, 101)
    z = z_of(0.95)
    for c, k in enumerate(coords):
        s = t[t.coord == k]
        r = mom["sigma_snap"][k] / mom["sigma"][k]
        ax.plot(grid, 1 - 2 * grid * mom["rho"][k] * r + grid ** 2 * r ** 2, "-", color=f"C{c}",
                label=f"k = {k}: rho = {mom['rho'][k]:.2f}, alpha* = {mom['alpha_star'][k]:.2f}")
        ax.errorbar(s.alpha, s.var_mc, yerr=z * s.se, fmt="o", ms=3, color=f"C{c}")
        ax.axhline(1 - mom["rho"][k] ** 2, ls="--", lw=0.8, color=f"C{c}")
        ax.plot([mom["alpha_star"][k]], [1 - mom["rho"][k] ** 2], "o", mfc="none", ms=8, color=f"C{c}")
    for a in (0.0, 1.0):
        ax.axvline(a, ls=":", color="gray", lw=0.8)
    ax.set_yscale("log")
    ax.set_xlabel(r"coefficient $\alpha$")
    ax.set_ylabel(r"Var$(g_k) / \sigma_k^2$")
    ax.legend(fontsize=6)
    return fig, t
