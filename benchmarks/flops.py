"""flops benchmark: the jitted batch forward-gradient kernel against the vectorised numpy reference.

Both run the same Monte Carlo (R replicates of N = 8B Gaussian forward-gradient queries on the
logistic instance of the checks, d = 50, B = 64, Neyman allocation) in the same process; the ratio is
numpy time / jitted time.  The jitted Gaussian path draws each sample's n_i queries exactly in
distribution with n_i + d normals (the sum of (g.u)u splits along g and its complement), the
reference draws all n_i d of them: the ratio is that algorithmic saving times compilation.
"""

import numba

from theorylab.core import benchmark, best_time
from theorylab.zeroth import allocation as A


@benchmark("flops", "batch_gradient_kernel")
def bench_batch_gradient(*, quick=False):
    """R = 2000 replicates (quick: 200) of the Neyman-allocated batch estimate, 512 queries each."""
    from theorylab.validations.flops import PER_SAMPLE, THETA_MAIN, instance

    b = instance(THETA_MAIN)
    R = 200 if quick else 2000
    n = A.draw_allocations("neyman", b, PER_SAMPLE * b.B, R)
    A.simulate_batch_gradient(b.G, n[:2], seed=0)      # compile outside the timing
    t_jit = best_time(A.simulate_batch_gradient, b.G, n, repeat=3, seed=1)
    t_np = best_time(A.simulate_batch_gradient_numpy, b.G, n, repeat=1, seed=1)
    queries = R * PER_SAMPLE * b.B
    return {"ratio": t_np / t_jit, "numpy_s": t_np, "jit_s": t_jit, "jit_queries_per_s": queries / t_jit,
            "numpy_queries_per_s": queries / t_np, "threads": numba.get_num_threads()}
