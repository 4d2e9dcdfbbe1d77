"""Seeded delay laws for the simulated server-worker loop (issue 32, paper async_bundle).

Time is simulated in integer *ticks*: a worker that receives a point at tick t returns its cut (or gradient)
at tick t + D, with D >= 1 drawn from a delay law; the server's own work takes no simulated time.  The laws
(the paper's Sec. 4 allows any finite, unknown delays; these three are ours):

- ``constant``:     D = mean (an integer >= 1);
- ``geometric``:    P(D = k) = p (1 - p)^(k - 1), k >= 1, p = 1 / mean (memoryless, mean exactly ``mean``);
- ``heavy``:        D = ceil(s U^(-1/a)) with U uniform on (0, 1], tail index a = 2.5 (finite mean, infinite
                    third moment) and s = mean (a - 1) / a, so E[s U^(-1/a)] = mean (D exceeds it by < 1).
"""

from __future__ import annotations

import numpy as np

from theorylab.core import as_generator, check_budget, check_choice, check_int, check_real

__all__ = ["DELAY_LAWS", "HEAVY_TAIL_INDEX", "draw_delays", "check_delays"]

DELAY_LAWS = ("constant", "geometric", "heavy")
#: Tail index a of the ``heavy`` law (P(D > t) ~ t^(-a)).
HEAVY_TAIL_INDEX = 2.5


def draw_delays(law: str = "geometric", mean: float = 4.0, size: int = 1, *, seed=0) -> np.ndarray:
    """``size`` i.i.d. integer delays (ticks, each >= 1) from ``law`` with mean ``mean`` (module docstring)."""
    law = check_choice("law", law, DELAY_LAWS)
    mean = check_real("mean", mean, low=1.0, high=1e6)
    size = check_int("size", size, low=0, high=10**8)
    check_budget("the delay array", size, size=size)
    if law == "constant":
        if not float(mean).is_integer():
            raise ValueError(f"mean must be an integer for the constant law (a delay in ticks); got {mean!r}")
        return np.full(size, int(mean), dtype=np.int64)
    rng = as_generator(seed)
    if law == "geometric":
        return rng.geometric(1.0 / mean, size).astype(np.int64)
    a = HEAVY_TAIL_INDEX
    u = 1.0 - rng.random(size)                      # uniform on (0, 1]
    return np.ceil(mean * (a - 1) / a * u ** (-1.0 / a)).astype(np.int64)


def check_delays(name: str, delays) -> np.ndarray:
    """Validate a user-supplied delay sequence: integers (ticks) >= 1; returns an int64 array.
    Refuses negative, zero, non-integer or non-finite values naming ``name``."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty str; got {name!r}")
    arr = np.asarray(delays)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be an array of integer delays (ticks); got dtype {arr.dtype}")
    if arr.dtype.kind == "b":
        raise TypeError(f"{name} must hold integer delays (ticks), not booleans")
    arr = arr.ravel()
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite integer delays (ticks); got a non-finite value")
        if not np.all(arr == np.round(arr)):
            bad = arr[arr != np.round(arr)][0]
            raise ValueError(f"{name} must be integer delays (ticks); got {bad!r}")
    if arr.size and arr.min() < 1:
        raise ValueError(f"{name} must be integer delays >= 1 tick (no negative or zero delay); got {arr.min()!r}")
    if arr.size and arr.max() > 10**9:
        raise ValueError(f"{name} must be delays <= 1e9 ticks; got {arr.max()!r}")
    return arr.astype(np.int64)
