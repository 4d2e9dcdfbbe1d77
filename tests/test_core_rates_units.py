"""core.rates helpers over independent units: bootstrap_rows, paired_ratio, batch_means."""

import numpy as np
import pytest

from theorylab.core.rates import batch_means, bootstrap_rows, mean_ci, paired_ratio
from theorylab.core.seeding import as_generator


def test_bootstrap_rows_draws_rows_like_a_hand_loop_and_continues_a_generator():
    x = np.arange(10.0) ** 2
    got = bootstrap_rows(lambda rows: x[rows].mean(), x.size, n_boot=50, seed=3)
    rng = as_generator(3)
    assert np.array_equal(got, [x[rng.integers(0, 10, 10)].mean() for _ in range(50)])
    g = as_generator(5)
    first = bootstrap_rows(lambda rows: rows[0], 10, n_boot=5, seed=g)
    second = bootstrap_rows(lambda rows: rows[0], 10, n_boot=5, seed=g)
    rng = as_generator(5)
    assert np.array_equal(np.r_[first, second], [rng.integers(0, 10, 10)[0] for _ in range(10)])
    with pytest.raises(TypeError, match="statistic"):
        bootstrap_rows(None, 10)
    with pytest.raises(ValueError, match="n"):
        bootstrap_rows(np.mean, 0)


def test_paired_ratio_covers_the_true_ratio_and_uses_the_pairing():
    rng = np.random.default_rng(0)
    z = rng.standard_normal(4000)
    den = 2.0 + z + 0.1 * rng.standard_normal(4000)
    num = 4.0 + 2 * z + 0.1 * rng.standard_normal(4000)       # strongly paired: ratio ~ 2, tiny se
    r, se = paired_ratio(num, den)
    assert abs(r - 2.0) < 4 * se and se < 0.01
    unpaired = np.hypot(mean_ci(num)[3] / mean_ci(num)[0], mean_ci(den)[3] / mean_ci(den)[0]) * r
    assert se < unpaired / 5
    with pytest.raises(ValueError, match="shape"):
        paired_ratio(num, den[:-1])


def test_batch_means():
    s = np.arange(24.0).reshape(12, 2)
    b = batch_means(s, n_batches=4)
    assert b.shape == (4, 2) and np.allclose(b.mean(axis=0), s.mean(axis=0))
    assert batch_means(s, n_batches=20) is s or np.array_equal(batch_means(s, n_batches=20), s)
    with pytest.raises(ValueError):
        batch_means(np.ones(5))
