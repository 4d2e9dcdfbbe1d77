"""fsgdm — Li, Luo, Zheng, Wang, Luo, Wen, Wu, Xu (ICLR 2025), "On the Performance Analysis of Momentum Method: A
Frequency Domain Perspective", arXiv:2411.19671.

Sources: the spec's restatement of the authors' FSGDM optimiser (GitHub yinleung/FSGDM) [paper: code], the
abstract; the filter algebra is [derived] (H(z) = v/(1 - u z^-1) within a stage).  The errata stand where they
differ from the spec: the low-pass vs high-pass comparison is made at matched DC gain (a high-pass u < 0 with
v_t = v (1 - u)/(1 - u_t)), and the schedule has N + 1 distinct u values (stage 0 has delta - 1 steps, the
last stage 1 step).

Checks: the u_t schedule (code formula vs an independent stage construction, exact); |H|^2 from sympy equals
the closed form; the periodogram of white noise through one stage matches |H|^2 in 64 bands at several stages
(bootstrap over independent runs); DC gain v/(1 - u_k) = v (s + mu)/mu at every stage (exact rationals) and the
filter's response to a constant input; the low-pass (FSGDM) vs high-pass trend at matched DC gain on the
spec's noisy quadratic (d = 100, eigenvalues log-spaced in [1e-3, 1], sigma = 0.1).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from theorylab.core import Bound, Identity, Paper, as_generator, bootstrap_ci, child_seed, claim, figure
from theorylab.core.plotting import subplots
from theorylab.core.sweep import grid, sweep
from theorylab.stochastic import fsgdm as F
from theorylab.core.experiment import experiment

PAPER = Paper(
    id="fsgdm",
    title="On the Performance Analysis of Momentum Method: A Frequency Domain Perspective",
    authors="Xianliang Li, Jun Luo, Zhiwei Zheng, Hanxiao Wang, Li Luo, Lingkun Wen, Linlong Wu, Sheng Xu",
    arxiv="2411.19671",
)

SIGMA, N_STAGES, C, V = 117_000, 300, 0.033, 1.0      # the optimiser's CIFAR-100 defaults (spec)
DELTA, MU = SIGMA // N_STAGES, C * SIGMA
STAGES = (1, 10, 50, 300)                             # stages whose filter is tested (u = 0.09 .. 0.968)
REL_TOL = 0.03                                        # spec: periodogram ratio within 3% of |H|^2


# --------------------------------------------------------------------------- claims

@claim(PAPER, "schedule_exact", source="code", ref="", stream="schedule",
       citation="[paper: code] FSGDM optimiser (yinleung/FSGDM) as restated in the spec: s = (step // delta) "
                "delta, u = s/(s + c Sigma); errata: N + 1 distinct values, stage 0 delta - 1 steps, last 1 step",
       statement="for Sigma = {sigma}, N = {n_stages}, c = 0.033 the jitted u_t (code formula) equals an independent "
                 "stage-by-stage construction at every t <= Sigma, with N + 1 distinct stages of lengths "
                 "delta - 1, delta, ..., delta, 1 (discrepancy: max |u_code - u_ref| + count mismatches)",
       scales={"ci": dict(sigma=SIGMA, n_stages=N_STAGES), "full": dict(sigma=SIGMA, n_stages=N_STAGES)})
def schedule_exact(*, sigma, n_stages, seed):
    u = F.stage_schedule(sigma, n_stages, C)
    u_ref, u_k, lengths = F.stage_schedule_reference(sigma, n_stages, C)
    delta = sigma // n_stages
    expected_len = np.r_[delta - 1, np.full(n_stages - 1, delta), 1]
    mismatch = (abs(np.unique(u).size - (n_stages + 1)) + abs(u_k.size - (n_stages + 1))
                + (0 if lengths.shape == expected_len.shape and np.array_equal(lengths, expected_len) else 1))
    disc = float(np.max(np.abs(u - u_ref))) + mismatch
    tab = pd.DataFrame({"stage": np.arange(u_k.size), "u_k": u_k, "length": lengths})
    return Identity(discrepancy=disc, instances=int(u.size), what="u_code - u_reference", data=tab,
                    note=f"{np.unique(u).size} distinct u, u_final = {u[-1]:.6f}, 1/(1+c) = {1 / (1 + C):.6f}")


@claim(PAPER, "transfer_sympy", source="derived", ref="", stream="algebra",
       citation="[derived] H(z) = v/(1 - u z^-1) of m_t = u m_{t-1} + v g_t (spec, filter algebra [I])",
       statement="|H(e^{iw})|^2 computed symbolically by sympy equals v^2/(1 - 2u cos w + u^2) (the numpy "
                 "transfer_power) at {n_freq} frequencies for every stage u_k of the default schedule",
       scales={"ci": dict(n_freq=64), "full": dict(n_freq=64)})
def transfer_sympy(*, n_freq, seed):
    import sympy as sp

    expr, (u, v, w) = F.transfer_power_sympy()
    fn = sp.lambdify((u, v, w), expr, "numpy")
    omega = np.linspace(0, np.pi, n_freq)
    _, u_k, _ = F.stage_schedule_reference(SIGMA, N_STAGES, C)
    disc = max(float(np.max(np.abs(fn(uk, V, omega) / F.transfer_power(omega, uk, V) - 1))) for uk in u_k)
    return Identity(discrepancy=disc, instances=int(u_k.size * n_freq), atol=1e-12, what="sympy/closed - 1",
                    note=f"sympy: {expr}")


def band_point(*, stage: int, n: int, n_runs: int, seglen: int, seed: int) -> pd.DataFrame:
    """Band powers (per run) of white noise through the stage-k filter, and the band means of |H|^2."""
    s = stage * DELTA
    u = s / (s + MU)
    x = F.filtered_noise(u, V, n=n, n_runs=n_runs, seed=seed)
    centres, bp, omegas = F.band_periodogram(x, seglen=seglen, n_bands=64)
    H = np.array([F.transfer_power(o, u, V).mean() for o in omegas])
    return pd.DataFrame({"stage": stage, "u": u, "run": np.repeat(np.arange(n_runs), centres.size),
                         "band": np.tile(np.arange(centres.size), n_runs), "omega": np.tile(centres, n_runs),
                         "power": bp.ravel(), "H2": np.tile(H, n_runs)})


@experiment(PAPER)
def band_sweep(stages, n, n_runs, seglen, seed):
    return sweep(band_point, grid(stage=list(stages), n=[n], n_runs=[n_runs], seglen=[seglen]), seed=seed,
                 progress=False, desc="fsgdm periodograms")


def _ratio_cube(df):
    """(runs, stages * bands) band power / |H|^2."""
    w = df.assign(r=df.power / df.H2).pivot_table(index="run", columns=["stage", "band"], values="r")
    return w.to_numpy()


TF_SCALES = {"ci": dict(stages=(10, 300), n=2**20, n_runs=16, seglen=8192),
             "full": dict(stages=STAGES, n=2**20, n_runs=48, seglen=8192)}


def max_deviation_ci(R, groups, *, level=0.95, n_boot=4000, seed=0):
    """T = max_j |mean over runs of R[:, j] - 1| with an interval for E[T] (an upper bound on the true maximum
    deviation max_j |E R_j - 1|, by Jensen), from the sampling distribution of T simulated under moment selection.

    Why not a percentile bootstrap over runs (issue 28: calibration ratio 0.57): the max of J near-tied |means|
    is not smooth, and the run bootstrap is inconsistent for it.  Its world centres every band at the noisy
    estimate itself, so it compounds the noise (on half of the seeds its 95% interval lay wholly above T), and
    with each band's s.e. estimated from 16 runs its maximum is carried by the bands whose s.e. came out high:
    the bootstrap s.d. of T was 1.6x T's s.d. over root seeds (0.0025 vs about 0.0015 at ci).
    Here: every band of one group (one stage) averages the same number of Fourier bins of a ratio normalised by
    |H|^2, so its band means share one variance (the per-band s.e. agree within 5% over 12 x 16 runs): the s.e. is
    pooled per group, and T's law is simulated as T* = max_j |c_j + s.e._j Z_j|, Z standard normal (each band mean
    averages thousands of periodogram values).  Centres by moment selection (Andrews and Soares 2010): c_j = 0 for
    a band within sqrt(2 ln J) s.e. of 1 (the level the maximum of J null bands reaches), else its deviation, so
    T*'s spread is the null maximum's when all bands match and a band far from 1 carries T* with its own s.e.  The
    basic interval for E[T] is [T - (q_hi - mean T*), T - (q_lo - mean T*)] (clipped at 0).  On synthetic bands
    (16 runs x 128 bands, one band shifted by 0 .. 8 s.e.) z s.d.(T) / mean half-width is 0.84 .. 1.16 (the run
    bootstrap: 0.62 .. 1.22, covering E[T] in 16% of draws at the null); where the shifted band is 3 - 4 s.e.
    above the null maximum's level (the regime no estimate of the max's spread handles uniformly) the interval
    covers E[T] in 74 - 86% of draws, 94 - 98% elsewhere.  Soft thresholding was tried and rejected: it under-
    covers that regime far worse (ratio 2.2).
    Returns (T, lo, hi)."""
    R = np.asarray(R, dtype=float)
    groups = np.asarray(groups)
    n, J = R.shape
    if groups.shape != (J,):
        raise ValueError(f"groups must hold one label per column of R ({J}); got shape {groups.shape}")
    d = R.mean(0) - 1
    se = R.std(0, ddof=1) / np.sqrt(n)
    pooled = np.empty(J)
    for g in np.unique(groups):
        pooled[groups == g] = np.sqrt(np.mean(se[groups == g] ** 2))
    centre = np.where(np.abs(d) > np.sqrt(2 * np.log(J)) * pooled, d, 0.0)
    rng = as_generator(child_seed(seed, "max_deviation_ci"))
    Tb = np.abs(centre + pooled * rng.standard_normal((n_boot, J))).max(1)
    T = float(np.max(np.abs(d)))
    q_lo, q_hi = np.quantile(Tb, [(1 - level) / 2, (1 + level) / 2])
    m = float(Tb.mean())
    return T, max(0.0, T - (q_hi - m)), T + (m - q_lo)


@claim(PAPER, "transfer_periodogram", source="derived", ref="", stream="periodogram",
       citation="[derived] |H(e^{iw})|^2 = v^2/(1 - 2u cos w + u^2) (spec, filter algebra [I]; check 2)",
       statement="white N(0,1) noise through one FSGDM stage (stages {stages}, u = u_k of each; v = 1): the "
                 "Hann-windowed periodogram averaged over runs and over each of 64 bands of (0, pi) matches the "
                 "band mean of |H|^2: max over bands and stages of |P/|H|^2 - 1| <= 0.03 (interval: the max's sampling "
                 "distribution simulated with the s.e. over runs pooled per stage and moment selection)",
       scales=TF_SCALES)
def transfer_periodogram(*, stages, n, n_runs, seglen, seed):
    df = band_sweep(tuple(stages), n, n_runs, seglen, seed)
    R = _ratio_cube(df)
    q, lo, hi = max_deviation_ci(R, np.repeat(sorted(set(df.stage)), R.shape[1] // df.stage.nunique()), seed=seed)
    tab = df.groupby(["stage", "band"]).agg(u=("u", "first"), omega=("omega", "first"), power=("power", "mean"),
                                            H2=("H2", "first")).reset_index()
    tab["ratio"] = tab.power / tab.H2
    return Bound(value=q, bound=REL_TOL, side="<=", ci=(lo, hi), data=tab,
                 note=f"{R.shape[1]} band ratios, mean {R.mean():.4f}")


@claim(PAPER, "dc_gain", source="derived", ref="", stream="algebra",
       citation="[derived] DC gain H(1) = v/(1 - u) = v (s + mu)/mu (spec, filter algebra [I])",
       statement="at every stage k = 0..N of the default schedule, v/(1 - u_k) = v (k delta + mu)/mu in exact "
                 "rationals (mu = c Sigma = 3861), and the stage filter's response to a constant unit input "
                 "converges to the float dc_gain(u_k) (relative error <= 1e-9)",
       scales={"ci": dict(n_stages=N_STAGES), "full": dict(n_stages=N_STAGES)})
def dc_gain(*, n_stages, seed):
    mu = Fraction(C).limit_denominator(10**6) * SIGMA
    exact = max(abs(float(a - b)) for a, b in (F.dc_gain_exact(k, DELTA, mu, 1) for k in range(n_stages + 1)))
    rows = []
    for k in range(n_stages + 1):
        u = k * DELTA / (k * DELTA + MU)
        m, T = 0.0, int(np.ceil(np.log(1e-13) / np.log(u))) if u > 0 else 1
        for _ in range(T):
            m = u * m + V * 1.0
        rows.append(dict(stage=k, u=u, response=m, dc_gain=F.dc_gain(u, V), linear=V * (k * DELTA + MU) / MU))
    tab = pd.DataFrame(rows)
    rel = float(np.max(np.abs(tab.response / tab.dc_gain - 1)))
    return Identity(discrepancy=max(exact, rel), instances=2 * len(rows), atol=1e-9, what="gain - v(s+mu)/mu",
                    data=tab, note=f"exact rationals max diff {exact}; constant-input response rel err {rel:.2e}")


LAM = np.geomspace(1e-3, 1.0, 100)
# ci: 16 paired runs (8 left the 95% bound inconclusive on 1 of 20 root seeds: upper end 1.007 at a ratio of 0.91,
# with the percentile bootstrap over so few runs also too narrow by about t_7/z; calibration 2026-12-05)
Q_SCALES = {"ci": dict(n_runs=16, sigma=11_700, n_stages=30), "full": dict(n_runs=96, sigma=11_700, n_stages=30)}
U_HIGH = -0.3
LR = 0.02
N_TAIL = 5                                             # loss averaged over the last 5 stage ends


def quad_point(*, method: str, u_fixed: float, n_runs: int, sigma: int, n_stages: int, seed: int) -> pd.DataFrame:
    cu = F.run_momentum_quadratic(LAM, np.ones(LAM.size), lr=LR, noise=0.1, sigma=sigma, n_stages=n_stages, c=C,
                                  v=V, method=method, u_fixed=u_fixed, n_runs=n_runs, seed=seed)
    return pd.DataFrame({"method": method, "u_fixed": u_fixed, "run": np.repeat(np.arange(n_runs), cu.shape[1]),
                         "k": np.tile(np.arange(cu.shape[1]), n_runs), "loss": cu.ravel()})


@experiment(PAPER)
def quad_sweep(n_runs, sigma, n_stages, seed):
    # same seed for every method: paired runs share their noise draws
    parts = [sweep(quad_point, grid(method=[m], u_fixed=[uf], n_runs=[n_runs], sigma=[sigma], n_stages=[n_stages]),
                   seed=seed, progress=False, desc="fsgdm quadratic") for m, uf in
             (("fsgdm", 0.0), ("matched", U_HIGH), ("matched", 1 / (1 + C)))]
    return pd.concat(parts, ignore_index=True)


def _tail(df, method, u_fixed):
    w = df[(df.method == method) & np.isclose(df.u_fixed, u_fixed)].pivot(index="run", columns="k", values="loss")
    return w.to_numpy()[:, -N_TAIL:].mean(1)


@claim(PAPER, "lowpass_beats_highpass", source="paper", ref="abstract", stream="quadratic",
       citation="[paper] abstract: 'high-frequency gradient components are undesired in the late stages of "
                "training' (an empirical finding on networks); instance and matched-DC-gain comparison are ours "
                "(spec check 3, type B, as corrected by the errata); trend",
       statement="trend: noisy quadratic (d = 100, eigenvalues log-spaced in [1e-3, 1], gradient noise 0.1, "
                 "theta_0 = 1, lr 0.02, Sigma = {sigma}, N = {n_stages}): FSGDM's final loss (mean of the last 5 stage "
                 "ends) is at most that of a high-pass filter u = -0.3 with the same DC gain at every step: "
                 "ratio E[loss_FSGDM]/E[loss_high] <= 1 (bootstrap over paired runs)",
       scales=Q_SCALES)
def lowpass_beats_highpass(*, n_runs, sigma, n_stages, seed):
    df = quad_sweep(n_runs, sigma, n_stages, seed)
    a, b, e = _tail(df, "fsgdm", 0.0), _tail(df, "matched", U_HIGH), _tail(df, "matched", 1 / (1 + C))
    q, lo, hi = bootstrap_ci(lambda x, y: float(x.mean() / y.mean()), a, b, seed=seed)
    tab = pd.DataFrame({"filter": ["FSGDM (u_t, v)", f"high-pass u = {U_HIGH}, matched DC",
                                   f"fixed u = 1/(1+c), matched DC"],
                        "final_loss": [a.mean(), b.mean(), e.mean()],
                        "se": [x.std(ddof=1) / np.sqrt(x.size) for x in (a, b, e)]})
    return Bound(value=q, bound=1.0, side="<=", ci=(lo, hi), data=tab,
                 note=f"fixed-u low-pass at matched DC gain / FSGDM: {e.mean() / a.mean():.3f}")


# --------------------------------------------------------------------------- figures

@figure(PAPER, "filter_and_schedule",
        caption="FSGDM: the stage schedule u_t (Sigma = 117000, N = 300, c = 0.033) and |H(w)| of several stages, "
                "with the measured band periodograms of filtered white noise",
        scales={"ci": dict(stages=STAGES, n=2**15, n_runs=2, seglen=4096), "full": TF_SCALES["full"]})
def fig_filter(*, stages, n, n_runs, seglen, seed):
    u = F.stage_schedule(SIGMA, N_STAGES, C)
    df = band_sweep(tuple(stages), n, n_runs, seglen, seed)
    fig, ax = subplots(1, 2, width=9.0)
    ax[0, 0].plot(np.arange(1, SIGMA + 1), u, lw=1)
    ax[0, 0].set_xlabel("step t")
    ax[0, 0].set_ylabel(r"$u_t$")
    w = np.linspace(1e-3, np.pi, 400)
    rows = []
    for j, (k, g) in enumerate(df.groupby("stage")):
        uk = float(g.u.iloc[0])
        ax[0, 1].plot(w, np.sqrt(F.transfer_power(w, uk, V)), color=f"C{j}", label=f"stage {k}, u = {uk:.3f}")
        m = g.groupby("band").agg(omega=("omega", "first"), power=("power", "mean"), H2=("H2", "first"))
        ax[0, 1].plot(m.omega, np.sqrt(m.power), "o", ms=2, color=f"C{j}")
        rows.append(m.reset_index().assign(stage=k, u=uk))
    ax[0, 1].set_yscale("log")
    ax[0, 1].set_xlabel(r"frequency $\omega$")
    ax[0, 1].set_ylabel(r"$|H(e^{i\omega})|$")
    ax[0, 1].legend(fontsize=7)
    return fig, pd.concat(rows, ignore_index=True)
