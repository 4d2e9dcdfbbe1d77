"""cbs benchmark: the one-pass SGD sweep over batch sizes and learning rates (the exact EWA risk recursion of
theorylab.highdim.critical_batch, the hot loop of every claim) in the jitted kernel against its numpy reference
(vectorised over the learning rates, a Python loop over steps); same inputs, same process.  Instance of the
claims (a = 1.5, beta = 1.2, noise 0.1, d = 400), N = 20 000 samples per batch size (N / B steps), batches
1, 4, 16, 64 and 8 learning rates each.  ratio = numpy time / jit time."""

import numba
import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.highdim import _kernels_critical_batch as K
from theorylab.highdim import critical_batch as C


def _sweep_jit(lam, w2, N, grid):
    out = []
    for B, etas in grid:
        r = np.empty(etas.size)
        K.final_risks(lam, w2, 0.01, float(B), etas, min(1.0, B / (0.1 * N)), N // B, r)
        out.append(r)
    return np.concatenate(out)


def _sweep_numpy(lam, w2, N, grid):
    return np.concatenate([C.final_risk_numpy(lam, w2, noise=0.1, B=B, etas=etas, gamma=min(1.0, B / (0.1 * N)),
                                              n_steps=N // B) for B, etas in grid])


@benchmark("cbs", "sgd_sweep")
def bench_sgd_sweep(*, quick=False):
    """N = 20 000 (quick: 2 000) samples per batch size."""
    lam, w2 = C.power_law_problem(400)
    N = 2000 if quick else 20000
    grid = [(B, 0.9 * C.stability_limit(lam, B) * 2.0 ** (-np.arange(8) / 2.0)) for B in (1, 4, 16, 64)]
    _sweep_jit(lam, w2, 64, grid)  # compile / load outside the timing
    t_jit = best_time(_sweep_jit, lam, w2, N, grid, repeat=3)
    t_np = best_time(_sweep_numpy, lam, w2, N, grid, repeat=1)
    a, b = _sweep_jit(lam, w2, N, grid), _sweep_numpy(lam, w2, N, grid)
    return {"ratio": t_np / t_jit, "numpy_s": t_np, "jit_s": t_jit, "N": N,
            "max_rel_diff": float(np.max(np.abs(a - b) / b)), "threads": numba.get_num_threads()}
