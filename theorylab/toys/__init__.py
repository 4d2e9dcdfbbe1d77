"""theorylab.toys -- small, labelled toy proxies of mostly empirical papers (one module per paper).

A toy here checks the mathematics a paper stands on exactly and its mechanism on an instance where the effect
is measurable; it is never a reproduction of the paper's tables (every claim says "toy proxy").

* :mod:`theorylab.toys.temporal_decay` -- D2PO (Shao et al., ICLR 2025): the gamma^t token-weighted DPO loss
  and a tabular token-level preference task trained by exact full-batch gradients.
"""

from .temporal_decay import (
    PreferenceTask,
    dpo_loss,
    d2po_loss,
    kl_to_reference,
    preference_task,
    reward_profile,
    tabular_loss_grad,
    token_weights,
    train_gd,
    train_to_convergence,
    true_reward,
)

__all__ = [
    "PreferenceTask",
    "dpo_loss",
    "d2po_loss",
    "kl_to_reference",
    "preference_task",
    "reward_profile",
    "tabular_loss_grad",
    "token_weights",
    "train_gd",
    "train_to_convergence",
    "true_reward",
]
