"""High-dimensional and large-sample statistics (issue 34): finite-size versions of limit statements.

Modules (import from them directly or from here):

- ``theorylab.highdim.critical_batch`` one-pass minibatch SGD with exponential weight averaging on power-law linear
  regression (its exact second-moment recursion and a jitted stochastic reference), learning-rate tuning per batch
  size, the critical batch size and its bootstrap, random-feature regression with muP-style scaling (paper cbs)
- ``theorylab.highdim.one_step``       zero-mean spiked Gaussian mixtures, a two-layer network after one full-batch
  gradient step on its first layer with a ridge readout, and the variance-matched Hermite equivalent model
  (paper gmm_onestep)
- ``theorylab.highdim.density_ratio``  Gaussian pairs with closed-form density ratio, KL and E_P[r^p], log-linear and
  Lipschitz-network density-ratio estimators trained with the KL and logistic f-divergence losses, exact and Monte
  Carlo L_p(P) errors (paper dre_lp)
"""

from .critical_batch import (bootstrap_cbs, critical_batch_size, effective_dimension, final_risk_numpy, power_law_problem,
                             random_feature_problem, risk_curve, simulate_sgd, stability_limit, steps_vs_batch)
from .density_ratio import (LOSSES, GaussianPair, LogLinearRatio, MLPRatio, fit_log_linear, fit_mlp_ratio,
                            gaussian_pair, lp_error, lp_error_mc, lp_error_tilted_mc, ratio_moment,
                            ratio_moment_quadrature)
from .one_step import (ACTIVATIONS, MAX_DEGREE, HermiteModel, SpikedMixture, degree_rule, hermite_coefficients,
                       gradient_step, hermite_model, one_step_trial, ridge_readout, sample_mixture, spiked_mixture,
                       target_direction)

__all__ = ["bootstrap_cbs", "critical_batch_size", "effective_dimension", "final_risk_numpy", "power_law_problem",
           "random_feature_problem", "risk_curve", "simulate_sgd", "stability_limit", "steps_vs_batch",
           "LOSSES", "GaussianPair", "LogLinearRatio", "MLPRatio", "fit_log_linear", "fit_mlp_ratio", "gaussian_pair",
           "lp_error", "lp_error_mc", "lp_error_tilted_mc", "ratio_moment", "ratio_moment_quadrature",
           "ACTIVATIONS", "MAX_DEGREE", "HermiteModel", "SpikedMixture", "degree_rule", "hermite_coefficients",
           "gradient_step", "hermite_model", "one_step_trial", "ridge_readout", "sample_mixture", "spiked_mixture",
           "target_direction"]
