"""MGDA under generalised smoothness: the simulator of paper ``mgda_gs``.

Q. Zhang, P. Xiao, S. Zou, K. Ji, "MGDA Converges under Generalized Smoothness, Provably", ICLR 2025
(arXiv:2405.19440).  Statements as read by the spec (third-party reading of the full text): Assumption 2 is
generalised l-smoothness, ||grad^2 F_i(x)|| <= l(||grad F_i(x)||) with l non-decreasing ((L0, L1)-smoothness is
l(a) = L0 + L1 a); Theorem 1: deterministic MGDA reaches an eps-Pareto-stationary point with eps-level average
conflict-avoidant (CA) distance in O(eps^-2) iterations; Section 5: a warm-started, rho-regularised weight
problem gives iteration-wise CA distance; MGDA-FA replaces G^T G w by a difference of objective values.

Notation: G = G(x) = [grad F_1(x), ..., grad F_K(x)] in R^{d x K} (columns are gradients, as in the paper);
w in the simplex Delta_K; the min-norm (CA) weights w* = argmin_{w in Delta} ||G w|| (Desideri's common descent
direction d* = G w*); the Pareto stationarity measure ||G w*||; the CA distance ||G w - G w*||.

Update (the spec's regularised MGDA form [I]; exact form of the paper not read):
    w_{t+1} = Pi_Delta(w_t - beta (G_t^T G_t w_t + rho w_t))     (warm start: N such steps from w_t, rho > 0)
    x_{t+1} = x_t - alpha G_t w_{t+1}
MGDA-FA (errata reading): the spec's substitution (F(x_t) - F(x_{t+1}))/alpha for G_t^T G_t w is circular, since
x_{t+1} depends on the new weights; we use the previous step's decrease qhat_t = (F(x_{t-1}) - F(x_t))/alpha, which
is G_{t-1}^T G_{t-1} w_t up to the Taylor remainder (one backward pass of sum_i w_i F_i and K forward passes per
step, one stored gradient vector).  On quadratics the remainder is exact [derived]:
    qhat_t = G_{t-1}^T G_{t-1} w_t - (alpha/2) [ (G_{t-1} w_t)^T H_i (G_{t-1} w_t) ]_i .

Step sizes (:func:`theorem_step_sizes`, [derived]; the theorem's constants were not read): alpha_max =
1/(2 l(2 G_0)) with l(a) = max_i L0_i + max_i L1_i a and G_0 = max_i ||grad F_i(x_0)|| (the Li et al. 2023
generalised-smoothness step), beta_max = 1/sum_i ||grad F_i(x_0)||^2 (1 / an upper bound on ||G_0^T G_0||), and the
theorem's schedule beta = beta_max T^{-1/2} for a horizon of T iterations.  A step outside (0, alpha_max] or
(0, beta_max] gives a RuntimeWarning and the run.

Zoo: :func:`logcosh_exp_problem` F_i(x) = sum_j log cosh(a_ij . x - b_ij) + e_i exp(u_i . x - s_i), which is
(L0, L1)-smooth with L0_i = sum_j ||a_ij||^2 + ||u_i|| sum_j ||a_ij||, L1_i = ||u_i|| [derived] and not L-smooth
for e_i > 0; :func:`quadratic_mo_problem` F_i(x) = 1/2 (x - c_i)^T H_i (x - c_i).

Example::

    from theorylab.multiobjective import mgda as M
    P = M.logcosh_exp_problem(K=3, d=10, seed=0)
    r = M.run_mgda(P, T=1000)
    r.ca.mean(), r.ps.mean()                    # average CA distance and Pareto stationarity
    M.min_norm_weights(M.jacobian(P, P.x0))     # exact min-norm weights at x0
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from theorylab.core.seeding import as_generator
from theorylab.core.validate import (SimulationDiverged, check_array, check_budget, check_choice, check_int,
                                     check_real, check_size)
from theorylab.multiobjective import _kernels_mgda as KR
from theorylab.core.validate import check_record

__all__ = ["MOProblem", "MGDARun", "logcosh_exp_problem", "quadratic_mo_problem", "custom_problem",
           "objective_values", "jacobian", "hessians", "smoothness_constants", "project_simplex",
           "min_norm_closed_form", "min_norm_weights", "pareto_stationarity", "ca_distance", "theorem_step_sizes",
           "run_mgda", "fa_quadratic_prediction", "MIN_NORM_METHODS", "VARIANTS"]

MIN_NORM_METHODS = ("active_set", "pgd", "closed_form", "cvxpy")
VARIANTS = ("mgda", "fa", "warm_start")
MAX_K = 12                  # the exact active-set solver enumerates 2^K - 1 supports
MAX_D = 10**5
MAX_ENTRIES = 10**7         # entries of a problem's arrays
MAX_WORK = 10**10           # T * (K m d + 2^K K^2 d + n_inner K^2 d) of one run (about a minute)
MAX_ACTIVE_SET_WORK = 10**9  # 2^K K^2 d of one exact min-norm solve (about a second)
BETA_EXPONENT = 0.5         # the theorem's schedule beta = beta_max T^{-1/2} (Theorem 1's O(eps^-2) [derived])


# --------------------------------------------------------------------------- problems

@dataclass(frozen=True)
class MOProblem:
    """K objectives on R^d, F_i(x) = sum_j log cosh(A[i, j] . x - b[i, j]) + e[i] exp(U[i] . x - s[i])
    + 1/2 (x - c[i])^T H[i] (x - c[i]); ``x0`` the default starting point."""

    A: np.ndarray
    b: np.ndarray
    U: np.ndarray
    s: np.ndarray
    e: np.ndarray
    H: np.ndarray
    c: np.ndarray
    x0: np.ndarray
    name: str = ""

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)

    @property
    def K(self) -> int:
        return self.A.shape[0]

    @property
    def d(self) -> int:
        return self.A.shape[2]

    def arrays(self):
        return self.A, self.b, self.U, self.s, self.e, self.H, self.c


def _bounded(name, arr, limit=1e6):
    if arr.size and np.abs(arr).max() > limit:
        raise ValueError(f"{name} must hold entries within {limit:g} of 0; got max |{name}| = {np.abs(arr).max():.3g}")
    return arr


def custom_problem(A, b, U=None, s=None, e=None, H=None, c=None, x0=None, *, name: str = "custom") -> MOProblem:
    """A problem from arrays: A (K, m, d) and b (K, m) the log-cosh terms (m may be 0), U (K, d), s (K,), e (K,)
    the exp terms (e >= 0; default off), H (K, d, d) symmetric positive semidefinite and c (K, d) the quadratic
    terms (default off), x0 (d,) the start (default 0).  K >= 2 objectives."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str; got {name!r}"[:200])
    A = check_array("A", A, ndim=3)
    K, m, d = A.shape
    if K < 2:
        raise ValueError(f"A must describe K >= 2 objectives (shape (K, m, d)); got K = {K}")
    if K > MAX_K or d < 1 or d > MAX_D:
        raise ValueError(f"A must have 2 <= K <= {MAX_K} objectives and 1 <= d <= {MAX_D} dimensions; got shape "
                         f"{A.shape}")
    check_budget("the problem's arrays", K * (m * d + d * d + 2 * d + m + 2), max_elements=MAX_ENTRIES, K=K, m=m, d=d)
    A = _bounded("A", A)
    b = _bounded("b", check_array("b", b, shape=(K, m)))
    U = np.zeros((K, d)) if U is None else _bounded("U", check_array("U", U, shape=(K, d)), 1e2)
    s = np.zeros(K) if s is None else _bounded("s", check_array("s", s, shape=(K,)))
    e = np.zeros(K) if e is None else _bounded("e", check_array("e", e, shape=(K,)))
    if np.any(e < 0):
        raise ValueError(f"e must be >= 0 (the exp terms' weights); got min {e.min():.3g}")
    H = np.zeros((K, d, d)) if H is None else _bounded("H", check_array("H", H, shape=(K, d, d)))
    if H.any():
        if not np.allclose(H, H.transpose(0, 2, 1), atol=1e-12 * max(1.0, np.abs(H).max())):
            raise ValueError("H must hold symmetric d x d matrices")
        lo = min(np.linalg.eigvalsh(Hi).min() for Hi in H)
        if lo < -1e-10 * max(1.0, np.abs(H).max()):
            raise ValueError(f"H must hold positive semidefinite matrices; got an eigenvalue {lo:.3g}")
    c = np.zeros((K, d)) if c is None else _bounded("c", check_array("c", c, shape=(K, d)))
    x0 = np.zeros(d) if x0 is None else _bounded("x0", check_array("x0", x0, shape=(d,)))
    if m == 0 and not e.any() and not H.any():
        raise ValueError("the problem has no terms: give log-cosh terms (m >= 1), exp weights e > 0 or quadratics H")
    return MOProblem(A, b, U, s, e, H, c, x0, str(name))


