"""Two-player zero-sum matrix games on simplices and last-iterate learning dynamics: the simulator of paper
``gabp``.

K. Abe, M. Sakamoto, K. Ariu, A. Iwasaki, "Boosting Perturbed Gradient Ascent for Last-Iterate Convergence in
Games", ICLR 2025 (arXiv:2410.02388; code CyberAgentAILab/boosting-perturbed-ga).

Game (Sec. 2): player x maximises x^T A y, player y maximises -x^T A y, x in Delta^{d1}, y in Delta^{d2}.  The
gradient operator V(x, y) = (A y, -A^T x) is monotone and L-Lipschitz with L = ||A||_2 (spectral norm); the
product of two simplices has diameter D = sqrt(2 + 2) = 2.  Gap function GAP(pi) = max_{pi~} <V(pi), pi~ - pi>
= max_i (A y)_i - min_j (A^T x)_j; tangent residual r^tan(pi) = min_{a in N_X(pi)} ||-V(pi) + a||; Lemma 2.2
(Cai et al. 2022): GAP <= D r^tan.

Methods (``METHODS``), with Vhat the (possibly noisy) gradient:

- ``"ga"``: pi^{t+1} = Proj(pi^t + eta Vhat(pi^t));
- ``"apga"`` (eq. (3)): pi^{t+1} = Proj(pi^t + eta [Vhat(pi^t) - mu (pi^t - sigma^k)]), sigma^{k+1} = pi^{t+1}
  every T_sigma steps;
- ``"gabp"`` (Algorithm 1, eq. (4)): the same with sigma^k replaced by (k sigma^k + sigma^1)/(k + 1), k = 1, 2, ...;
- ``"gabp_code"`` / ``"apga_code"``: the authors' code's indexing (k from 0, re-anchoring to the current
  pi^t every T_sigma + 1 steps) as a variant;
- ``"oga"``: optimistic GA as in the authors' code, pihat^{t+1} = Proj(pihat^t + eta Vhat(pi^t)),
  pi^{t+1} = Proj(pihat^{t+1} + eta Vhat(pi^t)).

Feedback: ``"full"`` (exact V) or ``"noisy"`` (V + N(0, noise_std^2 I) for each player, Assumption 4.2 with
C^2 = (d1 + d2) noise_std^2).  Step sizes: constant ``eta`` or Theorem 4.3's schedule
eta_t = 1/(kappa (t - T_sigma (k(t) - 1)) + 2 theta), kappa = mu/2, theta = (3 mu^2 + 8 L^2)/(2 mu).

Example::

    from theorylab.games.matrix_games import random_payoff_games, run_dynamics
    A = random_payoff_games(50, n_games=4, seed=0)
    out = run_dynamics(A, "gabp", eta=0.05, mu=1.0, T_sigma=10, T=1000)   # warns: eta above mu/(L+mu)^2
    out.gap[:, -1]                                                          # GAP(pi^{T+1}) per game
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from theorylab.core.parallel import map_blocks
from theorylab.core.seeding import as_generator, spawn_seeds
from theorylab.core.validate import (check_array, check_budget, check_choice, check_int, check_real, check_size,
                                     require_bounded)
from theorylab.games import _kernels as K
from theorylab.core.validate import check_record

__all__ = ["METHODS", "FEEDBACKS", "DIAMETER", "Run", "random_payoff_games", "project_simplex",
           "project_simplex_numpy", "duality_gap", "gap_lp", "tangent_residual", "lipschitz_constant",
           "theorem41_parameters", "theorem41_bound", "theorem43_parameters", "run_dynamics",
           "run_dynamics_numpy", "strategy_path", "perturbed_equilibrium"]

METHODS = ("ga", "apga", "gabp", "apga_code", "gabp_code", "oga")
FEEDBACKS = ("full", "noisy")
_CODE = {"ga": K.GA, "apga": K.APGA, "gabp": K.GABP, "apga_code": K.APGA_CODE, "gabp_code": K.GABP_CODE,
         "oga": K.OGA}
#: diameter of Delta^{d1} x Delta^{d2}: sqrt(2 + 2)
DIAMETER = 2.0
#: one call's work: runs * T * d1 * d2 multiply-adds (about 1e9 per second per core)
MAX_WORK = 2 * 10**10
MAX_WORK_NUMPY = 10**9
MAX_DIM = 10**4
MAX_T = 10**8


@dataclass(frozen=True)
class Run:
    """Recorded quantities of :func:`run_dynamics`: at times ``t`` (pi^t, t = 1 is the start), ``gap`` =
    GAP(pi^t) and ``residual`` = r^tan(pi^t), shape (runs, len(t)); ``regret`` (runs, len(t), 2): each player's
    dynamic regret sum_{s <= t} [max_{x'} v_i(x', pi_{-i}^s) - v_i(pi^s)]."""

    t: np.ndarray
    gap: np.ndarray
    residual: np.ndarray
    regret: np.ndarray
    T_sigma: int

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)


# --------------------------------------------------------------------------- validation helpers

def _games(A) -> np.ndarray:
    """A as (n_games, d1, d2), finite, non-empty strategy sets."""
    if A is None or isinstance(A, (str, bytes)):
        raise TypeError(f"A must be a payoff matrix (d1, d2) or a stack (n_games, d1, d2) of floats; got {A!r}"[:200])
    arr = check_array("A", A)
    if arr.ndim == 2:
        arr = arr[None]
    if arr.ndim != 3:
        raise ValueError(f"A must be a payoff matrix (d1, d2) or a stack (n_games, d1, d2); got shape {arr.shape}")
    if 0 in arr.shape:
        raise ValueError(f"A must have non-empty strategy sets and at least one game (d1, d2 >= 1); got shape "
                         f"{arr.shape}")
    if arr.shape[1] > MAX_DIM or arr.shape[2] > MAX_DIM:
        raise ValueError(f"A must have at most {MAX_DIM} actions per player; got shape {arr.shape}")
    if np.abs(arr).max() > 1e12:
        raise ValueError(f"A must have entries of magnitude <= 1e12; got max |A| = {np.abs(arr).max():.3g}")
    return arr


def _simplex_point(name, value, d, atol=1e-9):
    """A point of Delta^d (non-negative, summing to 1 within atol)."""
    p = check_array(name, value, ndim=1)
    if p.size != d:
        raise ValueError(f"{name} must be a strategy in the simplex of dimension {d}; got length {p.size}")
    if p.size == 0:
        raise ValueError(f"{name} must be a non-empty strategy; got an empty array")
    if np.any(p < 0) or abs(float(p.sum()) - 1.0) > atol:
        raise ValueError(f"{name} must lie on the simplex (entries >= 0 summing to 1 within {atol:g}); got min "
                         f"{p.min():.3g}, sum {p.sum():.12g}")
    return p


def _strategies(A, x, y, names=("x", "y")):
    A = _games(A)
    if A.shape[0] != 1:
        raise ValueError(f"A must be one payoff matrix (d1, d2) here; got a stack of shape {A.shape}")
    return A[0], _simplex_point(names[0], x, A.shape[1]), _simplex_point(names[1], y, A.shape[2])


# --------------------------------------------------------------------------- games, projection, gap

def random_payoff_games(d: int = 50, n_games: int = 1, *, d2: int | None = None, seed=0) -> np.ndarray:
    """(n_games, d, d2) payoff matrices with i.i.d. U[-1, 1] entries (the random payoff game of Sec. 6; d2 = d
    by default).  Game r depends only on (seed, r)."""
    d = check_int("d", d, low=1, high=MAX_DIM)
    d2 = d if d2 is None else check_int("d2", d2, low=1, high=MAX_DIM)
    n_games = check_size("n_games", n_games)
    check_budget("the payoff matrices", n_games * d * d2, n_games=n_games, d=d, d2=d2)
    seeds = spawn_seeds(seed, n_games)
    return np.stack([np.random.default_rng(int(s)).uniform(-1.0, 1.0, size=(d, d2)) for s in seeds])


def project_simplex(v) -> np.ndarray:
    """Euclidean projection of v (1-d) or of each row of v (2-d) onto the probability simplex (jitted)."""
    v = check_array("v", v)
    if v.ndim not in (1, 2) or v.shape[-1] == 0:
        raise ValueError(f"v must be a non-empty vector or a 2-d array of non-empty rows; got shape {v.shape}")
    check_budget("the projected array", v.size)
    if np.abs(v).max() > 1e12:
        raise ValueError(f"v must have entries of magnitude <= 1e12; got {np.abs(v).max():.3g}")
    rows = np.atleast_2d(v)
    out = np.empty_like(rows)
    for i in range(rows.shape[0]):
        K.project_simplex(rows[i], out[i])
    return out.reshape(v.shape)


def project_simplex_numpy(v) -> np.ndarray:
    """Vectorised numpy reference of :func:`project_simplex` (all rows at once, the same sort-based formula)."""
    v = check_array("v", v)
    if v.ndim not in (1, 2) or v.shape[-1] == 0:
        raise ValueError(f"v must be a non-empty vector or a 2-d array of non-empty rows; got shape {v.shape}")
    rows = np.atleast_2d(v)
    u = -np.sort(-rows, axis=1)
    css = np.cumsum(u, axis=1) - 1.0
    j = np.arange(1, rows.shape[1] + 1)
    rho = np.sum(u - css / j > 0, axis=1)
    theta = css[np.arange(rows.shape[0]), rho - 1] / rho
    return np.maximum(rows - theta[:, None], 0.0).reshape(v.shape)


def duality_gap(A, x, y) -> float:
    """GAP(x, y) = max_i (A y)_i - min_j (A^T x)_j: the gap function of Sec. 2 in closed form."""
    A, x, y = _strategies(A, x, y)
    return float(np.max(A @ y) - np.min(A.T @ x))


def gap_lp(A, x, y) -> float:
    """GAP(pi) = max_{pi~ in X} <V(pi), pi~ - pi> solved as a linear program (scipy.optimize.linprog, HiGHS):
    the reference for :func:`duality_gap`."""
    from scipy.optimize import linprog

    A, x, y = _strategies(A, x, y)
    g = np.r_[A @ y, -A.T @ x]
    d1, d2 = A.shape
    A_eq = np.zeros((2, d1 + d2))
    A_eq[0, :d1] = 1.0
    A_eq[1, d1:] = 1.0
    res = linprog(-g, A_eq=A_eq, b_eq=[1.0, 1.0], bounds=(0, None), method="highs")
    if res.status != 0:                                   # pragma: no cover - a bounded feasible LP
        raise RuntimeError(f"linprog failed: {res.message}")
    return float(-res.fun - g @ np.r_[x, y])


def tangent_residual(A, x, y) -> float:
    """r^tan(pi) = dist(V(pi), N_X(pi)) in closed form (the normal cone of the simplex at x is {a : a_i =
    lambda on supp x, a_i <= lambda off it}; the one-dimensional convex problem in lambda solved exactly)."""
    A, x, y = _strategies(A, x, y)
    return float(np.sqrt(K.tangent_residual_sq(A @ y, x) + K.tangent_residual_sq(-A.T @ x, y)))


def lipschitz_constant(A) -> float:
    """L = ||A||_2: ||V(pi) - V(pi')|| = ||(A dy, -A^T dx)|| <= ||A||_2 ||pi - pi'|| (tight)."""
    A = _games(A)
    if A.shape[0] != 1:
        raise ValueError(f"A must be one payoff matrix (d1, d2) here; got a stack of shape {A.shape}")
    return float(np.linalg.norm(A[0], 2))


# --------------------------------------------------------------------------- the theorems' constants

def _L_mu(L, mu):
    L = check_real("L", L, low=0.0, low_open=True, high=1e12)
    mu = check_real("mu", mu, low=0.0, low_open=True, high=1e12)
    return L, mu


def theorem41_parameters(L: float, mu: float, T: int, *, c: float = 1.0, eta: float | None = None) -> dict:
    """Theorem 4.1's setting: eta in (0, mu/(L + mu)^2) (default mu/(2 (L + mu)^2)) and
    T_sigma = c max(1, 6 ln(3(T + 1))/ln(1 + eta mu)).  T_sigma is real-valued in the theorem; it is rounded
    up here (``T_sigma``; ``T_sigma_real`` keeps the real value).  ``B_gap`` is the constant of the gap bound
    GAP(pi^t) <= B_gap/(t - 1) with D = 1 (multiply by D^2; by D for r^tan)."""
    L, mu = _L_mu(L, mu)
    T = check_size("T", T, budget=MAX_T)
    c = check_real("c", c, low=1.0, high=1e6)
    eta_max = mu / (L + mu) ** 2
    eta = eta_max / 2 if eta is None else check_real("eta", eta, low=0.0, low_open=True, high=1e6)
    ts_real = c * max(1.0, 6 * math.log(3 * (T + 1)) / math.log1p(eta * mu))
    B = 17 * c * (6 * math.log(3 * (T + 1)) / math.log1p(eta * mu) + 1) * (mu + (1 + eta * L) / eta)
    return dict(eta=eta, eta_max=eta_max, eta_in_range=bool(0 < eta < eta_max), T_sigma_real=ts_real,
                T_sigma=int(math.ceil(ts_real)), B_gap=B, L=L, mu=mu, c=c, T=T)


def theorem41_bound(t, *, L: float, mu: float, T: int, D: float = DIAMETER, c: float = 1.0,
                    eta: float | None = None):
    """(gap bound, residual bound) of Theorem 4.1 at times t in {2, ..., T + 1}:
    17 c D^2 (6 ln(3(T + 1))/ln(1 + eta mu) + 1)(mu + (1 + eta L)/eta)/(t - 1), and the same with D."""
    p = theorem41_parameters(L, mu, T, c=c, eta=eta)
    D = check_real("D", D, low=0.0, low_open=True, high=1e12)
    t = check_array("t", np.atleast_1d(check_array("t", t)), ndim=1)
    if np.any(t < 2) or np.any(t > p["T"] + 1):
        raise ValueError(f"t must lie in [2, T + 1] = [2, {p['T'] + 1}]; got range [{t.min():g}, {t.max():g}]")
    return p["B_gap"] * D**2 / (t - 1), p["B_gap"] * D / (t - 1)


def theorem43_parameters(L: float, mu: float, T: int, *, c: float = 1.0) -> dict:
    """Theorem 4.3's setting: kappa = mu/2, theta = (3 mu^2 + 8 L^2)/(2 mu), T_sigma = c max(T^{6/7}, 1)
    (rounded up here), eta_t = 1/(kappa (t - T_sigma (k(t) - 1)) + 2 theta)."""
    L, mu = _L_mu(L, mu)
    T = check_size("T", T, budget=MAX_T)
    c = check_real("c", c, low=1.0, high=1e6)
    ts_real = c * max(T ** (6 / 7), 1.0)
    return dict(kappa=mu / 2, theta=(3 * mu**2 + 8 * L**2) / (2 * mu), T_sigma_real=ts_real,
                T_sigma=int(math.ceil(ts_real)), L=L, mu=mu, c=c, T=T)


# --------------------------------------------------------------------------- dynamics

def _dyn_args(A, method, eta, mu, T_sigma, T, feedback, noise_std, x0, y0, record, n_seeds, eta_schedule, c):
    A = _games(A)
    method = check_choice("method", method, METHODS)
    feedback = check_choice("feedback", feedback, FEEDBACKS)
    eta_schedule = check_choice("eta_schedule", eta_schedule, ("constant", "theorem43"))
    T = check_size("T", T, budget=MAX_T)
    mu = check_real("mu", mu, low=0.0, low_open=True, high=1e6)
    if eta_schedule == "constant":
        eta = check_real("eta", eta, low=0.0, low_open=True, high=1e6)
    noise_std = check_real("noise_std", noise_std, low=0.0, high=1e6)  # checked even when feedback ignores it
    c = check_real("c", c, low=1.0, high=1e6)  # (Theorem 4.1/4.3's constant; checked even when not used)
    noise_std = noise_std if feedback == "noisy" else 0.0
    n_games, d1, d2 = A.shape
    x0 = np.full(d1, 1.0 / d1) if x0 is None else _simplex_point("x0", x0, d1)
    y0 = np.full(d2, 1.0 / d2) if y0 is None else _simplex_point("y0", y0, d2)
    if n_seeds is not None:
        n_seeds = check_size("n_seeds", n_seeds)
        if n_games != 1:
            raise ValueError(f"n_seeds repeats one game with independent noise; A must then be one matrix, got "
                             f"{n_games} games")
        A = np.broadcast_to(A, (n_seeds, d1, d2))
    n_runs = A.shape[0]
    check_budget("run_dynamics work", n_runs * T * d1 * d2, max_elements=MAX_WORK, unit="multiply-adds",
                 n_runs=n_runs, T=T, d1=d1, d2=d2)
    if record is None:
        check_budget("the recorded arrays (every t)", 4 * n_runs * (T + 1), n_runs=n_runs, T=T)
        rec = np.arange(1, T + 2, dtype=np.int64)
    else:
        rec = check_array("record", np.atleast_1d(record), ndim=1, dtype=np.int64)
        if rec.size == 0 or np.any(np.diff(rec) <= 0) or rec[0] < 1 or rec[-1] > T + 1:
            raise ValueError(f"record must be increasing times in [1, T + 1] = [1, {T + 1}]; got "
                             f"{rec[:5].tolist()}{'...' if rec.size > 5 else ''}")
    check_budget("the recorded arrays", 4 * n_runs * rec.size, n_runs=n_runs, record=rec.size)
    L = max(float(np.linalg.norm(a, 2)) for a in A[: (1 if n_seeds is not None else n_runs)])
    kappa = theta = 0.0
    if eta_schedule == "theorem43":
        p43 = theorem43_parameters(max(L, 1e-12), mu, T, c=c)
        kappa, theta = p43["kappa"], p43["theta"]
        T_sigma = p43["T_sigma"] if T_sigma is None else T_sigma
        eta = 1.0 / (kappa + 2 * theta)
    elif T_sigma is None:
        T_sigma = theorem41_parameters(max(L, 1e-12), mu, T, c=c, eta=eta)["T_sigma"]
    T_sigma = check_int("T_sigma", T_sigma, low=1, high=MAX_T)
    if method in ("apga", "gabp", "apga_code", "gabp_code") and eta_schedule == "constant":
        eta_max = mu / (L + mu) ** 2
        if not eta < eta_max:
            warnings.warn(f"eta = {eta:g} is outside Theorem 4.1's range (0, mu/(L + mu)^2) = (0, {eta_max:.4g}) "
                          f"for L = {L:.4g}, mu = {mu:g}: the run goes ahead, without the theorem's guarantee",
                          RuntimeWarning, stacklevel=3)
    return (A, _CODE[method], eta, mu, T_sigma, T, K.ETA_THM43 if eta_schedule == "theorem43" else K.ETA_CONST,
            kappa, theta, noise_std, x0, y0, rec, L)


def _finish(gap, res, reg, rec, T_sigma, A, what):
    """Refuse a non-finite or impossible record: GAP(pi) <= 2 max|A| and r^tan(pi) <= ||V(pi)|| <=
    sqrt(d1 + d2) max|A| (a = 0 lies in the normal cone), with a 1e-9 relative allowance for rounding."""
    a_max = float(np.abs(A).max())
    slack = 1 + 1e-9
    require_bounded("gap", gap, 2 * a_max * slack + 1e-300, where=what)
    require_bounded("residual", res, math.sqrt(A.shape[1] + A.shape[2]) * a_max * slack + 1e-300, where=what)
    return Run(t=rec, gap=gap, residual=res, regret=reg, T_sigma=int(T_sigma))


def run_dynamics(A, method: str = "gabp", *, eta: float = 0.05, mu: float = 1.0, T_sigma: int | None = 10,
                 T: int = 1000, feedback: str = "full", noise_std: float = 0.1, x0=None, y0=None, record=None,
                 n_seeds: int | None = None, eta_schedule: str = "constant", c: float = 1.0, seed=0,
                 parallel: bool = True) -> Run:
    """Last-iterate dynamics on each game of ``A`` ((d1, d2) or (n_games, d1, d2)); with ``n_seeds`` one game
    is replayed under independent noise.  ``T_sigma=None`` takes Theorem 4.1's (or 4.3's, with
    ``eta_schedule="theorem43"``) T_sigma with constant c, rounded up.  ``record``: increasing times in
    [1, T + 1] (default all).  An eta outside Theorem 4.1's range (0, mu/(L + mu)^2) for a perturbed method
    gives a RuntimeWarning, and the run.  Jitted over runs (threads when ``parallel``).  Theorem 4.3's schedule and
    the default T_sigma use one L for all runs, the largest ||A||_2 over the games: call once per game for each
    game's own constants."""
    if not isinstance(parallel, (bool, np.bool_)):
        raise TypeError(f"parallel must be True or False; got {parallel!r}")
    (A, code, eta, mu, T_sigma, T, mode, kappa, theta, noise_std, x0, y0, rec, L) = _dyn_args(
        A, method, eta, mu, T_sigma, T, feedback, noise_std, x0, y0, record, n_seeds, eta_schedule, c)
    n_runs = A.shape[0]
    seeds = spawn_seeds(seed, n_runs)
    gap, res, reg = np.empty((n_runs, rec.size)), np.empty((n_runs, rec.size)), np.empty((n_runs, rec.size, 2))
    args = (x0, y0, code, eta, mu, T_sigma, T, mode, kappa, theta, noise_std)
    map_blocks(lambda s: K.run_dynamics(np.ascontiguousarray(A[s]), *args, seeds[s], rec, gap[s], res[s], reg[s]),
               n_runs, work=n_runs * T * A.shape[1] * A.shape[2], parallel=parallel)
    return _finish(gap, res, reg, rec, T_sigma, A, f"run_dynamics(method={method!r}, eta={eta:g}, mu={mu:g})")


