"""adaqtransform benchmark (toy proxy): the "no extra inference cost" of the transformation, measured.  The
quantised layer with (xi, eta) folded into its step and bias (theorylab.toys.fold_transform) against the
unfolded reference (the quantised layer, then xi * yhat + eta as a separate per-channel op), same process, same
inputs, d_in = d_out = 256 at W2A2, one BLAS thread.  ratio = unfolded time / folded time (>= 1: the fold costs
nothing; the extra op of the unfolded path is what it saves)."""

from theorylab.core import benchmark, best_time
from theorylab.core.parallel import blas_threads
from theorylab.toys import ptq_transform as T


def _unfolded(q, X, xi, eta):
    return T.apply_transform(T.quant_forward(q, X), xi, eta)


@benchmark("adaqtransform", "folded_vs_unfolded_inference")
def bench_folded_vs_unfolded(*, quick=False):
    """n = 16384 inputs (quick: 2048), best of 5 calls each."""
    n = 2048 if quick else 16384
    layer = T.random_layer(256, 256, seed=0)
    Xc, X = T.layer_inputs(1024, 256, seed=1), T.layer_inputs(n, 256, seed=2)
    q = T.quantize_layer(layer, Xc, w_bits=2, a_bits=2, w_step="absmax")
    xi, eta = T.fit_transform(T.quant_forward(q, Xc), T.float_forward(layer, Xc))
    folded = T.fold_transform(q, xi, eta)
    with blas_threads(1):
        t_fold = best_time(T.quant_forward, folded, X, repeat=5)
        t_ref = best_time(_unfolded, q, X, xi, eta, repeat=5)
    diff = float(abs(T.quant_forward(folded, X) - _unfolded(q, X, xi, eta)).max())
    return {"ratio": t_ref / t_fold, "folded_s": t_fold, "unfolded_s": t_ref, "n": n, "max_abs_diff": diff}
