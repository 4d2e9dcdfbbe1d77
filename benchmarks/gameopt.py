"""gameopt benchmark: iterated best response on the UCB game of a protein-like profile set (8 sites x 20 amino
acids, |X| = 20^8, 100 observations), the hot loop of GameOpt.  Fast path: UCB of all 160 unilateral deviations
per round from Hamming-distance updates and a cached inverse Cholesky factor (one (160 x 100) x (100 x 100)
product per round); reference: the plain route, building the deviations, one-hot encoding them and calling the
exact posterior theorylab.gp.priors.gp_posterior each round, in the same process.  Both follow the same path
(tested).  ratio = reference time / fast time.  The reference refactorises K + noise I and solves for 160
right-hand sides every round, the fast path does one product; both go through the same (threaded) OpenBLAS, so
on a loaded machine the ratio swings (66 idle, about 8 with the 2 cores busy)."""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.gp import gameopt as G


def _instance(n_sites=8, n_obs=100, seed=0):
    sizes = (20,) * n_sites
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 20, (n_obs, n_sites))
    y = np.sin(X @ rng.standard_normal(n_sites) / 8) + 0.1 * rng.standard_normal(n_obs)
    u = G.ucb_utility(X, y, sizes, lengthscale=2.0, beta=2.0)
    return u, rng.integers(0, 20, (10, n_sites))


def _all_starts(ibr, u, starts):
    return sum(ibr(u, x0).rounds for x0 in starts)


@benchmark("gameopt", "ibr_ucb_rounds")
def bench_ibr(*, quick=False):
    """IBR-UCB from 10 uniform starts (quick: 2) to equilibrium; every round scores 160 deviations."""
    u, starts = _instance()
    starts = starts[:2] if quick else starts
    moves = _all_starts(G.iterated_best_response, u, starts)
    assert moves == _all_starts(G.iterated_best_response_reference, u, starts)
    t_fast = best_time(_all_starts, G.iterated_best_response, u, starts, repeat=1 if quick else 3)
    t_ref = best_time(_all_starts, G.iterated_best_response_reference, u, starts, repeat=1)
    return {"ratio": t_ref / t_fast, "fast_s": t_fast, "reference_s": t_ref, "rounds": moves + len(starts),
            "deviations_per_round": 160}
