"""Constant-step SGD as a Markov chain: Polyak–Ruppert averaging and Richardson–Romberg extrapolation.

Reference: M. Sheshukova, D. Belomestny, A. Durmus, E. Moulines, A. Naumov, S. Samsonov,
"Nonasymptotic Analysis of Stochastic Gradient Descent with the Richardson–Romberg
Extrapolation", ICLR 2025, arXiv:2410.05106.

Two chains with steps gamma and 2 gamma are driven by the same noise sequence,

    theta^(g)_{k+1}  = theta^(g)_k  - gamma   (grad f(theta^(g)_k)  + eps_{k+1}),
    theta^(2g)_{k+1} = theta^(2g)_k - 2 gamma (grad f(theta^(2g)_k) + eps_{k+1}),

each is averaged over the last n of n_burn + n iterations (Polyak–Ruppert), and the
Richardson–Romberg estimator is ``theta_RR = 2 theta_bar^(g) - theta_bar^(2g)``.  Its error
expands as ``-H^{-1} mean(eps(theta*)) + O(n^{-3/4})`` for gamma ~ n^{-1/2}
(the paper's main theorem); the first term has the minimax covariance H^{-1} Sigma_eps H^{-1}.

Example (in a notebook)::

    from theorylab.markov import run_pair, cos_problem
    out = run_pair(cos_problem(), gamma=0.01, n=10_000, n_chains=320, seed=1)
    out.rr.mean(), out.rr.std()
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.seeding import as_generator, spawn_seeds
from ..core.validate import SimulationDiverged, check_array, check_choice, check_int
from . import _kernels as K
from .problems import (PROBLEMS, Problem, check_step, cos_problem, get_problem, logistic_problem,
                       quadratic_problem, softplus_problem)

__all__ = ["PairAverages", "Problem", "PROBLEMS", "run_pair", "run_pair_numpy", "cos_problem", "softplus_problem",
           "quadratic_problem", "logistic_problem", "get_problem", "rr_estimate"]


class PairAverages(NamedTuple):
    """Window averages of M chain pairs; every array is (M, d).

    ``pr_gamma``/``pr_2gamma``: Polyak–Ruppert averages at steps gamma and 2 gamma;
    ``rr``: Richardson–Romberg ``2 pr_gamma - pr_2gamma``; ``leading``: its leading term
    ``-H^{-1} (2 mean(eps^(gamma)(theta*)) - mean(eps^(2 gamma)(theta*)))`` over the window, which
    is ``-H^{-1} mean(eps(theta*))`` for shared noise (so ``rr - theta_star - leading`` is the
    second-order remainder); ``leading_pr``: ``-H^{-1} mean(eps^(gamma)(theta*))``, the leading
    term of ``pr_gamma``; ``theta_star``: (d,).
    """

    pr_gamma: np.ndarray
    pr_2gamma: np.ndarray
    rr: np.ndarray
    leading: np.ndarray
    leading_pr: np.ndarray
    theta_star: np.ndarray


def rr_estimate(pr_gamma, pr_2gamma):
    """Richardson–Romberg combination ``2 theta_bar^(gamma) - theta_bar^(2 gamma)``."""
    return 2.0 * np.asarray(pr_gamma) - np.asarray(pr_2gamma)


def _validate(problem, gamma, n, n_burn, n_chains, x0, coupling):
    problem = get_problem(problem)
    gamma = check_step(problem, gamma)
    n = check_int("n", n, low=1)
    n_burn = n if n_burn is None else check_int("n_burn", n_burn, low=0)
    n_chains = check_int("n_chains", n_chains, low=1)
    check_choice("coupling", coupling, ("shared", "independent"))
    if x0 is None:
        x0 = problem.theta_star
    x0 = check_array("x0", np.atleast_1d(np.asarray(x0, dtype=float)), shape=(problem.dim,))
    return problem, gamma, n, n_burn, n_chains, x0


def _assemble(problem, pr1, pr2, eps1, eps2, diverged, gamma):
    bad = np.flatnonzero(diverged >= 0)
    if bad.size:
        raise SimulationDiverged(f"SGD chain {bad[0]} diverged at step {diverged[bad[0]]} "
                                 f"(problem {problem.name!r}, gamma={gamma}); reduce gamma")
    leading_pr = -np.linalg.solve(problem.H, eps1.T).T
    leading = -np.linalg.solve(problem.H, rr_estimate(eps1, eps2).T).T
    return PairAverages(pr1, pr2, rr_estimate(pr1, pr2), leading, leading_pr, problem.theta_star.copy())


def run_pair(problem="cos", *, gamma, n, n_burn=None, n_chains=320, x0=None, coupling="shared",
             seed=0) -> PairAverages:
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
    """
    problem, gamma, n, n_burn, n_chains, x0 = _validate(problem, gamma, n, n_burn, n_chains, x0, coupling)
    seeds = spawn_seeds(seed, n_chains)
    diverged = np.empty(n_chains, dtype=np.int64)
    coupled = coupling == "shared"
    if problem.kind == "1d":
        a = problem.args
        out = np.empty((n_chains, 4))
        K.pair_chains_1d(a["code"], a["c"], a["b"], gamma, a["sigma"], float(x0[0]), n_burn, n, seeds, coupled,
                         out, diverged)
        pr1, pr2, eps1, eps2 = out[:, :1], out[:, 1:2], out[:, 2:3], out[:, 3:4]
    else:
        a, d = problem.args, problem.dim
        pr1, pr2, eps1, eps2 = (np.empty((n_chains, d)) for _ in range(4))
        K.pair_chains_logistic(a["A"], a["y"], a["lam"], a["G_star"], gamma, x0, n_burn, n, seeds, coupled,
                               pr1, pr2, eps1, eps2, diverged)
    return _assemble(problem, pr1, pr2, eps1, eps2, diverged, gamma)


def run_pair_numpy(problem="cos", *, gamma, n, n_burn=None, n_chains=320, x0=None, coupling="shared",
                   seed=0) -> PairAverages:
    """The same computation as :func:`run_pair`, vectorised over chains in numpy (the reference).

    Same distribution, different random stream (numpy's Generator instead of numba's).
    Used by the benchmark and by the statistical-agreement test of the kernel.
    """
    problem, gamma, n, n_burn, n_chains, x0 = _validate(problem, gamma, n, n_burn, n_chains, x0, coupling)
    rng = as_generator(seed)
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
    diverged = np.where(np.all(np.isfinite(th1) & np.isfinite(th2), axis=1), -1, n_burn + n)
    return _assemble(problem, s1 / n, s2 / n, se1 / n, se2 / n, diverged, gamma)
