"""flops — Ren, Zhang, Jiang, Li, Zhang, Feng, Peng (ICLR 2025), "FLOPS: Forward Learning with
OPtimal Sampling", arXiv:2410.05966; code RTkenny/FLOPS-Forward-Learning-with-OPtimal-Sampling.

The paper's optimality theorem and proxy objective could not be read (spec ``flops``, open gaps), so
the checks rest on two sources, each cited with its tag:

* [derived] the reference allocation (spec "Reference allocation"): with ``n_i`` independent
  forward-gradient queries of per-query variance ``sigma_i^2`` per sample and the batch estimate
  ``(1/B) sum_i g^_i``, ``Var = (1/B^2) sum sigma_i^2 / n_i``; Lagrange gives Neyman's
  ``n_i ∝ sigma_i`` and the ratio to uniform ``(mean sigma)^2 / mean(sigma^2)``.  The simulated
  allocations are integers (largest-remainder rounding, at least one query each), so the ratio is
  predicted at the rounded ``n_i`` (``sum sigma_i^2/n_i^Ney / sum sigma_i^2/n_i^unif``), the
  continuous value reported beside it.  For Gaussian directions ``sigma_i^2 = (d+1) ||g_i||^2``.
  Because that ratio is predicted at the counts actually used, it cannot catch a wrong allocation rule
  (counts ∝ sigma_i^2 satisfy the formula at their own counts); ``neyman_integer_optimal`` compares the
  allocator's variance with the exact optimum over integer allocations of the same budget.
* [paper code] the released allocators of allocator.py (Bernoulli and Gaussian policies, as read in
  theorylab.zeroth.allocation), compared with uniform as trends (the spec: nothing stronger), both in
  the per-sample estimator of the derivation and in the step of the authors' trainer (trainer_a.py:
  the allocation repeats samples, mini-batches of the copies share one direction), whose exact
  moments are derived in :func:`theorylab.zeroth.allocation.trainer_moments` and checked by Monte Carlo.

Instance (spec check 1): logistic regression, d = 50, B = 64, input norms log-spaced over 10x, 10%
flipped labels, evaluated at theta = 4 theta_true (loss and gradient norm correlate: Spearman 0.86)
and, as the control, at theta = 0.5 theta_true (Spearman -0.36); budget N = 8B, Gaussian directions,
per-sample weighting.  Ratios of Monte Carlo means of ||G_r - gbar||^2 over independent replicates
get delta-method intervals on the log ratio.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core import Bound, Estimate, Paper, claim, figure, mean_ci
from theorylab.core.plotting import errorbar_ci, subplots, theory_line
from theorylab.core.seeding import child_seed
from theorylab.core.sweep import grid, sweep
from theorylab.zeroth import allocation as A
from theorylab.core.experiment import experiment

PAPER = Paper(
    id="flops",
    title="FLOPS: Forward Learning with OPtimal Sampling",
    authors="Tao Ren, Zishi Zhang, Jinyang Jiang, Guanghao Li, Zeliang Zhang, Mingqian Feng, Yijie Peng",
    arxiv="2410.05966",
)

THETA_MAIN, THETA_CONTROL = 4.0, 0.5
PER_SAMPLE = 8  # N = 8 B


def instance(theta_norm: float) -> A.LogisticBatch:
    return A.logistic_batch(d=50, B=64, norm_ratio=10.0, flip=0.1, theta_norm=theta_norm, seed=0)


# --------------------------------------------------------------------------- experiments (memoised)

def mc_point(*, allocator: str, theta_norm: float, per_sample: int, reps: int, seed: int) -> pd.DataFrame:
    """``reps`` replicates of the batch estimate under one allocator: ||G_r - gbar||^2 and the
    allocation's exact conditional variance / squared bias (per-sample weighting)."""
    b = instance(theta_norm)
    N = per_sample * b.B
    n = A.draw_allocations(allocator, b, N, reps, seed=child_seed(seed, "allocation"))
    out = A.simulate_batch_gradient(b.G, n, law="gaussian", weighting="per_sample", seed=child_seed(seed, "queries"))
    return pd.DataFrame({"allocator": allocator, "theta_norm": theta_norm, "budget": N, "rep": np.arange(reps),
                         "err_sq": out.err_sq, "var_given_n": A.allocation_variance(b.sigma(), n),
                         "bias_sq_given_n": np.sum(A.allocation_bias(b.G, n) ** 2, axis=1),
                         "zero_share": (n == 0).mean(1)})


