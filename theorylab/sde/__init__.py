"""SDE models of adaptive optimizers (Compagnoni et al., "Adaptive Methods through the Lens of
SDEs: Theoretical Insights on the Role of Noise", ICLR 2025, arXiv 2411.15958).

* :mod:`~theorylab.sde.engine`: Euler–Maruyama (user SDEs and built-in models), coupled
  step-size levels, strong/weak error tables (proved on OU and GBM);
* :mod:`~theorylab.sde.optimizers`: SGD, SignSGD, RMSpropW, AdamW on quadratics with Gaussian
  or Student-t gradient noise, their SDEs, and coupled optimizer/SDE runs;
* :mod:`~theorylab.sde.mlp`: a small tanh-MLP regression in numpy with injected noise, the
  optimizers and the SGD/SignSGD SDEs on it;
* :mod:`~theorylab.sde.theory`: the closed forms checked by ``validations/adaptive_sde/``.
"""

from .engine import (convergence_table, coupled_terminal, euler_maruyama, gbm_exact, ou_moments,
                     simulate_test_sde)
from .optimizers import (NOISES, OPTIMIZERS, Quadratic, Run, run_coupled, run_optimizer, run_sde, sign_mean,
                         sign_mean_table)
from .mlp import MLPRegression, run_mlp_coupled, run_mlp_optimizer
from .theory import (adaptive_stationary_loss, phase_of, scale_hyperparameters, sgd_stationary_loss,
                     signsgd_phase1_loss, signsgd_phase3_rate, signsgd_stationary_loss, t_density_at_zero)

__all__ = ["MLPRegression", "NOISES", "OPTIMIZERS", "Quadratic", "Run", "adaptive_stationary_loss",
           "convergence_table", "coupled_terminal", "euler_maruyama", "gbm_exact", "ou_moments", "phase_of",
           "run_coupled", "run_mlp_coupled", "run_mlp_optimizer", "run_optimizer", "run_sde", "scale_hyperparameters",
           "sgd_stationary_loss", "sign_mean", "sign_mean_table", "signsgd_phase1_loss", "signsgd_phase3_rate",
           "signsgd_stationary_loss", "simulate_test_sde", "t_density_at_zero"]
