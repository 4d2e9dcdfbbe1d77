"""Monotone games and last-iterate learning dynamics (issue 20: paper gabp; gameopt's game layer
may join later).

Modules (their public names are re-exported here):

- ``theorylab.games.matrix_games``  random zero-sum matrix games on simplices, the hard concave-convex game,
  gap function and tangent residual, projected gradient ascent, APGA, GABP (Algorithm 1), optimistic GA (gabp)
"""

from .matrix_games import (DIAMETER, FEEDBACKS, METHODS, Run, duality_gap, gap_lp, lipschitz_constant,
                           perturbed_equilibrium, project_simplex, project_simplex_numpy, random_payoff_games,
                           run_dynamics, run_dynamics_numpy, strategy_path, tangent_residual, theorem41_bound,
                           theorem41_parameters, theorem43_parameters)

__all__ = ["METHODS", "FEEDBACKS", "DIAMETER", "Run", "random_payoff_games", "project_simplex",
           "project_simplex_numpy", "duality_gap", "gap_lp", "tangent_residual", "lipschitz_constant",
           "theorem41_parameters", "theorem41_bound", "theorem43_parameters", "run_dynamics", "run_dynamics_numpy",
           "strategy_path", "perturbed_equilibrium"]
