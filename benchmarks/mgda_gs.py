"""mgda_gs benchmark: the fast min-norm solvers (jitted exact active set and jitted FISTA projected gradient)
against cvxpy's QP (the reference) on the same random gradient matrices, in the same process.
ratio = cvxpy time / active-set time; the largest discrepancy of ||G w|| is reported as well."""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.multiobjective.mgda import min_norm_weights


def _instances(n, d=20, K=5):
    rng = np.random.default_rng(0)
    return [rng.standard_normal((d, K)) for _ in range(n)]


@benchmark("mgda_gs", "min_norm_solver")
def bench_min_norm_solver(*, quick=False):
    """Min-norm weights of n random 20 x 5 gradient matrices (quick: 10, else 100)."""
    Gs = _instances(10 if quick else 100)
    for method in ("active_set", "pgd"):
        min_norm_weights(Gs[0], method)                         # compile outside the timing

    def solve_all(method):
        return [min_norm_weights(G, method) for G in Gs]

    t_as = best_time(solve_all, "active_set", repeat=3)
    t_pg = best_time(solve_all, "pgd", repeat=3)
    t_cv = best_time(solve_all, "cvxpy", repeat=1)
    gap = max(abs(np.linalg.norm(G @ a) - np.linalg.norm(G @ c))
              for G, a, c in zip(Gs, solve_all("active_set"), solve_all("cvxpy")))
    return {"ratio": t_cv / t_as, "ratio_pgd": t_cv / t_pg, "active_set_s": t_as, "pgd_s": t_pg, "cvxpy_s": t_cv,
            "instances": len(Gs), "max_norm_gap": float(gap)}
