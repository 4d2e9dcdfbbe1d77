"""The bundle (cutting-plane) model and the regularised master problem of the asynchronous bundle method
(paper async_bundle, Sec. 3; the authors' server class ParameterServerABM, repository ABMOPT/ABM).

A *cut* of worker i at a query point z is (g, v) with g = grad f_i(z) and intercept a = f_i(z) - g^T z, so the
cut is the affine minorant x -> a + g^T x of the convex f_i.  Worker i's window holds its last m cuts
(j = 1..m_i); its model is m_i(x) = max_j (a_ij + g_ij^T x) <= f_i(x) [derived: convexity], with equality at
each cut point, and a window's model can only rise when cuts are added (max over a superset).

Master problem (the server's update) with L > 0 and centre zbar:

    x+ = argmin_x  P(x),   P(x) = sum_i max_j (a_ij + g_ij^T x) + (L/2) |x - zbar|^2 + l1 |x|_1.

Its dual [derived: max_j c_j = max over the simplex of lam^T c, then swap min and max] is

    D(lam) = a^T lam + min_x [ (G^T lam)^T x + (L/2) |x - zbar|^2 + l1 |x|_1 ],  lam in a product of simplices,

the inner minimiser x(lam) = soft-threshold(zbar - G^T lam / L, l1 / L) (as in the authors' server), and
grad D(lam) = a + G x(lam), Lipschitz with constant |G|_2^2 / L.  At x(lam) the duality gap is
P(x(lam)) - D(lam) = sum_i (max_j c_ij - lam_i^T c_i), c = a + G x(lam); a gap <= delta certifies
P(x) - P* <= delta and, P being L-strongly convex, |x - x*| <= sqrt(2 delta / L).

:func:`solve_master` maximises D by accelerated projected gradient (numba kernel) until gap <= delta;
:func:`solve_master_cvxpy` solves the primal epigraph QP with cvxpy (the independent reference).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.core import (as_generator, check_array, check_budget, check_int, check_real, require_finite)
from theorylab.core.validate import check_record
from theorylab.distributed import _kernels_bundle as K

__all__ = ["Cuts", "make_cuts", "random_cuts", "nested_window", "model_value", "master_objective", "dual_value", "MasterSolution",
           "solve_master", "solve_master_cvxpy", "MAX_DUAL_ITER"]

#: Iteration cap of the dual solver (a solve that stops there with gap > delta is reported, never hidden).
MAX_DUAL_ITER = 20_000


@dataclass(frozen=True)
class Cuts:
    """Stacked cut windows: G (K, d) gradients, a (K,) intercepts, sizes (n,) window size of each worker
    (the cuts of worker i are rows sum(sizes[:i]) .. sum(sizes[:i+1]) - 1).  Every window needs >= 1 cut:
    an empty window makes the model -inf and the master problem unbounded."""

    G: np.ndarray
    a: np.ndarray
    sizes: np.ndarray

    def __post_init__(self):
        G = check_array("G", self.G, ndim=2)
        a = check_array("a", self.a, shape=(G.shape[0],))
        sizes = np.asarray(self.sizes)
        if sizes.ndim != 1 or sizes.size < 1 or sizes.dtype.kind not in "iu":
            raise TypeError(f"sizes must be a 1-d integer array with one window size per worker; got {self.sizes!r}")
        if sizes.min() < 1:
            raise ValueError(f"sizes must be >= 1 (bundle size < 1: an empty window makes the master problem "
                             f"unbounded); got {sizes.tolist()}")
        if sizes.sum() != G.shape[0]:
            raise ValueError(f"sizes must sum to the number of cuts {G.shape[0]}; got {int(sizes.sum())}")
        object.__setattr__(self, "G", G)
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "sizes", sizes.astype(np.int64))

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.sizes)]).astype(np.int64)

    @property
    def d(self) -> int:
        return self.G.shape[1]


def make_cuts(values, grads, points, sizes) -> Cuts:
    """Cuts from f_i(z_ij) (K,), grad f_i(z_ij) (K, d) and the points z_ij (K, d): a_ij = f_i(z_ij) - g_ij^T z_ij."""
    G = check_array("grads", grads, ndim=2)
    Z = check_array("points", points, shape=G.shape)
    f = check_array("values", values, shape=(G.shape[0],))
    return Cuts(G, f - np.einsum("kd,kd->k", G, Z), np.asarray(sizes))


def random_cuts(n: int = 9, m: int = 5, d: int = 50, *, seed=0) -> Cuts:
    """n windows of m random cuts in R^d: g ~ N(0, I_d), a ~ N(0, 1) (a generic instance for the master problem)."""
    n = check_int("n", n, low=1, high=10**4)
    m = check_int("m", m, low=1, high=10**4)
    d = check_int("d", d, low=1, high=10**4)
    check_budget("the cut matrix", n * m * d, n=n, m=m, d=d)
    rng = as_generator(seed)
    return Cuts(rng.standard_normal((n * m, d)), rng.standard_normal(n * m), np.full(n, m, dtype=np.int64))


def nested_window(cuts: Cuts, m: int) -> Cuts:
    """The last min(m, m_i) cuts of each worker's window (rows in insertion order): windows of one cut history
    are nested, window(m) subset of window(m + 1)."""
    if not isinstance(cuts, Cuts):
        raise TypeError(f"cuts must be a Cuts; got {type(cuts).__name__}")
    m = check_int("m", m, low=1, high=10**6)
    off, keep = cuts.offsets, []
    for i in range(cuts.sizes.size):
        keep.extend(range(max(off[i], off[i + 1] - m), off[i + 1]))
    keep = np.array(keep, dtype=np.int64)
    return Cuts(cuts.G[keep], cuts.a[keep], np.minimum(cuts.sizes, m))


def _check_cuts_x(cuts, x, name="x"):
    if not isinstance(cuts, Cuts):
        raise TypeError(f"cuts must be a Cuts; got {type(cuts).__name__}")
    return check_array(name, x, shape=(cuts.d,))


def model_value(cuts: Cuts, x) -> float:
    """The cutting-plane model sum_i max_j (a_ij + g_ij^T x)."""
    x = _check_cuts_x(cuts, x)
    c = cuts.a + cuts.G @ x
    return float(sum(c[lo:hi].max() for lo, hi in zip(cuts.offsets[:-1], cuts.offsets[1:])))


def _check_master(cuts, zbar, L, l1):
    zbar = _check_cuts_x(cuts, zbar, "zbar")
    L = check_real("L", L, low=0.0, low_open=True, high=1e300)   # L = 0: the master problem is unbounded below
    l1 = check_real("l1", l1, low=0.0, high=1e300)
    return zbar, L, l1


def master_objective(cuts: Cuts, x, zbar, L: float, l1: float = 0.0) -> float:
    """P(x) = model(x) + (L/2) |x - zbar|^2 + l1 |x|_1 (module docstring)."""
    zbar, L, l1 = _check_master(cuts, zbar, L, l1)
    x = _check_cuts_x(cuts, x)
    return model_value(cuts, x) + 0.5 * L * float((x - zbar) @ (x - zbar)) + l1 * float(np.abs(x).sum())


def dual_value(cuts: Cuts, lam, zbar, L: float, l1: float = 0.0) -> float:
    """D(lam) = a^T lam + min_x [(G^T lam)^T x + (L/2)|x - zbar|^2 + l1 |x|_1] (numpy; the inner minimiser in
    closed form); a lower bound on min P for every lam in the product of simplices."""
    zbar, L, l1 = _check_master(cuts, zbar, L, l1)
    lam = check_array("lam", lam, shape=(cuts.G.shape[0],))
    if lam.min() < 0 or np.abs(np.add.reduceat(lam, cuts.offsets[:-1]) - 1).max() > 1e-9:
        raise ValueError("lam must lie in the product of simplices (non-negative, each window summing to 1)")
    v = zbar - cuts.G.T @ lam / L
    x = np.sign(v) * np.maximum(np.abs(v) - l1 / L, 0.0)
    return float(cuts.a @ lam + (cuts.G.T @ lam) @ x + 0.5 * L * (x - zbar) @ (x - zbar) + l1 * np.abs(x).sum())


@dataclass(frozen=True)
class MasterSolution:
    """x the master solution x(lam); lam the dual weights (one simplex per worker); value P(x); dual D(lam);
    gap = value - dual (>= 0); iterations of the dual solver; converged: gap <= delta."""

    x: np.ndarray
    lam: np.ndarray
    value: float
    dual: float
    gap: float
    iterations: int
    converged: bool

    def __post_init__(self):
        check_record(self)
        if self.gap < 0 or self.iterations < 0 or self.x.ndim != 1 or self.lam.ndim != 1:
            raise ValueError(f"MasterSolution: gap and iterations must be >= 0 and x, lam 1-d; got gap = {self.gap}, "
                             f"iterations = {self.iterations}")


def solve_master(cuts: Cuts, zbar, L: float, l1: float = 0.0, *, delta: float = 1e-7, max_iter: int = MAX_DUAL_ITER,
                 lam0=None) -> MasterSolution:
    """The master problem through its dual (module docstring): accelerated projected gradient over the product
    of simplices from ``lam0`` (default: uniform weights in each window) until the duality gap <= ``delta``."""
    zbar, L, l1 = _check_master(cuts, zbar, L, l1)
    delta = check_real("delta", delta, low=0.0, low_open=True)
    max_iter = check_int("max_iter", max_iter, low=1, high=10**7)
    check_budget("the dual solver's work (iterations x cuts x d)", max_iter * cuts.G.size, max_elements=10**11,
                  unit="flops", max_iter=max_iter)
    off = cuts.offsets
    if lam0 is None:
        lam = np.repeat(1.0 / cuts.sizes, cuts.sizes).astype(float)
    else:
        lam = check_array("lam0", lam0, shape=(cuts.G.shape[0],)).copy()
        sums = np.add.reduceat(lam, off[:-1])
        if lam.min() < 0 or np.abs(sums - 1).max() > 1e-9:
            raise ValueError("lam0 must lie in the product of simplices (non-negative, each window summing to 1)")
    lip = max(float(np.linalg.norm(cuts.G, 2)) ** 2 / L, 1e-300)
    x, gap, it = K.dual_fista(cuts.G, cuts.a, off, zbar, L, l1, lip, delta, max_iter, lam)
    require_finite("the master solution", x, L=L)
    value = master_objective(cuts, x, zbar, L, l1)
    dual = value - float(gap)
    return MasterSolution(x=x, lam=lam, value=value, dual=dual, gap=max(float(gap), 0.0), iterations=int(it),
                          converged=bool(gap <= delta))


def solve_master_cvxpy(cuts: Cuts, zbar, L: float, l1: float = 0.0, *, solver: str = "CLARABEL") -> tuple[np.ndarray, float]:
    """The primal master problem as an epigraph QP in cvxpy (min sum_i t_i + (L/2)|x - zbar|^2 + l1 |x|_1 s.t.
    t_i >= a_ij + g_ij^T x): (x_ref, P(x_ref)).  Raises ValueError naming the status if the solver reports the
    problem infeasible or unbounded, RuntimeError if it fails otherwise."""
    import cvxpy as cp

    zbar, L, l1 = _check_master(cuts, zbar, L, l1)
    if solver not in cp.installed_solvers():
        raise ValueError(f"solver must be one of the installed cvxpy solvers {cp.installed_solvers()}; got {solver!r}")
    x = cp.Variable(cuts.d)
    t = cp.Variable(cuts.sizes.size)
    owner = np.repeat(np.arange(cuts.sizes.size), cuts.sizes)
    cons = [t[owner] >= cuts.a + cuts.G @ x]
    prob = cp.Problem(cp.Minimize(cp.sum(t) + 0.5 * L * cp.sum_squares(x - zbar) + l1 * cp.norm1(x)), cons)
    try:
        prob.solve(solver=solver)
    except cp.error.SolverError as exc:
        raise RuntimeError(f"cvxpy ({solver}) failed on the master problem: {exc}") from exc
    if prob.status in ("infeasible", "infeasible_inaccurate", "unbounded", "unbounded_inaccurate"):
        raise ValueError(f"the master problem is {prob.status} (cuts, L = {L}, l1 = {l1})")
    if prob.status not in ("optimal", "optimal_inaccurate") or x.value is None:
        raise RuntimeError(f"cvxpy ({solver}) returned status {prob.status!r} on the master problem")
    xr = np.asarray(x.value, dtype=float)
    return xr, master_objective(cuts, xr, zbar, L, l1)
