"""Tchebycheff, smooth Tchebycheff and (smooth) Tchebycheff-set scalarisations: the simulator of paper ``stch_set``.

X. Lin, Y. Liu, X. Zhang, F. Liu, Z. Wang, Q. Zhang, "Few for Many: Tchebycheff Set Scalarization for
Many-Objective Optimization", ICLR 2025 (arXiv:2405.19650); forms as in the authors' code (GitHub Xi-L/STCH-Set,
run_quad_func.py, problem.py).  For a set of K solutions x^(1..K) and m objectives, F[k, i] = f_i(x^(k)) - z_i
(ideal point z, 0 in the code):

    TCH-Set    g(F)   = max_i min_k F[k, i]
    STCH-Set   g_mu(F) = mu log sum_i exp(s_i / mu),   s_i = -mu log sum_k exp(-F[k, i] / mu)   (same mu twice)
    SOM        mean_i min_k F[k, i]               (sum-of-minimum baseline)
    TCH        max_i lam_i F_i,   STCH  mu log sum_i exp(lam_i F_i / mu)     (one solution, preference lam;
               :func:`tch`, :func:`smooth_tch`: the module is named ``stch``, so the function is not)

Smoothing sandwich [derived]: s_i lies in [min_k F[k, i] - mu log K, min_k F[k, i]] and the outer smooth max in
[max_i s_i, max_i s_i + mu log m], hence  -mu log K <= g_mu(F) - g(F) <= mu log m  for every F; for one solution
0 <= STCH - TCH <= mu log m.  Both constants are attained in a limit (:func:`sandwich_extremes`).  Gradient
[derived]: d g_mu / d F[k, i] = p_i q[k, i] with p = softmax_i(s / mu), q[., i] = softmax_k(-F[., i] / mu), so the
weights are >= 0 and sum to 1.

Problems (as in problem.py, drawn with numpy instead of torch): :func:`quadratic_problem` f_i(x) = (a_i . x -
b_i)^2 with a_i ~ U[-1, 1]^n, b_i ~ U[-2, 2]; :func:`mixed_linear_regression_problem`; :func:`clustered_problem`
f_i(x) = ||x - c_i||^2 with K tight, well separated clusters, whose optimal TCH-Set value is the largest squared
minimum-enclosing-ball radius of a cluster (:func:`clustered_optimum`, cvxpy SOCP; [derived] condition in its
docstring).  Solver: :func:`solve_set` runs schedule-free SGD (lr 1e-2, 100 warm-up steps, momentum 0.9, as the
code's ``SGDScheduleFree``) on a scalarisation (jitted), :func:`solve_set_numpy` is the numpy reference.
Initial solutions (:func:`initial_solutions`): ``"uniform"`` U[0, 1)^n (the code's ``torch.rand``),
``"gaussian"`` N(0, I), ``"farthest"`` farthest-point traversal over the objectives' individual minimisers.

Example::

    from theorylab.multiobjective import stch as S
    P = S.quadratic_problem(n_dim=10, m=128, seed=0)
    X = S.solve_set(P, K=5, method="stch_set", n_steps=2000, seed=0)
    F = S.evaluate(P, X)
    S.tch_set(F), S.som(F)                      # worst and average objective of the set
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.core.seeding import as_generator
from theorylab.core.validate import (SimulationDiverged, check_array, check_budget, check_choice, check_int,
                                     check_real, check_size, require_finite)
from theorylab.multiobjective import _kernels_stch as KR

__all__ = ["tch", "smooth_tch", "smooth_tch_grad", "tch_set", "stch_set", "stch_set_grad", "tch_set_subgrad", "som",
           "smoothing_bounds", "sandwich_extremes", "stch_set_sympy", "least_squares_problem", "distance_problem",
           "quadratic_problem", "mixed_linear_regression_problem", "clustered_problem", "evaluate",
           "min_enclosing_ball", "clustered_optimum", "farthest_point_indices", "initial_solutions",
           "dirichlet_preferences", "solve_set", "solve_set_numpy", "METHODS", "INITS"]

METHODS = ("stch_set", "tch_set", "som", "stch", "tch", "ls")
INITS = ("uniform", "gaussian", "farthest")
_METHOD_CODE = {name: code for code, name in enumerate(METHODS)}     # == KR.METHOD_* (tested)
MAX_SIZE = 10**7            # K * m entries of a value matrix
MAX_WORK = 10**10           # n_steps * K * m * n of one solver call (about half a minute jitted)
MAX_WORK_NUMPY = 10**9


# --------------------------------------------------------------------------- validation helpers

def _mu(mu):
    return check_real("mu", mu, low=0.0, low_open=True, high=1e6)


def _matrix(name, values):
    F = check_array(name, values, ndim=2)
    if F.shape[0] < 1 or F.shape[1] < 1:
        raise ValueError(f"{name} must be a non-empty K x m matrix (K >= 1 solutions, m >= 1 objectives); "
                         f"got shape {F.shape}")
    check_budget(name, F.size, max_elements=MAX_SIZE, K=F.shape[0], m=F.shape[1])
    if np.abs(F).max() > 1e150:
        raise ValueError(f"{name} must hold values within 1e150 of 0; got max |{name}| = {np.abs(F).max():.3g}")
    return F


def _shift(F, ideal):
    if ideal is None:
        return F
    z = check_array("ideal", np.atleast_1d(check_array("ideal", ideal)) if not isinstance(ideal, str) else ideal,
                    shape=(F.shape[1],))
    if np.abs(z).max() > 1e150:
        raise ValueError(f"ideal must be within 1e150 of 0; got max |ideal| = {np.abs(z).max():.3g}")
    return F - z


def _values_and_weights(values, weights, ideal):
    """(F, lam) as K x m arrays (a 1-d input is one solution); each row of lam on the probability simplex."""
    F = check_array("values", values)
    if F.ndim not in (1, 2):
        raise ValueError(f"values must be a 1-d vector (one solution) or a K x m matrix; got shape {F.shape}")
    one = F.ndim == 1
    F = _matrix("values", F[None, :] if one else F)
    lam = check_array("weights", weights)
    lam = lam[None, :] if lam.ndim == 1 else lam
    if lam.shape != F.shape:
        raise ValueError(f"weights must have the shape of values {F.shape[1:] if one else F.shape}; got "
                         f"{np.shape(weights)}")
    if np.any(lam < 0) or np.any(np.abs(lam.sum(1) - 1) > 1e-9):
        raise ValueError("weights must lie on the probability simplex (entries >= 0, each row summing to 1 within "
                         f"1e-9); got min {lam.min():.3g}, row sums in [{lam.sum(1).min():.12g}, "
                         f"{lam.sum(1).max():.12g}]")
    return _shift(F, ideal), lam, one


def _lse(a, axis):
    hi = a.max(axis=axis, keepdims=True)
    return np.squeeze(hi, axis) + np.log(np.exp(a - hi).sum(axis))


def _softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# --------------------------------------------------------------------------- scalarisations

def tch(values, weights, *, ideal=None):
    """Tchebycheff scalarisation max_i lam_i (f_i - z_i) of one solution (1-d ``values``) or of each row of a
    K x m matrix; ``weights`` of the same shape, each row on the simplex."""
    F, lam, one = _values_and_weights(values, weights, ideal)
    out = (lam * F).max(1)
    return float(out[0]) if one else out


def smooth_tch(values, weights, mu: float = 0.01, *, ideal=None):
    """Smooth Tchebycheff mu log sum_i exp(lam_i (f_i - z_i) / mu), per solution (the code's STCH, mu = 0.01)."""
    F, lam, one = _values_and_weights(values, weights, ideal)
    mu = _mu(mu)
    out = mu * _lse(lam * F / mu, 1)
    return float(out[0]) if one else out


def smooth_tch_grad(values, weights, mu: float = 0.01, *, ideal=None):
    """d STCH / d f_i = lam_i softmax_i(lam F / mu) [derived], the shape of ``values``."""
    F, lam, one = _values_and_weights(values, weights, ideal)
    mu = _mu(mu)
    out = lam * _softmax(lam * F / mu, 1)
    return out[0] if one else out


def tch_set(values, *, ideal=None) -> float:
    """TCH-Set max_i min_k (F[k, i] - z_i) of a K x m value matrix (the set's worst objective)."""
    F = _shift(_matrix("values", values), ideal)
    return float(F.min(0).max())


def som(values, *, ideal=None) -> float:
    """Sum-of-minimum baseline, as the code's mean_i min_k F[k, i] (the set's average objective)."""
    F = _shift(_matrix("values", values), ideal)
    return float(F.min(0).mean())


def _inner_outer(F, mu):
    s = -mu * _lse(-F / mu, 0)                  # smooth min over the K solutions, per objective
    return s, mu * _lse(s / mu, 0)              # smooth max over the m objectives


def stch_set(values, mu: float = 0.1, *, ideal=None) -> float:
    """STCH-Set mu log sum_i exp(s_i / mu), s_i = -mu log sum_k exp(-(F[k, i] - z_i) / mu) (run_quad_func.py)."""
    F = _shift(_matrix("values", values), ideal)
    return float(_inner_outer(F, _mu(mu))[1])


def stch_set_grad(values, mu: float = 0.1, *, ideal=None) -> np.ndarray:
    """d STCH-Set / d F[k, i] = p_i q[k, i], p = softmax_i(s / mu), q = softmax_k(-F / mu) [derived]."""
    F = _shift(_matrix("values", values), ideal)
    mu = _mu(mu)
    s, _ = _inner_outer(F, mu)
    return _softmax(s / mu, 0)[None, :] * _softmax(-F / mu, 0)


def tch_set_subgrad(values, *, ideal=None) -> np.ndarray:
    """A subgradient of TCH-Set: 1 at (argmin_k F[k, i*], i*), i* = argmax_i min_k F[k, i]; 0 elsewhere."""
    F = _shift(_matrix("values", values), ideal)
    k = F.argmin(0)
    i = int(F.min(0).argmax())
    W = np.zeros_like(F)
    W[k[i], i] = 1.0
    return W


def smoothing_bounds(K: int, m: int, mu: float) -> tuple:
    """(-mu log K, mu log m): the [derived] sandwich of STCH-Set - TCH-Set for K solutions and m objectives."""
    K = check_int("K", K, low=1, high=MAX_SIZE)
    m = check_int("m", m, low=1, high=MAX_SIZE)
    mu = _mu(mu)
    return -mu * np.log(K), mu * np.log(m)


def sandwich_extremes(K: int, m: int, level: float = 0.0, spread: float = 50.0):
    """Two K x m value matrices whose STCH-Set - TCH-Set approaches the two ends of the sandwich as
    spread / mu -> inf [derived]:

    - lower end -mu log K: column 0 equals ``level`` for every solution, the other columns ``level - spread``
      (every smooth min is level - mu log K exactly, the outer max picks column 0 up to exp(-spread / mu));
    - upper end mu log m: solution 0 equals ``level`` on every objective, the others ``level + spread`` (every
      smooth min is level up to exp(-spread / mu), the outer smooth max of m equal values adds mu log m).
    """
    K = check_int("K", K, low=1, high=10**5)
    m = check_int("m", m, low=1, high=10**5)
    check_budget("the K x m matrices", K * m, max_elements=MAX_SIZE, K=K, m=m)
    level = check_real("level", level, low=-1e6, high=1e6)
    spread = check_real("spread", spread, low=0.0, low_open=True, high=1e6)
    low = np.full((K, m), level - spread)
    low[:, 0] = level
    high = np.full((K, m), level + spread)
    high[0] = level
    return low, high


def stch_set_sympy(K: int = 2, m: int = 3):
    """(expr, F symbols (K x m list), mu): STCH-Set as a sympy expression, for exact derivatives."""
    import sympy as sp

    K = check_int("K", K, low=1, high=4)
    m = check_int("m", m, low=1, high=4)
    mu = sp.Symbol("mu", positive=True)
    F = [[sp.Symbol(f"F_{k}{i}", real=True) for i in range(m)] for k in range(K)]
    s = [-mu * sp.log(sum(sp.exp(-F[k][i] / mu) for k in range(K))) for i in range(m)]
    return mu * sp.log(sum(sp.exp(si / mu) for si in s)), F, mu


# --------------------------------------------------------------------------- problems

@dataclass(frozen=True)
class SetProblem:
    """m objectives on R^n: ``kind`` "least_squares" f_i(x) = (A[i] . x - b[i])^2, or "distance"
    f_i(x) = ||x - A[i]||^2; ``labels`` the planted cluster of each objective (or None); ``minimisers`` one
    minimiser of each f_i (rows), used by the farthest-point initialisation."""

    kind: str
    A: np.ndarray
    b: np.ndarray
    labels: np.ndarray | None
    minimisers: np.ndarray
    name: str = ""

    @property
    def m(self) -> int:
        return self.A.shape[0]

    @property
    def n_dim(self) -> int:
        return self.A.shape[1]


def _data_matrix(name, A):
    A = check_array(name, A, ndim=2)
    if A.shape[0] < 1 or A.shape[1] < 1:
        raise ValueError(f"{name} must be a non-empty m x n matrix; got shape {A.shape}")
    check_budget(name, A.size, max_elements=MAX_SIZE, m=A.shape[0], n=A.shape[1])
    if np.abs(A).max() > 1e6:
        raise ValueError(f"{name} must hold entries within 1e6 of 0; got max |{name}| = {np.abs(A).max():.3g}")
    return A


def least_squares_problem(A, b, *, name: str = "least squares") -> SetProblem:
    """f_i(x) = (A[i] . x - b[i])^2, i = 1..m (problem.py's quadratic form); rows of A must be non-zero."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str; got {name!r}"[:200])
    A = _data_matrix("A", A)
    b = check_array("b", b, shape=(A.shape[0],))
    if np.abs(b).max() > 1e6:
        raise ValueError(f"b must hold entries within 1e6 of 0; got max |b| = {np.abs(b).max():.3g}")
    nrm = (A * A).sum(1)
    if np.any(nrm == 0):
        raise ValueError(f"A must have non-zero rows (f_i = (a_i . x - b_i)^2); row {int(np.argmin(nrm))} is zero")
    return SetProblem("least_squares", A, b, None, (b / nrm)[:, None] * A, str(name))


def distance_problem(C, *, labels=None, name: str = "distance") -> SetProblem:
    """f_i(x) = ||x - C[i]||^2, i = 1..m; ``labels`` optional planted cluster ids (ints, one per row)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str; got {name!r}"[:200])
    C = _data_matrix("C", C)
    if labels is not None:
        labels = check_array("labels", labels, shape=(C.shape[0],), dtype=np.int64)
    return SetProblem("distance", C, np.zeros(C.shape[0]), labels, C.copy(), str(name))


def quadratic_problem(n_dim: int = 10, m: int = 128, seed=0) -> SetProblem:
    """problem.py's Quadratic_Func: a_i ~ U[-1, 1]^n, b_i ~ U[-2, 2] (numpy draws in place of torch's)."""
    n_dim = check_int("n_dim", n_dim, low=1, high=10**4)
    m = check_int("m", m, low=2, high=10**6)
    check_budget("the m x n_dim matrix A", m * n_dim, max_elements=MAX_SIZE, m=m, n_dim=n_dim)
    rng = as_generator(seed)
    A = 2 * rng.random((m, n_dim)) - 1
    b = 4 * rng.random(m) - 2
    return least_squares_problem(A, b, name=f"quadratic n={n_dim} m={m}")


def mixed_linear_regression_problem(n_dim: int = 10, m: int = 1000, n_center: int = 5, sigma: float = 0.1,
                                    seed=0) -> SetProblem:
    """problem.py's Mixed_Linear_Regression: centres x_c ~ U[-2, 2]^n, objective i belongs to centre i mod
    n_center, a_i ~ U[-1, 1]^n, b_i = a_i . x_{c(i)} + sigma N(0, 1)."""
    n_dim = check_int("n_dim", n_dim, low=1, high=10**4)
    m = check_int("m", m, low=2, high=10**6)
    n_center = check_int("n_center", n_center, low=1, high=m)
    sigma = check_real("sigma", sigma, low=0.0, high=1e3)
    check_budget("the m x n_dim matrix A", m * n_dim, max_elements=MAX_SIZE, m=m, n_dim=n_dim)
    rng = as_generator(seed)
    centres = 4 * rng.random((n_center, n_dim)) - 2
    labels = np.arange(m) % n_center
    A = 2 * rng.random((m, n_dim)) - 1
    b = (A * centres[labels]).sum(1) + sigma * rng.standard_normal(m)
    P = least_squares_problem(A, b, name=f"mixed linear regression n={n_dim} m={m}")
    return SetProblem(P.kind, P.A, P.b, labels, P.minimisers, P.name)


def clustered_problem(m: int = 100, K: int = 5, n_dim: int = 10, box: float = 10.0, radius: float = 1.0,
                      seed=0) -> SetProblem:
    """f_i(x) = ||x - c_i||^2 with m points in K clusters (sizes differ by at most 1): cluster centres ~
    U[-box, box]^n, points = centre + radius u with u uniform in the unit ball.  Separation is checked by
    :func:`clustered_optimum`."""
    m = check_int("m", m, low=2, high=10**6)
    K = check_int("K", K, low=1, high=m)
    n_dim = check_int("n_dim", n_dim, low=1, high=10**4)
    box = check_real("box", box, low=0.0, low_open=True, high=1e5)
    radius = check_real("radius", radius, low=0.0, low_open=True, high=1e5)
    check_budget("the m x n_dim matrix C", m * n_dim, max_elements=MAX_SIZE, m=m, n_dim=n_dim)
    rng = as_generator(seed)
    centres = box * (2 * rng.random((K, n_dim)) - 1)
    labels = np.arange(m) % K
    u = rng.standard_normal((m, n_dim))
    u *= (rng.random(m) ** (1 / n_dim) / np.linalg.norm(u, axis=1))[:, None]
    return distance_problem(centres[labels] + radius * u, labels=labels, name=f"clustered m={m} K={K} n={n_dim}")


def _problem(problem):
    if not isinstance(problem, SetProblem):
        raise TypeError(f"problem must be a SetProblem (from quadratic_problem, clustered_problem, ...); got "
                        f"{type(problem).__name__}")
    return problem


def _solutions(X, problem, name="X"):
    X = check_array(name, X, ndim=2)
    if X.shape[0] < 1 or X.shape[1] != problem.n_dim:
        raise ValueError(f"{name} must be a K x n_dim matrix of solutions (K >= 1, n_dim = {problem.n_dim}); got "
                         f"shape {X.shape}")
    if np.abs(X).max() > 1e6:
        raise ValueError(f"{name} must hold entries within 1e6 of 0; got max |{name}| = {np.abs(X).max():.3g}")
    return X


def evaluate(problem: SetProblem, X) -> np.ndarray:
    """The K x m value matrix F[k, i] = f_i(X[k])."""
    problem = _problem(problem)
    X = _solutions(X, problem)
    check_budget("the K x m value matrix", X.shape[0] * problem.m * problem.n_dim, max_elements=MAX_SIZE,
                 K=X.shape[0])
    return _evaluate(problem, X)


def _jacobian_products(problem, X, W):
    """G[k] = sum_i W[k, i] grad f_i(X[k])."""
    if problem.kind == "least_squares":
        return 2 * (W * (X @ problem.A.T - problem.b)) @ problem.A
    return 2 * (W.sum(1)[:, None] * X - W @ problem.A)


# --------------------------------------------------------------------------- the known optimum (clustered)

def min_enclosing_ball(points) -> tuple:
    """(centre, radius) of the smallest ball containing the rows of ``points``: the SOCP min r s.t.
    ||p_j - x|| <= r, solved by cvxpy."""
    import cvxpy as cp

    P = check_array("points", points, ndim=2)
    if P.shape[0] < 1 or P.shape[1] < 1:
        raise ValueError(f"points must be a non-empty n_points x n_dim matrix; got shape {P.shape}")
    check_budget("points", P.size, max_elements=10**6, n_points=P.shape[0], n_dim=P.shape[1])
    if np.abs(P).max() > 1e6:
        raise ValueError(f"points must hold entries within 1e6 of 0; got max |points| = {np.abs(P).max():.3g}")
    if P.shape[0] == 1:
        return P[0].copy(), 0.0
    x, r = cp.Variable(P.shape[1]), cp.Variable()
    prob = cp.Problem(cp.Minimize(r), [cp.norm(P - x[None, :], 2, axis=1) <= r])
    prob.solve()
    if prob.status not in ("optimal", "optimal_inaccurate") or x.value is None:
        raise SimulationDiverged(f"min_enclosing_ball: cvxpy returned status {prob.status!r}")
    centre = np.asarray(x.value, dtype=float)
    return centre, float(np.sqrt(((P - centre) ** 2).sum(1)).max())


def clustered_optimum(problem: SetProblem) -> dict:
    """The optimal TCH-Set value of a clustered distance problem with as many solutions as clusters [derived]:

    with R_c the minimum-enclosing-ball radius of cluster c and delta the smallest distance between points of
    different clusters, if (delta / 2)^2 > max_c R_c^2 then OPT = max_c R_c^2, attained by the ball centres.
    (A solution that is the nearest for points p, q of two clusters has max(||x - p||^2, ||x - q||^2) >=
    (||p - q|| / 2)^2 > max_c R_c^2; otherwise each of the K solutions serves at most one of the K clusters, so
    each cluster is served by exactly one solution, whose worst objective on it is >= R_c^2.)

    Returns dict(opt, centres (K x n), radii, delta, separated); raises ValueError if not separated.
    """
    problem = _problem(problem)
    if problem.kind != "distance" or problem.labels is None:
        raise ValueError("problem must be a distance problem with cluster labels (from clustered_problem); got "
                         f"kind {problem.kind!r}, labels {'None' if problem.labels is None else 'set'}")
    C, lab = problem.A, problem.labels
    ids = np.unique(lab)
    balls = [min_enclosing_ball(C[lab == c]) for c in ids]
    radii = np.array([r for _, r in balls])
    D = np.sqrt(((C[:, None, :] - C[None, :, :]) ** 2).sum(2))
    delta = float(D[lab[:, None] != lab[None, :]].min()) if ids.size > 1 else np.inf
    opt = float((radii ** 2).max())
    if not (delta / 2) ** 2 > opt:
        raise ValueError(f"problem is not separated enough for the exact optimum: (delta/2)^2 = {(delta / 2) ** 2:.4g}"
                         f" <= max R_c^2 = {opt:.4g}; use a larger box or a smaller radius")
    return dict(opt=opt, centres=np.array([c for c, _ in balls]), radii=radii, delta=delta, separated=True)


# --------------------------------------------------------------------------- initial solutions and solver

def farthest_point_indices(points, K: int, seed=0) -> np.ndarray:
    """K row indices of ``points`` by farthest-point traversal: a random first row, then each next row the one
    farthest (Euclidean) from those chosen."""
    P = check_array("points", points, ndim=2)
    if P.shape[0] < 1:
        raise ValueError(f"points must have at least one row; got shape {P.shape}")
    check_budget("points", P.size, max_elements=MAX_SIZE, n_points=P.shape[0])
    K = check_int("K", K, low=1, high=P.shape[0])
    rng = as_generator(seed)
    idx = [int(rng.integers(P.shape[0]))]
    d = ((P - P[idx[0]]) ** 2).sum(1)
    for _ in range(K - 1):
        idx.append(int(d.argmax()))
        d = np.minimum(d, ((P - P[idx[-1]]) ** 2).sum(1))
    return np.array(idx)


def initial_solutions(problem: SetProblem, K: int, init: str = "uniform", seed=0) -> np.ndarray:
    """K x n starting set: "uniform" U[0, 1)^n (the code's SetModel, torch.rand), "gaussian" N(0, I), or
    "farthest": the minimisers of K objectives chosen by farthest-point traversal."""
    problem = _problem(problem)
    K = check_int("K", K, low=1, high=problem.m)
    init = check_choice("init", init, INITS)
    rng = as_generator(seed)
    if init == "uniform":
        return rng.random((K, problem.n_dim))
    if init == "gaussian":
        return rng.standard_normal((K, problem.n_dim))
    return problem.minimisers[farthest_point_indices(problem.minimisers, K, seed=rng)].copy()


def dirichlet_preferences(K: int, m: int, seed=0) -> np.ndarray:
    """K preference vectors lam_k ~ Dirichlet(1_m) (the code's STCH/TCH/LS preferences), K x m."""
    K = check_int("K", K, low=1, high=MAX_SIZE)
    m = check_int("m", m, low=2, high=MAX_SIZE)
    check_budget("the K x m preferences", K * m, max_elements=MAX_SIZE, K=K, m=m)
    return as_generator(seed).dirichlet(np.ones(m), K)


def _solver_args(problem, K, method, mu, n_steps, lr, warmup, momentum, init, X0, prefs, seed, budget):
    problem = _problem(problem)
    K = check_int("K", K, low=1, high=problem.m)
    method = check_choice("method", method, METHODS)
    mu = _mu(0.1 if mu is None and method == "stch_set" else 0.01 if mu is None else mu)
    n_steps = check_size("n_steps", n_steps, budget=10**8)
    lr = check_real("lr", lr, low=0.0, low_open=True, high=1e3)
    warmup = check_int("warmup", warmup, low=0, high=10**8)
    momentum = check_real("momentum", momentum, low=0.0, high=1.0, low_open=True, high_open=True)
    check_budget("the solver run", n_steps * K * problem.m * problem.n_dim, max_elements=budget, n_steps=n_steps,
                 K=K, m=problem.m)
    rng = as_generator(seed)
    if X0 is None:
        X0 = initial_solutions(problem, K, init, seed=rng)
    else:
        X0 = _solutions(X0, problem, "X0")
        if X0.shape[0] != K:
            raise ValueError(f"X0 must have K = {K} rows; got shape {X0.shape}")
    if prefs is None:
        prefs = dirichlet_preferences(K, problem.m, seed=rng) if method in ("stch", "tch", "ls") else \
            np.full((K, problem.m), 1.0 / problem.m)
    else:
        prefs = check_array("prefs", prefs, shape=(K, problem.m))
        if np.any(prefs < 0) or np.any(np.abs(prefs.sum(1) - 1) > 1e-9):
            raise ValueError("prefs must have rows on the probability simplex (>= 0, summing to 1); got min "
                             f"{prefs.min():.3g}, row sums in [{prefs.sum(1).min():.6g}, {prefs.sum(1).max():.6g}]")
    return problem, K, method, mu, n_steps, lr, warmup, momentum, X0, prefs


def _finish(X, problem, X0, what, lr):
    if not np.all(np.isfinite(X)):
        raise SimulationDiverged(f"{what}: the solutions overflowed to a non-finite value; the step size lr = {lr:g} "
                                 "is too large for this problem")
    scale = 1e6 * (1.0 + np.abs(X0).max() + np.abs(problem.minimisers).max())
    if not np.abs(X).max() <= scale:
        raise SimulationDiverged(f"{what}: the solutions left the ball of radius {scale:.3g} (max |X| = "
                                 f"{np.abs(X).max():.3g}); the step size lr is too large for this problem")
    return X


def solve_set(problem: SetProblem, K: int = 5, method: str = "stch_set", *, mu: float | None = None,
              n_steps: int = 10_000, lr: float = 1e-2, warmup: int = 100, momentum: float = 0.9,
              init: str = "uniform", X0=None, prefs=None, seed=0, return_curve: bool = False):
    """Minimise a scalarisation of the K x m value matrix over the K solutions by schedule-free SGD, as the
    authors' run_quad_func.py (defaults: lr 1e-2, 100 warm-up steps, momentum 0.9, 10 000 steps; mu 0.1 for
    STCH-Set and 0.01 for STCH; preferences Dirichlet(1_m) for STCH/TCH/LS).  Jitted.  Returns the final
    (averaged) K x n solution set, and with ``return_curve`` also the scalarisation value at every step."""
    if not isinstance(return_curve, (bool, np.bool_)):
        raise TypeError(f"return_curve must be a bool; got {type(return_curve).__name__}")
    problem, K, method, mu, n_steps, lr, warmup, momentum, X0, prefs = _solver_args(
        problem, K, method, mu, n_steps, lr, warmup, momentum, init, X0, prefs, seed, MAX_WORK)
    kind = KR.KIND_LSQ if problem.kind == "least_squares" else KR.KIND_DIST
    X = np.empty_like(X0)
    curve = np.empty(n_steps)
    KR.schedule_free(kind, problem.A, problem.b, _METHOD_CODE[method], prefs, mu, X0, n_steps, lr, warmup, momentum,
                     1, X, curve)
    X = _finish(X, problem, X0, f"solve_set({method})", lr)
    if return_curve:
        return X, require_finite("the scalarisation curve", curve)
    return X


def _scalarise_numpy(method, F, lam, mu):
    """dg/dF by the numpy formulas behind the public scalarisations (no validation: the reference's inner loop)."""
    K, m = F.shape
    if method == "stch_set":
        s, _ = _inner_outer(F, mu)
        return _softmax(s / mu, 0)[None, :] * _softmax(-F / mu, 0)
    W = np.zeros_like(F)
    if method in ("tch_set", "som"):
        k = F.argmin(0)
        if method == "som":
            W[k, np.arange(m)] = 1.0 / m
        else:
            i = int(F.min(0).argmax())
            W[k[i], i] = 1.0
        return W
    if method == "stch":
        return lam * _softmax(lam * F / mu, 1)
    if method == "tch":
        i = (lam * F).argmax(1)
        W[np.arange(K), i] = lam[np.arange(K), i]
        return W
    return lam


def _evaluate(problem, X):
    if problem.kind == "least_squares":
        return (X @ problem.A.T - problem.b) ** 2
    return ((X[:, None, :] - problem.A[None, :, :]) ** 2).sum(2)


def solve_set_numpy(problem: SetProblem, K: int = 5, method: str = "stch_set", *, mu: float | None = None,
                    n_steps: int = 10_000, lr: float = 1e-2, warmup: int = 100, momentum: float = 0.9,
                    init: str = "uniform", X0=None, prefs=None, seed=0) -> np.ndarray:
    """Numpy reference of :func:`solve_set` (same arguments, same draws, same result up to rounding): the
    scalarisation gradients come from the public numpy functions, the schedule-free step in its y-only form
    (y <- (1 - c) y + c z + gamma (beta (1 - c) - 1) grad;  z <- z - gamma grad;  x recovered at the end as
    (y - (1 - beta) z) / beta)."""
    problem, K, method, mu, n_steps, lr, warmup, momentum, X0, prefs = _solver_args(
        problem, K, method, mu, n_steps, lr, warmup, momentum, init, X0, prefs, seed, MAX_WORK_NUMPY)
    y, z = X0.copy(), X0.copy()
    lr_max, wsum = -1.0, 0.0
    far = 1e6 * (1.0 + np.abs(X0).max() + np.abs(problem.minimisers).max())
    for t in range(n_steps):
        gamma = lr * min(1.0, (t + 1) / warmup) if warmup else lr
        lr_max = max(lr_max, gamma)
        wsum += lr_max ** 2
        c = lr_max ** 2 / wsum
        g = _jacobian_products(problem, y, _scalarise_numpy(method, _evaluate(problem, y), prefs, mu))
        y = (1 - c) * y + c * z + gamma * (momentum * (1 - c) - 1) * g
        z = z - gamma * g
        if not np.abs(y).max() <= far:          # diverging (or NaN): stop, _finish reports it
            break
    with np.errstate(all="ignore"):
        X = (y - (1 - momentum) * z) / momentum
    return _finish(X, problem, X0, f"solve_set_numpy({method})", lr)
