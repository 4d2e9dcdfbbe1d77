"""LASER-VFL on a vertically partitioned least-squares problem (Valdeira, Wang, Chi, "Vertical Federated Learning
with Missing Features During Training and Inference", ICLR 2025, arXiv:2410.22564, OpenReview OXi1FmHGzz; code
github.com/Valdeira/LASER-VFL: methods/laser.py, models/model_utils.py).

Setting (paper Sec. 3; the code's ``BaseLaserModel``): the features x are split into K blocks x_1, ..., x_K, block
j held by client j, with representation h_j and head (fusion model) i.  In a batch, each block is observed
independently with probability q (one mask per batch; a batch with no observed block is skipped, laser.py
``train_laser``).  With O the observed blocks, m = |O|, the code's forward pass (model_utils.py, training=True)
draws, for each head i in O and each size k = 1..m, ONE subset S of O with i in S and |S| = k, uniformly
among the C(m - 1, k - 1) such subsets, and laser.py weights its loss by C(m - 1, k - 1) / k.  Hence [derived]

    E[weight of (i, S) | O] = 1 / |S|   for every S within O containing i,   E[weight of S | O] = 1,

and a step's total weight is sum_{i, k} C(m - 1, k - 1) / k = 2^m - 1 (C(m - 1, k - 1) / k = C(m, k) / m).
:func:`expected_subset_weights` enumerates this exactly; :func:`sampler_weights` is a Monte Carlo of the sampler
the SGD kernel runs.  The fusion is the code's default, the mean of the representations of S.

Here the representations are fixed block embeddings (block j keeps its own coordinates; identity on them) and
the heads are linear, so head i on subset S predicts (1/|S|) sum_{j in S} <w_{i,j}, x_j> = w_i^T D_S x, with
D_S = diag(1/|S| on the coordinates of S's blocks, 0 elsewhere); the loss is 1/2 (prediction - y)^2 (torch's
MSELoss has no 1/2: a factor 2 on the step).  Since P(S within O) = q^{|S|}, the objective SGD follows is
[derived]

    F(W) = sum_{S nonempty} q^{|S|} (1/|S|) sum_{i in S} L_S(w_i),   L_S(w) = (1/2n) sum_n (w^T D_S x_n - y_n)^2,

a sum over heads of quadratics F_i(w_i) = 1/2 w_i^T H_i w_i - g_i^T w_i + c_i (:func:`laser_objective`), hence
PL with constant min_i lambda_min(H_i); H_i grows (in the PSD order) with q, as every term q^{|S|} does.
At test time the predictor of the exact observed set is used (laser.py ``test_laser``, is_final):
:func:`predict`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np

from theorylab.core import as_generator, check_array, check_budget, check_int, check_real, require_finite
from theorylab.core import interrupt
from theorylab.core.rng import seed_state

from theorylab.finite_sum import _kernels_vfl as K

__all__ = ["VerticalData", "vertical_regression", "expected_subset_weights", "sampler_weights",
           "LaserObjective", "laser_objective", "laser_sgd", "predict", "MAX_BLOCKS"]

#: Largest number of blocks (subsets are enumerated: 2^K - 1 of them).
MAX_BLOCKS = 12


def _binom_table(K_):
    return np.array([[comb(a, b) for b in range(K_ + 1)] for a in range(K_ + 1)], dtype=float)


def _blocks(block_sizes):
    if isinstance(block_sizes, (str, bytes)) or not hasattr(block_sizes, "__len__"):
        raise TypeError(f"block_sizes must be a sequence of positive block sizes; got {block_sizes!r}"[:200])
    if len(block_sizes) < 1 or len(block_sizes) > MAX_BLOCKS:
        raise ValueError(f"block_sizes must hold 1 to {MAX_BLOCKS} blocks; got {len(block_sizes)}")
    sizes = [check_int(f"block_sizes[{j}]", s, low=1, high=10**4) for j, s in enumerate(block_sizes)]
    return tuple(sizes)


def _q(q):
    return check_real("q", q, low=0.0, high=1.0)


@dataclass(frozen=True)
class VerticalData:
    """Features X (n, d) split column-wise into contiguous blocks of sizes ``block_sizes`` (each >= 1), labels y."""

    X: np.ndarray
    y: np.ndarray
    block_sizes: tuple

    def __post_init__(self):
        X = check_array("X", self.X, ndim=2)
        sizes = _blocks(self.block_sizes)
        if X.shape[0] < 1 or X.shape[1] != sum(sizes):
            raise ValueError(f"X must have shape (n >= 1, sum(block_sizes) = {sum(sizes)}); got {X.shape}")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", check_array("y", self.y, shape=(X.shape[0],)))
        object.__setattr__(self, "block_sizes", sizes)

    @property
    def n_blocks(self) -> int:
        return len(self.block_sizes)

    @property
    def bounds(self):
        """(starts, stops) of the blocks' columns."""
        stops = np.cumsum(self.block_sizes).astype(np.int64)
        return stops - np.asarray(self.block_sizes, dtype=np.int64), stops


