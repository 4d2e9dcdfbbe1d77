"""theorylab.exact.highway: kernels vs their Python bodies, determinism, the exact truncation identities, the
numpy and sympy references, a broken variant the checks catch, and bad input."""

import numpy as np
import pytest

from theorylab.core import run_claim
from theorylab.exact import _kernels_highway as K
from theorylab.exact import highway as H
from theorylab.core import clear_experiments


def _inst(L=6, n=5, seed=0, kind="mlp"):
    net = H.residual_mlp(L, n, seed=seed) if kind == "mlp" else H.residual_attention(L // 2, 2, 2, seed=seed)
    rng = np.random.default_rng(seed)
    _, J = H.forward_jacobians(net, rng.standard_normal(net["n"]))
    return J, rng.standard_normal(net["n"])


def test_kernels_match_their_python_bodies():
    J, gL = _inst()
    JT = np.ascontiguousarray(np.transpose(J, (0, 2, 1)))
    for k in (0, 2, 6):
        a, b = np.empty((7, 5)), np.empty((7, 5))
        K.highway_kernel(JT, gL, k, a)
        K.highway_kernel.py_func(JT, gL, k, b)
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)
    a, b = np.empty((7, 5)), np.empty((7, 5))
    K.backprop_kernel(JT, gL, a)
    K.backprop_kernel.py_func(JT, gL, b)
    np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)


def test_same_seed_same_network():
    a, b = H.residual_mlp(4, 3, seed=5), H.residual_mlp(4, 3, seed=5)
    np.testing.assert_array_equal(a["W"], b["W"])
    assert not np.array_equal(H.residual_mlp(4, 3, seed=6)["W"], a["W"])


def test_backprop_against_numpy_products_and_jacobian_against_finite_differences():
    for kind in ("mlp", "attention"):
        J, gL = _inst(kind=kind)
        g, v = H.backprop(J, gL), gL.copy()
        for i in range(J.shape[0] - 1, -1, -1):
            v = (np.eye(J.shape[1]) + J[i]).T @ v
        np.testing.assert_allclose(g[0], v, rtol=1e-12)
    net = H.residual_attention(1, 2, 2, seed=3)
    x = np.linspace(-1, 1, 4)
    _, J = H.forward_jacobians(net, x)
    e = 1e-6
    Jfd = np.array([(H._block(net, 0, x + e * u).real - H._block(net, 0, x - e * u).real) / (2 * e)
                    for u in np.eye(4)]).T
    np.testing.assert_allclose(J[0], Jfd, atol=1e-8)


def test_truncation_identities_and_numpy_reference():
    J, gL = _inst(L=8, n=4, seed=2, kind="attention")
    L = J.shape[0]
    g = H.backprop(J, gL)
    for k in range(L + 1):
        gk = H.highway_bp(J, gL, k)
        np.testing.assert_allclose(gk, H.highway_bp_numpy(J, gL, k), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(gk[L - k:], g[L - k:], rtol=1e-12, atol=0)
        np.testing.assert_allclose(g[0] - gk[0], H.path_tail(J, gL, k), atol=1e-12 * np.abs(g[0]).max())
    c = H.path_coefficients(J, gL)
    np.testing.assert_allclose(c.sum(0), g[0], rtol=1e-12)


def test_sympy_reference_and_closed_form_bound():
    J, gL = _inst(L=3, n=2, seed=4)
    np.testing.assert_allclose(H.path_coefficients(J, gL), H.path_coefficients_sympy(J, gL), atol=1e-14)
    # commuting scalar Jacobians J_j = rho: ||c_{0,m}|| = binom(L, m) rho^m, the bound is attained
    L, rho = 7, 0.4
    Js = np.full((L, 1, 1), rho)
    for k in range(L):
        err = abs(H.backprop(Js, np.ones(1))[0, 0] - H.highway_bp(Js, np.ones(1), k)[0, 0])
        assert err == pytest.approx(H.tail_bound(L, k, rho), rel=1e-12)


def test_mutation_off_by_one_iteration_is_caught(broken_claim):
    real = H.highway_bp

    def broken(J, g_L, k):                       # one step short
        return real(J, g_L, max(k - 1, 0))

    for cid in ("exact_last_k_layers", "full_depth_is_bp", "error_is_path_tail"):
        r = broken_claim(f"highway_bp:{cid}", (H, "highway_bp"), broken)
        assert r.verdict == "not reproduced", (cid, r.measured)


def test_mutation_bound_exponent_is_caught(monkeypatch):
    monkeypatch.setattr(H, "tail_bound", lambda L, k, rho: sum(
        __import__("math").comb(L, m) * rho ** (m + 2) for m in range(k + 1, L + 1)))  # rho^{m+2}: too small
    J = np.full((6, 1, 1), 0.3)
    err = abs(H.backprop(J, np.ones(1))[0, 0] - H.highway_bp(J, np.ones(1), 2)[0, 0])
    assert err > H.tail_bound(6, 2, 0.3)


@pytest.mark.parametrize("call, name", [
    (lambda: H.highway_bp(np.zeros((3, 2, 3)), np.ones(2), 1), "J"),
    (lambda: H.highway_bp(np.zeros((3, 2, 2)), np.ones(2), 4), "k"),
    (lambda: H.highway_bp(np.zeros((3, 2, 2)), np.ones(2), -1), "k"),
    (lambda: H.highway_bp(np.zeros((3, 2, 2)), np.ones(3), 1), "g_L"),
    (lambda: H.backprop(np.full((3, 2, 2), np.nan), np.ones(2)), "J"),
    (lambda: H.backprop(np.zeros((0, 2, 2)), np.ones(2)), "J"),
    (lambda: H.path_tail(np.zeros((3, 2, 2)), np.ones(2), 5), "k"),
    (lambda: H.residual_mlp(0, 3), "L"),
    (lambda: H.residual_mlp(3, 3, rho=-1.0), "rho"),
    (lambda: H.residual_mlp(3, 10**6), "n"),
    (lambda: H.forward_jacobians(H.residual_mlp(2, 3), np.ones(4)), "x0"),
    (lambda: H.forward_jacobians("net", np.ones(4)), "net"),
    (lambda: H.tail_bound(5, 6, 0.3), "k"),
    (lambda: H.path_coefficients_sympy(np.zeros((20, 5, 5)), np.ones(5)), "symbolic"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()
