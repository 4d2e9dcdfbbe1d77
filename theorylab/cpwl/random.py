"""Random and standard instances: fans, integer functions on them, set functions."""

from __future__ import annotations

import numpy as np

from theorylab.core.seeding import as_generator
from theorylab.core.validate import check_int

from .complexes import planar_fan, polytope_fan

HEXAGON_RAYS = [(1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1)]


def hexagon_fan():
    """The fan of the arrangement x1 = 0, x2 = 0, x1 = x2 (rays of spec §2(b))."""
    return planar_fan(HEXAGON_RAYS, name="hexagon fan")


def four_ray_fan(rays=((2, 1), (-1, 2), (-2, -1), (1, -3))):
    """A 4-ray fan in R^2 in general position: dim V_P / Aff = 2, so D_P(f) is a polygon."""
    return planar_fan(rays, name="4-ray fan")


def _int_range(low, high):
    low = check_int("low", low, low=-2 ** 62, high=2 ** 62)
    high = check_int("high", high, low=low, high=2 ** 62)
    return low, high


def random_planar_fan(m, *, seed=0, box=3, max_tries=10_000):
    """A complete fan with ``m`` primitive integer rays in [-box, box]^2 (consecutive angles < pi)."""
    m = check_int("m", m, low=3, high=40)
    box = check_int("box", box, low=1, high=10**6)
    max_tries = check_int("max_tries", max_tries, low=1, high=10**5)
    rng = as_generator(seed)
    for _ in range(max_tries):
        pts = rng.integers(-box, box + 1, size=(4 * m, 2))
        dirs = {}
        for p in pts:
            if p[0] == 0 and p[1] == 0:
                continue
            g = np.gcd(abs(int(p[0])), abs(int(p[1])))
            dirs.setdefault((int(p[0]) // g, int(p[1]) // g), None)
        dirs = list(dirs)
        if len(dirs) < m:
            continue
        pick = [dirs[i] for i in rng.choice(len(dirs), size=m, replace=False)]
        ang = np.sort(np.arctan2([p[1] for p in pick], [p[0] for p in pick]) % (2 * np.pi))
        gaps = np.diff(np.concatenate([ang, [ang[0] + 2 * np.pi]]))
        if gaps.max() < np.pi - 1e-9:
            return planar_fan(pick, name=f"random fan({m} rays)")
    raise RuntimeError(f"no complete fan with {m} rays found in {max_tries} tries (box={box})")


def random_polytope_fan(m, *, n=3, seed=0, box=2, max_tries=10_000):
    """A complete simplicial fan in R^n over conv of ``m`` random primitive integer rays in
    [-box, box]^n (origin interior, every ray a vertex, facets triangulated by qhull)."""
    n = check_int("n", n, low=2, high=6)
    m = check_int("m", m, low=n + 1, high=40)
    box = check_int("box", box, low=1, high=10**6)
    max_tries = check_int("max_tries", max_tries, low=1, high=10**5)
    rng = as_generator(seed)
    for _ in range(max_tries):
        pts = rng.integers(-box, box + 1, size=(m, n))
        prim = set()
        for p in pts:
            g = np.gcd.reduce(np.abs(p))
            if g:
                prim.add(tuple(int(v) // int(g) for v in p))
        if len(prim) < m:
            continue
        try:
            return polytope_fan(sorted(prim), name=f"random 3-D fan({m} rays)" if n == 3 else None)
        except ValueError:
            continue
    raise RuntimeError(f"no complete fan with {m} rays in R^{n} found in {max_tries} tries (box={box})")


def random_ray_values(fan, *, seed=0, low=-3, high=3):
    """Integer values in [low, high] at the rays of a fan."""
    from ._checks import require_type
    from .complexes import PolyhedralComplex

    require_type("fan", fan, PolyhedralComplex, " with rays (planar_fan, polytope_fan, ...)")
    if getattr(fan, "rays", None) is None:
        raise ValueError(f"fan must be a fan with rays (planar_fan, polytope_fan, ...); got {fan.name}")
    low, high = _int_range(low, high)
    rng = as_generator(seed)
    return [int(v) for v in rng.integers(low, high + 1, size=len(fan.rays))]


def random_set_function(n, *, seed=0, low=-3, high=3):
    """Integer set function on 2^[n] (bitmask-indexed list) with F(empty) = 0 (n <= 20)."""
    n = check_int("n", n, low=1, high=20)
    low, high = _int_range(low, high)
    rng = as_generator(seed)
    return [0] + [int(v) for v in rng.integers(low, high + 1, size=(1 << n) - 1)]
