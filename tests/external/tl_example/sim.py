"""The simulator of tl_example: the mean of n standard normal draws, in independent runs."""

import numpy as np

from theorylab.claims import as_generator, check_int


def sample_means(n_max: int, n_runs: int, *, seed=0) -> np.ndarray:
    """Running means of n = 1..n_max draws of N(0, 1) for ``n_runs`` runs; shape (n_runs, n_max)."""
    n_max = check_int("n_max", n_max, low=1)
    n_runs = check_int("n_runs", n_runs, low=1)
    draws = as_generator(seed).standard_normal((n_runs, n_max))
    return np.cumsum(draws, axis=1) / np.arange(1, n_max + 1)