def vertical_regression(n: int = 4000, block_sizes=(2, 2, 2, 2), *, noise: float = 0.5, signal: float = 1.0,
                        seed=0) -> VerticalData:
    """x_n ~ N(0, I_d) split into blocks, y_n = x_n^T theta + noise eps_n with theta ~ signal N(0, I_d)."""
    n = check_int("n", n, low=1, high=10**6)
    sizes = _blocks(block_sizes)
    check_budget("the feature matrix", n * sum(sizes), n=n, block_sizes=sizes)
    noise = check_real("noise", noise, low=0.0, high=1e6)
    signal = check_real("signal", signal, low=0.0, high=1e6)
    rng = as_generator(seed)
    X = rng.standard_normal((n, sum(sizes)))
    theta = signal * rng.standard_normal(sum(sizes))
    return VerticalData(X, X @ theta + noise * rng.standard_normal(n), sizes)


def expected_subset_weights(observed) -> dict:
    """Exact (rational) expected loss weight of every non-empty subset S of the observed blocks under the code's
    sampler, by enumeration: for each head i in O and size k, each of the C(m - 1, k - 1) subsets containing i
    has probability 1 / C(m - 1, k - 1) and weight C(m - 1, k - 1) / k.  Returns {S (sorted tuple): Fraction}."""
    if isinstance(observed, (str, bytes)) or not hasattr(observed, "__iter__"):
        raise TypeError(f"observed must be a collection of block indices; got {observed!r}"[:200])
    O = sorted({check_int("observed", j, low=0, high=MAX_BLOCKS - 1) for j in observed})
    if len(O) < 1:
        raise ValueError("observed must hold at least one block (a batch with no observed block is skipped)")
    m = len(O)
    out = {S: Fraction(0) for k in range(1, m + 1) for S in combinations(O, k)}
    for i in O:
        rest = [j for j in O if j != i]
        for k in range(1, m + 1):
            choices = [tuple(sorted((i,) + c)) for c in combinations(rest, k - 1)]
            for S in choices:
                out[S] += Fraction(1, len(choices)) * Fraction(comb(m - 1, k - 1), k)
    return out


def sampler_weights(n_blocks: int = 4, q: float = 0.5, *, n_draws: int = 100_000, seed=0) -> dict:
    """Monte Carlo of the sampler the SGD kernel runs (mask per batch, one subset per head and size): the mean
    and standard error over ``n_draws`` batches of each subset's total weight, indexed by bit mask S
    (block j is bit j), and the exact expectation q^{|S|} (E weight = P(S within O) x 1)."""
    Kb = check_int("n_blocks", n_blocks, low=1, high=MAX_BLOCKS)
    q = _q(q)
    n_draws = check_int("n_draws", n_draws, low=2, high=10**9)
    check_budget("the sampler's draws", n_draws * Kb * Kb * 2**Kb // 64, max_elements=10**9, n_draws=n_draws,
                 n_blocks=Kb)
    acc, acc2 = np.zeros(2**Kb), np.zeros(2**Kb)
    state = np.empty(4, np.uint64)
    seed_state(int(as_generator(seed).integers(0, 2**63 - 1)), state)
    binom = _binom_table(Kb)
    for sl in interrupt.chunks(n_draws, Kb * Kb + 2**Kb, desc="LASER-VFL sampler"):
        K.sampler_weights_kernel(Kb, q, sl.stop - sl.start, state, binom, acc, acc2)
    mean = acc / n_draws
    var = np.maximum(acc2 / n_draws - mean ** 2, 0.0) * n_draws / (n_draws - 1)
    size = np.array([bin(s).count("1") for s in range(2**Kb)])
    return {"mean": mean[1:], "se": np.sqrt(var / n_draws)[1:], "expected": (q ** size)[1:], "size": size[1:],
            "subset": np.arange(1, 2**Kb)}


