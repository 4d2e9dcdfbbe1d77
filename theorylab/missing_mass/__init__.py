"""missing_mass — Lee & Böhme, "How Much is Unseen Depends Chiefly on Information About the Seen"
(ICLR 2025, arXiv:2402.05835).

Simulator and exact calculus for missing-mass estimators built from frequencies of frequencies:

* samplers for the paper's six distributions (:func:`make_distribution`, :func:`sample`) and
  the frequencies of frequencies Phi_k(m) of every prefix (:func:`phi_prefix_matrix`);
* the estimator family sum coef * Phi_k(n') (:class:`Estimator`, :func:`good_turing`,
  :func:`minimal_bias`);
* exact moments and MSE under a known p (:func:`exact_moments`, float64 jitted;
  :func:`exact_moments_rational`, exact rationals; :func:`brute_force_moments`, enumeration)
  and Monte Carlo (:func:`monte_carlo_mse`); the best expectation-preserving estimator knowing p
  (:func:`family_optimum`);
* the distribution-free evolutionary search (:func:`plug_in_distribution`, :func:`evolve`,
  :func:`search`, :func:`search_run`) with expectation-preserving mutations (:func:`mutate`).
"""

from .distributions import DISTRIBUTIONS, RANDOM_DISTRIBUTIONS, make_distribution
from .estimators import Estimator, good_turing, minimal_bias
from .montecarlo import monte_carlo_mse
from .optimum import family_optimum
from .moments import (Moments, brute_force_moments, exact_moments, exact_moments_rational, exact_mse, g_exact,
                      group_probabilities)
from .sampling import (counts_from_sample, frequencies_of_frequencies, phi_prefix_matrix, relabel, sample)
from .search import (MomentCache, SearchResult, evolve, genome_expectation, mutate, plug_in_distribution, project,
                     search, search_run, start_genome, to_estimator)

__all__ = [
    "DISTRIBUTIONS", "RANDOM_DISTRIBUTIONS", "make_distribution", "Estimator", "good_turing", "minimal_bias",
    "monte_carlo_mse", "family_optimum", "Moments", "brute_force_moments", "exact_moments", "exact_moments_rational", "exact_mse",
    "g_exact", "group_probabilities", "counts_from_sample", "frequencies_of_frequencies", "phi_prefix_matrix",
    "relabel", "sample", "MomentCache", "SearchResult", "evolve", "genome_expectation", "mutate",
    "plug_in_distribution", "project", "search", "search_run", "start_genome", "to_estimator",
]
