"""gmm_onestep benchmark: one trial of theorylab.highdim.one_step_trial (the network and the Hermite models of degree
1, 2, 4 read one pre-activation matrix F^ X^T and one readout sample) against the naive numpy reference that
recomputes the step, the pre-activations and the data per model (what a per-model loop does); d = n = m = k = 300
(quick: 150), same seeds, same numbers.  ratio = reference time / shared time (no hot loop: both are BLAS-bound)."""

import numpy as np

from theorylab.core import benchmark, best_time
from theorylab.highdim import one_step as O


def _per_model(mix, xi, d, eta):
    """The reference: one one_step_trial call per model (the step and the data recomputed each time)."""
    out = {"nn": O.one_step_trial(mix, xi, k=d, m=d, eta=eta, degrees=(), seed=1)["nn"]}
    for l in (1, 2, 4):
        out[l] = O.one_step_trial(mix, xi, k=d, m=d, eta=eta, degrees=(l,), seed=1)[l]
    return out


@benchmark("gmm_onestep", "shared_preactivations")
def bench_shared_preactivations(*, quick=False):
    from theorylab.core.parallel import blas_threads

    d = 150 if quick else 300
    eta, theta = d ** 0.39, d ** 0.39
    mix = O.spiked_mixture(d, [theta, theta], seed=0)
    xi = O.target_direction(mix, seed=1)
    with blas_threads(1):
        t_shared = best_time(O.one_step_trial, mix, xi, repeat=3, k=d, m=d, eta=eta, seed=1)
        t_ref = best_time(_per_model, mix, xi, d, eta, repeat=3)
        a = O.one_step_trial(mix, xi, k=d, m=d, eta=eta, seed=1)
        b = _per_model(mix, xi, d, eta)
    return {"ratio": t_ref / t_shared, "reference_s": t_ref, "shared_s": t_shared, "d": d,
            "max_abs_diff": float(max(abs(np.array(a[k]) - np.array(b[k])).max() for k in a))}
