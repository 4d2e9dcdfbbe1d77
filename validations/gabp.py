"""gabp — Abe, Sakamoto, Ariu, Iwasaki (ICLR 2025), "Boosting Perturbed Gradient Ascent for Last-Iterate
Convergence in Games", arXiv:2410.02388 (code CyberAgentAILab/boosting-perturbed-ga).

Sources: the paper's text as read for the spec (Algorithm 1, eq. (3)-(4), Lemma 2.2, Theorems 4.1, 4.3, 5.1
with their constants) and the authors' code/configs (hyperparameters of Figure 1).  The errata stand where
they differ from the spec: APGA is nearly as fast as GABP on the random payoff game with the repository's
hyperparameters, so GABP vs APGA is compared at the final gap as well as by slope; T_sigma of Theorem 4.1
(and 4.3) is real-valued and is rounded up here.

Instances: random zero-sum payoff games with i.i.d. U[-1, 1] entries on simplices (d = 50 as in Figure 1;
d = 10 where the theorems' constants are used: L = ||A||_2, D = 2), uniform initial strategies.  Each game
(and its noise stream) is the independent unit of every bootstrap.
The experiment runners (sweep points, instances, the Figure 1 configs) live in theorylab/games/experiments.py.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from theorylab.core import Bound, Identity, Paper, RateFit, Slope, bootstrap_ci, claim, figure, fit_loglog
from theorylab.core.rates import fit_per_unit, unit_slopes
from theorylab.core.plotting import subplots
from theorylab.core.seeding import child_seed
from theorylab.core.sweep import grid, sweep
from theorylab.games import matrix_games as M
from theorylab.games.experiments import (FULL_CFG, fig1_point, lemma_b1_point, noisy_point, quiet_run,
                                         random_point, regret_point, residual_reference, thm41_games, thm41_point)
from theorylab.core.experiment import experiment

PAPER = Paper(
    id="gabp",
    title="Boosting Perturbed Gradient Ascent for Last-Iterate Convergence in Games",
    authors="Kenshi Abe, Mitsuki Sakamoto, Kaito Ariu, Atsushi Iwasaki",
    arxiv="2410.02388",
)

D = M.DIAMETER
WINDOW = (100, 1000)          # spec check 1: slope over t in [100, 1000]


# --------------------------------------------------------------------------- sweeps

@experiment(PAPER)
def fig1_sweep(methods: tuple, feedback: str, d: int, n_games: int, T: int, seed: int) -> pd.DataFrame:
    """All methods on the same games (game_seed shared; noise streams per method)."""
    gs = child_seed(seed, "gabp games", feedback) % 2**32
    return sweep(fig1_point, grid(method=list(methods), feedback=[feedback], d=[d], n_games=[n_games], T=[T],
                                  game_seed=[gs]), seed=seed, progress=False, desc="gabp Figure 1")


def _wide(df, method, column="gap"):
    """(games, times) matrix of ``column`` for one method, and the times."""
    w = df[df.method == method].pivot(index="game", columns="t", values=column)
    return w.columns.to_numpy(dtype=float), w.to_numpy()


def _game_slopes(t, G, window):
    """Per-game OLS slopes of log GAP(pi^t) against log t over the window and the last iterate T + 1 (Theorem 4.1
    bounds each game)."""
    return unit_slopes(t, G, window=(window[0], window[1] + 1))


TRIM = 0.1      # trimmed mean over games: each tail loses 10% of the games


def _trimmed(s):
    from scipy.stats import trim_mean

    return float(trim_mean(s, TRIM))


def _game_slope_fit(t, G, window, seed) -> RateFit:
    """The 10%-trimmed mean of the per-game slopes with a percentile bootstrap CI over games.  The arithmetic
    mean of the gaps is dominated by the few slowest games and its bootstrap under-covers (calibration ratio
    1.5-1.6 over 20 seeds); the plain mean of per-game slopes still has a rare outlying game (ratio 1.3-1.4);
    the trimmed mean is calibrated.  Every game's slope is kept in the claim's table."""
    return fit_per_unit(t, G, window=(window[0], window[1] + 1), statistic=_trimmed, label="games", seed=seed)


def _slope_table(t, G, window):
    s = _game_slopes(t, G, window)
    return s, (f"per-game slopes: mean {s.mean():.3f}, median {np.median(s):.3f}, {np.mean(s > -0.85):.1%} of "
               f"{s.size} games above -0.85 (max {s.max():.2f})")


# --------------------------------------------------------------------------- claims: exact ingredients

@claim(PAPER, "gap_and_residual_exact", source="derived", ref="Sec. 2", stream="exact",
       citation="[paper] Sec. 2: GAP(pi) = max_{pi~ in X} <V(pi), pi~ - pi>, r^tan(pi) = min_{a in N_X(pi)} "
                "||-V(pi) + a||; closed forms for simplices are [derived]",
       statement="on random payoff games (d1, d2 in 2..30) at interior and boundary (sparse) strategy profiles, "
                 "the closed-form gap max_i (Ay)_i - min_j (A^T x)_j equals the LP value of the definition "
                 "(scipy linprog), and the closed-form tangent residual equals a numerical minimisation over the "
                 "normal cone (scipy bounded Brent), to 1e-7",
       scales={"ci": dict(n_cases=40), "full": dict(n_cases=200)})
def gap_and_residual_exact(*, n_cases, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_cases):
        d1, d2 = rng.integers(2, 31, size=2)
        A = rng.uniform(-1, 1, size=(d1, d2))
        sparse = bool(i % 2)
        x, y = random_point(rng, d1, sparse), random_point(rng, d2, sparse)
        g_cf, g_lp = M.duality_gap(A, x, y), M.gap_lp(A, x, y)
        r_cf = M.tangent_residual(A, x, y)
        r_ref = math.hypot(residual_reference(A @ y, x), residual_reference(-A.T @ x, y))
        rows.append(dict(d1=d1, d2=d2, sparse=sparse, gap=g_cf, gap_lp=g_lp, residual=r_cf, residual_ref=r_ref))
    tab = pd.DataFrame(rows)
    disc = float(max(np.max(np.abs(tab.gap - tab.gap_lp)), np.max(np.abs(tab.residual - tab.residual_ref))))
    return Identity(discrepancy=disc, instances=2 * n_cases, atol=1e-7, what="closed form - reference", data=tab,
                    note=f"max |gap - LP| {np.max(np.abs(tab.gap - tab.gap_lp)):.2e}, max |r - ref| "
                         f"{np.max(np.abs(tab.residual - tab.residual_ref)):.2e}")


# --------------------------------------------------------------------------- claims: Figure 1 (full feedback)

F_SCALES = {"ci": dict(n_games=200, T=1000, d=50), "full": dict(n_games=400, T=1000, d=50)}
F_METHODS = ("gabp", "apga")


def _fig1(n_games, T, d, seed, methods=F_METHODS):
    return fig1_sweep(methods, "full", d, n_games, T, seed)


@claim(PAPER, "full_rate_gabp", source="code", ref="Theorem 4.1, Sec. 6, Figure 1", stream="fig1_full",
       citation="[paper] Theorem 4.1: GAP(pi^t) = O~(1/t) with full feedback; setup of Sec. 6 / Figure 1 (left) "
                "from the repository configs (eta 0.05, T_sigma 10, mu 1, T 1000, d 50); spec check 1",
       statement="GABP (Algorithm 1) on random payoff games (d = {d}, U[-1, 1], uniform start, eta = 0.05, "
                 "mu = 1, T_sigma = 10): the log-log slope of the last-iterate gap over t in [100, 1000], averaged "
                 "over games (10%-trimmed mean of per-game slopes; the theorem bounds every game), is at most "
                 "-1, up to a margin 0.15 for the logarithmic factor (spec: slope <= -0.85); bootstrap over games",
       scales=F_SCALES)
def full_rate_gabp(*, n_games, T, d, seed):
    df = _fig1(n_games, T, d, seed)
    t, G = _wide(df, "gabp")
    fit = _game_slope_fit(t, G, WINDOW, seed)
    arith = fit_loglog(t, samples=G, window=WINDOW, seed=seed)
    s, txt = _slope_table(t, G, WINDOW)
    tab = pd.DataFrame({"game": np.arange(s.size), "slope": s, "final_gap": G[:, -1]})
    return Slope(fit=fit, predicted=-1.0, tol=0.15, side="at_most", data=tab,
                 note=f"{txt}; slope of the arithmetic-mean curve {arith}; mean GAP(pi^{T + 1}) = "
                      f"{G[:, -1].mean():.3e}; eta = 0.05 lies above Theorem 4.1's range mu/(L+mu)^2 (about 0.015)")


@claim(PAPER, "full_rate_apga", source="code", ref="Sec. 1/4, Figure 1", stream="fig1_full",
       citation="[paper] Sec. 1/4: APGA's last-iterate rate O~(1/sqrt(T)) with full feedback (Abe et al. 2024); "
                "repository config of Figure 1 (eta 0.05, T_sigma 20, mu 1)",
       statement="control: APGA (eq. (3)) on the same games with the repository's hyperparameters (T_sigma = "
                 "20): the per-game slope of the gap over t in [100, 1000], averaged over games (10%-trimmed), is at most -1/2 "
                 "(its theorem's order); bootstrap over games",
       scales=F_SCALES)
def full_rate_apga(*, n_games, T, d, seed):
    df = _fig1(n_games, T, d, seed)
    t, G = _wide(df, "apga")
    fit = _game_slope_fit(t, G, WINDOW, seed)
    arith = fit_loglog(t, samples=G, window=WINDOW, seed=seed)
    s, txt = _slope_table(t, G, WINDOW)
    tab = pd.DataFrame({"game": np.arange(s.size), "slope": s, "final_gap": G[:, -1]})
    return Slope(fit=fit, predicted=-0.5, side="at_most", data=tab,
                 note=f"APGA is nearly as steep as GABP on this window (O~(1/sqrt T) is only an upper bound); {txt}; slope of "
                      f"the arithmetic-mean curve {arith}; mean GAP(pi^{T + 1}) = {G[:, -1].mean():.3e}")


@claim(PAPER, "gabp_slope_not_slower_than_apga", source="code", ref="Sec. 6, Figure 1", stream="fig1_full",
       citation="[paper] Sec. 6 / Figure 1 (left) as restated in the spec (check 1): GABP not slower than APGA; "
                "errata: APGA is nearly as fast with the repository's hyperparameters",
       statement="on the same games, the 10%-trimmed mean over games of slope(GABP) - slope(APGA) (per-game "
                 "log-log slopes of the gap over t in [100, 1000]) is at most 0.05 (spec check 1), paired bootstrap over games",
       scales=F_SCALES)
def gabp_slope_not_slower_than_apga(*, n_games, T, d, seed):
    df = _fig1(n_games, T, d, seed)
    t, Gg = _wide(df, "gabp")
    _, Ga = _wide(df, "apga")
    sg, sa = _game_slopes(t, Gg, WINDOW), _game_slopes(t, Ga, WINDOW)
    q, lo, hi = bootstrap_ci(_trimmed, sg - sa, seed=seed)
    tab = pd.DataFrame({"game": np.arange(sg.size), "slope_gabp": sg, "slope_apga": sa})
    return Bound(value=q, bound=0.05, side="<=", ci=(lo, hi), data=tab,
                 note=f"mean per-game slopes GABP {sg.mean():.3f}, APGA {sa.mean():.3f}; GABP steeper on "
                      f"{np.mean(sg < sa):.0%} of games")


def _log_ratio_final(df, a, b):
    _, Ga = _wide(df, a)
    _, Gb = _wide(df, b)
    return np.log(Ga[:, -1] / Gb[:, -1])


@claim(PAPER, "gabp_final_gap_below_apga", source="code", ref="Sec. 6, Figure 1", stream="fig1_full",
       citation="[paper] Sec. 6 / Figure 1 (left): GABP converges faster than APGA (spec check 1, read with the "
                "errata: compare at the final gap); repository hyperparameters (conf/experiment/full/random_payoff: "
                "GABP T_sigma = 10, APGA T_sigma = 20)",
       statement="on the same games at T = {T} with the repository's hyperparameters (eta = 0.05, mu = 1; GABP "
                 "T_sigma = 10, APGA T_sigma = 20), GABP's last-iterate gap is no larger than APGA's on a typical "
                 "game: the mean over games of log(GAP_GABP(pi^{T+1}) / GAP_APGA(pi^{T+1})) is <= 0 (paired "
                 "bootstrap over games); gabp_final_gap_equal_tsigma compares them at equal T_sigma",
       scales=F_SCALES, expect_reproduced=False,
       why_not="with the repository's hyperparameters (APGA's anchor period T_sigma = 20, twice GABP's) APGA's final "
               "gap is lower on most games (full scale, 400 "
               "games): mean log(GAP_GABP/GAP_APGA) = +0.176 [0.136, 0.215], i.e. GABP's gap 19% larger (CI "
               "15-24%), APGA lower on 66% of games; the arithmetic mean gap plotted in Figure 1 gives "
               "GABP/APGA = 1.02 [0.90, 1.19]: competitive, not faster, at T = 1000. Over [1e3, 1e4] GABP's "
               "slope stays near -1.1 (its O(1/k) anchor bias) while APGA converges linearly on most games and "
               "stalls on a few, which then dominate the mean. At equal T_sigma = 10 the order flips "
               "(gabp_final_gap_equal_tsigma, full scale: mean log ratio -0.628 [-0.661, -0.595], APGA lower on 4% "
               "of games, ratio of mean gaps 0.571 [0.515, 0.653]): the finding is about the repository's T_sigma")
def gabp_final_gap_below_apga(*, n_games, T, d, seed):
    return _final_gap_comparison(_fig1(n_games, T, d, seed), "apga", seed)


def _final_gap_comparison(df, apga, seed):
    lr = _log_ratio_final(df, "gabp", apga)
    q, lo, hi = bootstrap_ci(np.mean, lr, seed=seed)
    _, Gg = _wide(df, "gabp")
    _, Ga = _wide(df, apga)
    r, rlo, rhi = bootstrap_ci(lambda a, b: a.mean() / b.mean(), Gg[:, -1], Ga[:, -1], seed=seed)
    tab = pd.DataFrame({"game": np.arange(lr.size), "gap_gabp": Gg[:, -1], "gap_apga": Ga[:, -1], "log_ratio": lr})
    return Bound(value=q, bound=0.0, side="<=", ci=(lo, hi), data=tab,
                 note=f"T_sigma: GABP {FULL_CFG['gabp']['T_sigma']}, APGA {FULL_CFG[apga]['T_sigma']}; APGA lower on "
                      f"{np.mean(lr > 0):.0%} of {lr.size} games; ratio of mean gaps {r:.3f} [{rlo:.3f}, {rhi:.3f}]")


@claim(PAPER, "gabp_final_gap_equal_tsigma", source="derived", ref="Sec. 6, Figure 1", stream="fig1_full",
       citation="[paper] Sec. 6 / Figure 1 (left): GABP converges faster than APGA; [derived] the comparison at "
                "equal T_sigma = 10 (the repository runs APGA with T_sigma = 20, GABP with 10), other "
                "hyperparameters from the repository configs",
       statement="on the same games at T = {T} with equal anchor periods (eta = 0.05, mu = 1, T_sigma = 10 for both), "
                 "GABP's last-iterate gap is no larger than APGA's on a typical game: the mean over games of "
                 "log(GAP_GABP(pi^{T+1}) / GAP_APGA(pi^{T+1})) is <= 0 (paired bootstrap over games)",
       scales=F_SCALES)
def gabp_final_gap_equal_tsigma(*, n_games, T, d, seed):
    df = pd.concat([_fig1(n_games, T, d, seed), _fig1(n_games, T, d, seed, methods=("apga_tsigma10",))],
                   ignore_index=True)
    return _final_gap_comparison(df, "apga_tsigma10", seed)


# --------------------------------------------------------------------------- claims: constants of the theorems

@claim(PAPER, "theorem41_bound_holds", source="paper", ref="Theorem 4.1", stream="thm41",
       citation="[paper] Theorem 4.1 with its constants: for eta in (0, mu/(L+mu)^2), T_sigma = c max(1, 6 "
                "ln(3(T+1))/ln(1+eta mu)), GAP(pi^t) <= 17 c D^2 (6 ln(3(T+1))/ln(1+eta mu) + 1)(mu + (1+eta "
                "L)/eta)/(t-1) and r^tan the same with D, t = 2..T+1; spec check 2",
       statement="GABP on 10x10 random payoff games with L = ||A||_2, D = 2, mu = 1, eta = mu/(2(L+mu)^2), c = 1, "
                 "T = {T} and T_sigma rounded up from the theorem's real value: max over games and t in "
                 "[2, T+1] of GAP(pi^t)/bound and r^tan(pi^t)/bound is <= 1 (exact; a loose sanity bound)",
       scales={"ci": dict(n_games=4, T=2000), "full": dict(n_games=20, T=2000)})
def theorem41_bound_holds(*, n_games, T, seed):
    df = sweep(thm41_point, grid(game=list(range(n_games)), n_games=[n_games], T=[T], game_seed=[seed]),
               seed=seed, progress=False, desc="gabp Theorem 4.1")
    rg = (df.gap / df.gap_bound).max()
    rr = (df.residual / df.residual_bound).max()
    keep = np.unique(np.geomspace(2, T + 1, 25).astype(int))          # log-spaced t per game for the table
    tab = df[df.t.isin(keep)].assign(gap_ratio=lambda x: x.gap / x.gap_bound,
                                      residual_ratio=lambda x: x.residual / x.residual_bound)
    return Bound(value=float(max(rg, rr)), bound=1.0, side="<=", data=tab,
                 note=f"max gap/bound {rg:.2e}, max r/bound {rr:.2e}; T_sigma {df.T_sigma.min()}-{df.T_sigma.max()} "
                      f"(real {df.T_sigma_real.min():.1f}-{df.T_sigma_real.max():.1f}, rounded up): "
                      f"{int((df.groupby('game').T_sigma.first() < T).sum())} of {n_games} games re-anchor within T")


@claim(PAPER, "lemma_b1_contraction", source="paper", ref="Lemma B.1, Theorem 4.1", stream="thm41",
       citation="[paper] Lemma B.1, eq. (6) (proof of Theorem 4.1): ||pi^{mu,sigma^k} - pi^t||^2 <= (1 + eta "
                "mu)^{-(t - (k-1)T_sigma - 1)} ||pi^{mu,sigma^k} - sigma^k||^2, pi^{mu,sigma^k} the stationary "
                "point of the mu-perturbed game with GABP's anchor (k sigma^k + sigma^1)/(k+1)",
       statement="GABP (full feedback, 10x10 random payoff games, mu = 1, eta = mu/(2(L+mu)^2), T_sigma = {T_sigma}, "
                 "T = {T}: T / T_sigma anchors) against the perturbed stationary points computed to 1e-13: the ratio of "
                 "the two sides of eq. (6), maximised over every t after the first of each period, over periods "
                 "and games, is <= 1 (exact; the first step's ratio is about 1 - eta mu, so the check is tight)",
       scales={"ci": dict(n_games=2, T=2000, T_sigma=200), "full": dict(n_games=20, T=2000, T_sigma=200)})
def lemma_b1_contraction(*, n_games, T, T_sigma, seed):
    df = sweep(lemma_b1_point, grid(game=list(range(n_games)), n_games=[n_games], T=[T], T_sigma=[T_sigma],
                                    game_seed=[seed]), seed=seed, progress=False, desc="gabp Lemma B.1")
    return Bound(value=float(df.max_ratio.max()), bound=1.0, side="<=", data=df,
                 note=f"{len(df)} periods; ratio range {df.max_ratio.min():.4f}-{df.max_ratio.max():.4f}")


@claim(PAPER, "lemma22_gap_le_D_residual", source="paper", ref="Lemma 2.2", stream="thm41",
       citation="[paper] Lemma 2.2 (Cai et al. 2022a): GAP(pi) <= D r^tan(pi)",
       statement="along GABP runs (full and noisy feedback, 10x10 random payoff games, D = 2) the exactly "
                 "computed gap and tangent residual satisfy GAP(pi^t) <= D r^tan(pi^t) at every recorded t: "
                 "max ratio <= 1 (exact)",
       scales={"ci": dict(n_games=8, T=2000), "full": dict(n_games=40, T=5000)})
def lemma22_gap_le_D_residual(*, n_games, T, seed):
    A = thm41_games(n_games, seed)
    rows = []
    for fb in M.FEEDBACKS:
        r = quiet_run(A, "gabp", eta=0.05, mu=1.0, T_sigma=10, T=T, feedback=fb, noise_std=0.1, seed=seed)
        ratio = r.gap / np.maximum(D * r.residual, 1e-300)
        rows.append(pd.DataFrame({"feedback": fb, "game": np.arange(n_games), "max_ratio": ratio.max(1),
                                  "min_residual": r.residual.min(1)}))
    tab = pd.concat(rows, ignore_index=True)
    return Bound(value=float(tab.max_ratio.max()), bound=1.0, side="<=", data=tab,
                 note=f"{2 * n_games * (T + 1)} profiles")


# --------------------------------------------------------------------------- claims: noisy feedback

N_SCALES = {"ci": dict(Ts=(300, 1000, 3000, 10000), n_games=12, d=10),
            "full": dict(Ts=(1000, 3000, 10000, 30000, 100000), n_games=40, d=10)}


@claim(PAPER, "noisy_rate_gabp", source="paper", ref="Theorem 4.3", stream="noisy",
       citation="[paper] Theorem 4.3: E[GAP(pi^{T+1})] = O~(T^{-1/7}) with T_sigma = c max(T^{6/7}, 1), eta_t = "
                "1/(kappa(t - T_sigma(k(t)-1)) + 2 theta), kappa = mu/2, theta = (3mu^2 + 8L^2)/(2mu); spec check 3",
       statement="GABP with noisy feedback (N(0, 0.1^2 I) added to each player's gradient) on random payoff games "
                 "(d = {d}, mu = 1, c = 1, T_sigma rounded up), each game with its own L = ||A||_2 and noise: the log-log slope "
                 "of E[GAP(pi^{T+1})] against T is at most -1/7 + 0.05 (one-sided; bootstrap over games)",
       scales=N_SCALES)
def noisy_rate_gabp(*, Ts, n_games, d, seed):
    # games are the bootstrap's units, so noisy_point runs each game with its own L: one batched run gave all games
    # the schedule of the batch's largest ||A||_2, a shared factor (calibration ratio 1.50 at seeds 1..20; now 1.05)
    gs = child_seed(seed, "noisy games") % 2**32
    df = sweep(noisy_point, grid(T=list(Ts), n_games=[n_games], d=[d], game_seed=[gs]), seed=seed,
               progress=False, desc="gabp noisy T")
    w = df.pivot(index="game", columns="T", values="gap")
    fit = fit_loglog(w.columns.to_numpy(dtype=float), samples=w.to_numpy(), seed=seed)
    tab = df.groupby("T").agg(mean_gap=("gap", "mean"), T_sigma=("T_sigma", "first")).reset_index()
    return Slope(fit=fit, predicted=-1 / 7, tol=0.05, side="at_most", data=tab,
                 note="T_sigma = ceil(T^{6/7}): " + ", ".join(f"{a}:{b}" for a, b in zip(tab["T"], tab.T_sigma)))


# --------------------------------------------------------------------------- claims: dynamic regret

R_SCALES = {"ci": dict(Ts=(30000, 100000, 300000), n_games=6, d=10),
            "full": dict(Ts=(10000, 30000, 100000, 300000, 1000000), n_games=20, d=10)}


@experiment(PAPER)
def regret_sweep(Ts, n_games, d, seed):
    gs = child_seed(seed, "regret games") % 2**32
    return sweep(regret_point, grid(T=list(Ts), game=list(range(n_games)), n_games=[n_games], d=[d],
                                    game_seed=[gs]), seed=seed, progress=False, desc="gabp dynamic regret")


@claim(PAPER, "dynamic_regret_log2", source="paper", ref="Theorem 5.1, Theorem 4.1", stream="regret",
       citation="[paper] Theorem 5.1: DynamicReg_i(T) = O((ln T)^2) under Theorem 4.1's setup; spec check 4",
       statement="GABP with full feedback on 10x10 random payoff games in Theorem 4.1's setup (mu = L = ||A||_2, "
                 "eta = mu/(2(L+mu)^2), c = 1, T_sigma rounded up): the log-log slope of max_i DynamicReg_i(T)/"
                 "(ln T)^2 against T over the largest decade of the grid (T in [{window[0]:.0e}, {window[1]:.0e}]) is at most 0.1 (spec "
                 "check 4; bootstrap over games). [derived] If DynReg ~ a ln(3T) ln(T/T_sigma) (gap ~ T_sigma/t "
                 "after the first anchors), this local slope is itself about 0.1 at T = 1e5 and falls only like "
                 "1/ln T, so the spec's threshold is met narrowly: a regret growing like T^alpha fails it",
       scales={"ci": dict(**R_SCALES["ci"], window=(30000, 300000)),
               "full": dict(**R_SCALES["full"], window=(100000, 1000000))})
def dynamic_regret_log2(*, Ts, n_games, d, window, seed):
    df = regret_sweep(tuple(Ts), n_games, d, seed)
    df = df.assign(ratio=np.maximum(df.dynreg_x, df.dynreg_y) / np.log(df["T"]) ** 2)
    w = df.pivot(index="game", columns="T", values="ratio")
    fit = fit_loglog(w.columns.to_numpy(dtype=float), samples=w.to_numpy(), window=tuple(window), seed=seed)
    tab = df.groupby("T").agg(ratio=("ratio", "mean"), T_sigma=("T_sigma", "first")).reset_index()
    return Slope(fit=fit, predicted=0.0, tol=0.1, side="at_most", data=tab,
                 note="mean DynReg/(ln T)^2 by T: " + ", ".join(f"{a}:{b:.2f}" for a, b in zip(tab["T"], tab.ratio)))


@claim(PAPER, "dynamic_regret_below_summed_bound", source="derived", ref="Theorem 4.1, Theorem 5.1", stream="regret",
       citation="[derived] Theorem 4.1 summed over t: DynamicReg_i(T) <= sum_t GAP(pi^t) <= GAP(pi^1) + B D^2 "
                "H_{T-1}, B = 17c(6 ln(3(T+1))/ln(1+eta mu) + 1)(mu + (1+eta L)/eta): an explicit (ln T)^2 bound "
                "behind Theorem 5.1",
       statement="in the setup of dynamic_regret_log2, each player's dynamic regret is at most the summed "
                 "Theorem 4.1 bound at every T of the grid: max ratio <= 1 (exact)",
       scales={"ci": dict(**R_SCALES["ci"]), "full": dict(**R_SCALES["full"])})
def dynamic_regret_below_summed_bound(*, Ts, n_games, d, seed):
    df = regret_sweep(tuple(Ts), n_games, d, seed)
    ratio = np.maximum(df.dynreg_x, df.dynreg_y) / df.bound
    return Bound(value=float(ratio.max()), bound=1.0, side="<=", data=df.assign(ratio=ratio),
                 note=f"max DynReg/bound {ratio.max():.2e}")


# --------------------------------------------------------------------------- figure

FIG_SCALES = {"ci": dict(n_games=4, T_full=300, T_noisy=500, d=20),
              "full": dict(n_games=50, T_full=1000, T_noisy=10000, d=50)}


@figure(PAPER, "gap_vs_t",
        caption="Figure 1 (left) setup: mean last-iterate gap (shaded: standard error over random payoff games, "
                "d = 50) of GABP, APGA and OGA with full feedback (T = 1000, eta = 0.05) and noisy feedback "
                "(N(0, 0.1^2), T = 10^4, eta = 0.001) with the repository's hyperparameters; dotted: the theorems' "
                "orders t^-1 (Thm 4.1) and t^-1/7 (Thm 4.3); dashed: APGA's t^-1/2. At ci scale: 4 games, d = 20, "
                "T = 300 / 500",
        scales=FIG_SCALES)
def gap_vs_t(*, n_games, T_full, T_noisy, d, seed):
    fig, ax = subplots(1, 2, width=5.0, height=3.8)
    parts = []
    for j, (fb, T) in enumerate((("full", T_full), ("noisy", T_noisy))):
        df = fig1_sweep(("gabp", "apga", "oga"), fb, d, n_games, T, seed)
        a = ax[0, j]
        for i, m in enumerate(("gabp", "apga", "oga")):
            t, G = _wide(df, m)
            mean, se = G.mean(0), G.std(0, ddof=1) / np.sqrt(G.shape[0])
            a.loglog(t, mean, color=f"C{i}", label=m.upper())
            a.fill_between(t, np.maximum(mean - se, 1e-12), mean + se, color=f"C{i}", alpha=0.25)
            parts.append(pd.DataFrame({"feedback": fb, "method": m, "t": t, "mean_gap": mean, "se": se}))
        t0 = float(T) / 10
        g0 = parts[-3].mean_gap.iloc[np.searchsorted(parts[-3].t.to_numpy(), t0)]
        tt = np.geomspace(t0, T, 10)
        guides = ([(-1.0, ":", "t^-1 (Thm 4.1)"), (-0.5, "--", "t^-1/2 (APGA)")] if fb == "full"
                  else [(-1 / 7, ":", "t^-1/7 (Thm 4.3)")])
        for p, style, label in guides:
            a.loglog(tt, g0 * (tt / t0) ** p, "k" + style, lw=1, label=label)
        a.set_xlabel("t")
        a.set_ylabel(r"GAP($\pi^t$)")
        a.set_title(f"{fb} feedback")
        a.legend(fontsize=7)
    return fig, pd.concat(parts, ignore_index=True)
