"""Fast per-path random numbers for jitted kernels: xoshiro256** uniforms and ziggurat normals.

numba's ``np.random.standard_normal`` (polar method on a Mersenne Twister) costs several
uniforms, a log and a sqrt per normal; in the SGD/SDE hot loops it dominates.  Here:

* uniforms: xoshiro256** (Blackman & Vigna, "Scrambled linear pseudorandom number
  generators", ACM TOMS 2021), state of 4 uint64 per path, seeded through splitmix64;
* normals: the ziggurat method of Marsaglia & Tsang ("The Ziggurat Method for Generating
  Random Variables", J. Stat. Softw. 5(8), 2000) with 128 layers; the layer index and the
  value are taken from disjoint bits of one 64-bit draw.

Usage inside a kernel (one state per path, so results do not depend on the thread count)::

    state = np.empty(4, np.uint64); seed_state(seeds[m], state)
    z = normal(state); u = uniform(state); i = below(state, n)

The distribution is tested in tests/test_core_rng.py (KS test, moments, tail mass).
"""

import numpy as np
from numba import njit

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def _ziggurat_tables():
    """Tables k, w, f of Marsaglia & Tsang (2000), Sec. 'The normal distribution', 128 layers."""
    dn = 3.442619855899
    tn = dn
    vn = 9.91256303526217e-3
    m1 = 2147483648.0
    k = np.zeros(128, dtype=np.int64)
    w = np.zeros(128)
    f = np.zeros(128)
    q = vn / np.exp(-0.5 * dn * dn)
    k[0] = int((dn / q) * m1)
    k[1] = 0
    w[0] = q / m1
    w[127] = dn / m1
    f[0] = 1.0
    f[127] = np.exp(-0.5 * dn * dn)
    for i in range(126, 0, -1):
        dn = np.sqrt(-2.0 * np.log(vn / dn + np.exp(-0.5 * dn * dn)))
        k[i + 1] = int((dn / tn) * m1)
        tn = dn
        f[i] = np.exp(-0.5 * dn * dn)
        w[i] = dn / m1
    return k, w, f


ZIG_K, ZIG_W, ZIG_F = _ziggurat_tables()
ZIG_R = 3.442619855899


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True)
def seed_state(seed, state):
    """Fill the 4-word xoshiro state from an integer seed with splitmix64."""
    z = np.uint64(seed)
    for i in range(4):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        x = z
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        state[i] = x ^ (x >> np.uint64(31))


@njit(cache=True)
def next_u64(state):
    """One xoshiro256** output; advances ``state`` in place."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return result


@njit(cache=True)
def uniform(state):
    """A uniform double in (0, 1): the top 52 bits k of one draw, (k + 1/2) 2^-52.

    Every value is an odd multiple of 2^-53, so it is never 0, 1/2 or 1: k + 1/2 < 2^52 is exact
    in a double.  (With 53 bits, k + 1/2 rounds to even above 2^52, giving exactly 1/2 and 1.0
    with probability 2^-53 each.)
    """
    return ((next_u64(state) >> np.uint64(12)) + 0.5) * (1.0 / 4503599627370496.0)


@njit(cache=True)
def below(state, n):
    """A uniform integer in {0, ..., n-1} (n < 2^32; bias below 2^-20 for any such n).

    k 2^-52 n with k < 2^52 is at least one unit in the last place below n, so it never rounds
    up to n.
    """
    return np.int64((next_u64(state) >> np.uint64(12)) * (1.0 / 4503599627370496.0) * n)


@njit(cache=True)
def _draw(state):
    """Layer index (low 7 bits) and a signed 32-bit value (high bits) from one 64-bit draw."""
    u = next_u64(state)
    iz = np.int64(u & np.uint64(127))
    hz = np.int64(u >> np.uint64(32)) - np.int64(2147483648)
    return hz, iz


@njit(cache=True)
def normal(state):
    """A standard normal variate (ziggurat, 128 layers)."""
    hz, iz = _draw(state)
    if abs(hz) < ZIG_K[iz]:
        return hz * ZIG_W[iz]
    while True:
        x = hz * ZIG_W[iz]
        if iz == 0:  # the tail beyond r: Marsaglia's exponential rejection
            while True:
                x = -np.log(uniform(state)) / ZIG_R
                y = -np.log(uniform(state))
                if y + y >= x * x:
                    break
            return ZIG_R + x if hz > 0 else -ZIG_R - x
        if ZIG_F[iz] + uniform(state) * (ZIG_F[iz - 1] - ZIG_F[iz]) < np.exp(-0.5 * x * x):
            return x
        hz, iz = _draw(state)
        if abs(hz) < ZIG_K[iz]:
            return hz * ZIG_W[iz]


@njit(cache=True)
def fill_normals(seed, out):
    """``out`` filled with standard normals from a fresh state seeded by ``seed`` (for tests)."""
    state = np.empty(4, dtype=np.uint64)
    seed_state(seed, state)
    for i in range(out.size):
        out[i] = normal(state)


@njit(cache=True)
def fill_uniforms(seed, out):
    state = np.empty(4, dtype=np.uint64)
    seed_state(seed, state)
    for i in range(out.size):
        out[i] = uniform(state)
