"""missing_mass — Lee & Böhme (ICLR 2025), "How Much is Unseen Depends Chiefly on Information About
the Seen", arXiv:2402.05835; authors' code github.com/niMgnoeSeeL/UnseenGA (commit 1716d44).

What was read: the abstract (v1 and v2) — the f_k characterisation with an exponentially decaying
error, the high variance of the induced (minimal-bias) estimator, the genetic search, ">93% of runs
when there are at least as many samples as classes" and "MSE roughly 80% of Good–Turing's".  The
theorem body and the PDF's tables could not be read from the stored copies; the exact form of
the characterisation, E[M_0(n)] = sum_k (-1)^(k-1) E[Phi_k(n)]/C(n,k) + (-1)^n sum_x p_x^(n+1), is
our spec's derivation and is checked here as a hypothesis.  Table 2's numbers are those printed by
the authors' notebook script/minimal-bias/min-bias-table.ipynb (its LaTeX export, 4 digits, is
presumably the PDF's Table 2); Table 3's protocol is the authors' ga.py / ga-analysis.ipynb.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from theorylab.core import Bound, Estimate, Proportion, Identity, Paper, claim, figure, mean_ci
from theorylab.core import as_generator, child_seed
from theorylab.core.plotting import subplots
from theorylab.core.sweep import grid, sweep
from theorylab.missing_mass import (DISTRIBUTIONS, Estimator, family_optimum, brute_force_moments, exact_moments,
                                    exact_moments_rational, g_exact, genome_expectation, good_turing,
                                    make_distribution, minimal_bias, monte_carlo_mse, mutate, project,
                                    search_run, start_genome, to_estimator)
from theorylab.missing_mass import _kernels as K
from theorylab.missing_mass.moments import _logfact, atoms_with_mass
from theorylab.core.experiment import experiment

PAPER = Paper(
    id="missing_mass",
    title="How Much is Unseen Depends Chiefly on Information About the Seen",
    authors="Seongmin Lee, Marcel Böhme",
    arxiv="2402.05835",
)

GRID = ((100, 50), (100, 100), (100, 200), (200, 100), (200, 200), (200, 400))

# Authors' notebook min-bias-table.ipynb, printed output (uniform, S = 100).
TABLE2 = {100: dict(gt_bias=0.003697296376497265, gt_var=0.00233717764693788, bt_var=0.0023515371697249926),
          500: dict(gt_bias=6.636851557994564e-05, gt_var=1.1429692313457735e-05, bt_var=1.1445362183927047e-05),
          1000: dict(gt_bias=4.360732061682617e-07, gt_var=4.343882460648888e-08, bt_var=4.344124759226334e-08)}


# --------------------------------------------------------------------------- helpers

def _random_rational_p(rng, S):
    w = rng.integers(1, 20, size=S)
    return [Fraction(int(x), int(w.sum())) for x in w]


def _uniform_minimal_bias_exact_bias(S: int, n: int) -> Fraction:
    """E[minimal-bias] - E[M_0(n)] under uniform p, in exact integer arithmetic (Section 3 series).

    With p_x = 1/S: E[Phi_k(n)]/C(n, k) = S (S-1)^(n-k) / S^n and E[M_0(n)] = (S-1)^n / S^n.
    """
    series = sum((-1) ** (k - 1) * S * (S - 1) ** (n - k) for k in range(1, n + 1))
    return Fraction(series - (S - 1) ** n, S ** n)


def _log10_fraction(x: Fraction) -> float:
    return math.log10(x.numerator) - math.log10(x.denominator)


def _gram_uniform(S, n, est):
    m, k, w, _ = atoms_with_mass(est, n)
    u, c = np.array([1.0 / S]), np.array([float(S)])
    G = K.gram(u, c, m[:-1], k[:-1], w[:-1], _logfact(n + 2))
    mu = K.means(u, c, m[:-1], k[:-1], w[:-1])
    return G - np.outer(mu, mu)


def authors_code_minimal_bias_variance(S: int, n: int) -> float:
    """The variance formula as coded in the authors' notebook (for the diagnosis of Table 2).

    Their loop gives every cross term the sign -1 (``1 if i + j % 2 == 0 else -1`` parses as
    i + (j % 2) == 0) and counts each pair (i < j) once: sum_i Var(g_i) - sum_{i<j} Cov(g_i, g_j),
    where g_i = Phi_i(n)/C(n, i); the true variance is sum_i Var(g_i) + 2 sum_{i<j} (-1)^(i+j) Cov.
    """
    C = _gram_uniform(S, n, minimal_bias(n))
    iu = np.triu_indices(n, 1)
    return float(np.trace(C) - C[iu].sum())


def search_point(*, distribution: str, S: int, n: int, run: int, max_gen: int, variant: str, projection: str,
                 prune_scale: str, seed: int) -> dict:
    """One search run of the paper's Table 3 protocol (a sweep point: cached, resumable, parallel)."""
    r = search_run(distribution, S, n, seed=seed, max_gen=max_gen, variant=variant, projection=projection,
                   prune_scale=prune_scale)
    r.pop("_estimator")
    r["run"] = run
    return r


