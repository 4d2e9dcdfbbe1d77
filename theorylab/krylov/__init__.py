"""Krylov and low-dimensional subspace methods in optimisation (issue 33: papers lancbio, rshtr, domsub, trajmap).

Modules (import from them directly or from here):

- ``theorylab.krylov.lanczos``       Lanczos (with or without reorthogonalisation) and conjugate-gradient iterates on
  SPD systems, the CG error bound, an HVP-counting operator
- ``theorylab.krylov.bilevel``       bilevel problems with exact hypergradients (quadratic lower level, logistic
  hyperparameter tuning), LancBiO's dynamic Lanczos outer loop as the authors' code, CG / Neumann baselines
- ``theorylab.krylov.dominant``      the exact quadratic toy with its closed-form alignment, a two-layer tanh MLP
  with its exact Hessian, top-k eigenspaces, Dom-SGD / Bulk-SGD projections and the switch experiment (domsub)
- ``theorylab.krylov.trajectories``  heavy-ball trajectories on quadratics and their exact complex-root form,
  consecutive-update cosines, sign changes, the ergodic phase average, trajectory maps (trajmap)
- ``theorylab.krylov.subspace``      random subspace sketches (Gaussian, orthonormal, coordinate), the homogenised
  trust-region step restricted to a subspace, full-space HSODM as the reference (rshtr)
"""

from .bilevel import (MAX_OUTER_WORK, BilevelRun, LogisticHyperparameter, QuadraticBilevel, cg_bilevel, lancbio,
                      logistic_hyperparameter, neumann_bilevel, quadratic_bilevel, restart_schedule)
from .dominant import (METHODS, TanhMLP, alignment, hessian_fd, project, tanh_mlp, tanh_mlp_hessian, tanh_mlp_init,
                       tanh_mlp_loss_grad, toy_alignment, toy_run, toy_stationary_sd, top_eigenspace, train_switch)
from .lanczos import (REORTH_CHOICES, HVPCounter, cg_error_bound, cg_iterates, check_spd, lanczos_basis,
                      lanczos_iterates)
from .subspace import (H_KINDS, SKETCHES, SOLVERS, Composite, Direction, Quadratic, Trace, full_rank_quadratic,
                       homogenized_direction, homogenized_step, hsodm, model_value, one_step_ratio, rank_deficient,
                       rshtr, sketch)
from .trajectories import (consecutive_cosines, ergodic_cosine_mean, heavy_ball, heavy_ball_exact_updates,
                           mlp_trajectory, root_angles, sign_changes, trajectory_map)

__all__ = ["MAX_OUTER_WORK", "BilevelRun", "LogisticHyperparameter", "QuadraticBilevel", "cg_bilevel", "lancbio",
           "logistic_hyperparameter", "neumann_bilevel", "quadratic_bilevel", "restart_schedule",
           "METHODS", "TanhMLP", "alignment", "hessian_fd", "project", "tanh_mlp", "tanh_mlp_hessian", "tanh_mlp_init",
           "tanh_mlp_loss_grad", "toy_alignment", "toy_run", "toy_stationary_sd", "top_eigenspace", "train_switch",
           "REORTH_CHOICES", "HVPCounter", "cg_error_bound", "cg_iterates", "check_spd", "lanczos_basis",
           "lanczos_iterates",
           "consecutive_cosines", "ergodic_cosine_mean", "heavy_ball", "heavy_ball_exact_updates", "root_angles",
           "sign_changes", "trajectory_map", "mlp_trajectory",
           "H_KINDS", "SKETCHES", "SOLVERS", "Composite", "Direction", "Quadratic", "Trace", "full_rank_quadratic",
           "homogenized_direction", "homogenized_step", "hsodm", "model_value", "one_step_ratio", "rank_deficient",
           "rshtr", "sketch"]
