"""nsgdm_heavy benchmark: the jitted NSGDM kernel (many runs x T steps x d = 10 with Student-t(1.5) noise on the
quadratic, the known-p schedule for p = 1.3) against the vectorised numpy reference (all runs at once, numpy's
``standard_t``), in the same process.  ratio = numpy time / jit time (one thread); ``ratio_threads`` uses the
threads the claims use (numba.get_num_threads()).

Where the time goes (profile, d = 10, 32 runs): numpy spends about 40% of a step in ``standard_t`` (about 43 ns a
draw) and the rest in ~15 small array operations of Python overhead each; the kernel spends most of a step in
the Bailey polar Student-t draws (about 22 ns a draw: two uniforms, a pow and a sqrt), so the ratio is bounded by
about (numpy draw + overhead per draw) / (jitted draw)."""

import numba

from theorylab.core import benchmark, best_time
from theorylab.stochastic.nsgdm import run_methods, run_methods_numpy, schedule


@benchmark("nsgdm_heavy", "nsgdm_kernel")
def bench_nsgdm(*, quick=False):
    """32 runs x T = 20000 steps x d = 10, Student-t nu = 1.5 (quick: 8 runs x 2000 steps)."""
    T, n_runs = (2000, 8) if quick else (20_000, 32)
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
