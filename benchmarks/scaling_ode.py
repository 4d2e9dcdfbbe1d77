"""Benchmarks for scaling_ode: jitted SGD kernel vs vectorised numpy, ODE integration time vs L."""

from __future__ import annotations

import time

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.scaling import _kernels as kr
from theorylab.scaling import init_weights, integrate_ode, spectrum
from theorylab.scaling.model import sgd_reference_numpy


@benchmark("scaling_ode", "sgd_kernel")
def sgd_kernel(*, quick=False):
    N, K, M, P = (256, 2, 2, 2) if quick else (1024, 2, 2, 4)
    n_steps = 2000 if quick else 20000
    lam = spectrum(N, 8, 1.0)
    J0 = np.empty((P, K, N))
    B = np.empty((P, M, N))
    for p in range(P):
        J0[p], B[p] = init_weights(N, K, M, seed=p)
    rec = np.array([n_steps], dtype=np.int64)
    seeds = np.arange(P, dtype=np.int64)
    lamP = np.tile(lam, (P, 1))
    kr.sgd_paths(J0, B, lamP, N, 0.1, True, np.array([1], dtype=np.int64), seeds)  # compile
    t_jit = best_time(kr.sgd_paths, J0, B, lamP, N, 0.1, True, rec, seeds, repeat=2)
    n_ref = max(n_steps // 10, 100)
    t_np = best_time(sgd_reference_numpy, J0, B, lam, eta=0.1, erf=True, n_steps=n_ref, repeat=2) * n_steps / n_ref
    return {"ratio": t_np / t_jit, "jit_steps_per_s": P * n_steps / t_jit, "numpy_steps_per_s": P * n_steps / t_np,
            "N": N, "paths": P}


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
