"""Event-driven simulation of the asynchronous server-worker loop: the asynchronous bundle method's server
(paper async_bundle, Sec. 3, Algorithm 1; the authors' ParameterServerABM) and a delay-adaptive PIAG server
(proximal incremental aggregated gradient; Vanli, Gurbuzbalaban, Ozdaglar 2018; delay-adaptive step in the
spirit of Wu et al. 2022), on the same workers and the same delays.

Loop (deterministic for a seed): every worker i draws its delays (ticks >= 1) from its own stream
``child_seed(seed, "delays", i)``.  At tick 0 all workers evaluate at x0; the server waits for these n first
replies (a synchronised start at tick max_i D_i,0), then serves replies one at a time in the order (tick, worker):
on a reply (f_i(z), grad f_i(z)) of worker i computed at its query z, the server updates and sends its new point
to worker i only, which replies D ticks later.  Server work takes no simulated time; time is in ticks.

Bundle server (one update per reply): insert the cut into worker i's window (FIFO, size m); smoothness estimate
L_i = |g_new - g_prev| / |z_new - z_prev| once the window has held >= 3 cuts (that count stops at m, so for
m <= 2 L_i keeps its initial value; skipped when z_new = z_prev), as in the authors' code; L = factor sum_i L_i
(factor 2 for the first 5 updates, then ``scale``); zbar = sum_i L_i z_i / sum_i L_i; x+ = the master solution
(theorylab.distributed.bundle) to duality gap ``delta``.  No delay bound is used.

PIAG server: keeps the latest gradient of each worker; x+ = prox_{gamma l1}(x - gamma sum_i g_i) with
gamma_k = h / (L_F (tau_k + 1)), L_F = sum_i L_i (the workers' smoothness bounds) and tau_k the staleness (in
server updates) of the oldest gradient in the sum.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from theorylab.core.validate import check_record
from theorylab.core import check_array, check_budget, check_choice, check_int, check_real, child_seed, require_finite
from theorylab.distributed import bundle as B
from theorylab.distributed import problems as PR
from theorylab.distributed.delays import DELAY_LAWS, check_delays, draw_delays

__all__ = ["Trace", "run_bundle", "run_piag", "time_to_accuracy", "METHODS"]

METHODS = ("bundle", "piag")


@dataclass(frozen=True)
class Trace:
    """One run: ticks (updates + 1,) the tick of each server update (the first: the synchronised start); values
    F(x_k) after it; mean_delay_used the mean of the delays drawn; unconverged the number of master solves stopped
    by the iteration cap before gap <= delta and dual_iterations their total iterations (bundle; 0 for PIAG)."""

    ticks: np.ndarray
    values: np.ndarray
    mean_delay_used: float
    unconverged: int
    updates: int
    dual_iterations: int = 0

    def __post_init__(self):
        check_record(self)
        if self.ticks.shape != self.values.shape or self.ticks.ndim != 1 or self.ticks.size != self.updates + 1:
            raise ValueError(f"Trace: ticks and values must both have shape (updates + 1,); got {self.ticks.shape}, "
                             f"{self.values.shape}, updates = {self.updates}")


def _delays(problem, law, mean_delay, horizon, seed, delays):
    if delays is not None:
        D = check_delays("delays", delays).reshape(-1)
        if D.size < problem.n * horizon:
            raise ValueError(f"delays must hold n * horizon = {problem.n * horizon} values; got {D.size}")
        return D[:problem.n * horizon].reshape(problem.n, horizon)
    return np.stack([draw_delays(law, mean_delay, horizon, seed=child_seed(seed, "delays", i))
                     for i in range(problem.n)])


def _loop(problem, server, law, mean_delay, horizon, seed, delays):
    """The event loop shared by both servers (module docstring)."""
    D = _delays(problem, law, mean_delay, horizon, seed, delays)
    n, x0 = problem.n, np.zeros(problem.d)
    used = np.zeros(n, dtype=np.int64)
    replies = [PR.worker_value_grad(problem, i, x0) for i in range(n)]
    start = int(D[:, 0].max())
    used[:] = 1
    x = server.start(x0, replies)
    queue = []
    for i in range(n):
        heapq.heappush(queue, (start + int(D[i, 1 % horizon]), i, x))
        used[i] = 2
    ticks, values = [start], [PR.objective(problem, x)]
    while queue:
        tick, i, z = heapq.heappop(queue)
        if tick > horizon:
            break
        f, g = PR.worker_value_grad(problem, i, z)
        x = server.receive(i, z, f, g)
        ticks.append(tick)
        values.append(PR.objective(problem, x))
        heapq.heappush(queue, (tick + int(D[i, used[i] % horizon]), i, x))
        used[i] += 1
    drawn = np.concatenate([D[i, :min(used[i], horizon)] for i in range(n)])
    return Trace(ticks=np.array(ticks, dtype=np.int64), values=require_finite("F(x_k)", np.array(values)),
                 mean_delay_used=float(drawn.mean()), unconverged=int(getattr(server, "unconverged", 0)),
                 updates=len(ticks) - 1, dual_iterations=int(getattr(server, "iterations", 0)))


class _BundleServer:
    def __init__(self, problem, m, delta, scale, L_init, max_iter):
        self.P, self.m, self.delta, self.scale, self.max_iter = problem, m, delta, scale, max_iter
        self.L_i = np.array(L_init, dtype=float)
        self.unconverged, self.k, self.iterations = 0, 0, 0

    def start(self, x0, replies):
        n = self.P.n
        self.G = [[g] for _, g in replies]
        self.a = [[f - g @ x0] for f, g in replies]
        self.held = np.ones(n, dtype=np.int64)
        self.z = [x0.copy() for _ in range(n)]
        self.g_prev = [g for _, g in replies]
        self.lam = [[1.0] for _ in range(n)]
        return self._update()

    def receive(self, i, z, f, g):
        self.G[i].append(g)
        self.a[i].append(f - g @ z)
        self.lam[i].append(0.0)                       # warm start: the new cut enters with weight 0
        if len(self.G[i]) > self.m:
            self.G[i].pop(0)
            self.a[i].pop(0)
            self.lam[i].pop(0)
            s = sum(self.lam[i])
            self.lam[i] = [w / s for w in self.lam[i]] if s > 0 else [1.0 / self.m] * self.m
        self.held[i] = min(self.held[i] + 1, self.m)
        dz = np.linalg.norm(z - self.z[i])
        if self.held[i] >= 3 and dz > 0:
            self.L_i[i] = np.linalg.norm(g - self.g_prev[i]) / dz
        self.z[i], self.g_prev[i] = z.copy(), g
        return self._update()

    def _update(self):
        self.k += 1
        factor = 2.0 if self.k <= 5 else self.scale
        Lsum = float(self.L_i.sum())
        zbar = sum(Li * zi for Li, zi in zip(self.L_i, self.z)) / Lsum
        cuts = B.Cuts(np.vstack([np.array(g) for g in self.G]), np.concatenate([np.array(a) for a in self.a]),
                      np.array([len(g) for g in self.G]))
        sol = B.solve_master(cuts, zbar, factor * Lsum, self.P.l1, delta=self.delta, max_iter=self.max_iter,
                             lam0=np.concatenate([np.array(w) for w in self.lam]))
        self.unconverged += int(not sol.converged)
        self.iterations += sol.iterations
        off = cuts.offsets
        self.lam = [list(sol.lam[off[j]:off[j + 1]]) for j in range(len(self.G))]
        return sol.x


class _PiagServer:
    def __init__(self, problem, h):
        self.P, self.h = problem, h
        self.L_F = float(PR.worker_smoothness(problem).sum())

    def start(self, x0, replies):
        self.g = [g for _, g in replies]
        self.issued = np.zeros(self.P.n, dtype=np.int64)     # update index at which each gradient's point was sent
        self.k, self.x = 0, x0.copy()
        self.sent = {}
        return self._step()

    def receive(self, i, z, f, g):
        self.g[i] = g
        self.issued[i] = self.sent[i]
        return self._step(i)

    def _step(self, i=None):
        tau = int(self.k - self.issued.min())
        gamma = self.h / (self.L_F * (tau + 1))
        v = self.x - gamma * np.sum(self.g, axis=0)
        self.x = np.sign(v) * np.maximum(np.abs(v) - gamma * self.P.l1, 0.0)
        self.k += 1
        for j in (range(self.P.n) if i is None else (i,)):
            self.sent[j] = self.k
        return self.x


def _check_run(problem, law, mean_delay, horizon):
    if not isinstance(problem, PR.LogisticProblem):
        raise TypeError(f"problem must be a LogisticProblem; got {type(problem).__name__}")
    law = check_choice("law", law, DELAY_LAWS)
    mean_delay = check_real("mean_delay", mean_delay, low=1.0, high=1e6)
    horizon = check_int("horizon", horizon, low=2, high=10**6)
    check_budget("the simulated replies (n x horizon)", problem.n * horizon * problem.N, n=problem.n, horizon=horizon)
    return law, mean_delay, horizon


def run_bundle(problem, *, m: int = 10, law: str = "geometric", mean_delay: float = 4.0, horizon: int = 200,
               delta: float = 1e-7, scale: float = 1.0, L_init=None, max_iter: int = B.MAX_DUAL_ITER,
               delays=None, seed=0) -> Trace:
    """The asynchronous bundle method on ``problem`` for ``horizon`` ticks (module docstring).  ``m``: bundle
    size (cuts per worker, >= 1); ``L_init``: initial smoothness estimates (default: the workers' bounds
    worker_smoothness(problem)); ``delays``: optional (n * horizon) integer delays in ticks instead of ``law``."""
    law, mean_delay, horizon = _check_run(problem, law, mean_delay, horizon)
    m = check_int("m", m, low=1, high=1000)
    delta = check_real("delta", delta, low=0.0, low_open=True)
    scale = check_real("scale", scale, low=0.0, low_open=True, high=1e6)
    max_iter = check_int("max_iter", max_iter, low=1, high=10**6)
    L0 = PR.worker_smoothness(problem) if L_init is None else check_array("L_init", L_init, shape=(problem.n,))
    if L0.min() <= 0:
        raise ValueError(f"L_init must be > 0 for every worker; got min {L0.min()!r}")
    server = _BundleServer(problem, m, delta, scale, L0, max_iter)
    return _loop(problem, server, law, mean_delay, horizon, seed, delays)


def run_piag(problem, *, h: float = 1.0, law: str = "geometric", mean_delay: float = 4.0, horizon: int = 200,
             delays=None, seed=0) -> Trace:
    """Delay-adaptive PIAG on ``problem`` for ``horizon`` ticks, step gamma_k = h / (L_F (tau_k + 1)) (module
    docstring); same loop and delays as :func:`run_bundle` for the same seed."""
    law, mean_delay, horizon = _check_run(problem, law, mean_delay, horizon)
    h = check_real("h", h, low=0.0, low_open=True, high=2.0)
    return _loop(problem, _PiagServer(problem, h), law, mean_delay, horizon, seed, delays)


def time_to_accuracy(trace: Trace, f_star: float, eps: float) -> tuple[float, bool]:
    """(tick, reached): the first tick at which F(x_k) - F* <= eps and stays so for the rest of the run, and
    True; or, if the run ends above eps, its last tick (a censored time: a lower bound) and False."""
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a Trace; got {type(trace).__name__}")
    f_star = check_real("f_star", f_star)
    eps = check_real("eps", eps, low=0.0, low_open=True)
    bad = np.nonzero(trace.values - f_star > eps)[0]
    if bad.size == 0:
        return float(trace.ticks[0]), True
    if bad[-1] == trace.values.size - 1:
        return float(trace.ticks[-1]), False
    return float(trace.ticks[bad[-1] + 1]), True
