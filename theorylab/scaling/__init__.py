"""Two-layer student-teacher networks with power-law data spectra: one-pass SGD and its ODEs.

Worschech & Rosenow, "Analyzing Neural Scaling Laws in Two-Layer Networks with Power-Law Data
Spectra", ICLR 2025, arXiv:2410.09005.

* :func:`simulate_sgd` - jitted one-pass SGD (many seeds in parallel), eps_g exact from the
  order parameters;
* :func:`integrate_ode` - the order-parameter ODEs (eigen-group form of the Sigma^m hierarchy),
  :func:`integrate_hierarchy` - the hierarchy itself with the minimal-polynomial closure;
* linear closed forms: :func:`linear_eps`, :func:`linear_eps_small_eta`, :func:`linear_power_law`,
  :func:`power_law_window`, :func:`late_time_rate`, :func:`trainable_final_error`;
* the erf plateau: :func:`plateau_fixed_point`, :func:`plateau_height`, :func:`escape_time`.
"""

from .linear import (drift_matrix, finite_n_rate, late_time_rate, linear_eps, linear_eps_finite_n, linear_eps_small_eta, linear_group_errors,
                     linear_power_law, power_law_exponent, power_law_window, trainable_final_error,
                     trainable_power_law)
from .model import eigenvalues, group_overlaps, init_weights, simulate_sgd, simulate_sgd_over_L, spectrum
from .ode import closure_coefficients, initial_overlaps, integrate_hierarchy, integrate_ode, to_hierarchy
from .plateau import (escape_time, plateau_fixed_point, plateau_height, plateau_instability_rate,
                      plateau_specialization_rate, plateau_value)

__all__ = ["closure_coefficients", "drift_matrix", "eigenvalues", "escape_time", "finite_n_rate", "group_overlaps",
           "init_weights", "initial_overlaps", "integrate_hierarchy", "integrate_ode", "late_time_rate", "linear_eps",
           "linear_eps_finite_n", "linear_eps_small_eta", "linear_group_errors", "linear_power_law", "plateau_fixed_point", "plateau_height", "plateau_instability_rate", "plateau_specialization_rate",
           "plateau_value", "power_law_exponent", "power_law_window", "simulate_sgd", "simulate_sgd_over_L", "spectrum",
           "to_hierarchy", "trainable_final_error", "trainable_power_law"]
