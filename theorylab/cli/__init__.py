"""The ``theorylab`` command line.

    theorylab list
    theorylab check rr_sgd --scale ci              # table of claims; exit 1 on any unexpected outcome
    theorylab check rr_sgd:pr_bias_order -k bias   # one claim; pytest-like -k selection
    theorylab check --all --scale full --format json
    theorylab figures rr_sgd                        # PNG + CSV of the plotted data
    theorylab calibrate scaling_ode --seeds 20      # verdict stability and interval calibration
    theorylab report                                # the ledger from the recorded results
    theorylab reproduce                             # every claim and figure at full scale, timed
    theorylab bench rr_sgd | cite rr_sgd

Outputs: a user's runs write under ``--out DIR`` (default ``$THEORYLAB_OUT`` or
``<cache>/out``, the cache being ``$THEORYLAB_CACHE`` or ``~/.cache/theorylab``) and never touch
the checkout.  ``--publish`` (maintainers) writes the committed ``results/``, ``figures/`` and
``paper_checks.md`` instead; it refuses ``--set`` overrides and ci-scale figures.

``--scheduler ADDRESS`` (before or after the command, or ``$THEORYLAB_DASK_SCHEDULER``) runs the
claims and their sweep points on a dask cluster.  SIGINT/SIGTERM stop a run cleanly (exit 130 /
143): nothing partial is recorded, and what finished is cached, so the same command resumes.
"""

from __future__ import annotations

from .commands import PAPER_BUDGET_S, THEORYLAB_BIBTEX, out_root, results_root, run_claims
from .output import _table
from .parser import SCALE_CHOICES, build_parser, main
from .selection import parse_overrides, select_claims, select_papers

__all__ = ["main", "build_parser", "select_claims", "select_papers", "parse_overrides", "run_claims", "out_root",
           "results_root", "Progress", "PAPER_BUDGET_S", "THEORYLAB_BIBTEX", "SCALE_CHOICES"]


def __getattr__(name):  # the progress display lives in core; imported only when asked for
    if name == "Progress":
        from ..core.progress import Progress

        return Progress
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