def run_dynamics_numpy(A, method: str = "gabp", *, eta: float = 0.05, mu: float = 1.0, T_sigma: int | None = 10,
                       T: int = 1000, feedback: str = "full", noise_std: float = 0.1, x0=None, y0=None,
                       record=None, n_seeds: int | None = None, seed=0) -> Run:
    """Vectorised numpy reference of :func:`run_dynamics` for the paper's indexing ("ga", "apga", "gabp",
    "oga"; constant eta): all runs advance together (batched matrix-vector products, row-wise sort projection).
    Noise from numpy's generator (the same law as the kernel, not the same numbers)."""
    method = check_choice("method", method, ("ga", "apga", "gabp", "oga"))
    (A, code, eta, mu, T_sigma, T, mode, kappa, theta, noise_std, x0, y0, rec, L) = _dyn_args(
        A, method, eta, mu, T_sigma, T, feedback, noise_std, x0, y0, record, n_seeds, "constant", 1.0)
    n_runs, d1, d2 = A.shape
    check_budget("run_dynamics_numpy work", n_runs * T * d1 * d2, max_elements=MAX_WORK_NUMPY,
                 unit="multiply-adds", n_runs=n_runs, T=T, d1=d1, d2=d2)
    rng = as_generator(seed)
    x, y = np.tile(x0, (n_runs, 1)), np.tile(y0, (n_runs, 1))
    hx, hy = x.copy(), y.copy()
    s1x, s1y, sx, sy = x.copy(), y.copy(), x.copy(), y.copy()
    k, tau = 1, 0
    gap, res, reg = np.empty((n_runs, rec.size)), np.empty((n_runs, rec.size)), np.empty((n_runs, rec.size, 2))
    cum = np.zeros((n_runs, 2))
    want = {int(t): j for j, t in enumerate(rec)}
    for t in range(1, T + 2):
        gx, gy = np.einsum("rij,rj->ri", A, y), -np.einsum("rij,ri->rj", A, x)
        px = gx.max(1) - (x * gx).sum(1)
        py = gy.max(1) - (y * gy).sum(1)
        cum += np.c_[px, py]
        if t in want:
            j = want[t]
            gap[:, j], reg[:, j] = px + py, cum
            res[:, j] = [np.sqrt(K.tangent_residual_sq(gx[r], x[r]) + K.tangent_residual_sq(gy[r], y[r]))
                         for r in range(n_runs)]
        if t == T + 1:
            break
        if noise_std > 0:
            gx = gx + noise_std * rng.standard_normal(gx.shape)
            gy = gy + noise_std * rng.standard_normal(gy.shape)
        if method == "oga":
            hx, hy = project_simplex_numpy(hx + eta * gx), project_simplex_numpy(hy + eta * gy)
            x, y = project_simplex_numpy(hx + eta * gx), project_simplex_numpy(hy + eta * gy)
            continue
        m = 0.0 if method == "ga" else mu
        w = k / (k + 1.0) if method == "gabp" else 1.0
        ax, ay = w * sx + (1 - w) * s1x, w * sy + (1 - w) * s1y
        x = project_simplex_numpy(x + eta * (gx - m * (x - ax)))
        y = project_simplex_numpy(y + eta * (gy - m * (y - ay)))
        tau += 1
        if tau == T_sigma:
            k, tau, sx, sy = k + 1, 0, x.copy(), y.copy()
    return _finish(gap, res, reg, rec, T_sigma, A, f"run_dynamics_numpy(method={method!r}, eta={eta:g})")