@experiment(PAPER)
def table3_runs(configs: tuple, seeds: int, max_gen: int, variant: str, projection: str, seed: int,
                prune_scale: str = "normalised") -> pd.DataFrame:
    """One search run per (distribution, S, n, run index): the paper's Table 3 protocol."""
    points = [pt for (dist, S, n) in configs
              for pt in grid(distribution=[dist], S=[S], n=[n], run=range(seeds), max_gen=[max_gen],
                             variant=[variant], projection=[projection], prune_scale=[prune_scale])]
    df = sweep(search_point, points, seed=seed, progress=False, desc="missing_mass search runs")
    df["seed"] = df["seed"].astype(np.int64)
    return df


def _configs(dists, grid):
    return tuple((d, S, n) for (S, n) in grid for d in dists)


GRID_N_GE_S = tuple((S, n) for S, n in GRID if n >= S)
HEADLINE_SCALES = {  # ci: 500 generations rather than the paper's 2000 (success ~0.9 at 500, ~0.96 at 1000), 20 runs
    # per distribution (40 runs at ~0.05 s each: at a success rate of 0.9 the 95% Clopper-Pearson lower limit
    # misses the ci threshold 0.5 with probability ~1e-4; 12 runs missed it on 2 of 15 seeds); full: the paper's
    # protocol on the four configurations with n >= S, 16 runs each (384 runs, ~1 min)
    "ci": dict(dists=("uniform", "zipfhalf"), grid=((100, 100),), seeds=20, max_gen=500),
    "full": dict(dists=DISTRIBUTIONS, grid=GRID_N_GE_S, seeds=16, max_gen=2000),
}
AUTHORS_SCALES = {  # ci: 100 generations, 100 runs per distribution (200 at ~0.02 s): single runs are heavy-tailed
    # (mean 0.94, sd 0.09, 5% below 0.69), and the family-wise interval must clear 0.88 (0.8 + 10%) on every
    # seed: 3.89 sd / sqrt(N) plus the seed-to-seed spread of the mean.  24 runs reached 0.88 on 11 of 15 seeds;
    # 120 runs cleared it on 20 of 20 but by 0.006 on the worst; 200 leave ~4 standard errors of the mean
    "ci": dict(dists=("uniform", "zipfhalf"), grid=((100, 100),), seeds=100, max_gen=100),
    # full: 40 runs per configuration (480 runs at 2000 generations, ~0.05 s each)
    "full": dict(dists=DISTRIBUTIONS, grid=((100, 100), (200, 200)), seeds=40, max_gen=2000),
}


def _headline(dists, grid, seeds, max_gen, seed, variant="identity", projection="normalised",
              prune_scale="normalised"):
    df = table3_runs(_configs(dists, grid), seeds, max_gen, variant, projection, seed, prune_scale)
    return df[df.n >= df.S]


def _per_config(df):
    g = df.groupby(["distribution", "S", "n"])
    return g.agg(runs=("success", "size"), success_rate=("success", "mean"), mean_ratio=("ratio", "mean"),
                 gt_mse=("gt_mse", "mean"), evo_mse=("evo_mse", "mean"),
                 generations=("generations", "mean"), seconds=("seconds", "mean")).reset_index()


