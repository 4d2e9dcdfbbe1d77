"""Chi-square dual DRO and the D-SGD-C / SPIDER methods: the simulator of paper ``dro_dsgdc``.

Q. Zhang, Y. Zhou, S. Khan, A. Prater-Bennette, L. Shen, S. Zou, "Revisiting Large-Scale Non-convex
Distributionally Robust Optimization", ICLR 2025.  The spec only read the paper's first part: the dual form
below is Jin et al. (2021)'s, which the paper revisits (spec [I]); the exact D-SGD-C / D-Spider-C updates and
constants were not read, so :func:`dsgdc` and :func:`dspider` follow the spec's structure and say so.

Dual of the penalised chi-square DRO problem min_x sup_Q E_Q l(x; s) - lam D_chi2(Q || P_n):
    L(x, eta) = lam * mean_i psi*((l_i(x) - eta)/lam) + eta,   psi*(u) = (u + 1)_+^2 / 2 - 1/2.
With z_i = a_i . x, l_i = loss(z_i, b_i), g_i = l_i'(z_i), h_i = l_i''(z_i), w_i = (u_i + 1)_+, 1_i = [u_i > -1]:
    d_eta L = 1 - mean w_i,           d2_eta L = mean 1_i / lam  (<= 1/lam: the eta block is 1/lam-smooth),
    grad_x L = mean w_i g_i a_i,      hess_xx L = mean (1_i g_i^2 / lam + w_i h_i) a_i a_i^T.
Losses: ``"square"`` l = (z - b)^2 / 2 (not Lipschitz) and ``"tanh"`` l = (tanh z - b)^2 / 2 (a one-neuron
tanh network: non-convex, G-Lipschitz and L-smooth in x for every sample, as the paper assumes).  Then
[derived] ||hess_xx L|| <= G^2/lam + L (1 - d_eta L): the x block grows with psi*' = 1 - d_eta L, the
"partial" structure (spec [I]); :func:`loss_constants` gives G and L exactly.

API: :func:`make_instance`, :func:`dual_objective`, :func:`primal_value`, :func:`loss_constants`,
:func:`block_derivatives` (||grad_x L||, ||hess_xx L||, d_eta L, d2_eta L at many points),
:func:`theorem_parameters` (the step/batch orders of Theorem 3 and of the SPIDER variant, [derived]),
:func:`dsgdc` / :func:`dsgdc_numpy` (D-SGD-C, jitted over runs / vectorised numpy reference),
:func:`dspider` (the SPIDER variant), :func:`gradient_complexity`.

Example::

    from theorylab.stochastic.dro import make_instance, theorem_parameters, dsgdc, gradient_complexity
    A, b = make_instance(seed=0)
    tr = dsgdc(A, b, **theorem_parameters(0.1, "dsgdc"), eps_stop=0.1, n_runs=4, seed=1)
    gradient_complexity(tr)          # stochastic gradient evaluations until (1/T) sum ||grad L|| <= 0.1
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.core.seeding import as_generator, spawn_seeds
from theorylab.core.validate import (SimulationDiverged, check_array, check_budget, check_choice, check_int,
                                     check_positive, check_real, check_size)
from theorylab.stochastic import _kernels_dro as K
from theorylab.core.validate import check_record

__all__ = ["LOSSES", "METHODS", "DROTrace", "make_instance", "dual_objective", "primal_value", "loss_constants",
           "block_derivatives", "theorem_parameters", "dsgdc", "dsgdc_numpy", "dspider", "gradient_complexity"]

LOSSES = ("square", "tanh")
METHODS = ("dsgdc", "dspider")
#: sample-gradient * dimension operations of one call (about 1e9 per second per core in the kernels).
MAX_WORK = 2 * 10**11
MAX_WORK_NUMPY = 2 * 10**10
MAX_ITER = 10**8
#: a gradient norm this many times the initial one (or 1) is divergence, never a silent NaN.
DIVERGENCE_FACTOR = 1e8


# --------------------------------------------------------------------------- instance and objective

def make_instance(n: int = 2000, d: int = 20, *, outlier_frac: float = 0.1, noise: float = 0.1,
                  scale: float = 1.5, seed=0):
    """(A, b): a_i ~ N(0, I_d), b_i = tanh(a_i . x_true) + noise N(0, 1), ||x_true|| ~ scale, and a fraction
    ``outlier_frac`` of labels sign-flipped (the shifted sub-population DRO up-weights)."""
    n = check_size("n", n, budget=10**7)
    d = check_size("d", d, budget=10**4)
    check_budget("the design matrix A", n * d, n=n, d=d)
    outlier_frac = check_real("outlier_frac", outlier_frac, low=0.0, high=1.0)
    noise = check_real("noise", noise, low=0.0, high=1e3)
    scale = check_real("scale", scale, low=0.0, high=1e3)
    rng = as_generator(seed)
    A = rng.standard_normal((n, d))
    x_true = rng.standard_normal(d) * scale / np.sqrt(d)
    b = np.tanh(A @ x_true) + noise * rng.standard_normal(n)
    flip = rng.random(n) < outlier_frac
    b[flip] = -b[flip]
    return A, b


def _data(A, b, lam, loss):
    A = check_array("A", A, ndim=2)
    if A.shape[0] == 0 or A.shape[1] == 0:
        raise ValueError(f"A must be non-empty; got shape {A.shape}")
    check_budget("the design matrix A", A.size, n=A.shape[0], d=A.shape[1])
    b = check_array("b", b, ndim=1, shape=(A.shape[0],))
    lam = check_real("lam", lam, low=0.0, low_open=True, high=1e12)
    loss = check_choice("loss", loss, LOSSES)
    return A, b, lam, loss


def _inputs(A, b, x, lam, loss="square"):
    A, b, lam, loss = _data(A, b, lam, loss)
    x = check_array("x", x, ndim=1, shape=(A.shape[1],))
    return A, b, x, lam, loss


def _terms(z, b, loss):
    """(l, l', l'') per sample at z = A x (numpy form of the kernel's loss_terms)."""
    if loss == "square":
        r = z - b
        return 0.5 * r**2, r, np.ones_like(r)
    t = np.tanh(z)
    e, s = t - b, 1.0 - t * t
    return 0.5 * e**2, e * s, s * s - 2.0 * e * t * s


def dual_objective(A, b, x, eta, *, lam=1.0, loss="square"):
    """(L, grad_x L, d_eta L, hess_xx L, d2_eta L) of the chi-square dual at (x, eta), exactly."""
    A, b, x, lam, loss = _inputs(A, b, x, lam, loss)
    eta = check_real("eta", eta)
    ell, g, h = _terms(A @ x, b, loss)
    u = (ell - eta) / lam
    w = np.maximum(u + 1.0, 0.0)
    ind = (u > -1.0).astype(float)
    L = lam * np.mean(0.5 * w**2 - 0.5) + eta
    gx = A.T @ (w * g) / A.shape[0]
    H = (A * (ind * g**2 / lam + w * h)[:, None]).T @ A / A.shape[0]
    return L, gx, 1.0 - w.mean(), H, ind.mean() / lam


def primal_value(A, b, x, *, lam=1.0, loss="square"):
    """max over the simplex of q . l - (lam n / 2) ||q - 1/n||^2: q = projection of 1/n + l/(lam n)."""
    A, b, x, lam, loss = _inputs(A, b, x, lam, loss)
    n = A.shape[0]
    ell = _terms(A @ x, b, loss)[0]
    v = 1.0 / n + ell / (lam * n)
    s = np.sort(v)[::-1]
    css = np.cumsum(s) - 1.0
    k = np.nonzero(s - css / np.arange(1, n + 1) > 0)[0][-1]
    q = np.maximum(v - css[k] / (k + 1), 0.0)
    return float(q @ ell - 0.5 * lam * n * np.sum((q - 1.0 / n) ** 2))


def _sup_poly(C):
    """max over t in [-1, 1] of |p_i(t)| for the polynomials p_i with coefficients C[i] (low to high, degree
    k >= 2, leading coefficient nonzero): the endpoints and the real roots of p_i' in [-1, 1], the roots found for
    all i at once as eigenvalues of the companion matrices of p_i' (exact up to root rounding)."""
    P = np.polynomial.polynomial
    dC = C[:, 1:] * np.arange(1, C.shape[1])                  # p_i' coefficients, degree k - 1
    m = dC.shape[1] - 1
    comp = np.zeros((C.shape[0], m, m))
    comp[:, 1:, :-1] = np.eye(m - 1)
    comp[:, :, -1] = -dC[:, :-1] / dC[:, -1:]
    roots = np.linalg.eigvals(comp)
    ok = (np.abs(roots.imag) < 1e-9) & (np.abs(roots.real) <= 1.0)
    cand = np.concatenate([np.where(ok, roots.real, 1.0), -np.ones((C.shape[0], 1)), np.ones((C.shape[0], 1))], 1)
    vals = sum(C[:, j:j + 1] * cand**j for j in range(C.shape[1]))
    return np.max(np.abs(vals), axis=1)