@dataclass(frozen=True)
class LaserObjective:
    """F(W) = sum_i (1/2 w_i^T H[i] w_i - g[i]^T w_i + c[i]) with minimiser W_star and value f_star."""

    H: np.ndarray
    g: np.ndarray
    c: np.ndarray
    W_star: np.ndarray
    f_star: float
    mu: float
    L: float

    def __post_init__(self):
        H = check_array("H", self.H, ndim=3)
        if H.shape[0] < 1 or H.shape[1] < 1 or H.shape[1] != H.shape[2]:
            raise ValueError(f"H must have shape (K >= 1, d >= 1, d); got {H.shape}")
        object.__setattr__(self, "H", H)
        object.__setattr__(self, "g", check_array("g", self.g, shape=H.shape[:2]))
        object.__setattr__(self, "c", check_array("c", self.c, shape=H.shape[:1]))
        object.__setattr__(self, "W_star", check_array("W_star", self.W_star, shape=H.shape[:2]))
        object.__setattr__(self, "f_star", check_real("f_star", self.f_star))
        object.__setattr__(self, "mu", check_real("mu", self.mu, low=0.0, low_open=True))
        object.__setattr__(self, "L", check_real("L", self.L, low=self.mu))

    def value(self, W) -> np.ndarray:
        """F at W (K, d), or at each of a stack (..., K, d)."""
        W = check_array("W", W)
        if W.shape[-2:] != self.g.shape:
            raise ValueError(f"W must have trailing shape {self.g.shape}; got {W.shape}")
        quad = 0.5 * np.einsum("...ik,ikl,...il->...", W, self.H, W)
        return quad - np.einsum("...ik,ik->...", W, self.g) + self.c.sum()


def _subset_diag(data: VerticalData, S):
    D = np.zeros(data.X.shape[1])
    starts, stops = data.bounds
    for j in S:
        D[starts[j]:stops[j]] = 1.0 / len(S)
    return D


def laser_objective(data: VerticalData, q: float) -> LaserObjective:
    """The expected LASER-VFL objective F for observation probability q (module docstring), exact: each head's
    Hessian H_i = sum_{S containing i} q^{|S|} / |S| D_S Sigma D_S, Sigma = X^T X / n; PL constant mu = min
    eigenvalue over heads, smoothness L = max eigenvalue."""
    if not isinstance(data, VerticalData):
        raise TypeError(f"data must be a VerticalData (from vertical_regression); got {type(data).__name__}")
    q = check_real("q", q, low=0.0, high=1.0, low_open=True)
    X, y = data.X, data.y
    n, d = X.shape
    Kb = data.n_blocks
    Sigma, cxy, yy = X.T @ X / n, X.T @ y / n, float(y @ y / n)
    H, g, c = np.zeros((Kb, d, d)), np.zeros((Kb, d)), np.zeros(Kb)
    for k in range(1, Kb + 1):
        for S in combinations(range(Kb), k):
            D = _subset_diag(data, S)
            a = q ** k / k
            for i in S:
                H[i] += a * D[:, None] * Sigma * D[None, :]
                g[i] += a * D * cxy
                c[i] += a * 0.5 * yy
    eig = np.linalg.eigvalsh(H)
    if eig.min() <= 1e-10 * max(eig.max(), 1e-300):
        raise ValueError(f"data: the heads' Hessians are singular (min eigenvalue {eig.min():.3g}; rank-deficient "
                         "features, e.g. a constant-zero column): F is not strongly convex")
    W_star = np.linalg.solve(H, g[..., None])[..., 0]
    f_star = float(-0.5 * np.einsum("ik,ik->", W_star, g) + c.sum())
    return LaserObjective(H, g, c, W_star, f_star, float(eig.min()), float(eig.max()))


