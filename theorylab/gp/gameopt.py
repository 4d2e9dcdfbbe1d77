"""GameOpt: iterated best response (IBR) on the GP upper confidence bound over a combinatorial set -- the
simulator of paper ``gameopt``.

M. I. Bal, P. G. Sessa, M. Mutny, A. Krause, "Optimistic Games for Combinatorial Bayesian Optimization with
Application to Protein Design", ICLR 2025 (arXiv:2409.18582; code melisilaydabal/gameopt).

Domain (Sec. 3): a profile x = (x_1, ..., x_n) of X = S_1 x ... x S_n, |S_i| = k_i (``sizes``); strategies
are coded 0..k_i - 1 and a profile is an integer row.  Features are one-hot, phi(x) in {0, 1}^{k_1 + ... + k_n},
so ||phi(x) - phi(x')||^2 = 2 H(x, x') with H the Hamming distance, and the squared-exponential kernel on the
features (theorylab.gp.priors.se_kernel) is

    k(x, x') = v exp(-||phi(x) - phi(x')||^2 / (2 l^2)) = v rho^{H(x, x')},   rho = exp(-1/l^2),

a product over the players of k_i(s, t) = rho^{[s != t]}: the Gram matrix of the whole of X is the Kronecker
product v (x)_i R_i, R_i = (1 - rho) I + rho 1 1^T, which gives exact prior draws on all of X at the cost of
|X| (k_1 + ... + k_n) (:func:`sample_gp_on_profiles`).

Game (Sec. 4, Algorithm 1; solvers/best_response.py): all n players share one payoff, the upper confidence
bound UCB_beta(x) = mu(x) + beta sigma(x) of the GP posterior.  A round of IBR enumerates every unilateral
deviation x^{-i}(s) = (x_1, .., s, .., x_n) of the current profile (for every player i and strategy s, the
current profile among them) and moves to the one of largest UCB if it is strictly larger (ties: stay).
[derived] The game has identical interests, hence an exact potential (UCB itself): every move strictly
increases UCB, no profile is visited twice, so IBR stops within |X| - 1 moves at a profile with no improving
unilateral deviation, a pure Nash equilibrium of the UCB game, i.e. a coordinate-wise maximum of UCB.

GameOpt (Algorithm 1): at each BO step the posterior of the data so far defines the UCB game, IBR is played
from a random profile (the code's default start), the equilibrium is evaluated, the data are updated.
Baselines: random search, and GP-UCB with the exact argmax of UCB over all of X (enumeration).

Example::

    from theorylab.gp import gameopt as G
    sizes = (5,) * 6
    f = G.sample_gp_on_profiles(sizes, lengthscale=2.0, seed=0)[0]          # f on all 5^6 profiles
    run = G.run_bo(f, sizes, method="gameopt", T=50, n_init=5, beta=2.0, lengthscale=2.0, seed=1)
    run.simple_regret[-1]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, cholesky, lapack

from theorylab.core.seeding import as_generator
from theorylab.core.validate import (check_array, check_budget, check_choice, check_int, check_real, check_size,
                                     require_finite)
from theorylab.gp import priors
from theorylab.core.validate import check_record

__all__ = ["METHODS", "UCBUtility", "IBRResult", "BORun", "check_sizes", "n_profiles", "all_profiles",
           "profile_index", "one_hot", "hamming", "unilateral_deviations", "sample_gp_on_profiles", "ucb_utility",
           "iterated_best_response", "iterated_best_response_reference", "improving_deviation", "run_bo"]

METHODS = ("gameopt", "random", "ucb_exact")
#: largest profile set enumerated (all_profiles, exact prior draws, exact UCB argmax): 10^6 profiles
MAX_PROFILES = 10**6
#: largest data set of one posterior (a dense m x m Cholesky)
MAX_DATA = 5000
#: a move needs UCB(x') > UCB(x) + TIE_TOL (|UCB(x)| + 1): exact ties (deviations at the same Hamming distances
#: to every data point) computed in different columns of one triangular solve can differ in the last bits, and a
#: "move" on such a rounding difference could cycle; 1e-12 is far above rounding (1e-16) and far below any
#: genuine UCB difference on the instances here
TIE_TOL = 1e-12


# --------------------------------------------------------------------------- the profile set

def check_sizes(sizes) -> np.ndarray:
    """``sizes`` = (k_1, ..., k_n) as an int64 array: n >= 1 players, every strategy set non-empty (k_i >= 1)."""
    if sizes is None or isinstance(sizes, (str, bytes, bool)):
        raise TypeError(f"sizes must be a sequence of strategy-set sizes (k_1, ..., k_n), integers >= 1; got "
                        f"{sizes!r}"[:200])
    k = check_array("sizes", np.atleast_1d(sizes) if np.isscalar(sizes) else sizes, ndim=1, dtype=np.int64)
    if k.size == 0:
        raise ValueError("sizes must name at least one player (n >= 1); got an empty sequence")
    if k.size > 10**4:
        raise ValueError(f"sizes must have at most 10^4 players; got {k.size}")
    if np.any(k < 1):
        raise ValueError(f"sizes must be >= 1 for every player (empty strategy sets are not allowed); got "
                         f"{k.tolist()[:20]}")
    if np.any(k > 10**4):
        raise ValueError(f"sizes must be <= 10^4 strategies per player; got max {k.max()}")
    return k


def n_profiles(sizes) -> int:
    """|X| = k_1 k_2 ... k_n (a Python int, no overflow)."""
    return math.prod(int(s) for s in check_sizes(sizes))


def all_profiles(sizes) -> np.ndarray:
    """Every profile of X, shape (|X|, n), in C order (the order of :func:`profile_index` and of the prior draws)."""
    k = check_sizes(sizes)
    N = check_budget("all_profiles", n_profiles(k), max_elements=MAX_PROFILES, unit="profiles", sizes=k.tolist())
    check_budget("the profile array", N * k.size)
    return np.stack(np.unravel_index(np.arange(N), tuple(k)), axis=1).astype(np.int64)


def _profiles(name, P, k) -> np.ndarray:
    """Profiles as (m, n) int64 with 0 <= P[:, i] < k_i (a single profile becomes one row)."""
    if P is None or isinstance(P, (str, bytes)):
        raise TypeError(f"{name} must be an integer array of profiles (m, n) or one profile (n,); got {P!r}"[:200])
    arr = check_array(name, P, dtype=np.int64)
    if arr.ndim == 1:
        arr = arr[None]
    if arr.ndim != 2 or arr.shape[1] != k.size:
        raise ValueError(f"{name} must have shape (m, {k.size}) (one column per player of sizes); got {arr.shape}")
    if arr.size and (np.any(arr < 0) or np.any(arr >= k)):
        raise ValueError(f"{name} must hold strategies 0 <= x_i < k_i (sizes {k.tolist()[:10]}); got values in "
                         f"[{arr.min()}, {arr.max()}]")
    return arr


def profile_index(profiles, sizes) -> np.ndarray:
    """Position of each profile in :func:`all_profiles` (C order)."""
    k = check_sizes(sizes)
    P = _profiles("profiles", profiles, k)
    return np.ravel_multi_index(tuple(P.T), tuple(k)).astype(np.int64)


def one_hot(profiles, sizes) -> np.ndarray:
    """phi(x): (m, k_1 + ... + k_n) with a 1 at offset_i + x_i for every player i."""
    k = check_sizes(sizes)
    P = _profiles("profiles", profiles, k)
    check_budget("the one-hot features", P.shape[0] * int(k.sum()), profiles=P.shape, sizes=int(k.sum()))
    return _one_hot(P, k)


def _offsets(k):
    return np.r_[0, np.cumsum(k)[:-1]].astype(np.int64)


def _one_hot(P, k):
    E = np.zeros((P.shape[0], int(k.sum())))
    E[np.arange(P.shape[0])[:, None], _offsets(k)[None, :] + P] = 1.0
    return E


def hamming(P, Q, sizes) -> np.ndarray:
    """H(p, q) = #{i : p_i != q_i}, shape (len(P), len(Q))."""
    k = check_sizes(sizes)
    P, Q = _profiles("P", P, k), _profiles("Q", Q, k)
    check_budget("the Hamming matrix", P.shape[0] * Q.shape[0], P=P.shape, Q=Q.shape)
    return _hamming(P, Q)