# --------------------------------------------------------------------------- paths and perturbed equilibria

def strategy_path(A, method: str = "gabp", *, eta: float = 0.02, mu: float = 1.0, T_sigma: int = 10,
                  T: int = 1000):
    """Full-feedback strategies pi^1..pi^{T+1} of one game (paper indexing, constant eta), with the anchors:
    returns (X (T+1, d1), Y (T+1, d2), S_x, S_y) where S[t - 1] is the effective anchor used by the update
    pi^t -> pi^{t+1} (sigma^k for APGA, (k sigma^k + sigma^1)/(k + 1) for GABP; pi^t itself for GA, no
    perturbation).  A plain Python loop over the jitted projection (a reference path; small games)."""
    method = check_choice("method", method, ("ga", "apga", "gabp"))
    A = _games(A)
    if A.shape[0] != 1:
        raise ValueError(f"A must be one payoff matrix (d1, d2) here; got a stack of shape {A.shape}")
    A = A[0]
    eta = check_real("eta", eta, low=0.0, low_open=True, high=1e6)
    mu = check_real("mu", mu, low=0.0, low_open=True, high=1e6)
    T_sigma = check_int("T_sigma", T_sigma, low=1, high=MAX_T)
    T = check_size("T", T, budget=10**6)
    d1, d2 = A.shape
    check_budget("the strategy path", 2 * (T + 1) * (d1 + d2), T=T, d1=d1, d2=d2)
    X, Y = np.empty((T + 1, d1)), np.empty((T + 1, d2))
    Sx, Sy = np.empty((T, d1)), np.empty((T, d2))
    X[0], Y[0] = 1.0 / d1, 1.0 / d2
    sig_x, sig_y, k, tau = X[0].copy(), Y[0].copy(), 1, 0
    m = 0.0 if method == "ga" else mu
    for t in range(T):
        x, y = X[t], Y[t]
        w = k / (k + 1.0) if method == "gabp" else 1.0
        Sx[t] = w * sig_x + (1 - w) * X[0] if method != "ga" else x
        Sy[t] = w * sig_y + (1 - w) * Y[0] if method != "ga" else y
        K.project_simplex(x + eta * (A @ y - m * (x - Sx[t])), X[t + 1])
        K.project_simplex(y + eta * (-A.T @ x - m * (y - Sy[t])), Y[t + 1])
        tau += 1
        if tau == T_sigma:
            k, tau, sig_x, sig_y = k + 1, 0, X[t + 1].copy(), Y[t + 1].copy()
    require_bounded("strategy_path", X, 1.0 + 1e-9, method=method, eta=eta)
    return X, Y, Sx, Sy


