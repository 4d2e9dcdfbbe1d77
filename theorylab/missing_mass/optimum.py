"""The best estimator of the expectation-preserving family, knowing p (a bound on any search).

Every genome reachable by the identity mutations satisfies, as a polynomial identity in p,
sum_(m,k) a_(m,k) p^k (1-p)^(m-k) = p (1-p)^n  (E[genome] = E[M_0(n)] for every p).  Over a
window of atoms m in [n - window, n + 1], 1 <= k <= k_max, the estimator (after the
projection (n+1, k) -> (n, k)) with the smallest exact MSE under a *known* p solves a linearly
constrained least-squares problem.  No distribution-free search over that window can do better.

Numerical, not exact: the constraint's null space is taken by SVD (relative cut 1e-10) from
the identity evaluated on a grid of p values; ``residual`` reports how well it holds.
"""

from __future__ import annotations

import numpy as np

from theorylab.core import check_int, check_probability_vector

from . import _kernels as K
from ._checks import check_n, check_prob_like
from .moments import _logfact, group_probabilities

#: largest n (the log-factorial table and the pairwise sums grow with it) and atom window
MAX_OPT_N = 10**4
MAX_WINDOW, MAX_K = 50, 50


def family_optimum(p, n: int, *, window: int | None = None, k_max: int = 8) -> dict:
    """Smallest MSE of an expectation-preserving estimator over the atom window, and GT's MSE.

    ``window``: atoms m in [n - window, n + 1], 0 <= window <= min(n - 1, 50); default min(6, n - 1).
    ``k_max``: 1 <= k <= k_max <= 50.  2 <= n <= 10**4.

    Returns a dict with ``optimum_mse``, ``gt_mse``, ``ratio``, ``null_dim`` (free directions)
    and ``residual`` (max violation of the identity on the grid, scaled rows).
    """
    p = check_prob_like("p", p)
    n = check_n("n", n, low=2, high=MAX_OPT_N)
    window = min(6, n - 1) if window is None else check_int("window", window, low=0, high=min(n - 1, MAX_WINDOW))
    k_max = check_int("k_max", k_max, low=1, high=MAX_K)
    gen = [(m, k) for m in range(n - window, n + 2) for k in range(1, min(m, k_max) + 1)]
    proj = sorted({(min(m, n), k) for m, k in gen if k <= min(m, n)})
    P = np.zeros((len(proj), len(gen)))
    for j, (m, k) in enumerate(gen):
        if k <= min(m, n):
            P[proj.index((min(m, n), k)), j] = 1.0
    u, c = group_probabilities(p)
    m = np.array([n] + [a for a, _ in proj], dtype=np.int64)
    k = np.array([0] + [b for _, b in proj], dtype=np.int64)
    w = np.array([1] + [0] * len(proj), dtype=np.int64)
    G = K.gram(u, c, m, k, w, _logfact(n + 2))
    A, b = G[1:, 1:], G[1:, 0]
    t = np.linspace(1e-3, 1 - 1e-3, len(gen) + 40)
    C = np.array([[x ** kk * (1 - x) ** (mm - kk) for (mm, kk) in gen] for x in t])
    rhs = t * (1 - t) ** n
    scale = 1.0 / np.maximum(np.abs(C).max(axis=1), 1e-300)
    C, rhs = C * scale[:, None], rhs * scale
    a0 = np.linalg.lstsq(C, rhs, rcond=None)[0]
    _, s, Vt = np.linalg.svd(C)
    N = Vt[int((s > s[0] * 1e-10).sum()):].T
    B, x0 = P @ N, P @ a0
    z = np.linalg.lstsq(B.T @ A @ B, -B.T @ (A @ x0 - b), rcond=None)[0]
    x = x0 + B @ z
    opt = float(G[0, 0] - 2 * b @ x + x @ A @ x)
    i = proj.index((n, 1))
    gt = float(G[0, 0] - 2 * G[1 + i, 0] + G[1 + i, 1 + i])
    if not (np.isfinite(opt) and np.isfinite(gt) and gt > 0):
        from theorylab.core import SimulationDiverged

        raise SimulationDiverged(f"family_optimum: non-finite or zero MSE (optimum {opt}, GT {gt}) with n={n}, "
                                 f"window={window}, k_max={k_max}")
    return dict(optimum_mse=opt, gt_mse=gt, ratio=opt / gt, null_dim=int(N.shape[1]),
                residual=float(np.abs(C @ (a0 + N @ z) - rhs).max()), atoms=len(gen))
