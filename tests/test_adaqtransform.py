"""theorylab.toys.ptq_transform (paper adaqtransform, a toy proxy): the quantiser against brute force over the grid,
the step search, the AdaRound-like rounding (floor/ceil only, locally optimal, better than nearest on calibration),
the per-channel fit against numpy's least squares, the fold and the merge against explicit formulas, bad input, and
a broken fold that a claim catches."""

import numpy as np
import pytest

from theorylab.toys import ptq_transform as T


@pytest.fixture(scope="module")
def small():
    layer = T.random_layer(12, 7, seed=1)
    Xc = T.layer_inputs(200, 12, seed=2)
    return layer, Xc


def test_quantize_is_the_nearest_grid_point():
    v = np.random.default_rng(0).normal(size=(5, 40)) * 3
    for bits in (1, 2, 3, 5):
        lo, hi = T.int_range(bits)
        grid = np.arange(lo, hi + 1)
        step = 0.7
        brute = grid[np.argmin(np.abs(v[..., None] / step - grid), axis=-1)]
        np.testing.assert_array_equal(T.quantize(v, step, bits), brute)
    assert T.int_range(2) == (-2, 1) and T.int_range(8) == (-128, 127)


def test_mse_step_is_the_best_ratio_of_its_grid():
    v = np.random.default_rng(1).standard_normal((3, 300))
    for bits in (2, 4):
        s = T.mse_step(v, bits)
        err = lambda st: ((v - st * T.quantize(v, st, bits)) ** 2).sum()
        for r in T.CLIP_RATIOS:
            assert err(s) <= err(r * np.abs(v).max() / 2 ** (bits - 1)) + 1e-12
        rows = T.mse_step(v, bits, per_row=True)
        assert rows.shape == (3, 1)
        assert rows[1, 0] == pytest.approx(T.mse_step(v[1:2], bits))
    np.testing.assert_allclose(T.absmax_step(v, 3, per_row=True)[:, 0], np.abs(v).max(1) / 3)


def _calib_error(layer, Xc, q):
    Xq = q.s_x * T.quantize(Xc, q.s_x, q.a_bits)
    return ((Xc @ layer.W.T - Xq @ (q.s_w[:, None] * q.W_int).T) ** 2).sum()


def test_adaptive_rounding_is_floor_or_ceil_and_locally_optimal(small):
    layer, Xc = small
    qn = T.quantize_layer(layer, Xc, w_bits=3, a_bits=3, rounding="nearest")
    qa = T.quantize_layer(layer, Xc, w_bits=3, a_bits=3, rounding="adaptive", sweeps=50)
    ratio = layer.W / qa.s_w[:, None]
    lo, hi = T.int_range(3)
    assert np.all((qa.W_int == np.clip(np.floor(ratio), lo, hi)) | (qa.W_int == np.clip(np.ceil(ratio), lo, hi)))
    base = _calib_error(layer, Xc, qa)
    assert base < _calib_error(layer, Xc, qn)
    for j in range(layer.W.shape[0]):                      # brute force: no single flip lowers the error
        for i in range(layer.W.shape[1]):
            for cand in {np.clip(np.floor(ratio[j, i]), lo, hi), np.clip(np.ceil(ratio[j, i]), lo, hi)}:
                W = qa.W_int.copy()
                W[j, i] = cand
                flipped = T.QuantLayer(W, qa.s_w, qa.b, qa.s_x, 3, 3)
                assert _calib_error(layer, Xc, flipped) >= base * (1 - 1e-10)


def test_quant_forward_and_fit_against_explicit_formulas(small):
    layer, Xc = small
    q = T.quantize_layer(layer, Xc, w_bits=2, a_bits=4, w_step="absmax")
    Xi = T.quantize(Xc, q.s_x, 4)
    explicit = np.array([[q.s_x * q.s_w[j] * sum(Xi[n, i] * q.W_int[j, i] for i in range(12)) + q.b[j]
                          for j in range(7)] for n in range(5)])
    yhat = T.quant_forward(q, Xc)
    np.testing.assert_allclose(yhat[:5], explicit, rtol=1e-12, atol=1e-12)
    y = T.float_forward(layer, Xc)
    xi, eta = T.fit_transform(yhat, y)
    for j in range(7):
        A = np.stack([yhat[:, j], np.ones(len(y))], axis=1)
        coef = np.linalg.lstsq(A, y[:, j], rcond=None)[0]
        np.testing.assert_allclose([xi[j], eta[j]], coef, rtol=1e-9, atol=1e-12)
    assert np.all(T.channel_mse(y, T.apply_transform(yhat, xi, eta)) <= T.channel_mse(y, yhat) * (1 + 1e-12))


