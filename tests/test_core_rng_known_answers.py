"""Known answers of theorylab.core.rng: the jitted xoshiro256** and its splitmix64 seeding against
a pure-Python transcription of the algorithms' definitions (Blackman & Vigna, "Scrambled linear
pseudorandom number generators", ACM TOMS 47(4), 2021, Sec. 4.1 and Fig. 1; Steele, Lea & Flood,
"Fast splittable pseudorandom number generators", OOPSLA 2014), and against published outputs of the
reference implementations (xoshiro256** from the state (1, 2, 3, 4); splitmix64 from the seed 1234567)."""

import numpy as np
import pytest

from theorylab.core import rng

MASK = (1 << 64) - 1

#: The first ten outputs of the reference xoshiro256starstar.c started from s = {1, 2, 3, 4}.
XOSHIRO_1234 = [11520, 0, 1509978240, 1215971899390074240, 1216172134540287360, 607988272756665600,
                16172922978634559625, 8476171486693032832, 10595114339597558777, 2904607092377533576]
#: The first five outputs of the reference splitmix64.c seeded with x = 1234567.
SPLITMIX_1234567 = [6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431,
                    16408922859458223821]


def _rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK


def xoshiro256ss(s):
    """One output of xoshiro256** from the 4-word list ``s``, which is advanced in place."""
    result = (_rotl((s[1] * 5) & MASK, 7) * 9) & MASK
    t = (s[1] << 17) & MASK
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


def splitmix64(x, count):
    """The first ``count`` outputs of splitmix64 seeded with ``x``."""
    out = []
    for _ in range(count):
        x = (x + 0x9E3779B97F4A7C15) & MASK
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(z ^ (z >> 31))
    return out


def test_the_python_transcriptions_give_the_published_outputs():
    s = [1, 2, 3, 4]
    assert [xoshiro256ss(s) for _ in range(10)] == XOSHIRO_1234
    assert splitmix64(1234567, 5) == SPLITMIX_1234567


def test_next_u64_gives_the_published_xoshiro256starstar_outputs():
    state = np.array([1, 2, 3, 4], dtype=np.uint64)
    assert [int(rng.next_u64(state)) for _ in range(10)] == XOSHIRO_1234


def test_seed_state_is_splitmix64():
    state = np.empty(4, dtype=np.uint64)
    rng.seed_state(1234567, state)
    assert [int(w) for w in state] == SPLITMIX_1234567[:4]


@pytest.mark.parametrize("seed", [0, 1, 2**31 - 1, 2**62 + 12345, 2**63 - 1])
def test_next_u64_matches_the_definition_for_1000_steps(seed):
    state = np.empty(4, dtype=np.uint64)
    rng.seed_state(seed, state)
    s = splitmix64(seed, 4)
    assert [int(w) for w in state] == s
    got = [int(rng.next_u64(state)) for _ in range(1000)]
    assert got == [xoshiro256ss(s) for _ in range(1000)]
    assert [int(w) for w in state] == s  # the state advances exactly as in the definition


def test_uniform_and_below_read_the_top_bits_of_one_output():
    """``uniform`` and ``below`` consume one xoshiro output each and keep its leading bits (so the
    stream above is the stream the kernels use): |u - x / 2^64| <= 2^-52 and below(n) = floor(n u')."""
    state = np.empty(4, dtype=np.uint64)
    rng.seed_state(7, state)
    s = splitmix64(7, 4)
    for _ in range(500):
        u = rng.uniform(state)
        x = xoshiro256ss(s)
        assert 0.0 < u < 1.0 and abs(u - x / 2.0**64) <= 2.0**-52
        k = int(rng.below(state, 1000))
        assert abs(k - 1000 * xoshiro256ss(s) / 2.0**64) < 1.0 + 1e-9 and 0 <= k < 1000
