"""gabp benchmark: the jitted GABP kernel (projected ascent on simplices, d = 50 random payoff games, many seeds)
against the vectorised numpy reference (all runs advance together, batched products and row-wise sort
projection), in the same process.  ratio = numpy time / jit time."""

import warnings

from theorylab.core import benchmark, best_time
from theorylab.games.matrix_games import random_payoff_games, run_dynamics, run_dynamics_numpy


@benchmark("gabp", "gabp_dynamics_kernel")
def bench_gabp(*, quick=False):
    """50 games x T = 1000 GABP steps at d = 50 (quick: 10 games x 200 steps), recording the gap at 3 times."""
    n, T = (10, 200) if quick else (50, 1000)
    A = random_payoff_games(50, n, seed=0)
    kw = dict(eta=0.05, mu=1.0, T_sigma=10, T=T, record=[1, T // 2, T + 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)          # Figure 1's eta is above Theorem 4.1's range
        run_dynamics(A[:1], "gabp", **{**kw, "T": 5, "record": [1, 6]})                # compile outside the timing
        t_jit = best_time(run_dynamics, A, "gabp", repeat=1 if quick else 3, parallel=False, **kw)
        t_np = best_time(run_dynamics_numpy, A, "gabp", repeat=1, **kw)
    return {"ratio": t_np / t_jit, "jit_s": t_jit, "numpy_s": t_np, "projected_ascent_steps": n * T}
