"""Residual networks with explicit per-layer Jacobians, backpropagation (BP) and Highway-BP
(Fagnou, Caillon, Delattre, Allauzen, ICLR 2025, arXiv:2501.17086).

Network (spec, [I]): x_{i+1} = x_i + f_i(x_i), i = 0..L-1, J_i = df_i/dx_i at the forward activations,
g_L = dl/dx_L.  BP: g_i = (I + J_i)^T g_{i+1}.  Telescoping gives g_i = g_L + sum_{j>=i} J_j^T g_{j+1}.

Highway-BP k-step iteration [derived, consistent with the reviews' description of Theorem 1 and of the
"CumSumProd" accumulation; the paper's eqs. 6 and 8 were not read]:

    g^(0)_i = g_L;   u_j = J_j^T g^(t)_{j+1} (all j);   g^(t+1)_i = g_L + sum_{j>=i} u_j.

Derivation: write P_i(z) = prod_{j=i}^{L-1} (I + z J_j^T) g_L (the product ordered i, i+1, ..., L-1 left
to right), a polynomial in the scalar marker z whose coefficient c_{i,m} collects the paths through exactly m
blocks.  P_i = g_L + z sum_{j>=i} J_j^T P_{j+1} (telescoping).  If g^(t)_{j} = sum_{m<=t} c_{j,m} for all j,
then the iteration gives g^(t+1)_i = g_L + sum_{j>=i} J_j^T sum_{m<=t} c_{j+1,m} = sum_{m<=t+1} c_{i,m}; by
induction g^(k)_i is the truncation of P_i(1) at degree k.  Since P_i has degree L - i, g^(k)_i = g_i for
i >= L - k and g^(L) = BP; and g_i - g^(k)_i = sum_{m>k} c_{i,m} (the path tail).  With ||J_j|| <= rho,
||c_{0,m}|| <= binom(L, m) rho^m ||g_L||, hence ||g_0 - g^(k)_0|| <= rho^{k+1} C(L, k) ||g_L||,
C(L, k) = sum_{m>k} binom(L, m) rho^{m-k-1} (the spec's one-sided bound).
"""

from __future__ import annotations

import math

import numpy as np

from theorylab.core import check_array, check_budget, check_choice, check_int, check_positive, require_finite
from theorylab.exact import _kernels_highway as K

__all__ = ["residual_mlp", "residual_attention", "forward_jacobians", "backprop", "highway_bp",
           "highway_bp_numpy", "path_coefficients", "path_tail", "tail_bound", "path_coefficients_sympy"]

MAX_WIDTH = 512


def _rng(seed):
    return np.random.default_rng(check_int("seed", seed, low=0))


def residual_mlp(L: int = 12, n: int = 16, *, hidden: int | None = None, rho: float | None = None,
                 seed: int = 0) -> dict:
    """A residual tanh-MLP: f_i(x) = A_i tanh(W_i x + b_i), W_i (hidden, n), A_i (n, hidden), Gaussian
    weights with variance 1/fan-in scaled by 0.5.  With ``rho`` set, A_i is rescaled so that
    ||A_i||_2 ||W_i||_2 = rho, hence ||J_i||_2 <= rho at every input (|tanh'| <= 1)."""
    L = check_int("L", L, low=1, high=4096)
    n = check_int("n", n, low=1, high=MAX_WIDTH)
    hidden = n if hidden is None else check_int("hidden", hidden, low=1, high=MAX_WIDTH)
    check_budget("the weights", 2 * L * n * hidden, L=L, n=n, hidden=hidden)
    r = _rng(seed)
    W = 0.5 * r.standard_normal((L, hidden, n)) / math.sqrt(n)
    A = 0.5 * r.standard_normal((L, n, hidden)) / math.sqrt(hidden)
    b = 0.1 * r.standard_normal((L, hidden))
    if rho is not None:
        rho = check_positive("rho", rho)
        for i in range(L):
            A[i] *= rho / (np.linalg.norm(A[i], 2) * np.linalg.norm(W[i], 2))
    return {"kind": "mlp", "W": W, "A": A, "b": b, "n": n, "L": L}


