"""Monte Carlo estimates of an estimator's error against the realised missing mass M_0(n)."""

from __future__ import annotations

import numpy as np

from theorylab.core import check_int, require_bounded, spawn_seeds
from theorylab.core.parallel import map_blocks

from . import _kernels as K
from ._checks import MAX_DRAWS, MAX_LABELS, MAX_TABLE_N, MIN_LABELS_PER_THREAD, check_n, check_prob_like
from .estimators import Estimator


def monte_carlo_mse(estimator: Estimator, p, n: int, *, reps: int = 10_000, seed=0) -> dict:
    """Draw ``reps`` samples of size ``n`` from ``p``; per sample the estimate and M_0(n).

    Returns a dict with arrays ``estimate``, ``missing_mass``, ``sq_error`` and the summary
    ``mse`` with its standard error ``mse_se``.  Path r uses ``spawn_seeds(seed, reps)[r]``.
    Budget: n <= 9998 (the coefficient table is (n+1) x (n+2)), reps * n <= 10**9 draws, reps <= 10**8.
    The outputs are checked: estimates bounded by sum |coef| * S (each |Phi_k| <= S), M_0 in [0, 1].
    """
    if not isinstance(estimator, Estimator):
        raise TypeError(f"estimator must be an Estimator; got {type(estimator).__name__}")
    p = check_prob_like("p", p)
    n = check_n("n", n, high=MAX_TABLE_N)
    reps = check_int("reps", reps, low=2, high=min(MAX_DRAWS // n, MAX_LABELS))  # two float64 arrays of reps
    if estimator.n_required > n:
        raise ValueError(f"the estimator uses n' = {estimator.n_required} > n = {n}")
    cdf = np.cumsum(p)
    cdf[-1] = 1.0
    table = estimator.coefficient_table(n)
    needed = table.any(axis=1)
    seeds = spawn_seeds(seed, reps)
    parts = map_blocks(lambda s: K.mc_family_batch(p, cdf, n, table, needed, seeds[s]), reps, work=reps * n,
                       min_work=MIN_LABELS_PER_THREAD)
    est, m0 = (np.concatenate([part[i] for part in parts]) for i in range(2))
    require_bounded("estimate", est, float(np.abs(estimator.coef).sum()) * p.size * (1 + 1e-9), n=n, reps=reps)
    require_bounded("missing_mass", m0, 1.0 + 1e-6, n=n, reps=reps)
    sq = (est - m0) ** 2
    return dict(estimate=est, missing_mass=m0, sq_error=sq, mse=float(sq.mean()),
                mse_se=float(sq.std(ddof=1) / np.sqrt(reps)))
