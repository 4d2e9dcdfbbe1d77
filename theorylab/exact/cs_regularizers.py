"""Cauchy-Schwarz regularisers and the solution-recovery protocol (Taner, Wang, Studer, ICLR 2025,
"Cauchy-Schwarz Regularizers", arXiv:2503.01639; official code IIP-Group/CS_regularizers, solution_recovery/*.m).

Regularisers [R: the authors' binary_recovery.m, osb_ternary_recovery.m, eigvec_recovery.m]:

  ``bin``      l_bin(x)  = N sum x_i^4 - (sum x_i^2)^2                  zero set {-a, +a}^N
  ``bin_h``    sqrt(N) ||x||_4^2 - ||x||_2^2                            (code's l_bin,H; same zero set)
  ``bin_si``   sqrt(N) ||x||_4^2 / ||x||_2^2 - 1                        (code's ratio form, scale-invariant)
  ``l2l1``     N ||x||_2^2 - ||x||_1^2                                  (code's tilde l_bin)
  ``bbin``     N sum (1 + x_i^2)^-2 - (sum (1 + x_i^2)^-1)^2            (code's l_bbin)
  ``bin_exp``  N sum e^{-2 x_i^2} - (sum e^{-x_i^2})^2                  (code's tilde l_bin,exp)
  ``beta``     sum (x_i^2 - beta)^2, beta fixed                         (code's l_bin,beta=1; zero set {+-sqrt(beta)}^N)
  ``osb``      l_osb(x)  = (sum x^2)(sum x^4) - (sum x^3)^2             zero set {0, a}^N
  ``ter``      l_ter(x)  = (sum x^2)(sum x^6) - (sum x^4)^2             zero set {0, -a, +a}^N
  ``eig``      l_eig(x)  = ||Cx||^2 ||x||^2 - (x^T C x)^2, C symmetric   zero set: eigenvectors of C (and 0)

Why >= 0 and the zero sets [I, the Cauchy-Schwarz/Lagrange identity]: for vectors a, b,
||a||^2 ||b||^2 - <a, b>^2 = 1/2 sum_{i,j} (a_i b_j - a_j b_i)^2, zero iff a, b are parallel.  l_bin: a = 1,
b = x^2 (|x_i| constant); l_osb: a = x, b = x^2 (x_i^2 = c x_i); l_ter: a = x, b = x^3 (x_i^3 = c x_i); l_eig:
a = x, b = Cx (Cx = c x); l2l1: a = 1, b = |x|; bbin, bin_exp: a = 1, b = (1 + x^2)^-1 or e^{-x^2}, both
injective in |x_i|.  bin_h = l_bin / (sqrt(N) ||x||_4^2 + ||x||_2^2) and bin_si = bin_h / ||x||_2^2.
:func:`lagrange_form` evaluates the right-hand sides pairwise (the reference); :func:`sympy_identity` checks the
identities symbolically.

Recovery protocol [R: the same .m files]: A ~ N(0,1)^{M x N}, b = A x*, minimise l(x) subject to Ax = b by
projected accelerated gradient (FISTA with backtracking, max 1e4 iterations, tolerance 1e-8), start at the
projection of N(0, I), up to 10 starts for binary and eigenvector targets; success iff ||x - x*|| / ||x*|| < 1e-2.
Baselines: l_inf minimisation (binary) and l_1 minimisation (one-sided binary, ternary), solved here as linear
programmes by scipy.optimize.linprog (HiGHS) instead of the authors' Douglas-Rachford iteration.  For binary x*,
l_inf recovers x* iff null(A) meets the orthant {d : x*_i d_i <= 0} only at 0, which by Wendel's theorem
(Donoho & Tanner 2010, "Counting the faces of randomly-projected hypercubes and orthants") has probability
1 - 2^{1-N} sum_{k=0}^{N-M-1} binom(N-1, k) [third-party] (:func:`linf_success_probability`).
"""

from __future__ import annotations

import math

import numpy as np