def logcosh_exp_problem(K: int = 3, d: int = 10, n_terms: int = 5, exp_weight: float = 1.0, start_scale: float = 1.0,
                        seed=0) -> MOProblem:
    """The spec's generalised-smooth instance: F_i(x) = sum_{j<n_terms} log cosh(a_ij . x - b_ij)
    + exp_weight exp(u_i . x - s_i), with a_ij ~ N(0, I/d), b_ij ~ N(0, 1), u_i ~ N(0, I/d), s_i = 0 and
    x0 ~ N(0, start_scale^2 I).  A far start (start_scale = 1e5, exp_weight = 0) saturates every tanh: the
    gradients are constant over any practical horizon (the far field, where the objectives are linear)."""
    K = check_int("K", K, low=2, high=MAX_K)
    d = check_int("d", d, low=1, high=MAX_D)
    n_terms = check_int("n_terms", n_terms, low=1, high=10**4)
    exp_weight = check_real("exp_weight", exp_weight, low=0.0, high=1e3)
    start_scale = check_real("start_scale", start_scale, low=0.0, high=1e5)
    if exp_weight > 0 and start_scale > 10:
        raise ValueError(f"start_scale must be <= 10 with exp terms (exp_weight = {exp_weight:g} > 0), else exp(u . x0) "
                         f"overflows; got start_scale = {start_scale:g}")
    check_budget("the problem's arrays", K * (n_terms * d + d * d), max_elements=MAX_ENTRIES, K=K, d=d,
                 n_terms=n_terms)
    rng = as_generator(seed)
    A = rng.standard_normal((K, n_terms, d)) / np.sqrt(d)
    b = rng.standard_normal((K, n_terms))
    U = rng.standard_normal((K, d)) / np.sqrt(d)
    x0 = start_scale * rng.standard_normal(d)
    return custom_problem(A, b, U, np.zeros(K), np.full(K, exp_weight), None, None, x0,
                          name=f"log-cosh + exp K={K} d={d}")


