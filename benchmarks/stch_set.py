"""stch_set benchmark: the jitted schedule-free set solver (STCH-Set, the code's quadratic instance n = 10,
m = 128, K = 5) against the numpy reference solver (same algorithm, same start, vectorised over solutions and
objectives), in the same process.  ratio = numpy time / jit time; the two final sets are compared as well."""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.multiobjective.stch import quadratic_problem, solve_set, solve_set_numpy


@benchmark("stch_set", "set_solver")
def bench_set_solver(*, quick=False):
    """2000 schedule-free steps (quick: 300) of STCH-Set (mu = 0.1) on one quadratic instance."""
    P = quadratic_problem(10, 128, seed=0)
    kw = dict(K=5, method="stch_set", n_steps=300 if quick else 2000, seed=0)
    solve_set(P, K=5, n_steps=2)                                   # compile outside the timing
    t_jit = best_time(solve_set, P, repeat=1 if quick else 3, **kw)
    t_np = best_time(solve_set_numpy, P, repeat=1, **kw)
    diff = float(np.max(np.abs(solve_set(P, **kw) - solve_set_numpy(P, **kw))))
    return {"ratio": t_np / t_jit, "jit_s": t_jit, "numpy_s": t_np, "steps": kw["n_steps"],
            "max_abs_diff": diff}
