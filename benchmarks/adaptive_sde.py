"""Benchmark: the SignSGD SDE step (Cor. 3.3, Gaussian noise) — numba prange kernel vs vectorised numpy."""

import math

import numpy as np
from scipy import special

from theorylab.core import benchmark, best_time, spawn_seeds
from theorylab.sde import _kernels as K


def _numpy_reference(x0, h, sig, eta, dt, n_steps, n_paths, seed):
    rng = np.random.default_rng(seed)
    x = np.tile(x0, (n_paths, 1))
    sq = math.sqrt(eta * dt)
    for _ in range(n_steps):
        s = special.erf(h * x / sig / math.sqrt(2.0))
        x += -s * dt + sq * np.sqrt(1.0 - s * s) * rng.standard_normal(x.shape)
    return x


@benchmark("adaptive_sde", "signsgd_sde_step")
def signsgd_sde_step(*, quick=False):
    d, n_paths, n_steps = (20, 50, 50) if quick else (100, 1000, 1000)
    h = np.linspace(1.0, 10.0, d)
    sig = np.ones(d)
    x0 = np.ones(d)
    seeds = spawn_seeds(0, n_paths)
    K.signsgd_sde_final(x0, h, sig, 1e-3, 1e-3, 2, seeds)           # compile / load
    t_nb = best_time(K.signsgd_sde_final, x0, h, sig, 1e-3, 1e-3, n_steps, seeds, repeat=2)
    t_np = best_time(_numpy_reference, x0, h, sig, 1e-3, 1e-3, n_steps, n_paths, 0, repeat=1 if not quick else 2)
    el = d * n_paths * n_steps
    return dict(ratio=t_np / t_nb, numba_s=t_nb, numpy_s=t_np, ns_per_element_step=1e9 * t_nb / el,
                element_steps=el)
