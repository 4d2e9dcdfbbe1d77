"""The random-number floor of a sampling kernel: how long its normal draws alone take (issue 15/17).

A kernel whose every step draws d standard normals cannot be faster than drawing those normals. The
ratio of a vectorised numpy reference to that floor is therefore an upper bound ("cap") on the speed-up any
jitted kernel with the same generator can reach against that reference. The dap and stp benchmarks print,
beside their ratio:

* ``draw_fraction`` = floor / jitted kernel time: the share of the kernel spent in its draws (a profile);
* ``ratio_cap`` = numpy time / floor: the best ratio the kernel could reach if all its other work were free;
* ``numpy_draw_fraction`` = numpy's own time to draw the same normals / numpy reference time.

When ``ratio_cap`` is near or below the 5x goal, the goal is out of reach with this generator: both sides
spend their time drawing normals, and numpy draws them in compiled C too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from theorylab.core import best_time, spawn_seeds
from theorylab.core.rng import normal, seed_state


@njit(cache=True)
def _draw_normals(seeds, n_per_seed):
    """Draw ``n_per_seed`` normals from each seed's own xoshiro256** state (as the kernels do, one state per
    trial or path); return their sum so that the draws cannot be optimised away."""
    state = np.empty(4, dtype=np.uint64)
    total = 0.0
    for m in range(seeds.size):
        seed_state(seeds[m], state)
        for _ in range(n_per_seed):
            total += normal(state)
    return total


def _numpy_normals(n_streams, n_per_stream, seed):
    return np.random.default_rng(seed).standard_normal((n_streams, n_per_stream)).sum()


def rng_floor(n_streams: int, n_per_stream: int, *, t_jit: float, t_numpy: float, repeat: int = 3) -> dict:
    """Profile keys for a kernel that draws ``n_per_stream`` normals in each of ``n_streams`` streams and took
    ``t_jit`` seconds, against a numpy reference that took ``t_numpy`` seconds for the same work."""
    seeds = spawn_seeds(0, n_streams)
    _draw_normals(seeds[:1], 1)                               # compile (or load the cache) outside the timing
    floor = best_time(_draw_normals, seeds, n_per_stream, repeat=repeat)
    t_np_draw = best_time(_numpy_normals, n_streams, n_per_stream, 0, repeat=repeat)
    return {"rng_floor_s": floor, "normals": n_streams * n_per_stream,
            "ns_per_normal_jit": 1e9 * floor / (n_streams * n_per_stream),
            "ns_per_normal_numpy": 1e9 * t_np_draw / (n_streams * n_per_stream),
            "draw_fraction": floor / t_jit, "ratio_cap": t_numpy / floor,
            "numpy_draw_fraction": t_np_draw / t_numpy}
