"""highway_bp benchmark: the jitted Highway-BP k-step iteration against the vectorised numpy reference
(einsum batched J_j^T v + reverse cumsum), L = 64 residual blocks of width 16, k = 20, same process;
ratio = numpy time / jit time.  BP's jitted time is reported beside it (k = 20 steps cost ~20 BP sweeps of
work when run serially; the paper's speed-up comes from running the per-block products in parallel)."""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.exact.highway import backprop, highway_bp, highway_bp_numpy


@benchmark("highway_bp", "highway_iteration")
def bench_highway(*, quick=False):
    L, n, k = (16, 8, 5) if quick else (64, 16, 20)
    rng = np.random.default_rng(0)
    J = 0.3 * rng.standard_normal((L, n, n)) / np.sqrt(n)
    gL = rng.standard_normal(n)
    highway_bp(J[:2], gL, 1)                     # compile / load the cache outside the timing
    backprop(J[:2], gL)
    reps = 1 if quick else 5
    t_jit = best_time(highway_bp, J, gL, k, repeat=reps)
    t_np = best_time(highway_bp_numpy, J, gL, k, repeat=reps)
    t_bp = best_time(backprop, J, gL, repeat=reps)
    return {"ratio": t_np / t_jit, "jit_s": t_jit, "numpy_s": t_np, "bp_jit_s": t_bp, "L": L, "n": n, "k": k}
