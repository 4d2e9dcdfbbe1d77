"""spawn_seeds: the bulk (vectorised) SeedSequence hash gives exactly the seeds of spawning
children one by one (every recorded number depends on them), fast, and refuses bad sizes."""

import numpy as np
import pytest

from theorylab.core import seeding
from theorylab.core.seeding import MAX_SPAWN, seed_sequence, spawn_seeds


def spawn_seeds_one_by_one(seed, n):
    """The implementation spawn_seeds had before it was vectorised (the reference)."""
    ss = seed_sequence(seed)
    children = ss.spawn(int(n))
    return np.array([c.generate_state(1, dtype=np.uint32)[0] for c in children], dtype=np.uint64)


ROOTS = [0, 1, 7, 12345, 2**32 - 1, 2**32, 2**64 + 5, 2**200 + 17, [3, 1], [0], [5, 2**33, 7],
         (1, 2, 3, 4, 5, 6), np.int64(42)]


@pytest.mark.parametrize("root", ROOTS, ids=repr)
def test_equal_to_spawning_children_one_by_one(root):
    assert np.array_equal(spawn_seeds(root, 700), spawn_seeds_one_by_one(root, 700))


@pytest.mark.parametrize("make", [
    lambda: np.random.SeedSequence(11, spawn_key=(2, 5)),
    lambda: np.random.SeedSequence([1, 2], spawn_key=(2**40,)),
    lambda: np.random.SeedSequence(9, pool_size=8),
    lambda: np.random.SeedSequence(9, pool_size=8, spawn_key=(3,)),
    lambda: np.random.SeedSequence(123456789012345678901234567890, spawn_key=(0, 1, 2, 3, 4)),
], ids=["spawn_key", "big_spawn_key", "pool8", "pool8_spawn_key", "long_spawn_key"])
def test_equal_for_seed_sequence_roots(make):
    assert np.array_equal(spawn_seeds(make(), 500), spawn_seeds_one_by_one(make(), 500))


def test_root_that_already_spawned_starts_after_its_children_and_is_not_advanced():
    ss = np.random.SeedSequence(4)
    ss.spawn(7)
    expected = spawn_seeds_one_by_one(np.random.SeedSequence(4), 57)[7:]
    assert np.array_equal(spawn_seeds(ss, 50), expected)
    assert np.array_equal(spawn_seeds(ss, 50), expected)  # same seed, same numbers
    assert ss.n_children_spawned == 7


def test_children_indices_past_two_to_the_32():
    # a root whose counter is near 2**32: child indices then need two 32-bit words
    start = 2**32 - 3
    ss = np.random.SeedSequence(5, n_children_spawned=start)
    expected = [np.random.SeedSequence(5, spawn_key=(i,)).generate_state(1)[0] for i in range(start, start + 6)]
    assert spawn_seeds(ss, 6).tolist() == expected


def test_many_seeds_match_across_chunks_and_are_prefix_stable(monkeypatch):
    monkeypatch.setattr(seeding, "_CHUNK", 1000)  # bulk hashing goes chunk by chunk
    big = spawn_seeds(3, 20_500)
    assert big.dtype == np.uint64 and big.max() < 2**32
    assert np.array_equal(big, spawn_seeds_one_by_one(3, 20_500))
    assert np.array_equal(spawn_seeds(3, 10), big[:10])
    assert spawn_seeds(3, 0).shape == (0,)


def test_a_large_n_is_fast_enough_to_use():
    # 10**7 seeds in bulk is well under a second of numpy work; one by one it took minutes
    # (not timed here: CI timings are not tested; the size alone would have hung before)
    seeds = spawn_seeds(0, 10**7)
    assert seeds.shape == (10**7,) and seeds[0] == spawn_seeds_one_by_one(0, 1)[0]


@pytest.mark.parametrize("n, error, match", [
    ("ten", TypeError, "n must be an integer"),
    (2.5, TypeError, "n must be an integer"),
    (None, TypeError, "n must be an integer"),
    (True, TypeError, "n must be an integer"),
    (-1, ValueError, r"n must be an integer in \[0, inf\]; got -1"),
    (MAX_SPAWN + 1, ValueError, "n must be at most 100_000_000 seeds"),
    (10**9, ValueError, "got 1_000_000_000"),
])
def test_bad_n_is_refused(n, error, match):
    with pytest.raises(error, match=match):
        spawn_seeds(0, n)