def quadratic_mo_problem(K: int = 3, d: int = 10, cond: float = 10.0, seed=0) -> MOProblem:
    """F_i(x) = 1/2 (x - c_i)^T H_i (x - c_i) with H_i = Q_i diag(geomspace(1, 1/cond)) Q_i^T (Q_i Haar),
    c_i ~ N(0, I), x0 ~ N(0, I)."""
    K = check_int("K", K, low=2, high=MAX_K)
    d = check_int("d", d, low=1, high=2000)
    cond = check_real("cond", cond, low=1.0, high=1e8)
    check_budget("the Hessians", K * d * d, max_elements=MAX_ENTRIES, K=K, d=d)
    rng = as_generator(seed)
    H = np.empty((K, d, d))
    for i in range(K):
        Q, R = np.linalg.qr(rng.standard_normal((d, d)))
        Q = Q * np.sign(np.diag(R))
        H[i] = (Q * np.geomspace(1.0, 1.0 / cond, d)) @ Q.T
        H[i] = 0.5 * (H[i] + H[i].T)
    c = rng.standard_normal((K, d))
    x0 = rng.standard_normal(d)
    return custom_problem(np.zeros((K, 0, d)), np.zeros((K, 0)), None, None, None, H, c, x0,
                          name=f"quadratic K={K} d={d}")


