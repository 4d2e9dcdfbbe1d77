"""relu_depth benchmarks: exact arithmetic against a naive Fraction-by-Fraction reference.

* ``exact_eval``: exact evaluation of the F_n tournament at a batch of rational points; the
  library path works on int64 numerators over a common denominator (jitted, overflow proven
  impossible beforehand), the reference evaluates every neuron with ``fractions.Fraction``.
  Reported for several n (throughput in points/s); ``ratio`` is at the largest n.
* ``exact_volume``: the exact normalized volume of random zonotopes (sums of random integer
  segments) in R^4: jitted int64 Bareiss determinants over Qhull's boundary triangulation
  against the same triangulation with Fraction Gaussian elimination.
* ``region_enumeration``: depth-first region enumeration with exact Farkas pruning against the
  naive enumeration of every activation pattern (Fraction maps + one LP per pattern), and the
  scaling of the full certificate ``certify_max`` with n (regions/s).
"""

from __future__ import annotations

import time
from fractions import Fraction

import numba
import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.relu import certify_max, evaluate_reference, max_network
from theorylab.relu.network import rational_numerators


def _points(n, m, seed=0):
    rng = np.random.default_rng(seed)
    return np.array([[Fraction(int(rng.integers(-999, 1000)), int(rng.integers(1, 9))) for _ in range(n)]
                     for _ in range(m)], dtype=object)


@benchmark("relu_depth", "exact_eval")
def bench_exact_eval(*, quick=False):
    ns = (4, 8) if quick else (4, 8, 16, 32)
    m = 200 if quick else 2000
    m_ref = 50 if quick else 200
    out = {"threads": numba.get_num_threads()}
    max_network(2).evaluate([[1, 2]])                         # compile outside the timing
    for n in ns:
        net = max_network(n)
        X = _points(n, m, seed=n)
        num, S0 = rational_numerators(X)
        t_lib = best_time(net.evaluate_numerators, num, S0, repeat=3)
        t_ref = best_time(evaluate_reference, net, X[:m_ref], repeat=1) * (m / m_ref)
        Y, S = net.evaluate_numerators(num[:m_ref], S0)
        ref = evaluate_reference(net, X[:m_ref])
        assert all(Fraction(int(a), S) == b for a, b in zip(Y[:, 0], ref[:, 0]))
        out[f"n{n}_points_per_s"] = m / t_lib
        out[f"n{n}_reference_points_per_s"] = m / t_ref
        out[f"n{n}_ratio"] = t_ref / t_lib
    out["ratio"] = out[f"n{ns[-1]}_ratio"]
    return out


def _zonotope(rng, d, gens):
    pts = np.zeros((1, d), dtype=np.int64)
    from theorylab.relu.polytopes import _vertices
    for _ in range(gens):
        g = rng.integers(-3, 4, size=d)
        pts = _vertices(np.vstack([pts, pts + g]))
    return pts


def _det_fraction(M):
    A = [[Fraction(int(v)) for v in row] for row in M]
    d, det = len(A), Fraction(1)
    for k in range(d):
        p = next((r for r in range(k, d) if A[r][k] != 0), None)
        if p is None:
            return Fraction(0)
        if p != k:
            A[k], A[p] = A[p], A[k]
            det = -det
        det *= A[k][k]
        for i in range(k + 1, d):
            f = A[i][k] / A[k][k]
            A[i] = [a - f * b for a, b in zip(A[i], A[k])]
    return det


@benchmark("relu_depth", "exact_volume")
def bench_exact_volume(*, quick=False):
    from scipy.spatial import ConvexHull

    from theorylab.relu import _kernels
    from theorylab.relu.polytopes import _full_dim_volume

    rng = np.random.default_rng(0)
    d, gens = 4, (6 if quick else 9)
    Z = _zonotope(rng, d, gens)
    _full_dim_volume(_zonotope(np.random.default_rng(1), 3, 4))   # compile
    t_lib = best_time(_full_dim_volume, Z, repeat=3)
    hull = ConvexHull(Z.astype(float), qhull_options="Qt")
    k = len(hull.vertices)
    c = Z[hull.vertices].sum(axis=0)
    mats = [(Z[s] * k - c) for s in hull.simplices]

    def ref():
        return sum(abs(_det_fraction(M)) for M in mats) / k ** d

    t0 = time.perf_counter()
    v_ref = ref()
    t_ref_dets = time.perf_counter() - t0
    t_kernel = best_time(_kernels.det_batch, np.ascontiguousarray(np.array(mats, dtype=np.int64)), repeat=3)
    assert v_ref == _full_dim_volume(Z)
    return {"ratio": t_ref_dets / t_kernel, "simplices": len(mats), "vertices": int(Z.shape[0]),
            "kernel_dets_per_s": len(mats) / t_kernel, "fraction_dets_per_s": len(mats) / t_ref_dets,
            "whole_volume_s": t_lib, "fraction_dets_s": t_ref_dets}


