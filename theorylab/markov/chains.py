"""Pairs of constant-step SGD chains (steps gamma, 2 gamma) on shared noise: Polyak–Ruppert averages
and the Richardson–Romberg estimator (the package docstring, :mod:`theorylab.markov`, states the model).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core import interrupt
from ..core.seeding import as_generator, spawn_seeds
from ..core.validate import SimulationDiverged, check_array, check_choice, check_int, require_bounded
from . import _kernels as K
from .problems import Problem, check_step, get_problem

__all__ = ["PairAverages", "run_pair", "run_pair_numpy", "rr_estimate", "divergence_bound"]


#: Work budget of one call, in chain steps times dimension, n_chains * (n_burn + n) * d: measured, the
#: jitted kernels do about 3.3e7 steps per second on 2 cores (cos problem; issue 30: n_chains=8, n=1e9
#: took ~8 min), so 5e9 is about 2.5 min, the per-paper budget (the largest full-scale point, 320 chains of
#: 4.1e6 steps, is 1.3e9).  One chain runs on one core, so it gets half of it.  Larger runs are refused
#: before anything is allocated; split them over seeds.
MAX_WORK = 5 * 10**9
#: The numpy reference steps all chains at once in Python: at most 1e9 chain-steps x d (~ minutes).
MAX_WORK_NUMPY = 10**9
#: Memory budget of the outputs: ~12 float64 arrays of shape (n_chains, d) must fit in 2 GiB.
MAX_BYTES = 2**31
#: Largest |x0 - theta*| accepted (keeps the derived divergence bound finite).
MAX_START = 1e100
#: Factor of the divergence bound over the problem's own scale (see :func:`divergence_bound`).
BOUND_FACTOR = 1e6


class _PairFields(NamedTuple):
    pr_gamma: np.ndarray
    pr_2gamma: np.ndarray
    rr: np.ndarray
    leading: np.ndarray
    leading_pr: np.ndarray
    theta_star: np.ndarray


class PairAverages(_PairFields):
    """Window averages of M chain pairs; every array is (M, d).

    ``pr_gamma``/``pr_2gamma``: Polyak–Ruppert averages at steps gamma and 2 gamma;
    ``rr``: Richardson–Romberg ``2 pr_gamma - pr_2gamma``; ``leading``: its leading term
    ``-H^{-1} (2 mean(eps^(gamma)(theta*)) - mean(eps^(2 gamma)(theta*)))`` over the window, which
    is ``-H^{-1} mean(eps(theta*))`` for shared noise (so ``rr - theta_star - leading`` is the
    second-order remainder); ``leading_pr``: ``-H^{-1} mean(eps^(gamma)(theta*))``, the leading
    term of ``pr_gamma``; ``theta_star``: (d,).  Built by :func:`run_pair`; constructed by hand,
    every array is checked (finite, the five (M, d) arrays of one shape, theta_star (d,)).
    """

    __slots__ = ()

    def __new__(cls, pr_gamma, pr_2gamma, rr, leading, leading_pr, theta_star):
        theta_star = check_array("theta_star", theta_star, ndim=1)
        d = theta_star.size
        if d == 0:
            raise ValueError("theta_star must be a non-empty 1-d array; got shape (0,)")
        arrays = [check_array(nm, v, ndim=2) for nm, v in (("pr_gamma", pr_gamma), ("pr_2gamma", pr_2gamma),
                                                           ("rr", rr), ("leading", leading),
                                                           ("leading_pr", leading_pr))]
        M = arrays[0].shape[0]
        for nm, arr in zip(("pr_gamma", "pr_2gamma", "rr", "leading", "leading_pr"), arrays):
            if arr.shape != (M, d) or M == 0:
                raise ValueError(f"{nm} must have shape (M, {d}) with M >= 1 like pr_gamma {arrays[0].shape}; "
                                 f"got {arr.shape}")
        return super().__new__(cls, *arrays, theta_star)


def rr_estimate(pr_gamma, pr_2gamma):
    """Richardson–Romberg combination ``2 theta_bar^(gamma) - theta_bar^(2 gamma)`` (arrays of one shape)."""
    a = check_array("pr_gamma", pr_gamma)
    b = check_array("pr_2gamma", pr_2gamma)
    if a.shape != b.shape:
        raise ValueError(f"pr_gamma and pr_2gamma must have the same shape; got {a.shape} and {b.shape}")
    out = 2.0 * a - b
    # |2a - b| <= 3 max(|a|, |b|): overflows only if the inputs are within a factor 3 of the float range
    return require_bounded("rr_estimate", out, np.finfo(float).max)


def divergence_bound(problem: Problem, gamma: float, x0=None) -> float:
    """The bound |theta| <= B beyond which a chain counts as diverged (SimulationDiverged).

    For gamma < 1/L on a mu-strongly convex f the mean dynamics contract towards theta*, so a stable
    chain stays within ``|x0 - theta*|`` plus a few stationary standard deviations of the 2 gamma
    chain, ``s = sqrt(2 gamma lambda_max(Sigma_eps) / mu)`` (the variance of theta - theta* at
    stationarity is about gamma Sigma_eps / (2 mu) per unit step, Lyapunov equation H C + C H =
    Sigma_eps).  B = |theta*| + 1e6 (|x0 - theta*| + s): a factor 1e6 over the problem's own scale,
    which no Gaussian excursion of a stable chain reaches and any geometric divergence passes within
    a few dozen steps.  ``problem``, ``gamma`` (in (0, 1/L)) and ``x0`` are validated as in :func:`run_pair`.
    """
    problem = get_problem(problem)
    gamma = check_step(problem, gamma)
    x0 = _check_x0(problem, x0)
    lam_max = float(np.linalg.eigvalsh(problem.Sigma_eps).max())
    s = float(np.sqrt(2.0 * gamma * max(lam_max, 0.0) / problem.mu))
    start = float(np.max(np.abs(x0 - problem.theta_star)))
    return float(np.max(np.abs(problem.theta_star))) + BOUND_FACTOR * (start + s)


def _check_chains(chains, n_chains):
    """``chains`` (None: all) as a ``range`` of consecutive chain indices within ``range(n_chains)``."""
    if chains is None:
        return range(n_chains)
    if isinstance(chains, slice):
        if chains.step not in (None, 1):
            raise ValueError(f"chains must be consecutive (step 1); got {chains!r}")
        chains = range(*chains.indices(n_chains))
    if not isinstance(chains, range):
        raise TypeError(f"chains must be a range or slice of chain indices in range(n_chains) or None; got {chains!r}")
    if chains.step != 1 or len(chains) == 0 or chains.start < 0 or chains.stop > n_chains:
        raise ValueError(f"chains must be a non-empty consecutive range within range({n_chains}) (n_chains); "
                         f"got {chains!r}")
    return chains


def _validate(problem, gamma, n, n_burn, n_chains, x0, coupling, max_work=MAX_WORK, chains=None):
    """Check every argument and the work/memory budget before anything is allocated; with ``chains``
    (see :func:`run_pair`) the budget is that of the chains run."""
    problem = get_problem(problem)
    gamma = check_step(problem, gamma)
    d = problem.dim
    most = MAX_BYTES // (12 * 8 * d)  # chains whose outputs fit the memory budget
    n_chains = check_int("n_chains", n_chains, low=1, high=None if chains is not None else most)
    chains = _check_chains(chains, n_chains)
    if len(chains) > most:
        raise ValueError(f"chains must hold at most {most} chains (the memory budget of the outputs); got {chains!r}")
    m = len(chains)
    n = check_int("n", n, low=1, high=max_work // (m * d))
    n_burn = n if n_burn is None else check_int("n_burn", n_burn, low=0, high=max_work // (m * d) - n)
    if m * (n_burn + n) * d > max_work:
        raise ValueError(f"chains run * (n_burn + n) * d must be <= {max_work:.3g} (the work budget); got "
                         f"{m} of n_chains={n_chains}, n_burn={n_burn}, n={n}, d={d}: run the chains in batches "
                         f"(chains=)")
    if (n_burn + n) * d > max_work // 2:  # one chain runs on one core: half the budget of two
        raise ValueError(f"(n_burn + n) * d must be <= {max_work // 2:.3g} (one chain runs on one core: half the work "
                         f"budget); got n_burn={n_burn}, n={n}, d={d}")
    if not isinstance(coupling, str):
        raise TypeError(f"coupling must be a str, 'shared' or 'independent'; got {coupling!r}")
    check_choice("coupling", coupling, ("shared", "independent"))
    return problem, gamma, n, n_burn, chains, _check_x0(problem, x0)


def _check_x0(problem, x0):
    d = problem.dim
    if x0 is None:
        return problem.theta_star.copy()
    x0 = check_array("x0", np.atleast_1d(check_array("x0", x0)), shape=(d,))  # refuses "0.5", not converted
    if np.max(np.abs(x0 - problem.theta_star)) > MAX_START:
        raise ValueError(f"x0 must be within {MAX_START:g} of theta* (so the divergence bound stays finite); "
                         f"got |x0 - theta*| = {np.max(np.abs(x0 - problem.theta_star)):.3g}")
    return x0


def _solve_rows(H, V):
    """Each row v of ``V`` (M, d) solved as H^{-1} v.  LAPACK solves one right-hand side by another
    path (its last digit can differ), so a single row is solved beside a copy of itself: a row's
    digits then do not depend on how many rows are solved together, and runs of a chain batch
    (``run_pair(chains=...)``) stack to the whole run's numbers."""
    if V.shape[0] == 1:
        return np.linalg.solve(H, np.vstack([V, V]).T).T[:1]
    return np.linalg.solve(H, V.T).T