def _problem(problem):
    if not isinstance(problem, MOProblem):
        raise TypeError(f"problem must be an MOProblem (from logcosh_exp_problem, quadratic_mo_problem or "
                        f"custom_problem); got {type(problem).__name__}")
    return problem


def _point(problem, x, name="x"):
    x = check_array(name, x, shape=(problem.d,))
    return _bounded(name, x)


def _eval(problem, x):
    F = np.empty(problem.K)
    J = np.empty((problem.K, problem.d))
    with np.errstate(over="ignore", invalid="ignore"):
        KR.values_and_jacobian(*problem.arrays(), x, F, J)
    if not (np.all(np.isfinite(F)) and np.all(np.isfinite(J))):
        raise SimulationDiverged(f"the objectives overflowed at x (max |x| = {np.abs(x).max():.3g}): an exp term "
                                 "exceeds the float range")
    return F, J


def objective_values(problem: MOProblem, x) -> np.ndarray:
    """F(x) = (F_1(x), ..., F_K(x))."""
    problem = _problem(problem)
    return _eval(problem, _point(problem, x))[0]


def jacobian(problem: MOProblem, x) -> np.ndarray:
    """G(x) = [grad F_1(x), ..., grad F_K(x)], a d x K matrix."""
    problem = _problem(problem)
    return _eval(problem, _point(problem, x))[1].T.copy()


def hessians(problem: MOProblem, x) -> np.ndarray:
    """The K exact Hessians grad^2 F_i(x), shape (K, d, d)."""
    problem = _problem(problem)
    x = _point(problem, x)
    A, b, U, s, e, H, c = problem.arrays()
    z = np.einsum("ijk,k->ij", A, x) - b
    sech2 = 1.0 / np.cosh(np.clip(z, -350, 350)) ** 2
    out = np.einsum("ij,ijk,ijl->ikl", sech2, A, A) + H
    with np.errstate(over="ignore"):
        ez = e * np.exp(U @ x - s)
    out += ez[:, None, None] * np.einsum("ik,il->ikl", U, U)
    if not np.all(np.isfinite(out)):
        raise SimulationDiverged("the Hessians overflowed at x: an exp term exceeds the float range")
    return out


def smoothness_constants(problem: MOProblem) -> tuple:
    """(L0, L1), arrays of shape (K,), with ||grad^2 F_i(x)|| <= L0_i + L1_i ||grad F_i(x)|| for every x
    [derived]: log-cosh terms have ||grad^2|| <= ||a||^2 and ||grad|| <= ||a||; an exp term has
    ||grad^2|| = ||u|| ||grad||; so L0_i = sum_j ||a_ij||^2 + ||u_i|| sum_j ||a_ij|| + ||H_i||, L1_i = ||u_i||
    (0 without an exp term)."""
    problem = _problem(problem)
    A, b, U, s, e, H, c = problem.arrays()
    na = np.linalg.norm(A, axis=2)
    nu = np.where(e > 0, np.linalg.norm(U, axis=1), 0.0)
    nh = np.array([np.linalg.norm(Hi, 2) if Hi.any() else 0.0 for Hi in H])
    return (na ** 2).sum(1) + nu * na.sum(1) + nh, nu


# --------------------------------------------------------------------------- min-norm point

def _simplex_vector(name, w, K=None):
    w = check_array(name, w, ndim=1)
    if K is not None and w.size != K:
        raise ValueError(f"{name} must have K = {K} entries (one weight per objective); got {w.size}")
    if w.size < 2:
        raise ValueError(f"{name} must have K >= 2 entries; got {w.size}")
    if np.any(w < 0) or abs(w.sum() - 1.0) > 1e-9:
        raise ValueError(f"{name} must lie on the probability simplex (entries >= 0 summing to 1 within 1e-9); got "
                         f"min {w.min():.3g}, sum {w.sum():.12g}")
    return w


