"""Random subspace sketches and the homogenised trust-region step restricted to a subspace (paper rshtr:
Higuchi, Poirion, Takeda, "Improving Convergence Guarantees of Random Subspace Second-order Algorithm for
Nonconvex Optimization", ICLR 2025, arXiv:2406.14337), with full-space HSODM as the reference.

What the paper's abstract states (read): RSHTR finds descent directions in randomly selected subspaces; an
eps-approximate first-order stationary point in O(eps^{-3/2}) iterations with local linear convergence; under
rank deficiency, the eps-approximate second-order necessary condition in O(eps^{-3/2}) iterations and local
quadratic convergence.  Its algorithm was not read: the step below is our reconstruction [derived] from
"homogenised trust region" (HSODM: Zhang, Jiang, Wang, Ye, "A homogeneous second-order descent method",
arXiv:2211.08212) restricted to a random subspace.

At x_k, with a sketch P_k (s x n), g~ = P_k grad f(x_k) and H~ = P_k hess f(x_k) P_k^T:

    F_k = [[H~, g~], [g~^T, -delta]]                 (the homogenised (s+1) x (s+1) matrix, delta >= 0)
    (v, t), theta = leftmost eigenpair of F_k        (scipy's symmetric eigensolvers)
    d~ = v / t if |t| >= nu, else sign(-g~^T v) v      (HSODM's rule)
    x_{k+1} = x_k + eta P_k^T d~,  eta = min(1, Delta_k / ||d~||) (Newton-type), Delta_k / ||d~|| (curvature)

with a standard ratio test on the radius Delta_k.  From the eigen-equations (derived): (H~ - theta I) d~ = -g~,
g~^T d~ = delta + theta, theta <= -delta, hence the model m(eta d~) = eta g~^T d~ + eta^2/2 d~^T H~ d~ equals
(delta + theta)(eta - eta^2/2) + eta^2 theta ||d~||^2 / 2 <= -delta eta^2 ||d~||^2 / 2 for eta in [0, 1].

Sketches (``SKETCHES``): ``gaussian`` entries N(0, 1/s) (E P^T P = I_n); ``orthonormal`` rows orthonormal (the
row space uniform on the Grassmannian); ``coordinate`` s distinct coordinate vectors e_i^T.
The objectives give g~ and H~ from s Hessian-vector-type products, O(s n) memory for ``Composite``
(f = h(U x), U r x n): the paper's space complexity O(s n) against HSODM's O(n^2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import factorial

import numpy as np
import pandas as pd
import scipy.linalg
import scipy.sparse.linalg

from theorylab.core.seeding import as_generator, child_seed, seed_sequence
from theorylab.core.validate import check_array, check_budget, check_choice, check_int, check_real, check_record

__all__ = ["SKETCHES", "SOLVERS", "H_KINDS", "Composite", "Quadratic", "Direction", "Trace", "sketch",
           "rank_deficient", "full_rank_quadratic", "homogenized_direction", "homogenized_step", "model_value",
           "rshtr", "hsodm", "one_step_ratio"]

SKETCHES = ("gaussian", "orthonormal", "coordinate")
SOLVERS = ("dense", "lanczos")
H_KINDS = ("exp", "rosenbrock")
NU = 1e-3                     # |t| threshold of HSODM's rule (ours)
_SERIES = np.array([1.0 / factorial(k + 2) for k in range(14)])


def _phi(u):
    """phi(u) = e^u - 1 - u, accurate for small |u| (series u^2 sum u^k / (k + 2)!, |u| < 0.1)."""
    small = np.abs(u) < 0.1
    out = np.expm1(u) - u
    us = u[small]
    out[small] = us ** 2 * np.polyval(_SERIES[::-1], us)
    return out


def _x(problem, x):
    return check_array("x", x, shape=(problem.n,))


def _P(problem, P):
    return check_array("P", P, ndim=2, shape=(None, problem.n))


@dataclass(frozen=True)
class Composite:
    """f(x) = h(U x), U (r, n) with orthonormal rows: rank-deficient Hessian (rank <= r).

    ``kind="exp"``: h(y) = sum phi(u_i) + u^T B u / 2, u = y - c, phi(u) = e^u - 1 - u (strongly convex, B >= I),
    f* = 0 exactly on {U x = c} and f computed without cancellation near it.  ``kind="rosenbrock"``: the chained
    Rosenbrock h(y) = sum_i 100 (y_{i+1} - y_i^2)^2 + (1 - y_i)^2 (nonconvex), f* = 0 at y = 1."""

    U: np.ndarray
    c: np.ndarray
    B: np.ndarray
    kind: str = "exp"

    def __post_init__(self):
        U = check_array("U", self.U, ndim=2)
        if not 2 <= U.shape[0] <= U.shape[1]:
            raise ValueError(f"U must have shape (r, n) with 2 <= r <= n; got {U.shape}")
        r = U.shape[0]
        object.__setattr__(self, "U", U)
        object.__setattr__(self, "c", check_array("c", self.c, shape=(r,)))
        object.__setattr__(self, "B", check_array("B", self.B, shape=(r, r)))
        check_choice("kind", self.kind, H_KINDS)

    @property
    def n(self):
        return self.U.shape[1]

    @property
    def r(self):
        return self.U.shape[0]

    def _h(self, y):
        if self.kind == "exp":
            u = y - self.c
            return float(_phi(u).sum() + 0.5 * u @ self.B @ u)
        a = y[1:] - y[:-1] ** 2
        return float(100.0 * (a @ a) + ((1.0 - y[:-1]) ** 2).sum())

    def _dh(self, y):
        if self.kind == "exp":
            u = y - self.c
            return np.expm1(u) + self.B @ u
        a = y[1:] - y[:-1] ** 2
        g = np.zeros_like(y)
        g[:-1] = -400.0 * y[:-1] * a - 2.0 * (1.0 - y[:-1])
        g[1:] += 200.0 * a
        return g

    def _d2h(self, y):
        if self.kind == "exp":
            return np.diag(np.exp(y - self.c)) + self.B
        a = y[1:] - y[:-1] ** 2
        H = np.zeros((y.size, y.size))
        i = np.arange(y.size - 1)
        H[i, i] += -400.0 * a + 800.0 * y[:-1] ** 2 + 2.0
        H[i, i + 1] = H[i + 1, i] = -400.0 * y[:-1]
        H[i + 1, i + 1] += 200.0
        return H

    def value(self, x):
        return self._h(self.U @ _x(self, x))

    def grad(self, x):
        return self.U.T @ self._dh(self.U @ _x(self, x))

    def hess(self, x):
        """The full n x n Hessian U^T h''(U x) U (the reference only: O(n^2) memory)."""
        return self.U.T @ self._d2h(self.U @ _x(self, x)) @ self.U

    def sketched(self, x, P):
        """(P grad f, P hess f P^T) in O(s r n) time and O(s n) memory: W = P U^T (s x r)."""
        y = self.U @ _x(self, x)
        W = _P(self, P) @ self.U.T
        return W @ self._dh(y), W @ self._d2h(y) @ W.T


@dataclass(frozen=True)
class Quadratic:
    """f(x) = x^T A x / 2 + (w / n) sum (cosh x_i - 1): full rank (A SPD), f* = 0 at x = 0, computed without
    cancellation (cosh u - 1 = 2 sinh^2(u / 2))."""

    A: np.ndarray
    w: float = 0.0
    isotropic: bool = False       # A = I: sketched products in O(s^2 n) without touching A

    def __post_init__(self):
        A = check_array("A", self.A, ndim=2)
        if A.shape[0] != A.shape[1] or A.shape[0] < 1:
            raise ValueError(f"A must be a square matrix; got shape {A.shape}")
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "w", check_real("w", self.w, low=0.0))
        if not isinstance(self.isotropic, (bool, np.bool_)):
            raise TypeError(f"isotropic must be a bool; got {self.isotropic!r}")
        if self.isotropic and not np.array_equal(A, np.eye(A.shape[0])):
            raise ValueError("isotropic=True requires A = I")

    @property
    def n(self):
        return self.A.shape[0]

    def value(self, x):
        x = _x(self, x)
        return float(0.5 * x @ self.A @ x + self.w / self.n * 2.0 * (np.sinh(0.5 * x) ** 2).sum())

    def grad(self, x):
        x = _x(self, x)
        return self.A @ x + self.w / self.n * np.sinh(x)

    def hess(self, x):
        x = _x(self, x)
        return self.A + np.diag(self.w / self.n * np.cosh(x))

    def sketched(self, x, P):
        x, P = _x(self, x), _P(self, P)
        PA = P if self.isotropic else P @ self.A
        return P @ self.grad(x), PA @ P.T + (P * (self.w / self.n * np.cosh(x))) @ P.T


def rank_deficient(n: int, r: int, *, kind: str = "exp", seed=0) -> Composite:
    """A ``Composite`` instance: U with orthonormal rows (Haar), c ~ N(0, I_r), B = I + M M^T / r (M r x r
    Gaussian) for ``exp``; for ``rosenbrock`` c = 0 and B = 0 are unused."""
    n, r = check_int("n", n, low=2), check_int("r", r, low=2)
    if r > n:
        raise ValueError(f"r must be in [2, n = {n}]; got {r}")
    check_choice("kind", kind, H_KINDS)
    seed_sequence(seed)
    check_budget("the matrix U", r * n, r=r, n=n)
    rng = np.random.default_rng(child_seed(seed, "instance"))
    Q, _ = np.linalg.qr(rng.standard_normal((n, r)))
    M = rng.standard_normal((r, r))
    c = rng.standard_normal(r) if kind == "exp" else np.zeros(r)
    B = np.eye(r) + M @ M.T / r if kind == "exp" else np.zeros((r, r))
    return Composite(U=np.ascontiguousarray(Q.T), c=c, B=B, kind=kind)


def full_rank_quadratic(n: int, *, cond: float = 1.0, w: float = 0.0, seed=0) -> Quadratic:
    """A = Q diag(lambda) Q^T with lambda geometric in [1, cond] (A = I when cond = 1), plus the cosh term w."""
    n = check_int("n", n, low=1)
    cond = check_real("cond", cond, low=1.0)
    w = check_real("w", w, low=0.0)
    seed_sequence(seed)
    check_budget("the matrix A", n * n, n=n)
    if cond == 1.0:
        return Quadratic(A=np.eye(n), w=w, isotropic=True)
    Q, _ = np.linalg.qr(np.random.default_rng(child_seed(seed, "instance")).standard_normal((n, n)))
    return Quadratic(A=(Q * np.geomspace(1.0, cond, n)) @ Q.T, w=w)


def sketch(n: int, s: int, kind: str = "gaussian", seed=0) -> np.ndarray:
    """A random s x n sketch P (see the module docstring); s in [1, n]."""
    n = check_int("n", n, low=1)
    s = check_int("s", s, low=1, high=n)
    check_choice("kind", kind, SKETCHES)
    check_budget("the sketch", s * n, s=s, n=n)
    rng = as_generator(seed)
    if kind == "coordinate":
        P = np.zeros((s, n))
        P[np.arange(s), rng.choice(n, size=s, replace=False)] = 1.0
        return P
    G = rng.standard_normal((s, n))
    if kind == "gaussian":
        return G / np.sqrt(s)
    Q, R = np.linalg.qr(G.T)
    return np.ascontiguousarray((Q * np.sign(np.diag(R))).T)


@dataclass(frozen=True)
class Direction:
    """The homogenised direction d (``newton``: d = v / t; else the curvature direction), the leftmost
    eigenvalue ``theta`` and the last eigenvector entry ``t`` (|v|^2 + t^2 = 1)."""

    d: np.ndarray
    theta: float
    t: float
    newton: bool

    def __post_init__(self):
        check_record(self)


def homogenized_direction(g, H, delta: float, *, nu: float = NU, solver: str = "dense") -> Direction:
    """The leftmost eigenpair of F = [[H, g], [g^T, -delta]] (scipy.linalg.eigh with ``subset_by_index``, or
    ``lanczos``: scipy.sparse.linalg.eigsh, which="SA") and HSODM's direction rule."""
    g = check_array("g", g, ndim=1)
    if g.size < 1:
        raise ValueError(f"g must be a non-empty vector; got shape {g.shape}")
    H = check_array("H", H, shape=(g.size, g.size))
    delta = check_real("delta", delta, low=0.0)
    nu = check_real("nu", nu, low=0.0, high=1.0, low_open=True, high_open=True)
    check_choice("solver", solver, SOLVERS)
    m = g.size
    F = np.empty((m + 1, m + 1))
    F[:m, :m] = 0.5 * (H + H.T)
    F[:m, m] = F[m, :m] = g
    F[m, m] = -delta
    if solver == "dense" or m < 3:
        w, V = scipy.linalg.eigh(F, subset_by_index=[0, 0])
    else:
        w, V = scipy.sparse.linalg.eigsh(F, k=1, which="SA", tol=0.0, v0=np.ones(m + 1))
    theta, v, t = float(w[0]), V[:m, 0], float(V[m, 0])
    if abs(t) >= nu:
        return Direction(d=v / t, theta=theta, t=t, newton=True)
    return Direction(d=-v if g @ v > 0 else v, theta=theta, t=t, newton=False)


