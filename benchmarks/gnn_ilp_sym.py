"""gnn_ilp_sym benchmarks: the jitted brute-force formulation-symmetry search over all of S_n
(theorylab.exact._kernels_ilp_orbits.symmetry_mask via formulation_symmetries) against its numpy reference
(formulation_symmetries_numpy, sorted row multisets per permutation), in the same process.
ratio = numpy time / jit time; both return the same group (asserted)."""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.exact.ilp_orbits import formulation_symmetries, formulation_symmetries_numpy, graph_colouring_ilp


@benchmark("gnn_ilp_sym", "symmetry_search")
def bench_symmetry_search(*, quick=False):
    """Path colouring with 2 colours: n = 6 (quick) or n = 8 (full-scale brute-force instances)."""
    V = 3 if quick else 4
    A, b, c = graph_colouring_ilp(tuple((v, v + 1) for v in range(V - 1)), V, 2)
    g = formulation_symmetries(A, b, c)                   # compile (or load the cache) outside the timing
    assert np.array_equal(g, formulation_symmetries_numpy(A, b, c))
    repeat = 2 if quick else 3
    t_jit = best_time(formulation_symmetries, A, b, c, repeat=repeat)
    t_np = best_time(formulation_symmetries_numpy, A, b, c, repeat=repeat)
    return {"ratio": t_np / t_jit, "jit_s": t_jit, "numpy_s": t_np, "n": A.shape[1], "m": A.shape[0]}
