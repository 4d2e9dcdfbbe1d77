"""domsub — Song, Ahn, Yun (ICLR 2025), "Does SGD really happen in tiny subspaces?", arXiv:2405.16002,
OpenReview v6iLQBoIJw.

The paper's statements were read in its abstract and OpenReview reviews (forum v6iLQBoIJw): Dom-SGD (the update
projected on the top-k Hessian eigenspace, k = number of classes) stops decreasing the loss, Bulk-SGD (the update with
that component removed) is as effective as SGD, and at small step sizes (eta < 2 / lambda_1) the alignment of the
gradient with the dominant subspace comes from SGD's noise: switching SGD to GD removes it (Appendix D.1).  The
paper's own toy (an ill-conditioned valley with a 100 xy coupling) is replaced by a decoupled quadratic whose
alignment has a closed form; the network is a small stand-in for the paper's MNIST / CIFAR subsets.

Checks:
* ``toy_alignment_full_gradient`` [derived]: E chi^2 of the full-batch gradient on the toy at every y_t, closed form.
* ``toy_alignment_stochastic_gradient`` [derived]: E chi of the stochastic gradient (the one SGD steps along).
* ``toy_dom_bulk_dynamics`` [derived]: Dom-SGD never moves y; Bulk-SGD and SGD follow y_t = (1 - eta lambda_2)^t y_0.
* ``net_dom_sgd_stalls`` [third-party]: on a tanh MLP, Dom-SGD's loss changes by < 5% after the switch.
* ``net_bulk_sgd_matches`` [third-party]: Bulk-SGD's final loss is within 10% of SGD's.
* ``net_alignment_needs_noise`` [third-party; the factor 10 is ours]: chi^2 under SGD >= 10 chi^2 under GD.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core import Bound, Estimate, Identity, Paper, claim, experiment, figure, mean_ci
from theorylab.core.plotting import subplots
from theorylab.core.seeding import child_seed, spawn_seeds
from theorylab.finite_sum import gaussian_mixture
from theorylab.krylov import dominant as D

PAPER = Paper(
    id="domsub",
    title="Does SGD really happen in tiny subspaces?",
    authors="Minhak Song, Kwangjun Ahn, Chulhee Yun",
    arxiv="2405.16002",
)

# the toy: f = (lambda_1 x^2 + lambda_2 y^2) / 2, noise N(0, s^2) on the x-component, eta lambda_1 = 1.5 < 2
TOY = dict(lam1=100.0, lam2=1.0, eta=0.015, s=1.0, y0=10.0)
TOY_STEPS = 400                      # y_t / y_0 = 0.985^t from 1 down to 0.0024: a from 5.8 to 0.014
CITE_TOY = ("paper Sec. 3 (Dom-SGD / Bulk-SGD, alignment of the gradient with the top eigenspace) and its small-step "
            "regime (alignment caused by SGD's noise, Appendix D.1), as restated in the OpenReview reviews (forum "
            "v6iLQBoIJw); the decoupled quadratic toy, its closed form and the margins are [derived] "
            "(theorylab.krylov.dominant.toy_alignment)")
CITE_NET = ("paper abstract and Sec. 3-4 as restated in the OpenReview reviews (forum v6iLQBoIJw): Dom-SGD stops "
            "decreasing the loss, Bulk-SGD is as effective as SGD, and below eta = 2 / lambda_1 switching SGD to GD "
            "removes the alignment (Appendix D.1); the 5% / 10% thresholds and the factor 10 are ours (heuristic)")


@experiment(PAPER)
def toy_summary(paths, seed):
    """One SGD run of ``paths`` independent toy paths (x_0 stationary, y_0 fixed), reduced to what the claims and the
    figure read: y_t, the closed forms at y_t, and per path the mean over t of measured / closed form, for chi^2 of the
    full-batch gradient and chi of the stochastic gradient; per t the mean and s.d. over paths."""
    r = D.toy_run("sgd", **TOY, steps=TOY_STEPS, paths=paths, seed=seed)
    k = dict(lam1=TOY["lam1"], lam2=TOY["lam2"], eta=TOY["eta"], s=TOY["s"])
    y = r["y"][:-1, 0]                              # the chi of step t uses (x_t, y_t, xi_t), t < steps
    out = {"y": y}
    for name, measured, pred in (("full", r["chi2_full"][:-1], D.toy_alignment(y, **k)["E_chi2"]),
                                 ("stochastic", r["chi_stoch"], D.toy_alignment(y, **k, gradient="stochastic")["E_chi"])):
        out[name] = {"predicted": pred, "per_path": (measured / pred[:, None]).mean(axis=0),
                     "mean": measured.mean(1), "sd": measured.std(1, ddof=1), "paths": paths}
    return out


def _ratio_estimate(s, what):
    """Per path, the mean over t of measured_t / predicted_t has expectation exactly 1 (x_t is stationary and
    independent of the deterministic y_t); paths are i.i.d., so Student's t over paths (no model tolerance)."""
    m, lo, hi, _ = mean_ci(s["per_path"])
    z = (s["mean"] - s["predicted"]) / (s["sd"] / np.sqrt(s["paths"]))
    t = pd.DataFrame({"t": np.arange(z.size), "measured": s["mean"], "predicted": s["predicted"], "z": z})
    return Estimate(value=m, ci=(lo, hi), predicted=1.0, data=t, max_ci_width=0.2,
                    note=f"{what}: pointwise {int(np.sum(np.abs(z) <= 4))}/{z.size} steps within 4 s.e. "
                         f"(max |z| = {np.abs(z).max():.2f}); closed form from {s['predicted'][0]:.4f} at t = 0 to "
                         f"{s['predicted'][-1]:.4f}")


