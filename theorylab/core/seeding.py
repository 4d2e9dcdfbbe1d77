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
    """A ``numpy.random.Generator`` from ``seed``.

    Parameters
    ----------
    seed : int, SeedSequence or Generator
        A root seed (a Generator is returned as it is).

    Returns
    -------
    numpy.random.Generator
    """
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed_sequence(seed))


#: The largest ``n`` :func:`spawn_seeds` accepts: 10**8 seeds are 800 MB of uint64 and about a
#: second of work; a simulation needing more paths should be split into chunks.
MAX_SPAWN = 10**8

# Constants of numpy's SeedSequence (numpy/random/bit_generator.pyx, after M. E. O'Neill's
# seed_seq_fe): the entropy pool is mixed with a multiply-xorshift hash whose multiplier
# evolves independently of the data, which is what lets the children be hashed in bulk.
_MASK32 = 0xFFFFFFFF
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R = 0xCA01F9DD, 0x4973F715
_XSHIFT = 16
_CHUNK = 1 << 18


def _words(value) -> list[int]:
    """``value`` (an int or a sequence of ints) as little-endian 32-bit words, as SeedSequence does."""
    if isinstance(value, (int, np.integer)):
        v = int(value)
        out = [v & _MASK32]
        v >>= 32
        while v:
            out.append(v & _MASK32)
            v >>= 32
        return out
    if isinstance(value, np.ndarray) and value.dtype.kind == "u" and value.dtype.itemsize <= 4:
        return [int(x) for x in value.ravel()]
    return [w for x in value for w in _words(x)]


class _Hasher:
    """The data-independent multiplier sequence of SeedSequence's ``hashmix``."""

    def __init__(self):
        self.const = _INIT_A

    def next(self) -> int:
        """Advance and return the multiplier ``hashmix`` uses for its next value."""
        self.const = (self.const * _MULT_A) & _MASK32
        return self.const

    def hashmix(self, value: int) -> int:
        value = (value ^ self.const) & _MASK32
        value = (value * self.next()) & _MASK32
        return value ^ (value >> _XSHIFT)


def _mix(x, y):
    """SeedSequence's ``mix`` on Python ints or uint32 arrays."""
    r = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _MASK32
    return r ^ (r >> _XSHIFT)


def _mixed_prefix(entropy: list[int], pool_size: int):
    """The mixed pool after SeedSequence's ``mix_entropy`` of ``entropy`` (len >= pool_size),
    and the hasher positioned for the next word."""
    h = _Hasher()
    pool = [h.hashmix(entropy[i]) for i in range(pool_size)]
    for i_src in range(pool_size):
        for i_dst in range(pool_size):
            if i_src != i_dst:
                pool[i_dst] = _mix(pool[i_dst], h.hashmix(pool[i_src]))
    for w in entropy[pool_size:]:
        for i_dst in range(pool_size):
            pool[i_dst] = _mix(pool[i_dst], h.hashmix(w))
    return pool, h


def _first_words(pool0: int, lo_const: int, mult: int, index: np.ndarray) -> np.ndarray:
    """``generate_state(1, uint32)[0]`` of the children whose last entropy word is ``index``.

    Only pool word 0 feeds the first output word, so each child costs one ``hashmix`` of its
    index word (``lo_const``: the hash constant before it, ``mult``: the multiplier after), one
    ``mix`` into the shared prefix's pool word 0, and the output hash of ``generate_state``.
    ``index``: uint32, overwritten (uint32 arithmetic wraps modulo 2**32 like the C code).
    """
    u = np.uint32
    v = index
    v ^= u(lo_const)
    v *= u(mult)
    v ^= v >> u(_XSHIFT)
    # mix(pool0, v) = (L * pool0 - R * v) ^ (... >> 16)
    v *= u(_MIX_MULT_R)
    np.subtract(u((_MIX_MULT_L * pool0) & _MASK32), v, out=v)
    v ^= v >> u(_XSHIFT)
    # generate_state: (p0 ^ INIT_B) * (INIT_B * MULT_B), xorshift
    v ^= u(_INIT_B)
    v *= u((_INIT_B * _MULT_B) & _MASK32)
    v ^= v >> u(_XSHIFT)
    return v


def spawn_seeds(seed, n: int) -> np.ndarray:
    """``n`` independent integer seeds, one per path/chain/repetition.

    Seed ``i`` is ``SeedSequence(entropy, spawn_key=spawn_key + (i,)).generate_state(1)[0]``
    for the root's entropy and spawn key: the first word of the ``i``-th spawned child, so
    path ``i`` always gets the same seed for the same root, whatever ``n`` is larger than
    ``i``.  The children's hashes are computed in bulk (numpy, chunked), equal to spawning
    them one by one; a ``SeedSequence`` root that already spawned ``k`` children starts at
    child ``k`` like ``SeedSequence.spawn``, but is not advanced (same seed, same numbers).

    Parameters
    ----------
    seed : int or SeedSequence
        The root.
    n : int
        How many seeds, at most :data:`MAX_SPAWN`.

    Returns
    -------
    ndarray of uint64, shape (n,)
        Values below 2**32, the range of numba's ``np.random.seed`` (and of numpy's legacy
        seeding, so a kernel's ``py_func`` accepts them too).
    """
    from .validate import check_int

    n = check_int("n", n, low=0)
    if n > MAX_SPAWN:
        raise ValueError(f"n must be at most {MAX_SPAWN:_} seeds (the spawn_seeds budget: {MAX_SPAWN * 8 // 10**6} MB); "
                         f"got {n:_}; draw the paths in chunks, each with spawn_seeds([seed, chunk], size)")
    ss = seed_sequence(seed)
    pool_size = int(ss.pool_size)
    run = _words(ss.entropy)
    run += [0] * max(0, pool_size - len(run))  # SeedSequence pads the run entropy when spawn_key is set
    prefix = run + _words(tuple(ss.spawn_key))
    start = int(ss.n_children_spawned)
    out = np.empty(n, dtype=np.uint64)
    if n == 0:
        return out
    # children with a one-word index i < 2**32 (all of them in practice)
    pool, h = _mixed_prefix(prefix, pool_size)
    lo_const = h.const
    mult = h.next()
    stop_one = min(start + n, 1 << 32)
    for a in range(start, stop_one, _CHUNK):
        b = min(a + _CHUNK, stop_one)
        out[a - start:b - start] = _first_words(pool[0], lo_const, mult, np.arange(a, b, dtype=np.uint32))
    # children whose index needs two words (only for a root that already spawned ~2**32 children)
    for i in range(max(start, 1 << 32), start + n):
        child = np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (i,), pool_size=pool_size)
        out[i - start] = child.generate_state(1, dtype=np.uint32)[0]
    return out


def child_seed(seed, *keys) -> int:
    """A reproducible integer seed for the stream named by ``keys`` under root ``seed``.

    ``child_seed(0, "rr_sgd", "pr_bias")`` is the same in every process and on every machine; use it
    (never arithmetic on the seed) to give each experiment, point or batch a stream of its own.

    Parameters
    ----------
    seed : int or SeedSequence
        The root.
    *keys : str or int
        The stream's name, as a path of keys.

    Returns
    -------
    int
        A seed below 2**32.
    """
    root = seed_sequence(seed)
    ss = np.random.SeedSequence(root.entropy, spawn_key=tuple(root.spawn_key) + tuple(_stable_int(k) for k in keys))
    return int(ss.generate_state(1, dtype=np.uint32)[0])