def model_value(g, H, d) -> float:
    """m(d) = g^T d + d^T H d / 2."""
    g = check_array("g", g, ndim=1)
    if g.size < 1:
        raise ValueError(f"g must be a non-empty vector; got shape {g.shape}")
    H = check_array("H", H, shape=(g.size, g.size))
    d = check_array("d", d, shape=(g.size,))
    return float(g @ d + 0.5 * d @ H @ d)


@dataclass
class Trace:
    """One run: ``table`` one row per iteration k (f, ||grad||, theta, t, newton, eta, ||eta d~|| in the subspace,
    the model value, ratio test), ``X`` the iterates x_0..x_K, ``steps`` the trial steps (K x n)."""

    table: pd.DataFrame
    X: np.ndarray
    steps: np.ndarray = field(repr=False)

    def __post_init__(self):
        if not isinstance(self.table, pd.DataFrame):
            raise TypeError(f"table must be a pandas DataFrame; got {type(self.table).__name__}")
        check_record(self)


def _problem(problem):
    if not all(callable(getattr(problem, a, None)) for a in ("value", "grad", "hess", "sketched")):
        raise TypeError(f"problem must be a Composite or Quadratic (value, grad, hess, sketched); got "
                        f"{type(problem).__name__}")
    return problem


def _step(problem, x, P, delta, Delta, nu, solver):
    """One homogenised step in the row space of P (P None: full space): (Direction, eta, ||d~||, the step in R^n,
    the subspace model m(eta d~))."""
    gs, Hs = problem.sketched(x, P) if P is not None else (problem.grad(x), problem.hess(x))
    D = homogenized_direction(gs, Hs, delta, nu=nu, solver=solver)
    dn = float(np.linalg.norm(D.d))
    eta = (min(1.0, Delta / dn) if D.newton else Delta / dn) if dn > 0 else 0.0
    dsub = eta * D.d
    return D, eta, dn, (P.T @ dsub if P is not None else dsub), model_value(gs, Hs, dsub)


