"""Timing helpers for benchmarks: best-of-k wall time of a call, in one process."""

from __future__ import annotations

import time


def best_time(fn, *args, repeat=3, **kwargs) -> float:
    """The smallest wall time of ``repeat`` calls of ``fn(*args, **kwargs)`` (seconds)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args, **kwargs)
        best = min(best, time.perf_counter() - t0)
    return best