def _gradients(G, name="G"):
    """G (d x K) -> its rows J = G^T (K x d), validated."""
    G = check_array(name, G, ndim=2)
    d, K = G.shape
    if K < 2:
        raise ValueError(f"{name} must be a d x K matrix with K >= 2 gradient columns; got shape {G.shape}")
    if K > MAX_K or d < 1:
        raise ValueError(f"{name} must have 2 <= K <= {MAX_K} columns and d >= 1 rows; got shape {G.shape}")
    check_budget(name, G.size, max_elements=MAX_ENTRIES, d=d, K=K)
    _bounded(name, G, 1e100)
    return np.ascontiguousarray(G.T)


def _active_set(J):
    """The exact solver on rows J (K x d), its work 2^K K^2 d checked first: (w*, ||J^T w*||)."""
    K, d = J.shape
    check_budget("the active-set enumeration", (1 << K) * K * K * d, max_elements=MAX_ACTIVE_SET_WORK,
                 unit="operations", K=K, d=d)
    w = np.empty(K)
    return w, float(KR.min_norm_active_set(J, w))


def project_simplex(v) -> np.ndarray:
    """Euclidean projection of a vector onto the probability simplex."""
    v = check_array("v", v, ndim=1)
    if v.size < 1 or v.size > 10**6:
        raise ValueError(f"v must have between 1 and 10**6 entries; got {v.size}")
    _bounded("v", v, 1e100)
    out = np.empty_like(v)
    KR.project_simplex(v, out)
    return out


def min_norm_closed_form(g1, g2) -> np.ndarray:
    """K = 2: w* = (gamma, 1 - gamma), gamma = clip((g2 - g1) . g2 / ||g1 - g2||^2, 0, 1) (Desideri 2012)."""
    g1 = _bounded("g1", check_array("g1", g1, ndim=1), 1e100)
    if g1.size == 0:
        raise ValueError("g1 must be a non-empty gradient; got an empty array")
    g2 = _bounded("g2", check_array("g2", g2, shape=(g1.size,)), 1e100)
    diff = g1 - g2
    den = float(diff @ diff)
    gamma = 1.0 if den == 0.0 else float(np.clip((g2 - g1) @ g2 / den, 0.0, 1.0))
    return np.array([gamma, 1.0 - gamma])


def _cvxpy_weights(J):
    import cvxpy as cp

    K = J.shape[0]
    scale = max(float(np.abs(J).max()), 1e-300)
    w = cp.Variable(K)
    prob = cp.Problem(cp.Minimize(cp.sum_squares((J / scale).T @ w)), [w >= 0, cp.sum(w) == 1])
    prob.solve(solver=cp.CLARABEL) if "CLARABEL" in cp.installed_solvers() else prob.solve()
    if prob.status not in ("optimal", "optimal_inaccurate") or w.value is None:
        raise SimulationDiverged(f"min_norm_weights: cvxpy returned status {prob.status!r}")
    return np.asarray(w.value, dtype=float)


def min_norm_weights(G, method: str = "active_set", *, tol: float = 1e-12, max_iter: int = 100_000) -> np.ndarray:
    """w* = argmin_{w in Delta_K} ||G w|| for a d x K matrix G of gradients.

    ``method``: "active_set" (exact support enumeration, jitted, K <= 12), "pgd" (FISTA projected gradient,
    jitted, stops when an iteration moves w by < ``tol`` or after ``max_iter``), "closed_form" (K = 2 only),
    "cvxpy" (the reference QP)."""
    J = _gradients(G)
    method = check_choice("method", method, MIN_NORM_METHODS)
    tol = check_real("tol", tol, low=0.0, high=1.0)
    max_iter = check_size("max_iter", max_iter, budget=10**7)
    K = J.shape[0]
    if method == "closed_form":
        if K != 2:
            raise ValueError(f"method 'closed_form' needs K = 2 gradient columns in G; got K = {K}")
        return min_norm_closed_form(J[0], J[1])
    if method == "cvxpy":
        return _cvxpy_weights(J)
    if method == "active_set":
        return _active_set(J)[0]
    d = J.shape[1]
    check_budget("the projected-gradient solve", K * K * d + max_iter * K * K, max_elements=MAX_WORK,
                 unit="operations", max_iter=max_iter, K=K, d=d)
    w = np.empty(K)
    KR.min_norm_pgd(J, np.full(K, 1.0 / K), max_iter, tol, w)
    return w


