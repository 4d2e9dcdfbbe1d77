"""Seeding: one root seed, independent streams spawned with :class:`numpy.random.SeedSequence`.

Rules used throughout theorylab:

* every function that draws takes ``seed`` (an int, a ``SeedSequence`` or a ``Generator``);
* a parallel kernel gets one integer seed per path/chain from :func:`spawn_seeds` and seeds
  numba's RNG inside the ``prange`` body, so results do not depend on the thread count;
* a claim gets its own child seed from (root seed, paper id, claim id), see :func:`child_seed`,
  so adding a claim never changes the numbers of another.
"""

from __future__ import annotations

import hashlib

import numpy as np

def _stable_int(key) -> int:
    """A stable 32-bit integer for a string/int key (Python's hash() is salted per process)."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return int(key) & 0xFFFFFFFF
    digest = hashlib.sha256(str(key).encode()).digest()
    return int.from_bytes(digest[:4], "little")


def seed_sequence(seed=None) -> np.random.SeedSequence:
    """Turn ``seed`` into a ``SeedSequence``.

    Accepts None (fresh entropy), a non-negative int, a list/tuple of non-negative ints (a
    sub-stream such as ``[seed, i]``), a ``SeedSequence``, or a ``Generator`` (which
    contributes entropy drawn from itself).
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(seed.integers(0, 2**63, size=4).tolist())
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, (list, tuple)):  # e.g. [root_seed, grid_index]: a named sub-stream
        if not seed or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0 for s in seed):
            raise ValueError(f"seed as a sequence must hold non-negative integers; got {seed!r}")
        return np.random.SeedSequence([int(s) for s in seed])
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, SeedSequence, Generator or None; got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed}")
    return np.random.SeedSequence(int(seed))


def as_generator(seed=None) -> np.random.Generator:
    """A ``numpy.random.Generator`` from ``seed`` (a Generator is returned as is)."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed_sequence(seed))


def spawn_seeds(seed, n: int) -> np.ndarray:
    """``n`` independent integer seeds, one per path/chain/repetition.

    A uint64 array whose values are below 2**32, the range of numba's ``np.random.seed``
    (and of numpy's legacy seeding, so a kernel's ``py_func`` accepts them too).

    Path ``i`` always gets the same seed for the same root seed, whatever ``n`` is larger
    than ``i``: seeds come from spawned children, not from a single draw of size ``n``.
    """
    ss = seed_sequence(seed)
    children = ss.spawn(int(n))
    return np.array([c.generate_state(1, dtype=np.uint32)[0] for c in children], dtype=np.uint64)


def child_seed(seed, *keys) -> int:
    """A reproducible integer seed for the stream named by ``keys`` under root ``seed``.

    ``child_seed(0, "rr_sgd", "pr_bias")`` is the same in every process and on every machine.
    """
    root = seed_sequence(seed)
    ss = np.random.SeedSequence(root.entropy, spawn_key=tuple(root.spawn_key) + tuple(_stable_int(k) for k in keys))
    return int(ss.generate_state(1, dtype=np.uint32)[0])
