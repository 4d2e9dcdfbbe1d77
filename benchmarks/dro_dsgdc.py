"""dro_dsgdc benchmark: the jitted D-SGD-C kernel (many independent runs) against the vectorised numpy reference
(all runs at once), same parameters and instance, in the same process.  ratio = numpy time / jit time."""

from theorylab.core import benchmark, best_time
from theorylab.stochastic.dro import dsgdc, dsgdc_numpy, make_instance, theorem_parameters


@benchmark("dro_dsgdc", "dsgdc_kernel")
def bench_dsgdc(*, quick=False):
    """n = 2000, d = 20, tanh loss, eps = 0.1 parameters (batch 400), 300 steps recorded every 10, 16 runs
    (quick: 60 steps, 4 runs)."""
    A, b = make_instance(2000, 20, seed=0)
    kw = dict(theorem_parameters(0.1), n_iter=60 if quick else 300, record_every=10, n_runs=4 if quick else 16,
              seed=0)
    dsgdc(A, b, **{**kw, "n_iter": 2, "n_runs": 1, "record_every": 1})          # compile outside the timing
    t_jit = best_time(dsgdc, A, b, repeat=1 if quick else 3, **kw)
    t_np = best_time(dsgdc_numpy, A, b, repeat=1, **kw)
    work = kw["n_runs"] * kw["n_iter"] * 2 * kw["batch"]
    return {"ratio": t_np / t_jit, "jit_s": t_jit, "numpy_s": t_np, "sample_gradients": work}
