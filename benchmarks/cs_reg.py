"""cs_reg benchmark: the recovery protocol over many trials (binary x*, N = 100, M/N = 0.5, up to 10 starts), the
jitted projected FISTA against the scipy reference (L-BFGS on the null-space parametrisation with the numpy
regulariser, same start law and restart rule), same process and same problems; ratio = scipy time / jit time.
Success rates of both are reported beside it (different algorithms: they agree statistically, not trial by trial)."""

import time

from theorylab.core import benchmark
from theorylab.exact import cs_regularizers as R


@benchmark("cs_reg", "recovery_solver")
def bench_recovery(*, quick=False):
    N, n, starts = (30, 3, 2) if quick else (100, 40, 10)
    P = R.recovery_problems("binary", N // 2, N, n, seed=0)
    R.recover("bin", R.recovery_problems("binary", 3, 6, 1), starts=1)       # compile / load outside the timing
    t = time.perf_counter()
    jit = R.recover("bin", P, starts=starts, seed=1)
    t_jit = time.perf_counter() - t
    t = time.perf_counter()
    ref = R.recover_scipy("bin", P, starts=starts, seed=1)
    t_ref = time.perf_counter() - t
    return {"ratio": t_ref / t_jit, "jit_s": t_jit, "scipy_s": t_ref, "N": N, "trials": n, "max_starts": starts,
            "success_jit": float(jit["success"].mean()), "success_scipy": float(ref["success"].mean()),
            "starts_jit": float(jit["starts"].mean()), "starts_scipy": float(ref["starts"].mean())}