def loss_constants(A, b, *, loss="tanh"):
    """(G, L): for every sample, l_i is G-Lipschitz and L-smooth in x (the paper's assumption), with
    G = max_i sup_z |l'(z; b_i)| ||a_i||,  L = max_i sup_z |l''(z; b_i)| ||a_i||^2.
    For the tanh loss, in t = tanh z: l' = (t - b)(1 - t^2) and l'' = (1 - t^2)^2 - 2 (t - b) t (1 - t^2) are
    polynomials on [-1, 1], maximised exactly.  The square loss is not Lipschitz: ValueError."""
    A, b, _, loss = _data(A, b, 1.0, loss)
    if loss == "square":
        raise ValueError("loss='square' is not Lipschitz (l' = a . x - b is unbounded); loss_constants needs "
                         "loss='tanh'")
    na2 = np.einsum("ij,ij->i", A, A)
    one = np.ones_like(b)
    # l' = (t - b)(1 - t^2) = -b + t + b t^2 - t^3
    g_sup = _sup_poly(np.stack([-b, one, b, -one], axis=1))
    # l'' = (1 - t^2)^2 - 2 t (t - b)(1 - t^2) = 1 + 2b t - 4 t^2 - 2b t^3 + 3 t^4
    h_sup = _sup_poly(np.stack([one, 2 * b, -4 * one, -2 * b, 3 * one], axis=1))
    return float(np.max(g_sup * np.sqrt(na2))), float(np.max(h_sup * na2))


