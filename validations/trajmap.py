"""trajmap — Singh, He, Hofmann, Schölkopf (ICLR 2025), "The Directionality of Optimization Trajectories in Neural
Networks" (earlier versions arXiv:2403.07379, "Hallmarks of Optimization Trajectories in Neural Networks"),
OpenReview JY6P45sFDS; no public code.

What was read: the abstract (Trajectory Map, directional measures; "micro-level" oscillations of consecutive updates
"with a theoretical analysis", Sec. 4.2) and a third-party summary of the sections.  Sec. 4.2's model and statement were
not read, so the oscillation checks below are our derivation on the model the abstract names (heavy ball on a quadratic,
the setting of the paper's momentum experiments), cited as derived.

Checks (f = (1/2) sum_j lambda_j theta_j^2, d = 50, lambda_j log-spaced on [1e-2, 1], eta = 1, beta = 0.9, theta_{-1} =
theta_0 ~ N(0, I); every root is complex with modulus sqrt(beta), so there is no dominant root):
* ``hb_exact_trajectory`` [derived]: the simulated updates equal Delta_t = -eta lambda theta_0 beta^{t/2}
  sin((t+1) omega) / sin omega.
* ``hb_sign_change_rate`` [derived]: coordinate j changes sign exactly floor(T omega_j / pi) times in T updates, so at
  the rate omega_j / pi within (1 + omega_j / pi) / T.
* ``hb_cosine_time_mean`` [derived]: the time mean of cos(Delta_t, Delta_{t+1}) equals the average over independent
  uniform phases.
* ``momentum_at_matched_step`` [derived]: on a small ReLU MLP, heavy-ball momentum changes the mean directional
  similarity (MDS) of the parameter trajectory map by less than 0.01 when lr / (1 - beta) is matched.
The paper's weight-decay statement (arXiv v1 abstract: momentum and weight decay together "promote directional
exploration") is not checked: on this normalisation-free MLP the sign of its effect on the MDS changed with the run
length in a pilot (lower than SGD's over 400 steps, higher over 1000), so no defensible instance was found in time.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core import Estimate, Identity, Paper, claim, experiment, figure, mean_ci
from theorylab.core.plotting import subplots
from theorylab.core.seeding import as_generator, child_seed, spawn_seeds
from theorylab.finite_sum import gaussian_mixture
from theorylab.krylov import trajectories as TR

PAPER = Paper(
    id="trajmap",
    title="The Directionality of Optimization Trajectories in Neural Networks",
    authors="Sidak Pal Singh, Bobby He, Thomas Hofmann, Bernhard Schölkopf",
    arxiv="2403.07379",
)

HB = dict(eta=1.0, beta=0.9)
D_DIM = 50
LAMS = np.logspace(-2, 0, D_DIM)            # log-spaced curvatures on [1e-2, 1]
BURN = 200                                  # the cosine's time mean starts after 200 updates
CITE = ("paper abstract and Sec. 4.2 (micro-level oscillations of consecutive updates under momentum, with a "
        "theoretical model), as summarised third-party; the heavy-ball quadratic model, its closed form, the "
        "sign-change count and the ergodic phase average are [derived] (theorylab.krylov.trajectories docstring)")
SETUP = ("heavy ball (eta = 1, beta = 0.9, theta_{-1} = theta_0 ~ N(0, I)) on f = (1/2) sum_j lambda_j theta_j^2 with d = 50 "
         "curvatures log-spaced on [1e-2, 1] (all roots complex, modulus sqrt(beta))")


@experiment(PAPER)
def hb_run(steps, seed):
    """theta_0 from ``seed``; the simulated updates and their closed form."""
    theta0 = as_generator(child_seed(seed, "theta0")).standard_normal(D_DIM)
    deltas = np.diff(TR.heavy_ball(LAMS, theta0, **HB, steps=steps + 1), axis=0)[:steps]
    exact = TR.heavy_ball_exact_updates(LAMS, theta0, **HB, steps=steps)
    return {"theta0": theta0, "deltas": deltas, "exact": exact}


@claim(PAPER, "hb_exact_trajectory", source="derived", ref="Sec. 4.2 (micro-level oscillations)", citation=CITE,
       stream="hb",
       statement="the simulated heavy-ball updates equal Delta_t = -eta lambda theta_0 beta^{t/2} sin((t+1) omega) / sin "
                 "omega, cos omega = (1 + beta - eta lambda) / (2 sqrt beta), for t < {steps}: " + SETUP +
                 "; measured: max over t, j of |Delta_sim - Delta_exact| / (beta^{t/2} max_j |Delta_0j|) (margin 1e-9)",
       scales={"ci": dict(steps=2000), "full": dict(steps=8000)})
def hb_exact_trajectory(*, steps, seed):
    """[derived] each coordinate's update obeys Delta_{t+1} = (1 + beta - eta lambda) Delta_t - beta Delta_{t-1},
    Delta_{-1} = 0, Delta_0 = -eta lambda theta_0; with roots sqrt(beta) e^{+-i omega} the solution vanishing at t = -1
    is A beta^{t/2} sin((t+1) omega), and t = 0 fixes A.  The margin 1e-9 (relative to the decaying envelope) covers
    the rounding of a stable recursion run for {steps} steps."""
    r = hb_run(steps, seed)
    env = HB["beta"] ** (np.arange(steps) / 2)[:, None] * np.abs(r["exact"][0]).max()
    err = np.abs(r["deltas"] - r["exact"]) / env
    worst_t = err.max(axis=1)
    t = pd.DataFrame({"t": np.arange(steps), "max_rel_err": worst_t})
    return Identity(discrepancy=float(err.max()), instances=int(err.size), atol=1e-9,
                    what="Delta_sim - Delta_exact (relative to the envelope)", data=t.iloc[::50],
                    note=f"largest at t = {int(worst_t.argmax())}; omega from {TR.root_angles(LAMS, **HB).min():.4f} "
                         f"to {TR.root_angles(LAMS, **HB).max():.4f}")


@claim(PAPER, "hb_sign_change_rate", source="derived", ref="Sec. 4.2 (micro-level oscillations)", citation=CITE,
       stream="hb",
       statement="each coordinate of the simulated updates changes sign exactly floor(T omega_j / pi) times over T = "
                 "{steps} updates, i.e. at the rate omega_j / pi up to (1 + omega_j / pi) / T: " + SETUP +
                 "; measured: max over j of |count_j - floor(T omega_j / pi)| (exact)",
       scales={"ci": dict(steps=2000), "full": dict(steps=8000)})
def hb_sign_change_rate(*, steps, seed):
    """[derived] Delta_tj has the sign of theta_0j sin((t+1) omega_j) (the other factors are positive or fixed), and
    0 < omega_j < pi, so a sign change between t and t+1 happens iff a multiple of pi lies in ((t+1) omega_j,
    (t+2) omega_j]; over t = 0..T-2 that counts the multiples of pi in (omega_j, T omega_j], floor(T omega_j / pi).
    (A multiple of pi hitting an endpoint exactly has probability 0 for these irrational omega_j.)"""
    r = hb_run(steps, seed)
    omega = TR.root_angles(LAMS, **HB)
    counts = TR.sign_changes(r["deltas"])
    want = np.floor(steps * omega / np.pi)
    t = pd.DataFrame({"lam": LAMS, "omega": omega, "count": counts, "floor_T_omega_over_pi": want,
                      "rate": counts / (steps - 1), "omega_over_pi": omega / np.pi})
    return Identity(discrepancy=float(np.abs(counts - want).max()), instances=D_DIM, atol=0.0,
                    what="sign changes - floor(T omega / pi)", data=t,
                    note=f"rates from {t.rate.min():.4f} (lambda = 0.01) to {t.rate.max():.4f} (lambda = 1); max "
                         f"|rate - omega/pi| = {np.abs(t.rate - t.omega_over_pi).max():.2e}")


@experiment(PAPER)
def cosine_means(steps, samples, seed):
    r = hb_run(steps, seed)
    cos = TR.consecutive_cosines(r["deltas"])[BURN:]
    omega = TR.root_angles(LAMS, **HB)
    c = HB["eta"] * LAMS * r["theta0"] / np.sin(omega)
    phase, phase_se = TR.ergodic_cosine_mean(c, omega, samples=samples, seed=child_seed(seed, "phases"))
    return {"cos": cos, "phase": phase, "phase_se": phase_se}


WINDOW = 400      # batch-means window: longer than the slowest mode's period 2 pi / omega_min = 73 updates


@claim(PAPER, "hb_cosine_time_mean", source="derived", ref="Sec. 4.2 (micro-level oscillations)", citation=CITE,
       stream="hb",
       statement="the time mean of cos(Delta_t, Delta_{t+1}) over 200 <= t < {steps} equals the average over independent "
                 "uniform phases phi_j of sum_j c_j^2 sin phi_j sin(phi_j + omega_j) / sqrt(sum_j c_j^2 sin^2 phi_j sum_j "
                 "c_j^2 sin^2(phi_j + omega_j)), c_j = eta lambda_j theta_0j / sin omega_j: " + SETUP +
                 "; measured: time mean - phase average (predicted 0; batch means over windows of 400 updates and "
                 "{samples} Monte Carlo phase vectors, no model tolerance)",
       scales={"ci": dict(steps=4000, samples=100_000), "full": dict(steps=6000, samples=400_000)})
def hb_cosine_time_mean(*, steps, samples, seed):
    """[derived] the cosine is a function of the phases (t+1) omega_j mod 2 pi (the common factor beta^{t/2} and the
    sqrt(beta) between consecutive updates cancel); for rationally independent omega_j the phases equidistribute on
    the torus (Weyl), so the time mean converges to the phase average.  Its finite-T error is estimated by batch means
    over windows of 400 updates (several periods of the slowest mode); the interval adds the Monte Carlo s.e. of the
    phase average in quadrature."""
    r = cosine_means(steps, samples, seed)
    cos = r["cos"]
    k = cos.size // WINDOW
    batches = cos[: k * WINDOW].reshape(k, WINDOW).mean(axis=1)
    se_time = float(batches.std(ddof=1) / np.sqrt(k))
    diff = float(batches.mean() - r["phase"])
    t = pd.DataFrame({"window": np.arange(k), "mean_cos": batches})
    return Estimate.from_se(diff, float(np.hypot(se_time, r["phase_se"])), 0.0, data=t, max_ci_width=0.05,
                            note=f"time mean {batches.mean():.4f} (batch-means s.e. {se_time:.1e}, {k} windows), phase "
                                 f"average {r['phase']:.4f} (s.e. {r['phase_se']:.1e}); cosine range over t "
                                 f"[{cos.min():.3f}, {cos.max():.3f}]")


@figure(PAPER, "consecutive_cosine",
        caption="Heavy ball (eta = 1, beta = 0.9) on a 50-dimensional quadratic with curvatures log-spaced on [1e-2, 1]: "
                "the cosine between consecutive updates against the step t. Markers: the simulated trajectory; solid "
                "line: the exact complex-root trajectory Delta_t = -eta lambda theta_0 beta^{t/2} sin((t+1) omega) / sin "
                "omega; dashed horizontal line: the derived time mean (the phase average). Right: sign-change rate of "
                "each coordinate against omega_j / pi (markers), with the identity line (dotted). No shading.",
        scales={"ci": dict(steps=2000), "full": dict(steps=4000)})
def fig_consecutive_cosine(*, steps, seed):
    r = hb_run(steps, seed)
    sim, exact = TR.consecutive_cosines(r["deltas"]), TR.consecutive_cosines(r["exact"])
    omega = TR.root_angles(LAMS, **HB)
    c = HB["eta"] * LAMS * r["theta0"] / np.sin(omega)
    phase, _ = TR.ergodic_cosine_mean(c, omega, samples=100_000, seed=child_seed(seed, "phases"))
    t = pd.DataFrame({"t": np.arange(sim.size), "cos_sim": sim, "cos_exact": exact, "phase_average": phase})
    fig, ax = subplots(1, 2, width=9.0)
    a = ax[0, 0]
    show = t[t.t < 300]
    a.plot(show.t, show.cos_exact, "-", color="C0", lw=0.8, label="exact trajectory")
    a.plot(show.t, show.cos_sim, "o", ms=2, color="C1", label="simulated")
    a.axhline(phase, ls="--", color="k", lw=0.8, label="phase average (time mean)")
    a.set_xlabel("step t")
    a.set_ylabel(r"cos($\Delta_t$, $\Delta_{t+1}$)")
    a.legend(fontsize=7)
    b = ax[0, 1]
    rate = TR.sign_changes(r["deltas"]) / (steps - 1)
    b.plot(omega / np.pi, rate, "o", ms=3, color="C2")
    b.plot([0, omega.max() / np.pi], [0, omega.max() / np.pi], ":", color="gray")
    b.set_xlabel(r"$\omega_j / \pi$")
    b.set_ylabel("sign-change rate of coordinate j")
    return fig, t


# ---------------------------------------------------------------- macro level: a small MLP's trajectory map
ETA_EFF = 0.5                                   # lr / (1 - beta), matched across configurations
CONFIGS = {"sgd": (ETA_EFF, 0.0, 0.0), "momentum": (ETA_EFF * 0.1, 0.9, 0.0)}
MACRO_TEXT = ("ReLU MLP (2 layers, width 32, cross-entropy) on a Gaussian mixture (n = 1000, dim 20, 10 classes), batch 50, "
              "{steps} steps; trajectory map of theta_t - theta_0 at every {every}th step (fixed-length window from the "
              "start); lr / (1 - beta) = 0.5 in both runs (SGD lr 0.5; momentum beta = 0.9, lr 0.05), no weight decay; "
              "{seeds} seeds (data, initialisation, batches), paired by seed")
MACRO_SCALES = {"ci": dict(steps=400, every=25, seeds=6), "full": dict(steps=1200, every=40, seeds=16)}
CITE_MACRO = ("paper abstract (macro-level directionality, 'weight decay and momentum play a crucial but understated "
              "role') and arXiv:2403.07379 v1 abstract ('an intertwined behaviour of momentum and weight decay that "
              "promotes directional exploration'); the matched lr / (1 - beta) comparison, the MLP instance and the "
              "margins are ours")


@experiment(PAPER)
def macro_runs(steps, every, seeds, seed):
    rows = []
    for r, rs in enumerate(spawn_seeds(seed, seeds)):
        data = gaussian_mixture(1000, 20, 10, separation=3.0, seed=child_seed(int(rs), "data"))
        for name, (lr, beta, wd) in CONFIGS.items():
            out = TR.mlp_trajectory(data, lr=lr, beta=beta, weight_decay=wd, steps=steps, every=every,
                                    seed=child_seed(int(rs), "train"))
            rows.append(dict(rep=r, config=name, lr=lr, beta=beta, weight_decay=wd, mds=out["mds"], loss=out["loss"]))
    return pd.DataFrame(rows)


def _paired(t, a, b):
    wide = t.pivot(index="rep", columns="config", values="mds")
    return (wide[a] - wide[b]).to_numpy(), wide.mean()


MATCH_MARGIN = 0.01     # stated before the run: a momentum effect below 0.01 in MDS counts as none


@claim(PAPER, "momentum_at_matched_step", source="derived", ref="Sec. 3 (macro-level directionality)",
       citation=CITE_MACRO, stream="macro", scales=MACRO_SCALES,
       statement="at matched lr / (1 - beta), heavy-ball momentum (beta = 0.9) leaves the mean directional similarity of "
                 "the trajectory map unchanged within 0.01: " + MACRO_TEXT +
                 "; measured: mean over seeds of MDS(momentum) - MDS(SGD) (predicted 0 +- 0.01, Student t over seeds)")
def momentum_at_matched_step(*, steps, every, seeds, seed):
    """[derived] with beta = 0.9 the momentum buffer averages about 1 / (1 - beta) = 10 gradients; over windows much
    longer than 10 steps (here {every}) heavy ball moves like SGD with step lr / (1 - beta) (the gradient changes little
    within 10 steps at this step size), so directional measures over such windows should agree."""
    t = macro_runs(steps, every, seeds, seed)
    d, means = _paired(t, "momentum", "sgd")
    m, lo, hi, _ = mean_ci(d)
    return Estimate(value=m, ci=(lo, hi), predicted=0.0, atol=MATCH_MARGIN, max_ci_width=4 * MATCH_MARGIN, data=t,
                    note="mean MDS: " + ", ".join(f"{k} {v:.4f}" for k, v in means.items()))