def _hamming(P, Q):
    return (P[:, None, :] != Q[None, :, :]).sum(-1).astype(np.int64)


def unilateral_deviations(x, sizes) -> np.ndarray:
    """All x^{-i}(s), player by player and strategy by strategy: (k_1 + ... + k_n, n); the row of (i, x_i) is x."""
    k = check_sizes(sizes)
    x = _profiles("x", x, k)
    if x.shape[0] != 1:
        raise ValueError(f"x must be one profile (n,); got {x.shape[0]} profiles")
    return _deviations(x[0], k)


def _deviations(x, k):
    K = int(k.sum())
    player = np.repeat(np.arange(k.size), k)
    D = np.repeat(x[None], K, axis=0)
    D[np.arange(K), player] = np.arange(K) - _offsets(k)[player]
    return D


# --------------------------------------------------------------------------- the GP on X

def _hyper(lengthscale, variance):
    l = check_real("lengthscale", lengthscale, low=1e-3, high=1e6)
    v = check_real("variance", variance, low=1e-12, high=1e12, low_open=True)
    return l, v


def sample_gp_on_profiles(sizes, *, lengthscale, variance=1.0, n_samples=1, seed=0) -> np.ndarray:
    """Exact joint draws of f ~ GP(0, k) on all of X, shape (n_samples, |X|) in :func:`all_profiles` order.

    The Gram matrix of X is v (x)_i R_i (module docstring), so f = sqrt(v) (L_1 (x) ... (x) L_n) z with
    R_i = L_i L_i^T and z standard normal on X: applied axis by axis, |X| (k_1 + ... + k_n) work per draw, the
    same law as a Cholesky of the |X| x |X| Gram matrix (theorylab.gp.priors.sample_gp_prior on a small X).
    """
    k = check_sizes(sizes)
    l, v = _hyper(lengthscale, variance)
    n_samples = check_size("n_samples", n_samples, budget=10**6)
    N = check_budget("the profile set", n_profiles(k), max_elements=MAX_PROFILES, unit="profiles",
                     sizes=k.tolist())
    check_budget("the prior draws", n_samples * N, n_samples=n_samples, sizes=k.tolist())
    rng = as_generator(seed)
    rho = math.exp(-1.0 / l**2)
    z = rng.standard_normal((n_samples,) + tuple(int(s) for s in k))
    for i, ki in enumerate(k):
        R = (1.0 - rho) * np.eye(ki) + rho
        L = np.linalg.cholesky(R + 1e-12 * np.eye(ki))
        z = np.moveaxis(np.tensordot(L, z, axes=([1], [i + 1])), 0, i + 1)
    return math.sqrt(v) * z.reshape(n_samples, N)


