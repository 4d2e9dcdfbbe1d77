"""nsgdm_heavy benchmark: the jitted NSGDM kernel (many runs x T steps x d = 10 with Student-t(1.5) noise on the
quadratic, the known-p schedule for p = 1.3) against the vectorised numpy reference (all runs at once, numpy's
``standard_t``), in the same process.  ratio = numpy time / jit time (one thread); ``ratio_threads`` uses the
threads the claims use (numba.get_num_threads()).

Where the time goes (cProfile of the numpy reference, 32 runs x 5000 steps x d = 10, Student-t nu = 1.5): half of
the time is numpy's ``standard_t`` (a compiled loop, 45-90 ns a draw depending on the machine load), the other half
about 15 small array operations per step (Python and ufunc overhead, amortised over R d elements).  The kernel's
Student-t draw (Bailey's polar method: two uniforms, a log, an exp, a sqrt; about 22 ns unloaded) is only 2-3 times
faster than numpy's per draw, so one thread gains at most (numpy draw + per-element overhead) / (jitted draw +
update): measured 2.6 at 64 runs, 3.3 at 32 runs, 8.7 at the quick size (8 runs, where numpy's per-step overhead
dominates); on the 2 threads the claims use for large calls, 5.1 at 64 runs.  Inlining the draw into the loop (numba
inline="always") gained about 20% in a trial, at a higher compile cost, and was not adopted."""

import numba

from theorylab.core import benchmark, best_time
from theorylab.stochastic.nsgdm import run_methods, run_methods_numpy, schedule


@benchmark("nsgdm_heavy", "nsgdm_kernel")
def bench_nsgdm(*, quick=False):
    """64 runs x T = 20000 steps x d = 10 (1.3e7 draws: the threaded path), Student-t nu = 1.5 (quick: 8 runs x
    2000 steps, one thread)."""
    T, n_runs = (2000, 8) if quick else (20_000, 64)
    eta, beta = schedule(T, "known_p", 1.3)
    kw = dict(d=10, law="student_t", nu=1.5, eta=eta, beta=beta, n_runs=n_runs, seed=0)
    run_methods("quadratic", 10, d=10, n_runs=1)                          # compile outside the timing
    t_jit = best_time(run_methods, "quadratic", T, repeat=1 if quick else 3, parallel=False, **kw)
    t_thr = best_time(run_methods, "quadratic", T, repeat=1 if quick else 3, parallel=True, **kw)
    t_np = best_time(run_methods_numpy, "quadratic", T, repeat=1, **kw)
    draws = n_runs * T * 10
    return {"ratio": t_np / t_jit, "ratio_threads": t_np / t_thr, "threads": numba.get_num_threads(),
            "jit_s": t_jit, "jit_threads_s": t_thr, "numpy_s": t_np, "noise_draws": draws,
            "jit_ns_per_draw": 1e9 * t_jit / draws, "numpy_ns_per_draw": 1e9 * t_np / draws}
