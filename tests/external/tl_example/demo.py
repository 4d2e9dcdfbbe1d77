"""ext_demo: the mean of n draws has variance 1/n (claims that reproduce, and one declared finding)."""

import numpy as np

from theorylab.claims import Estimate, Paper, Slope, claim, experiment, figure, fit_loglog, mean_ci

from .sim import sample_means

PAPER = Paper(id="ext_demo", title="The variance of a sample mean", authors="A. Tester", venue="tests")
SCALES = {"ci": dict(n_max=256, n_runs=2000), "full": dict(n_max=1024, n_runs=8000)}
NS = np.array([4, 8, 16, 32, 64, 128, 256])


@experiment(PAPER)
def means(n_max, n_runs, seed):
    return sample_means(n_max, n_runs, seed=seed)


@claim(PAPER, "variance_rate", stream="means", source="derived", ref="Var(mean) = 1/n", citation="CLT",
       statement="Var of the mean of n draws decays like n^-1", scales=SCALES)
def variance_rate(*, n_max, n_runs, seed):
    x = means(n_max, n_runs, seed)
    return Slope(fit=fit_loglog(NS, samples=x[:, NS - 1] ** 2, seed=seed), predicted=-1.0)


@claim(PAPER, "variance_level", stream="means", source="derived", ref="Var(mean) = 1/n", citation="CLT",
       statement="n Var(mean) = 1 at n = {n_max}", scales=SCALES)
def variance_level(*, n_max, n_runs, seed):
    m, lo, hi, _ = mean_ci(n_max * means(n_max, n_runs, seed)[:, -1] ** 2)
    return Estimate(value=m, ci=(lo, hi), predicted=1.0)


@claim(PAPER, "variance_doubled", stream="means", source="derived", ref="a wrong constant, declared",
       citation="a declared finding: the constant 2 does not hold",
       statement="n Var(mean) = 2 at n = {n_max}", scales=SCALES, expect_reproduced=False,
       why_not="the variance of a mean of unit-variance draws is 1/n, not 2/n")
def variance_doubled(*, n_max, n_runs, seed):
    m, lo, hi, _ = mean_ci(n_max * means(n_max, n_runs, seed)[:, -1] ** 2)
    return Estimate(value=m, ci=(lo, hi), predicted=2.0)


@figure(PAPER, "variance_vs_n", caption="n Var(mean of n draws) against n.", scales=SCALES)
def variance_vs_n(*, n_max, n_runs, seed):
    import matplotlib.pyplot as plt
    import pandas as pd

    x = means(n_max, n_runs, seed)
    data = pd.DataFrame({"n": NS, "n_var": NS * (x[:, NS - 1] ** 2).mean(axis=0)})
    fig, ax = plt.subplots()
    ax.plot(data.n, data.n_var, "o-")
    ax.set(xscale="log", xlabel="n", ylabel="n Var")
    return fig, data