@experiment(PAPER)
def mc_sweep(allocators: tuple, theta_norm: float, per_sample: int, reps: int, seed: int) -> pd.DataFrame:
    return sweep(mc_point, grid(allocator=allocators, theta_norm=[theta_norm], per_sample=[per_sample], reps=[reps]),
                 seed=seed, progress=False, desc="flops allocators")


def ratio_ci(a, b, level_z=1.959964):
    """mean(a) / mean(b) for independent samples, delta-method CI on the log ratio."""
    ma, mb = float(np.mean(a)), float(np.mean(b))
    se = np.sqrt(np.var(a, ddof=1) / (a.size * ma**2) + np.var(b, ddof=1) / (b.size * mb**2))
    r = ma / mb
    return r, (r * np.exp(-level_z * se), r * np.exp(level_z * se))


def _errs(df, allocator):
    return df.loc[df.allocator == allocator, "err_sq"].to_numpy()


def _summary(df):
    t = df.groupby("allocator")[["err_sq", "var_given_n", "bias_sq_given_n", "zero_share"]].mean().reset_index()
    t["err_se"] = df.groupby("allocator").err_sq.sem().to_numpy()
    return t


SCALES = {"ci": dict(reps=4000), "full": dict(reps=20000)}
ALL = ("uniform", "neyman")


# --------------------------------------------------------------------------- claims

@claim(PAPER, "neyman_variance_ratio", source="derived", ref="abstract", stream="main",
       citation="[derived] spec flops 'Reference allocation': Var = (1/B^2) sum sigma_i^2/n_i, Neyman n_i ∝ sigma_i "
                "(Lagrange); the paper's optimality theorem (abstract) was not read",
       statement="Var(Neyman) / Var(uniform) of the Monte Carlo batch forward-gradient estimate equals "
                 "sum sigma_i^2/n_i^Ney / sum sigma_i^2/n_i^unif at the rounded allocation (continuous limit "
                 "(mean sigma)^2 / mean(sigma^2)); logistic d = 50, B = 64, N = 8B, Gaussian directions",
       scales=SCALES)
def neyman_variance_ratio(*, reps, seed):
    df = mc_sweep(ALL, THETA_MAIN, PER_SAMPLE, reps, seed)
    b = instance(THETA_MAIN)
    s = b.sigma()
    N = PER_SAMPLE * b.B
    n_ney = A.neyman_allocation(s, N)
    n_uni = A.uniform_allocation(b.B, N)
    predicted = float(np.sum(s**2 / n_ney) / np.sum(s**2 / n_uni))      # the formula at the integers
    continuous = float(np.mean(s) ** 2 / np.mean(s**2))
    r, ci = ratio_ci(_errs(df, "neyman"), _errs(df, "uniform"))
    t = _summary(df)
    t["predicted_ratio_rounded"], t["predicted_ratio_continuous"] = predicted, continuous
    # inconclusive only if the interval is uninformative relative to the ratio measured (50% of it)
    return Estimate(value=r, ci=ci, predicted=predicted, data=t, max_ci_width=0.5 * max(r, predicted),
                    note=f"continuous (mean sigma)^2/mean(sigma^2) = {continuous:.4f}; rounded {predicted:.4f}; "
                         f"n^Ney in [{n_ney.min()}, {n_ney.max()}]")


