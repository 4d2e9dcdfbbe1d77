"""Multi-objective descent and Tchebycheff scalarisations (issue 20: papers mgda_gs, stch_set).

Modules (their public names are re-exported here):

- ``theorylab.multiobjective.mgda``    K-objective generalised-smooth zoo, min-norm point of the convex hull
  of gradients (closed form K = 2, cvxpy reference, fast path), conflict-avoidant distance, MGDA and its
  warm-started and FA variants (mgda_gs)
- ``theorylab.multiobjective.stch``    Tchebycheff, smooth Tchebycheff and (smooth) Tchebycheff-set
  scalarisations with gradients, the STCH-Set test problems and solvers (stch_set)
"""

from .mgda import (MGDARun, MIN_NORM_METHODS, MOProblem, VARIANTS, ca_distance, custom_problem,
                   fa_quadratic_prediction, hessians, jacobian, logcosh_exp_problem, min_norm_closed_form,
                   min_norm_weights, objective_values, pareto_stationarity, project_simplex, quadratic_mo_problem,
                   run_mgda, smoothness_constants, theorem_step_sizes)
from .stch import (INITS, METHODS, clustered_optimum, clustered_problem, dirichlet_preferences, distance_problem,
                   evaluate, farthest_point_indices, initial_solutions, least_squares_problem, min_enclosing_ball,
                   mixed_linear_regression_problem, quadratic_problem, sandwich_extremes, smooth_tch,
                   smooth_tch_grad, smoothing_bounds, solve_set, solve_set_numpy, som, stch_set, stch_set_grad,
                   stch_set_sympy, tch, tch_set, tch_set_subgrad)

__all__ = ["MOProblem", "MGDARun", "logcosh_exp_problem", "quadratic_mo_problem", "custom_problem",
           "objective_values", "jacobian", "hessians", "smoothness_constants", "project_simplex",
           "min_norm_closed_form", "min_norm_weights", "pareto_stationarity", "ca_distance", "theorem_step_sizes",
           "run_mgda", "fa_quadratic_prediction", "MIN_NORM_METHODS", "VARIANTS", "tch", "smooth_tch",
           "smooth_tch_grad", "tch_set", "stch_set", "stch_set_grad", "tch_set_subgrad", "som", "smoothing_bounds",
           "sandwich_extremes", "stch_set_sympy", "least_squares_problem", "distance_problem", "quadratic_problem",
           "mixed_linear_regression_problem", "clustered_problem", "evaluate", "min_enclosing_ball",
           "clustered_optimum", "farthest_point_indices", "initial_solutions", "dirichlet_preferences", "solve_set",
           "solve_set_numpy", "METHODS", "INITS"]
