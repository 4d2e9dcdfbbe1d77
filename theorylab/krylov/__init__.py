"""Krylov and low-dimensional subspace methods in optimisation (issue 33: papers lancbio, rshtr, domsub, trajmap).

Modules (import from them directly or from here):

- ``theorylab.krylov.lanczos``  Lanczos (with or without reorthogonalisation) and conjugate-gradient iterates on SPD
  systems, the CG error bound, an HVP-counting operator
- ``theorylab.krylov.bilevel``  bilevel problems with exact hypergradients (quadratic lower level, logistic
  hyperparameter tuning), LancBiO's dynamic Lanczos outer loop as the authors' code, CG / Neumann baselines
"""

from .bilevel import (MAX_OUTER_WORK, BilevelRun, LogisticHyperparameter, QuadraticBilevel, cg_bilevel, lancbio,
                      logistic_hyperparameter, neumann_bilevel, quadratic_bilevel, restart_schedule)
from .lanczos import (REORTH_CHOICES, HVPCounter, cg_error_bound, cg_iterates, check_spd, lanczos_basis,
                      lanczos_iterates)

__all__ = ["MAX_OUTER_WORK", "BilevelRun", "LogisticHyperparameter", "QuadraticBilevel", "cg_bilevel", "lancbio",
           "logistic_hyperparameter", "neumann_bilevel", "quadratic_bilevel", "restart_schedule",
           "REORTH_CHOICES", "HVPCounter", "cg_error_bound", "cg_iterates", "check_spd", "lanczos_basis",
           "lanczos_iterates"]