def block_derivatives(A, b, xs, etas, *, lam=1.0, loss="tanh"):
    """At the points (xs[k], etas[k]): a dict of arrays ``grad_x`` (||grad_x L||), ``hess_xx`` (spectral norm of
    hess_xx L), ``d_eta`` (d_eta L) and ``d2_eta`` (d2_eta L), from the exact formulas."""
    A, b, lam, loss = _data(A, b, lam, loss)
    xs = check_array("xs", xs, ndim=2)
    if xs.shape[1] != A.shape[1]:
        raise ValueError(f"xs must have shape (m, {A.shape[1]}) to match A; got {xs.shape}")
    etas = check_array("etas", etas, ndim=1, shape=(xs.shape[0],))
    check_budget("block_derivatives work", xs.shape[0] * A.size * A.shape[1], max_elements=MAX_WORK_NUMPY,
                 unit="operations", points=xs.shape[0], n=A.shape[0], d=A.shape[1])
    out = {k: np.empty(xs.shape[0]) for k in ("grad_x", "hess_xx", "d_eta", "d2_eta")}
    for k, (x, eta) in enumerate(zip(xs, etas)):
        ell, g, h = _terms(A @ x, b, loss)
        u = (ell - eta) / lam
        w = np.maximum(u + 1.0, 0.0)
        ind = (u > -1.0).astype(float)
        H = (A * (ind * g**2 / lam + w * h)[:, None]).T @ A / A.shape[0]
        out["grad_x"][k] = np.linalg.norm(A.T @ (w * g)) / A.shape[0]
        out["hess_xx"][k] = np.linalg.norm(H, 2)
        out["d_eta"][k] = 1.0 - w.mean()
        out["d2_eta"][k] = ind.mean() / lam
    return out


