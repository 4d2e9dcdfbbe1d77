"""The kernels' generator: xoshiro256** uniforms and ziggurat normals have the right law."""

import numpy as np
import pytest
from scipy import stats

from theorylab.core import rng as _rng


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ziggurat_normals_pass_ks_and_moments(seed):
    x = np.empty(400_000)
    _rng.fill_normals(seed, x)
    assert stats.kstest(x, "norm").pvalue > 1e-5
    se = 1 / np.sqrt(x.size)
    assert abs(x.mean()) < 5 * se
    assert abs(x.var() - 1) < 5 * np.sqrt(2) * se
    assert abs(stats.skew(x)) < 5 * np.sqrt(6) * se
    assert abs(stats.kurtosis(x)) < 5 * np.sqrt(24) * se


def test_ziggurat_tail_beyond_r_has_normal_mass():
    x = np.empty(2_000_000)
    _rng.fill_normals(11, x)
    p = 2 * stats.norm.sf(_rng.ZIG_R)  # the base strip's tail, sampled by the rejection branch
    k = int(np.sum(np.abs(x) > _rng.ZIG_R))
    assert abs(k - p * x.size) < 5 * np.sqrt(p * x.size)
    q = 2 * stats.norm.sf(4.5)
    k = int(np.sum(np.abs(x) > 4.5))
    assert abs(k - q * x.size) < 5 * np.sqrt(q * x.size) + 2


def test_uniforms_and_below():
    u = np.empty(200_000)
    _rng.fill_uniforms(5, u)
    assert 0 < u.min() and u.max() < 1
    assert stats.kstest(u, "uniform").pvalue > 1e-5
    state = np.empty(4, np.uint64)
    _rng.seed_state(9, state)
    draws = np.array([_rng.below(state, 7) for _ in range(70_000)])
    counts = np.bincount(draws, minlength=7)
    assert draws.min() == 0 and draws.max() == 6
    assert stats.chisquare(counts).pvalue > 1e-5


def test_streams_are_reproducible_and_distinct():
    a, b, c = np.empty(100), np.empty(100), np.empty(100)
    _rng.fill_normals(3, a)
    _rng.fill_normals(3, b)
    _rng.fill_normals(4, c)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert abs(np.corrcoef(a, c)[0, 1]) < 0.4
