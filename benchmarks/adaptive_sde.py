"""Benchmark: the SignSGD SDE step (Cor. 3.3, Gaussian noise) — numba kernels (blocks of paths on threads) vs vectorised numpy.

Issue #3's goal, for d = 100, 1000 paths, 1000 steps on 2 cores: the engine's step >= 5x the
vectorised numpy reference, and within 1.3x of plain C -O3 per element-step per core (issue #15).
Both references run here, in the same process: the numpy one below, and the C one of
:mod:`theorylab.benchmarks._c_reference` (libm erf, polar Box–Muller normals, one core), compiled
with the system compiler when there is one.  The C run is also a cross-check: its X_T has the
same mean and spread over paths as the engine's, within Monte-Carlo error.

Two kernels are timed: the engine itself (``em_run`` with the built-in SIGNSGD model and a
diagonal Hessian, i.e. what ``run_sde("signsgd", ...)`` runs, incl. its per-step blow-up check)
and ``signsgd_sde_final``, the same arithmetic fused into one loop.  Both draw ziggurat normals
(``core.rng``) and read erf and sqrt(1 - erf^2) from one Hermite table.
"""

import math

import numpy as np
from scipy import special

from theorylab.core import benchmark, best_time, spawn_seeds
from theorylab.core.parallel import thread_count
from theorylab.sde import _kernels as K

from theorylab.benchmarks import _c_reference


def _numpy_reference(x0, h, sig, eta, dt, n_steps, n_paths, seed):
    rng = np.random.default_rng(seed)
    x = np.tile(x0, (n_paths, 1))
    sq = math.sqrt(eta * dt)
    for _ in range(n_steps):
        s = special.erf(h * x / sig / math.sqrt(2.0))
        x += -s * dt + sq * np.sqrt(1.0 - s * s) * rng.standard_normal(x.shape)
    return x


def _engine(x0, H_row, sig, p, dt, n_steps, seeds):
    return K.em_run(K.SIGNSGD, x0, x0.size, H_row, sig, p, K.NO_TABLE, 0.0, dt, n_steps, n_steps, seeds, 1e300)


@benchmark("adaptive_sde", "signsgd_sde_step")
def signsgd_sde_step(*, quick=False):
    d, n_paths, n_steps = (20, 50, 50) if quick else (100, 1000, 1000)
    eta = dt = 1e-3
    h = np.linspace(1.0, 10.0, d)
    sig = np.ones(d)
    x0 = np.ones(d)
    H_row = np.ascontiguousarray(h[None, :])
    p = np.array([eta, 0.0, 0.0, 0.0, 0.0, 0.0])
    seeds = spawn_seeds(0, n_paths)
    K.signsgd_sde_final(x0, h, sig, eta, dt, 2, seeds)           # compile / load
    _engine(x0, H_row, sig, p, dt, 2, seeds)
    # the threads the kernels actually run on (core.parallel.map_blocks: at most numba's thread count, and
    # at least MIN_WORK_PER_THREAD element-steps each)
    threads = thread_count(n_paths, n_paths * n_steps * d)
    rep = 2 if quick else 3
    t_engine = best_time(_engine, x0, H_row, sig, p, dt, n_steps, seeds, repeat=rep)
    t_fused = best_time(K.signsgd_sde_final, x0, h, sig, eta, dt, n_steps, seeds, repeat=rep)
    t_np = best_time(_numpy_reference, x0, h, sig, eta, dt, n_steps, n_paths, 0, repeat=1 if not quick else 2)
    el = d * n_paths * n_steps
    ns_core = 1e9 * t_engine * threads / el
    ns_core_fused = 1e9 * t_fused * threads / el
    out = dict(ratio=t_np / t_engine, ratio_fused=t_np / t_fused, engine_s=t_engine, fused_s=t_fused,
               numpy_s=t_np, threads=threads, ns_elem_step_core=ns_core,
               ns_elem_step_core_fused=ns_core_fused, goal_ratio_ge_5=bool(t_np / t_engine >= 5.0),
               element_steps=el)
    out.update(_versus_c(x0, h, sig, eta, dt, n_steps, seeds, ns_core, ns_core_fused, rep))
    return out


def _versus_c(x0, h, sig, eta, dt, n_steps, seeds, ns_core, ns_core_fused, rep):
    dll, how = _c_reference.build()
    if dll is None:
        return dict(c_reference=f"not run: {how}")
    t_c = best_time(_c_reference.run, dll, x0, h, sig, eta, dt, n_steps, seeds, repeat=rep)
    ns_c = 1e9 * t_c / (x0.size * seeds.size * n_steps)
    x_c = _c_reference.run(dll, x0, h, sig, eta, dt, n_steps, seeds)
    x_nb = K.signsgd_sde_final(x0, h, sig, eta, dt, n_steps, seeds)
    n = seeds.size  # agreement of the per-coordinate means over paths, in units of their s.e.
    z = (x_c.mean(0) - x_nb.mean(0)) / np.sqrt((x_c.var(0, ddof=1) + x_nb.var(0, ddof=1)) / n)
    return dict(c_reference=how, c_s=t_c, ns_elem_step_c=ns_c, vs_c=ns_core / ns_c,
                vs_c_fused=ns_core_fused / ns_c, goal_le_1_3x_c=bool(ns_core <= 1.3 * ns_c),
                c_vs_engine_max_abs_z=float(np.abs(z).max()))