from theorylab.core import (SimulationDiverged, check_array, check_budget, check_choice, check_int, check_positive,
                            check_real, require_finite, spawn_seeds)
from theorylab.exact import _kernels_cs_regularizers as K

__all__ = ["REGULARIZERS", "TARGETS", "regularizer", "regularizer_numpy", "lagrange_form", "sympy_identity",
           "target_points", "recovery_problems", "recover", "recover_scipy", "lp_baseline",
           "linf_success_probability", "projected_hessian", "restricted_newton"]

#: name -> (kernel code, degree of homogeneity or None, target set)
REGULARIZERS = {
    "bin": (K.BIN, 4, "binary"), "bin_h": (K.BIN_H, 2, "binary"), "bin_si": (K.BIN_SI, 0, "binary"),
    "l2l1": (K.L2L1, 2, "binary"), "bbin": (K.BBIN, None, "binary"), "bin_exp": (K.BIN_EXP, None, "binary"),
    "beta": (K.BETA, None, "binary_beta"), "osb": (K.OSB, 6, "one_sided"), "ter": (K.TER, 8, "ternary"),
    "eig": (K.EIG, 4, "eigvec"),
}
#: recovery targets: x* in {-1, 1}^N; {0, 1}^N (prob. 1/2 each); {-1, 0, 1}^N (1/4, 1/2, 1/4); a unit eigenvector
TARGETS = ("binary", "one_sided", "ternary", "eigvec")
MAX_N = 2000
_NO_C = np.zeros((1, 1, 1))


def _name(name):
    if not isinstance(name, str):
        raise TypeError(f"name must be one of {', '.join(map(repr, REGULARIZERS))}; got {name!r} "
                        f"of type {type(name).__name__}")
    return check_choice("name", name, tuple(REGULARIZERS))


def _as_rows(x):
    X = check_array("x", x)
    if X.ndim not in (1, 2) or X.shape[-1] < 2:
        raise ValueError(f"x must have shape (N,) or (n, N) with N >= 2; got {X.shape}")
    check_budget("x", X.size, N=X.shape[-1])
    if X.shape[-1] > MAX_N:
        raise ValueError(f"x must have N <= {MAX_N} entries per row; got N = {X.shape[-1]}")
    return X.reshape(-1, X.shape[-1]), X.ndim == 1


def _check_C(name, C, N, n=None):
    """C: symmetric (N, N) (or (n, N, N), one per row/trial) for ``eig``; for the other regularisers it is
    ignored, but a C that is given is still checked (a wrong C is an error whatever the mode)."""
    if name != "eig":
        if C is not None:
            _check_C("eig", C, N, n)
        return _NO_C
    if C is None:
        raise ValueError("C must be given for the regulariser 'eig' (a symmetric (N, N) matrix); got None")
    C = check_array("C", C)
    if C.ndim == 2:
        C = C[None]
    if C.ndim != 3 or C.shape[1:] != (N, N) or (n is not None and C.shape[0] not in (1, n)):
        raise ValueError(f"C must have shape ({N}, {N})" + (f" or ({n}, {N}, {N})" if n else "") + f"; got {C.shape}")
    if not np.allclose(C, np.transpose(C, (0, 2, 1)), rtol=1e-12, atol=1e-12 * max(1.0, float(np.abs(C).max()))):
        raise ValueError("C must be symmetric (l_eig's gradient assumes C = C^T)")
    if n is not None and C.shape[0] == 1 and n > 1:
        C = np.ascontiguousarray(np.broadcast_to(C, (n, N, N)))
    return C