def _run(problem, x0, subspace, *, n_iter, delta, radius, radius_max, nu, gtol, ftol, solver, seed):
    problem = _problem(problem)
    x = check_array("x0", x0, shape=(problem.n,))
    n_iter = check_int("n_iter", n_iter, low=1)
    delta = check_real("delta", delta, low=0.0)
    radius = check_real("radius", radius, low=0.0, low_open=True)
    radius_max = check_real("radius_max", radius_max, low=radius)
    gtol = check_real("gtol", gtol, low=0.0)
    ftol = -np.inf if ftol is None else check_real("ftol", ftol)
    check_budget("the recorded iterates and steps", 2 * (n_iter + 1) * problem.n, n_iter=n_iter, n=problem.n)
    X, steps, rows, Delta = [x.copy()], [], [], radius
    fx = problem.value(x)
    for k in range(n_iter):
        gfull = problem.grad(x)
        gnorm = float(np.linalg.norm(gfull))
        if not (np.isfinite(fx) and np.isfinite(gnorm)):
            raise ValueError(f"non-finite iterate at k = {k} (f = {fx}, ||grad|| = {gnorm}); reduce radius_max")
        if gnorm <= gtol or fx <= ftol:
            break
        D, eta, dn, step, m = _step(problem, x, subspace(k), delta, Delta, nu, solver)
        f_new = problem.value(x + step)
        ared, rho = fx - f_new, (fx - f_new) / -m if m < 0 else -np.inf
        accepted = bool(rho >= 0.1)
        rows.append(dict(k=k, f=fx, grad_norm=gnorm, delta=delta, theta=D.theta, t=D.t, newton=D.newton, eta=eta,
                         sub_step_norm=eta * dn, step_norm=float(np.linalg.norm(step)), model=m, f_trial=f_new,
                         ared=ared, rho=rho, accepted=accepted, radius=Delta))
        steps.append(step)
        if rho > 0.75 and eta * dn >= 0.99 * Delta:
            Delta = min(2.0 * Delta, radius_max)
        elif rho < 0.25:
            Delta = 0.25 * max(eta * dn, 1e-300)
        if accepted:
            x, fx = x + step, f_new
        X.append(x.copy())
    steps = np.array(steps) if steps else np.zeros((0, problem.n))
    return Trace(table=pd.DataFrame(rows), X=np.array(X), steps=steps)


