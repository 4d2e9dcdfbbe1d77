"""High-dimensional and large-sample statistics of learning algorithms: finite-size versions of limit theorems.

* :mod:`.critical_batch` (paper cbs) - one-pass minibatch SGD on power-law linear regression, the exact
  second-moment recursion with EWA, learning-rate tuning per batch, the critical batch size and random-feature
  regression with muP-style output scaling (Zhang et al., ICLR 2025, arXiv:2410.21676).
"""

from .critical_batch import (bootstrap_cbs, critical_batch_size, effective_dimension, final_risk_numpy, power_law_problem,
                             random_feature_problem, risk_curve, simulate_sgd, stability_limit, steps_vs_batch)

__all__ = ["bootstrap_cbs", "critical_batch_size", "effective_dimension", "final_risk_numpy", "power_law_problem",
           "random_feature_problem", "risk_curve", "simulate_sgd", "stability_limit", "steps_vs_batch"]