def pareto_stationarity(G) -> float:
    """||G w*||, the norm of the min-norm point of the gradients' convex hull (0 iff x is Pareto stationary)."""
    return _active_set(_gradients(G))[1]


def ca_distance(G, w) -> float:
    """The conflict-avoidant distance ||G w - G w*||."""
    J = _gradients(G)
    w = _simplex_vector("w", w, J.shape[0])
    wstar = _active_set(J)[0]
    return float(np.linalg.norm(J.T @ (w - wstar)))


# --------------------------------------------------------------------------- MGDA

def theorem_step_sizes(problem: MOProblem, T: int, x0=None) -> dict:
    """The [derived] step sizes of the module docstring: alpha = alpha_max = 1/(2 l(2 G_0)),
    beta = beta_max T^{-1/2} with beta_max = 1 / sum_i ||grad F_i(x_0)||^2."""
    problem = _problem(problem)
    T = check_size("T", T, budget=10**8)
    x0 = problem.x0 if x0 is None else _point(problem, x0, "x0")
    _, J = _eval(problem, x0)
    norms = np.linalg.norm(J, axis=1)
    L0, L1 = smoothness_constants(problem)
    G0 = float(norms.max())
    ell = float(L0.max() + L1.max() * 2 * G0)
    alpha_max = 1.0 / (2 * ell) if ell > 0 else 1.0
    gram = float((norms ** 2).sum())
    beta_max = 1.0 / gram if gram > 0 else 1.0
    return dict(alpha=alpha_max, beta=beta_max * T ** -BETA_EXPONENT, alpha_max=alpha_max, beta_max=beta_max,
                G0=G0, ell_2G0=ell)


@dataclass(frozen=True)
class MGDARun:
    """A run of T iterations: x (T+1, d), w (T+1, K), F (T+1, K) the iterates; q (T, K) the w-gradient used
    (G^T G w, FA's qhat); ca (T,) = ||G_t (w_t - w_t*)||, ca_dir (T,) = ||G_t (w_{t+1} - w_t*)||, ps (T,) =
    ||G_t w_t*||."""

    variant: str
    alpha: float
    beta: float
    rho: float
    n_inner: int
    x: np.ndarray
    w: np.ndarray
    F: np.ndarray
    q: np.ndarray
    ca: np.ndarray
    ca_dir: np.ndarray
    ps: np.ndarray

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)


def _step_warning(name, value, high):
    if value > high:
        warnings.warn(f"{name} = {value:.4g} is outside the theorem's range (0, {high:.4g}] [derived]; running anyway",
                      RuntimeWarning, stacklevel=3)


def _fa_difference_scale(alpha):
    """FA's finite-difference scale: qhat_t = (F(x_{t-1}) - F(x_t)) / alpha (the previous step's length)."""
    return 1.0 / alpha