def regularizer(name: str, x, *, C=None, beta: float = 1.0):
    """The regulariser ``name`` and its gradient (jitted): returns (l(x), grad l(x)); x of shape (N,) gives a float
    and an (N,) array, x of shape (n, N) gives (n,) values and (n, N) gradients (row-wise)."""
    name = _name(name)
    X, single = _as_rows(x)
    beta = check_real("beta", beta, low=0.0, low_open=True)
    Cs = _check_C(name, C, X.shape[1], X.shape[0])
    if name in ("bin_h", "bin_si") and np.any(np.all(X == 0, axis=1)):
        raise ValueError(f"x must be nonzero for {name!r} (it divides by ||x||_4^2); got a zero row")
    f, G = np.empty(X.shape[0]), np.empty_like(X)
    K.values_grads(REGULARIZERS[name][0], X, Cs, beta, f, G)
    require_finite("l(x)", f, regularizer=name)
    require_finite("grad l(x)", G, regularizer=name)
    return (float(f[0]), G[0]) if single else (f, G)


def regularizer_numpy(name: str, x, *, C=None, beta: float = 1.0):
    """The same values and gradients in vectorised numpy (the authors' formulas, written independently of the
    kernel); the plain reference of the tests and of :func:`recover_scipy`."""
    name = _name(name)
    X, single = _as_rows(x)
    beta = check_real("beta", beta, low=0.0, low_open=True)
    Cs = _check_C(name, C, X.shape[1], X.shape[0])
    f, G = _np_value_grad(name, X, Cs, beta)
    return (float(f[0]), G[0]) if single else (f, G)


def _np_value_grad(name, X, Cs, beta):
    N = X.shape[1]
    p = {k: (X ** k).sum(1, keepdims=True) for k in (2, 3, 4, 6)}
    if name == "bin":
        return (N * p[4] - p[2] ** 2)[:, 0], 4 * N * X ** 3 - 4 * p[2] * X
    if name == "bin_h":
        r = np.sqrt(p[4])
        return (math.sqrt(N) * r - p[2])[:, 0], 2 * math.sqrt(N) * X ** 3 / r - 2 * X
    if name == "bin_si":
        r = np.sqrt(p[4])
        return (math.sqrt(N) * r / p[2] - 1)[:, 0], math.sqrt(N) * (2 * X ** 3 * p[2] / r - 2 * r * X) / p[2] ** 2
    if name == "l2l1":
        s1 = np.abs(X).sum(1, keepdims=True)
        return (N * p[2] - s1 ** 2)[:, 0], 2 * N * X - 2 * s1 * np.sign(X)
    if name in ("bbin", "bin_exp"):
        u = 1 / (1 + X ** 2) if name == "bbin" else np.exp(-X ** 2)
        du = -2 * X * u ** 2 if name == "bbin" else -2 * X * u       # d u / d x
        s1 = u.sum(1, keepdims=True)
        return N * (u ** 2).sum(1) - s1[:, 0] ** 2, 2 * N * u * du - 2 * s1 * du
    if name == "beta":
        return ((X ** 2 - beta) ** 2).sum(1), 4 * (X ** 2 - beta) * X
    if name == "osb":
        return (p[2] * p[4] - p[3] ** 2)[:, 0], 2 * X * (p[4] + 2 * p[2] * X ** 2 - 3 * p[3] * X)
    if name == "ter":
        return (p[2] * p[6] - p[4] ** 2)[:, 0], 2 * X * (p[6] + 3 * p[2] * X ** 4 - 4 * p[4] * X ** 2)
    CX = np.einsum("kij,kj->ki", Cs, X)
    nx, q, r = p[2], (CX ** 2).sum(1, keepdims=True), (X * CX).sum(1, keepdims=True)
    CCX = np.einsum("kij,kj->ki", Cs, CX)
    return (q * nx - r ** 2)[:, 0], 2 * CCX * nx + 2 * q * X - 4 * r * CX


def _pairwise(a, b):
    """1/2 sum_{i,j} (a_i b_j - a_j b_i)^2 row-wise, evaluated pair by pair (the Lagrange form)."""
    D = a[:, :, None] * b[:, None, :] - a[:, None, :] * b[:, :, None]
    return 0.5 * (D ** 2).sum(axis=(1, 2))


