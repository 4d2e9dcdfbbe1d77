"""fsgdm benchmark: the jitted momentum-SGD kernel (FSGDM schedule, noisy quadratic d = 100) against the
vectorised numpy reference (all runs at once), in the same process.  ratio = numpy time / jit time."""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.stochastic.fsgdm import run_momentum_quadratic, run_momentum_quadratic_numpy


@benchmark("fsgdm", "momentum_quadratic_kernel")
def bench_momentum(*, quick=False):
    """d = 100, Sigma = 11700 steps (N = 30 stages); 16 runs (quick: Sigma = 1170, N = 3, 8 runs)."""
    lam = np.geomspace(1e-3, 1.0, 100)
    kw = dict(sigma=1170 if quick else 11_700, n_stages=3 if quick else 30, n_runs=8 if quick else 16, seed=0)
    run_momentum_quadratic(lam, np.ones(100), sigma=10, n_stages=2, n_runs=1)      # compile outside the timing
    t_jit = best_time(run_momentum_quadratic, lam, np.ones(100), repeat=1 if quick else 3, parallel=False, **kw)
    t_np = best_time(run_momentum_quadratic_numpy, lam, np.ones(100), repeat=1, **kw)
    work = kw["n_runs"] * kw["sigma"] * 100
    return {"ratio": t_np / t_jit, "jit_s": t_jit, "numpy_s": t_np, "element_steps": work}