def run_mgda(problem: MOProblem, T: int = 1000, *, variant: str = "mgda", alpha: float | None = None,
             beta: float | None = None, rho: float = 0.0, n_inner: int = 1, x0=None, w0=None) -> MGDARun:
    """T iterations of MGDA ("mgda"), MGDA-FA ("fa", the errata's previous-step reading) or warm-started MGDA
    ("warm_start": ``n_inner`` projected steps on the rho-regularised weight problem per iteration, from the
    previous weights).  ``alpha``/``beta`` default to :func:`theorem_step_sizes` for the horizon T; ``x0``
    defaults to the problem's start, ``w0`` to uniform weights."""
    problem = _problem(problem)
    T = check_size("T", T, budget=10**7)
    variant = check_choice("variant", variant, VARIANTS)
    rho = check_real("rho", rho, low=0.0, high=1e6)
    n_inner = check_size("n_inner", n_inner, budget=10**5)
    if variant != "warm_start" and n_inner != 1:
        raise ValueError(f"n_inner must be 1 for variant {variant!r} (inner steps are the warm start's); got {n_inner}")
    x0 = problem.x0 if x0 is None else _point(problem, x0, "x0")
    K, d, m = problem.K, problem.d, problem.A.shape[1]
    w0 = np.full(K, 1.0 / K) if w0 is None else _simplex_vector("w0", w0, K)
    check_budget("the recorded run", (T + 1) * (d + 3 * K + 3), T=T, d=d, K=K)
    check_budget("the run's work", T * (K * m * d + (1 << K) * K * K * d + n_inner * K * K * d + K * d * d),
                 max_elements=MAX_WORK, unit="operations", T=T, K=K, d=d, n_inner=n_inner)
    steps = theorem_step_sizes(problem, T, x0)
    if alpha is None:
        alpha = steps["alpha"]
    else:
        alpha = check_real("alpha", alpha, low=0.0, low_open=True, high=1e6)
        _step_warning("alpha", alpha, steps["alpha_max"])
    if beta is None:
        beta = steps["beta"]
    else:
        beta = check_real("beta", beta, low=0.0, low_open=True, high=1e6)
        _step_warning("beta", beta, steps["beta_max"])
    X = np.empty((T + 1, d))
    W = np.empty((T + 1, K))
    Fv = np.empty((T + 1, K))
    Q = np.empty((T, K))
    ca, ca_dir, ps = np.empty(T), np.empty(T), np.empty(T)
    code = KR.VARIANT_FA if variant == "fa" else KR.VARIANT_MGDA
    with np.errstate(over="ignore", invalid="ignore"):
        bad = KR.run(code, *problem.arrays(), x0, w0, T, alpha, beta, rho, n_inner, _fa_difference_scale(alpha),
                     X, W, Fv, Q, ca, ca_dir, ps)
    if bad >= 0:
        raise SimulationDiverged(f"run_mgda ({variant}): the iterate became non-finite at step {bad} with alpha = "
                                 f"{alpha:.4g}, beta = {beta:.4g}; reduce alpha (theorem's alpha_max = "
                                 f"{steps['alpha_max']:.4g})")
    scale = 1e6 * (1.0 + float(np.abs(x0).max()) + float(np.abs(problem.c).max(initial=0.0)))
    if np.abs(X).max() > scale:
        raise SimulationDiverged(f"run_mgda ({variant}): |x| reached {np.abs(X).max():.3g} > {scale:.3g} with alpha = "
                                 f"{alpha:.4g}; reduce alpha")
    return MGDARun(variant, float(alpha), float(beta), float(rho), int(n_inner), X, W, Fv, Q, ca, ca_dir, ps)


def fa_quadratic_prediction(problem: MOProblem, x_prev, w, alpha: float) -> np.ndarray:
    """[derived] The exact value of FA's qhat = (F(x_prev) - F(x_prev - alpha G w)) / alpha on a quadratic
    problem (no log-cosh or exp terms), G = G(x_prev):  G^T G w - (alpha/2) [(G w)^T H_i (G w)]_i."""
    problem = _problem(problem)
    if problem.A.shape[1] or problem.e.any():
        raise ValueError("problem must be quadratic (no log-cosh terms, e = 0) for the exact FA identity")
    x_prev = _point(problem, x_prev, "x_prev")
    w = _simplex_vector("w", w, problem.K)
    alpha = check_real("alpha", alpha, low=0.0, low_open=True, high=1e6)
    J = _eval(problem, x_prev)[1]
    dvec = J.T @ w
    return J @ dvec - 0.5 * alpha * np.einsum("k,ikl,l->i", dvec, problem.H, dvec)
