"""rank_attn — Amsel, Yehudai, Bruna (ICLR 2025), "On the Benefits of Rank in Attention Layers", arXiv:2407.16153.

Only the abstract (and third-party notes restating it) was read; the paper's exact target function, its
lower-bound theorem (the exponent) and its depth construction were not.  Tags in the citations: [paper] the
abstract's statement, [derived] our own formalisation and proofs (in the docstring of
theorylab.exact.attention).  Target: t(q, X) = x_{i*}, i* = argmax_j q.x_j, on unit-norm q, x_j.

What is checked:

* full rank, exact: the head W_QK = beta I, V = I has |z - t| <= 2 sum_{j != i*} e^{-beta(q.x_{i*} - q.x_j)}
  <= 2 (N - 1) e^{-beta Delta} on random instances (d = 16, N = 8, beta in {1, 4, 16, 64});
* full rank at any context length: with beta = log(2 (N - 1)/1e-12)/Delta the error is <= 1e-12 for
  N in {2, 8, 64, 512} (the abstract's "any context length", through the derived bound);
* the large-beta rate: d log|z - t| / d beta = -Delta within 5% for beta Delta >= 200 (derived);
* low rank (trend, B): H rank-1 heads fitted by L-BFGS (scipy) to the N = 2 target, d in {4, 6, 8}:
  (a) with H < d their test MSE respects the derived reflection lower bound; (b) at every fixed H the
  fitted error grows with d (d = 8 against d = 4); (c) no rank-1 fit with H <= 8 heads reaches the error
  1e-3 of one full-rank head (beta = 1000).  The fits are an optimiser's upper bound on the best rank-1
  error, so (b) and (c) are trends at CPU scale; the exponential rate is not assertable (spec).
  The spec's 20 restarts and H = 16 are reduced to 2 restarts, H <= 8 and 150 L-BFGS iterations (n_train = 800)
  to keep full scale under 3 min; the independent unit of the CIs is the replicate (8 independent fits).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core import Bound, Paper, claim, figure, mean_ci
from theorylab.core.seeding import child_seed
from theorylab.core.plotting import subplots
from theorylab.core.sweep import grid, sweep
from theorylab.exact import attention as A
from theorylab.core.experiment import experiment

PAPER = Paper(
    id="rank_attn",
    title="On the Benefits of Rank in Attention Layers",
    authors="Noah Amsel, Gilad Yehudai, Joan Bruna",
    arxiv="2407.16153",
)

BETAS = (1.0, 4.0, 16.0, 64.0)      # spec, check 1
EPS_REP = 1e-12                     # "represents the target": error <= 1e-12
SLOPE_REGIME = 200.0                # large-beta regime: beta Delta >= 200 (derived, see slope claim)
BETA_FULL = 1000.0                  # the full-rank head of the low-rank comparison
FULL_TARGET = 1e-3                  # spec: one full-rank head reaches <= 1e-3


# --------------------------------------------------------------------------- full rank (exact)

def _instances(d, N, n, seed):
    return A.random_instances(d, N, n, seed=seed)


def bound_table(*, d, N, n, seed) -> pd.DataFrame:
    q, X = _instances(d, N, n, seed)
    rows = []
    for beta in BETAS:
        err = A.full_rank_error(q, X, beta)
        tight, coarse = A.full_rank_bound(q, X, beta)
        rows.append(dict(beta=beta, max_err=err.max(), max_ratio_tight=float(np.max(err / tight)),
                         max_ratio_coarse=float(np.max(err / coarse)), max_tight_over_coarse=float(np.max(tight / coarse)),
                         median_err=float(np.median(err))))
    return pd.DataFrame(rows)


FULL_SCALES = {"ci": dict(d=16, N=8, n=200), "full": dict(d=16, N=8, n=20000)}


@claim(PAPER, "full_rank_bound", source="derived", ref="",
       citation="[derived] theorylab.exact.attention (module docstring): |z - x_{i*}| <= 2 sum_{j != i*} "
                "exp(-beta(q.x_{i*} - q.x_j)) <= 2 (N - 1) exp(-beta Delta) for W_QK = beta I, V = I",
       statement="on random unit-norm instances (d = {d}, N = {N}), for beta in {1, 4, 16, 64}, the full-rank head's "
                 "error is at most both bounds (value: max over instances and beta of error / bound, exact; <= 1)",
       scales=FULL_SCALES)
def full_rank_bound(*, d, N, n, seed):
    t = bound_table(d=d, N=N, n=n, seed=seed)
    v = float(max(t.max_ratio_tight.max(), t.max_ratio_coarse.max()))
    return Bound(value=v, bound=1.0, side="<=", data=t,
                 note=f"max tight/coarse = {t.max_tight_over_coarse.max():.3f} (the tight bound is the smaller)")


def represent_point(*, d, N, n, seed):
    q, X = _instances(d, N, n, seed)
    delta = A.score_gap(q, X)
    beta = A.beta_for_error(EPS_REP, N, delta)
    err = np.array([A.full_rank_error(q[i:i + 1], X[i:i + 1], b)[0] for i, b in enumerate(beta)])
    return dict(d=d, N=N, n=n, max_err=float(err.max()), median_beta=float(np.median(beta)),
                max_beta=float(beta.max()), min_delta=float(delta.min()))


REP_SCALES = {"ci": dict(d=16, Ns=(2, 8, 64), n=50), "full": dict(d=16, Ns=(2, 8, 64, 512), n=1000)}


@claim(PAPER, "full_rank_any_context", source="derived", ref="abstract",
       citation="[paper] abstract: a natural target is represented by a single full-rank head at any context "
                "length; [derived] beta = log(2 (N - 1)/eps)/Delta from the bound of theorylab.exact.attention",
       statement="one full-rank head (W_QK = beta I, V = I) with beta = log(2 (N - 1)/1e-12)/Delta represents the "
                 "nearest-neighbour target to 1e-12 for every context length N in {Ns} (d = {d}; value: "
                 "max error over instances and N, exact; <= 1e-12)",
       scales=REP_SCALES)
def full_rank_any_context(*, d, Ns, n, seed):
    t = sweep(represent_point, grid(d=[d], N=list(Ns), n=[n]), seed=seed, progress=False, desc="rank_attn N")
    return Bound(value=float(t.max_err.max()), bound=EPS_REP, side="<=", data=t)


SLOPE_SCALES = {"ci": dict(d=16, N=8, n=200), "full": dict(d=16, N=8, n=5000)}


@claim(PAPER, "full_rank_rate", source="derived", ref="",
       citation="[derived] theorylab.exact.attention: the error is sum_j p_j (x_j - x_{i*}), p_j ~ e^{-beta gap_j}, "
                "so d log(error)/d beta -> -Delta; for beta Delta >= 200 the correction is below 5% (the "
                "second gap's term is at most x e^{-200 x} (N - 2) |x_j - x_{i*}|/|x_2 - x_{i*}| relative)",
       statement="spec check 1: the log error of the full-rank head against beta has slope -Delta within 5% in "
                 "the large-beta regime (between beta = 200/Delta and 400/Delta; value: max over instances of "
                 "|slope/(-Delta) - 1|, exact; <= 0.05)",
       scales=SLOPE_SCALES)
def full_rank_rate(*, d, N, n, seed):
    q, X = _instances(d, N, n, seed)
    delta = A.score_gap(q, X)
    slope = np.array([A.log_error_slope(q[i:i + 1], X[i:i + 1], SLOPE_REGIME / g, 2 * SLOPE_REGIME / g)[0]
                      for i, g in enumerate(delta)])
    rel = np.abs(slope / -delta - 1.0)
    t = pd.DataFrame({"delta": delta, "slope": slope, "rel_dev": rel})
    return Bound(value=float(rel.max()), bound=0.05, side="<=", data=t.describe().reset_index(),
                 note=f"median relative deviation {np.median(rel):.2e}")


# --------------------------------------------------------------------------- low rank (fitted, trend)

def fit_point(*, d, H, rep, n_train, n_test, restarts, maxiter, seed) -> dict:
    """One replicate: fit H rank-1 heads (N = 2) and evaluate, on the fit's own fresh test set, the test MSE and
    the derived reflection lower bound E|t(q) - t(Rq)|^2/4 (valid when H < d)."""
    fit = A.fit_low_rank(d=d, N=2, H=H, r=1, n_train=n_train, n_test=n_test, restarts=restarts, maxiter=maxiter,
                         return_model=True, seed=seed)
    q, X = A.random_instances(d, 2, n_test, seed=child_seed(seed, "test"))
    t = A.nearest_neighbour_target(q, X)
    mse = float(np.mean(np.sum((A.multihead_attention(q, X, fit["Q"], fit["K"], fit["V"]) - t) ** 2, axis=1)))
    qr = q.copy()
    qr[:, 0] *= -1.0
    lb = float(np.mean(np.sum((t - A.nearest_neighbour_target(qr, X)) ** 2, axis=1)) / 4)
    full = float(np.mean(np.sum((A.full_rank_head(q, X, BETA_FULL) - t) ** 2, axis=1)))
    return dict(d=d, H=H, rep=rep, train_mse=fit["train_mse"], test_mse=mse, lower_bound=lb, full_rank_mse=full,
                iters=fit["best_iters"])


@experiment(PAPER)
def fit_sweep(dims, heads, reps, n_train, n_test, restarts, maxiter, seed):
    pts = grid(rep=list(range(reps)), d=list(dims), H=list(heads), n_train=[n_train], n_test=[n_test],
               restarts=[restarts], maxiter=[maxiter])
    return sweep(fit_point, pts, seed=seed, progress=False, desc="rank_attn fits")


FIT_SCALES = {"ci": dict(dims=(4, 8), heads=(1, 2), reps=8, n_train=150, n_test=400, restarts=1, maxiter=40),
              "full": dict(dims=(4, 6, 8), heads=(1, 2, 4, 8), reps=8, n_train=800, n_test=1000, restarts=2,
                           maxiter=150)}


def _per_rep(df, stat):
    """stat(one replicate's rows) per replicate, and the t-interval of its mean over the replicates."""
    vals = np.array([stat(g) for _, g in df.groupby("rep")])
    m, lo, hi, _ = mean_ci(vals)
    return vals, m, lo, hi


def _cells(df):
    return df.groupby(["d", "H"])[["train_mse", "test_mse", "lower_bound", "full_rank_mse"]].mean().reset_index()


@claim(PAPER, "rank1_lower_bound", source="derived", ref="", stream="fit",
       citation="[derived] theorylab.exact.attention.subspace_lower_bound: H heads of rank r with H r < d cannot "
                "tell q from its reflection across a direction orthogonal to all Q_h, so MSE >= E|t(q) - t(Rq)|^2/4",
       statement="fitted rank-1 heads with H < d (H in {heads}, N = 2, d in {dims}) have test MSE at least the reflection lower "
                 "bound (value: mean over independent replicates of min over cells (d, H < d) of MSE - bound; >= 0)",
       scales=FIT_SCALES)
def rank1_lower_bound(*, dims, heads, reps, n_train, n_test, restarts, maxiter, seed):
    df = fit_sweep(tuple(dims), tuple(heads), reps, n_train, n_test, restarts, maxiter, seed)
    sub = df[df.H < df.d]
    _, m, lo, hi = _per_rep(sub, lambda g: float((g.test_mse - g.lower_bound).min()))
    return Bound(value=m, bound=0.0, side=">=", ci=(lo, hi), data=_cells(df))


@claim(PAPER, "rank1_error_grows_with_d", source="paper", ref="abstract", stream="fit",
       citation="[paper] abstract: low-rank attention needs exponentially many heads in the dimension; spec check 2 "
                "(trend B): at fixed H the best rank-1 error increases with d",
       statement="trend: at every fixed number of rank-1 heads H, the fitted test MSE at d = 8 exceeds that at d = 4 "
                 "(value: mean over replicates of min over H of MSE(d=8) - MSE(d=4); >= 0; fits are L-BFGS upper "
                 "bounds on the best error)",
       scales=FIT_SCALES)
def rank1_error_grows_with_d(*, dims, heads, reps, n_train, n_test, restarts, maxiter, seed):
    df = fit_sweep(tuple(dims), tuple(heads), reps, n_train, n_test, restarts, maxiter, seed)
    lo_d, hi_d = min(dims), max(dims)

    def stat(g):
        w = g.pivot(index="H", columns="d", values="test_mse")
        return float((w[hi_d] - w[lo_d]).min())

    _, m, lo, hi = _per_rep(df, stat)
    return Bound(value=m, bound=0.0, side=">=", ci=(lo, hi), data=_cells(df))


@claim(PAPER, "rank1_vs_full_rank", source="paper", ref="abstract", stream="fit",
       citation="[paper] abstract: a single full-rank head represents the target while low-rank attention needs "
                "many heads; spec check 2: one full-rank head reaches <= 1e-3 (checked in full_rank_head_mse)",
       statement="no fit of H in {heads} rank-1 heads (d in {dims}, N = 2) reaches the test MSE 1e-3 that one "
                 "full-rank head reaches (value: mean over replicates of min over cells (d, H) of rank-1 MSE / 1e-3; "
                 ">= 1; fits are L-BFGS upper bounds on the best rank-1 error)",
       scales=FIT_SCALES)
def rank1_vs_full_rank(*, dims, heads, reps, n_train, n_test, restarts, maxiter, seed):
    df = fit_sweep(tuple(dims), tuple(heads), reps, n_train, n_test, restarts, maxiter, seed)
    _, m, lo, hi = _per_rep(df, lambda g: float(g.test_mse.min()) / FULL_TARGET)
    return Bound(value=m, bound=1.0, side=">=", ci=(lo, hi), data=_cells(df),
                 note=f"full-rank head (beta = {BETA_FULL:g}) on the same test sets: max MSE "
                      f"{df.full_rank_mse.max():.2e}")


def full_mse_point(*, d, n, seed) -> dict:
    q, X = A.random_instances(d, 2, n, seed=seed)
    sq = np.sum((A.full_rank_head(q, X, BETA_FULL) - A.nearest_neighbour_target(q, X)) ** 2, axis=1)
    m, lo, hi, _ = mean_ci(sq)
    return dict(d=d, n=n, mse=m, lo=lo, hi=hi)


@claim(PAPER, "full_rank_head_mse", source="derived", ref="abstract",
       citation="[paper] abstract: a single full-rank head represents the target; spec check 2: one full-rank head "
                "reaches <= 1e-3; [derived] the head W_QK = beta I, V = I of theorylab.exact.attention",
       statement="one full-rank head (W_QK = 1000 I, V = I) has test MSE <= 1e-3 on the N = 2 nearest-neighbour "
                 "target at d in {4, 6, 8} (value: the largest of the three MSEs, t-interval over instances)",
       scales={"ci": dict(dims=(4, 6, 8), n=20000), "full": dict(dims=(4, 6, 8), n=400000)})
def full_rank_head_mse(*, dims, n, seed):
    t = sweep(full_mse_point, grid(d=list(dims), n=[n]), seed=seed, progress=False, desc="rank_attn full-rank MSE")
    w = t.loc[t.mse.idxmax()]
    return Bound(value=float(w.mse), bound=FULL_TARGET, side="<=", ci=(float(w.lo), float(w.hi)), data=t)


# --------------------------------------------------------------------------- figures

@figure(PAPER, "error_vs_heads",
        caption="Test MSE of H fitted rank-1 heads vs H (N = 2; mean over replicates, L-BFGS) for each d, the derived "
                "reflection lower bound (H < d) and one full-rank head (beta = 1000)",
        scales=FIT_SCALES)
def fig_error_vs_heads(*, dims, heads, reps, n_train, n_test, restarts, maxiter, seed):
    df = fit_sweep(tuple(dims), tuple(heads), reps, n_train, n_test, restarts, maxiter, seed)
    t = df.groupby(["d", "H"]).agg(test_mse=("test_mse", "mean"), test_sd=("test_mse", "std"),
                                   lower_bound=("lower_bound", "mean"),
                                   full_rank_mse=("full_rank_mse", "mean")).reset_index()
    fig, ax = subplots(1, 1, width=5.2)
    ax = ax[0, 0]
    for k, (d, g) in enumerate(t.groupby("d")):
        c = f"C{k}"
        ax.errorbar(g.H, g.test_mse, yerr=g.test_sd, fmt="o-", color=c, label=f"rank 1, d = {d}")
        lb = g[g.H < d]
        ax.plot(lb.H, lb.lower_bound, ":", color=c, label=f"lower bound (H < d), d = {d}")
        ax.axhline(g.full_rank_mse.mean(), ls="--", color=c, lw=0.8)
    ax.plot([], [], "k--", lw=0.8, label=r"one full-rank head, $\beta$ = 1000")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("number of heads H")
    ax.set_ylabel("test MSE")
    ax.legend(fontsize=6)
    return fig, t


@figure(PAPER, "full_rank_error_vs_beta",
        caption="Full-rank head error vs beta on random instances (d = 16, N = 8): median and max error, and the "
                "max of the derived bound 2 (N - 1) exp(-beta Delta) relative to the error",
        scales={"ci": dict(d=16, N=8, n=200), "full": dict(d=16, N=8, n=5000)})
def fig_full_rank(*, d, N, n, seed):
    q, X = _instances(d, N, n, seed)
    betas = np.geomspace(1, 256, 17)
    rows = []
    for beta in betas:
        err = A.full_rank_error(q, X, beta)
        tight, coarse = A.full_rank_bound(q, X, beta)
        rows.append(dict(beta=beta, median_err=np.median(err), max_err=err.max(), median_tight=np.median(tight),
                         median_coarse=np.median(coarse)))
    t = pd.DataFrame(rows)
    fig, ax = subplots(1, 1, width=5.2)
    ax = ax[0, 0]
    ax.semilogy(t.beta, t.median_err, "o-", label="median error")
    ax.semilogy(t.beta, t.median_tight, "--", label="median tight bound")
    ax.semilogy(t.beta, t.median_coarse, ":", label=r"median $2(N-1)e^{-\beta\Delta}$")
    ax.set_xlabel(r"$\beta$")
    ax.set_ylabel(r"$|z - x_{i^*}|$")
    ax.legend(fontsize=7)
    return fig, t
