"""Builds notebooks/qexp_policy.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py qexp_policy``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("qexp_policy") + [
        ("md", r"""## A toy proxy: the q-Gaussian family, its samplers, and exploration on a two-bump bandit

The paper is empirical (RL benchmarks). Checked here: the family $p(x) \propto \exp_q(-\beta x^2)$ exactly (compact
support for $q < 1$, a Student-t with $\nu = (3-q)/(q-1)$ for $1 < q < 3$), the generalized Box–Muller sampler with
$q' = (1+q)/(3-q)$ (the authors' code uses $(q-1)/(3-q)$: at $q = 2$ that draws a Gaussian), and a toy proxy of
exploration with a fixed policy scale."""),
        ("code", """import numpy as np
from scipy import stats
from theorylab.toys import q_exponential as Q
for q in (0.5, 1.5, 2.0):
    for authors in (False, True):
        x = Q.q_gaussian_sample(100_000, q, 0.7, seed=1, authors=authors)
        d = stats.kstest(x, lambda t: Q.q_gaussian_cdf(t, q, 0.7)).statistic
        print(f"q = {q}: q' = {Q.box_muller_parameter(q, authors=authors):.3f} ({'authors' if authors else 'correct'}), "
              f"sqrt(n) KS = {d * np.sqrt(x.size):.2f}")"""),
        ("md", r"""## Densities and sampled histograms"""),
        ("code", """from theorylab.validations.qexp_policy import fig_densities
def show(n=20000):
    fig, table = fig_densities(n=n, seed=0)
    return fig"""),
        explore_cell("show(n)", {"n": (20000, "IntSlider(value=20000, min=2000, max=400000, step=2000)")}),
        ("md", r"""## Escape thresholds at a fixed scale (toy proxy of exploration)

$J'(\mu) = E\,r'(\mu + \sigma Z_q)$ is the mean policy gradient; $\sigma^*$ is the smallest scale with $J' > 0$ on
$[0, \text{valley}]$."""),
        ("code", """for q in (1.0, 2.0):
    s = Q.escape_threshold(q)
    for f in (0.8, 1.2):
        mu = Q.policy_gradient(q, f * s, runs=50, seed=0)
        print(f"q = {q}: sigma* = {s:.3f}; at {f} sigma*: {np.mean(mu > Q.bandit_valley()):.2f} of runs past the valley")"""),
    ]


if __name__ == "__main__":
    print(write_notebook("qexp_policy", cells()))