@claim(PAPER, "toy_alignment_full_gradient", source="derived", ref="Sec. 3; App. D.1", citation=CITE_TOY, stream="toy",
       statement="on f = (100 x^2 + y^2) / 2 with N(0, 1) noise on the x-gradient, SGD at eta = 0.015 (eta lambda_1 = "
                 "1.5), x_0 stationary, y_0 = 10, 400 steps: the mean over paths of chi_t^2 = (lambda_1 x_t)^2 / "
                 "||grad f||^2 (full-batch gradient) equals 1 - a sqrt(pi/2) e^{a^2/2} erfc(a / sqrt 2) at a = "
                 "lambda_2 |y_t| / sigma, sigma^2 = lambda_1 eta s^2 / (2 - eta lambda_1), at every t; measured: the "
                 "mean over t of measured / closed form ({paths} paths; predicted 1, no model tolerance)",
       scales={"ci": dict(paths=2000), "full": dict(paths=10000)})
def toy_alignment_full_gradient(*, paths, seed):
    """[derived] theorylab.krylov.dominant.toy_alignment's docstring: with u = lambda_1 x / sigma ~ N(0, 1) (x
    stationary: Var x = eta s^2 / (lambda_1 (2 - eta lambda_1)) solves v = (1 - eta lambda_1)^2 v + eta^2 s^2),
    chi^2 = u^2 / (u^2 + a^2) and E[1 / (u^2 + a^2)] = sqrt(pi/2) e^{a^2/2} erfc(a / sqrt 2) / a.  y_t is
    deterministic under SGD (no noise on y)."""
    return _ratio_estimate(toy_summary(paths, seed)["full"], "E chi^2 (full-batch gradient)")


@claim(PAPER, "toy_alignment_stochastic_gradient", source="derived", ref="Sec. 3; App. D.1", citation=CITE_TOY,
       stream="toy",
       statement="on the same toy and run (eta = 0.015, y_0 = 10, 400 steps): the mean over paths of chi_t = "
                 "|lambda_1 x_t + xi_t| / ||g_t|| for the stochastic gradient g_t SGD steps along equals e^{b^2/2} "
                 "erfc(b / sqrt 2) at b = lambda_2 |y_t| / sqrt(sigma^2 + s^2), at every t; measured: the mean over t of "
                 "measured / closed form ({paths} paths; predicted 1, no model tolerance)",
       scales={"ci": dict(paths=2000), "full": dict(paths=10000)})