def _assemble(problem, pr1, pr2, eps1, eps2, diverged, gamma, bound):
    bad = np.flatnonzero(diverged >= 0)
    if bad.size:
        raise SimulationDiverged(f"SGD chain {bad[0]} diverged at step {diverged[bad[0]]}: |theta| left the bound "
                                 f"{bound:.3g} (problem {problem.name!r}, gamma={gamma}); reduce gamma")
    ctx = dict(problem=problem.name, gamma=gamma)
    for nm, v in (("pr_gamma", pr1), ("pr_2gamma", pr2)):
        require_bounded(nm, v, bound, **ctx)  # averages of iterates that stayed within the bound
    leading_pr = -_solve_rows(problem.H, eps1)
    leading = -_solve_rows(problem.H, rr_estimate(eps1, eps2))
    rr = rr_estimate(pr1, pr2)
    for nm, v in (("rr", rr), ("leading", leading), ("leading_pr", leading_pr)):
        require_bounded(nm, v, 3 * bound + 3 * BOUND_FACTOR * float(np.abs(eps1).max() + np.abs(eps2).max())
                        / problem.mu, **ctx)
    return PairAverages(pr1, pr2, rr, leading, leading_pr, problem.theta_star.copy())


def run_pair(problem="cos", *, gamma, n, n_burn=None, n_chains=320, x0=None, coupling="shared",
             seed=0, chains=None) -> PairAverages:
    """Run ``n_chains`` independent pairs of SGD chains (steps gamma, 2 gamma); return window averages.

    Parameters
    ----------
    problem : Problem or {"cos", "softplus", "quadratic", "logistic"}
        The objective and its noise (see :mod:`theorylab.markov.problems`).
    gamma : float
        Step of the first chain, in (0, 1/L); the second uses 2 gamma.
    n : int
        Number of averaged iterates (the window).
    n_burn : int, optional
        Burn-in steps before the window; default ``n`` (the authors' 2n-iteration scheme).
    n_chains : int
        Independent chain pairs M (parallel over threads).
    x0 : array (d,), optional
        Start of both chains; default theta*.
    coupling : {"shared", "independent"}
        Whether the two chains use the same noise sequence (the estimator of the paper) or
        independent ones (a control: the leading variance becomes 5 Sigma_inf / n).
    seed : int, SeedSequence or Generator
        Chain m always gets the same stream for the same seed, whatever the thread count.
    chains : range or slice, optional
        Run only these consecutive chain pairs of the ``n_chains`` (default all), e.g. one batch of a
        run split over tasks: chain m gets the stream it gets in the whole run, so the rows of runs
        over consecutive ranges, stacked, are the whole run's rows.
    """
    problem, gamma, n, n_burn, chains, x0 = _validate(problem, gamma, n, n_burn, n_chains, x0, coupling,
                                                      chains=chains)
    bound = divergence_bound(problem, gamma, x0)
    seeds = spawn_seeds(seed, chains.stop)[chains.start:]
    n_chains = len(chains)
    diverged = np.empty(n_chains, dtype=np.int64)
    coupled = coupling == "shared"
    # kernel calls of ~2e7 steps: a signal stops the call within about a second, long calls show progress
    if problem.kind == "1d":  # all chains, a range of steps per call (resumable kernel)
        a = problem.args
        states = np.empty((n_chains, 4), dtype=np.uint64)
        K.pair_start(seeds, states)
        x, sums = np.full((n_chains, 2), float(x0[0])), np.zeros((n_chains, 4))
        diverged[:] = -1
        for ks in interrupt.chunks(n_burn + n, n_chains, desc="run_pair steps", at_least=1):
            K.pair_steps_1d(a["code"], a["c"], a["b"], gamma, a["sigma"], n_burn, ks.start, ks.stop, states, x,
                            sums, coupled, bound, diverged)
        out = sums / n
        pr1, pr2, eps1, eps2 = out[:, :1], out[:, 1:2], out[:, 2:3], out[:, 3:4]
    else:  # chunks of chains
        a, d = problem.args, problem.dim
        pr1, pr2, eps1, eps2 = (np.empty((n_chains, d)) for _ in range(4))
        for sl in interrupt.chunks(n_chains, (n_burn + n) * d, desc="run_pair chains"):
            K.pair_chains_logistic(a["A"], a["y"], a["lam"], a["G_star"], gamma, x0, n_burn, n, seeds[sl], coupled,
                                   bound, pr1[sl], pr2[sl], eps1[sl], eps2[sl], diverged[sl])
    return _assemble(problem, pr1, pr2, eps1, eps2, diverged, gamma, bound)