@dataclass(frozen=True)
class UCBUtility:
    """The shared payoff UCB_beta(x) = mu(x) + beta sigma(x) of the GP posterior given data (X_data, y_data)
    on X (kernel v rho^H, rho = exp(-1/l^2), Gaussian noise variance ``noise``).  Built by
    :func:`ucb_utility`; ``__call__(profiles)`` gives UCB, :meth:`mean_std` the posterior mean and std,
    :meth:`deviation_values` UCB of all unilateral deviations of a profile in one pass."""

    sizes: np.ndarray
    X_data: np.ndarray
    y_data: np.ndarray
    lengthscale: float
    variance: float
    noise: float
    beta: float
    chol: np.ndarray            # L L^T = K_DD + noise I
    chol_inv: np.ndarray        # L^{-1} (LAPACK dtrtri: a product per query batch, no small threaded trsm)
    alpha: np.ndarray           # (K_DD + noise I)^{-1} y
    E_data: np.ndarray          # one-hot features of the data (m, k_1 + ... + k_n)

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)

    def _stats(self, H):
        """(mu, sigma) from the Hamming distances H (q, m) of q query profiles to the data."""
        Kq = self.variance * np.exp(-H / self.lengthscale**2)
        mu = Kq @ self.alpha
        V = Kq @ self.chol_inv.T                                        # rows: (L^{-1} k(q, D))^T
        var = np.maximum(self.variance - np.einsum("ij,ij->i", V, V), 0.0)
        return mu, np.sqrt(var)

    def _hamming_to_data(self, P):
        return self.sizes.size - _one_hot(P, self.sizes) @ self.E_data.T

    def mean_std(self, profiles):
        """Posterior mean and standard deviation at ``profiles`` (m, n)."""
        P = _profiles("profiles", profiles, self.sizes)
        check_budget("the posterior at the query profiles", P.shape[0] * max(self.X_data.shape[0], 1),
                     profiles=P.shape, data=self.X_data.shape)
        return self._stats(self._hamming_to_data(P))

    def __call__(self, profiles):
        mu, sd = self.mean_std(profiles)
        return require_finite("UCB", mu + self.beta * sd, beta=self.beta)

    def deviation_values(self, x):
        """UCB of :func:`unilateral_deviations` of ``x`` (k_1 + ... + k_n,), from H(x, data) alone:
        H(x^{-i}(s), d) = H(x, d) - [x_i != d_i] + [s != d_i]."""
        x = _profiles("x", x, self.sizes)[0]
        return self._deviation_values(x)

    def _deviation_values(self, x):
        k = self.sizes
        player = np.repeat(np.arange(k.size), k)
        neq = (self.X_data != x[None, :]).astype(float)                    # (m, n): [x_i != d_i]
        h0 = neq.sum(1)                                                    # H(x, d)
        H = (h0[:, None] - neq[:, player] + 1.0 - self.E_data).T           # (K, m)
        mu, sd = self._stats(H)
        return mu + self.beta * sd


