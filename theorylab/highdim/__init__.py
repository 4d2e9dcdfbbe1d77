"""High-dimensional statistics: proportional-limit models checked by finite-size simulation.

Modules (import from them directly or from here):

- ``theorylab.highdim.one_step``  zero-mean spiked Gaussian mixtures, a two-layer network after one full-batch
  gradient step on its first layer with a ridge readout, and the variance-matched Hermite equivalent model
  (paper gmm_onestep)
"""

from .one_step import (ACTIVATIONS, MAX_DEGREE, HermiteModel, SpikedMixture, degree_rule, hermite_coefficients,
                       gradient_step, hermite_model, one_step_trial, ridge_readout, sample_mixture, spiked_mixture,
                       target_direction)

__all__ = ["ACTIVATIONS", "MAX_DEGREE", "HermiteModel", "SpikedMixture", "degree_rule", "hermite_coefficients",
           "gradient_step", "hermite_model", "one_step_trial", "ridge_readout", "sample_mixture", "spiked_mixture",
           "target_direction"]