def lagrange_form(name: str, x, *, C=None, beta: float = 1.0):
    """The sum-of-squares (Lagrange) form of regulariser ``name`` (module docstring), evaluated pairwise in numpy:
    equals :func:`regularizer`'s value by the Cauchy-Schwarz identity, and is >= 0 term by term."""
    name = _name(name)
    X, single = _as_rows(x)
    beta = check_real("beta", beta, low=0.0, low_open=True)
    check_budget("the pairwise table", X.shape[0] * X.shape[1] ** 2, n=X.shape[0], N=X.shape[1])
    Cs = _check_C(name, C, X.shape[1], X.shape[0])
    one = np.ones_like(X)
    N = X.shape[1]
    if name in ("bin", "bin_h", "bin_si"):
        v = _pairwise(one, X ** 2)
        if name != "bin":
            v = v / (math.sqrt(N) * np.sqrt((X ** 4).sum(1)) + (X ** 2).sum(1))
        if name == "bin_si":
            v = v / (X ** 2).sum(1)
    elif name == "l2l1":
        v = _pairwise(one, np.abs(X))
    elif name in ("bbin", "bin_exp"):
        v = _pairwise(one, 1 / (1 + X ** 2) if name == "bbin" else np.exp(-X ** 2))
    elif name == "beta":
        v = ((X ** 2 - beta) ** 2).sum(1)
    elif name == "osb":
        v = _pairwise(X, X ** 2)
    elif name == "ter":
        v = _pairwise(X, X ** 3)
    else:
        v = _pairwise(X, np.einsum("kij,kj->ki", Cs, X))
    return float(v[0]) if single else v


def sympy_identity(name: str, N: int = 4):
    """sympy check of the identity l(x) = Lagrange form (module docstring) for symbolic x_1..x_N (and a symbolic
    symmetric C for ``eig``, N <= 4): returns ``(lhs, rhs, expand(lhs - rhs))``; the identity holds iff the last is 0.
    bbin and bin_exp are checked in the variables u_i = (1 + x_i^2)^-1 or e^{-x_i^2}, l2l1 in a_i = |x_i| >= 0;
    bin_h as bin_h * (sqrt(N) ||x||_4^2 + ||x||_2^2) = l_bin."""
    import sympy as sp

    name = _name(name)
    N = check_int("N", N, low=2, high=6 if name != "eig" else 4)
    x = sp.symbols(f"x1:{N + 1}", real=True)
    half = sp.Rational(1, 2)

    def pairs(a, b):
        return half * sum((a[i] * b[j] - a[j] * b[i]) ** 2 for i in range(N) for j in range(N))

    P = {k: sum(xi ** k for xi in x) for k in (2, 3, 4, 6)}
    one = [1] * N
    if name in ("bin", "bin_h", "bin_si"):
        lbin = N * P[4] - P[2] ** 2
        rhs = pairs(one, [xi ** 2 for xi in x])
        if name == "bin":
            lhs = lbin
        else:                                   # (sqrt(N) ||x||_4^2 - ||x||_2^2)(sqrt(N) ||x||_4^2 + ||x||_2^2)
            r4 = sp.sqrt(P[4])
            lhs = (sp.sqrt(N) * r4 - P[2]) * (sp.sqrt(N) * r4 + P[2])
            if name == "bin_si":
                lhs = (sp.sqrt(N) * r4 / P[2] - 1) * P[2] * (sp.sqrt(N) * r4 + P[2])
    elif name == "l2l1":
        a = sp.symbols(f"a1:{N + 1}", nonnegative=True)
        lhs, rhs = N * sum(ai ** 2 for ai in a) - sum(a) ** 2, pairs(one, a)
    elif name in ("bbin", "bin_exp"):
        u = sp.symbols(f"u1:{N + 1}", positive=True)
        lhs, rhs = N * sum(ui ** 2 for ui in u) - sum(u) ** 2, pairs(one, u)
    elif name == "beta":
        b = sp.symbols("beta", positive=True)
        lhs, rhs = sum(xi ** 4 for xi in x) - 2 * b * P[2] + N * b ** 2, sum((xi ** 2 - b) ** 2 for xi in x)
    elif name == "osb":
        lhs, rhs = P[2] * P[4] - P[3] ** 2, pairs(x, [xi ** 2 for xi in x])
    elif name == "ter":
        lhs, rhs = P[2] * P[6] - P[4] ** 2, pairs(x, [xi ** 3 for xi in x])
    else:
        Cm = sp.Matrix(N, N, lambda i, j: sp.Symbol(f"c{min(i, j) + 1}{max(i, j) + 1}", real=True))
        xv = sp.Matrix(x)
        Cx = Cm * xv
        lhs = (Cx.T * Cx)[0] * (xv.T * xv)[0] - (xv.T * Cx)[0] ** 2
        rhs = pairs(list(x), list(Cx))
    diff = sp.expand(lhs - rhs)
    return lhs, rhs, (sp.expand(sp.cancel(sp.together(diff))) if diff != 0 else diff)


