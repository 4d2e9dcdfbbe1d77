"""Exact equality of a ReLU network with a CPWL function, certified region by region.

:func:`enumerate_regions` splits R^n by the sign of every neuron's pre-activation, layer by
layer (depth-first).  On the current region R = {x : g_k(x) >= 0 for all k} (affine g_k, all
exact rationals) a neuron's pre-activation z is affine; the split is skipped only with an
exact *Farkas certificate* that z (or -z) is >= 0 on all of R (z = sum_k lam_k g_k + mu,
lam, mu >= 0, found by an LP and then re-derived and checked in Fractions), otherwise both
sides are explored, each with an exact rational interior point.  The leaves cover R^n, and on
each leaf the network is one affine map, computed exactly.

:func:`certify_max` then proves f = F_n = max(0, x_1..x_n) on every leaf: the leaf's affine map
equals a piece l_j exactly, and l_j - l_i >= 0 on the leaf for every other piece, again by an
exact Farkas certificate.  Floating point (HiGHS via scipy) only proposes candidates; every
statement used is re-checked in exact arithmetic, and anything that fails the exact check is
counted as *uncertified* (never silently accepted).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd
from scipy.optimize import linprog

from theorylab.core.exact import solve_consistent
from theorylab.core.validate import check_int, check_positive

from .network import ReLUNetwork

ZERO = Fraction(0)


@dataclass
class Region:
    """A leaf: constraints ``a.x + c >= 0`` (exact), an exact interior point, the local affine map."""

    A: list          # list of tuples of Fractions (normals)
    c: list          # list of Fractions
    point: tuple     # exact interior point (Fractions)
    out_lin: list    # per output: tuple of Fractions (linear part)
    out_const: list  # per output: Fraction
    pattern: tuple   # activation pattern (0/1 per neuron)


def farkas_nonneg(A, c, d_lin, d_const):
    """Exact certificate that ``d_lin.x + d_const >= 0`` on {x : A_k.x + c_k >= 0 for all k}.

    Returns the multipliers ``lam`` (Fractions, >= 0) with d_lin = sum lam_k A_k and
    d_const - sum lam_k c_k >= 0, or None if none was found (the statement may still hold if
    the region is empty, which never happens for regions built here: they have interior points).
    """
    n = len(d_lin)
    K = len(A)
    if K == 0:
        return [] if all(v == 0 for v in d_lin) and d_const >= 0 else None
    Af = np.array([[float(v) for v in a] for a in A]).reshape(K, n)
    cf = np.array([float(v) for v in c])
    # variables lam (K) and mu >= 0: Af^T lam = d_lin ; cf.lam + mu = d_const
    A_eq = np.zeros((n + 1, K + 1))
    A_eq[:n, :K] = Af.T
    A_eq[n, :K] = cf
    A_eq[n, K] = 1.0
    b_eq = np.array([float(v) for v in d_lin] + [float(d_const)])
    res = linprog(np.ones(K + 1), A_eq=A_eq, b_eq=b_eq, bounds=[(0, None)] * (K + 1), method="highs")
    if res.status != 0:
        return None
    support = [k for k in range(K) if res.x[k] > 1e-9]
    # exact re-derivation on the support (a vertex solution is determined by it)
    cols = [[A[k][i] for k in support] for i in range(n)]
    lam_s = solve_consistent(cols, list(d_lin)) if support else ([] if all(v == 0 for v in d_lin) else None)
    candidates = []
    if lam_s is not None:
        lam = [ZERO] * K
        for k, v in zip(support, lam_s):
            lam[k] = v
        candidates.append(lam)
    candidates.append([Fraction(float(v)).limit_denominator(10 ** 6) if v > 1e-9 else ZERO for v in res.x[:K]])
    for lam in candidates:
        if any(v < 0 for v in lam):
            continue
        if any(sum((lam[k] * A[k][i] for k in range(K)), ZERO) != d_lin[i] for i in range(n)):
            continue
        if d_const - sum((lam[k] * c[k] for k in range(K)), ZERO) >= 0:
            return lam
    return None


def _interior_point(A, c, extra_a, extra_c, box):
    """A rational point with A x + c > 0 and extra_a.x + extra_c > 0 exactly, or None."""
    rows = list(A) + [extra_a]
    consts = list(c) + [extra_c]
    K, n = len(rows), len(extra_a)
    G = np.array([[float(v) for v in a] for a in rows]).reshape(K, n)
    h = np.array([float(v) for v in consts])
    norms = np.maximum(np.linalg.norm(G, axis=1), 1e-300)
    # maximize t s.t. G x + h >= t*|G_k|, |x_i| <= box, t <= 1
    A_ub = np.hstack([-G, norms[:, None]])
    res = linprog(np.r_[np.zeros(n), -1.0], A_ub=A_ub, b_ub=h, bounds=[(-box, box)] * n + [(None, 1.0)],
                  method="highs")
    if res.status != 0 or res.x[-1] <= 1e-9:
        return None
    x = res.x[:n]
    for den in (1, 2, 4, 8, 16, 64, 256, 1024, 2 ** 14, 2 ** 20, 2 ** 30):
        xq = tuple(Fraction(round(v * den), den) for v in x)
        if all(sum((a[i] * xq[i] for i in range(n)), ZERO) + cc > 0 for a, cc in zip(rows, consts)):
            return xq
    return None


def _affine_eval(lin, const, x):
    return sum((l * v for l, v in zip(lin, x)), ZERO) + const


def enumerate_regions(net: ReLUNetwork, *, box: float = 1.0, max_regions: int = 100000):
    """All activation regions of ``net`` with their exact affine maps.

    Parameters
    ----------
    net : ReLUNetwork
    box : float
        Half-width of the box [-box, box]^n in which interior points are searched (the
        Farkas certificates are global; a region meeting the box only outside it is reported
        as uncertified).  For bias-free networks all regions are cones and box=1 suffices.
    max_regions : int
        Safety cap; exceeding it raises RuntimeError.

    Returns
    -------
    regions : list of Region
    stats : dict
        ``n_lp``, ``n_farkas`` (splits skipped by an exact certificate), ``uncertified``
        (splits neither certified nor realized by an exact interior point; 0 for a complete
        enumeration).
    """
    if not isinstance(net, ReLUNetwork):
        raise TypeError(f"net must be a ReLUNetwork; got {type(net).__name__}")
    box = check_positive("box", box)
    max_regions = check_int("max_regions", max_regions, low=1)
    n = net.n_inputs
    stats = {"n_lp": 0, "n_farkas": 0, "uncertified": 0}
    regions = []
    # affine maps of the inputs: x_i = e_i . x
    ident = [tuple(Fraction(int(i == j)) for j in range(n)) for i in range(n)]
    start_point = tuple([ZERO] * n)              # R^n: any point is interior

    def layer_pre(l, ys_lin, ys_const):
        W, b = net.weights[l], net.biases[l]
        lins, consts = [], []
        for r in range(W.shape[0]):
            lin = tuple(sum((W[r, j] * ys_lin[j][i] for j in range(len(ys_lin))), ZERO) for i in range(n))
            const = sum((W[r, j] * ys_const[j] for j in range(len(ys_lin))), ZERO) + b[r]
            lins.append(lin)
            consts.append(const)
        return lins, consts

    def recurse(l, A, c, point, ys_lin, ys_const, pattern):
        if len(regions) > max_regions:
            raise RuntimeError(f"more than max_regions={max_regions} regions")
        lins, consts = layer_pre(l, ys_lin, ys_const)
        if l == net.depth:
            regions.append(Region(list(A), list(c), point, lins, consts, tuple(pattern)))
            return
        # process the neurons of layer l one by one (branching), then move to layer l+1
        def split(j, A, c, point, act):
            if j == len(lins):
                new_lin = [lins[r] if act[r] else tuple([ZERO] * n) for r in range(len(lins))]
                new_const = [consts[r] if act[r] else ZERO for r in range(len(lins))]
                recurse(l + 1, A, c, point, new_lin, new_const, pattern + list(act))
                return
            z_lin, z_const = lins[j], consts[j]
            zval = _affine_eval(z_lin, z_const, point)
            sides = []
            if zval != 0:
                s = 1 if zval > 0 else -1
                # try to certify s*z >= 0 on the whole region: then no split is needed
                lam = farkas_nonneg(A, c, tuple(s * v for v in z_lin), s * z_const)
                stats["n_lp"] += 1
                if lam is not None:
                    stats["n_farkas"] += 1
                    split(j + 1, A, c, point, act + [s > 0])
                    return
                sides.append((s, point))
                other = -s
                p2 = _interior_point(A, c, tuple(other * v for v in z_lin), other * z_const, box)
                stats["n_lp"] += 1
                if p2 is None:
                    stats["uncertified"] += 1
                else:
                    sides.append((other, p2))
            else:
                if all(v == 0 for v in z_lin) and z_const == 0:      # z == 0 on R: ReLU(z) = 0
                    split(j + 1, A, c, point, act + [False])
                    return
                for s in (1, -1):
                    p2 = _interior_point(A, c, tuple(s * v for v in z_lin), s * z_const, box)
                    stats["n_lp"] += 1
                    if p2 is None:
                        stats["uncertified"] += 1
                    else:
                        sides.append((s, p2))
            for s, p in sides:
                split(j + 1, A + [tuple(s * v for v in z_lin)], c + [s * z_const], p, act + [s > 0])

        split(0, A, c, point, [])

    recurse(0, [], [], start_point, ident, [ZERO] * n, [])
    return regions, stats


def certify_max(net: ReLUNetwork, *, box: float = 1.0):
    """Certify ``net == F_n = max(0, x_1, ..., x_n)`` on all of R^n, exactly.

    Returns
    -------
    dict with ``certified`` (bool), ``n_regions``, ``n_failed_regions`` (regions where the
    exact check failed or no certificate was found), ``uncertified_splits`` and ``n_lp``.
    """
    if not isinstance(net, ReLUNetwork):
        raise TypeError(f"net must be a ReLUNetwork; got {type(net).__name__}")
    if net.n_outputs != 1:
        raise ValueError(f"net must have one output to be compared with F_n; got {net.n_outputs}")
    n = net.n_inputs
    regions, stats = enumerate_regions(net, box=box)
    pieces = [(tuple([ZERO] * n), ZERO)] + [(tuple(Fraction(int(i == j)) for j in range(n)), ZERO)
                                           for i in range(n)]
    failed = 0
    for R in regions:
        lin, const = R.out_lin[0], R.out_const[0]
        vals = [_affine_eval(pl, pc, R.point) for pl, pc in pieces]
        j = max(range(len(vals)), key=lambda t: vals[t])          # exact argmax
        ok = tuple(lin) == pieces[j][0] and const == pieces[j][1]
        for i, (pl, pc) in enumerate(pieces):
            if not ok:
                break
            if i == j:
                continue
            d_lin = tuple(a - b for a, b in zip(pieces[j][0], pl))
            if farkas_nonneg(R.A, R.c, d_lin, pieces[j][1] - pc) is None:
                ok = False
            stats["n_lp"] += 1
        failed += not ok
    return {"certified": failed == 0 and stats["uncertified"] == 0, "n_regions": len(regions),
            "n_failed_regions": failed, "uncertified_splits": stats["uncertified"], "n_lp": stats["n_lp"],
            "n_farkas_skips": stats["n_farkas"]}


def regions_table(net: ReLUNetwork, *, box: float = 1.0) -> pd.DataFrame:
    """One row per region: activation pattern, interior point, local affine map of output 0."""
    regions, _ = enumerate_regions(net, box=box)
    return pd.DataFrame([{"pattern": "".join("1" if a else "0" for a in R.pattern),
                          "point": tuple(str(v) for v in R.point),
                          "linear": tuple(str(v) for v in R.out_lin[0]),
                          "constant": str(R.out_const[0])} for R in regions])