def toy_alignment_stochastic_gradient(*, paths, seed):
    """[derived] lambda_1 x_t + xi_t ~ N(0, sigma^2 + s^2) (xi_t is drawn after x_t, independently), so E chi =
    e^{b^2/2} erfc(b / sqrt 2) by the same computation as toy_alignment's, sigma replaced by sqrt(sigma^2 + s^2)."""
    return _ratio_estimate(toy_summary(paths, seed)["stochastic"], "E chi (stochastic gradient)")


@claim(PAPER, "toy_dom_bulk_dynamics", source="derived", ref="Sec. 3 (Dom-SGD, Bulk-SGD)", citation=CITE_TOY,
       stream="toy",
       statement="on the toy (eta = 0.015, y_0 = 10, 400 steps, {paths} paths; the dominant direction from the Hessian's "
                 "top eigenvector): Dom-SGD keeps y_t = y_0, so f >= lambda_2 y_0^2 / 2 for all t, and Bulk-SGD and SGD "
                 "both give y_t = (1 - eta lambda_2)^t y_0; measured: the largest relative deviation (margin 1e-12)",
       scales={"ci": dict(paths=200), "full": dict(paths=2000)})
def toy_dom_bulk_dynamics(*, paths, seed):
    """[derived] the noise is on x only and P = e_x e_x^T, so Dom-SGD's step has no y-component, and Bulk-SGD's and
    SGD's y-components are eta lambda_2 y; the margin 1e-12 covers rounding over 400 multiplications."""
    y_star = TOY["y0"] * (1 - TOY["eta"] * TOY["lam2"]) ** np.arange(TOY_STEPS + 1)
    rows, worst = [], 0.0
    for method, want in (("dom", np.full(TOY_STEPS + 1, TOY["y0"])), ("bulk", y_star), ("sgd", y_star)):
        r = D.toy_run(method, **TOY, steps=TOY_STEPS, paths=paths, seed=seed)
        dev = float(np.max(np.abs(r["y"] - want[:, None]) / np.abs(want[:, None])))
        f_min = float((0.5 * (TOY["lam1"] * r["x"] ** 2 + TOY["lam2"] * r["y"] ** 2)).min())
        rows.append(dict(method=method, max_rel_dev=dev, min_f=f_min, y_final=float(r["y"][-1].mean())))
        worst = max(worst, dev)
    t = pd.DataFrame(rows)
    return Identity(discrepancy=worst, instances=3 * paths, atol=1e-12, what="y_t / prediction - 1", data=t,
                    note=f"Dom-SGD: min f = {t.min_f[0]:.3f} (>= {0.5 * TOY['lam2'] * TOY['y0'] ** 2:.1f}); "
                         f"Bulk-SGD / SGD y_T = {t.y_final[1]:.5f} / {t.y_final[2]:.5f}")


# ---------------------------------------------------------------- the network
NET_SCALES = {"ci": dict(n=300, width=12, switch=150, steps_after=150, seeds=6),
              "full": dict(n=500, width=16, switch=300, steps_after=300, seeds=12)}
FIG_SEEDS = {"ci": 2, "full": 4}     # the loss-curve figure draws its own (fewer) seeds
NET = dict(dim=10, classes=5, separation=3.0, lr=0.1, batch=25, refresh=10, measure_every=25)
NET_TEXT = ("two-layer tanh MLP (width {width}) with MSE on one-hot targets, Gaussian mixture (n = {n}, dim 10, 5 "
            "classes), SGD at lr 0.1 (batch 25) for {switch} steps, then SGD, Dom-SGD, Bulk-SGD (top-5 eigenspace of "
            "the exact Hessian, recomputed every 10 steps) and GD for {steps_after} steps from the same point on the same "
            "mini-batches; {seeds} seeds (data, initialisation, batches)")


def net_point(n, width, switch, steps_after, rep_seed):
    data = gaussian_mixture(n, NET["dim"], NET["classes"], separation=NET["separation"], seed=child_seed(rep_seed, "data"))
    out = D.train_switch(D.tanh_mlp(data, width), lr=NET["lr"], batch=NET["batch"], switch=switch,
                         steps_after=steps_after, refresh=NET["refresh"], measure_every=NET["measure_every"],
                         seed=child_seed(rep_seed, "train"))
    M = out["methods"]
    L0 = M["sgd"]["loss"][0]
    return {"row": dict(L_switch=L0, lam1_lr=NET["lr"] * out["eigenvalues_at_switch"][0],
                        dom_rel_change=abs(M["dom"]["loss"][-1] - L0) / L0,
                        sgd_rel_drop=(L0 - M["sgd"]["loss"][-1]) / L0,
                        bulk_over_sgd=M["bulk"]["loss"][-1] / M["sgd"]["loss"][-1],
                        chi2_sgd=M["sgd"]["chi2"][1:].mean(), chi2_gd=M["gd"]["chi2"][1:].mean()),
            "loss": {m: v["loss"] for m, v in M.items()}, "before": out["before"]}