# --------------------------------------------------------------------------- methods

@dataclass(frozen=True)
class DROTrace:
    """Recorded iterates of n_runs independent runs.

    ``gnorm`` (runs, K): full-sample ||grad L(x, eta)|| at iterates 0, record_every, 2 record_every, ... (NaN
    after a run stopped); ``x`` (runs, K, d) and ``eta`` (runs, K) the iterates; ``n_records`` (runs,) how many
    are stored; ``hit`` (runs,) whether the stopping rule (1/T) sum ||grad L|| <= eps_stop was met; ``grad_evals``
    (runs,) stochastic sample-gradient evaluations spent up to the last record."""

    method: str
    gnorm: np.ndarray
    x: np.ndarray
    eta: np.ndarray
    n_records: np.ndarray
    hit: np.ndarray
    grad_evals: np.ndarray
    record_every: int
    params: dict

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self, nonfinite=("gnorm", "x", "eta"))  # NaN after a run stopped, finite before
        n_rec = np.asarray(self.n_records)
        for name in ("gnorm", "x", "eta"):
            arr = getattr(self, name)
            if arr.ndim < 2 or n_rec.shape != arr.shape[:1] or np.any(n_rec < 0) or np.any(n_rec > arr.shape[1]):
                raise ValueError(f"DROTrace: {name} must have shape (runs, K, ...) with n_records in [0, K] per run; "
                                 f"got {name} of shape {arr.shape} and n_records of shape {n_rec.shape}")
            for r in range(arr.shape[0]):
                if not np.all(np.isfinite(arr[r, :n_rec[r]])):
                    raise ValueError(f"DROTrace: {name} must be finite in the first n_records entries of each run; "
                                     f"run {r} is not")


def theorem_parameters(eps, method="dsgdc", *, g0=2.0, b0=2.0, c0=2.0, B0=4.0, B2_0=4.0, q0=1.0):
    """[derived] The parameter orders of the theorems as restated in the spec, with our constants:
    D-SGD-C (Theorem 3: beta_t = O(eps / (L0 ||v_t||)), a batch of order eps^-2):
        gamma = g0 eps, beta = b0 eps, clip = c0 eps, batch = ceil(B0 / eps^2);
    SPIDER variant (Fang et al. 2018's SPIDER-SFO orders): the same steps, batch_big = ceil(B0 / eps^2) every
    q = ceil(q0 / eps) steps, batch_small = ceil(B2_0 / eps) in between."""
    eps = check_real("eps", eps, low=0.0, high=10.0, low_open=True)
    method = check_choice("method", method, METHODS)
    g0, b0, c0, B0, B2_0, q0 = (check_real(k, v, low=0.0, low_open=True, high=1e6) for k, v in
                                dict(g0=g0, b0=b0, c0=c0, B0=B0, B2_0=B2_0, q0=q0).items())
    out = dict(gamma=g0 * eps, beta=b0 * eps, clip=c0 * eps)
    big = int(np.ceil(B0 / eps**2))
    if method == "dsgdc":
        return {**out, "batch": big}
    return {**out, "batch_big": big, "batch_small": int(np.ceil(B2_0 / eps)), "q": int(np.ceil(q0 / eps))}