def target_points(name: str, n: int, N: int, *, seed: int = 0, C=None, beta: float = 1.0):
    """n random nonzero points of the zero set of ``name`` in R^N, random scale a ~ U(0.1, 10): {+-a}^N for the binary
    family, {+-sqrt(beta)}^N for ``beta``, {0, a}^N for osb, {0, +-a}^N for ter, a * (unit eigenvector of C) for eig."""
    name = _name(name)
    n = check_int("n", n, low=1, high=10**6)
    N = check_int("N", N, low=2, high=MAX_N)
    check_budget("the target points", n * N, n=n, N=N)
    beta = check_real("beta", beta, low=0.0, low_open=True)
    Cs = _check_C(name, C, N)  # a C that is given is checked whatever the family (used by eig only)
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    a = rng.uniform(0.1, 10.0, (n, 1))
    target = REGULARIZERS[name][2]
    if target == "binary":
        return a * rng.choice([-1.0, 1.0], (n, N))
    if target == "binary_beta":
        return math.sqrt(beta) * rng.choice([-1.0, 1.0], (n, N))
    if target in ("one_sided", "ternary"):
        S = rng.integers(0, 2, (n, N)).astype(float) if target == "one_sided" else rng.choice([-1.0, 0.0, 1.0], (n, N))
        S[np.all(S == 0, axis=1), 0] = 1.0            # nonzero points (0 is a trivial zero of every form)
        return a * S
    _, V = np.linalg.eigh(Cs[0])
    return a * V[:, rng.integers(0, N, n)].T


def recovery_problems(target: str, M: int, N: int = 100, n_trials: int = 100, *, seed: int = 0) -> dict:
    """n_trials independent instances of the recovery protocol: A ~ N(0,1)^{M x N}, x* drawn from ``target``
    (module docstring; eigvec: C = (G + G^T)/2, G ~ N(0,1)^{N x N}, x* a uniformly chosen unit eigenvector),
    b = A x*.  Returns a dict with A, b, x_star, U (orthonormal basis of range(A^T), N x M), c = U^T x*, C."""
    check_choice("target", target, TARGETS)
    N = check_int("N", N, low=2, high=MAX_N)
    M = check_int("M", M, low=1, high=N - 1)
    n_trials = check_int("n_trials", n_trials, low=1, high=10**6)
    check_budget("the recovery problems", n_trials * N * (2 * M + (N if target == "eigvec" else 0)),
                 n_trials=n_trials, N=N, M=M)
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    A = rng.standard_normal((n_trials, M, N))
    C = _NO_C
    if target == "binary":
        xs = np.sign(rng.standard_normal((n_trials, N)))
    elif target == "one_sided":
        xs = rng.integers(0, 2, (n_trials, N)).astype(float)
    elif target == "ternary":
        xs = rng.choice([-1.0, 0.0, 0.0, 1.0], (n_trials, N))
    else:
        G = rng.standard_normal((n_trials, N, N))
        C = 0.5 * (G + np.transpose(G, (0, 2, 1)))
        _, V = np.linalg.eigh(C)
        xs = V[np.arange(n_trials), :, rng.integers(0, N, n_trials)]
    U = np.linalg.qr(np.transpose(A, (0, 2, 1)))[0]
    U = np.ascontiguousarray(U)
    b = np.einsum("kmn,kn->km", A, xs)
    return {"target": target, "A": A, "b": b, "x_star": xs, "U": U, "c": np.einsum("knm,kn->km", U, xs), "C": C,
            "M": M, "N": N}


