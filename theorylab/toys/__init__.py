"""Toy proxies of mostly empirical papers (issue 35): small, labelled models on which the mathematics a paper
stands on can be checked exactly and its mechanism measured.  Every claim built on them says "toy proxy": none
reproduces the papers' tables (ImageNet, LLMs, RL benchmarks).

Modules (import from them directly or from here):

- ``theorylab.toys.ptq_transform``  paper adaqtransform: a random linear layer with low-bit weight and activation
  quantisation (nearest or AdaRound-like rounding), the per-channel affine transformation (xi, eta) fitted on
  calibration data, and its fold into the layer's step and bias or merge into the next layer
- ``theorylab.toys.local_loss``  paper bp_localloss: deep linear networks on Gaussian regression with per-block
  local probe losses, exact BP gradients, the lazily refreshed BP offset scaled by alpha
- ``theorylab.toys.q_exponential``  paper qexp_policy: q-exponential / q-Gaussian densities, CDFs and Box-Muller
  samplers (q < 1 compact support, 1 < q < 3 Student-t), a Hill estimator, a 1-D two-bump bandit and policy gradient
  with Gaussian vs q-Gaussian policies
- ``theorylab.toys.temporal_decay``  paper d2po: the D2PO loss with gamma^t token weights and the DPO loss, a tabular
  token-level preference task with Bradley-Terry labels and a front- or back-loaded true reward, training by exact
  gradients
"""

from .local_loss import (LinearTask, batch_gradients, global_loss, global_minimum, init_network, linear_task,
                         population_gradients, sample_updates, train_local, update_moments)
from .temporal_decay import (PreferenceTask, d2po_loss, dpo_loss, kl_to_reference, preference_task, reward_profile,
                             tabular_loss_grad, token_weights, train_gd, train_to_convergence, true_reward)
from .ptq_transform import (MAX_BITS, ROUNDINGS, Layer, QuantLayer, absmax_step, apply_transform, channel_mse, fit_transform,
                            float_forward, fold_transform, int_range, layer_inputs, merge_into_next, mse_step,
                            quant_forward, quantize, quantize_layer, random_layer)

from .q_exponential import (
    Bandit,
    bandit_reward,
    bandit_reward_grad,
    bandit_valley,
    beta_from_scale,
    box_muller_parameter,
    escape_threshold,
    exp_q,
    hill_estimator,
    log_q,
    policy_gradient,
    policy_score,
    population_hill,
    q_gaussian_cdf,
    q_gaussian_normaliser,
    q_gaussian_pdf,
    q_gaussian_sample,
    smoothed_gradient,
    student_t_dof,
    tail_index,
)

__all__ = [
    "PreferenceTask", "d2po_loss", "dpo_loss", "kl_to_reference", "preference_task", "reward_profile",
    "tabular_loss_grad", "token_weights", "train_gd", "train_to_convergence", "true_reward",
    "LinearTask", "batch_gradients", "global_loss", "global_minimum", "init_network", "linear_task",
    "population_gradients", "sample_updates", "train_local", "update_moments",
    "MAX_BITS", "ROUNDINGS", "Layer", "QuantLayer", "absmax_step", "apply_transform", "channel_mse", "fit_transform",
    "float_forward", "fold_transform", "int_range", "layer_inputs", "merge_into_next", "mse_step", "quant_forward",
    "quantize", "quantize_layer", "random_layer", "Bandit", "bandit_reward", "bandit_reward_grad", "bandit_valley",
    "beta_from_scale", "box_muller_parameter", "escape_threshold", "exp_q", "hill_estimator", "log_q",
    "policy_gradient", "policy_score", "population_hill", "q_gaussian_cdf", "q_gaussian_normaliser",
    "q_gaussian_pdf", "q_gaussian_sample", "smoothed_gradient", "student_t_dof", "tail_index"
]
