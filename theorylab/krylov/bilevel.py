"""Bilevel problems with exact hypergradients, LancBiO's dynamic Lanczos outer loop and the CG / Neumann
baselines (Yang, Gao, Yuan, "LancBiO: Dynamic Lanczos-aided Bilevel Optimization via Krylov Subspace", ICLR 2025,
arXiv:2404.03331, Sec. 3 and Alg. 1; code github.com/UCAS-YanYang/LancBiO, Code/SyntheticProblem/solvers/LancBiO.py).

Problem: min_x phi(x) = f(x, y*(x)), y*(x) = argmin_y g(x, y), g strongly convex in y.  Implicit differentiation
of grad_y g(x, y*(x)) = 0 gives [derived, the standard formula the paper uses]

    grad phi(x) = grad_x f - grad^2_xy g . v*,    grad^2_yy g . v* = grad_y f     (all at (x, y*(x))),

where (grad^2_xy g . v)_i = sum_j d^2 g / dx_i dy_j v_j (the code's ``g_jac_xy``).  For the quadratic lower level
g = y^T H y / 2 - y^T B x, grad^2_xy g = -B^T, so grad phi = grad_x f + B^T H^{-1} grad_y f (a plus).

LancBiO (the authors' code, read line by line; k = 1..K, m the subspace dimension, m0 = 1 in the code):
T inner gradient steps y <- y - theta grad_y g; b = grad_y f; every dim_fre steps (k % dim_fre == dim_fre - 1)
m <- min(ceil(m dim_inc), dim_max) (m is a float32 tensor there, so the product is rounded to float32 before the
ceil: 10 x 1.1 gives 11, not 12); a restart when k % m == 1 or m == 1 (v_bar = v, w = H v_bar, q = (b - w) / |b - w|,
the tridiagonal T and basis Q emptied; one HVP); then one Lanczos step per outer step (u = H q - beta q_prev,
alpha = q^T u; T grows by a row and column), Delta v = Q T^{-1} Q^T (b - w), v = v_bar + Delta v and
x <- x - lam (grad_x f - grad^2_xy g . v).  H is the Hessian at the current (x, y): the Krylov basis is carried
across changing (x, y) between restarts, as in the code.  Two additions of ours, both inactive on the code's
runs: an exact Lanczos breakdown (beta = 0, the basis would be divided by 0) forces a restart at the next step;
``reorth="full"`` reorthogonalises each new basis vector against the basis since the restart.

Baselines: :func:`cg_bilevel` (AmIGO-CG: ``cg_steps`` CG steps on H v = b warm-started from the previous v) and
:func:`neumann_bilevel` (stocBiO's truncated Neumann series v = eta sum_{i<N} (I - eta H)^i b, deterministic).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from theorylab.core import (SimulationDiverged, as_generator, check_array, check_budget, check_choice, check_int,
                            check_real, child_seed)
from theorylab.core.validate import check_record
from theorylab.krylov.lanczos import REORTH_CHOICES, check_spd

__all__ = ["QuadraticBilevel", "quadratic_bilevel", "LogisticHyperparameter", "logistic_hyperparameter",
           "BilevelRun", "lancbio", "cg_bilevel", "neumann_bilevel", "restart_schedule", "MAX_OUTER_WORK"]

#: Budget of one outer loop, in units of dy^2 flops (K (T + hvps per step) dy^2): 2e10, about 20 s at the
#: ~1 Gflop/s a dense float64 matvec reaches on the loaded 2-core machine.
MAX_OUTER_WORK = 2 * 10**10


class _Problem:
    """Validated public wrappers around the private first- and second-order oracles of a bilevel problem."""

    dx: int
    dy: int

    def _xy(self, x, y):
        return check_array("x", x, shape=(self.dx,)), check_array("y", y, shape=(self.dy,))

    def f_value(self, x, y) -> float:
        """The upper-level objective f(x, y)."""
        return float(self._f(*self._xy(x, y)))

    def grad_x_f(self, x, y) -> np.ndarray:
        return self._fx(*self._xy(x, y))

    def grad_y_f(self, x, y) -> np.ndarray:
        return self._fy(*self._xy(x, y))

    def grad_y_g(self, x, y) -> np.ndarray:
        return self._gy(*self._xy(x, y))

    def hvp_yy(self, x, y, v) -> np.ndarray:
        """grad^2_yy g(x, y) v."""
        return self._hyy(*self._xy(x, y), check_array("v", v, shape=(self.dy,)))

    def jvp_xy(self, x, y, v) -> np.ndarray:
        """grad^2_xy g(x, y) v, of length dx (the authors' ``g_jac_xy``)."""
        return self._jxy(*self._xy(x, y), check_array("v", v, shape=(self.dy,)))

    def y_star(self, x) -> np.ndarray:
        """The lower-level solution y*(x)."""
        return self._ystar(check_array("x", x, shape=(self.dx,)))

    def phi(self, x) -> float:
        """phi(x) = f(x, y*(x))."""
        x = check_array("x", x, shape=(self.dx,))
        return float(self._f(x, self._ystar(x)))

    def hypergradient(self, x) -> np.ndarray:
        """The exact grad phi(x) = grad_x f - grad^2_xy g [grad^2_yy g]^{-1} grad_y f at (x, y*(x))."""
        return self._hypergrad(check_array("x", x, shape=(self.dx,)))

    def _hypergrad(self, x):
        y = self._ystar(x)
        v = self._solve_yy(x, y, self._fy(x, y))
        return self._fx(x, y) - self._jxy(x, y, v)


@dataclass(frozen=True, eq=False)
class QuadraticBilevel(_Problem):
    """g(x, y) = y^T H y / 2 - y^T B x (H SPD), f(x, y) = |y - c|^2 / 2 + mu_x |x|^2 / 2.

    y*(x) = H^{-1} B x, grad phi(x) = mu_x x + B^T H^{-1} (y*(x) - c) [derived]."""

    H: np.ndarray
    B: np.ndarray
    c: np.ndarray
    mu_x: float = 0.1
    _chol: tuple = field(init=False, repr=False)

    def __post_init__(self):
        H = check_spd("H", self.H)
        B = check_array("B", self.B, ndim=2)
        if B.shape[0] != H.shape[0] or B.shape[1] < 1:
            raise ValueError(f"B must have shape ({H.shape[0]}, dx) with dx >= 1; got {B.shape}")
        object.__setattr__(self, "H", H)
        object.__setattr__(self, "B", B)
        object.__setattr__(self, "c", check_array("c", self.c, shape=(H.shape[0],)))
        object.__setattr__(self, "mu_x", check_real("mu_x", self.mu_x, low=0.0))
        object.__setattr__(self, "_chol", cho_factor(H))

    @property
    def dy(self) -> int:
        return self.H.shape[0]

    @property
    def dx(self) -> int:
        return self.B.shape[1]

    @property
    def kappa(self) -> float:
        """The condition number of H."""
        ev = np.linalg.eigvalsh(self.H)
        return float(ev[-1] / ev[0])

    def _f(self, x, y):
        return 0.5 * float((y - self.c) @ (y - self.c)) + 0.5 * self.mu_x * float(x @ x)

    def _fx(self, x, y):
        return self.mu_x * x

    def _fy(self, x, y):
        return y - self.c

    def _gy(self, x, y):
        return self.H @ y - self.B @ x

    def _hyy(self, x, y, v):
        return self.H @ v

    def _jxy(self, x, y, v):
        return -(self.B.T @ v)

    def _ystar(self, x):
        return cho_solve(self._chol, self.B @ x)

    def _solve_yy(self, x, y, b):
        return cho_solve(self._chol, b)


def quadratic_bilevel(n: int = 200, *, kappa: float = 100.0, mu_x: float = 0.1, coupling: str = "identity",
                      dx: int | None = None, seed=0) -> QuadraticBilevel:
    """A random instance: H = U diag(lambda) U^T with lambda log-spaced on [1, kappa] and U Haar-orthogonal,
    c ~ N(0, I); B = I (``coupling="identity"``, dx = n) or B_ij ~ N(0, 1/n) (``"gaussian"``, dx given or n)."""
    n = check_int("n", n, low=2, high=4000)
    kappa = check_real("kappa", kappa, low=1.0, high=1e12)
    coupling = check_choice("coupling", coupling, ("identity", "gaussian"))
    dx = n if dx is None else check_int("dx", dx, low=1, high=4000)
    if coupling == "identity" and dx != n:
        raise ValueError(f"dx must equal n = {n} for coupling='identity'; got {dx}")
    rng = as_generator(child_seed(seed, "H"))
    U, R = np.linalg.qr(rng.standard_normal((n, n)))
    U *= np.sign(np.diag(R))
    lam = np.geomspace(1.0, kappa, n)
    H = (U * lam) @ U.T
    H = 0.5 * (H + H.T)
    B = np.eye(n) if coupling == "identity" else \
        as_generator(child_seed(seed, "B")).standard_normal((n, dx)) / math.sqrt(n)
    c = as_generator(child_seed(seed, "c")).standard_normal(n)
    return QuadraticBilevel(H, B, c, mu_x=mu_x)


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


@dataclass(frozen=True, eq=False)
class LogisticHyperparameter(_Problem):
    """Hyperparameter tuning of an l2-regularised logistic regression, one weight-decay exponent per coordinate:
    g(x, y) = mean_i log(1 + exp(-b_i a_i^T y)) + sum_j exp(x_j) y_j^2 / 2 on the training set,
    f(x, y) = the same logistic loss on the validation set (labels +-1).  grad_x f = 0 and
    (grad^2_xy g v)_j = exp(x_j) y_j v_j [derived]; y*(x) by Newton's method (a full step after |grad_y g| <= 1e-10)."""

    A_train: np.ndarray
    b_train: np.ndarray
    A_val: np.ndarray
    b_val: np.ndarray

    def __post_init__(self):
        A = check_array("A_train", self.A_train, ndim=2)
        if A.shape[0] < 1 or A.shape[1] < 1 or A.shape[1] > 2000:
            raise ValueError(f"A_train must have shape (n, d), n >= 1, 1 <= d <= 2000; got {A.shape}")
        Av = check_array("A_val", self.A_val, ndim=2)
        if Av.shape[0] < 1 or Av.shape[1] != A.shape[1]:
            raise ValueError(f"A_val must have shape (m, {A.shape[1]}) with m >= 1; got {Av.shape}")
        for name, b, rows in (("b_train", self.b_train, A.shape[0]), ("b_val", self.b_val, Av.shape[0])):
            b = check_array(name, b, shape=(rows,))
            if not np.all(np.abs(b) == 1.0):
                raise ValueError(f"{name} must hold labels +-1; got values {np.unique(b)[:5]}")
            object.__setattr__(self, name, b)
        object.__setattr__(self, "A_train", A)
        object.__setattr__(self, "A_val", Av)

    @property
    def dx(self) -> int:
        return self.A_train.shape[1]

    @property
    def dy(self) -> int:
        return self.A_train.shape[1]

    @staticmethod
    def _loss(A, b, y):
        return float(np.mean(np.logaddexp(0.0, -b * (A @ y))))

    @staticmethod
    def _loss_grad(A, b, y):
        return A.T @ (-b * _sigmoid(-b * (A @ y))) / A.shape[0]

    def _f(self, x, y):
        return self._loss(self.A_val, self.b_val, y)

    def _fx(self, x, y):
        return np.zeros(self.dx)

    def _fy(self, x, y):
        return self._loss_grad(self.A_val, self.b_val, y)

    def _g(self, x, y):
        return self._loss(self.A_train, self.b_train, y) + 0.5 * float(np.exp(x) @ (y * y))

    def _gy(self, x, y):
        return self._loss_grad(self.A_train, self.b_train, y) + np.exp(x) * y

    def _curv(self, y):
        p = _sigmoid(self.A_train @ y)
        return p * (1.0 - p) / self.A_train.shape[0]

    def _hyy(self, x, y, v):
        return self.A_train.T @ (self._curv(y) * (self.A_train @ v)) + np.exp(x) * v

    def _hess(self, x, y):
        return (self.A_train.T * self._curv(y)) @ self.A_train + np.diag(np.exp(x))

    def _jxy(self, x, y, v):
        return np.exp(x) * y * v

    def _solve_yy(self, x, y, b):
        return np.linalg.solve(self._hess(x, y), b)

    def _ystar(self, x):
        if np.any(np.abs(x) > 30):
            raise ValueError(f"x must lie in [-30, 30] (weight decay exp(x)); got max |x| = {np.abs(x).max():.3g}")
        y = np.zeros(self.dy)
        for _ in range(100):
            grad = self._gy(x, y)
            step = np.linalg.solve(self._hess(x, y), grad)
            if np.linalg.norm(grad) <= 1e-10 * (1.0 + np.linalg.norm(y)):
                return y - step                # one more full Newton step: quadratic convergence to rounding
            t, g0, decrement = 1.0, self._g(x, y), float(grad @ step)
            # backtracking (Armijo) only far from y*: near it the decrease is below the rounding of g
            while decrement > 1e-8 and self._g(x, y - t * step) > g0 - 0.25 * t * decrement and t > 1e-10:
                t *= 0.5
            y = y - t * step
        raise SimulationDiverged(f"Newton's method for y*(x) did not converge in 100 steps (|grad_y g| = "
                                 f"{np.linalg.norm(self._gy(x, y)):.3g})")


def logistic_hyperparameter(n_train: int = 200, n_val: int = 200, d: int = 20, *, noise: float = 0.1,
                            seed=0) -> LogisticHyperparameter:
    """Gaussian features a ~ N(0, I_d), labels sign(a^T w + noise eps) with w ~ N(0, I_d / d) per set."""
    n_train = check_int("n_train", n_train, low=1, high=10**6)
    n_val = check_int("n_val", n_val, low=1, high=10**6)
    d = check_int("d", d, low=1, high=2000)
    noise = check_real("noise", noise, low=0.0)
    check_budget("the feature matrices", (n_train + n_val) * d, n_train=n_train, n_val=n_val, d=d)
    w = as_generator(child_seed(seed, "w")).standard_normal(d) / math.sqrt(d)

    def draw(n, name):
        rng = as_generator(child_seed(seed, name))
        A = rng.standard_normal((n, d))
        b = np.sign(A @ w + noise * rng.standard_normal(n))
        b[b == 0] = 1.0
        return A, b

    return LogisticHyperparameter(*draw(n_train, "train"), *draw(n_val, "val"))


@dataclass(frozen=True)
class BilevelRun:
    """An outer loop's record: final iterates, the exact |grad phi(x_k)|^2 for k = 0..K (``grad_norm2``; empty
    when not tracked), the residual |grad^2_yy g v_k - grad_y f| at (x_k, y_k), HVP count, the outer steps
    at which a restart happened (LancBiO), and the subspace dimension m used at each step."""

    method: str
    x: np.ndarray
    y: np.ndarray
    v: np.ndarray
    grad_norm2: np.ndarray
    residual: np.ndarray
    hvps: int
    restarts: tuple = ()
    m: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __post_init__(self):
        check_record(self)
        check_choice("method", self.method, ("lancbio", "cg", "neumann"))
        if self.hvps < 0:
            raise ValueError(f"BilevelRun: hvps must be >= 0; got {self.hvps}")

    @property
    def summed_grad_norm2(self) -> np.ndarray:
        """S_K = sum_{k < K} |grad phi(x_k)|^2 for K = 1..len(grad_norm2)."""
        return np.cumsum(self.grad_norm2)


def restart_schedule(K: int, *, m0: int = 1, dim_inc: float = 1.1, dim_fre: int = 20, dim_max: int = 80):
    """The subspace dimension m_k and the restart flags of LancBiO's code for k = 1..K (see the module
    docstring; m is a float32 in the code, so m dim_inc is rounded to float32 before the ceil)."""
    K = _check_K(K)
    m = check_int("m0", m0, low=1, high=10**6)
    dim_inc = check_real("dim_inc", dim_inc, low=1.0, high=100.0)
    dim_fre = check_int("dim_fre", dim_fre, low=1, high=10**9)
    dim_max = check_int("dim_max", dim_max, low=1, high=10**6)
    ms, restart = np.empty(K, dtype=np.int64), np.zeros(K, dtype=bool)
    for k in range(1, K + 1):
        if k % dim_fre == dim_fre - 1:
            m = min(math.ceil(float(np.float32(m) * np.float32(dim_inc))), dim_max)
        ms[k - 1] = m
        restart[k - 1] = (k % m == 1) or m == 1
    return ms, restart


def _check_K(K):
    return check_int("K", K, low=1, high=10**7)


def _start(problem, x0, y0, v0, seed):
    if not isinstance(problem, _Problem):
        raise TypeError(f"problem must be a QuadraticBilevel or LogisticHyperparameter; got {type(problem).__name__}")

    def init(name, given, d):
        if given is None:
            return as_generator(child_seed(seed, name)).standard_normal(d)
        return check_array(name, given, shape=(d,)).copy()

    return init("x0", x0, problem.dx), init("y0", y0, problem.dy), init("v0", v0, problem.dy)


def _outer(problem, method, K, T, theta, lam, x, y, v, solve_v, track):
    """The shared outer loop: T inner GD steps, v from ``solve_v``, one hypergradient step on x."""
    K = _check_K(K)
    T = check_int("T", T, low=0, high=10**4)
    theta = check_real("theta", theta, low=0.0)
    lam = check_real("lam", lam, low=0.0)
    check_budget("the outer loop", K * (T + 4) * problem.dy ** 2, max_elements=MAX_OUTER_WORK, unit="flops",
                 K=K, T=T)
    norms = [float(np.sum(problem._hypergrad(x) ** 2))] if track else []
    res = []
    for k in range(1, K + 1):
        for _ in range(T):
            y = y - theta * problem._gy(x, y)
        b = problem._fy(x, y)
        v = solve_v(k, x, y, b, v)
        x = x - lam * (problem._fx(x, y) - problem._jxy(x, y, v))
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y)) and np.all(np.isfinite(v))):
            raise SimulationDiverged(f"{method} diverged at outer step k = {k} (lam = {lam}, theta = {theta}, T = {T})")
        res.append(float(np.linalg.norm(problem._hyy(x, y, v) - b)))
        if track:
            norms.append(float(np.sum(problem._hypergrad(x) ** 2)))
    return x, y, v, np.asarray(norms), np.asarray(res)