def _check_problems(problems, name=None):
    keys = ("target", "A", "b", "x_star", "U", "c", "C", "M", "N")
    if not isinstance(problems, dict) or problems.get("target") not in TARGETS or any(k not in problems for k in keys):
        raise TypeError(f"problems must be the dict returned by recovery_problems (keys {', '.join(keys)}); got "
                        f"{type(problems).__name__}" + (f" with keys {sorted(map(str, problems))}"
                                                        if isinstance(problems, dict) else ""))
    N = check_int("problems['N']", problems["N"], low=2, high=MAX_N)
    M = check_int("problems['M']", problems["M"], low=1, high=N - 1)
    A = check_array("problems['A']", problems["A"], ndim=3)
    n = A.shape[0]
    for key, shape in (("A", (n, M, N)), ("b", (n, M)), ("x_star", (n, N)), ("U", (n, N, M)), ("c", (n, M))):
        problems[key] = check_array(f"problems[{key!r}]", problems[key], shape=shape)
    if problems["target"] == "eigvec":
        problems["C"] = _check_C("eig", problems["C"], N, n)
    if name == "eig" and problems["target"] != "eigvec":
        raise ValueError(f"name 'eig' needs problems with target 'eigvec' (it uses their C); got {problems['target']!r}")
    return n, N, M


def recover(name: str, problems: dict, *, starts: int = 10, max_iter: int = 10_000, tol: float = 1e-8,
            thr_rec: float = 1e-2, beta: float = 1.0, seed: int = 0) -> dict:
    """The authors' recovery protocol with the jitted projected FISTA (kernel docstring): for each trial minimise
    l_name over {Ax = b} from up to ``starts`` random starts (stop at the first success).  Returns per-trial arrays:
    success, success_first (first start alone), starts, iters, relerr, value (l at the end point), resid
    (||P grad l|| / ||grad l|| at the end), x_hat."""
    name = _name(name)
    n, N, M = _check_problems(problems, name)
    starts = check_int("starts", starts, low=1, high=1000)
    max_iter = check_int("max_iter", max_iter, low=1, high=10**6)
    check_budget("the solver iterations", n * starts * max_iter, n_trials=n, starts=starts, max_iter=max_iter)
    tol = check_real("tol", tol, low=0.0, high=1.0)
    thr_rec = check_real("thr_rec", thr_rec, low=0.0)
    beta = check_real("beta", beta, low=0.0, low_open=True)
    seed = check_int("seed", seed, low=0)
    out = dict(x_hat=np.empty((n, N)), starts=np.empty(n, np.int64), iters=np.empty(n, np.int64),
               relerr=np.empty(n), value=np.empty(n), resid=np.empty(n), relerr_first=np.empty(n))
    C = problems["C"] if name == "eig" else _NO_C
    K.recover_trials(REGULARIZERS[name][0], problems["U"], problems["c"], problems["x_star"], C, beta, starts,
                     max_iter, tol, thr_rec, spawn_seeds(seed, n), out["x_hat"], out["starts"], out["iters"],
                     out["relerr"], out["value"], out["resid"], out["relerr_first"])
    if not (np.all(np.isfinite(out["x_hat"])) and np.all(np.isfinite(out["value"]))):
        bad = int(np.argwhere(~np.isfinite(out["value"]) | ~np.all(np.isfinite(out["x_hat"]), 1))[0, 0])
        raise SimulationDiverged(f"recovery with {name!r} diverged in trial {bad} (M={M}, N={N})")
    out["success"] = out["relerr"] < thr_rec
    out["success_first"] = out["relerr_first"] < thr_rec
    return out


