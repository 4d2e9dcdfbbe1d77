"""Low-dimensional structure inside optimisation: Krylov subspaces and random subspaces (issue 33).

Modules (import from them directly or from here):

- ``theorylab.krylov.subspace``  random subspace sketches (Gaussian, orthonormal, coordinate), the homogenised
  trust-region step restricted to a subspace (RSHTR, paper rshtr) and full-space HSODM as the reference
"""

from .subspace import (H_KINDS, SKETCHES, SOLVERS, Composite, Direction, Quadratic, Trace, full_rank_quadratic,
                       homogenized_direction, homogenized_step, hsodm, model_value, one_step_ratio, rank_deficient,
                       rshtr, sketch)

__all__ = ["H_KINDS", "SKETCHES", "SOLVERS", "Composite", "Direction", "Quadratic", "Trace", "full_rank_quadratic",
           "homogenized_direction", "homogenized_step", "hsodm", "model_value", "one_step_ratio", "rank_deficient",
           "rshtr", "sketch"]
