"""stp benchmarks: the jitted STP kernel against the vectorised numpy reference, in the same process.

Both run the same algorithm (M independent paths, the strongly convex instance of the claims: lam log-spaced
in [1, 10], theta_0 = 1, T = 40 d, exact or forward-difference steps, directions uniform on the sphere); the
numpy reference steps all paths at once (arrays of shape (M, d) per iteration).  ratio = numpy time / jit time.
The jitted kernel is serial (one core): see theorylab/zeroth/_kernels_stp.py for why.  The full run also
profiles the kernel against its random-number floor (``draw_fraction``, ``ratio_cap``: benchmarks/_rng_floor.py).
"""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.zeroth.oracles import quadratic_spectrum
from theorylab.zeroth.stp import run_stp, run_stp_numpy

from ._rng_floor import rng_floor


def _compare(*, d, n_paths, step, repeat, profile=False):
    lam = quadratic_spectrum(d, kappa=10.0, L=10.0, spacing="geometric")
    kw = dict(n_steps=40 * d, n_paths=n_paths, step=step, L=10.0, record_at=[0, 40 * d], seed=0)
    run_stp(lam, np.ones(d), n_steps=5, n_paths=2, step=step)  # compile (or load the cache) outside the timing
    t_jit = best_time(run_stp, lam, np.ones(d), repeat=repeat, **kw)
    t_np = best_time(run_stp_numpy, lam, np.ones(d), repeat=1, **kw)
    work = n_paths * 40 * d * d
    out = {"ratio": t_np / t_jit, "jit_s": t_jit, "numpy_s": t_np, "d": d, "n_paths": n_paths,
           "jit_element_steps_per_s": work / t_jit, "numpy_element_steps_per_s": work / t_np}
    if profile:  # each path draws one direction (d normals) per step: the kernel's random-number floor
        out.update(rng_floor(n_paths, 40 * d * d, t_jit=t_jit, t_numpy=t_np))
    return out


@benchmark("stp", "exact_step_kernel")
def bench_exact(*, quick=False):
    """Exact directional-derivative step, d = 32, 400 paths (the full-scale claims' M); quick: d = 8, 64 paths."""
    return _compare(d=8 if quick else 32, n_paths=64 if quick else 400, step="exact", repeat=1 if quick else 3,
                    profile=not quick)


@benchmark("stp", "finite_difference_kernel")
def bench_fd(*, quick=False):
    """Forward-difference step (three queries per iteration), d = 64, 400 paths; quick: d = 8, 64 paths."""
    return _compare(d=8 if quick else 64, n_paths=64 if quick else 400, step="finite_difference",
                    repeat=1 if quick else 3, profile=not quick)
