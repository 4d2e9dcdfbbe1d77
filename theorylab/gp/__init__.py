"""Gaussian-process sample paths for Bayesian optimisation (issue 20: papers tsroots, gameopt).

Modules (their public names are re-exported here):

- ``theorylab.gp.priors``   GP priors on [0,1]^d and on discrete sets (kernels, lengthscales), exact posteriors,
  pathwise posterior samples (random Fourier features + exact update), UCB / Thompson acquisition
- ``theorylab.gp.tsroots``  the TSRoots candidate set from 1-D roots of separable prior derivatives (tsroots)
- ``theorylab.gp.gameopt``  GameOpt's iterated best response on UCB utilities over combinatorial sets (gameopt)
"""

from .priors import JITTER, MAX_DATA, check_lengthscale, check_points, gp_posterior, sample_gp_prior, se_kernel, ucb
from .tsroots import (Candidates, PosteriorSample, RULES, SeparableSample, candidate_set, critical_points_1d,
                      critical_points_grid_1d, evaluate_posterior, evaluate_prior, full_factorial, grid_minimum,
                      minimiser_candidates, optimise_from, path_1d, posterior_sample, random_starts,
                      separable_prior_sample, tsroots_starts)
from .gameopt import (BORun, IBRResult, METHODS, UCBUtility, all_profiles, check_sizes, hamming, improving_deviation,
                      iterated_best_response, iterated_best_response_reference, n_profiles, one_hot, profile_index,
                      run_bo, sample_gp_on_profiles, ucb_utility, unilateral_deviations)

__all__ = ["JITTER", "MAX_DATA", "check_points", "check_lengthscale", "se_kernel", "gp_posterior",
           "sample_gp_prior", "ucb", "RULES", "SeparableSample", "Candidates", "PosteriorSample",
           "separable_prior_sample", "path_1d", "evaluate_prior", "critical_points_1d", "critical_points_grid_1d",
           "candidate_set", "full_factorial", "minimiser_candidates", "posterior_sample", "evaluate_posterior",
           "tsroots_starts", "random_starts", "optimise_from", "grid_minimum", "METHODS", "UCBUtility", "IBRResult",
           "BORun", "check_sizes", "n_profiles", "all_profiles", "profile_index", "one_hot", "hamming",
           "unilateral_deviations", "sample_gp_on_profiles", "ucb_utility", "iterated_best_response",
           "iterated_best_response_reference", "improving_deviation", "run_bo"]
