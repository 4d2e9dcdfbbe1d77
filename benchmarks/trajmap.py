"""trajmap benchmark: the heavy-ball updates of the checks' quadratic (d = 50, curvatures log-spaced on [1e-2, 1],
eta = 1, beta = 0.9) in closed form (theorylab.krylov.heavy_ball_exact_updates, one vectorised expression) against
the step-by-step recursion (theorylab.krylov.heavy_ball), same process.  ratio = recursion time / closed-form time."""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.krylov import trajectories as TR


@benchmark("trajmap", "exact_updates")
def bench_exact_updates(*, quick=False):
    """steps = 6 000 (quick: 2 000)."""
    lams, theta0 = np.logspace(-2, 0, 50), np.random.default_rng(0).standard_normal(50)
    steps = 2_000 if quick else 6_000
    t_exact = best_time(TR.heavy_ball_exact_updates, lams, theta0, repeat=3, steps=steps)
    t_sim = best_time(TR.heavy_ball, lams, theta0, repeat=3, steps=steps)
    sim = np.diff(TR.heavy_ball(lams, theta0, steps=steps), axis=0)
    exact = TR.heavy_ball_exact_updates(lams, theta0, steps=steps)
    env = 0.9 ** (np.arange(steps) / 2)[:, None] * np.abs(exact[0]).max()
    return {"ratio": t_sim / t_exact, "recursion_s": t_sim, "closed_form_s": t_exact, "steps": steps,
            "max_rel_diff": float((np.abs(sim - exact) / env).max())}