def ucb_utility(X_data, y_data, sizes, *, lengthscale, variance=1.0, noise=1e-4, beta=2.0) -> UCBUtility:
    """The UCB game's payoff for data ``X_data`` (m, n) profiles, ``y_data`` (m,) observations.

    beta >= 0 (beta = 0 is the posterior mean); ``noise`` is the observation-noise variance (> 0: it also keeps
    the Cholesky of K_DD + noise I well defined with repeated profiles).  m = 0 gives the prior (mu = 0,
    sigma = sqrt(v))."""
    k = check_sizes(sizes)
    X = _profiles("X_data", X_data, k)
    y = check_array("y_data", y_data, ndim=1)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y_data must have one value per row of X_data: got {y.shape[0]} values for "
                         f"{X.shape[0]} profiles")
    check_size("the number of data points (len(X_data))", X.shape[0], low=0, budget=MAX_DATA)
    l, v = _hyper(lengthscale, variance)
    noise = check_real("noise", noise, low=1e-12, high=1e6)
    beta = check_real("beta", beta, low=0.0, high=1e6)
    check_budget("the one-hot data features", X.shape[0] * int(k.sum()), X_data=X.shape, sizes=int(k.sum()))
    E = _one_hot(X, k)
    if X.shape[0]:
        H = k.size - E @ E.T
        chol = cholesky(v * np.exp(-H / l**2) + noise * np.eye(X.shape[0]), lower=True, check_finite=False)
        alpha = cho_solve((chol, True), y, check_finite=False)
        chol_inv, info = lapack.dtrtri(chol, lower=1)
        if info != 0:
            raise ValueError(f"noise = {noise:g} leaves K_DD + noise I numerically singular; pass a larger noise")
    else:
        chol, chol_inv, alpha = np.zeros((0, 0)), np.zeros((0, 0)), np.zeros(0)
    return UCBUtility(sizes=k, X_data=X, y_data=y, lengthscale=l, variance=v, noise=noise, beta=beta, chol=chol,
                      chol_inv=chol_inv, alpha=alpha, E_data=E)


# --------------------------------------------------------------------------- iterated best response

