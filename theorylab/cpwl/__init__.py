"""Decomposition polyhedra of CPWL functions (Brandenburg, Grillo & Hertrich, ICLR 2025).

Write a continuous piecewise linear (CPWL) function f as a difference g - h of convex CPWL
functions with few pieces.  With the polyhedral complex P of possible non-linearity fixed,
the decompositions form the polyhedron D_P(f) (the paper's abstract: "intersection of two
translated cones"; irreducible decompositions = bounded faces; minimal ones are vertices).

Public API
----------
Complexes (:mod:`.complexes`):
    PolyhedralComplex, line_complex, planar_fan, simplicial_fan, braid_fan,
    arrangement_complex, relu_network_complex, max_affine_complex
Functions (:mod:`.functions`):
    CPWLFunction (.bends, .is_convex, .n_pieces, .n_affine_components, .from_function,
    .from_ray_values), relu_1d, lovasz_extension, set_function_of, is_submodular
Decomposition polyhedra (:mod:`.polyhedron`):
    DecompositionPolyhedron (.vrep, .vertices_lp, .faces, .is_irreducible_lp,
    .is_bounded_face_point, .minimal_decompositions, .vertex_pieces, .vertex_table, .sample_points,
    .piece_counts), decomposition_polyhedron, naive_decomposition, lambda_space
Random instances (:mod:`.random`): random_planar_fan, random_polytope_fan, random_ray_values,
    random_set_function
Tran & Wang (:mod:`.tran_wang`, reconstruction): tran_wang_decomposition, canonical_decomposition_2d,
    refine_with_closing_ray, edge_length
Networks for convex CPWL functions (:mod:`.networks`): convex_cpwl_network, max_tree_network,
    valuation_terms, verify_network, random_convex_pieces
"""

from .complexes import (PolyhedralComplex, Wall, arrangement_complex, braid_fan, line_complex,
                        max_affine_complex, planar_fan, polytope_fan, relu_network_complex, simplicial_fan)
from .functions import CPWLFunction, is_submodular, lovasz_extension, relu_1d, set_function_of
from .polyhedron import (Decomposition, DecompositionPolyhedron, LambdaSpace, decomposition_polyhedron,
                         lambda_space, naive_decomposition)
from .networks import convex_cpwl_network, max_tree_network, random_convex_pieces, valuation_terms, verify_network
from .random import (four_ray_fan, hexagon_fan, random_planar_fan, random_polytope_fan, random_ray_values,
                     random_set_function)
from .tran_wang import canonical_decomposition_2d, edge_length, refine_with_closing_ray, tran_wang_decomposition

__all__ = ["CPWLFunction", "Decomposition", "DecompositionPolyhedron", "LambdaSpace", "PolyhedralComplex", "Wall",
           "arrangement_complex", "braid_fan", "canonical_decomposition_2d", "convex_cpwl_network",
           "decomposition_polyhedron", "edge_length", "four_ray_fan", "hexagon_fan", "is_submodular", "lambda_space",
           "line_complex", "lovasz_extension", "max_affine_complex", "max_tree_network", "naive_decomposition",
           "planar_fan", "polytope_fan", "random_convex_pieces", "random_planar_fan", "random_polytope_fan",
           "random_ray_values", "random_set_function", "refine_with_closing_ray", "relu_1d", "relu_network_complex",
           "set_function_of", "simplicial_fan", "tran_wang_decomposition", "valuation_terms", "verify_network"]