def neyman_continuous(sigma, N):
    """n*_i = max(1, sigma_i / lam) with sum n*_i = N, lam by bisection (the Lagrange condition with the n_i >= 1
    constraint); written here, independently of the allocator under test."""
    from scipy.optimize import brentq

    s = np.asarray(sigma, float)
    lam = brentq(lambda lam: np.maximum(1.0, s / lam).sum() - N, s.max() / N * 1e-3, s.max(), xtol=1e-300,
                 rtol=1e-15)
    return np.maximum(1.0, s / lam)


def rounding_margin(n_star):
    """[derived] the largest relative excess of sum sigma_i^2/n_i over the continuous optimum for any integers with
    |n_i - n*_i| < 1 on the free samples (n*_i > 1) and n_i = 1 on the clamped ones: with sigma_i = lam n*_i,
    sigma^2/(n* - delta) = sigma^2/n* (1 + delta/n* + delta^2/(n* n)), the linear terms cancel (sum delta = 0),
    and Var* >= lam^2 sum_free n*, so the excess is sum_free delta_i^2/n_i / sum_free n*_i <= this bound."""
    free = n_star > 1.0
    return float(np.sum(1.0 / np.floor(n_star[free])) / np.sum(n_star[free])) if free.any() else 0.0


def optimum_point(*, theta_norm: float, per_sample: int) -> dict:
    b = instance(theta_norm)
    s = b.sigma()
    N = per_sample * b.B
    n_alloc = A.draw_allocations("neyman", b, N, 1)[0]          # the allocation the simulations use
    n_opt = A.integer_optimal_allocation(s, N)
    v_alloc, v_opt = (float(A.allocation_variance(s, n)[0]) for n in (n_alloc, n_opt))
    n_star = neyman_continuous(s, N)
    v_star = float(np.sum(s**2 / n_star)) / b.B**2
    return dict(theta_norm=theta_norm, budget=N, var_allocator=v_alloc, var_integer_optimum=v_opt,
                var_continuous=v_star, excess=v_alloc / v_opt - 1, margin=rounding_margin(n_star),
                samples_differing=int(np.sum(n_alloc != n_opt)))


@claim(PAPER, "neyman_integer_optimal", source="derived", ref="",
       citation="[derived] the exact integer optimum of sum sigma_i^2/n_i (n_i >= 1, sum n_i = N) by marginal "
                "allocation (allocation.integer_optimal_allocation, exchange argument); the margin is the largest "
                "excess of any rounding of the continuous optimum n*_i = max(1, sigma_i/lam) (rounding_margin)",
       statement="the Neyman allocator's integer allocation has batch-gradient variance sum sigma_i^2/n_i / B^2 within "
                 "the rounding margin sum_free 1/floor(n*_i) / sum_free n*_i of the exact optimum over integer "
                 "allocations of the same budget (logistic d = 50, B = 64, theta = 4 and 0.5 theta_true); measured: "
                 "the largest excess / margin over instances and budgets (exact, <= 1)",
       scales={"ci": dict(per_samples=(2, 8)), "full": dict(per_samples=(2, 4, 8, 16, 32))})
def neyman_integer_optimal(*, per_samples, seed):
    t = pd.DataFrame([optimum_point(theta_norm=th, per_sample=k) for th in (THETA_MAIN, THETA_CONTROL)
                      for k in per_samples])
    ratio = (t.excess / t.margin).to_numpy()
    worst = int(np.argmax(ratio))
    return Bound(value=float(ratio[worst]), bound=1.0, side="<=", data=t,
                 note=f"largest excess {t.excess.max():.3g} (margin there {t.margin.iloc[int(np.argmax(t.excess))]:.3g}); "
                      f"margins {t.margin.min():.3g} to {t.margin.max():.3g}; worst instance theta = "
                      f"{t.theta_norm.iloc[worst]:g} theta_true, N = {t.budget.iloc[worst]}")


