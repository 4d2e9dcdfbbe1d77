"""TSRoots: candidate sets from the 1-D roots of a separable GP prior sample, and the multistart optimisation of a
pathwise posterior sample -- the simulator of paper ``tsroots``.

T. Adebiyi, B. Do, R. Zhang, "Optimizing Posterior Samples for Bayesian Optimization via Rootfinding", ICLR 2025
(arXiv:2410.22322; code UQUH/TSRoots, src/tsroots/optim.py, decoupled_GP.py).

Prior sample (Sec. 3; ``uni_GP_path``).  On the box [lb, ub] in R^d a separable prior sample is

    f(x) = sigma_f prod_i f_i(x_i),                                                       (1)

f_i independent 1-D sample paths of the unit-variance SE kernel with length scale l_i, so that
Cov(f(x), f(x')) = sigma_f^2 prod_i k_i(x_i, x'_i) is the SE-ARD kernel of theorylab.gp.priors.  Here each f_i is
a random-Fourier-feature path (Rahimi & Recht 2007) with exact derivatives of every order,

    f_i(t) = sqrt(2/N) sum_j w_ij cos(omega_ij t + b_ij),  omega_ij ~ N(0, 1/l_i^2),  b_ij ~ U[0, 2 pi),
    w_ij ~ N(0, 1),   f_i^(nu)(t) = sqrt(2/N) sum_j w_ij omega_ij^nu cos(omega_ij t + b_ij + nu pi/2).      (RFF)

(The paper uses the SE Mercer expansion instead; both are smooth 1-D paths with the SE covariance in the limit, and
everything below, exact properties included, holds for any smooth f_i.)

Candidates (``multi_func_roots_cheb``, ``sort_mixed_mono``).  Per dimension, X_i = roots(f_i') u {lb_i, ub_i}; the
roots come from a Chebyshev proxy of f_i' on [lb_i, ub_i] (numpy's colleague-matrix eigenvalues) of degree
n >= 1.1 r max_j|omega_ij| + 40 (r the half-width; for n beyond the bandwidth r|omega| the Chebyshev coefficients of
cos(omega (c + r t)) are Bessel values J_n(r omega), super-exponentially small; the tail is checked and the degree
doubled if needed), polished by Newton steps on the exact f_i'.  With

    h = f_i f_i'' (interior),  h = f_i f_i' (at lb_i),  h = -f_i f_i' (at ub_i),                            (2)

mono_i = {h > 0} (local minima of |f_i|) and mixed_i = {h < 0} (local maxima of |f_i|).

Exact property [derived, Sec. 3].  Fixing every coordinate but x_i, f is c f_i(x_i); so a global extremum of f on
the box is attained where every coordinate is a critical point or an endpoint of its f_i: the full factorial of the
X_i contains a global maximiser and a global minimiser.  TSRoots' minimiser candidates (``xnew_TSroots``) are the
mono combinations with a positive product and the mixed combinations with a negative product; [derived] they
contain the global minimiser (if min f < 0 it maximises prod|f_i| over sign-compatible regions, where each factor is
at a local maximum of |f_i|, i.e. mixed; if min f > 0 every factor minimises |f_i|, i.e. mono).  The mixed (h < 0)
combinations alone miss it exactly when min f > 0; in 1-D, when the path keeps a positive sign.

Posterior sample (pathwise conditioning, Wilson et al. 2020; ``Decoupled_GP``):

    f_post(x) = f(x) + k(x, X) v,   v = (K + sigma_n^2 I)^{-1} (y - f(X) - eps),  eps ~ N(0, sigma_n^2 I).   (3)

Starts (``xnew_TSroots``): exploration = the minimiser candidates of the prior sample sorted by f_post,
exploitation = the data sorted by y; then multistart SLSQP on f_post inside the box.

Example::

    from theorylab.gp import tsroots as T
    f = T.separable_prior_sample(2, lengthscale=0.3, seed=0)
    C = T.candidate_set(f)
    X, vals = T.minimiser_candidates(C, rule="tsroots")
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.polynomial import chebyshev as npcheb
from scipy.linalg import cho_solve, cholesky
from scipy.optimize import minimize

from theorylab.core.seeding import as_generator
from theorylab.core.validate import (SimulationDiverged, check_array, check_budget, check_choice, check_int,
                                     check_real, check_size, require_finite)
from theorylab.gp.priors import MAX_DATA, MAX_DIM, check_lengthscale, check_points
from theorylab.core.validate import check_record

__all__ = ["RULES", "SeparableSample", "Candidates", "PosteriorSample", "separable_prior_sample", "path_1d",
           "evaluate_prior", "critical_points_1d", "critical_points_grid_1d", "candidate_set", "full_factorial",
           "minimiser_candidates", "posterior_sample", "evaluate_posterior", "tsroots_starts", "random_starts",
           "optimise_from", "grid_minimum"]

RULES = ("all", "tsroots", "mixed_only")
#: largest full-factorial candidate set enumerated
MAX_COMBINATIONS = 10**6
#: largest number of random features per dimension
MAX_FEATURES = 10**5
#: largest Chebyshev degree of a root-finding proxy (colleague matrix of this size: ~1 s)
MAX_DEGREE = 1024


@dataclass(frozen=True)
class SeparableSample:
    """A separable prior sample (1): per-dimension (RFF) frequencies ``omega``, phases ``b``, weights ``w``, all
    (d, N); amplitude ``sigma_f``; the box ``lb``, ``ub`` (d,); the length scales (d,)."""

    omega: np.ndarray
    b: np.ndarray
    w: np.ndarray
    sigma_f: float
    lb: np.ndarray
    ub: np.ndarray
    lengthscale: np.ndarray

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)

    @property
    def d(self) -> int:
        return self.omega.shape[0]


@dataclass(frozen=True)
class Candidates:
    """Per-dimension candidate points ``x[i]`` (roots of f_i', then lb_i, ub_i), their f_i, f_i', f_i'' values and
    the masks ``mono[i]`` (h > 0) and ``mixed[i]`` (h < 0) of Eq. (2)."""

    x: list
    f: list
    df: list
    d2f: list
    mono: list
    mixed: list

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)


@dataclass(frozen=True)
class PosteriorSample:
    """A pathwise posterior sample (3): the prior sample, the data, the weights ``v`` and the kernel parameters."""

    prior: SeparableSample
    X_data: np.ndarray
    y_data: np.ndarray
    v: np.ndarray
    noise: float

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)


# --------------------------------------------------------------------------- the prior sample

def _box(lb, ub, d):
    lo = np.full(d, check_real("lb", lb, low=-1e6, high=1e6)) if np.ndim(lb) == 0 and not isinstance(lb, (str, bytes)) \
        and lb is not None else check_array("lb", lb, shape=(d,))
    hi = np.full(d, check_real("ub", ub, low=-1e6, high=1e6)) if np.ndim(ub) == 0 and not isinstance(ub, (str, bytes)) \
        and ub is not None else check_array("ub", ub, shape=(d,))
    if np.any(np.abs(lo) > 1e6) or np.any(np.abs(hi) > 1e6):
        raise ValueError("lb and ub must lie in [-1e6, 1e6]")
    if np.any(hi <= lo):
        raise ValueError(f"ub must exceed lb in every coordinate; got lb = {lo.tolist()}, ub = {hi.tolist()}"[:300])
    return lo, hi


def separable_prior_sample(d, *, lengthscale, variance=1.0, lb=-1.0, ub=1.0, n_features=500, seed=0):
    """Draw the separable prior sample (1) with RFF paths (RFF) on the box [lb, ub]^d.

    ``variance`` = sigma_f^2; ``lengthscale`` a scalar or one per coordinate; ``n_features`` = N per dimension.
    """
    d = check_int("d", d, low=1, high=MAX_DIM)
    ell = check_lengthscale(lengthscale, d)
    v = check_real("variance", variance, low=1e-12, high=1e12)
    lo, hi = _box(lb, ub, d)
    N = check_size("n_features", n_features, budget=MAX_FEATURES)
    check_budget("the feature arrays", 3 * d * N, d=d, n_features=N)
    if np.any((hi - lo) / ell > 1e3):
        raise ValueError(f"lengthscale is too short for the box: (ub - lb) / lengthscale must be <= 1e3 (the root "
                         f"finder's Chebyshev degree); got {float(((hi - lo) / ell).max()):.3g}")
    rng = as_generator(seed)
    omega = rng.standard_normal((d, N)) / ell[:, None]
    b = rng.uniform(0.0, 2.0 * np.pi, (d, N))
    w = rng.standard_normal((d, N))
    return SeparableSample(omega, b, w, math.sqrt(v), lo, hi, ell)


def _check_sample(sample, name="sample"):
    if not isinstance(sample, SeparableSample):
        raise TypeError(f"{name} must be a SeparableSample (from separable_prior_sample); got {type(sample).__name__}")
    return sample


def _path(sample, i, t, nu):
    """f_i^(nu)(t) of (RFF) on validated inputs, t a 1-d array."""
    om, b, w = sample.omega[i], sample.b[i], sample.w[i]
    phase = np.multiply.outer(t, om) + b + nu * (np.pi / 2)
    return math.sqrt(2.0 / om.size) * (np.cos(phase) @ (w * om**nu))


def path_1d(sample, i, t, *, nu=0) -> np.ndarray:
    """The nu-th derivative (nu = 0..3) of the 1-D path f_i at the points t (a 1-d array), Eq. (RFF)."""
    _check_sample(sample)
    i = check_int("i", i, low=0, high=sample.d - 1)
    nu = check_int("nu", nu, low=0, high=3)
    t = check_array("t", np.atleast_1d(t) if np.ndim(t) == 0 and not isinstance(t, (str, bytes)) else t, ndim=1)
    check_budget("the feature-by-point matrix", t.size * sample.omega.shape[1], points=t.size,
                 n_features=sample.omega.shape[1])
    return _path(sample, i, t, nu)


def _prior_and_grad(sample, X):
    """f(X) of (1) and its gradient, X validated (n, d)."""
    F = np.stack([_path(sample, i, X[:, i], 0) for i in range(sample.d)], axis=1)
    dF = np.stack([_path(sample, i, X[:, i], 1) for i in range(sample.d)], axis=1)
    val = sample.sigma_f * F.prod(1)
    grad = np.empty_like(X)
    for i in range(sample.d):
        others = np.delete(F, i, axis=1).prod(1)
        grad[:, i] = sample.sigma_f * dF[:, i] * others
    return val, grad


def evaluate_prior(sample, X, *, grad=False):
    """f(X) of Eq. (1) at the rows of X (n, d); with ``grad=True`` also the (n, d) gradient."""
    if not isinstance(grad, (bool, np.bool_)):
        raise TypeError(f"grad must be True or False; got {grad!r}")
    _check_sample(sample)
    X = check_points("X", X, d=sample.d)
    check_budget("the feature-by-point matrix", X.shape[0] * sample.omega.shape[1] * sample.d, n=X.shape[0],
                 n_features=sample.omega.shape[1], d=sample.d)
    val, g = _prior_and_grad(sample, X)
    return (val, g) if grad else val


# --------------------------------------------------------------------------- 1-D critical points

def _cheb_degree(sample, i):
    r = 0.5 * (sample.ub[i] - sample.lb[i])
    return int(math.ceil(1.1 * r * np.abs(sample.omega[i]).max())) + 40


def _critical_points(sample, i):
    """Roots of f_i' in [lb_i, ub_i] from a Chebyshev proxy, Newton-polished (module docstring)."""
    lo, hi = float(sample.lb[i]), float(sample.ub[i])
    deg = _cheb_degree(sample, i)
    while True:
        proxy = npcheb.Chebyshev.interpolate(lambda t: _path(sample, i, t, 1), deg, domain=[lo, hi])
        c = np.abs(proxy.coef)
        if c[-4:].max() <= 1e-13 * max(c.max(), 1e-300) or deg >= MAX_DEGREE:
            break
        deg = min(2 * deg, MAX_DEGREE)
    z = proxy.roots()
    r = 0.5 * (hi - lo)
    z = z[np.abs(z.imag) <= 1e-6 * r].real
    z = z[(z >= lo - 1e-9 * r) & (z <= hi + 1e-9 * r)]
    for _ in range(3):                          # Newton on the exact f_i'
        d1, d2 = _path(sample, i, z, 1), _path(sample, i, z, 2)
        ok = np.abs(d2) > 1e-300
        z = np.where(ok, z - np.where(ok, d1 / np.where(ok, d2, 1.0), 0.0), z)
    z = np.clip(np.sort(z), lo, hi)
    if z.size > 1:
        z = z[np.concatenate([[True], np.diff(z) > 1e-10 * r])]
    return z[(z > lo) & (z < hi)]


def critical_points_1d(sample, i) -> np.ndarray:
    """The interior roots of f_i' on (lb_i, ub_i), sorted (Chebyshev proxy + Newton; module docstring)."""
    _check_sample(sample)
    i = check_int("i", i, low=0, high=sample.d - 1)
    if _cheb_degree(sample, i) > MAX_DEGREE:
        raise ValueError(f"the path of dimension {i} oscillates too fast for a Chebyshev proxy of degree <= "
                         f"{MAX_DEGREE}: shorten the box or lengthen the lengthscale")
    return _critical_points(sample, i)


def critical_points_grid_1d(sample, i, *, n_grid=4096) -> np.ndarray:
    """Reference root finder: sign changes of f_i' on a uniform grid of ``n_grid`` points, each bracket solved by
    scipy's brentq (misses pairs of roots closer than the grid step)."""
    from scipy.optimize import brentq
    _check_sample(sample)
    i = check_int("i", i, low=0, high=sample.d - 1)
    n_grid = check_size("n_grid", n_grid, low=2, budget=10**6)
    check_budget("the feature-by-grid matrix", n_grid * sample.omega.shape[1], n_grid=n_grid,
                 n_features=sample.omega.shape[1])
    t = np.linspace(sample.lb[i], sample.ub[i], n_grid)
    g = _path(sample, i, t, 1)
    f1 = lambda s: float(_path(sample, i, np.array([s]), 1)[0])  # noqa: E731
    idx = np.nonzero(np.sign(g[:-1]) * np.sign(g[1:]) < 0)[0]
    return np.array([brentq(f1, t[k], t[k + 1], xtol=1e-14) for k in idx])


def _boundary_h(f_ends, df_ends):
    """h of Eq. (2) at (lb_i, ub_i): f f' at lb_i and -f f' at ub_i (|f| decreasing into the box, i.e. a local
    maximum of |f|, gives h < 0 at either end)."""
    return f_ends[0] * df_ends[0], -f_ends[1] * df_ends[1]


def candidate_set(sample) -> Candidates:
    """Per-dimension candidates X_i = roots(f_i') u {lb_i, ub_i} with the mono/mixed split of Eq. (2)."""
    _check_sample(sample)
    for i in range(sample.d):
        if _cheb_degree(sample, i) > MAX_DEGREE:
            raise ValueError(f"the path of dimension {i} oscillates too fast for a Chebyshev proxy of degree <= "
                             f"{MAX_DEGREE}: shorten the box or lengthen the lengthscale")
    xs, fs, dfs, d2fs, monos, mixeds = [], [], [], [], [], []
    for i in range(sample.d):
        x = np.concatenate([_critical_points(sample, i), [sample.lb[i], sample.ub[i]]])
        f, df, d2f = (_path(sample, i, x, nu) for nu in (0, 1, 2))
        h = f * d2f
        h[-2], h[-1] = _boundary_h(f[-2:], df[-2:])
        xs.append(x), fs.append(f), dfs.append(df), d2fs.append(d2f)
        monos.append(h > 0), mixeds.append(h < 0)
    return Candidates(xs, fs, dfs, d2fs, monos, mixeds)


def full_factorial(points, values):
    """All combinations of per-dimension ``points`` (a list of d 1-d arrays) and the products of their ``values``:
    returns (X (M, d), prod (M,)), M = prod_i |points_i| (<= 10^6); M = 0 if some set is empty."""
    if not isinstance(points, (list, tuple)) or not isinstance(values, (list, tuple)) or len(points) != len(values) \
            or not points:
        raise TypeError("points and values must be non-empty lists of the same length (one 1-d array per dimension)")
    P = [check_array(f"points[{i}]", p, ndim=1) for i, p in enumerate(points)]
    V = [check_array(f"values[{i}]", v, ndim=1) for i, v in enumerate(values)]
    for i, (p, v) in enumerate(zip(P, V)):
        if p.shape != v.shape:
            raise ValueError(f"values[{i}] must have the shape of points[{i}], {p.shape}; got {v.shape}")
    M = check_budget("the full-factorial candidate set", math.prod(p.size for p in P), max_elements=MAX_COMBINATIONS,
                     unit="combinations", sizes=[p.size for p in P])
    d = len(P)
    if M == 0:
        return np.empty((0, d)), np.empty(0)
    grids = np.meshgrid(*P, indexing="ij")
    vals = np.meshgrid(*V, indexing="ij")
    X = np.stack([g.ravel() for g in grids], axis=1)
    return X, np.prod(np.stack([v.ravel() for v in vals], axis=1), axis=1)


def minimiser_candidates(cands, *, rule="tsroots", sigma_f=1.0):
    """Candidate minimisers of the prior sample and their prior values sigma_f prod_i f_i:

    - ``"all"``: the full factorial of every X_i (contains a global maximiser and minimiser);
    - ``"tsroots"``: mono combinations with a positive product u mixed combinations with a negative product
      (``xnew_TSroots``), which contains a global minimiser [derived, module docstring];
    - ``"mixed_only"``: the h < 0 (mixed) combinations with a negative product alone (TSRoots' branch for many
      combinations, ``ordering_summax_mixed``), which misses the minimiser when min f > 0.
    """
    if not isinstance(cands, Candidates):
        raise TypeError(f"cands must be a Candidates (from candidate_set); got {type(cands).__name__}")
    check_choice("rule", rule, RULES)
    s = check_real("sigma_f", sigma_f, low=1e-6, high=1e6)
    if rule == "all":
        X, p = full_factorial(cands.x, cands.f)
        return X, s * p
    out_X, out_p = [], []
    parts = (("mono", 1.0), ("mixed", -1.0)) if rule == "tsroots" else (("mixed", -1.0),)
    for kind, sign in parts:
        masks = cands.mono if kind == "mono" else cands.mixed
        X, p = full_factorial([x[m] for x, m in zip(cands.x, masks)], [f[m] for f, m in zip(cands.f, masks)])
        keep = sign * p > 0
        out_X.append(X[keep]), out_p.append(s * p[keep])
    return np.concatenate(out_X), np.concatenate(out_p)


# --------------------------------------------------------------------------- the posterior sample

def _kernel(A, B, ell, v):
    Z = (A[:, None, :] - B[None, :, :]) / ell
    return v * np.exp(-0.5 * (Z * Z).sum(-1))


def posterior_sample(prior, X_data, y_data, *, noise=1e-3, seed=0) -> PosteriorSample:
    """The pathwise posterior sample (3) of the prior sample given y_data at X_data (noise = sigma_n^2)."""
    _check_sample(prior, "prior")
    X = check_points("X_data", X_data, d=prior.d)
    m = check_size("the number of data points", X.shape[0], budget=MAX_DATA)
    y = check_array("y_data", y_data, ndim=1)
    if y.shape != (m,):
        raise ValueError(f"y_data must have one value per row of X_data, shape ({m},); got shape {y.shape}")
    s2 = check_real("noise", noise, low=1e-12, high=1e6)
    check_budget("the data kernel", m * m * prior.d + m * prior.omega.shape[1] * prior.d, m=m, d=prior.d)
    eps = math.sqrt(s2) * as_generator(seed).standard_normal(m)
    K = _kernel(X, X, prior.lengthscale, prior.sigma_f**2) + s2 * np.eye(m)
    L = cholesky(K, lower=True)
    f_X, _ = _prior_and_grad(prior, X)
    v = cho_solve((L, True), y - f_X - eps)
    return PosteriorSample(prior, X, y, require_finite("v", v, m=m), s2)


def _posterior_and_grad(post, X):
    val, grad = _prior_and_grad(post.prior, X)
    ell = post.prior.lengthscale
    k = _kernel(X, post.X_data, ell, post.prior.sigma_f**2)          # (n, m)
    val = val + k @ post.v
    diff = (X[:, None, :] - post.X_data[None, :, :]) / ell**2          # (n, m, d)
    grad = grad - np.einsum("nm,nmd->nd", k * post.v, diff)
    return val, grad


def _posterior_on_grid(post, axes):
    """f_post on the tensor grid axes[0] x ... x axes[d-1] (shape (n_0, ..., n_{d-1})), using separability: the
    prior part is sigma_f times an outer product of 1-D paths, and k(x, x_j) = sigma_f^2 prod_i e_ij(x_i)."""
    pr = post.prior
    ell, s2f = pr.lengthscale, pr.sigma_f**2
    prior = np.asarray(pr.sigma_f)
    data = post.v * s2f                                                     # (m,)
    for i, a in enumerate(axes):
        prior = np.multiply.outer(prior, _path(pr, i, a, 0))
        e = np.exp(-0.5 * ((a[:, None] - post.X_data[None, :, i]) / ell[i]) ** 2)   # (n_i, m)
        data = data[..., None, :] * e                                        # (..., n_i, m)
    return prior + data.sum(-1)


def evaluate_posterior(post, X, *, grad=False):
    """f_post(X) of Eq. (3) at the rows of X (n, d); with ``grad=True`` also the gradient."""
    if not isinstance(grad, (bool, np.bool_)):
        raise TypeError(f"grad must be True or False; got {grad!r}")
    if not isinstance(post, PosteriorSample):
        raise TypeError(f"post must be a PosteriorSample (from posterior_sample); got {type(post).__name__}")
    X = check_points("X", X, d=post.prior.d)
    check_budget("the posterior evaluation", X.shape[0] * (post.prior.omega.shape[1] + post.X_data.shape[0])
                 * post.prior.d, n=X.shape[0], d=post.prior.d)
    val, g = _posterior_and_grad(post, X)
    require_finite("f_post", val)
    return (val, g) if grad else val


# --------------------------------------------------------------------------- starts and optimisation

def tsroots_starts(post, *, n_explore=1, n_exploit=1) -> np.ndarray:
    """TSRoots' starting points (``xnew_TSroots``): the ``n_explore`` minimiser candidates ("tsroots" rule) of the
    prior sample with the smallest f_post, then the ``n_exploit`` data points with the smallest y (each >= 1: the
    rule always has both parts)."""
    if not isinstance(post, PosteriorSample):
        raise TypeError(f"post must be a PosteriorSample (from posterior_sample); got {type(post).__name__}")
    n_explore = check_int("n_explore", n_explore, low=1, high=10**4)
    n_exploit = check_int("n_exploit", n_exploit, low=1, high=10**4)
    parts = []
    if n_explore:
        Xc, _ = minimiser_candidates(candidate_set(post.prior), rule="tsroots", sigma_f=post.prior.sigma_f)
        if Xc.shape[0]:
            fp, _ = _posterior_and_grad(post, Xc)
            parts.append(Xc[np.argsort(fp, kind="stable")[:n_explore]])
    if n_exploit:
        parts.append(post.X_data[np.argsort(post.y_data, kind="stable")[:n_exploit]])
    return np.concatenate(parts)


def random_starts(d, *, lb=-1.0, ub=1.0, n=2, seed=0) -> np.ndarray:
    """``n`` points drawn uniformly on the box [lb, ub]^d (the random-multistart baseline)."""
    d = check_int("d", d, low=1, high=MAX_DIM)
    lo, hi = _box(lb, ub, d)
    n = check_size("n", n, budget=10**6)
    check_budget("the starts", n * d, n=n, d=d)
    return lo + (hi - lo) * as_generator(seed).uniform(size=(n, d))


def optimise_from(post, starts, *, method="SLSQP"):
    """Multistart local minimisation of f_post inside the box from each row of ``starts`` (scipy ``SLSQP`` as in
    TSRoots, or ``L-BFGS-B``) with the exact gradient.  Returns (x_best, f_best, f_each)."""
    if not isinstance(post, PosteriorSample):
        raise TypeError(f"post must be a PosteriorSample (from posterior_sample); got {type(post).__name__}")
    S = check_points("starts", starts, d=post.prior.d)
    check_size("the number of starts", S.shape[0], budget=10**4)
    check_choice("method", method, ("SLSQP", "L-BFGS-B"))
    lo, hi = post.prior.lb, post.prior.ub
    bounds = list(zip(lo, hi))

    def fun(x):
        val, g = _posterior_and_grad(post, x[None, :])
        return float(val[0]), g[0]

    best_x, best_f, each = None, np.inf, []
    opts = {"maxiter": 1000, "ftol": 1e-12} if method == "SLSQP" else {"maxiter": 1000, "ftol": 1e-14, "gtol": 1e-10}
    for x0 in S:
        res = minimize(fun, np.clip(x0, lo, hi), jac=True, method=method, bounds=bounds, options=opts)
        x = np.clip(res.x, lo, hi)
        fx = float(_posterior_and_grad(post, x[None, :])[0][0])
        each.append(fx)
        if fx < best_f:
            best_x, best_f = x, fx
    if not np.isfinite(best_f):
        raise SimulationDiverged(f"f_post is not finite at the optimiser's end points: {each}")
    return best_x, best_f, np.array(each)


def grid_minimum(post, *, n_grid=201, n_polish=5):
    """The reference global minimum of f_post: a uniform grid of ``n_grid`` points per axis, then L-BFGS-B from
    the ``n_polish`` best grid points.  Returns (x_min, f_min)."""
    if not isinstance(post, PosteriorSample):
        raise TypeError(f"post must be a PosteriorSample (from posterior_sample); got {type(post).__name__}")
    n_grid = check_size("n_grid", n_grid, low=2, budget=10**6)
    n_polish = check_size("n_polish", n_polish, budget=100)
    d = post.prior.d
    M = check_budget("the grid", n_grid**d, max_elements=4 * 10**6, unit="points", n_grid=n_grid, d=d)
    axes = [np.linspace(post.prior.lb[i], post.prior.ub[i], n_grid) for i in range(d)]
    check_budget("the grid evaluation", M * (post.X_data.shape[0] + 1), n_grid=n_grid, d=d,
                 m=post.X_data.shape[0])
    vals = _posterior_on_grid(post, axes).ravel()
    G = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
    best = G[np.argsort(vals)[:n_polish]]
    x, f, _ = optimise_from(post, best, method="L-BFGS-B")
    if vals.min() < f:
        return G[np.argmin(vals)], float(vals.min())
    return x, f
