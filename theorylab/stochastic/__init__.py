"""Stochastic first-order methods under heavy-tailed, affine and private noise (issue 18: papers
nsgdm_heavy, fsgdm, disk_dp, dro_dsgdc).

Modules (their public names are re-exported here):

- ``theorylab.stochastic.noise``   gradient-noise laws: Gaussian, Student-t, symmetric Pareto (tail index p),
  affine variance, per-sample clipping + Gaussian privacy noise
- ``theorylab.stochastic.nsgdm``   normalised SGD with momentum under heavy tails (nsgdm_heavy)
- ``theorylab.stochastic.fsgdm``   momentum as a linear filter, FSGDM's stage-wise momentum (fsgdm)
- ``theorylab.stochastic.disk``    DP-SGD and DiSK's Kalman-filtered private gradient (disk_dp)
- ``theorylab.stochastic.dro``     chi-square dual DRO objective and D-SGD-C (dro_dsgdc)
"""

# Names two modules define differently are re-exported under a module prefix: ``nsgdm.METHODS`` as
# ``NSGDM_METHODS``, ``fsgdm.METHODS`` as ``FSGDM_METHODS``, ``dro.METHODS`` as ``DRO_METHODS``.
from .noise import LAWS, NU_MAX, abs_moment, affine_scale, check_noise, sample_noise, tail_probability
from .nsgdm import (METHODS as NSGDM_METHODS, MethodRuns, OBJECTIVES, SCHEDULES, balanced_eta0, default_x1,
                    ema_error, ema_moment_exact, objective, predicted_rate, run_methods, run_methods_numpy, schedule,
                    schedule_exponents)
from .fsgdm import (METHODS as FSGDM_METHODS, band_periodogram, dc_gain, dc_gain_exact, filtered_noise,
                    run_momentum_quadratic, run_momentum_quadratic_numpy, stage_schedule, stage_schedule_reference,
                    transfer_power, transfer_power_sympy)
from .disk import (DiskRun, DiskTrace, Quadratic, disk_coefficients, error_variance_factor, filter_residual,
                   gradnorm_ratio, lyapunov_gradnorm, make_quadratic, noise_variance, run_disk, run_disk_numpy,
                   trace_disk)
from .dro import (DROTrace, LOSSES, METHODS as DRO_METHODS, block_derivatives, dsgdc, dsgdc_numpy, dspider,
                  dual_objective, gradient_complexity, loss_constants, make_instance, primal_value,
                  theorem_parameters)

__all__ = ["LAWS", "NU_MAX", "check_noise", "sample_noise", "abs_moment", "tail_probability", "affine_scale",
           "OBJECTIVES", "NSGDM_METHODS", "SCHEDULES", "MethodRuns", "schedule", "schedule_exponents",
           "predicted_rate", "objective", "default_x1", "balanced_eta0", "run_methods", "run_methods_numpy",
           "ema_error", "ema_moment_exact", "stage_schedule", "stage_schedule_reference", "transfer_power",
           "transfer_power_sympy", "dc_gain", "dc_gain_exact", "filtered_noise", "band_periodogram",
           "run_momentum_quadratic", "run_momentum_quadratic_numpy", "FSGDM_METHODS", "Quadratic", "make_quadratic",
           "disk_coefficients", "run_disk", "run_disk_numpy", "trace_disk", "filter_residual", "noise_variance",
           "error_variance_factor", "lyapunov_gradnorm", "gradnorm_ratio", "DiskRun", "DiskTrace", "LOSSES",
           "DRO_METHODS", "DROTrace", "make_instance", "dual_objective", "primal_value", "loss_constants",
           "block_derivatives", "theorem_parameters", "dsgdc", "dsgdc_numpy", "dspider", "gradient_complexity"]