def _ratio_estimate(df, predicted, rtol, note):
    m, lo, hi, _ = mean_ci(df.ratio.to_numpy())
    return Estimate(value=m, ci=(lo, hi), predicted=predicted, rtol=rtol, data=_per_config(df), note=note)


# --------------------------------------------------------------------------- claims

@claim(PAPER, "characterisation_identity", source="paper", ref="Sec. 3, abstract",
       citation="Sec. 3 characterisation of E[M_0] by the f_k (abstract); exact form derived in our spec",
       statement="E[M_0(n)] = sum_{k=1}^n (-1)^(k-1) E[Phi_k(n)]/C(n,k) + (-1)^n sum_x p_x^(n+1) and "
                 "E[M_0(n)] = E[Phi_1(n+1)]/(n+1), exactly, for every p",
       scales={"ci": dict(instances=40, brute=3), "full": dict(instances=400, brute=12)})
def characterisation_identity(*, instances, brute, seed):
    """Exact rationals on random p (S <= 8, n <= 12).  The expectations E[Phi_k(n)] and E[M_0(n)]
    are taken from enumeration of all S^n sequences on the first ``brute`` instances (so the
    identity is not checked against the formulas it is derived from), from the binomial marginals
    on the rest."""
    rng = as_generator(seed)
    rows, worst = [], Fraction(0)
    for i in range(instances):
        small = i < brute
        S = int(rng.integers(2, 4 if small else 9))
        n = int(rng.integers(1, 7 if small else 13))
        p = _random_rational_p(rng, S)
        if small:
            Ephi = [None] + [brute_force_moments(Estimator([1.0], [n], [k]), p, n)["mean"] for k in range(1, n + 1)]
            EM0 = brute_force_moments(Estimator([1.0], [n], [1]), p, n)["mean_m0"]
        else:
            Ephi = [None] + [math.comb(n, k) * g_exact(p, n, k) for k in range(1, n + 1)]
            EM0 = sum(x * (1 - x) ** n for x in p)
        series = sum((-1) ** (k - 1) * Ephi[k] / math.comb(n, k) for k in range(1, n + 1))
        rhs = series + (-1) ** n * sum(x ** (n + 1) for x in p)
        d1 = EM0 - rhs
        d2 = EM0 - math.comb(n + 1, 1) * g_exact(p, n + 1, 1) / (n + 1)
        worst = max(worst, abs(d1), abs(d2))
        rows.append(dict(instance=i, S=S, n=n, enumeration=small, E_M0=float(EM0), series=float(series),
                         remainder=float((-1) ** n * sum(x ** (n + 1) for x in p)), diff_series=float(d1),
                         diff_phi1=float(d2)))
    return Identity(discrepancy=float(worst), instances=instances, what="E[M_0] - (f_k series + remainder)",
                    data=pd.DataFrame(rows), note=f"exact rationals; {brute} instances by full enumeration")


@claim(PAPER, "table2_good_turing", source="code", ref="Table 2, min-bias-table.ipynb", citation="Table 2 (uniform, S = 100), authors' min-bias-table.ipynb output",
       statement="Good–Turing bias and variance, and |bias| = S^-n of the minimal-bias estimator, for "
                 "uniform S = 100, n in {ns}, to 1e-6 relative",
       scales={"ci": dict(ns=(100, 500, 1000)), "full": dict(ns=(100, 500, 1000))})
def table2_good_turing(*, ns, seed):
    S, rows, worst = 100, [], 0.0
    p = np.full(S, 1.0 / S)
    for n in ns:
        gt = exact_moments(good_turing(n), p, n)
        bt_bias = _uniform_minimal_bias_exact_bias(S, n)
        rel_bt = abs(abs(bt_bias) - Fraction(1, S ** n)) / Fraction(1, S ** n)
        rel_gb = abs(gt.bias / TABLE2[n]["gt_bias"] - 1)
        rel_gv = abs(gt.var / TABLE2[n]["gt_var"] - 1)
        worst = max(worst, float(rel_bt), rel_gb, rel_gv)
        rows.append(dict(n=n, gt_bias=gt.bias, gt_bias_published=TABLE2[n]["gt_bias"], gt_var=gt.var,
                         gt_var_published=TABLE2[n]["gt_var"], minbias_log10_abs_bias=_log10_fraction(abs(bt_bias)),
                         minus_n_log10_S=-n * math.log10(S), minbias_bias_rel_err=float(rel_bt)))
    return Identity(discrepancy=worst, instances=3 * len(ns), atol=1e-6, what="relative error", data=pd.DataFrame(rows),
                    note="GT moments by the float64 pairwise formulas; minimal-bias bias in exact rationals")


