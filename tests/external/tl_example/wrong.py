"""ext_wrong: a deliberately wrong rate (the mean's variance does not decay like n^-2)."""

import numpy as np

from theorylab.claims import Paper, Slope, claim, fit_loglog

from .sim import sample_means

PAPER = Paper(id="ext_wrong", title="A wrong rate", authors="A. Tester", venue="tests")
NS = np.array([4, 8, 16, 32, 64, 128, 256])


@claim(PAPER, "variance_rate_wrong", source="derived", ref="deliberately wrong", citation="none: a wrong exponent",
       statement="Var of the mean of n draws decays like n^-2 (wrong: it is n^-1)",
       scales={"ci": dict(n_runs=2000), "full": dict(n_runs=8000)})
def variance_rate_wrong(*, n_runs, seed):
    x = sample_means(256, n_runs, seed=seed)
    return Slope(fit=fit_loglog(NS, samples=x[:, NS - 1] ** 2, seed=seed), predicted=-2.0)
