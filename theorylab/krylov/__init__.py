"""Low-dimensional structure inside optimisation (issue 33): the dominant Hessian subspace that SGD's gradients
align with (paper domsub), and the directionality of optimisation trajectories (paper trajmap).

Modules (import from them directly or from here):

- ``theorylab.krylov.dominant``      the exact quadratic toy with its closed-form alignment, a two-layer tanh MLP
  with its exact Hessian, top-k eigenspaces, Dom-SGD / Bulk-SGD projections and the switch experiment
- ``theorylab.krylov.trajectories``  heavy-ball trajectories on quadratics and their exact complex-root form,
  consecutive-update cosines, sign changes, the ergodic phase average, trajectory maps (also of a small MLP)
"""

from .dominant import (METHODS, TanhMLP, alignment, hessian_fd, project, tanh_mlp, tanh_mlp_hessian, tanh_mlp_init,
                       tanh_mlp_loss_grad, toy_alignment, toy_run, toy_stationary_sd, top_eigenspace, train_switch)
from .trajectories import (consecutive_cosines, ergodic_cosine_mean, heavy_ball, heavy_ball_exact_updates,
                           mlp_trajectory, root_angles, sign_changes, trajectory_map)

__all__ = ["METHODS", "TanhMLP", "alignment", "hessian_fd", "project", "tanh_mlp", "tanh_mlp_hessian", "tanh_mlp_init",
           "tanh_mlp_loss_grad", "toy_alignment", "toy_run", "toy_stationary_sd", "top_eigenspace", "train_switch",
           "consecutive_cosines", "ergodic_cosine_mean", "heavy_ball", "heavy_ball_exact_updates", "root_angles",
           "sign_changes", "trajectory_map", "mlp_trajectory"]