def rshtr(problem, x0, s: int, *, n_iter: int = 100, sketch_kind: str = "gaussian", delta: float = 0.0,
          radius: float = 1.0, radius_max: float = 10.0, nu: float = NU, gtol: float = 0.0,
          ftol: float | None = None, solver: str = "dense", seed=0) -> Trace:
    """RSHTR (reconstructed, module docstring): a fresh sketch per iteration from ``child_seed(seed, "sketch",
    k)``; stops after ``n_iter`` iterations, or when ||grad f|| <= gtol or f <= ftol."""
    problem = _problem(problem)
    s = check_int("s", s, low=1, high=problem.n)
    check_choice("sketch_kind", sketch_kind, SKETCHES)
    return _run(problem, x0, lambda k: sketch(problem.n, s, sketch_kind, child_seed(seed, "sketch", k)),
                n_iter=n_iter, delta=delta, radius=radius, radius_max=radius_max, nu=nu, gtol=gtol, ftol=ftol,
                solver=solver, seed=seed)


def hsodm(problem, x0, *, n_iter: int = 100, delta: float = 0.0, radius: float = 1.0, radius_max: float = 10.0,
          nu: float = NU, gtol: float = 0.0, ftol: float | None = None, solver: str = "dense") -> Trace:
    """Full-space HSODM (the reference): the same step with P = I, on the full n x n Hessian."""
    return _run(problem, x0, lambda k: None, n_iter=n_iter, delta=delta, radius=radius, radius_max=radius_max,
                nu=nu, gtol=gtol, ftol=ftol, solver=solver, seed=0)


