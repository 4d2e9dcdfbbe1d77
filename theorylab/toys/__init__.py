"""theorylab.toys: small, labelled toy proxies of mostly empirical papers (issue "toy_proxies").

Each module checks the mathematics a paper stands on exactly and its mechanism on a toy where the effect is
measurable; every ledger row of these papers says "toy proxy".

* ``q_exponential``: q-Gaussian densities, CDFs and samplers, a two-bump bandit and policy gradient with
  Gaussian vs q-Gaussian policies (paper qexp_policy).
"""

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
    "Bandit",
    "bandit_reward",
    "bandit_reward_grad",
    "bandit_valley",
    "beta_from_scale",
    "box_muller_parameter",
    "escape_threshold",
    "exp_q",
    "hill_estimator",
    "log_q",
    "policy_gradient",
    "policy_score",
    "population_hill",
    "q_gaussian_cdf",
    "q_gaussian_normaliser",
    "q_gaussian_pdf",
    "q_gaussian_sample",
    "smoothed_gradient",
    "student_t_dof",
    "tail_index",
]
