"""Distributed learning problems solved by a server and asynchronous workers (issue 32: paper async_bundle,
"An Asynchronous Bundle Method for Distributed Learning Problems", ICLR 2025).

Modules (import from them directly or from here):

- ``theorylab.distributed.delays``    seeded integer delay laws (constant, geometric, heavy-tailed) and the
  validation of user-supplied delays
- ``theorylab.distributed.problems``  l2/l1-regularised logistic regression split over workers, its exact
  per-worker values and gradients, smoothness bounds and a high-accuracy reference optimum
- ``theorylab.distributed.bundle``    cut windows, the cutting-plane model, the regularised master problem
  solved through its dual (jitted accelerated projected gradient) and by cvxpy (primal QP reference)
- ``theorylab.distributed.server``    the event-driven server-worker loop: the bundle method's server and a
  delay-adaptive PIAG server on the same delays; time-to-accuracy
"""

from .bundle import (MAX_DUAL_ITER, Cuts, MasterSolution, dual_value, make_cuts, master_objective, model_value, nested_window,
                     random_cuts, solve_master, solve_master_cvxpy)
from .delays import DELAY_LAWS, HEAVY_TAIL_INDEX, check_delays, draw_delays
from .problems import (LogisticProblem, logistic_problem, objective, reference_optimum, worker_smoothness,
                       worker_value_grad)
from .server import METHODS, Trace, run_bundle, run_piag, time_to_accuracy

__all__ = ["MAX_DUAL_ITER", "Cuts", "MasterSolution", "dual_value", "make_cuts", "master_objective", "model_value", "nested_window",
           "random_cuts", "solve_master", "solve_master_cvxpy",
           "DELAY_LAWS", "HEAVY_TAIL_INDEX", "check_delays", "draw_delays",
           "LogisticProblem", "logistic_problem", "objective", "reference_optimum", "worker_smoothness",
           "worker_value_grad",
           "METHODS", "Trace", "run_bundle", "run_piag", "time_to_accuracy"]