def _run_args(A, b, lam, loss, x0, eta0, gamma, beta, clip, n_iter, record_every, eps_stop, n_runs):
    A, b, lam, loss = _data(A, b, lam, loss)
    x0 = np.zeros(A.shape[1]) if x0 is None else check_array("x0", x0, ndim=1, shape=(A.shape[1],))
    if x0.size and np.abs(x0).max() > 1e6:
        raise ValueError(f"x0 must be within 1e6 of 0; got max |x0| = {np.abs(x0).max():.3g}")
    eta0 = check_real("eta0", eta0, low=-1e6, high=1e6)
    gamma = check_real("gamma", gamma, low=0.0, low_open=True, high=1e6)
    if gamma >= 2.0 * lam:
        raise ValueError(f"gamma must be below 2 lam = {2 * lam:.6g} (d_eta L is 1/lam-Lipschitz in eta, so a "
                         f"larger eta-step oscillates or diverges); got {gamma!r}")
    beta = check_real("beta", beta, low=0.0, low_open=True, high=1e6)
    clip = check_real("clip", clip, low=0.0, low_open=True, high=1e6)
    n_iter = check_size("n_iter", n_iter, low=1, budget=MAX_ITER)
    record_every = check_int("record_every", record_every, low=1, high=n_iter)
    eps_stop = -1.0 if eps_stop is None else check_real("eps_stop", eps_stop, low=0.0, low_open=True, high=1e6)
    n_runs = check_size("n_runs", n_runs, budget=10**6)
    K_ = n_iter // record_every + 1
    check_budget("the recorded iterates", n_runs * K_ * (A.shape[1] + 2), n_runs=n_runs, n_iter=n_iter,
                 record_every=record_every, d=A.shape[1])
    return A, b, lam, loss, x0, eta0, gamma, beta, clip, n_iter, record_every, eps_stop, n_runs, K_


def _finish(method, gnorm, xs, etas, n_rec, eps_stop, evals_of_T, record_every, params):
    for r in range(gnorm.shape[0]):
        gnorm[r, n_rec[r]:] = np.nan
        etas[r, n_rec[r]:] = np.nan
        xs[r, n_rec[r]:] = np.nan
        g = gnorm[r, :n_rec[r]]
        limit = DIVERGENCE_FACTOR * max(1.0, g[0])
        if not np.all(np.isfinite(g)) or np.max(g) > limit:
            raise SimulationDiverged(
                f"{method}: ||grad L|| left the bound {limit:.3g} (= {DIVERGENCE_FACTOR:g} max(1, ||grad L_0||)) "
                f"in run {r}; reduce the steps gamma={params['gamma']!r}, beta={params['beta']!r} or the "
                f"clipping threshold clip={params['clip']!r}")
    T = (n_rec - 1) * record_every
    # the kernel's rule: a run stops early only when its running mean met eps_stop (sequential sums, as cumsum)
    hit = np.array([eps_stop > 0 and (n_rec[r] < gnorm.shape[1]
                                      or np.cumsum(gnorm[r, :n_rec[r]])[-1] <= eps_stop * n_rec[r])
                    for r in range(n_rec.size)])
    return DROTrace(method, gnorm, xs, etas, n_rec.copy(), hit, evals_of_T(T), record_every, params)


