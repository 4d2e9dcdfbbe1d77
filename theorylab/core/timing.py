"""Timing helpers for benchmarks: best-of-k wall time of a call, in one process."""

from __future__ import annotations

import time

from .validate import check_size

#: best-of-k with more than this many repetitions is a mistake (a benchmark, not a loop).
MAX_REPEAT = 10_000


def best_time(fn, *args, repeat=3, **kwargs) -> float:
    """The smallest wall time of ``repeat`` calls of ``fn(*args, **kwargs)`` (seconds)."""
    if not callable(fn):
        raise TypeError(f"fn must be a callable; got {fn!r}"[:200])
    repeat = check_size("repeat", repeat, low=1, budget=MAX_REPEAT)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args, **kwargs)
        best = min(best, time.perf_counter() - t0)
    return best
