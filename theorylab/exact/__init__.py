"""Exact identities of networks, symmetric ILPs and regularisers (issue 19: papers
highway_bp, gnn_ilp_sym, cs_reg, rank_attn). Float64 to 1e-12, or exact rationals via core.exact.

Modules (their public names are re-exported here):

- ``theorylab.exact.highway``          residual networks, per-layer Jacobians, BP and Highway-BP (highway_bp)
- ``theorylab.exact.ilp_orbits``       bipartite ILP graphs, a random-weight GNN, orbits, Orbit/Orbit+ (gnn_ilp_sym)
- ``theorylab.exact.cs_regularizers``  Cauchy-Schwarz regularisers and the recovery protocol (cs_reg)
- ``theorylab.exact.attention``        softmax attention of a given rank and the nearest-neighbour target (rank_attn)
"""

from .highway import (backprop, forward_jacobians, highway_bp, highway_bp_numpy, path_coefficients,
                      path_coefficients_sympy, path_tail, residual_attention, residual_mlp, tail_bound)
from .ilp_orbits import (bin_packing_ilp, cardinalities, check_ilp, constrained_lstsq_min, coupled_classes,
                         enumerate_orbit_features, enumerate_orbit_plus_features, formulation_symmetries,
                         formulation_symmetries_numpy, gnn_forward, graph_colouring_ilp, orbit_features,
                         orbit_plus_features, orbits_brute_force, orbits_refinement, permute_ilp, random_gnn)
from .cs_regularizers import (REGULARIZERS, TARGETS, lagrange_form, linf_success_probability, lp_baseline,
                              projected_hessian, recover, recover_scipy, recovery_problems, regularizer,
                              regularizer_numpy, restricted_newton, sympy_identity, target_points)
from .attention import (attention_loss_grad, attention_loss_grad_numpy, beta_for_error, fit_low_rank,
                        full_rank_bound, full_rank_error, full_rank_head, log_error_slope, multihead_attention,
                        nearest_neighbour_target, pack_heads, random_instances, score_gap, subspace_lower_bound,
                        unpack_heads)

__all__ = ["residual_mlp", "residual_attention", "forward_jacobians", "backprop", "highway_bp", "highway_bp_numpy",
           "path_coefficients", "path_tail", "tail_bound", "path_coefficients_sympy", "bin_packing_ilp",
           "graph_colouring_ilp", "check_ilp", "formulation_symmetries", "formulation_symmetries_numpy",
           "orbits_brute_force", "orbits_refinement", "random_gnn", "gnn_forward", "orbit_features",
           "orbit_plus_features", "coupled_classes", "enumerate_orbit_features", "enumerate_orbit_plus_features",
           "cardinalities", "permute_ilp", "constrained_lstsq_min", "REGULARIZERS", "TARGETS", "regularizer",
           "regularizer_numpy", "lagrange_form", "sympy_identity", "target_points", "recovery_problems", "recover",
           "recover_scipy", "lp_baseline", "linf_success_probability", "projected_hessian", "restricted_newton",
           "random_instances", "nearest_neighbour_target", "score_gap", "multihead_attention", "full_rank_head",
           "full_rank_error", "full_rank_bound", "beta_for_error", "log_error_slope", "attention_loss_grad",
           "attention_loss_grad_numpy", "fit_low_rank", "subspace_lower_bound", "pack_heads", "unpack_heads"]