@claim(PAPER, "uniform_variance_level", source="derived", ref="", stream="main",
       citation="[derived] Gaussian forward-gradient query: tr Cov[(g.u)u] = (d+1)||g||^2; "
                "Var(uniform) = sum sigma_i^2 / (B N)",
       statement="E||G - gbar||^2 under uniform allocation equals (d+1) sum ||g_i||^2 / (B N) "
                 "(ratio measured / predicted = 1)",
       scales=SCALES)
def uniform_variance_level(*, reps, seed):
    df = mc_sweep(ALL, THETA_MAIN, PER_SAMPLE, reps, seed)
    b = instance(THETA_MAIN)
    N = PER_SAMPLE * b.B
    pred = (b.d + 1) * float(np.sum(b.G**2)) / (b.B * N)
    m, lo, hi, _ = mean_ci(_errs(df, "uniform") / pred)
    return Estimate(value=m, ci=(lo, hi), predicted=1.0, data=_summary(df), note=f"predicted level {pred:.4g}")


def draws_point(*, allocator: str, theta_norm: float, per_sample: int, draws: int, seed: int) -> pd.DataFrame:
    """``draws`` allocations of a random allocator and their exact conditional moments relative to
    Var(uniform): the MSE given n is Var(n) + ||bias(n)||^2 exactly (Rao-Blackwellised over the queries)."""
    b = instance(theta_norm)
    N = per_sample * b.B
    s = b.sigma()
    vu = float(A.allocation_variance(s, A.uniform_allocation(b.B, N))[0])
    n = A.draw_allocations(allocator, b, N, draws, seed=seed)
    out = {"allocator": allocator, "theta_norm": theta_norm, "budget": N, "draw": np.arange(draws),
           "zero_share": (n == 0).mean(1)}
    for w in A.WEIGHTINGS:
        bias = A.allocation_bias(b.G, n, w)
        out[f"var_{w}"] = A.allocation_variance(s, n, w) / vu
        out[f"bias_sq_{w}"] = np.sum(bias**2, axis=1) / vu
        out[f"mse_{w}"] = out[f"var_{w}"] + out[f"bias_sq_{w}"]
        if w == "per_sample":
            out["mean_bias_sq_per_sample"] = float(np.sum(bias.mean(0) ** 2)) / vu
    return pd.DataFrame(out)


@experiment(PAPER)
def draws_sweep(allocator: str, theta_norm: float, per_sample: int, draws: int, seed: int) -> pd.DataFrame:
    return sweep(draws_point, grid(allocator=[allocator], theta_norm=[theta_norm], per_sample=[per_sample],
                                   draws=[draws]), seed=seed, progress=False, desc="flops allocation draws")


def _draws_summary(df):
    cols = [c for c in df.columns if c.startswith(("var_", "bias_sq_", "mse_", "mean_bias", "zero_share"))]
    return df[cols].mean().to_frame("mean_over_draws").T.assign(allocator=df.allocator.iloc[0],
                                                                  theta_norm=df.theta_norm.iloc[0],
                                                                  draws=len(df))


def _trend(df, side):
    m, lo, hi, _ = mean_ci(df.mse_per_sample.to_numpy())
    t = _draws_summary(df)
    note = (f"per-query weighting (authors' trainer): MSE/Var_unif = {t.mse_per_query.iloc[0]:.3f} "
            f"(bias^2 {t.bias_sq_per_query.iloc[0]:.3f}); zero-query share {t.zero_share.iloc[0]:.3f}")
    return Bound(value=m, bound=1.0, side=side, ci=(lo, hi), data=t, note=note)


DRAW_SCALES = {"ci": dict(draws=20000), "full": dict(draws=200000)}


@claim(PAPER, "bernoulli_vs_uniform", source="code", ref="allocator.py",
       citation="[paper code] allocator.py bernoulli_allocater (p = 0.5); trend per spec flops check 2",
       statement="trend: the released Bernoulli allocator's batch-gradient MSE E_n[Var(n) + ||bias(n)||^2] is "
                 "<= uniform's when sigma_i correlates positively with the loss (theta = 4 theta_true, Spearman "
                 "0.86), N = 8B, per-sample weighting; interval over allocator draws",
       scales=DRAW_SCALES)