@claim(PAPER, "table2_minimal_bias_variance", source="paper", ref="Table 2",
       citation="Table 2 (uniform, S = 100): variance of the minimal-bias estimator",
       statement="Variance of the minimal-bias estimator sum (-1)^(k-1) Phi_k/C(n,k), uniform S = 100, "
                 "n in {ns}, equals the published 2.351537e-3, 1.144536e-5, 4.344125e-8 (1e-6 rel.)",
       scales={"ci": dict(ns=(100, 500, 1000), rational_n=(40,)), "full": dict(ns=(100, 500, 1000), rational_n=(100,))},
       expect_reproduced=False,
       why_not="the published variances come from a sign/precedence bug in the authors' notebook "
               "(`1 if i + j % 2 == 0 else -1` is always -1, and cross terms are counted once, not twice); "
               "our exact values are 2.364861e-3, 1.146015e-5, 4.344275e-8, and the authors' formula as "
               "coded reproduces the published numbers to ~1e-12")
def table2_minimal_bias_variance(*, ns, rational_n, seed):
    S, rows, worst = 100, [], 0.0
    p = np.full(S, 1.0 / S)
    for n in ns:
        exact = exact_moments(minimal_bias(n), p, n).var
        coded = authors_code_minimal_bias_variance(S, n)
        gt = exact_moments(good_turing(n), p, n).var
        worst = max(worst, abs(exact / TABLE2[n]["bt_var"] - 1))
        rows.append(dict(n=n, exact_var=exact, published_var=TABLE2[n]["bt_var"], authors_formula_var=coded,
                         authors_formula_rel_err=abs(coded / TABLE2[n]["bt_var"] - 1), gt_var=gt,
                         exact_minus_gt=exact - gt))
    # the float path against exact rationals (the same formulas, no rounding) at a small n
    for n in rational_n:
        est = minimal_bias(n)
        coef = [Fraction((-1) ** (k - 1), math.comb(n, k)) for k in range(1, n + 1)]
        rat = exact_moments_rational(est, [Fraction(1, S)] * S, n, coef=coef)["var"]
        rows.append(dict(n=n, exact_var=exact_moments(est, p, n).var, rational_var=float(rat),
                         float_vs_rational_rel_err=abs(exact_moments(est, p, n).var / float(rat) - 1)))
    t = pd.DataFrame(rows)
    note = ("authors' formula as coded vs published: max rel. err "
            f"{t.authors_formula_rel_err.max():.1e}; float vs exact rationals (n={rational_n}): "
            f"{t.float_vs_rational_rel_err.max():.1e}; exact Var(minimal-bias) - Var(GT) > 0 at every n")
    return Identity(discrepancy=worst, instances=len(ns), atol=1e-6, what="exact/published - 1", data=t, note=note)


MC_CONFIGS = (("uniform", 100, 50), ("half", 100, 100), ("zipf", 200, 200), ("zipfhalf", 200, 100),
              ("dirihalf", 100, 100))


@claim(PAPER, "gt_mse_monte_carlo", source="paper", ref="Sec. 4",
       citation="Sec. 4 fitness: MSE = bias^2 + Var(est) + Var(M_0) - 2 Cov(est, M_0) (exact pairwise formulas)",
       statement="The exact MSE E[(Phi_1(n)/n - M_0(n))^2] agrees with Monte Carlo for several (S, n, p) and an "
                 "estimator using prefixes n' < n: precision-weighted mean of MC/exact = 1 within its CI",
       scales={"ci": dict(reps=20_000), "full": dict(reps=400_000)})