def one_step_ratio(problem, x, s: int, *, sketch_kind: str = "gaussian", delta: float = 0.0, seed=0) -> float:
    """e_{k+1} / e_k = f(x_{k+1}) / f(x_k) of one RSHTR step from ``x`` with eta = 1 when the Newton-type direction
    is taken (no radius; objectives with f* = 0, as ``Composite`` and ``Quadratic``)."""
    problem = _problem(problem)
    x = check_array("x", x, shape=(problem.n,))
    s = check_int("s", s, low=1, high=problem.n)
    check_choice("sketch_kind", sketch_kind, SKETCHES)
    f0 = problem.value(x)
    if not f0 > 0:
        raise ValueError(f"x must have f(x) > 0 = f*; got f(x) = {f0}")
    step, _ = homogenized_step(problem, x, sketch(problem.n, s, sketch_kind, seed), delta=delta)
    return float(problem.value(x + step) / f0)


def homogenized_step(problem, x, P=None, *, delta: float = 0.0, radius: float | None = None, nu: float = NU,
                     solver: str = "dense"):
    """One homogenised trust-region step from ``x`` in the row space of the sketch ``P`` (s x n), or in the full
    space (``P=None``: HSODM): ``(step in R^n, Direction)``, eta = min(1, radius / ||d~||) for a Newton-type
    direction, radius / ||d~|| for a curvature direction (``radius=None``: eta = 1, and a curvature direction is
    refused)."""
    problem = _problem(problem)
    x = check_array("x", x, shape=(problem.n,))
    if P is not None:
        P = _P(problem, P)
    delta = check_real("delta", delta, low=0.0)
    radius = np.inf if radius is None else check_real("radius", radius, low=0.0, low_open=True)
    D, eta, _, step, _ = _step(problem, x, P, delta, radius, nu, solver)
    if not np.isfinite(eta):
        raise ValueError("radius: a curvature direction (|t| < nu) needs a radius; got radius=None")
    return step, D