def bernoulli_vs_uniform(*, draws, seed):
    return _trend(draws_sweep("bernoulli", THETA_MAIN, PER_SAMPLE, draws, seed), "<=")


@claim(PAPER, "bernoulli_needs_correlation", source="derived", ref="",
       citation="[derived] pruning low-loss samples saves variance only if they have low sigma_i; "
                "spec flops check 2 'can fail if the correlation is absent'",
       statement="trend (control): at theta = 0.5 theta_true (Spearman(loss, sigma) = -0.36) the Bernoulli "
                 "allocator's MSE is >= uniform's",
       scales=DRAW_SCALES)
def bernoulli_needs_correlation(*, draws, seed):
    return _trend(draws_sweep("bernoulli", THETA_CONTROL, PER_SAMPLE, draws, seed), ">=")


@claim(PAPER, "gaussian_vs_uniform", source="third-party", ref="allocator.py",
       citation="[paper code] allocator.py gaussian_allocater (defaults length_scale = variance = 1, k = 1 reading); "
                "[third-party] triage: 'FLOPS-Gaussian <= uniform only as a trend'",
       statement="trend: the released Gaussian allocator's batch-gradient MSE E_n[Var(n) + ||bias(n)||^2] is <= "
                 "uniform's (theta = 4 theta_true, N = 8B, per-sample weighting); bias and variance reported",
       scales=DRAW_SCALES, expect_reproduced=False,
       why_not="its mean map is random (z ~ N(0,1) drawn afresh at every call), so the allocation is not tied to "
               "sigma_i: at ci (seed 0, 20000 draws) MSE/Var_unif = 1.091 [1.076, 1.106], of which Var 1.052 "
               "(Jensen on 1/n_i) and squared bias 0.039 from the 28% of samples left without queries (the "
               "errata's ~29%); with the authors' per-query weighting the MSE is 12.5x uniform (bias^2 9.0x)")
def gaussian_vs_uniform(*, draws, seed):
    df = draws_sweep("gaussian", THETA_MAIN, PER_SAMPLE, draws, seed)
    ev = _trend(df, "<=")
    t = ev.data
    ev.note = (f"Var/Var_unif = {t.var_per_sample.iloc[0]:.3f}, E||bias|n||^2/Var_unif = {t.bias_sq_per_sample.iloc[0]:.3f}, "
               f"||E bias||^2/Var_unif = {t.mean_bias_sq_per_sample.iloc[0]:.4f}; " + ev.note)
    return ev


def trainer_point(*, allocator: str, theta_norm: float, per_sample: int, reps: int, chunk: int,
                  seed: int) -> pd.DataFrame:
    """The authors' trainer step (shared direction per mini-batch): Monte Carlo errors and the exact
    conditional moments of each replicate's allocation, relative to the trainer's uniform MSE (one chunk of
    ``reps`` replicates; chunks are independent sweep points)."""
    b = instance(theta_norm)
    N = per_sample * b.B
    v0, b0 = A.trainer_moments(b.G, A.uniform_allocation(b.B, N))
    ref = float(v0[0] + b0[0])
    n = A.draw_allocations(allocator, b, N, reps, seed=child_seed(seed, "allocation"))
    var, bias_sq = A.trainer_moments(b.G, n)
    mc = A.simulate_trainer_step(b.G, n, seed=child_seed(seed, "queries")).err_sq
    return pd.DataFrame({"allocator": allocator, "theta_norm": theta_norm, "budget": N, "rep": np.arange(reps),
                         "mc_over_ref": mc / ref, "var_over_ref": var / ref, "bias_sq_over_ref": bias_sq / ref,
                         "mse_over_ref": (var + bias_sq) / ref, "per_sample_var_uniform_over_ref":
                         float(A.allocation_variance(b.sigma(), A.uniform_allocation(b.B, N))[0]) / ref})