def test_fold_and_merge_reproduce_the_transformed_output(small):
    layer, Xc = small
    q = T.quantize_layer(layer, Xc, w_bits=2, a_bits=2, rounding="adaptive")
    yhat = T.quant_forward(q, Xc)
    xi, eta = T.fit_transform(yhat, T.float_forward(layer, Xc))
    yt = T.apply_transform(yhat, xi, eta)
    f = T.fold_transform(q, xi, eta)
    np.testing.assert_array_equal(f.W_int, q.W_int)
    np.testing.assert_allclose(f.s_w, xi * q.s_w)
    np.testing.assert_allclose(T.quant_forward(f, Xc), yt, rtol=1e-13, atol=1e-13)
    V, c = np.random.default_rng(3).standard_normal((4, 7)), np.arange(4.0)
    Vm, cm = T.merge_into_next(V, c, xi, eta)
    np.testing.assert_allclose(yhat @ Vm.T + cm, yt @ V.T + c, rtol=1e-12, atol=1e-12)


def test_same_seed_same_numbers():
    np.testing.assert_array_equal(T.random_layer(5, 4, seed=3).W, T.random_layer(5, 4, seed=3).W)
    assert not np.array_equal(T.layer_inputs(10, 3, seed=1), T.layer_inputs(10, 3, seed=2))


def test_mutation_fold_without_xi_on_the_bias_is_caught(broken_claim):
    """b <- b + eta (xi dropped on the bias) instead of xi b + eta."""
    def wrong_fold(qlayer, xi, eta):
        return T.QuantLayer(qlayer.W_int, xi * qlayer.s_w, qlayer.b + eta, qlayer.s_x, qlayer.w_bits, qlayer.a_bits)

    r = broken_claim("adaqtransform:fold_same_layer_exact", (T, "fold_transform"), wrong_fold)
    assert r.verdict == "not reproduced", r.measured


@pytest.mark.parametrize("call, name", [
    (lambda: T.int_range(0), "bits"),
    (lambda: T.quantize(np.ones(3), 0.5, 0), "bits"),
    (lambda: T.quantize(np.ones(3), -0.5, 2), "step"),
    (lambda: T.quantize(np.ones(3), np.ones(2), 2), "step"),
    (lambda: T.mse_step(np.zeros((2, 3)), 2), "v"),
    (lambda: T.mse_step(np.ones((2, 3)), 2, per_row=1), "per_row"),
    (lambda: T.random_layer(0, 3), "d_in"),
    (lambda: T.random_layer(3, 3, bias_scale=-1.0), "bias_scale"),
    (lambda: T.layer_inputs(1, 3), "n"),
    (lambda: T.layer_inputs(5, 3, scale_ratio=0.5), "scale_ratio"),
    (lambda: T.quantize_layer("L", np.ones((4, 3))), "layer"),
    (lambda: T.quantize_layer(T.random_layer(3, 2), np.ones((4, 2))), "X_calib"),
    (lambda: T.quantize_layer(T.random_layer(3, 2), np.ones((4, 3)), w_bits=0), "w_bits"),
    (lambda: T.quantize_layer(T.random_layer(3, 2), np.ones((4, 3)), a_bits=0.5), "a_bits"),
    (lambda: T.quantize_layer(T.random_layer(3, 2), np.ones((4, 3)), rounding="stochastic"), "rounding"),
    (lambda: T.quantize_layer(T.random_layer(3, 2), np.ones((4, 3)), w_step="percentile"), "w_step"),
    (lambda: T.fit_transform(np.ones((1, 2)), np.ones((1, 2))), "yhat"),
    (lambda: T.fit_transform(np.ones((3, 2)), np.ones((3, 3))), "y"),
    (lambda: T.apply_transform(np.ones((3, 2)), np.ones(3), np.ones(2)), "xi"),
    (lambda: T.fold_transform("q", np.ones(2), np.ones(2)), "qlayer"),
    (lambda: T.merge_into_next(np.ones((2, 3)), np.ones(2), np.ones(3), np.ones(2)), "eta"),
    (lambda: T.QuantLayer(np.full((2, 2), 5.0), np.ones(2), np.zeros(2), 1.0, 2, 2), "W_int"),
    (lambda: T.QuantLayer(np.ones((2, 2)), np.ones(2), np.zeros(2), 0.0, 2, 2), "s_x"),
    (lambda: T.Layer(np.ones((2, 3)), np.ones(3)), "b"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()
