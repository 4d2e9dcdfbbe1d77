"""Experiment runners of paper async_bundle (what validations/async_bundle.py runs; not re-exported).

- :func:`delay_run`: one replicate (its own problem instance and delays) of the bundle method and PIAG on the
  same delays: times to the target accuracies, the tail of the bundle run, master solves stopped early.
- :func:`master_agreement`: the dual master solve against the cvxpy primal QP on random cut windows.
- :func:`worker_cut_history`: cuts of the logistic workers at random points around x*.
"""

from __future__ import annotations

import numpy as np

from theorylab.core import child_seed
from theorylab.distributed import bundle as B
from theorylab.distributed import problems as PR
from theorylab.distributed import server as S

#: The logistic instance of the checks: N samples, d features, n workers, l2 and l1 weights.
PROBLEM = dict(N=1000, d=20, n_workers=9, l2=1e-2, l1=1e-3)


def instance(rep_seed):
    P = PR.logistic_problem(**PROBLEM, seed=child_seed(rep_seed, "problem"))
    x_star, f_star = PR.reference_optimum(P)
    return P, x_star, f_star


def delay_run(law, mean_delay, rep_seed, *, m, horizon_factor, piag_factor, targets, tail=0.2, delta=1e-7) -> dict:
    """Bundle method (``horizon_factor`` x mean delay ticks) and PIAG (``piag_factor`` x mean delay ticks) on one
    instance with the same delays.  A time to a target that is never reached is censored: PIAG's at its
    horizon (a lower bound: conservative for 'bundle faster'), the bundle method's at PIAG's horizon (the
    longest time measured: conservative against it)."""
    P, _, f_star = instance(rep_seed)
    dseed = child_seed(rep_seed, "delays", law, float(mean_delay))
    Hb, Hp = int(round(horizon_factor * mean_delay)), int(round(piag_factor * mean_delay))
    tb = S.run_bundle(P, m=m, law=law, mean_delay=mean_delay, horizon=Hb, delta=delta, seed=dseed)
    tp = S.run_piag(P, law=law, mean_delay=mean_delay, horizon=Hp, seed=dseed)
    sub = tb.values - f_star
    row = dict(law=law, mean_delay=float(mean_delay), mean_delay_used=tb.mean_delay_used, updates=tb.updates,
               unconverged=tb.unconverged, dual_iterations=tb.dual_iterations,
               tail_max=float(sub[tb.ticks >= (1 - tail) * Hb].max()), final_bundle=float(sub[-1]),
               final_piag=float(tp.values[-1] - f_star), horizon_bundle=Hb, horizon_piag=Hp)
    for j, eps in enumerate(targets):
        (t_b, ok_b), (t_p, ok_p) = S.time_to_accuracy(tb, f_star, eps), S.time_to_accuracy(tp, f_star, eps)
        row[f"censored_bundle_{j}"], row[f"censored_piag_{j}"] = not ok_b, not ok_p
        row[f"t_bundle_{j}"] = float(t_b if ok_b else Hp)
        row[f"t_piag_{j}"] = float(t_p if ok_p else Hp)
    return row


def trace_pair(law, mean_delay, rep_seed, *, m, horizon_factor, delta=1e-7):
    """The two traces (F(x_k) - F* against ticks) of one replicate, for the figure."""
    P, _, f_star = instance(rep_seed)
    dseed = child_seed(rep_seed, "delays", law, float(mean_delay))
    H = int(round(horizon_factor * mean_delay))
    tb = S.run_bundle(P, m=m, law=law, mean_delay=mean_delay, horizon=H, delta=delta, seed=dseed)
    tp = S.run_piag(P, law=law, mean_delay=mean_delay, horizon=H, seed=dseed)
    return (tb.ticks, tb.values - f_star), (tp.ticks, tp.values - f_star)


def master_agreement(n, m, d, L, l1, delta, rep_seed) -> dict:
    """One random master problem: dual solve vs cvxpy primal QP, with the certified margins (bundle docstring)."""
    cuts = B.random_cuts(n, m, d, seed=child_seed(rep_seed, "cuts"))
    zbar = np.random.default_rng(child_seed(rep_seed, "zbar")).standard_normal(d)
    sol = B.solve_master(cuts, zbar, L, l1, delta=delta)
    x_ref, p_ref = B.solve_master_cvxpy(cuts, zbar, L, l1)
    # the certificate recomputed here, not read from the solver: P(x) and D(lam) <= P* in numpy
    value, dual = B.master_objective(cuts, sol.x, zbar, L, l1), B.dual_value(cuts, sol.lam, zbar, L, l1)
    # |x - x*| <= sqrt(2 (P(x) - D) / L); |x_ref - x*| <= sqrt(2 (P(x_ref) - D) / L)
    radius = np.sqrt(2 * max(value - dual, 0.0) / L) + np.sqrt(2 * max(p_ref - dual, 0.0) / L)
    return dict(n=n, m=m, d=d, L=L, l1=l1, gap=value - dual, solver_gap=sol.gap, iterations=sol.iterations,
                converged=sol.converged, value_minus_ref=value - p_ref, ref_gap=p_ref - dual,
                dist=float(np.linalg.norm(sol.x - x_ref)), radius=float(radius),
                radius_delta=float(np.sqrt(2 * delta / L)))


def worker_cut_history(rep_seed, m, spread=(0.01, 1.0)):
    """m cuts per worker of the logistic instance at points x* + r N(0, I / d), r log-uniform in ``spread``, in
    insertion order: (problem, Cuts, points (n m, d), values f_i(z_ij))."""
    P, x_star, _ = instance(rep_seed)
    rng = np.random.default_rng(child_seed(rep_seed, "cut points"))
    Z, F, G = [], [], []
    for i in range(P.n):
        for _ in range(m):
            r = np.exp(rng.uniform(*np.log(spread)))
            z = x_star + r * rng.standard_normal(P.d) / np.sqrt(P.d)
            f, g = PR.worker_value_grad(P, i, z)
            Z.append(z)
            F.append(f)
            G.append(g)
    Z, F, G = np.array(Z), np.array(F), np.array(G)
    return P, B.make_cuts(F, G, Z, np.full(P.n, m)), Z, F
