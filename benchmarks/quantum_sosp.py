"""quantum_sosp benchmark: the jitted batched PGD kernel against the vectorised numpy reference.

Both run the same experiment in the same process: n_runs PGD runs on the strict saddle (d = 10) with the
adversarial oracle at the derived crossover level, until every run has terminated (Jin et al.'s no-decrease
rule).  The jitted kernel evaluates each of the 2d finite-difference queries in O(1) through separability
(the numpy reference queries the full f, O(d) each, but over all runs at once); the ratio is numpy time /
jitted time.
"""

import numba

from theorylab.core import benchmark, best_time
from theorylab.zeroth import saddle as S


def _bench(oracle, quick):
    n = 30 if quick else 300
    nu = S.critical_noise(0.5, oracle=oracle)
    kw = dict(oracle=oracle, nu=nu, n_runs=n, max_iter=1000)
    S.run_pgd(noise="adversarial", **{**kw, "n_runs": 2}, seed=0)          # compile outside the timing
    t_jit = best_time(S.run_pgd, noise="adversarial", repeat=3, seed=1, **kw)
    t_np = best_time(S.run_pgd_numpy, repeat=1, seed=1, **kw)
    steps = float(S.run_pgd(noise="adversarial", seed=1, **kw).iterations.sum())
    return {"ratio": t_np / t_jit, "numpy_s": t_np, "jit_s": t_jit, "jit_steps_per_s": steps / t_jit,
            "threads": numba.get_num_threads()}


@benchmark("quantum_sosp", "pgd_value_oracle")
def bench_pgd_value(*, quick=False):
    """300 runs (quick: 30), zeroth-order oracle: 2d = 20 function values per step."""
    return _bench("value", quick)


@benchmark("quantum_sosp", "pgd_gradient_oracle")
def bench_pgd_gradient(*, quick=False):
    """300 runs (quick: 30), first-order oracle: one gradient per step."""
    return _bench("gradient", quick)
