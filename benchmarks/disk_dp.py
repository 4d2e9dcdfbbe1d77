"""disk_dp benchmark: the jitted DiSK kernel (kappa = 0.7, gamma = 0.5: two per-sample gradients, clipping and
privacy noise; d = 50, B = 64, n = 1000) against the vectorised numpy reference (all runs and batch samples at
once), one thread each, in the same process.  ratio = numpy time / jit time."""

from theorylab.core import benchmark, best_time
from theorylab.stochastic.disk import make_quadratic, run_disk, run_disk_numpy


@benchmark("disk_dp", "disk_kernel")
def bench_disk(*, quick=False):
    """16 runs x 2000 steps (quick: 8 runs x 300 steps)."""
    P = make_quadratic(50, 1000)
    kw = dict(kappa=0.7, gamma=0.5, C=100.0, sigma=1.0, B=64, n_steps=300 if quick else 2000,
              n_runs=8 if quick else 16, seed=0)
    run_disk(P, n_steps=5, n_runs=1, record_every=5)                   # compile outside the timing
    t_jit = best_time(run_disk, P, repeat=1 if quick else 3, parallel=False, **kw)
    t_np = best_time(run_disk_numpy, P, repeat=1, **kw)
    work = kw["n_runs"] * kw["n_steps"] * kw["B"] * P.d
    return {"ratio": t_np / t_jit, "jit_s": t_jit, "numpy_s": t_np, "per_sample_coordinates": work,
            "jit_coords_per_s": work / t_jit}
