"""Query budgets and allocators for per-sample forward-gradient estimates (paper flops).

FLOPS (Ren, Zhang, Jiang, Li, Zhang, Feng, Peng, ICLR 2025, arXiv:2410.05966) spends a budget of
``N`` forward-gradient queries on a batch of ``B`` samples, giving sample ``i`` ``n_i`` of them.

The model [derived, spec ``flops`` "Reference allocation"]
----------------------------------------------------------
Sample ``i`` has gradient ``g_i``; one query draws a direction ``u`` (``E[u u^T] = I_d``) and
returns ``(g_i . u) u`` -- the exact directional derivative of forward-mode differentiation, i.e.
the delta -> 0 limit of the two-point difference the authors' trainer computes with
``zo_eps = 1e-3``.  It is unbiased with total variance ``sigma_i^2 = tr Cov = c_law ||g_i||^2``,
``c = d + 1`` for Gaussian and ``d - 1`` for Rademacher directions (:func:`query_variance_factor`).
With ``n_i >= 1`` independent queries the per-sample mean estimate ``g^_i`` has variance
``sigma_i^2 / n_i`` and the batch estimate ``(1/B) sum_i g^_i`` has

    Var = (1/B^2) sum_i sigma_i^2 / n_i,         sum_i n_i = N.

Lagrange (``sigma_i^2 / n_i^2 = lambda``) gives Neyman's allocation ``n_i ∝ sigma_i`` with
``Var = (sum sigma_i)^2 / (B^2 N)``; uniform ``n_i = N/B`` gives ``sum sigma_i^2 / (B N)``; their
ratio is ``(mean sigma)^2 / mean(sigma^2) <= 1`` (:func:`neyman_ratio`).

The released allocators [paper code: RTkenny/FLOPS-Forward-Learning-with-OPtimal-Sampling]
------------------------------------------------------------------------------------------
``allocator.py`` defines two randomised policies of the per-sample losses ``l_i`` with budget
``bs * sample_n``; they are re-implemented here from their description (no code copied):

* :func:`bernoulli_allocation` (``bernoulli_allocater``): every sample with loss below the batch
  mean has its quota ``sample_n`` halved (floor) with probability ``p``; the freed queries go
  evenly (floor) to the samples not halved, the remainder one at a time to random ones of them.
* :func:`gaussian_allocation` (``gaussian_allocater``): ``n ~ N(l Z, variance * RBF(l, l))``
  with a *random* mean map ``Z`` (standard normal, drawn afresh at every call), clipped at 0,
  rescaled to the budget, truncated to integers, the remainder one at a time to random samples.
  The code's shapes compose only for a square ``(bs, bs)`` loss matrix (``matmul(l, randn(bs,
  k))``); with the trainer's 1-d per-sample losses it cannot run as written.  We use the spec's
  reading ``Z ∈ R^{k x k}`` with ``k = 1``: ``mean = z l``, ``z ~ N(0, 1)``.  Where every clipped
  draw is 0 the code divides 0 by 0; we then give the whole budget out at random (the remainder
  rule), and count how often that happens.  The Gaussian draw uses an eigendecomposition (the RBF
  matrix of close losses is numerically singular, where a Cholesky factor fails).

Samples can get zero queries under both policies (Bernoulli when ``sample_n = 1``).  Two
weightings of the queries (:data:`WEIGHTINGS`): ``"per_sample"`` -- the mean of sample ``i``'s
queries, weight ``1/B`` per sample, a sample without queries contributing 0 (biased then) -- and
``"per_query"`` -- the authors' trainer (trainer_a.py, ``repeat_interleave`` of the data by the
allocation, then ``projected_grad / sample_n`` per mini-batch): every query weighs ``1/N``, so the
batch gradient is the ``n``-weighted mean ``sum n_i g_i / N``, biased unless ``n`` is uniform, with
independent queries.  The trainer itself also shares one perturbation per mini-batch: the ``N``
copies are shuffled into ``sample_n`` mini-batches of ``bs`` and each gets one direction ``z_b`` and
the two-point difference of the mini-batch mean loss, ``G = (1/S) sum_b (gbar_b . z_b) z_b``
(``S = sample_n``): :func:`simulate_trainer_step` and its exact moments :func:`trainer_moments`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.core import (check_array, check_budget, check_choice, check_int, check_real, check_size,
                            require_finite, spawn_seeds)
from theorylab.core.seeding import as_generator
from theorylab.core.validate import check_record

from . import _kernels_allocation as K

LAWS = ("gaussian", "rademacher")
WEIGHTINGS = ("per_sample", "per_query")
ALLOCATORS = ("uniform", "neyman", "bernoulli", "gaussian")
_LAW_CODE = {"gaussian": K.GAUSSIAN, "rademacher": K.RADEMACHER}
MAX_BATCH = 100_000
MAX_DIM = 100_000

__all__ = ["LAWS", "WEIGHTINGS", "ALLOCATORS", "LogisticBatch", "BatchErrors", "logistic_batch",
           "query_variance_factor", "noise_levels", "uniform_allocation", "neyman_allocation", "neyman_ratio",
           "integer_optimal_allocation",
           "bernoulli_allocation", "gaussian_allocation", "draw_allocations", "allocation_variance",
           "allocation_bias", "simulate_batch_gradient", "simulate_batch_gradient_numpy", "trainer_moments",
           "simulate_trainer_step"]


# --------------------------------------------------------------------------- the instance

@dataclass(frozen=True)
class LogisticBatch:
    """A batch of ``B`` logistic-regression samples at the point ``theta``.

    ``losses[i] = log(1 + exp(-y_i x_i . theta))``, ``G[i] = grad`` of it, ``gbar = G.mean(0)``
    (the batch gradient every estimator targets).
    """

    X: np.ndarray
    y: np.ndarray
    theta: np.ndarray
    losses: np.ndarray
    G: np.ndarray
    gbar: np.ndarray

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)

    @property
    def B(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    def sigma(self, law: str = "gaussian") -> np.ndarray:
        """Per-query noise levels sigma_i (see :func:`noise_levels`)."""
        return noise_levels(self.G, law)


def logistic_batch(d: int = 50, B: int = 64, norm_ratio: float = 10.0, flip: float = 0.1,
                   theta_norm: float = 1.0, seed=0) -> LogisticBatch:
    """The spec's instance: ``B`` inputs with norms log-spaced over ``[1, norm_ratio]`` (random
    directions), labels ``sign(x . theta_true)`` with a fraction ``flip`` flipped, evaluated at
    ``theta = theta_norm * theta_true`` (``||theta_true|| = 1``), so that the loss and the
    gradient norm vary together (misclassified long inputs: large loss, large gradient)."""
    d = check_size("d", d, budget=MAX_DIM)
    B = check_size("B", B, low=2, budget=MAX_BATCH)
    check_budget("the inputs X", B * d, B=B, d=d)
    norm_ratio = check_real("norm_ratio", norm_ratio, low=1.0, high=1e6)
    flip = check_real("flip", flip, low=0.0, high=0.5)
    theta_norm = check_real("theta_norm", theta_norm, low=0.0, high=1e3)
    rng = as_generator(seed)
    theta_true = rng.standard_normal(d)
    theta_true /= np.linalg.norm(theta_true)
    Z = rng.standard_normal((B, d))
    X = Z / np.linalg.norm(Z, axis=1, keepdims=True) * np.geomspace(1.0, norm_ratio, B)[:, None]
    y = np.where(X @ theta_true >= 0, 1.0, -1.0)
    y[rng.random(B) < flip] *= -1.0
    theta = theta_norm * theta_true
    m = y * (X @ theta)                                   # margins
    losses = np.logaddexp(0.0, -m)
    G = (-y / (1.0 + np.exp(m)))[:, None] * X             # grad of log(1 + e^{-m}) = -y s(-m) x
    return LogisticBatch(X, y, theta, losses, G, G.mean(0))


def query_variance_factor(law: str, d: int) -> float:
    """``c`` with ``tr Cov[(g . u) u] = c ||g||^2`` [derived]: Gaussian ``E[(g.u)^2 u u^T] = ||g||^2 I +
    2 g g^T`` gives ``d + 1``; Rademacher ``||g||^2 I + 2 (g g^T - diag g^2)`` gives ``d - 1``."""
    check_choice("law", law, LAWS)
    d = check_size("d", d, budget=MAX_DIM)
    return float(d + 1) if law == "gaussian" else float(d - 1)


def noise_levels(G, law: str = "gaussian") -> np.ndarray:
    """Per-query noise levels ``sigma_i = sqrt(c_law) ||g_i||`` of the rows of ``G`` (B, d)."""
    G = _gradients(G)
    return np.sqrt(query_variance_factor(law, G.shape[1])) * np.linalg.norm(G, axis=1)


def _gradients(G):
    G = check_array("G", G, ndim=2)
    if G.shape[0] < 1 or G.shape[1] < 1 or G.shape[0] > MAX_BATCH or G.shape[1] > MAX_DIM:
        raise ValueError(f"G must have shape (B, d) with 1 <= B <= {MAX_BATCH}, 1 <= d <= {MAX_DIM}; got {G.shape}")
    check_budget("G", G.size, B=G.shape[0], d=G.shape[1])
    if np.max(np.abs(G)) > 1e150:
        raise ValueError(f"G must have entries of magnitude <= 1e150 (their squares are summed); got "
                         f"{np.max(np.abs(G)):.3g}")
    return G


def _sigma(sigma):
    s = check_array("sigma", sigma, ndim=1)
    if s.size < 1 or s.size > MAX_BATCH:
        raise ValueError(f"sigma must have 1 to {MAX_BATCH} entries; got {s.size}")
    if np.any(s < 0) or np.max(s) > 1e150:
        raise ValueError(f"sigma must hold noise levels in [0, 1e150]; got values in [{s.min():.3g}, {s.max():.3g}]")
    return s


def _budget(N, B):
    N = check_int("budget", N, low=1)
    if N < B:
        raise ValueError(f"budget must be at least the number of samples B = {B} (one query each); got {N}")
    return check_size("budget", N)


# --------------------------------------------------------------------------- deterministic allocators

def uniform_allocation(B: int, budget: int) -> np.ndarray:
    """``n_i = budget // B``, the remainder one each to the first samples; sum = budget."""
    B = check_size("B", B, budget=MAX_BATCH)
    N = _budget(budget, B)
    n = np.full(B, N // B, dtype=np.int64)
    n[: N - B * (N // B)] += 1
    return n


def _neyman_continuous(sigma, N):
    """``n_i ∝ sigma_i`` subject to ``n_i >= 1`` and ``sum n_i = N`` (water-filling: clamp at 1, rescale)."""
    B = sigma.size
    fixed = np.zeros(B, dtype=bool)
    while True:
        free = ~fixed
        n = np.ones(B)
        total = sigma[free].sum()
        rest = N - fixed.sum()
        n[free] = rest * sigma[free] / total if total > 0 else rest / free.sum()
        low = free & (n < 1.0)
        if not low.any():
            return n
        fixed |= low


def neyman_allocation(sigma, budget: int, *, integer: bool = True) -> np.ndarray:
    """Variance-optimal allocation ``n_i ∝ sigma_i`` [derived: Lagrange on (1/B^2) sum sigma_i^2/n_i].

    Every sample gets at least one query (water-filling); ``integer=True`` rounds by largest
    remainders (ties to the lower index) so that the integers sum to ``budget``.
    """
    s = _sigma(sigma)
    N = _budget(budget, s.size)
    if not isinstance(integer, (bool, np.bool_)):
        raise TypeError(f"integer must be a bool; got {integer!r}")
    n = _neyman_continuous(s, N)
    if not integer:
        return n
    base = np.floor(n).astype(np.int64)
    short = N - int(base.sum())
    order = np.lexsort((np.arange(s.size), -(n - base)))
    base[order[:short]] += 1
    return base


def integer_optimal_allocation(sigma, budget: int) -> np.ndarray:
    """The exact minimiser of ``sum sigma_i^2 / n_i`` over integers ``n_i >= 1`` with ``sum n_i = budget``.

    [derived] The objective is separable and each term is convex in n: raising n_i from k to k + 1 lowers it by
    ``Delta_i(k) = sigma_i^2 / (k (k + 1))``, decreasing in k.  Any feasible n lowers the objective of the all-ones
    allocation by the sum of its first ``n_i - 1`` decrements per sample, so the optimum takes the ``budget - B``
    largest decrements of the pooled list (an exchange argument: swapping a taken decrement for a larger untaken one
    of the same sample is always possible because each sample's list is decreasing), i.e. the greedy marginal
    allocation.  Computed without the O(budget) greedy loop: for a threshold t every sample takes its decrements
    > t, ``n_i(t) = 1 + #{k >= 1: sigma_i^2 > t k (k + 1)}``; t is bisected until that total is at most ``budget``,
    and the few units left go one by one to the largest remaining decrement (the greedy from a prefix of the sorted
    list).  Ties are broken towards the lower index.
    """
    s = _sigma(sigma)
    B = s.size
    N = _budget(budget, B)
    s2 = (s / s.max()) ** 2 if s.max() > 0 else s * 0.0     # the minimiser does not depend on the scale of sigma

    def counts(t):                           # n_i(t), exact in the comparison sigma^2 > t k (k + 1)
        k = np.floor((-1.0 + np.sqrt(1.0 + 4.0 * s2 / t)) / 2.0)
        k = np.where(s2 > t * (k + 1) * (k + 2), k + 1, k)
        k = np.where((k > 0) & ~(s2 > t * k * (k + 1)), k - 1, k)
        return 1 + k.astype(np.int64)

    if N == B or not np.any(s2 > 0):
        n = np.ones(B, dtype=np.int64)
        n[0] += N - B                         # every allocation has the same objective when all sigma_i are 0
        return n
    hi = float(np.max(s2)) / 2.0              # the largest decrement: n(hi) = 1
    lo = hi
    while counts(lo).sum() <= N and lo > 1e-300:
        lo /= 16.0
    for _ in range(200):                      # n(hi).sum() <= N < n(lo).sum()
        mid = np.sqrt(lo * hi) if lo > 0 else hi / 2
        if not lo < mid < hi:
            break
        if counts(mid).sum() <= N:
            hi = mid
        else:
            lo = mid
    n = counts(hi)
    for _ in range(N - int(n.sum())):        # the remaining units: the largest next decrements, one by one
        i = int(np.argmax(s2 / (n * (n + 1.0))))
        n[i] += 1
    return n


def neyman_ratio(sigma) -> float:
    """``Var(Neyman) / Var(uniform) = (mean sigma)^2 / mean(sigma^2)`` [derived] (continuous n_i)."""
    s = _sigma(sigma)
    ms = float(np.mean(s**2))
    if ms == 0:
        raise ValueError("sigma must not be all zero (the ratio is 0/0)")
    return float(np.mean(s)) ** 2 / ms


# --------------------------------------------------------------------------- the released allocators

def _losses(losses):
    ell = check_array("losses", losses, ndim=1)
    if ell.size < 1 or ell.size > MAX_BATCH:
        raise ValueError(f"losses must have 1 to {MAX_BATCH} entries; got {ell.size}")
    if np.max(np.abs(ell)) > 1e150:
        raise ValueError(f"losses must have magnitude <= 1e150; got {np.max(np.abs(ell)):.3g}")
    return ell


def _draws(size, B):
    R = 1 if size is None else check_size("size", size)
    check_budget("the allocation array", R * B, size=R, B=B)
    return R


def bernoulli_allocation(losses, sample_n: int, p: float = 0.5, *, size=None, seed=0) -> np.ndarray:
    """The released ``bernoulli_allocater`` (module docstring): budget ``B * sample_n``.

    Returns ``(B,)`` integer counts, or ``(size, B)`` independent draws.
    """
    ell = _losses(losses)
    B = ell.size
    sample_n = check_size("sample_n", sample_n, budget=10**6)
    p = check_real("p", p, low=0.0, high=1.0)
    R = _draws(size, B)
    rng = as_generator(seed)
    N = B * sample_n
    halved = (ell < ell.mean())[None, :] & (rng.random((R, B)) < p)
    n = np.where(halved, sample_n // 2, sample_n).astype(np.int64)
    kept = ~halved                                    # "unpruned": quota not below sample_n
    k = kept.sum(1)
    freed = N - n.sum(1)
    share = np.where(k > 0, freed // np.maximum(k, 1), 0)
    n += np.where(kept, share[:, None], 0)
    rest = N - n.sum(1)
    pk = kept / np.maximum(k, 1)[:, None]
    n += rng.multinomial(rest, pk)                    # one at a time, uniformly among the kept samples
    return n[0] if size is None else n


def gaussian_allocation(losses, sample_n: int, length_scale: float = 1.0, variance: float = 1.0, *,
                        size=None, seed=0, return_degenerate: bool = False):
    """The released ``gaussian_allocater`` with ``k = 1`` (module docstring): budget ``B * sample_n``.

    ``n ~ N(z l, variance * exp(-(l_i - l_j)^2 / (2 length_scale^2)))``, ``z ~ N(0, 1)``, clipped at 0,
    scaled to the budget and truncated, the remainder to uniformly random samples.  Returns ``(B,)``
    or ``(size, B)`` counts; with ``return_degenerate`` also the boolean draws whose clipped vector
    was all zero (budget given out at random).
    """
    if not isinstance(return_degenerate, (bool, np.bool_)):
        raise TypeError(f"return_degenerate must be True or False; got {return_degenerate!r}")
    ell = _losses(losses)
    B = ell.size
    sample_n = check_size("sample_n", sample_n, budget=10**6)
    length_scale = check_real("length_scale", length_scale, low=1e-6, high=1e6)
    variance = check_real("variance", variance, low=1e-12, high=1e12)
    R = _draws(size, B)
    check_budget("the Gaussian allocator's covariance", B * B, B=B)
    rng = as_generator(seed)
    N = B * sample_n
    K_rbf = variance * np.exp(-0.5 * np.subtract.outer(ell, ell) ** 2 / length_scale**2)
    lam, V = np.linalg.eigh(K_rbf)
    root = V * np.sqrt(np.clip(lam, 0.0, None))
    z = rng.standard_normal(R)
    draw = z[:, None] * ell[None, :] + rng.standard_normal((R, B)) @ root.T
    draw = np.maximum(draw, 0.0)
    total = draw.sum(1)
    degenerate = total <= 0
    scaled = np.where(degenerate[:, None], 0.0, draw / np.where(degenerate, 1.0, total)[:, None] * N)
    n = np.floor(scaled).astype(np.int64)
    n += rng.multinomial(N - n.sum(1), np.full(B, 1.0 / B))
    out = n[0] if size is None else n
    if return_degenerate:
        return out, (degenerate[0] if size is None else degenerate)
    return out


def draw_allocations(allocator: str, batch: LogisticBatch, budget: int, n_draws: int, *, law: str = "gaussian",
                     p: float = 0.5, length_scale: float = 1.0, variance: float = 1.0, seed=0) -> np.ndarray:
    """``(n_draws, B)`` allocations of ``budget`` queries by one of :data:`ALLOCATORS`.

    ``uniform`` and ``neyman`` (on ``batch.sigma(law)``) are deterministic (rows repeated); the
    released ``bernoulli`` and ``gaussian`` policies act on ``batch.losses`` with ``sample_n =
    budget / B`` (which must then be an integer, as in the authors' ``bs * sample_n``).
    """
    check_choice("allocator", allocator, ALLOCATORS)
    if not isinstance(batch, LogisticBatch):
        raise TypeError(f"batch must be a LogisticBatch (from logistic_batch); got {type(batch).__name__}")
    # every policy's parameters are checked, also those of the allocators not in use
    check_choice("law", law, LAWS)
    p = check_real("p", p, low=0.0, high=1.0)
    length_scale = check_real("length_scale", length_scale, low=1e-6, high=1e6)
    variance = check_real("variance", variance, low=1e-12, high=1e12)
    B = batch.B
    N = _budget(budget, B)
    R = check_size("n_draws", n_draws)
    check_budget("the allocation array", R * B, n_draws=R, B=B)
    if allocator in ("uniform", "neyman"):
        row = uniform_allocation(B, N) if allocator == "uniform" else neyman_allocation(batch.sigma(law), N)
        return np.tile(row, (R, 1))
    if N % B:
        raise ValueError(f"budget must be a multiple of B = {B} for the {allocator!r} allocator "
                         f"(budget = B * sample_n); got {N}")
    if allocator == "bernoulli":
        return bernoulli_allocation(batch.losses, N // B, p, size=R, seed=seed)
    return gaussian_allocation(batch.losses, N // B, length_scale, variance, size=R, seed=seed)


# --------------------------------------------------------------------------- exact conditional moments

def _counts(counts, B):
    n = check_array("counts", counts, dtype=np.int64)
    if n.ndim == 1:
        n = n[None, :]
    if n.ndim != 2 or n.shape[1] != B or n.shape[0] < 1:
        raise ValueError(f"counts must have shape (B,) or (R, B) with B = {B}; got {np.shape(counts)}")
    if np.any(n < 0):
        raise ValueError(f"counts must be non-negative; got minimum {n.min()}")
    tot = n.sum(1)
    if np.any(tot < 1) or np.any(tot != tot[0]):
        raise ValueError("counts must spend one budget >= 1 in every row; got row sums "
                         f"in [{tot.min()}, {tot.max()}]")
    return n


def _weights(n, weighting):
    check_choice("weighting", weighting, WEIGHTINGS)
    B = n.shape[1]
    if weighting == "per_query":
        return np.full(n.shape, 1.0 / n[0].sum())
    return np.where(n > 0, 1.0 / (B * np.maximum(n, 1)), 0.0)


def allocation_variance(sigma, counts, weighting: str = "per_sample") -> np.ndarray:
    """Exact ``tr Var`` of the batch estimate given the allocation(s) [derived]:
    per-sample ``(1/B^2) sum_{n_i > 0} sigma_i^2 / n_i``; per-query ``(1/N^2) sum_i n_i sigma_i^2``."""
    s = _sigma(sigma)
    n = _counts(counts, s.size)
    w = _weights(n, weighting)
    return np.sum(w**2 * n * s**2, axis=1)


def allocation_bias(G, counts, weighting: str = "per_sample") -> np.ndarray:
    """Exact bias ``E[batch estimate | n] - gbar`` (R, d): per-sample ``-(1/B) sum_{n_i = 0} g_i``;
    per-query ``sum_i (n_i / N - 1/B) g_i``."""
    G = _gradients(G)
    n = _counts(counts, G.shape[0])
    check_budget("the bias array", n.shape[0] * G.shape[1], R=n.shape[0], d=G.shape[1])
    w = _weights(n, weighting)
    return (w * n - 1.0 / G.shape[0]) @ G


# --------------------------------------------------------------------------- Monte Carlo

@dataclass(frozen=True)
class BatchErrors:
    """Per replicate: ``err_vec[r] = G_r - gbar`` (R, d) and ``err_sq[r] = ||G_r - gbar||^2``."""

    err_sq: np.ndarray
    err_vec: np.ndarray

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)

    def mse(self) -> float:
        return float(self.err_sq.mean())


def simulate_batch_gradient(G, counts, *, law: str = "gaussian", weighting: str = "per_sample",
                            seed=0) -> BatchErrors:
    """Monte Carlo of the batch forward-gradient estimate (module docstring), one replicate per row
    of ``counts`` ((R, B), or (B,) for one replicate): each sample's ``n_i`` queries ``(g_i . u) u``
    with fresh directions of ``law``, weighted by ``weighting``; errors against ``gbar = G.mean(0)``.
    The same seed gives the same numbers whatever the thread count (a stream per replicate).
    """
    G = _gradients(G)
    B, d = G.shape
    n = _counts(counts, B)
    check_choice("law", law, LAWS)
    w = _weights(n, weighting)
    R, N = n.shape[0], int(n[0].sum())
    work = R * (N + B * d) if law == "gaussian" else R * N * d    # normals drawn (Gaussian: n_i + d per sample)
    check_budget("the forward-gradient queries", work, unit="random draws", counts=f"{R} x {N}", d=d)
    seeds = spawn_seeds(seed, R)
    err_sq, err_vec = np.empty(R), np.empty((R, d))
    K.batch_gradient_errors(G, G.mean(0), n, w, _LAW_CODE[law], seeds, err_sq, err_vec)
    require_finite("err_sq", err_sq, law=law, weighting=weighting)
    return BatchErrors(err_sq, err_vec)


def simulate_batch_gradient_numpy(G, counts, *, law: str = "gaussian", weighting: str = "per_sample",
                                  seed=0) -> BatchErrors:
    """Vectorised numpy reference of :func:`simulate_batch_gradient` (same model, numpy's generator, so
    equal in distribution, not number for number); used by ``theorylab bench flops``."""
    G = _gradients(G)
    B, d = G.shape
    n = _counts(counts, B)
    check_choice("law", law, LAWS)
    w = _weights(n, weighting)
    R, N = n.shape[0], int(n[0].sum())
    check_budget("the forward-gradient queries", R * N * d, unit="random draws", counts=f"{R} x {N}", d=d)
    rng = as_generator(seed)
    err_vec = np.empty((R, d))
    gbar = G.mean(0)
    chunk = max(1, 2_000_000 // max(N * d, 1))        # replicates per block: ~16 MB of directions
    for start in range(0, R, chunk):
        rows = slice(start, min(R, start + chunk))
        owner = np.concatenate([np.repeat(np.arange(B), n[r]) for r in range(rows.start, rows.stop)]
                               ).reshape(rows.stop - rows.start, N)            # sample of each query
        U = (rng.standard_normal((owner.shape[0], N, d)) if law == "gaussian"
             else rng.choice(np.array([-1.0, 1.0]), size=(owner.shape[0], N, d)))
        dots = np.einsum("rkj,rkj->rk", U, G[owner])
        coef = dots * np.take_along_axis(w[rows], owner, axis=1)
        err_vec[rows] = np.einsum("rk,rkj->rj", coef, U) - gbar
    err_sq = np.sum(err_vec**2, axis=1)
    require_finite("err_sq", err_sq, law=law, weighting=weighting)
    return BatchErrors(err_sq, err_vec)


# --------------------------------------------------------------------------- the authors' trainer step

def _trainer_args(G, counts, law):
    G = _gradients(G)
    B, d = G.shape
    n = _counts(counts, B)
    check_choice("law", law, LAWS)
    N = int(n[0].sum())
    if N % B:
        raise ValueError(f"counts must spend a multiple of B = {B} queries (the trainer's bs * sample_n); got {N}")
    return G, n, B, d, N, N // B


def trainer_moments(G, counts, *, law: str = "gaussian"):
    """Exact ``(tr Var, ||bias||^2)`` per allocation row of the trainer step (module docstring) [derived].

    Given the shuffle, ``tr Var = (c_law / S^2) sum_b ||gbar_b||^2``; a mini-batch is ``bs = B`` copies drawn
    without replacement from the ``N`` copies, so ``E ||gbar_b||^2 = ||mu_n||^2 + (N - B) / (B (N - 1)) s_n^2``
    with ``mu_n = sum n_i g_i / N`` and ``s_n^2 = sum n_i ||g_i - mu_n||^2 / N``.  The mini-batch means
    average to ``mu_n`` exactly, so ``bias = mu_n - gbar``.
    """
    G, n, B, d, N, S = _trainer_args(G, counts, law)
    check_budget("the trainer moments", n.shape[0] * (B + d), R=n.shape[0], B=B, d=d)
    c = query_variance_factor(law, d)
    mu = n @ G / N
    s2 = (n * (np.sum(G**2, axis=1)[None, :])).sum(1) / N - np.sum(mu**2, axis=1)
    fpc = (N - B) / (B * (N - 1)) if N > 1 else 0.0
    var = c / S * (np.sum(mu**2, axis=1) + fpc * s2)
    bias_sq = np.sum((mu - G.mean(0)) ** 2, axis=1)
    return var, bias_sq


def simulate_trainer_step(G, counts, *, law: str = "gaussian", seed=0) -> BatchErrors:
    """Monte Carlo of the authors' trainer step (trainer_a.py ``zo_step_all_params_allocator``, in the
    zo_eps -> 0 limit): per row of ``counts``, the ``N = B * S`` copies ``repeat_interleave``-d from the
    allocation are shuffled into ``S`` mini-batches of ``B``; mini-batch ``b`` gets one direction ``z_b``;
    ``G_r = (1/S) sum_b (gbar_b . z_b) z_b``.  Errors against ``gbar = G.mean(0)``."""
    G, n, B, d, N, S = _trainer_args(G, counts, law)
    R = n.shape[0]
    check_budget("the trainer step", R * N * d, unit="gradient entries", counts=f"{R} x {N}", d=d)
    rng = as_generator(seed)
    err_vec = np.empty((R, d))
    gbar = G.mean(0)
    for r in range(R):
        copies = rng.permutation(np.repeat(np.arange(B), n[r])).reshape(S, B)
        gb = G[copies].mean(1)                                          # (S, d) mini-batch mean gradients
        Z = rng.standard_normal((S, d)) if law == "gaussian" else rng.choice(np.array([-1.0, 1.0]), size=(S, d))
        err_vec[r] = (np.sum(gb * Z, axis=1) @ Z) / S - gbar
    err_sq = np.sum(err_vec**2, axis=1)
    require_finite("err_sq", err_sq, law=law)
    return BatchErrors(err_sq, err_vec)