@dataclass(frozen=True)
class IBRResult:
    """``profile``: the last profile; ``path`` (rounds + 1, n): x^0, x^1, ...; ``values``: UCB along the path;
    ``rounds``: number of moves; ``converged``: the last round found no strictly improving deviation."""

    profile: np.ndarray
    path: np.ndarray
    values: np.ndarray
    rounds: int
    converged: bool

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)


def _start(utility, x0):
    if not isinstance(utility, UCBUtility):
        raise TypeError(f"utility must be a UCBUtility (from ucb_utility); got {type(utility).__name__}")
    x = _profiles("x0", x0, utility.sizes)
    if x.shape[0] != 1:
        raise ValueError(f"x0 must be one profile (n,); got {x.shape[0]} profiles")
    return x[0].copy()


def _max_rounds(max_rounds, k):
    cap = n_profiles(k) - 1          # [derived] strictly increasing UCB: each profile at most once
    if max_rounds is None:
        return max(cap, 0)
    return check_int("max_rounds", max_rounds, low=0, high=10**9)


def _ibr(x, values_of, k, max_rounds):
    """The IBR loop with ``values_of(x)`` = UCB of _deviations(x, k) (the current profile among them)."""
    player = np.repeat(np.arange(k.size), k)
    off = _offsets(k)
    path, vals = [x.copy()], []
    converged = False
    for t in range(max_rounds + 1):
        u = values_of(x)
        here = u[off[0] + x[0]]
        if t == 0:
            vals.append(here)
        j = int(np.argmax(u))
        if not u[j] > here + TIE_TOL * (abs(here) + 1.0):          # no strictly improving deviation
            converged = True
            break
        if t == max_rounds:
            break
        x = x.copy()
        x[player[j]] = j - off[player[j]]
        path.append(x)
        vals.append(u[j])
    values = require_finite("UCB along the IBR path", np.asarray(vals, dtype=float))
    return IBRResult(profile=x, path=np.asarray(path), values=values, rounds=len(path) - 1, converged=converged)


def iterated_best_response(utility: UCBUtility, x0, *, max_rounds=None) -> IBRResult:
    """IBR on the UCB game (Algorithm 1's inner loop; solvers/best_response.py): from ``x0``, move each round to
    the unilateral deviation of largest UCB while it is strictly larger than the current UCB.  ``max_rounds``
    caps the moves (None: |X| - 1, enough by the potential argument).  A move needs an improvement above
    the floating-point tie level ``TIE_TOL`` (relative, 1e-12).  The deviations' UCB comes from
    :meth:`UCBUtility.deviation_values` (Hamming updates, one triangular solve per round)."""
    x = _start(utility, x0)
    return _ibr(x, utility._deviation_values, utility.sizes, _max_rounds(max_rounds, utility.sizes))


def iterated_best_response_reference(utility: UCBUtility, x0, *, max_rounds=None) -> IBRResult:
    """The same IBR with every round's deviations built explicitly, one-hot encoded and passed to the exact
    posterior theorylab.gp.priors.gp_posterior (a fresh solve each round) and priors.ucb: the plain reference of
    the tests and the benchmark."""
    x = _start(utility, x0)
    k = utility.sizes
    cap = _max_rounds(max_rounds, k)
    Xd = _one_hot(utility.X_data, k)

    def values_of(x):
        Q = _one_hot(_deviations(x, k), k)
        if Xd.shape[0] == 0:                                    # no data: the prior
            return np.full(Q.shape[0], utility.beta * math.sqrt(utility.variance))
        mu, sd = priors.gp_posterior(Xd, utility.y_data, Q, lengthscale=utility.lengthscale,
                                     variance=utility.variance, noise=utility.noise)
        return priors.ucb(mu, sd, utility.beta)

    return _ibr(x, values_of, k, cap)


def improving_deviation(utility: UCBUtility, x) -> float:
    """max over unilateral deviations of UCB(x^{-i}(s)) - UCB(x), by enumeration (<= 0 at an equilibrium)."""
    if not isinstance(utility, UCBUtility):
        raise TypeError(f"utility must be a UCBUtility (from ucb_utility); got {type(utility).__name__}")
    x = _profiles("x", x, utility.sizes)
    if x.shape[0] != 1:
        raise ValueError(f"x must be one profile (n,); got {x.shape[0]} profiles")
    u = utility(_deviations(x[0], utility.sizes))
    return float(u.max() - utility(x)[0])