def residual_attention(L: int = 6, tokens: int = 4, d_model: int = 4, *, seed: int = 0) -> dict:
    """A small transformer-like residual stack on X (tokens, d_model), flattened to n = tokens * d_model:
    each layer is an attention block X + softmax(X Q K^T X^T / sqrt(d)) X V followed by a residual tanh
    feed-forward block X + tanh(X W1) W2.  Counted as 2L residual blocks."""
    L = check_int("L", L, low=1, high=1024)
    tokens = check_int("tokens", tokens, low=1, high=64)
    d_model = check_int("d_model", d_model, low=1, high=64)
    r = _rng(seed)
    s = 0.5 / math.sqrt(d_model)
    P = {k: s * r.standard_normal((L, d_model, d_model)) for k in ("Q", "K", "V", "W1", "W2")}
    return {"kind": "attention", **P, "tokens": tokens, "d_model": d_model, "n": tokens * d_model, "L": 2 * L}


def _block(net, i, x):
    """f_i(x) for block i (works on complex x, for the complex-step Jacobian)."""
    if net["kind"] == "mlp":
        return net["A"][i] @ np.tanh(net["W"][i] @ x + net["b"][i])
    T, d = net["tokens"], net["d_model"]
    X, layer = x.reshape(T, d), i // 2
    if i % 2 == 0:
        S = (X @ net["Q"][layer]) @ (X @ net["K"][layer]).T / math.sqrt(d)
        E = np.exp(S - S.real.max(axis=1, keepdims=True))
        return ((E / E.sum(axis=1, keepdims=True)) @ X @ net["V"][layer]).reshape(-1)
    return (np.tanh(X @ net["W1"][layer]) @ net["W2"][layer]).reshape(-1)


def _jacobian(net, i, x):
    if net["kind"] == "mlp":                    # exact: A diag(tanh') W
        h = np.tanh(net["W"][i] @ x + net["b"][i])
        return net["A"][i] @ ((1 - h ** 2)[:, None] * net["W"][i])
    n, eps = x.size, 1e-30                      # complex step: exact to rounding (no cancellation)
    J = np.empty((n, n))
    for c in range(n):
        e = x.astype(complex)
        e[c] += 1j * eps
        J[:, c] = _block(net, i, e).imag / eps
    return J


def forward_jacobians(net: dict, x0) -> tuple[np.ndarray, np.ndarray]:
    """Forward pass x_{i+1} = x_i + f_i(x_i); returns (x of shape (L+1, n), J of shape (L, n, n))."""
    if not isinstance(net, dict) or net.get("kind") not in ("mlp", "attention"):
        raise TypeError(f"net must come from residual_mlp or residual_attention; got {type(net).__name__}")
    n, L = net["n"], net["L"]
    x0 = check_array("x0", x0, shape=(n,))
    xs, J = np.empty((L + 1, n)), np.empty((L, n, n))
    xs[0] = x0
    for i in range(L):
        J[i] = _jacobian(net, i, xs[i])
        xs[i + 1] = xs[i] + _block(net, i, xs[i]).real
    require_finite("forward activations", xs, L=L)
    return xs, J


def _check_J(J, gL):
    J = check_array("J", J, ndim=3)
    if J.shape[0] < 1 or J.shape[1] != J.shape[2] or J.shape[1] < 1:
        raise ValueError(f"J must have shape (L, n, n) with L, n >= 1 (square Jacobians); got {J.shape}")
    check_budget("the Jacobians", J.size, L=J.shape[0], n=J.shape[1])
    gL = check_array("g_L", gL, shape=(J.shape[1],))
    return np.ascontiguousarray(np.transpose(J, (0, 2, 1))), gL


def backprop(J, g_L) -> np.ndarray:
    """BP along x_{i+1} = x_i + f_i(x_i): g_i = (I + J_i)^T g_{i+1}; returns g of shape (L+1, n)."""
    JT, gL = _check_J(J, g_L)
    g = np.empty((JT.shape[0] + 1, JT.shape[1]))
    K.backprop_kernel(JT, gL, g)
    return require_finite("g", g)


