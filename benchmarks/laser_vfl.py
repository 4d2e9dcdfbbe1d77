"""laser_vfl benchmark: the jitted LASER-VFL SGD (theorylab.finite_sum.laser_sgd: per-batch mask, one subset per
head and size, weights C(m-1, k-1)/k) against a straightforward numpy implementation of the same algorithm
(numpy's generator, vectorised over the batch), on the checks' instance (K = 4 blocks of 2 features, n = 4000,
batch 32, q = 0.5, eta = 0.04), same process.  ratio = numpy time / jit time per step; both runs' stationary excess
F - f* (time average after a burn-in) is reported to show they run the same algorithm."""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.finite_sum import vfl as V


def _numpy_sgd(data, q, eta, n_steps, batch, W0, seed):
    rng = np.random.default_rng(seed)
    starts, stops = data.bounds
    Kb, (n, d) = data.n_blocks, data.X.shape
    W = W0.copy()
    out = np.empty((n_steps + 1, Kb, d))
    out[0] = W
    for t in range(n_steps):
        O = np.flatnonzero(rng.random(Kb) < q)
        m = O.size
        if m:
            idx = rng.integers(0, n, batch)
            Xb, yb = data.X[idx], data.y[idx]
            grad = np.zeros((Kb, d))
            for i in O:
                others = O[O != i]
                for k in range(1, m + 1):
                    S = np.r_[i, rng.permutation(others)[:k - 1]]
                    D = np.zeros(d)
                    for j in S:
                        D[starts[j]:stops[j]] = 1.0 / k
                    res = (Xb @ (D * W[i]) - yb) * (V._binom_table(m)[m - 1, k - 1] / k) / batch
                    grad[i] += D * (Xb.T @ res)
            W = W - eta * grad
        out[t + 1] = W
    return out


@benchmark("laser_vfl", "laser_sgd_kernel")
def bench_laser_sgd(*, quick=False):
    """200 000 jitted steps (quick: 20 000) against 4000 numpy steps (quick: 1000), time per step."""
    from theorylab.validations.laser_vfl import instance

    data, q, eta = instance(0), 0.5, 0.04
    obj = V.laser_objective(data, q)
    n_jit, n_np = (20_000, 1000) if quick else (200_000, 4000)
    V.laser_sgd(data, q, eta, 10, W0=obj.W_star, seed=0)               # compile / load outside the timing
    t_jit = best_time(V.laser_sgd, data, q, eta, n_jit, repeat=3, W0=obj.W_star, record_every=100, seed=1) / n_jit
    t_np = best_time(_numpy_sgd, data, q, eta, n_np, 32, obj.W_star, 1, repeat=1) / n_np
    ex_jit = obj.value(V.laser_sgd(data, q, eta, n_jit, W0=obj.W_star, record_every=100, seed=1)) - obj.f_star
    ex_np = obj.value(_numpy_sgd(data, q, eta, n_np, 32, obj.W_star, 1)) - obj.f_star
    return {"ratio": t_np / t_jit, "numpy_us_per_step": 1e6 * t_np, "jit_us_per_step": 1e6 * t_jit,
            "floor_jit": float(ex_jit[ex_jit.size // 5:].mean()), "floor_numpy": float(ex_np[ex_np.size // 5:].mean())}