# --------------------------------------------------------------------------- the BO loop

@dataclass(frozen=True)
class BORun:
    """``profiles`` (T, n) evaluated in order, ``y`` their observations, ``f`` their true values,
    ``simple_regret`` (T,): max f - max_{s <= t} f(x_s); ``rounds`` (T,): IBR moves per step (0 for the
    initial random profiles and for the baselines)."""

    method: str
    profiles: np.ndarray
    y: np.ndarray
    f: np.ndarray
    simple_regret: np.ndarray
    rounds: np.ndarray

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)


def run_bo(f, sizes, *, method="gameopt", T=50, n_init=5, beta=2.0, lengthscale=2.0, variance=1.0, noise=1e-4,
           obs_noise=0.0, seed=0) -> BORun:
    """Bayesian optimisation of ``f`` (values on all of X in :func:`all_profiles` order) for T evaluations.

    The first ``n_init`` profiles are uniform at random (the same draws for every method with the same seed).
    Then ``"gameopt"``: IBR on the UCB of the current posterior from a uniform random profile, evaluate the
    equilibrium (Algorithm 1); ``"ucb_exact"``: evaluate the argmax of UCB over all of X; ``"random"``: uniform
    profiles.  Observations y = f(x) + N(0, obs_noise^2)."""
    k = check_sizes(sizes)
    N = check_budget("the profile set", n_profiles(k), max_elements=MAX_PROFILES, unit="profiles",
                     sizes=k.tolist())
    fv = check_array("f", f, ndim=1)
    if fv.size != N:
        raise ValueError(f"f must hold one value per profile of X (|X| = {N}); got {fv.size}")
    method = check_choice("method", method, METHODS)
    T = check_size("T", T, budget=MAX_DATA)
    n_init = check_int("n_init", n_init, low=1, high=T)
    beta = check_real("beta", beta, low=0.0, high=1e6)
    _hyper(lengthscale, variance)
    obs_noise = check_real("obs_noise", obs_noise, low=0.0, high=1e6)
    check_budget("the BO loop (T x |X| posterior evaluations)", T * (N if method == "ucb_exact" else
                 int(k.sum()) * 50), T=T, sizes=k.tolist())
    rng = as_generator(seed)
    rng_eval = as_generator(rng.integers(2**63))
    P = np.stack(np.unravel_index(rng.integers(0, N, n_init), tuple(k)), axis=1).astype(np.int64)
    profiles, rounds = [p for p in P], [0] * n_init
    y = [fv[np.ravel_multi_index(tuple(p), tuple(k))] + obs_noise * rng_eval.standard_normal() for p in P]
    grid = all_profiles(k) if method == "ucb_exact" else None
    for _ in range(n_init, T):
        if method == "random":
            x, r = np.array(np.unravel_index(rng.integers(0, N), tuple(k)), dtype=np.int64), 0
        else:
            u = ucb_utility(np.asarray(profiles), np.asarray(y), k, lengthscale=lengthscale, variance=variance,
                            noise=noise, beta=beta)
            if method == "gameopt":
                x0 = np.array([rng.integers(0, s) for s in k], dtype=np.int64)
                res = _ibr(x0, u._deviation_values, k, max(N - 1, 0))
                x, r = res.profile, res.rounds
            else:
                x, r = grid[int(np.argmax(u(grid)))], 0
        profiles.append(x)
        rounds.append(r)
        y.append(fv[np.ravel_multi_index(tuple(x), tuple(k))] + obs_noise * rng_eval.standard_normal())
    Pm = np.asarray(profiles, dtype=np.int64)
    fx = fv[np.ravel_multi_index(tuple(Pm.T), tuple(k))]
    regret = fv.max() - np.maximum.accumulate(fx)
    return BORun(method=method, profiles=Pm, y=np.asarray(y), f=fx, simple_regret=regret,
                 rounds=np.asarray(rounds, dtype=np.int64))