@experiment(PAPER)
def net_runs(n, width, switch, steps_after, seeds, seed):
    """The switch experiment on ``seeds`` independent seeds: a summary row and the loss curves per seed."""
    pts = [net_point(n, width, switch, steps_after, int(s)) for s in spawn_seeds(seed, seeds)]
    t = pd.DataFrame([dict(rep=r, **p["row"]) for r, p in enumerate(pts)])
    t["log10_chi2_ratio"] = np.log10(t.chi2_sgd / t.chi2_gd)
    return {"table": t, "curves": [p["loss"] for p in pts], "before": [p["before"] for p in pts]}


def _seed_bound(t, col, bound, side, what):
    m, lo, hi, _ = mean_ci(t[col].to_numpy())
    return Bound(value=m, bound=bound, side=side, ci=(lo, hi), data=t,
                 note=f"{what}: mean {m:.4g} over {len(t)} seeds (min {t[col].min():.4g}, max {t[col].max():.4g}); "
                      f"eta lambda_1 at the switch {t.lam1_lr.min():.2f}..{t.lam1_lr.max():.2f} (< 2); SGD's own relative "
                      f"loss drop after the switch {t.sgd_rel_drop.mean():.3f}")


@claim(PAPER, "net_dom_sgd_stalls", source="third-party", ref="Sec. 3, Fig. 1 (OpenReview v6iLQBoIJw)",
       citation=CITE_NET, stream="net", scales=NET_SCALES,
       statement="Dom-SGD's loss changes by less than 5% of the loss at the switch: " + NET_TEXT +
                 "; measured: mean over seeds of |L_Dom(end) - L(switch)| / L(switch) (Student t over seeds)")
def net_dom_sgd_stalls(*, n, width, switch, steps_after, seeds, seed):
    t = net_runs(n, width, switch, steps_after, seeds, seed)["table"]
    return _seed_bound(t, "dom_rel_change", 0.05, "<=", "Dom-SGD relative loss change")


@claim(PAPER, "net_bulk_sgd_matches", source="third-party", ref="Sec. 3, Fig. 1 (OpenReview v6iLQBoIJw)",
       citation=CITE_NET, stream="net", scales=NET_SCALES,
       statement="Bulk-SGD's final loss is within 10% of SGD's: " + NET_TEXT +
                 "; measured: mean over seeds of L_Bulk(end) / L_SGD(end) <= 1.1 (Student t over seeds)")
def net_bulk_sgd_matches(*, n, width, switch, steps_after, seeds, seed):
    t = net_runs(n, width, switch, steps_after, seeds, seed)["table"]
    return _seed_bound(t, "bulk_over_sgd", 1.1, "<=", "L_Bulk / L_SGD at the end")


@claim(PAPER, "net_alignment_needs_noise", source="third-party", ref="App. D.1 (OpenReview v6iLQBoIJw)",
       citation=CITE_NET, stream="net", scales=NET_SCALES,
       statement="below eta = 2 / lambda_1 the alignment comes from SGD's noise: chi^2 = ||P grad L||^2 / ||grad L||^2 "
                 "(full-batch gradient, top-5 eigenspace) averaged over every 25th step after the switch is at least 10 "
                 "times larger under SGD than under GD from the same switch point: " + NET_TEXT +
                 "; measured: mean over seeds of log10(chi^2_SGD / chi^2_GD) >= 1 (Student t over seeds)")
def net_alignment_needs_noise(*, n, width, switch, steps_after, seeds, seed):
    t = net_runs(n, width, switch, steps_after, seeds, seed)["table"]
    return _seed_bound(t, "log10_chi2_ratio", 1.0, ">=", f"log10 chi^2 ratio (SGD chi^2 {t.chi2_sgd.mean():.3f}, "
                                                          f"GD chi^2 {t.chi2_gd.mean():.2e})")


