"""rshtr benchmark: one RSHTR step (Gaussian sketch, s = 20: s Hessian-vector-type products and an (s+1) x (s+1)
eigenproblem) against one full-space HSODM step (the n x n Hessian and the (n+1) x (n+1) eigenproblem, scipy's
eigh), same process, same objective f = h(U x) (U 5 x n, theorylab.krylov.rank_deficient), n growing.
ratio = HSODM time / RSHTR time at the largest n; also the log-log slopes of time and of peak memory (tracemalloc)
against n (the paper's O(s n) against O(n^2) space)."""

import tracemalloc

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.core.parallel import blas_threads
from theorylab.krylov import subspace as S


def _peak_bytes(fn, *args, **kwargs):
    tracemalloc.start()
    fn(*args, **kwargs)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def _point(n, s):
    P = S.rank_deficient(n, 5, seed=0)
    x = 0.3 * np.random.default_rng(1).standard_normal(n)
    Pk = S.sketch(n, s, seed=2)
    t_sub = best_time(S.homogenized_step, P, x, Pk, repeat=5)
    t_full = best_time(S.homogenized_step, P, x, None, repeat=1 if n >= 800 else 3)
    return (n, t_sub, t_full, _peak_bytes(S.homogenized_step, P, x, Pk), _peak_bytes(S.homogenized_step, P, x, None))


@benchmark("rshtr", "subspace_vs_full_step")
def bench_subspace_vs_full_step(*, quick=False):
    """n in (200, 400, 800, 1600) (quick: up to 800), s = 20, one BLAS thread for both."""
    ns, s = ((200, 400, 800) if quick else (200, 400, 800, 1600)), 20
    with blas_threads(1):
        rows = [_point(n, s) for n in ns]
    n, t_sub, t_full, m_sub, m_full = map(np.array, zip(*rows))
    slope = lambda y: float(np.polyfit(np.log(n), np.log(y), 1)[0])
    return {"ratio": float(t_full[-1] / t_sub[-1]), "n": n.tolist(), "rshtr_s": t_sub.tolist(),
            "hsodm_s": t_full.tolist(), "time_slope_rshtr": slope(t_sub), "time_slope_hsodm": slope(t_full),
            "memory_slope_rshtr": slope(m_sub), "memory_slope_hsodm": slope(m_full),
            "peak_MB_rshtr": float(m_sub[-1] / 1e6), "peak_MB_hsodm": float(m_full[-1] / 1e6)}
