"""Distributed composite problems F(x) = sum_i f_i(x) + l1 |x|_1 split over n workers (paper async_bundle,
Sec. 2: a smooth strongly convex sum of worker losses plus a non-smooth regulariser).

Worker i holds the samples S_i of an l2-regularised logistic regression on N samples:
f_i(x) = (1/N) sum_{s in S_i} log(1 + exp(-y_s a_s^T x)) + (l2 / (2 n)) |x|^2, so sum_i f_i is the usual
regularised empirical loss; grad f_i is Lipschitz with constant |A_i|_2^2 / (4 N) + l2 / n.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.core import (as_generator, check_array, check_budget, check_int, check_real, require_finite)

__all__ = ["LogisticProblem", "logistic_problem", "worker_value_grad", "objective", "worker_smoothness",
           "reference_optimum"]


@dataclass(frozen=True)
class LogisticProblem:
    """Samples A (N, d), labels y in {-1, +1}, worker of each sample ``owner`` (N,) in 0..n-1, l2, l1 >= 0."""

    A: np.ndarray
    y: np.ndarray
    owner: np.ndarray
    l2: float
    l1: float

    def __post_init__(self):
        A = check_array("A", self.A, ndim=2)
        if A.shape[0] < 2 or A.shape[1] < 1:
            raise ValueError(f"A must have shape (N, d) with N >= 2, d >= 1; got {A.shape}")
        y = check_array("y", self.y, shape=(A.shape[0],))
        if not np.all(np.abs(y) == 1):
            raise ValueError("y must hold labels -1 or +1")
        owner = np.asarray(self.owner)
        if owner.shape != (A.shape[0],) or owner.dtype.kind not in "iu":
            raise ValueError(f"owner must be an integer array of shape ({A.shape[0]},); got {owner.shape} {owner.dtype}")
        n = int(owner.max()) + 1
        if owner.min() < 0 or np.unique(owner).size != n:
            raise ValueError("owner must label the workers 0..n-1, each with at least one sample")
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "owner", owner.astype(np.int64))
        object.__setattr__(self, "l2", check_real("l2", self.l2, low=0.0, low_open=True))
        object.__setattr__(self, "l1", check_real("l1", self.l1, low=0.0))

    @property
    def n(self) -> int:
        return int(self.owner.max()) + 1

    @property
    def d(self) -> int:
        return self.A.shape[1]

    @property
    def N(self) -> int:
        return self.A.shape[0]


def logistic_problem(N: int = 1000, d: int = 20, n_workers: int = 9, *, l2: float = 1e-2, l1: float = 1e-3,
                     seed=0) -> LogisticProblem:
    """Gaussian features a_s ~ N(0, I_d / d) scaled by 3, labels y_s = sign(a_s^T w + 0.5 eps_s) (w ~ N(0, I)),
    samples dealt to workers in turn (worker s mod n)."""
    N = check_int("N", N, low=2, high=10**6)
    d = check_int("d", d, low=1, high=10**4)
    n_workers = check_int("n_workers", n_workers, low=1, high=min(N, 1000))
    check_budget("the sample matrix", N * d, N=N, d=d)
    rng = as_generator(seed)
    A = 3.0 * rng.standard_normal((N, d)) / np.sqrt(d)
    w = rng.standard_normal(d)
    y = np.where(A @ w / np.sqrt(d) + 0.5 * rng.standard_normal(N) >= 0, 1.0, -1.0)
    return LogisticProblem(A, y, np.arange(N) % n_workers, l2, l1)


def _check_problem(problem):
    if not isinstance(problem, LogisticProblem):
        raise TypeError(f"problem must be a LogisticProblem; got {type(problem).__name__}")
    return problem


def worker_value_grad(problem: LogisticProblem, i: int, x) -> tuple[float, np.ndarray]:
    """(f_i(x), grad f_i(x)) of worker i (module docstring)."""
    P = _check_problem(problem)
    i = check_int("i", i, low=0, high=P.n - 1)
    x = check_array("x", x, shape=(P.d,))
    sel = P.owner == i
    A, y = P.A[sel], P.y[sel]
    m = -y * (A @ x)
    f = np.logaddexp(0.0, m).sum() / P.N + 0.5 * P.l2 / P.n * x @ x
    g = A.T @ (-y * 0.5 * (1 + np.tanh(0.5 * m))) / P.N + P.l2 / P.n * x
    return float(f), g


def objective(problem: LogisticProblem, x) -> float:
    """F(x) = sum_i f_i(x) + l1 |x|_1."""
    P = _check_problem(problem)
    x = check_array("x", x, shape=(P.d,))
    f = np.logaddexp(0.0, -P.y * (P.A @ x)).sum() / P.N + 0.5 * P.l2 * x @ x + P.l1 * np.abs(x).sum()
    return float(require_finite("F(x)", f))


def worker_smoothness(problem: LogisticProblem) -> np.ndarray:
    """The Lipschitz constants |A_i|_2^2 / (4 N) + l2 / n of grad f_i, one per worker."""
    P = _check_problem(problem)
    return np.array([np.linalg.norm(P.A[P.owner == i], 2) ** 2 / (4 * P.N) + P.l2 / P.n for i in range(P.n)])


def reference_optimum(problem: LogisticProblem, *, tol: float = 1e-10, max_iter: int = 200_000):
    """(x*, F*) by FISTA with gradient restarts (step 1 / L_F, L_F = |A|_2^2 / (4 N) + l2) until the gradient mapping
    |x - prox(x - grad(x) / L_F)| is below ``tol`` (then F(x) - F* <= L_F |.| |x - x*| ~ 1e-19 here); raises if it
    does not get there within ``max_iter`` iterations."""
    P = _check_problem(problem)
    tol = check_real("tol", tol, low=0.0, low_open=True)
    max_iter = check_int("max_iter", max_iter, low=1, high=10**7)
    Lf = float(np.linalg.norm(P.A, 2) ** 2 / (4 * P.N) + P.l2)

    def grad(x):
        m = -P.y * (P.A @ x)
        return P.A.T @ (-P.y * 0.5 * (1 + np.tanh(0.5 * m))) / P.N + P.l2 * x

    def prox(v):
        return np.sign(v) * np.maximum(np.abs(v) - P.l1 / Lf, 0.0)

    x = np.zeros(P.d)
    z, t = x.copy(), 1.0
    for k in range(max_iter):
        if k % 20 == 0 and np.linalg.norm(x - prox(x - grad(x) / Lf)) < tol:
            return x, objective(P, x)
        x_new = prox(z - grad(z) / Lf)
        if (z - x_new) @ (x_new - x) > 0:    # gradient restart (O'Donoghue-Candes)
            z, t = x.copy(), 1.0
            continue
        t_new = 0.5 * (1 + np.sqrt(1 + 4 * t * t))
        z = x_new + (t - 1) / t_new * (x_new - x)
        x, t = x_new, t_new
    raise RuntimeError(f"reference_optimum did not reach tol = {tol} in max_iter = {max_iter} iterations")