def gt_mse_monte_carlo(*, reps, seed):
    """The precision-weighted mean over configurations of MC/exact (independent configurations, so its
    CI from the per-configuration standard errors is calibrated); the per-configuration z-scores are in
    the table and the largest |z| in the note."""
    rows = []
    prefixed = Estimator([0.012, -0.002, -0.0005], [100, 96, 90], [1, 1, 2], name="prefixed")
    cases = [(d, S, n, good_turing(n)) for d, S, n in MC_CONFIGS] + [("zipfhalf", 100, 100, prefixed)]
    for i, (d, S, n, est) in enumerate(cases):
        p = make_distribution(d, S, seed=child_seed(seed, "p", i))
        exact = exact_moments(est, p, n).mse
        mc = monte_carlo_mse(est, p, n, reps=reps, seed=child_seed(seed, "mc", i))
        rows.append(dict(distribution=d, S=S, n=n, estimator=est.name, exact_mse=exact, mc_mse=mc["mse"],
                         mc_se=mc["mse_se"], ratio=mc["mse"] / exact, ratio_se=mc["mse_se"] / exact,
                         z=(mc["mse"] - exact) / mc["mse_se"]))
    t = pd.DataFrame(rows)
    w = 1.0 / t.ratio_se.to_numpy() ** 2
    r = float(np.sum(w * t.ratio.to_numpy()) / np.sum(w))
    se = 1 / np.sqrt(np.sum(w))
    worst = t.loc[t.z.abs().idxmax()]
    return Estimate.from_se(r, se, 1.0, data=t,
                            note=f"precision-weighted MC/exact over {len(t)} configurations; max |z| = {abs(worst.z):.2f} "
                                 f"({worst.distribution}, S={worst.S}, n={worst.n}, {worst.estimator})")


@claim(PAPER, "mutation_invariance", source="paper", ref="Sec. 4", citation="Sec. 4 mutation operators (identities g(n,k) = g(n+1,k) + g(n+1,k+1))",
       statement="Every mutation keeps E[estimator] = E[M_0(n)] for every p (exact, after many random mutations); "
                 "the projected estimator's bias is exactly sum_(k<=n) a_(n+1,k) E[g_(k+1)(n+1)] "
                 "- a_(n+1,n+1) E[g_(n+1)(n+1)]",
       scales={"ci": dict(chains=12, steps=30), "full": dict(chains=80, steps=60)})
def mutation_invariance(*, chains, steps, seed):
    rng = as_generator(seed)
    worst, worst_bias, count, rows = Fraction(0), Fraction(0), 0, []
    for c in range(chains):
        S = int(rng.integers(2, 7))
        n = int(rng.integers(3, 13))
        p = _random_rational_p(rng, S)
        target = sum(x * (1 - x) ** n for x in p)
        genome = start_genome(n, exact=True)
        for _ in range(steps):
            genome, _ = mutate(genome, n, rng, exact=True)
            worst = max(worst, abs(genome_expectation(genome, p) - target))
            count += 1
        proj = project(genome, n)
        bias = sum(a * g_exact(p, m, k) for (m, k), a in proj.items()) - target
        predicted_bias = sum((a * g_exact(p, n + 1, k + 1) if k <= n else -a * g_exact(p, n + 1, k))
                             for (m, k), a in genome.items() if m == n + 1)
        worst_bias = max(worst_bias, abs(bias - predicted_bias))
        rows.append(dict(chain=c, S=S, n=n, terms=len(genome), projected_bias=float(bias),
                         predicted_bias=float(predicted_bias)))
    # diagnostic: case 2 as written in the authors' helpf1var.mut does not keep the expectation
    p = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)]
    g = {(5, 1): Fraction(1)}
    drift = 0.0
    for _ in range(20):
        g2, move = mutate(g, 6, rng, exact=True, variant="authors_code")
        if move[2] == 2:
            drift = max(drift, float(abs(genome_expectation(g2, p) - genome_expectation(g, p))))
        g = g2
    return Identity(discrepancy=float(max(worst, worst_bias)), instances=count + chains,
                    what="E[genome] - E[M_0], projected bias - formula", data=pd.DataFrame(rows),
                    note=f"exact rationals; max |E[genome] - E[M_0]| = {float(worst):.3g} over {count} mutations, "
                         f"max |bias - formula| = {float(worst_bias):.3g} over {chains} projections; diagnostic: case 2 as coded by the authors changes E by up to "
                         f"{drift:.3g} in 20 steps (it is not the identity of the paper)")