def _regions_bruteforce(net):
    """Naive reference: try all 2^(neurons) activation patterns, each with Fraction maps and one LP."""
    from itertools import product

    from theorylab.relu.regions import ZERO, _interior_point

    n = net.n_inputs
    sizes = net.dims[1:-1]
    found = 0
    for pattern in product((0, 1), repeat=sum(sizes)):
        lins = [tuple(Fraction(int(i == j)) for j in range(n)) for i in range(n)]
        consts = [ZERO] * n
        A, c, pos = [], [], 0
        for l in range(net.depth):
            W, b = net.weights[l], net.biases[l]
            new_l, new_c = [], []
            for r in range(W.shape[0]):
                zl = tuple(sum((W[r, j] * lins[j][i] for j in range(len(lins))), ZERO) for i in range(n))
                zc = sum((W[r, j] * consts[j] for j in range(len(lins))), ZERO) + b[r]
                s = 1 if pattern[pos] else -1
                A.append(tuple(s * v for v in zl))
                c.append(s * zc)
                new_l.append(zl if pattern[pos] else tuple([ZERO] * n))
                new_c.append(zc if pattern[pos] else ZERO)
                pos += 1
            lins, consts = new_l, new_c
        if _interior_point(A[:-1], c[:-1], A[-1], c[-1], 1.0) is not None:
            found += 1
    return found


@benchmark("relu_depth", "region_enumeration")
def bench_region_enumeration(*, quick=False):
    """Depth-first enumeration with Farkas pruning against trying every activation pattern.

    The reference is exponential in the number of neurons (2^8 patterns at n = 2, 2^9 at n = 3),
    so it is run only there; the certificate's own scaling is reported up to n = 6 (full).
    """
    from theorylab.relu.regions import enumerate_regions

    n_ref = 2 if quick else 3
    net = max_network(n_ref)
    t_dfs = best_time(enumerate_regions, net, repeat=3)
    t0 = time.perf_counter()
    n_brute = _regions_bruteforce(net)
    t_brute = time.perf_counter() - t0
    regions, _ = enumerate_regions(net)
    out = {"ratio": t_brute / t_dfs, "n": n_ref, "regions_dfs": len(regions), "regions_bruteforce": n_brute,
           "dfs_s": t_dfs, "bruteforce_s": t_brute}
    for n in ((2, 3) if quick else (2, 3, 4, 5, 6)):
        t0 = time.perf_counter()
        cert = certify_max(max_network(n))
        t_cert = time.perf_counter() - t0
        out[f"certify_n{n}_regions"] = cert["n_regions"]
        out[f"certify_n{n}_s"] = t_cert
        out[f"certify_n{n}_regions_per_s"] = cert["n_regions"] / t_cert
    return out


def _rref_fraction_reference(M):
    """The former pure-Python core.exact.rref (Gauss-Jordan on ``fractions.Fraction``), kept
    here only as the reference of ``exact_rref_flint``."""
    R = [list(row) for row in M]
    n_rows, n_cols = len(R), len(R[0])
    pivots, r = [], 0
    for c in range(n_cols):
        p = next((i for i in range(r, n_rows) if R[i][c] != 0), None)
        if p is None:
            continue
        R[r], R[p] = R[p], R[r]
        inv = 1 / R[r][c]
        R[r] = [v * inv for v in R[r]]
        for i in range(n_rows):
            if i != r and R[i][c] != 0:
                f = R[i][c]
                R[i] = [a - f * b for a, b in zip(R[i], R[r])]
        pivots.append(c)
        r += 1
        if r == n_rows:
            break
    return R, pivots


@benchmark("relu_depth", "exact_rref_flint")
def bench_exact_rref_flint(*, quick=False):
    """core.exact.rref (python-flint fmpq_mat, Fraction in and out) against the former
    Fraction Gauss-Jordan elimination, on dense random rational matrices (entries p/q with
    |p| <= 9, 1 <= q <= 9), results asserted identical. Sizes m x (4m/3); ratio at the largest;
    growth exponents of both in m (log-log fit over the sizes)."""
    from theorylab.core.exact import rref

    sizes = (12, 24) if quick else (15, 30, 60)
    rng = np.random.default_rng(0)
    out, t_new, t_old = {}, [], []
    for m in sizes:
        n = 4 * m // 3
        M = [[Fraction(int(rng.integers(-9, 10)), int(rng.integers(1, 10))) for _ in range(n)] for _ in range(m)]
        t_lib = best_time(rref, M, repeat=3)
        t0 = time.perf_counter()
        ref = _rref_fraction_reference(M)
        t_ref = time.perf_counter() - t0
        assert rref(M) == ref, f"flint rref differs from the Fraction reference at {m} x {n}"
        out[f"m{m}_flint_s"], out[f"m{m}_fraction_s"], out[f"m{m}_ratio"] = t_lib, t_ref, t_ref / t_lib
        t_new.append(t_lib)
        t_old.append(t_ref)
    out["ratio"] = out[f"m{sizes[-1]}_ratio"]
    out["growth_flint"] = float(np.polyfit(np.log(sizes), np.log(t_new), 1)[0])
    out["growth_fraction"] = float(np.polyfit(np.log(sizes), np.log(t_old), 1)[0])
    return out