def recover_scipy(name: str, problems: dict, *, starts: int = 10, thr_rec: float = 1e-2, beta: float = 1.0,
                  seed: int = 0) -> dict:
    """Reference solver (the spec's stand-in for FISTA): scipy L-BFGS on the null-space parametrisation
    x = x0 + Z w of {Ax = b} with the numpy regulariser (:func:`regularizer_numpy`), the same start law (projection
    of N(0, I)) and the same restart rule; no oracle stop, success judged at convergence.  Returns success, starts,
    relerr."""
    from scipy.linalg import null_space
    from scipy.optimize import minimize

    name = _name(name)
    n, N, M = _check_problems(problems, name)
    starts = check_int("starts", starts, low=1, high=1000)
    check_budget("the scipy solves", n * starts * N * N, n_trials=n, starts=starts, N=N)
    thr_rec = check_real("thr_rec", thr_rec, low=0.0)
    beta = check_real("beta", beta, low=0.0, low_open=True)
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    success, used, relerr = np.zeros(n, bool), np.zeros(n, np.int64), np.empty(n)
    for i in range(n):
        U, xs = problems["U"][i], problems["x_star"][i]
        Z = null_space(U.T)
        Ci = problems["C"][i:i + 1] if name == "eig" else _NO_C

        def fun(w, x0):
            f, G = _np_value_grad(name, (x0 + Z @ w)[None], Ci, beta)
            return float(f[0]), Z.T @ G[0]

        for s in range(starts):
            z = rng.standard_normal(N)
            x0 = z - U @ (U.T @ z - problems["c"][i])
            res = minimize(fun, np.zeros(N - M), args=(x0,), jac=True, method="L-BFGS-B",
                           options=dict(maxiter=10_000, gtol=1e-12, ftol=1e-15))
            x = x0 + Z @ res.x
            relerr[i], used[i] = np.linalg.norm(x - xs) / np.linalg.norm(xs), s + 1
            if relerr[i] < thr_rec:
                success[i] = True
                break
    return {"success": success, "starts": used, "relerr": relerr}


def lp_baseline(problems: dict, norm: str = "inf", *, thr_rec: float = 1e-2) -> dict:
    """Convex baseline by linear programming (scipy.optimize.linprog, HiGHS): min ||x||_inf (``norm="inf"``, the
    binary baseline) or min ||x||_1 (``norm="1"``, the sparse baseline) subject to Ax = b.  Returns success, relerr,
    x_hat per trial."""
    from scipy.optimize import linprog

    n, N, M = _check_problems(problems)
    check_choice("norm", norm, ("inf", "1"))
    thr_rec = check_real("thr_rec", thr_rec, low=0.0)
    x_hat = np.empty((n, N))
    I = np.eye(N)
    for i in range(n):
        A, b = problems["A"][i], problems["b"][i]
        if norm == "inf":              # variables (x, t): min t, -t <= x_i <= t
            cost = np.r_[np.zeros(N), 1.0]
            A_ub = np.block([[I, -np.ones((N, 1))], [-I, -np.ones((N, 1))]])
            res = linprog(cost, A_ub=A_ub, b_ub=np.zeros(2 * N), A_eq=np.c_[A, np.zeros(M)], b_eq=b,
                          bounds=[(None, None)] * (N + 1), method="highs")
            x_hat[i] = res.x[:N]
        else:                          # x = u - v, u, v >= 0: min sum(u + v)
            res = linprog(np.ones(2 * N), A_eq=np.c_[A, -A], b_eq=b, bounds=[(0, None)] * (2 * N), method="highs")
            x_hat[i] = res.x[:N] - res.x[N:]
        if res.status != 0:
            raise SimulationDiverged(f"linprog failed in trial {i} (norm={norm}, M={M}, N={N}): {res.message}")
    relerr = np.linalg.norm(x_hat - problems["x_star"], axis=1) / np.linalg.norm(problems["x_star"], axis=1)
    return {"success": relerr < thr_rec, "relerr": relerr, "x_hat": x_hat}


