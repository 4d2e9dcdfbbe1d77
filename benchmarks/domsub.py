"""domsub benchmark: the exact Hessian of the two-layer tanh MLP in closed form (Gauss-Newton and residual parts
assembled block by block from the layers' factors, never forming the Jacobian; theorylab.krylov.tanh_mlp_hessian) against the Hessian by
central differences of the exact gradient (2 P gradient evaluations; theorylab.krylov.hessian_fd), on the full-scale
network of the checks (n = 500, dim 10, 5 classes, width 16: P = 261), same process, one BLAS thread.
ratio = finite-difference time / closed-form time."""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.core.parallel import blas_threads
from theorylab.finite_sum import gaussian_mixture
from theorylab.krylov import dominant as D


@benchmark("domsub", "exact_hessian")
def bench_exact_hessian(*, quick=False):
    """quick: width 8 (P = 133) instead of 16."""
    p = D.tanh_mlp(gaussian_mixture(500, 10, 5, separation=3.0, seed=0), width=8 if quick else 16)
    theta = D.tanh_mlp_init(p, seed=1)
    with blas_threads(1):
        t_exact = best_time(D.tanh_mlp_hessian, p, theta, repeat=5)
        t_fd = best_time(D.hessian_fd, p, theta, repeat=1)
        H, H_fd = D.tanh_mlp_hessian(p, theta), D.hessian_fd(p, theta)
    return {"ratio": t_fd / t_exact, "fd_s": t_fd, "exact_s": t_exact, "n_params": p.n_params,
            "max_abs_diff_over_max": float(np.abs(H - H_fd).max() / np.abs(H).max())}
