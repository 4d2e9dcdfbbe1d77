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

from .chains import PairAverages, divergence_bound, rr_estimate, run_pair, run_pair_numpy
from .problems import (PROBLEMS, Problem, cos_problem, get_problem, logistic_problem, quadratic_problem,
                       softplus_problem)

__all__ = ["PairAverages", "Problem", "PROBLEMS", "run_pair", "run_pair_numpy", "cos_problem", "softplus_problem",
           "quadratic_problem", "logistic_problem", "get_problem", "rr_estimate", "divergence_bound"]