def _work_check(name, n_runs, n_iter, per_iter, n, record_every, d, budget):
    check_budget(f"{name} work", n_runs * n_iter * (per_iter + -(-n // record_every)) * d, max_elements=budget,
                 unit="sample-gradient x dimension operations", n_runs=n_runs, n_iter=n_iter, batch=per_iter)


def dsgdc(A, b, *, gamma, beta, clip, batch, n_iter=10_000, lam=1.0, loss="tanh", x0=None, eta0=0.0,
          record_every=1, eps_stop=None, n_runs=8, seed=0) -> DROTrace:
    """D-SGD-C (double SGD with clipping; structure from the spec [I], exact form not read):
        eta_{t+1} = eta_t - gamma d_eta^ L(x_t, eta_t),      (minibatch of ``batch`` samples)
        v_t = grad_x^ L(x_t, eta_{t+1}),  x_{t+1} = x_t - min(beta, clip / ||v_t||) v_t   (a fresh minibatch).
    Minibatches are drawn with replacement, so each estimate is unbiased.  2 batch sample gradients per step.
    ``eps_stop``: stop run r at the first recorded T with (1/T) sum_{t < T} ||grad L(x_t, eta_t)|| <= eps_stop
    (the mean over the recorded iterates)."""
    (A, b, lam, loss, x0, eta0, gamma, beta, clip, n_iter, record_every, eps_stop, n_runs,
     K_) = _run_args(A, b, lam, loss, x0, eta0, gamma, beta, clip, n_iter, record_every, eps_stop, n_runs)
    batch = check_size("batch", batch, budget=10**7)
    _work_check("dsgdc", n_runs, n_iter, 2 * batch, A.shape[0], record_every, A.shape[1], MAX_WORK)
    gnorm, xs = np.full((n_runs, K_), np.nan), np.full((n_runs, K_, A.shape[1]), np.nan)
    etas, n_rec = np.full((n_runs, K_), np.nan), np.zeros(n_runs, dtype=np.int64)
    K.dsgdc_runs(A, b, LOSSES.index(loss), lam, x0, eta0, gamma, beta, clip, batch, n_iter, record_every,
                 eps_stop, spawn_seeds(seed, n_runs), gnorm, xs, etas, n_rec)
    params = dict(gamma=gamma, beta=beta, clip=clip, batch=batch, lam=lam, loss=loss, eps_stop=eps_stop)
    return _finish("dsgdc", gnorm, xs, etas, n_rec, eps_stop, lambda T: 2 * batch * T, record_every, params)


def dspider(A, b, *, gamma, beta, clip, batch_big, batch_small, q, n_iter=10_000, lam=1.0, loss="tanh", x0=None,
            eta0=0.0, record_every=1, eps_stop=None, n_runs=8, seed=0) -> DROTrace:
    """SPIDER variant of D-SGD-C (our construction after Fang et al. 2018; the paper's D-Spider-C was not read):
    every q steps (u, v) = a ``batch_big`` estimate of (d_eta L, grad_x L); in between (u, v) is updated by the
    difference of two ``batch_small`` estimates at the new and previous iterate on one shared minibatch; then
    eta <- eta - gamma u and x <- x - min(beta, clip / ||v||) v.  Sample gradients: batch_big at restarts,
    2 batch_small otherwise."""
    (A, b, lam, loss, x0, eta0, gamma, beta, clip, n_iter, record_every, eps_stop, n_runs,
     K_) = _run_args(A, b, lam, loss, x0, eta0, gamma, beta, clip, n_iter, record_every, eps_stop, n_runs)
    batch_big = check_size("batch_big", batch_big, budget=10**7)
    batch_small = check_size("batch_small", batch_small, budget=10**7)
    q = check_size("q", q, budget=MAX_ITER)
    _work_check("dspider", n_runs, n_iter, 2 * batch_small + -(-batch_big // q), A.shape[0], record_every,
                A.shape[1], MAX_WORK)
    gnorm, xs = np.full((n_runs, K_), np.nan), np.full((n_runs, K_, A.shape[1]), np.nan)
    etas, n_rec = np.full((n_runs, K_), np.nan), np.zeros(n_runs, dtype=np.int64)
    K.spider_runs(A, b, LOSSES.index(loss), lam, x0, eta0, gamma, beta, clip, batch_big, batch_small, q, n_iter,
                  record_every, eps_stop, spawn_seeds(seed, n_runs), gnorm, xs, etas, n_rec)

    def evals(T):
        restarts = (T + q - 1) // q
        return restarts * batch_big + (T - restarts) * 2 * batch_small

    params = dict(gamma=gamma, beta=beta, clip=clip, batch_big=batch_big, batch_small=batch_small, q=q, lam=lam,
                  loss=loss, eps_stop=eps_stop)
    return _finish("dspider", gnorm, xs, etas, n_rec, eps_stop, evals, record_every, params)


def dsgdc_numpy(A, b, *, gamma, beta, clip, batch, n_iter=10_000, lam=1.0, loss="tanh", x0=None, eta0=0.0,
                record_every=1, eps_stop=None, n_runs=8, seed=0) -> DROTrace:
    """Vectorised numpy reference of :func:`dsgdc` (all runs at once, numpy's generator: the same law, not the
    same numbers; runs are stopped by masking)."""
    (A, b, lam, loss, x0, eta0, gamma, beta, clip, n_iter, record_every, eps_stop, n_runs,
     K_) = _run_args(A, b, lam, loss, x0, eta0, gamma, beta, clip, n_iter, record_every, eps_stop, n_runs)
    batch = check_size("batch", batch, budget=10**7)
    _work_check("dsgdc_numpy", n_runs, n_iter, 2 * batch, A.shape[0], record_every, A.shape[1], MAX_WORK_NUMPY)
    rng = as_generator(seed)
    n, d = A.shape
    gnorm, xs = np.full((n_runs, K_), np.nan), np.full((n_runs, K_, d), np.nan)
    etas, n_rec = np.full((n_runs, K_), np.nan), np.zeros(n_runs, dtype=np.int64)
    x, eta = np.tile(x0, (n_runs, 1)), np.full(n_runs, eta0)
    live, total = np.ones(n_runs, bool), np.zeros(n_runs)

    def estimate(x, eta, idx):                       # idx (runs, m) -> (grad_x, d_eta) per run
        Ab = A[idx]
        ell, g, _ = _terms(np.einsum("rmj,rj->rm", Ab, x), b[idx], loss)
        w = np.maximum((ell - eta[:, None]) / lam + 1.0, 0.0)
        return np.einsum("rm,rmj->rj", w * g, Ab) / idx.shape[1], 1.0 - w.mean(1)

    for t in range(n_iter + 1):
        if t % record_every == 0:
            k = t // record_every
            ell, g, _ = _terms(x @ A.T, b[None, :], loss)
            w = np.maximum((ell - eta[:, None]) / lam + 1.0, 0.0)
            gn = np.sqrt(np.sum((w * g @ A / n) ** 2, 1) + (1.0 - w.mean(1)) ** 2)
            gnorm[live, k], xs[live, k], etas[live, k] = gn[live], x[live], eta[live]
            n_rec[live] = k + 1
            total[live] += gn[live]
            live &= ~((total <= eps_stop * (k + 1)) | ~np.isfinite(gn))
        if t == n_iter or not live.any():
            break
        eta = eta - gamma * estimate(x, eta, rng.integers(0, n, (n_runs, batch)))[1]
        v = estimate(x, eta, rng.integers(0, n, (n_runs, batch)))[0]
        nv = np.linalg.norm(v, axis=1)
        bt = np.where(beta * nv <= clip, beta, clip / np.maximum(nv, 1e-300))
        x = x - bt[:, None] * v
    params = dict(gamma=gamma, beta=beta, clip=clip, batch=batch, lam=lam, loss=loss, eps_stop=eps_stop)
    return _finish("dsgdc_numpy", gnorm, xs, etas, n_rec, eps_stop, lambda T: 2 * batch * T, record_every, params)


def gradient_complexity(trace) -> np.ndarray:
    """Per run, the sample-gradient evaluations until the stopping rule was met; SimulationDiverged-free but a
    ValueError naming the runs if some never met it (raise n_iter)."""
    if not isinstance(trace, DROTrace):
        raise TypeError(f"trace must be a DROTrace from dsgdc/dspider; got {type(trace).__name__}")
    if trace.params.get("eps_stop", -1.0) <= 0:
        raise ValueError("trace has no stopping rule (eps_stop=None); run with eps_stop=epsilon")
    if not trace.hit.all():
        raise ValueError(f"trace: {int((~trace.hit).sum())} of {trace.hit.size} runs never reached "
                         f"(1/T) sum ||grad L|| <= {trace.params['eps_stop']:g}; raise n_iter")
    return trace.grad_evals.astype(float)
