"""Size and time budgets of theorylab.scaling, checked before anything is allocated or run.

Every public function refuses a request that would allocate more than ``MEMORY_BUDGET``
bytes in one array, or do more than ``WORK_BUDGET`` elementary operations (multiply-adds,
normal draws, Gaussian-integral evaluations), with a ValueError naming the arguments that
set the size.  The work budget, 1e12 operations, is several hours of one core: far above
any full-scale check (the largest, ``ode_matches_sgd`` at full scale, does ~1e10), far below
"never returns" (a request of n_seeds = 1e9 paths).
"""

from __future__ import annotations

import numpy as np

MEMORY_BUDGET = 2 ** 30  # bytes in one array (1 GiB)
WORK_BUDGET = 1e12  # elementary operations in one call


def _args(args: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in args.items())


def check_memory(what: str, n_elements, **args) -> None:
    """Refuse if an array of ``n_elements`` float64 values would exceed the memory budget."""
    nbytes = 8.0 * float(n_elements)
    if not nbytes <= MEMORY_BUDGET:
        raise ValueError(f"{_args(args)}: {what} would need {nbytes:.3g} bytes, above the memory budget of "
                         f"{MEMORY_BUDGET:.3g} bytes (theorylab.scaling._budget.MEMORY_BUDGET); reduce {', '.join(args)}")


def check_work(what: str, n_ops, **args) -> None:
    """Refuse if a call would do more than ``WORK_BUDGET`` elementary operations."""
    if not float(n_ops) <= WORK_BUDGET:
        raise ValueError(f"{_args(args)}: {what} would take {float(n_ops):.3g} elementary operations, above the "
                         f"time budget of {WORK_BUDGET:.3g} (theorylab.scaling._budget.WORK_BUDGET); "
                         f"reduce {', '.join(args)}")


def check_times(name: str, alphas, *, allow_empty=False):
    """A 1-d array of finite, non-negative, non-decreasing times (refuses NaN before any rounding)."""
    from theorylab.core import check_array

    a = check_array(name, np.atleast_1d(alphas) if np.ndim(alphas) == 0 else alphas, ndim=1)
    if a.size == 0 and not allow_empty:
        raise ValueError(f"{name} must be a non-empty 1-d array of times >= 0; got an empty array")
    if np.any(a < 0) or np.any(np.diff(a) < 0):
        raise ValueError(f"{name} must be non-decreasing times >= 0; got min {a.min():.3g}"
                         + ("" if a.size < 2 else f", smallest step {np.diff(a).min():.3g}"))
    return a