def perturbed_equilibrium(A, anchor_x, anchor_y, mu: float = 1.0, *, tol: float = 1e-13,
                          max_iter: int = 10**6):
    """pi^{mu, s}: the unique stationary point of the mu-perturbed game with anchor s = (anchor_x, anchor_y),
    i.e. the solution of the strongly monotone variational inequality for V(pi) - mu (pi - s).  Computed by the
    forward-backward iteration pi <- Proj(pi + h (V(pi) - mu (pi - s))) with h = mu/(L + mu)^2, a contraction,
    until ||pi_{n+1} - pi_n|| <= tol; returns (x, y, iterations)."""
    A, ax, ay = _strategies(A, anchor_x, anchor_y, names=("anchor_x", "anchor_y"))
    mu = check_real("mu", mu, low=1e-8, high=1e6)
    tol = check_real("tol", tol, low=1e-16, high=1.0)
    max_iter = check_size("max_iter", max_iter, budget=10**7)
    L = float(np.linalg.norm(A, 2))
    h = mu / (L + mu) ** 2
    x, y = ax.copy(), ay.copy()
    nx, ny = np.empty_like(x), np.empty_like(y)
    for n in range(1, max_iter + 1):
        K.project_simplex(x + h * (A @ y - mu * (x - ax)), nx)
        K.project_simplex(y + h * (-A.T @ x - mu * (y - ay)), ny)
        step = math.sqrt(float(np.sum((nx - x) ** 2) + np.sum((ny - y) ** 2)))
        x, nx, y, ny = nx, x, ny, y
        if step <= tol:
            return x.copy(), y.copy(), n
    raise RuntimeError(f"perturbed_equilibrium: no convergence to tol = {tol:g} in max_iter = {max_iter} "
                       f"iterations (mu = {mu:g}, L = {L:.4g})")