def lancbio(problem, K: int = 1000, *, T: int = 5, theta: float = 0.01, lam: float = 1.0, m0: int = 1,
            dim_inc: float = 1.1, dim_fre: int = 20, dim_max: int = 80, reorth: str = "none", x0=None, y0=None,
            v0=None, track: bool = True, seed=0) -> BilevelRun:
    """LancBiO's dynamic Lanczos outer loop as in the authors' code (module docstring); x0, y0, v0 default to
    N(0, I) draws from ``seed``.  ``track``: record the exact |grad phi(x_k)|^2 (one exact solve per step)."""
    reorth = check_choice("reorth", reorth, REORTH_CHOICES)
    if not isinstance(track, bool):
        raise TypeError(f"track must be a bool; got {track!r}")
    ms, flags = restart_schedule(K, m0=m0, dim_inc=dim_inc, dim_fre=dim_fre, dim_max=dim_max)
    x, y, v = _start(problem, x0, y0, v0, seed)
    check_budget("the Lanczos basis", problem.dy * (int(ms.max()) + 2), n=problem.dy, dim_max=dim_max)
    st = dict(hvps=0, restarts=[], force=False)

    def hvp(x, y, u):
        st["hvps"] += 1
        return problem._hyy(x, y, u)

    def solve_v(k, x, y, b, v):
        if flags[k - 1] or st["force"]:
            st.update(force=False, v_bar=v, alphas=[], betas=[], beta=0.0, q_prev=np.zeros_like(v))
            st["restarts"].append(k)
            st["w"] = hvp(x, y, v)
            r0 = b - st["w"]
            nr = float(np.linalg.norm(r0))
            if nr == 0.0:                                   # v is exact: nothing to build this cycle
                st["force"] = True
                return v
            st["Q"] = [r0 / nr]
        Q, q = st["Q"], st["Q"][-1]
        r = b - st["w"]
        u = hvp(x, y, q) - st["beta"] * st["q_prev"]
        alpha = float(q @ u)
        if st["alphas"]:
            st["betas"].append(st["beta"])
        st["alphas"].append(alpha)
        Tj = np.diag(st["alphas"]) + np.diag(st["betas"], 1) + np.diag(st["betas"], -1)
        Qm = np.column_stack(Q)
        try:
            dv = Qm @ np.linalg.solve(Tj, Qm.T @ r)
        except np.linalg.LinAlgError:
            raise SimulationDiverged(f"lancbio: the tridiagonal T_j of size {len(Q)} is singular at outer step "
                                     f"k = {k} (an indefinite or diverged Hessian)") from None
        omega = u - alpha * q
        if reorth == "full":
            for _ in range(2):
                omega = omega - Qm @ (Qm.T @ omega)
        beta = float(np.linalg.norm(omega))
        st["q_prev"], st["beta"] = q, beta
        if beta <= 1e-14 * max(abs(alpha), 1e-300):         # exact breakdown: restart at the next step
            st["force"] = True
        else:
            Q.append(omega / beta)
        return st["v_bar"] + dv

    x, y, v, norms, res = _outer(problem, "lancbio", K, T, theta, lam, x, y, v, solve_v, track)
    return BilevelRun("lancbio", x, y, v, norms, res, st["hvps"], tuple(st["restarts"]), ms)