@experiment(PAPER)
def trainer_sweep(allocator: str, theta_norm: float, per_sample: int, reps: int, chunks: int,
                  seed: int) -> pd.DataFrame:
    return sweep(trainer_point, grid(allocator=[allocator], theta_norm=[theta_norm], per_sample=[per_sample],
                                     reps=[reps], chunk=range(chunks)), seed=seed, progress=False,
                 desc="flops trainer step")


TRAINER_SCALES = {"ci": dict(reps=1500, chunks=1), "full": dict(reps=3000, chunks=6)}


@claim(PAPER, "trainer_moments_formula", source="derived", ref="trainer_a.py", stream="trainer",
       citation="[derived] trainer_a.py zo_step_all_params_allocator (repeat_interleave, mini-batches of bs, one "
                "direction each): tr Var = (d+1)/S (||mu_n||^2 + (N-B)/(B(N-1)) s_n^2), bias = mu_n - gbar",
       statement="Monte Carlo MSE of the authors' trainer step under the Bernoulli allocator equals the mean of the "
                 "exact conditional MSE over its allocations (ratio 1); theta = 4 theta_true, N = 8B",
       scales=TRAINER_SCALES)
def trainer_moments_formula(*, reps, chunks, seed):
    df = trainer_sweep("bernoulli", THETA_MAIN, PER_SAMPLE, reps, chunks, seed)
    m = df.mse_over_ref.mean()
    d, lo, hi, _ = mean_ci((df.mc_over_ref - df.mse_over_ref).to_numpy() / m)
    t = df[["var_over_ref", "bias_sq_over_ref", "mse_over_ref", "mc_over_ref"]].mean().to_frame().T
    return Estimate(value=1 + d, ci=(1 + lo, 1 + hi), predicted=1.0, data=t)


@claim(PAPER, "trainer_bernoulli_vs_uniform", source="code", ref="allocator.py, trainer_a.py", stream="trainer",
       citation="[paper code] allocator.py bernoulli_allocater (p = 0.5) inside trainer_a.py's allocator step; "
                "trend per spec flops check 2",
       statement="trend: in the authors' trainer step (shared direction per mini-batch, every copy weighing 1/N) the "
                 "Bernoulli allocator's MSE E_n[Var(n) + ||bias(n)||^2] is <= uniform's (theta = 4 theta_true, N = 8B)",
       scales=DRAW_SCALES, expect_reproduced=False,
       why_not="the step averages copies, so more queries on a sample weigh its gradient more instead of averaging "
               "its noise: Var grows with ||mu_n||^2; at ci (seed 0, 20000 draws) MSE/uniform = 1.449 [1.447, 1.451] (bias^2 0.009), "
               "while the same allocations in the per-sample estimator give 0.85 (bernoulli_vs_uniform); Neyman "
               "allocations in this step give 29x")
def trainer_bernoulli_vs_uniform(*, draws, seed):
    b = instance(THETA_MAIN)
    N = PER_SAMPLE * b.B
    v0, b0 = A.trainer_moments(b.G, A.uniform_allocation(b.B, N))
    ref = float(v0[0] + b0[0])
    n = A.draw_allocations("bernoulli", b, N, draws, seed=child_seed(seed, "allocation"))
    var, bias_sq = A.trainer_moments(b.G, n)
    m, lo, hi, _ = mean_ci((var + bias_sq) / ref)
    vn, bn = A.trainer_moments(b.G, A.neyman_allocation(b.sigma(), N))
    t = pd.DataFrame({"allocator": ["uniform", "bernoulli", "neyman"], "mse_over_uniform": [1.0, m, (vn[0] + bn[0]) / ref],
                      "bias_sq_over_uniform": [b0[0] / ref, bias_sq.mean() / ref, bn[0] / ref]})
    return Bound(value=m, bound=1.0, side="<=", ci=(lo, hi), data=t,
                 note=f"bias^2/uniform {bias_sq.mean() / ref:.4f}; Neyman in this step {(vn[0] + bn[0]) / ref:.2f}x")


