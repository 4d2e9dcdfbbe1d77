"""Shared machinery: claims and their evidence, rate fitting, seeding, sweeps, cache, plotting.

Import what a validation module needs from here::

    from theorylab.core import Paper, claim, figure, Estimate, Slope, Bound, Proportion, Identity
    from theorylab.core import fit_loglog, mean_ci, bootstrap_ci, spawn_seeds
"""

from .cache import Cache, atomic_write_text
from .context import RunContext, current_run, using_run
from .checks import (REGISTRY, SCALES, Paper, Result, benchmark, claim, discover, figure, paper_ids,
                     resolve_papers, results_frame, run_claim)
from .experiment import clear_experiments, experiment
from .evidence import (INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Bound, Estimate, Evidence, Proportion,
                       Identity, Slope)
from .rates import RateFit, bootstrap_ci, fit_loglog, mean_ci, proportion_ci
from .seeding import as_generator, child_seed, seed_sequence, spawn_seeds
from .sweep import grid, sweep
from .timing import best_time
from .validate import (SimulationDiverged, check_array, check_budget, check_choice, check_int, check_positive, check_size,
                       default_budget,
                       check_probability_vector, check_real, require_bounded, require_finite)

__all__ = [name for name in dir() if not name.startswith("_")]
