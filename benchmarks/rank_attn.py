"""rank_attn benchmarks: the jitted loss-and-gradient kernel of rank-r multi-head attention against its
vectorised numpy reference (theorylab.exact.attention.attention_loss_grad_numpy), in the same process.

Both evaluate the mean squared error of H heads on M instances and its gradients in Q, K, V: the inner call
of every L-BFGS iteration of the low-rank fits.  ratio = numpy time / jit time.
"""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.exact.attention import (attention_loss_grad, attention_loss_grad_numpy, nearest_neighbour_target,
                                       random_instances)


def _compare(*, d, N, H, r, M, repeat):
    q, X = random_instances(d, N, M, seed=0)
    Y = nearest_neighbour_target(q, X)
    rng = np.random.default_rng(1)
    Q, K, V = rng.standard_normal((H, d, r)), rng.standard_normal((H, d, r)), rng.standard_normal((H, d, d))
    attention_loss_grad(q[:2], X[:2], Y[:2], Q, K, V)      # compile (or load the cache) outside the timing
    t_jit = best_time(attention_loss_grad, q, X, Y, Q, K, V, repeat=repeat)
    t_np = best_time(attention_loss_grad_numpy, q, X, Y, Q, K, V, repeat=repeat)
    return {"ratio": t_np / t_jit, "jit_s": t_jit, "numpy_s": t_np, "d": d, "N": N, "H": H, "r": r, "M": M}


@benchmark("rank_attn", "loss_grad_kernel")
def bench_loss_grad(*, quick=False):
    """The full-scale fits' largest call: d = 8, N = 2, H = 8 rank-1 heads, M = 1000; quick: M = 200."""
    return _compare(d=8, N=2, H=8, r=1, M=200 if quick else 1000, repeat=3 if quick else 20)
