"""A Tran & Wang-style canonical decomposition and where it stops being minimal.

Brandenburg, Grillo & Hertrich (ICLR 2025, arXiv:2410.04907, abstract and §1) show that the
approach of Tran & Wang (2024, "Minimal representations of tropical rational functions",
Algebraic Statistics 15(1)) -- a canonical representation that is minimal for conewise linear
functions on R^2 -- "does not extend beyond two dimensions" (v2; v1: "disproving").  Neither the
paper's counter-example nor Tran & Wang's construction could be read (stored copies hold the
abstracts only), so what follows is OUR RECONSTRUCTION, stated so that it can be checked:

* Conewise linear f on R^2 <-> a virtual polygon: the bend of f at ray r_i is an edge of
  signed length lambda_i(f) * |nu_i| (gradient jump lambda_i nu_i).  The canonical choice keeps
  the positive edges in g and the negative ones in h and closes the positive chain with ONE
  straight edge -s, s = sum_{lambda_i > 0} lambda_i nu_i, on the new ray r* (nu(r*) ∝ -s), and
  likewise for h.  Every decomposition needs g to bend on all positive rays and, if s != 0,
  at r* too (likewise h), so this is minimal: pieces(g) = #(pos ∪ {r*}), pieces(h) = #(neg ∪ {r*}).
* By the triangle inequality the straight closing edge is the shortest closure, i.e. the
  canonical decomposition is the point of D_P(f) of least total edge length
  ``E(g) = sum_tau lambda_tau(g) |nu_tau|_2`` (the perimeter of g's Newton polygon), once P
  contains the closing rays.  That rule -- "least total Newton-polytope edge length", a linear
  objective over D_P(f), so attained at a vertex -- makes sense in every dimension and is
  what :func:`tran_wang_decomposition` computes.
* In R^3 (fans over random integer polytopes) the least-length vertex can have MORE pieces
  than the best vertex of D_P(f); :func:`~theorylab.cpwl.experiments.check_tran_wang` finds such
  instances and records them exactly (piece counts from exact vertices; only the edge-length
  objective uses float square roots, with ties reported).

So the check shows: the 2-D canonical rule is minimal in 2-D (as Tran & Wang prove) and is not
minimal in 3-D on a fixed fan.  It does not reproduce the paper's own example.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from theorylab.core.exact import primitive_int_row

from .complexes import PolyhedralComplex, planar_fan
from .functions import CPWLFunction
from .polyhedron import Decomposition, DecompositionPolyhedron

_TIE_RTOL = 1e-9


def wall_norms(complex: PolyhedralComplex) -> np.ndarray:
    """|nu_tau|_2 for every wall (nu_tau the primitive integer normal)."""
    return np.array([float(np.linalg.norm(np.asarray(w.nu, float))) for w in complex.walls])


def edge_length(D: DecompositionPolyhedron, y) -> float:
    """Total Newton-polytope edge length of g at the point y of D_P(f): sum lambda_tau(g) |nu_tau|."""
    if not isinstance(D, DecompositionPolyhedron):
        raise TypeError(f"D must be a DecompositionPolyhedron; got {type(D).__name__}")
    from ._checks import exact_vector
    y = exact_vector("y", y, length=D.d)
    return float(np.dot([float(v) for v in D.bends_of(y)], wall_norms(D.f.complex)))


def _polyhedron(f, D):
    """``D`` if given (a DecompositionPolyhedron of ``f``, whose vertex enumeration is cached), else a new one."""
    if not isinstance(f, CPWLFunction):
        raise TypeError(f"f must be a CPWLFunction; got {type(f).__name__}")
    if D is None:
        return DecompositionPolyhedron(f)
    if not isinstance(D, DecompositionPolyhedron) or D.f is not f:
        raise ValueError("D must be the DecompositionPolyhedron of this f (or None)")
    return D


def tran_wang_decomposition(f: CPWLFunction, D: DecompositionPolyhedron | None = None):
    """The vertex of D_P(f) of least total edge length (our reconstruction of the Tran & Wang
    canonical rule, see the module docstring).

    Returns ``(Decomposition, n_ties)``; ``n_ties`` counts other vertices whose length equals
    the minimum within relative 1e-9 (0 for a well-defined choice).
    """
    D = _polyhedron(f, D)
    verts, _ = D.vrep()
    lengths = np.array([edge_length(D, v) for v in verts])
    k = int(np.argmin(lengths))
    ties = int(np.sum(np.abs(lengths - lengths[k]) <= _TIE_RTOL * max(1.0, abs(lengths[k])))) - 1
    return D.decomposition(verts[k]), ties


def _ccw_normal(r):
    """rot90(r): the normal of the ray r pointing counter-clockwise (primitive if r is)."""
    return (-r[1], r[0])


def positive_chain_gap(f: CPWLFunction) -> tuple[Fraction, Fraction]:
    """s = sum_{lambda_i(f) > 0} lambda_i rot90(r_i): the sum of the positive edge vectors of
    f's virtual polygon (crossing the rays counter-clockwise, the gradient of f jumps by
    lambda_i rot90(r_i) at r_i; all jumps sum to 0).  s = 0 iff the positive chain closes."""
    fan = f.complex
    s = [Fraction(0), Fraction(0)]
    for lam, r in zip(f.bends, fan.rays):
        if lam > 0:
            nu = _ccw_normal(r)
            s = [s[0] + lam * nu[0], s[1] + lam * nu[1]]
    return s[0], s[1]


def closing_ray(f: CPWLFunction):
    """The ray r* with rot90(r*) ∝ -s (where g's closing edge sits), or None if s = 0."""
    s = positive_chain_gap(f)
    if s == (0, 0):
        return None
    # rot90(r) = (-r1, r0) = -t s  <=>  r = (-t s1, t s0)
    return tuple(primitive_int_row([-s[1], s[0]]))


def refine_with_closing_ray(fan: PolyhedralComplex, values):
    """(refined fan, values there): the planar fan plus the closing ray of f, f unchanged
    (f is linear on each old cone, so its value at the new ray is exact)."""
    from ._checks import exact_vector, require_type

    require_type("fan", fan, PolyhedralComplex, " (a planar_fan)")
    if fan.n != 2 or getattr(fan, "rays", None) is None:
        raise ValueError(f"fan must be a planar fan (planar_fan(rays)); got {fan.name}")
    values = exact_vector("values", values, length=len(fan.rays))
    f = CPWLFunction.from_ray_values(fan, values)
    r = closing_ray(f)
    rays = [tuple(q) for q in fan.rays]
    vals = [Fraction(v) for v in values]
    if r is None or r in rays:
        return fan, vals
    rays.append(r)
    vals.append(f([Fraction(v) for v in r]))
    new = planar_fan(rays, name=f"{fan.name} + closing ray")
    order = {q: i for i, q in enumerate(rays)}
    return new, [vals[order[tuple(q)]] for q in new.rays]


def canonical_decomposition_2d(f: CPWLFunction, D: DecompositionPolyhedron | None = None) -> Decomposition:
    """The Tran & Wang canonical decomposition of a conewise linear f on R^2 (our reconstruction):
    lambda(g) = max(0, lambda(f)) plus the closing edge -s on the ray r*, which must be a ray of
    f's fan (use :func:`refine_with_closing_ray`).  Exact."""
    D = _polyhedron(f, D)
    fan = f.complex
    bends = list(D.u)
    r = closing_ray(f)
    if r is not None:
        if r not in [tuple(q) for q in fan.rays]:
            raise ValueError(f"the closing ray {r} is not a ray of {fan.name}; refine with refine_with_closing_ray")
        s = positive_chain_gap(f)
        nu = _ccw_normal(r)
        i = [tuple(q) for q in fan.rays].index(r)
        bends[i] += -s[0] / nu[0] if nu[0] != 0 else -s[1] / nu[1]
    return D.decomposition(D.space.coordinates(bends))


__all__ = ["wall_norms", "edge_length", "tran_wang_decomposition", "positive_chain_gap", "closing_ray",
           "refine_with_closing_ray", "canonical_decomposition_2d"]