def highway_bp(J, g_L, k: int) -> np.ndarray:
    """g^(k) after k Highway-BP steps (module docstring, [derived]); k in [0, L]; shape (L+1, n)."""
    JT, gL = _check_J(J, g_L)
    k = check_int("k", k, low=0, high=JT.shape[0])
    g = np.empty((JT.shape[0] + 1, JT.shape[1]))
    K.highway_kernel(JT, gL, k, g)
    return require_finite("g^(k)", g)


def highway_bp_numpy(J, g_L, k: int) -> np.ndarray:
    """The same iteration in vectorised numpy (batched J_j^T v by einsum, reverse cumsum)."""
    JT, gL = _check_J(J, g_L)
    k = check_int("k", k, low=0, high=JT.shape[0])
    g = np.tile(gL, (JT.shape[0] + 1, 1))
    for _ in range(k):
        u = np.einsum("jab,jb->ja", JT, g[1:])
        g[:-1] = gL + np.cumsum(u[::-1], axis=0)[::-1]
    return require_finite("g^(k)", g)


def path_coefficients(J, g_L, i: int = 0) -> np.ndarray:
    """c_{i,m}, m = 0..L-i: the coefficients of P_i(z) = prod_{j>=i} (I + z J_j^T) g_L, by multiplying the
    factors into the polynomial one layer at a time (from j = L-1 down to i); shape (L-i+1, n)."""
    JT, gL = _check_J(J, g_L)
    L = JT.shape[0]
    i = check_int("i", i, low=0, high=L)
    c = np.zeros((L - i + 1, JT.shape[1]))
    c[0] = gL
    for j in range(L - 1, i - 1, -1):
        deg = L - j                                     # degree after multiplying by (I + z J_j^T)
        c[1:deg + 1] = c[1:deg + 1] + c[0:deg] @ JT[j].T
    return c


def path_tail(J, g_L, k: int, i: int = 0) -> np.ndarray:
    """sum_{m>k} c_{i,m}: the gradient carried by the paths through more than k blocks."""
    c = path_coefficients(J, g_L, i)
    k = check_int("k", k, low=0, high=np.shape(J)[0])
    return c[k + 1:].sum(axis=0)


def tail_bound(L: int, k: int, rho: float) -> float:
    """rho^{k+1} C(L, k), C(L, k) = sum_{m>k} binom(L, m) rho^{m-k-1}  [derived]: bounds ||g_0 - g^(k)_0|| / ||g_L||
    when every ||J_j||_2 <= rho."""
    L = check_int("L", L, low=1, high=100_000)
    k = check_int("k", k, low=0, high=L)
    rho = check_positive("rho", rho)
    return float(sum(math.comb(L, m) * rho ** m for m in range(k + 1, L + 1)))


def path_coefficients_sympy(J, g_L, i: int = 0) -> np.ndarray:
    """Symbolic reference: expand prod_{j>=i} (I + z J_j^T) g_L with sympy (rational entries of J, g_L
    as given in float, converted exactly) and read the coefficients of z^m.  Tiny instances only."""
    import sympy as sp

    JT, gL = _check_J(J, g_L)
    L, n = JT.shape[0], JT.shape[1]
    i = check_int("i", i, low=0, high=L)
    check_budget("the symbolic expansion", (L - i) * n * n, max_elements=400, L=L, n=n)
    z = sp.Symbol("z")
    v = sp.Matrix([sp.Rational(float(a)) for a in gL])
    for j in range(L - 1, i - 1, -1):
        M = sp.Matrix(n, n, lambda a, b: sp.Rational(float(JT[j, a, b])))
        v = (sp.eye(n) + z * M) * v
    polys = [sp.Poly(sp.expand(e), z) for e in v]
    out = np.zeros((L - i + 1, n))
    for a, p in enumerate(polys):
        for (m,), coef in p.terms():
            out[m, a] = float(coef)
    return out