def run_pair_numpy(problem="cos", *, gamma, n, n_burn=None, n_chains=320, x0=None, coupling="shared",
                   seed=0) -> PairAverages:
    """The same computation as :func:`run_pair`, vectorised over chains in numpy (the reference).

    Same distribution, different random stream (numpy's Generator instead of numba's).
    Used by the benchmark and by the statistical-agreement test of the kernel.
    """
    problem, gamma, n, n_burn, chains, x0 = _validate(problem, gamma, n, n_burn, n_chains, x0, coupling,
                                                      max_work=MAX_WORK_NUMPY)
    n_chains = len(chains)
    rng = as_generator(seed)
    bound = divergence_bound(problem, gamma, x0)
    M = n_chains
    th1 = np.tile(x0, (M, 1))
    th2 = th1.copy()
    s1, s2, se1, se2 = (np.zeros_like(th1) for _ in range(4))
    if problem.kind == "1d":
        a = problem.args
        grad = {K.COS: lambda x: 2 * x - np.sin(x),
                K.SOFTPLUS: lambda x: x + a["c"] * a["b"] / (1 + np.exp(-a["b"] * x)),
                K.QUADRATIC: lambda x: x}[a["code"]]
        for k in range(n_burn + n):
            e1 = a["sigma"] * rng.standard_normal((M, 1))
            e2 = e1 if coupling == "shared" else a["sigma"] * rng.standard_normal((M, 1))
            if k >= n_burn:
                s1 += th1
                s2 += th2
                se1 += e1
                se2 += e2
            th1 = th1 - gamma * (grad(th1) + e1)
            th2 = th2 - 2 * gamma * (grad(th2) + e2)
    else:
        a = problem.args
        A, y, lam, G = a["A"], a["y"], a["lam"], a["G_star"]

        def grad(theta, idx):
            t = np.einsum("mj,mj->m", A[idx], theta)
            return (-y[idx] / (1 + np.exp(y[idx] * t)))[:, None] * A[idx] + lam * theta

        for k in range(n_burn + n):
            i1 = rng.integers(0, A.shape[0], M)
            i2 = i1 if coupling == "shared" else rng.integers(0, A.shape[0], M)
            if k >= n_burn:
                s1 += th1
                s2 += th2
                se1 += G[i1]
                se2 += G[i2]
            th1 = th1 - gamma * grad(th1, i1)
            th2 = th2 - 2 * gamma * grad(th2, i2)
    ok = np.all(np.isfinite(th1) & np.isfinite(th2) & (np.abs(th1) <= bound) & (np.abs(th2) <= bound), axis=1)
    diverged = np.where(ok, -1, n_burn + n)
    return _assemble(problem, s1 / n, s2 / n, se1 / n, se2 / n, diverged, gamma, bound)