@claim(PAPER, "headline_success_rate", source="paper", ref="Table 3", stream="headline",
       citation="Abstract (v2) and Table 3: evolved MSE < Good–Turing MSE in >93% of runs with n >= S",
       statement="The distribution-free search finds an estimator with smaller MSE (under the true p) than "
                 "Good–Turing in more than 93% of runs when n >= S",
       scales={"ci": dict(HEADLINE_SCALES["ci"], threshold=0.5), "full": dict(HEADLINE_SCALES["full"], threshold=0.93)})
def headline_success_rate(*, dists, grid, seeds, max_gen, threshold, seed):
    df = _headline(dists, grid, seeds, max_gen, seed)
    return Proportion(successes=int(df.success.sum()), trials=len(df), threshold=threshold,
                            data=_per_config(df),
                            note=f"mean MSE ratio {df.ratio.mean():.4f}; median {df.ratio.median():.4f}; "
                                 f"{len(df)} runs, max_gen={max_gen}")


@claim(PAPER, "headline_mse_ratio", source="paper", ref="Table 3", stream="headline",
       citation="Abstract (v2): 'our estimators' MSE is roughly 80% of the Good-Turing estimator's'; Table 3",
       statement="Mean MSE ratio evolved / Good–Turing (true p, runs with n >= S) is about 0.8 (±10% rel.)",
       scales=HEADLINE_SCALES, expect_reproduced=False,
       why_not="with mutations that keep the expectation identity exactly the search lowers the MSE by well "
               "under 1%: the paper's protocol (6 distributions x 4 configurations with n >= S, 2000 generations) "
               "gave a mean ratio 0.9966 [0.9958, 0.9974] over 72 runs (3 per configuration, recorded with the earlier Python search "
               "before the full scale became 16 per configuration); even the best expectation-preserving estimator knowing p "
               "is only 0.97-0.9997 of GT (claim family_optimum), so 0.8 is out of reach of this family; the "
               "authors' non-identity operators give 0.962 (claim headline_mse_ratio_authors_code)")
def headline_mse_ratio(*, dists, grid, seeds, max_gen, seed):
    df = _headline(dists, grid, seeds, max_gen, seed)
    return _ratio_estimate(df, 0.8, 0.1, f"{len(df)} runs, max_gen={max_gen}, expectation-preserving mutations")


@claim(PAPER, "headline_mse_ratio_authors_code", source="code", ref="Table 3, helpf1var.py", stream="headline",
       citation="Abstract (v2), Table 3, with mutation, projection, pruning as coded in helpf1var.py (mut, mut_avail)",
       statement="With the authors' case-2 mutation, Phi-coordinate projection and pruning, the mean MSE ratio "
                 "evolved / Good–Turing (true p, n >= S) is about 0.8 (±10% rel.)",
       scales=AUTHORS_SCALES, expect_reproduced=False,
       why_not="diagnostic: the authors' case 2 adds g(n+1,k+1) instead of rewriting g(n,k), their projection "
               "maps coef*Phi_k(n+1) to coef*Phi_k(n) and their pruning drops |Phi coefficient| <= 1e-4; with all "
               "three the search explores biased estimators, yet the mean ratio stays near 0.95, not 0.8: 0.962 "
               "[0.915, 1.009] at full scale (36 runs, earlier Python search), 0.969 [0.961, 0.976] without their "
               "pruning; at ci (100 generations, uniform and zipfhalf) means 0.92-0.95 over 20 seeds of 120 runs, "
               "single runs from 0.58 to 0.99 (sd 0.09)")
def headline_mse_ratio_authors_code(*, dists, grid, seeds, max_gen, seed):
    df = _headline(dists, grid, seeds, max_gen, seed, variant="authors_code", projection="phi", prune_scale="phi")
    est = _ratio_estimate(df, 0.8, 0.1, "")
    est.note = (f"{len(df)} runs, max_gen={max_gen}; success rate {df.success.mean():.3f}; "
                f"mean |bias| of evolved {df.evo_bias.abs().mean():.3g}")
    return est


