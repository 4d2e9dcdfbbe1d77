"""Derivative-free optimisation: function-value oracles, two-point gradient estimators with
pluggable perturbation laws, query allocators, Stochastic Three Points, and perturbed gradient
descent with an inexact oracle (issue 17: papers dap, stp, flops, quantum_sosp).

Modules (their public names are re-exported here):

- ``theorylab.zeroth.oracles``    test-function zoo, value noise, query counter
- ``theorylab.zeroth.estimators`` two-point / forward-difference estimators, perturbation laws (dap)
- ``theorylab.zeroth.stp``        Stochastic Three Points (stp)
- ``theorylab.zeroth.allocation`` query budgets and allocators (flops)
- ``theorylab.zeroth.saddle``     perturbed gradient descent with an inexact oracle (quantum_sosp)
"""

# Names two modules define differently are re-exported under a module prefix: ``estimators.LAWS`` as
# ``ESTIMATOR_LAWS``, ``allocation.LAWS`` as ``ALLOCATION_LAWS``, ``oracles.NOISES`` as ``ORACLE_NOISES``,
# ``saddle.NOISES`` as ``SADDLE_NOISES``.
from .oracles import (KINDS, NOISES as ORACLE_NOISES, Oracle, diagonal_quadratic, logistic_loss, product, quadratic,
                      quadratic_spectrum, rosenbrock, strict_saddle)
from .estimators import (LAWS as ESTIMATOR_LAWS, SCHEMES, estimate_gradient, estimator_trials,
                         estimator_trials_numpy, law_scale, queries_per_estimate, sample_directions, zo_sgd)
from .stp import (DISTRIBUTIONS, STEPS, STPRun, contraction_bound, convex_bound, expected_gap, record_grid, run_stp,
                  run_stp_numpy, smoothness_constant)
from .allocation import (ALLOCATORS, BatchErrors, LAWS as ALLOCATION_LAWS, LogisticBatch, WEIGHTINGS,
                         allocation_bias, allocation_variance, bernoulli_allocation, draw_allocations,
                         gaussian_allocation, logistic_batch, neyman_allocation, neyman_ratio, noise_levels,
                         query_variance_factor, simulate_batch_gradient, simulate_batch_gradient_numpy,
                         simulate_trainer_step, trainer_moments, uniform_allocation)
from .saddle import (NOISES as SADDLE_NOISES, ORACLES, PGDRun, ball_marginal_sf, critical_displacement,
                     critical_levels, critical_noise, escape_probability, fd_step, paper_thresholds, run_pgd,
                     run_pgd_numpy)

__all__ = ["Oracle", "KINDS", "ORACLE_NOISES", "quadratic", "diagonal_quadratic", "quadratic_spectrum", "product",
           "rosenbrock", "logistic_loss", "strict_saddle", "ESTIMATOR_LAWS", "SCHEMES", "law_scale",
           "queries_per_estimate", "sample_directions", "estimate_gradient", "estimator_trials",
           "estimator_trials_numpy", "zo_sgd", "STPRun", "STEPS", "DISTRIBUTIONS", "run_stp", "run_stp_numpy",
           "smoothness_constant", "contraction_bound", "expected_gap", "convex_bound", "record_grid",
           "ALLOCATION_LAWS", "WEIGHTINGS", "ALLOCATORS", "LogisticBatch", "BatchErrors", "logistic_batch",
           "query_variance_factor", "noise_levels", "uniform_allocation", "neyman_allocation", "neyman_ratio",
           "bernoulli_allocation", "gaussian_allocation", "draw_allocations", "allocation_variance",
           "allocation_bias", "simulate_batch_gradient", "simulate_batch_gradient_numpy", "trainer_moments",
           "simulate_trainer_step", "PGDRun", "ORACLES", "SADDLE_NOISES", "run_pgd", "run_pgd_numpy", "fd_step",
           "critical_displacement", "escape_probability", "critical_noise", "ball_marginal_sf", "paper_thresholds",
           "critical_levels"]
