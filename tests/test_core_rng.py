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


def _state_giving(output: int) -> np.ndarray:
    """A xoshiro256** state whose next output is ``output``: solve rotl(s1 * 5, 7) * 9 = output for s1."""
    m = (1 << 64) - 1
    x = (output * pow(9, -1, 1 << 64)) & m
    x = ((x >> 7) | (x << 57)) & m  # rotate right by 7
    s1 = (x * pow(5, -1, 1 << 64)) & m
    return np.array([1, s1, 2, 3], dtype=np.uint64)


@pytest.mark.parametrize("output", [0, (1 << 64) - 1, 1 << 63, (1 << 63) | ((1 << 11) - 1), (1 << 63) - 1])
def test_uniform_edges_are_strictly_inside_and_never_half(output):
    """Issue 28 item 9: with 53 bits, (k + 1/2) 2^-53 rounded to exactly 1.0 (all ones) and 0.5
    (k = 2^52); the 52-bit form keeps every value an odd multiple of 2^-53 in (0, 1)."""
    from theorylab.core.rng import below, next_u64, uniform

    st = _state_giving(output)
    assert next_u64(st.copy()) == np.uint64(output)
    u = uniform(st.copy())
    assert 0.0 < u < 1.0 and u != 0.5
    assert (u * 2**53) % 2 == 1  # an odd multiple of 2^-53
    for n in (1, 2, 3, 2**31 + 1, 2**32 - 1):
        assert 0 <= below(st.copy(), n) < n


def test_pareto_noise_is_finite_at_the_uniform_edges():
    from theorylab.stochastic._kernels_noise import pareto

    for output in (1 << 63, (1 << 64) - 1, 0):
        assert np.isfinite(pareto(_state_giving(output), 2.5))
