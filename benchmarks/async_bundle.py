"""async_bundle benchmark: the master problem solved through its dual by the jitted accelerated projected
gradient (theorylab.distributed.solve_master, to duality gap 1e-7) against the primal epigraph QP in cvxpy
(Clarabel), on the same random instances (n = 9 workers, m = 10 cuts each, d = 50, L = 1, l1 = 0.05): the
authors' bundle size and tolerance.  ratio = cvxpy time / dual time; agreement = max |x_dual - x_cvxpy| and
max P(x_dual) - P(x_cvxpy)."""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.distributed import bundle as B


@benchmark("async_bundle", "master_dual_vs_cvxpy")
def bench_master(*, quick=False):
    """8 instances (quick: 2)."""
    n_inst = 2 if quick else 8
    insts = [(B.random_cuts(9, 10, 50, seed=s), np.random.default_rng(s).standard_normal(50)) for s in range(n_inst)]
    B.solve_master(*insts[0], 1.0, 0.05)                   # compile / load outside the timing
    B.solve_master_cvxpy(*insts[0], 1.0, 0.05)
    t_dual = sum(best_time(B.solve_master, c, z, 1.0, 0.05, repeat=3, delta=1e-7) for c, z in insts)
    t_cvx = sum(best_time(B.solve_master_cvxpy, c, z, 1.0, 0.05, repeat=1) for c, z in insts)
    dist, dval = 0.0, -np.inf
    for c, z in insts:
        s = B.solve_master(c, z, 1.0, 0.05, delta=1e-7)
        xr, pr = B.solve_master_cvxpy(c, z, 1.0, 0.05)
        dist, dval = max(dist, float(np.linalg.norm(s.x - xr))), max(dval, s.value - pr)
    return {"ratio": t_cvx / t_dual, "cvxpy_s": t_cvx, "dual_s": t_dual, "instances": n_inst,
            "max_dist": dist, "max_value_minus_cvxpy": float(dval)}
