"""alpha_svrg benchmark: the jitted streamed Monte Carlo of the alpha-SVRG estimate's per-coordinate variance
(theorylab.finite_sum.mc_estimator_variance) against its vectorised numpy reference, which builds the
(draws, d) array of estimates; same index draws, same process, least-squares gradients of the checks
(n = 2000, d = 50, s = 100 steps from the snapshot) at alpha*, mini-batches of 4.  ratio = numpy time / jit time."""

import numba
import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.finite_sum import svrg as S


@benchmark("alpha_svrg", "estimator_variance_kernel")
def bench_estimator_variance(*, quick=False):
    """draws = 200 000 (quick: 20 000) mini-batches of 4 indices."""
    from theorylab.validations.alpha_svrg import staleness_moments

    gm = staleness_moments(100, 0)
    G, H = gm["G"], gm["H"]
    alpha = S.optimal_coefficient(G, H)
    draws = 20_000 if quick else 200_000
    S.mc_estimator_variance(G, H, alpha, draws=8, batch=4, seed=0)      # compile / load outside the timing
    t_jit = best_time(S.mc_estimator_variance, G, H, alpha, repeat=3, draws=draws, batch=4, seed=1)
    t_np = best_time(S.mc_estimator_variance_numpy, G, H, alpha, repeat=1, draws=draws, batch=4, seed=1)
    v, _ = S.mc_estimator_variance(G, H, alpha, draws=draws, batch=4, seed=1)
    v_np, _ = S.mc_estimator_variance_numpy(G, H, alpha, draws=draws, batch=4, seed=1)
    return {"ratio": t_np / t_jit, "numpy_s": t_np, "jit_s": t_jit, "draws": draws,
            "max_rel_diff": float(np.max(np.abs(v - v_np) / v_np)), "threads": numba.get_num_threads()}