def cg_bilevel(problem, K: int = 1000, *, T: int = 5, theta: float = 0.01, lam: float = 1.0, cg_steps: int = 5,
               warm_start: bool = True, x0=None, y0=None, v0=None, track: bool = True, seed=0) -> BilevelRun:
    """AmIGO-CG: ``cg_steps`` conjugate-gradient steps on grad^2_yy g v = grad_y f per outer step, warm-started
    from the previous v (1 + cg_steps HVPs per step); ``warm_start=False``: a fresh solve from v = 0 each step
    (cg_steps HVPs)."""
    cg_steps = check_int("cg_steps", cg_steps, low=1, high=10**4)
    for name, flag in (("track", track), ("warm_start", warm_start)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be a bool; got {flag!r}")
    x, y, v = _start(problem, x0, y0, v0, seed)
    count = [0]

    def solve_v(k, x, y, b, v):
        if warm_start:
            count[0] += 1
            r = b - problem._hyy(x, y, v)
        else:
            v, r = np.zeros_like(b), b.copy()
        p, rr = r.copy(), float(r @ r)
        for _ in range(cg_steps):
            if rr == 0.0:
                break
            count[0] += 1
            Hp = problem._hyy(x, y, p)
            a = rr / float(p @ Hp)
            v, r = v + a * p, r - a * Hp
            rr_new = float(r @ r)
            p, rr = r + (rr_new / rr) * p, rr_new
        return v

    x, y, v, norms, res = _outer(problem, "cg", K, T, theta, lam, x, y, v, solve_v, track)
    return BilevelRun("cg", x, y, v, norms, res, count[0])


def neumann_bilevel(problem, K: int = 1000, *, T: int = 5, theta: float = 0.01, lam: float = 1.0,
                    neumann_steps: int = 10, eta: float = 0.01, x0=None, y0=None, track: bool = True,
                    seed=0) -> BilevelRun:
    """stocBiO's truncated Neumann series, deterministic: v = eta sum_{i=0}^{N-1} (I - eta H)^i grad_y f
    (N - 1 HVPs per step); needs eta < 2 / L_yy to converge as N grows."""
    N = check_int("neumann_steps", neumann_steps, low=1, high=10**4)
    eta = check_real("eta", eta, low=0.0, low_open=True)
    if not isinstance(track, bool):
        raise TypeError(f"track must be a bool; got {track!r}")
    x, y, _ = _start(problem, x0, y0, None, seed)
    count = [0]

    def solve_v(k, x, y, b, v):
        term, acc = b.copy(), b.copy()
        for _ in range(N - 1):
            count[0] += 1
            term = term - eta * problem._hyy(x, y, term)
            acc = acc + term
        return eta * acc

    x, y, v, norms, res = _outer(problem, "neumann", K, T, theta, lam, x, y, np.zeros(problem.dy), solve_v, track)
    return BilevelRun("neumann", x, y, v, norms, res, count[0])