def linf_success_probability(M: int, N: int) -> float:
    """P(l_inf minimisation recovers a binary x* from M Gaussian measurements) = 1 - 2^{1-N} sum_{k<N-M}
    binom(N-1, k) (Wendel's theorem applied to the orthant cone at x*; Donoho & Tanner 2010) [third-party]."""
    N = check_int("N", N, low=1, high=100_000)
    M = check_int("M", M, low=0, high=N)
    tail = sum(math.comb(N - 1, k) for k in range(N - M))
    return float(1 - math.ldexp(tail, 1 - N)) if N > 1 else float(M >= 1)


def _check_point(name, x, U):
    x = check_array("x", x, ndim=1)
    N = x.size
    if N < 2:
        raise ValueError(f"x must be a point of R^N with N >= 2 entries; got shape {x.shape}")
    U = check_array("U", U, ndim=2)
    if U.shape[0] != N or U.shape[1] >= N:
        raise ValueError(f"U must have shape ({N}, M) with M < {N}; got {U.shape}")
    if N > 500:
        raise ValueError(f"x must have N <= 500 entries for the finite-difference Hessian; got N = {N}")
    if not np.any(x):
        raise ValueError("x must be nonzero")
    return x, U


def _hessian(name, x, C, beta, h):
    """Hessian of l at x by central differences of the jitted gradient (symmetrised)."""
    E = h * np.eye(x.size)
    H = (regularizer(name, x + E, C=C, beta=beta)[1] - regularizer(name, x - E, C=C, beta=beta)[1]) / (2 * h)
    return 0.5 * (H + H.T)


def projected_hessian(name: str, x, U, *, C=None, beta: float = 1.0):
    """Eigenvalues (ascending) of Z^T H Z, H the Hessian of l at x (central differences of the jitted gradient,
    step 1e-5 ||x||_inf), Z an orthonormal basis of null(A) = range(U)^perp: the second-order information of l
    restricted to {Ax = b} (at a stationary point, the inertia of these eigenvalues classifies it)."""
    from scipy.linalg import null_space

    name = _name(name)
    x, U = _check_point(name, x, U)
    Z = null_space(U.T)
    return np.linalg.eigvalsh(Z.T @ _hessian(name, x, C, beta, 1e-5 * np.abs(x).max()) @ Z)


def restricted_newton(name: str, x, U, *, C=None, beta: float = 1.0, steps: int = 10, tol: float = 1e-13):
    """Newton's method for a stationary point of l restricted to {Ax = b} (steps in null(A), so a feasible x stays
    feasible): x <- x - Z (Z^T H Z)^{-1} Z^T grad l(x), H by central differences.  Polishes an end point of the
    first-order solver to a stationary point to ~1e-13; ``steps`` >= 1 Newton steps at most.  Returns
    (x, ||Z^T grad l|| / ||grad l||)."""
    from scipy.linalg import null_space

    name = _name(name)
    x, U = _check_point(name, x, U)
    steps = check_int("steps", steps, low=1, high=100)
    tol = check_real("tol", tol, low=0.0)
    Z = null_space(U.T)
    x = x.copy()
    for _ in range(steps + 1):
        g = regularizer(name, x, C=C, beta=beta)[1]
        r = Z.T @ g
        rel = float(np.linalg.norm(r) / np.linalg.norm(g)) if np.any(g) else 0.0
        if rel <= tol:
            break
        Hz = Z.T @ _hessian(name, x, C, beta, 1e-5 * np.abs(x).max()) @ Z
        try:
            x = x - Z @ np.linalg.solve(Hz, r)
        except np.linalg.LinAlgError:
            break
    require_finite("x", x, regularizer=name)
    return x, rel
