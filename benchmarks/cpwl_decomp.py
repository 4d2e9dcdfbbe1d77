"""cpwl_decomp benchmarks: vertex enumeration and minimal-decomposition search vs a
brute-force reference (LP over random objectives, HiGHS), on planar fans of growing size."""

from __future__ import annotations

import time

import numpy as np

from theorylab.core import benchmark, fit_loglog
from theorylab.core.seeding import child_seed
from theorylab.core.timing import best_time
from theorylab.cpwl import CPWLFunction, DecompositionPolyhedron, random_planar_fan, random_ray_values


def _instances(sizes, seed=0):
    out = []
    for m in sizes:
        fan = random_planar_fan(m, seed=child_seed(seed, "bench", m), box=4)
        out.append((m, CPWLFunction.from_ray_values(fan, random_ray_values(fan, seed=child_seed(seed, "bv", m)))))
    return out


@benchmark("cpwl_decomp", "vertex_enumeration")
def vertex_enumeration(*, quick=False):
    sizes = (6, 8) if quick else (6, 8, 10, 12, 14, 16)
    n_obj = 50 if quick else 300
    rows = []
    DecompositionPolyhedron(_instances((5,))[0][1]).vrep("numba")  # compile outside the timing
    for m, f in _instances(sizes):
        t_dd = best_time(lambda: DecompositionPolyhedron(f).vrep("dd"), repeat=1 if quick else 3)
        t_nb = best_time(lambda: DecompositionPolyhedron(f).vrep("numba"), repeat=1 if quick else 3)
        D = DecompositionPolyhedron(f)
        V = D.vrep()[0]
        t0 = time.perf_counter()
        lp = D.vertices_lp(n_obj, seed=0)
        t_lp = time.perf_counter() - t0
        rows.append(dict(walls=m, d=D.d, vertices=len(V), t_dd=t_dd, t_numba=t_nb, t_lp=t_lp,
                         lp_found=len(lp), lp_coverage=len(lp) / len(V)))
    walls = np.array([r["walls"] for r in rows], float)
    t_dd = np.array([r["t_dd"] for r in rows])
    out = dict(ratio=float(np.median([r["t_lp"] / r["t_dd"] for r in rows])),
               ratio_numba=float(np.median([r["t_lp"] / r["t_numba"] for r in rows])),
               vertices_per_s_dd=float(sum(r["vertices"] for r in rows) / t_dd.sum()),
               lp_coverage_min=float(min(r["lp_coverage"] for r in rows)), rows=rows)
    if len(rows) >= 3:
        out.update(_slopes(_fits(walls, dd=t_dd, numba=np.array([r["t_numba"] for r in rows]),
                                 lp=np.array([r["t_lp"] for r in rows]))))
    return out


def _fits(walls, **times):
    """log-log fit (with 95% CI) of each time series against the number of walls."""
    return {name: fit_loglog(walls, t) for name, t in times.items()}


def _slopes(fits):
    """The benchmark keys of :func:`_fits`: each series' slope and its CI."""
    out = {}
    for name, fit in fits.items():
        out[f"{name}_time_slope_vs_walls"] = float(fit.slope)
        out[f"{name}_time_slope_ci"] = tuple(float(v) for v in fit.ci)
    return out


@benchmark("cpwl_decomp", "minimal_decomposition")
def minimal_decomposition(*, quick=False):
    """Exact minimal decompositions (vertex enumeration + one batched piece count from the bends) vs the
    reference ``minimal_decompositions("lp")`` (LPs over ``n_obj`` random objectives, best piece count among
    the vertices they reach, recovered exactly), on random planar fans of growing size.  ``ratio`` = median reference time / exact time.

    Growth: ``ours_time_slope_vs_walls`` (exact path), ``ref_time_slope_vs_walls`` (LP: flat because the
    number of LPs is fixed, which is also why it misses the minimum on larger fans: ``ref_missed_minimum``),
    ``full_certificate_time_slope_vs_walls`` (:meth:`vertex_table`, every vertex rebuilt as functions: the
    exact path before issue 15) and ``vertices_slope_vs_walls``, the growth of the vertex count that any
    exact enumeration must pay.

    Measured 2026-12-04 (2-core machine, 6..22 walls): ratio 59 (LP search / exact); growth exponents in
    the number of walls: exact 2.11 [1.85, 2.37], full certificate 2.61 [2.34, 2.88] (the exact path before
    issue 15 grew as walls^3.4 up to 14 walls), vertex count 1.78 [1.31, 2.24], LP search 0.17 [0.11, 0.22].
    The fitted costs cross at ``crossover_walls`` = 90 (before: near 25), which is where
    ``minimal_decompositions(method="auto")`` switches to the LP search; beyond it the search is only a
    sample of the vertices and certifies nothing."""
    sizes = (6, 8) if quick else (6, 8, 10, 12, 14, 18, 22)
    n_obj = 50 if quick else 300
    rows = []
    DecompositionPolyhedron(_instances((5,))[0][1]).minimal_decompositions()  # compile outside the timing
    for m, f in _instances(sizes, seed=1):
        t_ours = best_time(lambda: DecompositionPolyhedron(f).minimal_decompositions(), repeat=1 if quick else 3)
        t_full = best_time(lambda: DecompositionPolyhedron(f).vertex_table(), repeat=1 if quick else 3)
        t0 = time.perf_counter()
        best_lp = DecompositionPolyhedron(f).minimal_decompositions("lp", n_objectives=n_obj)[0][0].total_pieces
        t_ref = time.perf_counter() - t0
        mins, table = DecompositionPolyhedron(f).minimal_decompositions()
        rows.append(dict(walls=m, vertices=len(table), t_ours=t_ours, t_full_certificate=t_full, t_ref=t_ref,
                         best=mins[0].total_pieces, best_lp=int(best_lp)))
    out = dict(ratio=float(np.median([r["t_ref"] / r["t_ours"] for r in rows])),
               ratio_vs_full_certificate=float(np.median([r["t_full_certificate"] / r["t_ours"] for r in rows])),
               functions_per_s=float(len(rows) / sum(r["t_ours"] for r in rows)),
               ref_missed_minimum=int(sum(r["best_lp"] > r["best"] for r in rows)), rows=rows)
    if len(rows) >= 3:
        walls = np.array([r["walls"] for r in rows], float)
        fits = _fits(walls, ours=np.array([r["t_ours"] for r in rows]),
                     full_certificate=np.array([r["t_full_certificate"] for r in rows]),
                     ref=np.array([r["t_ref"] for r in rows]))
        out.update(_slopes(fits))
        fit = fit_loglog(walls, np.array([r["vertices"] for r in rows], float))
        out["vertices_slope_vs_walls"], out["vertices_slope_ci"] = float(fit.slope), tuple(float(v) for v in fit.ci)
        # where the two fitted power laws cross (cpwl.polyhedron.LP_CROSSOVER_WALLS for method="auto")
        ours, ref = fits["ours"], fits["ref"]
        if ours.slope > ref.slope:
            out["crossover_walls"] = float(np.exp((ref.intercept - ours.intercept) / (ours.slope - ref.slope)))
    return out
