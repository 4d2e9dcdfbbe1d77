"""tsroots benchmark: the per-dimension critical points of separable prior samples (TSRoots' inner loop,
``multi_func_roots_cheb``): the Chebyshev proxy + colleague-matrix roots + Newton polish of theorylab.gp.tsroots
against scipy's brentq on the sign changes of f_i' over a uniform grid of 4096 points (the plain reference), in the
same process, on the same samples.  ratio = reference time / Chebyshev time; the number of samples where the two
root sets differ (count or location beyond 1e-8) is reported as well.  A second ratio times the reference grid
minimum of a 2-D posterior sample: separable tensor-grid evaluation against a dense evaluation of every grid point."""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.gp import tsroots as T


def _samples(n, d=1):
    return [T.separable_prior_sample(d, lengthscale=0.2 + 0.3 * (s % 7) / 6, n_features=256, seed=s) for s in range(n)]


@benchmark("tsroots", "critical_points")
def bench_critical_points(*, quick=False):
    """Critical points of n 1-D paths on [-1, 1] (l in [0.2, 0.5], 256 features; quick: 5, else 100)."""
    S = _samples(5 if quick else 100)

    def cheb():
        return [T.critical_points_1d(f, 0) for f in S]

    def ref():
        return [T.critical_points_grid_1d(f, 0, n_grid=4096) for f in S]

    t_c = best_time(cheb, repeat=3)
    t_r = best_time(ref, repeat=1 if not quick else 2)
    differ = sum(a.size != b.size or (a.size and np.abs(a - b).max() > 1e-8) for a, b in zip(cheb(), ref()))
    post = T.posterior_sample(_samples(1, d=2)[0], np.random.default_rng(0).uniform(-1, 1, (10, 2)), np.zeros(10))
    axes = [np.linspace(-1, 1, 101 if quick else 201)] * 2   # quick (the CI run): the dense side took 1.3 s at 201^2
    G = np.stack([a.ravel() for a in np.meshgrid(*axes, indexing="ij")], 1)
    t_sep = best_time(T._posterior_on_grid, post, axes, repeat=3)
    t_dense = best_time(T.evaluate_posterior, post, G, repeat=1)
    return {"ratio": t_r / t_c, "cheb_s": t_c, "brentq_grid_s": t_r, "samples": len(S), "root_sets_differ": int(differ),
            "grid_ratio": t_dense / t_sep, "grid_separable_s": t_sep, "grid_dense_s": t_dense}