@claim(PAPER, "family_optimum", source="paper", ref="Sec. 4",
       citation="Abstract + Sec. 4: evolved estimators are representations of E[M_0] (implied by the ~0.8 headline)",
       statement="The expectation-preserving family (atoms m in [n-6, n+1], k <= 8) contains an estimator whose "
                 "exact MSE under the true p is at most 0.88 (0.8 + 10%) of Good–Turing's",
       scales={"ci": dict(configs=(("uniform", 100, 100), ("half", 100, 100), ("zipfhalf", 100, 100))),
               "full": dict(configs=tuple((d, S, n) for d in ("uniform", "half", "zipf", "zipfhalf")
                                          for S, n in ((100, 100), (100, 200), (200, 200))))},
       expect_reproduced=False,
       why_not="the best expectation-preserving estimator over the window, knowing p exactly, has MSE 0.970 "
               "(uniform), 0.971 (half), 0.991 (zipfhalf), 0.9997 (zipf) of GT at S = n = 100: the family "
               "itself cannot give 0.8; an MSE of 0.8 needs estimators whose expectation differs from E[M_0]")
def family_optimum_claim(*, configs, seed):
    rows = []
    for d, S, n in configs:
        r = family_optimum(make_distribution(d, S), n)
        rows.append(dict(distribution=d, S=S, n=n, **r))
    t = pd.DataFrame(rows)
    best = t.loc[t.ratio.idxmin()]
    return Bound(value=float(best.ratio), bound=0.88, side="<=", data=t,
                 note=f"smallest optimum/GT over {len(t)} configurations at {best.distribution}, S={best.S}, "
                      f"n={best.n}; largest identity residual {t.residual.max():.1e} (SVD null space)")


# --------------------------------------------------------------------------- figures

def _label_cells(ax, xlabels, ylabels, *, rotation=0):
    """Category labels of a heatmap's columns and rows, drawn as text beside the axes (save_figure's
    readable_ticks gives every linear axis numeric ticks, so the categories cannot live in the tick labels)."""
    ax.tick_params(axis="both", which="both", length=0, labelbottom=False, labelleft=False)
    for j, label in enumerate(xlabels):
        ax.text(j, -0.02, label, transform=ax.get_xaxis_transform(), ha="right" if rotation else "center",
                va="top", rotation=rotation, rotation_mode="anchor" if rotation else "default", fontsize=7)
    for i, label in enumerate(ylabels):
        ax.text(-0.02, i, label, transform=ax.get_yaxis_transform(), ha="right", va="center", fontsize=8)


def _colorbar(fig, im, ax):
    cb = fig.colorbar(im, ax=ax, shrink=0.8)
    cb.ax.tick_params(axis="x", which="both", length=0, labelbottom=False)
    return cb


@figure(PAPER, "table3_heatmap",
        caption="Table 3: success rate (evolved MSE < Good–Turing MSE, true p) and mean MSE ratio per "
                "(distribution, S, n); expectation-preserving mutations, nGT plug-in fitness",
        scales={"ci": dict(dists=("uniform", "zipf"), grid=((100, 100),), seeds=2, max_gen=100),
                "full": dict(dists=DISTRIBUTIONS, grid=GRID, seeds=3, max_gen=2000)})
def table3_heatmap(*, dists, grid, seeds, max_gen, seed):
    df = table3_runs(_configs(dists, grid), seeds, max_gen, "identity", "normalised", seed)
    t = _per_config(df)
    cols = [f"S={S}, n={n}" for S, n in grid]
    fig, axes = subplots(1, 2, width=0.9 * len(grid) + 3.0, height=0.45 * len(dists) + 1.6)
    for ax, value, cmap, title in ((axes[0, 0], "success_rate", "viridis", "success rate"),
                                   (axes[0, 1], "mean_ratio", "magma", "mean MSE ratio evolved / GT")):
        M = np.full((len(dists), len(grid)), np.nan)
        for _, r in t.iterrows():
            M[list(dists).index(r.distribution), list(grid).index((r.S, r.n))] = r[value]
        im = ax.imshow(M, cmap=cmap, aspect="auto")
        _label_cells(ax, cols, dists, rotation=45)
        for (i, j), v in np.ndenumerate(M):
            if np.isfinite(v):
                ax.text(j, i, f"{v:.3g}", ha="center", va="center", fontsize=7, color="w" if im.norm(v) < 0.6 else "k")
        ax.grid(False)
        ax.set_title(title, fontsize=9)
        _colorbar(fig, im, ax)
    return fig, t


