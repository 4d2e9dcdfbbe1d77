"""dap benchmarks: the jitted batched estimator (trials x directions x d) against the same estimator
vectorised in numpy over (trials, b, d) arrays (``estimator_trials_numpy``), in the same process.

The instance is the authors' tau-MSE setup: the product function in d = 16 at their point (x[0] = 0),
forward differences with mu = 1e-8, b = 32 directions per estimate; the ratio is numpy time / jit time.
``quick`` (the test run) times the serial kernel only; the full run also times the threaded kernel
(same numbers, one random state per trial), whose compilation takes ~10 s, and profiles the kernel against
its random-number floor (``draw_fraction``, ``ratio_cap``: benchmarks/_rng_floor.py), which says whether the
5x goal is reachable at all when both sides spend their time drawing normals.
"""

import numba
import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.zeroth.estimators import estimator_trials, estimator_trials_numpy
from theorylab.zeroth.oracles import diagonal_quadratic, product, quadratic_spectrum

from ._rng_floor import rng_floor


def _authors_point(d=16):
    x = np.random.RandomState(42).normal(size=d)
    x[0] = 0.0
    return x


def _run(oracle, x, law, b, trials, quick):
    kw = dict(law=law, b=b, delta=1e-8, scheme="forward")
    estimator_trials(oracle, x, trials=2, seed=0, **kw)             # compile outside the timing
    t_jit = best_time(estimator_trials, oracle, x, trials=trials, seed=1, repeat=3, **kw)
    t_np = best_time(estimator_trials_numpy, oracle, x, trials=trials, seed=1, repeat=2 if quick else 3, **kw)
    out = {"ratio": t_np / t_jit, "law": law, "b": b, "d": oracle.d, "trials": trials, "jit_s": t_jit,
           "numpy_s": t_np, "jit_queries_per_s": trials * (b + 1) / t_jit,
           "numpy_queries_per_s": trials * (b + 1) / t_np}
    if not quick:
        estimator_trials(oracle, x, trials=2, seed=0, parallel=True, **kw)
        a = estimator_trials(oracle, x, trials=64, seed=3, **kw)
        c = estimator_trials(oracle, x, trials=64, seed=3, parallel=True, **kw)
        t_par = best_time(estimator_trials, oracle, x, trials=trials, seed=1, parallel=True, repeat=3, **kw)
        out.update(parallel_s=t_par, ratio_parallel=t_np / t_par, threads=numba.get_num_threads(),
                   parallel_same_numbers=bool(np.array_equal(a, c)))
        # profile: each trial draws b directions of d normals (see benchmarks/_rng_floor.py)
        out.update(rng_floor(trials, b * oracle.d, t_jit=t_jit, t_numpy=t_np))
    return out


@benchmark("dap", "estimator_trials_product")
def bench_product(*, quick=False):
    """DAP (exact gradient) on the authors' product function, d = 16, b = 32: jit vs numpy."""
    return _run(product(16), _authors_point(), "dap", 32, 2000 if quick else 20000, quick)


@benchmark("dap", "estimator_trials_sphere_quadratic")
def bench_sphere_quadratic(*, quick=False):
    """Sphere perturbations on a diagonal quadratic, d = 100, b = 8: jit vs numpy."""
    d = 100
    return _run(diagonal_quadratic(quadratic_spectrum(d, 100.0)), np.ones(d), "sphere", 8,
                500 if quick else 5000, quick)