@figure(PAPER, "toy_alignment",
        caption="Toy f = (100 x^2 + y^2) / 2 under SGD (eta = 0.015, N(0, 1) noise on the x-gradient): alignment with the "
                "dominant direction against y_t (log scale). Markers: Monte Carlo means over paths of chi^2 of the "
                "full-batch gradient (circles) and chi of the stochastic gradient (squares), with 95% intervals (bars, "
                "mostly smaller than the markers); solid and dashed lines: the derived closed forms 1 - a sqrt(pi/2) "
                "e^{a^2/2} erfc(a/sqrt 2) and e^{b^2/2} erfc(b/sqrt 2). No shading.",
        scales={"ci": dict(paths=2000), "full": dict(paths=10000)})
def fig_toy_alignment(*, paths, seed):
    r = toy_summary(paths, seed)
    f, st = r["full"], r["stochastic"]
    t = pd.DataFrame({"y": r["y"], "chi2_full": f["mean"], "chi2_full_se": f["sd"] / np.sqrt(paths),
                      "chi_stoch": st["mean"], "chi_stoch_se": st["sd"] / np.sqrt(paths),
                      "E_chi2_full": f["predicted"], "E_chi_stoch": st["predicted"]})
    fig, ax = subplots(1, 1, width=5.4)
    ax = ax[0, 0]
    sub = t.iloc[::10]
    ax.errorbar(sub.y, sub.chi2_full, yerr=1.96 * sub.chi2_full_se, fmt="o", ms=3, color="C0",
                label=r"$\chi^2$, full-batch gradient")
    ax.errorbar(sub.y, sub.chi_stoch, yerr=1.96 * sub.chi_stoch_se, fmt="s", ms=3, color="C1",
                label=r"$\chi$, stochastic gradient")
    ax.plot(t.y, t.E_chi2_full, "-", color="C0", label="closed form")
    ax.plot(t.y, t.E_chi_stoch, "--", color="C1", label="closed form")
    ax.set_xscale("log")
    ax.set_xlabel(r"$y_t$")
    ax.set_ylabel("alignment with the top eigenvector")
    ax.legend(fontsize=7)
    return fig, t


@figure(PAPER, "loss_curves",
        caption="Tanh MLP (MSE, Gaussian mixture), full-batch training loss after the switch from SGD: SGD, Dom-SGD "
                "(update projected on the top-5 Hessian eigenspace), Bulk-SGD (that component removed) and GD, from the "
                "same point on the same mini-batches. Lines: mean over seeds of the loss relative to the loss at the "
                "switch; shading: the range over seeds. No theory line (the claims' thresholds: Dom-SGD within 5% of 1, "
                "Bulk-SGD within 10% of SGD).",
        scales={scale: {**v, "seeds": FIG_SEEDS[scale]} for scale, v in NET_SCALES.items()})
def fig_loss_curves(*, n, width, switch, steps_after, seeds, seed):
    res = net_runs(n, width, switch, steps_after, seeds, seed)
    rows = []
    for r, curves in enumerate(res["curves"]):
        for m, loss in curves.items():
            rows.append(pd.DataFrame({"rep": r, "method": m, "step": np.arange(loss.size), "rel_loss": loss / loss[0]}))
    t = pd.concat(rows, ignore_index=True)
    fig, ax = subplots(1, 1, width=5.4)
    ax = ax[0, 0]
    names = {"sgd": "SGD", "dom": "Dom-SGD", "bulk": "Bulk-SGD", "gd": "GD"}
    for c, (m, label) in enumerate(names.items()):
        g = t[t.method == m].groupby("step").rel_loss
        mean, lo, hi = g.mean(), g.min(), g.max()
        ax.plot(mean.index + switch, mean, color=f"C{c}", label=label)
        ax.fill_between(mean.index + switch, lo, hi, color=f"C{c}", alpha=0.2)
    ax.set_xlabel("step")
    ax.set_ylabel("loss / loss at the switch")
    ax.legend(fontsize=7)
    return fig, t