def laser_sgd(data: VerticalData, q: float, eta: float, n_steps: int, *, batch: int = 32, W0=None,
              record_every: int = 1, seed=0) -> np.ndarray:
    """LASER-VFL SGD (laser.py ``train_laser`` with the code's subset sampler, plain SGD): ``n_steps`` batches
    (uniform with replacement), each with its own block mask; returns the heads W (K, d) after every
    ``record_every`` steps, shape (n_steps // record_every + 1, K, d), W0 first (default 0); steps after the last
    record are not run.  Raises
    SimulationDiverged if W leaves the finite range."""
    if not isinstance(data, VerticalData):
        raise TypeError(f"data must be a VerticalData (from vertical_regression); got {type(data).__name__}")
    q = _q(q)
    eta = check_real("eta", eta, low=0.0, high=1e3, low_open=True)
    n_steps = check_int("n_steps", n_steps, low=0, high=10**9)
    batch = check_int("batch", batch, low=1, high=10**5)
    record_every = check_int("record_every", record_every, low=1, high=10**9)
    Kb, d = data.n_blocks, data.X.shape[1]
    n_rec = n_steps // record_every
    check_budget("the recorded heads", (n_rec + 1) * Kb * d, n_steps=n_steps, record_every=record_every)
    check_budget("the SGD work", n_steps * batch * d * 2**Kb, max_elements=2 * 10**10, unit="operations",
                 n_steps=n_steps, batch=batch)
    W = np.zeros((Kb, d)) if W0 is None else check_array("W0", W0, shape=(Kb, d)).copy()
    out = np.empty((n_rec + 1, Kb, d))
    out[0] = W
    state = np.empty(4, np.uint64)
    seed_state(int(as_generator(seed).integers(0, 2**63 - 1)), state)
    starts, stops = data.bounds
    binom = _binom_table(Kb)
    per_step = batch * d * 2**Kb
    n_chunk = max(1, int(2e7 // per_step) // record_every) * record_every
    t = 0
    while t < n_rec * record_every:
        steps = min(n_chunk, n_rec * record_every - t)
        interrupt.check()
        K.laser_sgd_kernel(data.X, data.y, starts, stops, W, q, eta, batch, steps, record_every, state, binom,
                           out[1:], t // record_every)
        t += steps
    return require_finite("the LASER-VFL iterates", out, eta=eta, q=q)


def predict(data: VerticalData, W, observed, head: int | None = None) -> np.ndarray:
    """Test-time prediction on the exact observed set O (laser.py ``test_laser``, is_final): head i's predictor
    for O, (1/|O|) sum_{j in O} <w_{i,j}, x_j>, or with ``head=None`` the mean over the heads i in O (the code
    averages the heads' metrics over i in O)."""
    if not isinstance(data, VerticalData):
        raise TypeError(f"data must be a VerticalData (from vertical_regression); got {type(data).__name__}")
    W = check_array("W", W, shape=(data.n_blocks, data.X.shape[1]))
    if isinstance(observed, (str, bytes)) or not hasattr(observed, "__iter__"):
        raise TypeError(f"observed must be a collection of block indices; got {observed!r}"[:200])
    O = sorted({check_int("observed", j, low=0, high=data.n_blocks - 1) for j in observed})
    if not O:
        raise ValueError("observed must hold at least one block")
    heads = O if head is None else [check_int("head", head, low=0, high=data.n_blocks - 1)]
    if head is not None and heads[0] not in O:
        raise ValueError(f"head must be one of the observed blocks {O}; got {head}")
    D = _subset_diag(data, O)
    return np.mean([data.X @ (D * W[i]) for i in heads], axis=0)
