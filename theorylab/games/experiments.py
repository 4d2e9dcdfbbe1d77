"""Experiment runners behind the gabp claims and figure (validations/gabp.py).

Each function takes its seeds and returns the measured table (or an instance); nothing here decides a
verdict.  Sweep points (:func:`fig1_point`, :func:`noisy_point`, :func:`regret_point`, :func:`thm41_point`,
:func:`lemma_b1_point`) are module-level so that :func:`theorylab.core.sweep.sweep` can cache them and send them
to another process or a cluster.  Not re-exported by :mod:`theorylab.games`: runners, not API.

Instances: random zero-sum payoff games with i.i.d. U[-1, 1] entries on simplices, uniform initial strategies;
hyperparameters of Figure 1 from the authors' repository configs (CyberAgentAILab/boosting-perturbed-ga,
conf/experiment/{full,noisy}/random_payoff/*.yaml).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from theorylab.core.seeding import child_seed

from . import matrix_games as M

D = M.DIAMETER
# Figure 1 (left), repository configs conf/experiment/{full,noisy}/random_payoff/*.yaml
FULL_CFG = {"gabp": dict(eta=0.05, mu=1.0, T_sigma=10), "apga": dict(eta=0.05, mu=1.0, T_sigma=20),
            "oga": dict(eta=0.05, mu=1.0, T_sigma=10),
            "gabp_code": dict(eta=0.05, mu=1.0, T_sigma=10), "apga_code": dict(eta=0.05, mu=1.0, T_sigma=20),
            "apga_tsigma10": dict(eta=0.05, mu=1.0, T_sigma=10)}   # APGA at GABP's T_sigma (not a repository config)
#: the dynamics behind a configuration label (labels other than a method name are variants of that method)
METHOD_OF = {"apga_tsigma10": "apga"}
NOISY_CFG = {"gabp": dict(eta=0.001, mu=1.0, T_sigma=1000), "apga": dict(eta=0.001, mu=1.0, T_sigma=2000),
             "oga": dict(eta=0.001, mu=1.0, T_sigma=1000)}


def _record(T, n=40):
    return np.unique(np.r_[np.geomspace(1, T + 1, n).astype(np.int64), T + 1])


def quiet_run(*args, **kw):
    """:func:`matrix_games.run_dynamics` without its step-size warning (Figure 1's eta = 0.05 is above
    Theorem 4.1's range: intended)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return M.run_dynamics(*args, **kw)


# --------------------------------------------------------------------------- Figure 1

def fig1_point(*, method: str, feedback: str, d: int, n_games: int, T: int, seed: int, game_seed: int) -> pd.DataFrame:
    """GAP(pi^t) at log-spaced t for ``method`` on n_games random payoff games (repository hyperparameters)."""
    A = M.random_payoff_games(d, n_games, seed=game_seed)
    cfg = (FULL_CFG if feedback == "full" else NOISY_CFG)[method]
    rec = _record(T)
    r = quiet_run(A, METHOD_OF.get(method, method), T=T, feedback=feedback, noise_std=0.1, record=rec, seed=seed,
                  **cfg)
    return pd.DataFrame({"method": method, "feedback": feedback, "game": np.repeat(np.arange(n_games), rec.size),
                         "t": np.tile(rec, n_games), "gap": r.gap.ravel(), "residual": r.residual.ravel()})


# --------------------------------------------------------------------------- exact ingredients

def random_point(rng, d, sparse):
    """A point of the simplex: a projection of a Gaussian vector (sparse: many exact zeros) or interior."""
    v = rng.standard_normal(d) * (3.0 if sparse else 0.1) + (0.0 if sparse else 1.0 / d)
    return M.project_simplex(v) if sparse else np.abs(v) / np.abs(v).sum()


def residual_reference(g, x):
    """dist(g, N_simplex(x)) by scipy: minimise the convex 1-d function of lambda (bounded Brent)."""
    from scipy.optimize import minimize_scalar

    supp = x > 0

    def f(lam):
        return np.sum((g[supp] - lam) ** 2) + np.sum(np.maximum(g[~supp] - lam, 0) ** 2)

    lo, hi = g.min() - 1, g.max() + 1
    res = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13})
    return math.sqrt(max(res.fun, 0.0))


# --------------------------------------------------------------------------- constants of the theorems

def thm41_games(n_games, seed, d=10):
    """The d x d games of the Theorem 4.1 / Lemma B.1 / Lemma 2.2 claims."""
    return M.random_payoff_games(d, n_games, seed=child_seed(seed, "thm41 games") % 2**32)


