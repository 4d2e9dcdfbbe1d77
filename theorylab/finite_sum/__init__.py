"""Finite-sum objectives with exact per-sample gradients and the SVRG / alpha-SVRG estimators (issue 32:
paper alpha_svrg).

Modules (import from them directly or from here):

- ``theorylab.finite_sum.svrg``  least squares, per-coordinate gradient moments, the alpha-SVRG estimator,
  alpha*, the authors' alpha* estimate and coefficient schedule, SGD steps
- ``theorylab.finite_sum.mlp``   small numpy MLPs on a Gaussian-mixture classification task, trained by SGD,
  with the authors' per-coordinate alpha* measured at a snapshot
"""

from . import mlp, svrg
from .mlp import *  # noqa: F401,F403
from .svrg import *  # noqa: F401,F403

__all__ = sorted(set(svrg.__all__) | set(mlp.__all__))
