"""Benchmarks for scaling_ode: jitted SGD kernel vs vectorised numpy, ODE integration time vs L, Fig. 1 wall time."""

from __future__ import annotations

import time

import numba
import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.scaling import _kernels as kr
from theorylab.scaling import init_weights, integrate_ode, spectrum
from theorylab.scaling.model import sgd_reference_numpy


def _paths(N, K, M, P, L=8, beta=1.0):
    lam = spectrum(N, L, beta)
    J0, B = np.empty((P, K, N)), np.empty((P, M, N))
    for p in range(P):
        J0[p], B[p] = init_weights(N, K, M, seed=p)
    return J0, B, lam


def _jit_time(J0, B, lam, n_steps, threads):
    P, _, N = J0.shape
    seeds = np.arange(P, dtype=np.int64)
    lamP = np.tile(lam, (P, 1))
    rec = np.array([n_steps], dtype=np.int64)
    blowup = np.full(P, np.inf)  # no divergence guard in the timing (erf eps_g is bounded anyway)
    kr.sgd_paths(J0, B, lamP, N, 0.1, True, np.array([1], dtype=np.int64), seeds, blowup)  # compile / load cache
    old = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        return best_time(kr.sgd_paths, J0, B, lamP, N, 0.1, True, rec, seeds, blowup, repeat=2)
    finally:
        numba.set_num_threads(old)


@benchmark("scaling_ode", "sgd_kernel")
def sgd_kernel(*, quick=False):
    """Steps/s of the jitted erf SGD kernel vs the vectorised numpy reference (same N, K, M, paths).

    ``ratio``: P = 4 paths, jitted kernel on all threads (prange over paths) vs numpy batched
    over the same 4 paths.  Also the single-thread ratios for P = 1 and P = 4.
    """
    N, K, M = (256, 2, 2) if quick else (1024, 2, 2)
    n_steps = 2000 if quick else 20000
    n_ref = max(n_steps // 10, 100)
    out = {"N": N, "K": K, "M": M, "threads": numba.get_num_threads()}
    for P in (1, 4):
        J0, B, lam = _paths(N, K, M, P)
        t_np = best_time(sgd_reference_numpy, J0, B, lam, eta=0.1, erf=True, n_steps=n_ref, repeat=2) * n_steps / n_ref
        t_1 = _jit_time(J0, B, lam, n_steps, 1)
        out[f"numpy_steps_per_s_P{P}"] = P * n_steps / t_np
        out[f"jit_1thread_steps_per_s_P{P}"] = P * n_steps / t_1
        out[f"ratio_1thread_P{P}"] = t_np / t_1
        if P > 1:
            t_all = _jit_time(J0, B, lam, n_steps, numba.get_num_threads())
            out[f"ratio_all_threads_P{P}"] = t_np / t_all
            out["ratio"] = t_np / t_all
    return out


@benchmark("scaling_ode", "ode_vs_L")
def ode_vs_L(*, quick=False):
    Ls = (1, 8) if quick else (1, 8, 64)
    alphas = np.geomspace(1, 100 if quick else 1000, 20)
    integrate_ode(L=1, alphas=alphas[:2])
    out = {}
    for L in Ls:
        t0 = time.perf_counter()
        integrate_ode(L=L, alphas=alphas)
        t_rk4 = time.perf_counter() - t0
        out[f"rk4_s_L{L}"] = t_rk4
    t0 = time.perf_counter()
    integrate_ode(L=Ls[-1], alphas=alphas, method="solve_ivp")
    out["ratio"] = (time.perf_counter() - t0) / out[f"rk4_s_L{Ls[-1]}"]  # solve_ivp(DOP853) / jitted RK4
    return out


@benchmark("scaling_ode", "fig1_wall_time")
def fig1_wall_time(*, quick=False):
    """Wall time of the paper's Fig. 1 (ODE + SGD for every L) at full scale; ``ratio`` = 120 s / wall time.

    The goal is ratio >= 1 (under 2 minutes on 2 cores).  quick: the ci-scale figure.
    """
    from theorylab.core import discover

    fig = discover().figures["scaling_ode:fig1_erf_vs_L"]
    params = fig.scales["ci" if quick else "full"]
    fig.func(seed=0, **fig.scales["ci"])  # warm-up (same kernels): numba cache load / compilation excluded
    t0 = time.perf_counter()
    fig.func(seed=0, **params)
    wall = time.perf_counter() - t0
    return {"ratio": 120.0 / wall, "wall_s": wall, "threads": numba.get_num_threads(), **{k: str(v) for k, v in params.items()}}