@figure(PAPER, "figure2_bias",
        caption="Figure 2: |bias| of Good–Turing (sum p^2 (1-p)^(n-1)) and of the minimal-bias estimator "
                "(sum p^(n+1)) as n grows, six distributions, computed in log space (no underflow)",
        scales={"ci": dict(S=1000, n_max=2000, points=20), "full": dict(S=10000, n_max=5000, points=60)})
def figure2_bias(*, S, n_max, points, seed):
    ns = np.unique(np.geomspace(1, n_max, points).astype(int))
    rows = []
    for d in DISTRIBUTIONS:
        lp = np.log(make_distribution(d, S, seed=child_seed(seed, d)))
        lp = lp[np.isfinite(lp)]
        l1p = np.log1p(-np.exp(lp))
        for n in ns:
            lgt = np.logaddexp.reduce(2 * lp + (n - 1) * l1p)
            lbt = np.logaddexp.reduce((n + 1) * lp)
            rows.append(dict(distribution=d, S=S, n=int(n), log10_gt_bias=lgt / np.log(10),
                             log10_minbias_bias=lbt / np.log(10)))
    t = pd.DataFrame(rows)
    fig, axes = subplots(1, 2, width=4.6)
    for j, (col, title) in enumerate((("log10_gt_bias", "Good–Turing"), ("log10_minbias_bias", "minimal bias"))):
        ax = axes[0, j]
        for d, sub in t.groupby("distribution", sort=False):
            ax.plot(sub.n, sub[col], label=d)
        ax.set_xscale("log")
        ax.set_xlabel("sample size $n$")
        ax.set_ylabel(r"$\log_{10}|\mathrm{bias}|$")
        ax.set_title(f"{title}, $S$ = {S}", fontsize=9)
    axes[0, 0].legend(fontsize=7)
    return fig, t


CROSS = ("uniform", "half", "zipfhalf", "zipf")


@figure(PAPER, "figure3_cross",
        caption="Figure 3: estimators evolved from a sample of distribution A (rows), their exact MSE under "
                "distribution B (columns) relative to Good–Turing's, S = 100, n = 200",
        scales={"ci": dict(S=100, n=200, seeds=1, max_gen=100), "full": dict(S=100, n=200, seeds=5, max_gen=2000)})
def figure3_cross(*, S, n, seeds, max_gen, seed):
    rows = []
    ps = {d: make_distribution(d, S) for d in CROSS}
    gts = {d: exact_moments(good_turing(n), ps[d], n).mse for d in CROSS}
    for a in CROSS:
        for i in range(seeds):
            r = search_run(a, S, n, seed=child_seed(seed, a, i), max_gen=max_gen)
            est = r["_estimator"]
            for b in CROSS:
                mse = exact_moments(est, ps[b], n).mse
                rows.append(dict(evolved_on=a, evaluated_on=b, run=i, mse=mse, gt_mse=gts[b], ratio=mse / gts[b]))
    t = pd.DataFrame(rows)
    M = t.groupby(["evolved_on", "evaluated_on"]).ratio.mean().unstack().loc[list(CROSS), list(CROSS)]
    fig, axes = subplots(1, 1, width=5.0, height=4.0)
    ax = axes[0, 0]
    im = ax.imshow(M.to_numpy(), cmap="coolwarm", vmin=min(0.9, M.min().min()), vmax=max(1.1, M.max().max()))
    _label_cells(ax, CROSS, CROSS)
    for (i, j), v in np.ndenumerate(M.to_numpy()):
        ax.text(j, i, f"{v:.4f}", ha="center", va="center", fontsize=7)
    ax.set_xlabel("evaluated on", labelpad=14)
    ax.set_ylabel("evolved on", labelpad=50)
    ax.grid(False)
    ax.set_title("mean MSE ratio evolved / Good–Turing", fontsize=9)
    _colorbar(fig, im, ax)
    return fig, t
