"""The public API for writing claims about your own paper: ``from theorylab.claims import ...``.

This module is the one place a package that is not theorylab imports from (``theorylab new PAPER
--in DIR`` writes a module that does).  A paper is a module that declares a :class:`Paper` and
decorates functions with :func:`claim` and :func:`figure`; registered through an entry point
(``[project.entry-points."theorylab.papers"] my_rate = "mypkg.my_rate"``), it is listed, checked,
calibrated, reported and collected by the pytest plugin (``pytest -p theorylab``) like theorylab's
own papers.  A claim function takes its scale's parameters and ``seed`` and returns evidence:

=============  =================================================================================
evidence       what it tests
=============  =================================================================================
Estimate       a value with a confidence interval against a predicted value
Slope          a log-log slope (:func:`fit_loglog`) against a predicted exponent
Bound          a value (with an optional interval) on the claimed side of a bound
Proportion     successes out of trials against a threshold (Clopper-Pearson)
Identity       an identity checked exactly or to a stated float margin
=============  =================================================================================

Every verdict follows one rule (:mod:`theorylab.core.evidence`): *not reproduced* needs the
family-wise interval (level 1 - 1e-4 over 500 claims) to exclude the prediction, confirmed on a
replicate stream at 95%; *inconclusive* means too noisy, never broken.

Stability
---------
The names in ``__all__`` are stable: from theorylab 0.1 on, they keep their names, their
keyword arguments and the meaning of their results within a major version; a change is announced
one minor version ahead with a ``DeprecationWarning``.  The verdict rule's constants (levels,
design size) may be tightened in a minor version, which the ledger header then states.  Every
other module of theorylab (``theorylab.core.*``, the field packages, the command line's
internals) is private and may change without notice.
"""

from __future__ import annotations

from .core.checks import Paper, Result, benchmark, claim, figure, run_claim
from .core.evidence import (INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Bound, Estimate, Evidence, Identity, Proportion,
                            Slope)
from .core.experiment import clear_experiments, experiment
from .core.rates import RateFit, bootstrap_ci, curve_slope, fit_loglog, mean_ci, proportion_ci
from .core.seeding import as_generator, child_seed, spawn_seeds
from .core.sweep import grid, sweep
from .core.validate import check_array, check_budget, check_int, check_positive, check_real

__all__ = [
    # declaring a paper
    "Paper", "claim", "figure", "benchmark",
    # evidence and verdicts
    "Evidence", "Estimate", "Slope", "Bound", "Proportion", "Identity",
    "REPRODUCED", "NOT_REPRODUCED", "INCONCLUSIVE",
    # statistics
    "fit_loglog", "RateFit", "curve_slope", "mean_ci", "bootstrap_ci", "proportion_ci",
    # experiments, sweeps and seeds
    "experiment", "clear_experiments", "sweep", "grid", "child_seed", "spawn_seeds", "as_generator",
    # running a claim (tests, mutation tests)
    "run_claim", "Result",
    # argument checks for a validated simulator API (ValueError/TypeError naming the argument)
    "check_int", "check_real", "check_positive", "check_array", "check_budget",
]