def thm41_point(*, game: int, n_games: int, T: int, seed: int, game_seed: int) -> pd.DataFrame:
    A = thm41_games(n_games, game_seed)[game]
    L, mu = M.lipschitz_constant(A), 1.0
    p = M.theorem41_parameters(L, mu, T)
    r = M.run_dynamics(A, "gabp", eta=p["eta"], mu=mu, T_sigma=p["T_sigma"], T=T)
    t = r.t[1:].astype(float)
    bg, br = M.theorem41_bound(t, L=L, mu=mu, T=T, D=D)
    return pd.DataFrame({"game": game, "t": t, "gap": r.gap[0, 1:], "residual": r.residual[0, 1:],
                         "gap_bound": bg, "residual_bound": br, "L": L, "eta": p["eta"],
                         "T_sigma_real": p["T_sigma_real"], "T_sigma": p["T_sigma"]})


def lemma_b1_point(*, game: int, n_games: int, T: int, T_sigma: int, seed: int, game_seed: int) -> pd.DataFrame:
    """Per period k of one game: max over t in the period (after its first step) of
    ||pi^{mu,s_k} - pi^t||^2 / ((1 + eta mu)^{-(t - (k-1)T_sigma - 1)} ||pi^{mu,s_k} - sigma^k||^2)."""
    A = thm41_games(n_games, game_seed)[game]
    L, mu = M.lipschitz_constant(A), 1.0
    eta = mu / (2 * (L + mu) ** 2)
    X, Y, Sx, Sy = M.strategy_path(A, "gabp", eta=eta, mu=mu, T_sigma=T_sigma, T=T)
    rows = []
    for k in range(1, T // T_sigma + 1):
        t0 = (k - 1) * T_sigma + 1                        # pi^{t0} = sigma^k
        px, py, _ = M.perturbed_equilibrium(A, Sx[t0 - 1], Sy[t0 - 1], mu)
        t = np.arange(t0 + 1, min(t0 + T_sigma, T + 1) + 1)
        lhs = np.sum((X[t - 1] - px) ** 2, 1) + np.sum((Y[t - 1] - py) ** 2, 1)
        r0 = np.sum((X[t0 - 1] - px) ** 2) + np.sum((Y[t0 - 1] - py) ** 2)
        rhs = (1 + eta * mu) ** (-(t - (k - 1) * T_sigma - 1)) * r0
        rows.append(dict(game=game, k=k, max_ratio=float(np.max(lhs / rhs)), dist0_sq=r0, eta=eta, L=L))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- noisy feedback

def noisy_point(*, T: int, n_games: int, d: int, seed: int, game_seed: int) -> pd.DataFrame:
    """GAP(pi^{T+1}) of GABP under Theorem 4.3's schedule, each game run alone with its own L = ||A||_2 and its
    own noise stream.  (One batched call would give every game the schedule of the batch's largest ||A||_2: a
    factor shared by all games, so the games would not be independent units of the bootstrap, and the schedule
    would change with n_games.)"""
    A = M.random_payoff_games(d, n_games, seed=game_seed)
    gap, T_sigma = np.empty(n_games), 0
    for g in range(n_games):
        r = M.run_dynamics(A[g], "gabp", mu=1.0, T_sigma=None, T=T, feedback="noisy", noise_std=0.1,
                           eta_schedule="theorem43", record=[T + 1], seed=child_seed(seed, "game", g))
        gap[g], T_sigma = r.gap[0, 0], r.T_sigma
    return pd.DataFrame({"T": T, "game": np.arange(n_games), "gap": gap, "T_sigma": T_sigma,
                         "L": [M.lipschitz_constant(a) for a in A]})


# --------------------------------------------------------------------------- dynamic regret

def regret_point(*, T: int, game: int, n_games: int, d: int, seed: int, game_seed: int) -> pd.DataFrame:
    A = M.random_payoff_games(d, n_games, seed=game_seed)[game]
    L = M.lipschitz_constant(A)
    mu = L                                       # eta mu = 1/8: T_sigma ~ 26 ln(3(T+1)), many anchors by T = 1e5
    p = M.theorem41_parameters(L, mu, T)
    r = M.run_dynamics(A, "gabp", eta=p["eta"], mu=mu, T_sigma=p["T_sigma"], T=T, record=[1, T])
    # [derived] sum_{t<=T} GAP(pi^t) <= GAP(pi^1) + B D^2 sum_{t=2}^{T} 1/(t-1) (Theorem 4.1 summed)
    harmonic = float(np.sum(1.0 / np.arange(1, T)))
    bound = r.gap[0, 0] + p["B_gap"] * D**2 * harmonic
    return pd.DataFrame({"T": [T], "game": [game], "dynreg_x": [r.regret[0, 1, 0]], "dynreg_y": [r.regret[0, 1, 1]],
                         "bound": [bound], "T_sigma": [p["T_sigma"]]})
