"""Exact-arithmetic ReLU networks and the depth lower bounds for max(0, x_1..x_n).

Averkov, Hojny, Merkert, "On the Expressiveness of Rational ReLU Neural Networks With Bounded
Depth", ICLR 2025 (arXiv:2502.06283): with N-ary-fraction weights, F_n = max(0, x_1, ..., x_n)
needs at least ceil(log_p(n + 1)) hidden layers for every prime p not dividing N (Thm 4;
decimal weights, p = 3: Thm 3), hence Omega(ln n / ln ln N).

Public API
----------
ReLUNetwork, to_fraction, evaluate_reference          exact networks (network.py)
max_network, max2_network, F_n, ceil_log               constructions (constructions.py)
enumerate_regions, certify_max, regions_table          region-by-region certificates (regions.py)
Polytope, newton_polytopes, minkowski_sum, conv_union,
simplex, point, normalized_volume, faces, face_volumes,
p_adic_valuation                                       the polytope side (polytopes.py)
random_nary_network                                    random N-ary networks (random_nets.py)
smallest_prime_not_dividing, binomials_vanish_mod_p,
is_power_of, lower_bound_nary, upper_bound_tournament,
upper_bound_bakaev, bound_table, lower_bound_vs_N      number theory and bounds (bounds.py)
volume_invariant_table                                 the invariant on random networks (invariant.py)
"""

from .bounds import (binomials_vanish_mod_p, bound_table, is_power_of, is_prime, lower_bound_nary,
                     lower_bound_vs_N, smallest_prime_not_dividing, upper_bound_bakaev, upper_bound_tournament)
from .constructions import F_n, ceil_log, max2_network, max_network
from .invariant import volume_invariant_table
from .network import ReLUNetwork, evaluate_reference, to_fraction
from .polytopes import (Polytope, conv_union, face_volumes, faces, minkowski_sum, newton_polytopes,
                        normalized_volume, p_adic_valuation, point, simplex)
from .random_nets import random_nary_network
from .regions import certify_max, enumerate_regions, regions_table

__all__ = ["F_n", "Polytope", "ReLUNetwork", "binomials_vanish_mod_p", "bound_table", "ceil_log", "certify_max",
           "conv_union", "enumerate_regions", "evaluate_reference", "face_volumes", "faces", "is_power_of",
           "is_prime", "lower_bound_nary", "lower_bound_vs_N", "max2_network", "max_network", "minkowski_sum",
           "newton_polytopes", "normalized_volume", "p_adic_valuation", "point", "random_nary_network",
           "regions_table", "simplex", "smallest_prime_not_dividing", "to_fraction", "upper_bound_bakaev",
           "upper_bound_tournament", "volume_invariant_table"]
