"""tv_distance benchmarks: the jitted enumeration kernel against vectorised numpy enumeration,
and the polynomial-time equivalence test against enumeration as n grows.

References run in the same process: ``tv_numpy`` builds both joint pmfs on [q]^n with numpy
outer products (memory q^n per component) and sums |P - Q|; the ratio is numpy time / jit time.
"""

import numba

from theorylab.core import benchmark, best_time
from theorylab.tv import equivalent, random_mixture, tv_exact, tv_numpy


def _pair(k, n, q, seed, exact=False):
    return random_mixture(k, n, q, seed=[seed, 0], exact=exact), random_mixture(k, n, q, seed=[seed, 1], exact=exact)


@benchmark("tv_distance", "enumeration_kernel")
def bench_enumeration(*, quick=False):
    """Exact d_TV of two 4-component mixtures on {0,1}^n: jitted kernel vs numpy (n = 16 quick, 22 full)."""
    n = 16 if quick else 22
    P, Q = _pair(4, n, 2, 0)
    tv_exact(*_pair(1, 3, 2, 1))  # compile outside the timing
    t_jit = best_time(tv_exact, P, Q, repeat=3)
    t_np = best_time(tv_numpy, P, Q, repeat=1 if not quick else 2)
    points = 2 ** n
    return {"ratio": t_np / t_jit, "n": n, "jit_s": t_jit, "numpy_s": t_np, "jit_points_per_s": points / t_jit,
            "numpy_points_per_s": points / t_np, "threads": numba.get_num_threads()}


@benchmark("tv_distance", "equivalence_vs_enumeration")
def bench_equivalence(*, quick=False):
    """Deciding P == Q: the modular equivalence test vs enumerating d_TV, 2-component mixtures on {0,1}^n.

    ``ratio`` is enumeration time / test time at the largest n; ``times`` lists both per n.
    """
    ns = (8, 12, 16) if quick else (8, 12, 16, 20, 24)
    equivalent(*_pair(1, 3, 2, 1, exact=True), method="modular")
    tv_exact(*_pair(1, 3, 2, 1))
    times = {}
    for n in ns:
        P, Q = _pair(2, n, 2, n, exact=True)
        times[n] = (best_time(tv_exact, P, Q, repeat=3), best_time(equivalent, P, Q, method="modular", repeat=3))
    t_enum, t_test = times[ns[-1]]
    return {"ratio": t_enum / t_test, "n": ns[-1], "enumeration_s": t_enum, "test_s": t_test,
            "times": {n: {"enumeration_s": a, "test_s": b} for n, (a, b) in times.items()}}


@benchmark("tv_distance", "equivalence_modular_vs_exact")
def bench_modular(*, quick=False):
    """The jitted F_p test vs the exact-integer Python test (both certify the witness), k1 = k2 = 4, q = 2."""
    n = 100 if quick else 400
    P, Q = _pair(4, n, 2, 7, exact=True)
    equivalent(*_pair(1, 3, 2, 1, exact=True), method="modular")
    t_mod = best_time(equivalent, P, Q, method="modular", repeat=3)
    t_ex = best_time(equivalent, P, Q, method="exact", repeat=1)
    return {"ratio": t_ex / t_mod, "n": n, "modular_s": t_mod, "exact_s": t_ex,
            "modular_levels_per_s": n / t_mod, "exact_levels_per_s": n / t_ex}
