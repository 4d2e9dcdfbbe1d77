"""Builds notebooks/tsroots.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py tsroots``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("tsroots") + [
        ("md", r"""## A separable prior sample and its candidates

$f(x) = \sigma_f \prod_i f_i(x_i)$ with 1-D random-Fourier-feature paths $f_i$ of the SE kernel (exact
derivatives of every order). Per dimension, the critical points are the roots of $f_i'$ (a Chebyshev proxy of
$f_i'$, colleague-matrix roots, Newton polish), plus the two endpoints. With $h = f_i f_i''$ inside,
$h = f_i f_i'$ at $lb_i$ and $h = -f_i f_i'$ at $ub_i$, the points split into *mono* ($h > 0$: local minima of
$|f_i|$) and *mixed* ($h < 0$: local maxima of $|f_i|$). Fixing all but one coordinate, $f$ is a multiple of
$f_i$, so the full factorial of the per-dimension points contains the global maximiser and minimiser of $f$.
`THEORYLAB_SCALE=ci` keeps every cell tiny."""),
        ("code", """import os
import numpy as np
from theorylab.gp import tsroots as T
from theorylab.core.plotting import pyplot
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
f = T.separable_prior_sample(2, lengthscale=0.3, n_features=256, seed=0)
C = T.candidate_set(f)
for i in range(2):
    print(f"dimension {i}: {C.x[i].size - 2} critical points, mono {C.mono[i].sum()}, mixed {C.mixed[i].sum()}")
X, vals = T.minimiser_candidates(C, rule="all", sigma_f=f.sigma_f)
n = 200 if CI else 1000
g = np.linspace(-1, 1, n)
V = f.sigma_f * np.multiply.outer(T.path_1d(f, 0, g), T.path_1d(f, 1, g))
print(f"best candidate max {vals.max():.6f} vs {n}^2-grid max {V.max():.6f}; min {vals.min():.6f} vs {V.min():.6f}")"""),
        ("md", r"""## The errata: the $h < 0$ points alone are not enough

TSRoots' minimiser candidates are the mono combinations with a positive product and the mixed combinations with
a negative product. The mixed ones alone miss the minimiser exactly when $\min f > 0$: in 1-D, when the path
keeps a positive sign on the interval."""),
        ("code", """miss = pos = 0
N = 100 if CI else 2000
for s in range(N):
    h = T.separable_prior_sample(1, lengthscale=np.random.default_rng(s).uniform(0.2, 0.5), n_features=256, seed=s)
    Ch = T.candidate_set(h)
    _, p_all = T.minimiser_candidates(Ch, rule="all")
    _, p_mix = T.minimiser_candidates(Ch, rule="mixed_only")
    miss += (p_mix.size == 0) or (p_mix.min() > p_all.min() + 1e-12)
    pos += p_all.min() > 0
print(f"h < 0 alone misses {miss}/{N} minimisers; positive paths: {pos}/{N}")"""),
        ("md", r"""## Optimising a posterior sample

The posterior sample is $f_{post}(x) = f(x) + k(x, X)(K + \sigma_n^2 I)^{-1}(y - f(X) - \varepsilon)$ (pathwise
conditioning). TSRoots starts SLSQP from the best minimiser candidate of the prior sample (by $f_{post}$) and the
best data point; the baseline starts from uniform random points."""),
        ("code", """def show(ell=0.3, m=5, seed=0):
    g = T.separable_prior_sample(1, lengthscale=ell, n_features=256, seed=[seed, 1])
    X = np.random.default_rng([seed, 2]).uniform(-1, 1, (m, 1))
    f = T.separable_prior_sample(1, lengthscale=ell, n_features=256, seed=[seed, 3])
    post = T.posterior_sample(f, X, T.evaluate_prior(g, X), noise=1e-3, seed=[seed, 4])
    t = np.linspace(-1, 1, 600)[:, None]
    S = T.tsroots_starts(post)
    x_ts, f_ts, _ = T.optimise_from(post, S)
    x_rd, f_rd, _ = T.optimise_from(post, T.random_starts(1, n=2, seed=seed))
    x_gl, f_gl = T.grid_minimum(post, n_grid=2001)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    ax.plot(t, T.evaluate_prior(f, t), "k--", lw=1, label="prior sample")
    ax.plot(t, T.evaluate_posterior(post, t), label="posterior sample")
    ax.plot(X, post.y_data, "ko", label="data")
    ax.plot(S, T.evaluate_posterior(post, S), "^", label="TSRoots starts")
    ax.plot(x_ts, [f_ts], "*", ms=12, label=f"TSRoots {f_ts:.4f}")
    ax.plot(x_rd, [f_rd], "s", label=f"random {f_rd:.4f}")
    ax.set_title(f"global minimum {f_gl:.4f}"); ax.legend(fontsize=7); plt.show()

show()"""),
        explore_cell("show(ell, m, seed)", {
            "ell": (0.3, "FloatSlider(value=0.3, min=0.1, max=1.0, step=0.05)"),
            "m": (5, "IntSlider(value=5, min=1, max=20)"),
            "seed": (0, "IntSlider(value=0, min=0, max=50)")}),
        ("code", """found = {"tsroots": 0, "random": 0}
N = 4 if CI else 200
for s in range(N):
    g = T.separable_prior_sample(2, lengthscale=0.3, n_features=256, seed=[s, 1])
    X = np.random.default_rng([s, 2]).uniform(-1, 1, (10, 2))
    f = T.separable_prior_sample(2, lengthscale=0.3, n_features=256, seed=[s, 3])
    post = T.posterior_sample(f, X, T.evaluate_prior(g, X), noise=1e-3, seed=[s, 4])
    _, f_gl = T.grid_minimum(post, n_grid=101 if CI else 301)
    _, f_ts, _ = T.optimise_from(post, T.tsroots_starts(post))
    _, f_rd, _ = T.optimise_from(post, T.random_starts(2, n=2, seed=s))
    best = min(f_gl, f_ts, f_rd)
    found["tsroots"] += f_ts <= best + 1e-6
    found["random"] += f_rd <= best + 1e-6
print(f"2-D, {N} posterior samples: found the global minimum", found)"""),
    ]


if __name__ == "__main__":
    print(write_notebook("tsroots", cells()))