# --------------------------------------------------------------------------- figure

def budget_point(*, per_sample: int, reps: int, draws: int, seed: int) -> pd.DataFrame:
    """Exact variances (per-sample weighting) of every allocator at budget N = per_sample * B, with the
    random allocators averaged over ``draws`` draws, and Monte Carlo MSEs (``reps`` replicates)."""
    b = instance(THETA_MAIN)
    s = b.sigma()
    N = per_sample * b.B
    rows = []
    for allocator in A.ALLOCATORS:
        n = A.draw_allocations(allocator, b, N, 1 if allocator in ("uniform", "neyman") else draws,
                               seed=child_seed(seed, allocator))
        var = A.allocation_variance(s, n).mean()
        bias_sq = np.sum(A.allocation_bias(b.G, n) ** 2, axis=1).mean()
        nm = A.draw_allocations(allocator, b, N, reps, seed=child_seed(seed, allocator, "mc"))
        mc = A.simulate_batch_gradient(b.G, nm, seed=child_seed(seed, allocator, "queries")).err_sq
        m, lo, hi, _ = mean_ci(mc)
        rows.append(dict(allocator=allocator, budget=N, per_sample=per_sample, var_exact=var, bias_sq_exact=bias_sq,
                         mse_exact=var + bias_sq, mse_mc=m, mse_mc_lo=lo, mse_mc_hi=hi,
                         theory_uniform=np.sum(s**2) / (b.B * N), theory_neyman=np.sum(s) ** 2 / (b.B**2 * N)))
    return pd.DataFrame(rows)


@figure(PAPER, "variance_vs_budget",
        caption="Batch forward-gradient MSE vs budget N (logistic d=50, B=64, theta = 4 theta_true): uniform, Neyman "
                "and the released Bernoulli/Gaussian allocators (points: Monte Carlo; solid lines: exact E_n[Var + ||bias||^2]; "
                "the Gaussian allocator's floor is the bias of samples left without queries); dashed: sum sigma^2/(BN) "
                "and (sum sigma)^2/(B^2 N)",
        scales={"ci": dict(per_samples=(2, 8), reps=40, draws=300),
                "full": dict(per_samples=(1, 2, 4, 8, 16, 32), reps=2000, draws=20000)})
def fig_variance_vs_budget(*, per_samples, reps, draws, seed):
    t = sweep(budget_point, grid(per_sample=per_samples, reps=[reps], draws=[draws]), seed=seed, progress=False, desc="flops budget")
    fig, ax = subplots(1, 1, width=5.5)
    ax = ax[0, 0]
    marks = {"uniform": "o", "neyman": "s", "bernoulli": "^", "gaussian": "v"}
    for k, (allocator, sub) in enumerate(t.groupby("allocator", sort=False)):
        sub = sub.sort_values("budget")
        errorbar_ci(ax, sub.budget.to_numpy(float), sub.mse_mc.to_numpy(), sub.mse_mc_lo.to_numpy(),
                    sub.mse_mc_hi.to_numpy(), label=f"{allocator} (Monte Carlo)", fmt=marks[allocator], color=f"C{k}")
        ax.plot(sub.budget, sub.mse_exact, "-", color=f"C{k}", lw=0.8)
    u = t[t.allocator == "uniform"].sort_values("budget")
    theory_line(ax, u.budget.to_numpy(float), u.theory_uniform.to_numpy(), label=r"$\sum\sigma_i^2/(BN)$")
    theory_line(ax, u.budget.to_numpy(float), u.theory_neyman.to_numpy(), label=r"$(\sum\sigma_i)^2/(B^2N)$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("query budget N")
    ax.set_ylabel(r"$E\|G-\bar g\|^2$")
    ax.legend(fontsize=7)
    return fig, t
