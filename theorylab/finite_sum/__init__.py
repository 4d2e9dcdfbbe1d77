"""Finite-sum objectives with exact per-sample gradients and the SVRG / alpha-SVRG estimators (issue 32:
paper alpha_svrg).

Modules (import from them directly or from here):

- ``theorylab.finite_sum.svrg``  least squares, per-coordinate gradient moments, the alpha-SVRG estimator,
  alpha*, the authors' alpha* estimate and coefficient schedule, SGD steps
- ``theorylab.finite_sum.mlp``   small numpy MLPs on a Gaussian-mixture classification task, trained by SGD,
  with the authors' per-coordinate alpha* measured at a snapshot
- ``theorylab.finite_sum.vfl``   vertically partitioned least squares, the LASER-VFL subset sampler and weights
  of the authors' code, its expected objective, LASER-VFL SGD with block missingness, test-time predictors
"""

from .mlp import Mixture, gaussian_mixture, init_mlp, minibatch_grads, mlp_loss_grad, train_measure_alpha
from .svrg import (CLAMP, LeastSquares, code_optimal_coefficient, coordinate_moments, estimator_variance,
                   least_squares, mc_estimator_variance, mc_estimator_variance_numpy, optimal_coefficient,
                   per_sample_grads, sgd_steps, svrg_estimates, svrg_schedule)
from .vfl import (MAX_BLOCKS, LaserObjective, VerticalData, expected_subset_weights, laser_objective, laser_sgd,
                  predict, sampler_weights, vertical_regression)

__all__ = ["Mixture", "gaussian_mixture", "init_mlp", "minibatch_grads", "mlp_loss_grad", "train_measure_alpha",
           "CLAMP", "LeastSquares", "code_optimal_coefficient", "coordinate_moments", "estimator_variance",
           "least_squares", "mc_estimator_variance", "mc_estimator_variance_numpy", "optimal_coefficient",
           "per_sample_grads", "sgd_steps", "svrg_estimates", "svrg_schedule",
           "MAX_BLOCKS", "LaserObjective", "VerticalData", "expected_subset_weights", "laser_objective", "laser_sgd",
           "predict", "sampler_weights", "vertical_regression"]
