"""The distribution-free evolutionary search over the estimator family (Lee & Böhme, Section 4).

Representation.  A *genome* is a dict {(m, k): a} meaning  sum a * g_k(m)  with the
normalised atoms g_k(m) := Phi_k(m) / C(m, k), whose expectation is sum_x p^k (1-p)^(m-k)
for every p.  The search starts from the identity E[M_0(n)] = E[g_1(n+1)] (the genome
{(n+1, 1): 1}).

Mutations (Section 4; identities true in expectation for every p, so a mutation never
changes the expectation of the genome):

* case 0:  g_k(m) = g_{k-1}(m-1) - g_{k-1}(m)      (k >= 2)
* case 1:  g_k(m) = g_k(m-1)   - g_{k+1}(m)        (k < m)
* case 2:  g_k(m) = g_k(m+1)   + g_{k+1}(m+1)      (m <= n)

A fraction r of the chosen term's coefficient is rewritten (r = 1 with probability 1/2,
else r ~ U(0, 1)).

Feasibility projection (where the bias enters): an atom with m = n+1 needs one observation
more than we have; it is replaced by the same normalised atom at m = n, i.e.
a * Phi_k(n+1)/C(n+1, k) -> a * Phi_k(n)/C(n, k), whose bias is a * E[g_{k+1}(n+1)]; atoms
with k > n vanish (Phi_{n+1}(n) = 0).  The start genome projects to Good–Turing exactly.
(The authors' code projects Phi-coefficients instead, coef * Phi_k(n+1) -> coef * Phi_k(n);
the two coincide up to that rescaling of the projected terms.)

Fitness: the exact MSE of the projected estimator under a plug-in distribution built from the
sample alone (the authors' "nGT" setting: Chao1 for the number of unseen classes, smoothed
Good–Turing masses for rare frequencies).  Selection: tournaments of size 3 choosing 40
parents; every parent is mutated once; next population = parents + mutants + start genome +
previous top 3, deduplicated by fitness.  Stopping: after 100 generations, and after every
further block of 100, continue if the best fitness improved by more than 5% over the block,
or if it improved by less than 1% over the start; at most 2000 generations.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from theorylab.core import as_generator, check_int, check_probability_vector, check_real, child_seed
from theorylab.core.validate import _fmt

from . import _kernels as K
from ._checks import (MAX_GENERATIONS, MAX_PARENTS, MAX_TABLE_N, check_bool, check_genome, check_n, check_prob_like,
                      check_rng, check_str_choice)
from .distributions import DISTRIBUTIONS, make_distribution
from .estimators import Estimator, good_turing, times_comb
from .moments import _g, _g_values, _logfact, exact_moments, group_probabilities

PROJECTIONS = ("normalised", "phi")
VARIANTS = ("identity", "authors_code")
PRUNE_SCALES = ("normalised", "phi")
#: the search's sample size: its Gram matrix and log-factorials grow with n
MAX_SEARCH_N = MAX_TABLE_N
from .sampling import _as_counts, _as_labels, sample as draw_sample


def _sample_counts(sample):
    """Counts of the observed classes of a label array (in label order, as counts_from_sample)."""
    return np.unique(_as_labels(sample, "sample"), return_counts=True)[1].astype(np.int64)


# ---------------------------------------------------------------------------------------
# plug-in distribution from the sample
# ---------------------------------------------------------------------------------------

def plug_in_distribution(sample=None, *, counts=None) -> np.ndarray:
    """The authors' "nGT" plug-in estimate of p from a sample (labels or count vector).

    f0 = ceil((n-1)/n * Phi_1^2 / (2 Phi_2)) unseen classes (Chao1; Phi_1 (Phi_1 - 1)/2 in
    place of Phi_1^2 / (2 Phi_2) if Phi_2 = 0).  For each frequency k with Phi_k > 0 (and k = 0
    with f0 classes): if k > Phi_{k+1} the empirical k/n, else the smoothed Good–Turing mass
    (Phi_{k+1} + 1)(k + 1) / (#classes_k n).  Normalised to sum 1.  If f0 = 0 the empirical
    distribution of the observed classes is returned.
    """
    if (sample is None) == (counts is None):
        raise ValueError("give exactly one of sample (labels) or counts (a count vector)")
    c = _sample_counts(sample) if counts is None else _as_counts(counts)
    c = c[c > 0]
    n = int(c.sum())
    phi = np.bincount(c, minlength=n + 2)
    if phi[2] > 0:
        chao = (n - 1) / n * phi[1] ** 2 / (2 * phi[2])
    else:
        chao = (n - 1) / n * phi[1] * (phi[1] - 1) / 2
    f0 = int(math.ceil(chao - 1e-12))
    if f0 <= 0:
        return np.sort(c / n)[::-1]
    probs = []
    for k in range(0, n + 1):
        classes = f0 if k == 0 else int(phi[k])
        if classes == 0:
            continue
        nxt = int(phi[k + 1])
        if k > nxt:
            probs.append(np.full(classes, k / n))
        else:
            probs.append(np.full(classes, (nxt + 1) / classes * (k + 1) / n))
    p = np.concatenate(probs)
    return np.sort(p / p.sum())[::-1]


# ---------------------------------------------------------------------------------------
# genomes, mutation and projection
# ---------------------------------------------------------------------------------------

def start_genome(n: int, exact: bool = False) -> dict:
    """{(n+1, 1): 1}: E[g_1(n+1)] = E[M_0(n)]."""
    n = check_n("n", n)
    exact = check_bool("exact", exact)
    return {(n + 1, 1): Fraction(1) if exact else 1.0}


def allowed_cases(m: int, k: int, n: int) -> list:
    cases = []
    if k >= 2:
        cases.append(0)
    if k < m:
        cases.append(1)
    if m <= n:
        cases.append(2)
    return cases


def mutate(genome: dict, n: int, rng, *, exact: bool = False, prune_tol: float = 0.0,
           variant: str = "identity", prune_scale: str = "normalised"):
    """One random expectation-preserving rewrite of ``genome`` (a new dict) and the move made.

    With ``exact=True`` the moved fraction r is a Fraction (r = 1 or j/1000) so that the
    coefficients stay exact rationals.  ``prune_tol`` > 0 drops terms with |a| <= prune_tol
    afterwards; that step (not the mutation) changes the expectation, and the fitness sees it.
    ``rng`` must be a numpy Generator; ``genome`` a non-empty dict with keys m <= n + 1.
    """
    n = check_n("n", n)
    check_genome("genome", genome, n=n)
    if not genome:
        raise ValueError("genome must have at least one term; got an empty dict")
    check_rng("rng", rng)
    exact = check_bool("exact", exact)
    prune_tol = check_real("prune_tol", prune_tol, low=0.0)
    check_str_choice("variant", variant, VARIANTS)
    check_str_choice("prune_scale", prune_scale, PRUNE_SCALES)
    return _mutate(genome, n, rng, exact, prune_tol, variant, prune_scale)


def _mutate(genome, n, rng, exact, prune_tol, variant, prune_scale):
    keys = sorted(genome)
    m, k = keys[int(rng.integers(len(keys)))]
    cases = allowed_cases(m, k, n)
    case = cases[int(rng.integers(len(cases)))]
    if rng.random() < 0.5:
        r = Fraction(1) if exact else 1.0
    else:
        r = Fraction(int(rng.integers(1, 1000)), 1000) if exact else float(rng.random())
    return _apply_move(genome, n, m, k, case, r, prune_tol, variant, prune_scale), (m, k, case, r)


def _apply_move(genome, n, m, k, case, r, prune_tol, variant, prune_scale):
    """The share r of term (m, k) rewritten by ``case``, then pruned (the Python body of
    _kernels.apply_move + _kernels.prune, which evolve runs)."""
    a = genome[(m, k)]
    moved = a * r
    new = dict(genome)
    new[(m, k)] = a - moved
    if case == 0:
        plus, minus = ((m - 1, k - 1), 1), ((m, k - 1), -1)
    elif case == 1:
        plus, minus = ((m - 1, k), 1), ((m, k + 1), -1)
    elif variant == "identity":
        plus, minus = ((m + 1, k), 1), ((m + 1, k + 1), 1)
    else:  # the authors' code: (m, k) is given its moved share back and g_{k+1}(m+1) is added
        plus, minus = ((m, k), 1), ((m + 1, k + 1), 1)
    for key, sign in (plus, minus):
        new[key] = new.get(key, 0) + sign * moved
    if prune_tol and prune_scale == "phi":
        # the authors' code: |coef of Phi_k(m)| <= tol for the target (n+1) M_0(n)
        return {key: v for key, v in new.items() if v != 0 and abs(times_comb(v, *key, inverse=True)) * (n + 1) > prune_tol}
    return {key: v for key, v in new.items() if v != 0 and not (prune_tol and abs(v) <= prune_tol)}


def genome_expectation(genome: dict, p) -> Fraction:
    """sum a * E[g_k(m)] under p, exact (p as rationals, floats converted exactly; Fraction
    coefficients stay exact, float ones make the result a float)."""
    check_genome("genome", genome)
    q = _g_values(p)
    return sum(a * _g(q, m, k) for (m, k), a in genome.items())


def project(genome: dict, n: int, projection: str = "normalised") -> dict:
    """The feasible genome: (n+1, k) -> (n, k); k > n dropped.

    ``projection="normalised"``: a g_k(n+1) -> a g_k(n); ``"phi"`` (the authors' code):
    coef Phi_k(n+1) -> coef Phi_k(n), i.e. a g_k(n+1) -> a (n+1-k)/(n+1) g_k(n).
    """
    n = check_n("n", n)
    check_genome("genome", genome, n=n)
    check_str_choice("projection", projection, PROJECTIONS)
    return _project(genome, n, projection)


def _project(genome, n, projection="normalised"):
    out = {}
    for (m, k), a in genome.items():
        mm = min(m, n)
        if k > mm:
            continue
        if m > n and projection == "phi":
            a = a * (n + 1 - k) / (n + 1)
        out[(mm, k)] = out.get((mm, k), 0) + a
    return {key: a for key, a in out.items() if a != 0}


def to_estimator(genome: dict, n: int, name: str = "evolved", projection: str = "normalised") -> Estimator:
    """The estimator sum a/C(m, k) * Phi_k(m) of the projected genome."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str; got {name!r}")
    proj = project(genome, n, projection)
    if not proj:
        raise ValueError("the projected genome is empty (all terms cancelled)")
    keys = sorted(proj)
    coef = [times_comb(proj[key], *key, inverse=True) for key in keys]
    return Estimator(coef, [m for m, _ in keys], [k for _, k in keys], name=name)


# ---------------------------------------------------------------------------------------
# fitness: exact MSE under a fixed p with a lazily grown Gram matrix of atoms
# ---------------------------------------------------------------------------------------

class MomentCache:
    """E[Y_i Y_j] for the normalised atoms met so far, plus M_0(n) (index 0), under ``p``."""

    def __init__(self, p, n: int, projection: str = "normalised"):
        p = check_prob_like("p", p)
        n = check_n("n", n, high=MAX_SEARCH_N)
        self.projection = check_str_choice("projection", projection, PROJECTIONS)
        self.u, self.c = group_probabilities(p)
        self.n = n
        self.lf = _logfact(n + 2)
        self.index = {}
        self.m, self.k, self.w = [n], [0], [1]
        self._G = np.zeros((64, 64))  # grown by doubling; only the leading size x size block is filled
        one = np.array([n], dtype=np.int64), np.array([0], dtype=np.int64), np.array([1], dtype=np.int64)
        self._G[0, 0] = K.gram(self.u, self.c, *one, self.lf)[0, 0]

    @property
    def G(self) -> np.ndarray:
        """The Gram matrix E[Y_i Y_j] of the atoms met so far (a read-only view, size x size)."""
        view = self._G[:self.size, :self.size]
        view.flags.writeable = False
        return view

    def ids(self, keys) -> np.ndarray:
        """Row indices of the atoms ``keys`` (pairs (m, k) with 1 <= k <= m <= n + 1) in :attr:`G`, adding new ones."""
        if isinstance(keys, (str, bytes, dict)) or not isinstance(keys, (list, tuple)):
            raise TypeError(f"keys must be a list of pairs (m, k); got {type(keys).__name__} {_fmt(keys)}")
        n = self.n + 1  # atoms g_k(m) up to m = n + 1 (the unprojected genomes' top row; factorials reach n + 1)
        for key in keys:
            if type(key) is tuple and len(key) == 2 and type(key[0]) is int and type(key[1]) is int \
                    and 1 <= key[1] <= key[0] <= n:  # (plain ints: the common case, checked cheaply)
                continue
            if not (isinstance(key, tuple) and len(key) == 2
                    and all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in key)
                    and 1 <= key[1] <= key[0] <= n):
                raise ValueError(f"keys must hold integer pairs (m, k) with 1 <= k <= m <= n + 1 = {n}; got {_fmt(key)}")
        return self._ids(keys)

    def _ids(self, keys) -> np.ndarray:
        new = [key for key in dict.fromkeys(keys) if key not in self.index]
        if new:
            self._add(new)
        index = self.index
        return np.array([index[key] for key in keys], dtype=np.int64)

    def _add(self, new):
        A, B = len(self.m), len(new)
        if A + B > self._G.shape[0]:
            cap = max(2 * self._G.shape[0], A + B)
            G = np.zeros((cap, cap))
            G[:A, :A] = self._G[:A, :A]
            self._G = G
        for i, key in enumerate(new):
            self.index[key] = A + i
            self.m.append(key[0])
            self.k.append(key[1])
            self.w.append(0)
        m, k, w = (np.array(x, dtype=np.int64) for x in (self.m, self.k, self.w))
        X = K.cross_moments(self.u, self.c, m[A:], k[A:], w[A:], m, k, w, self.lf)
        self._G[A:A + B, :A + B] = X
        self._G[:A + B, A:A + B] = X.T

    def mse(self, genome: dict) -> float:
        """E[(projected estimator - M_0(n))^2]."""
        check_genome("genome", genome, n=self.n)
        proj = _project(genome, self.n, self.projection)
        if not proj:
            return float(self._G[0, 0])
        keys = list(proj)
        ids = self._ids(keys)  # (keys of a checked, projected genome)
        a = np.array([float(proj[key]) for key in keys])
        return float(K.quad_mse(self._G, ids, a))

    @property
    def size(self) -> int:
        return len(self.m)


# ---------------------------------------------------------------------------------------
# the evolutionary search
# ---------------------------------------------------------------------------------------

@dataclass
class SearchResult:
    """Outcome of :func:`evolve`: the best genome, its estimator and the search history."""

    genome: dict
    estimator: Estimator
    fitness: float
    initial_fitness: float
    generations: int
    history: pd.DataFrame = field(repr=False)
    seconds: float = 0.0
    atoms: int = 0

    def __post_init__(self):
        check_genome("genome", self.genome)
        if not isinstance(self.estimator, Estimator):
            raise TypeError(f"estimator must be an Estimator; got {type(self.estimator).__name__}")
        self.fitness = check_real("fitness", self.fitness, low=0.0)
        self.initial_fitness = check_real("initial_fitness", self.initial_fitness, low=0.0)
        self.generations = check_int("generations", self.generations, low=0)
        if not isinstance(self.history, pd.DataFrame):
            raise TypeError(f"history must be a pandas DataFrame; got {type(self.history).__name__}")
        self.seconds = check_real("seconds", self.seconds, low=0.0)
        self.atoms = check_int("atoms", self.atoms, low=0)


def evolve(p_search, n: int, *, max_terms: int = 20, n_parents: int = 40, tournament: int = 3,
           ngen: int = 100, block: int = 100, max_gen: int = 2000, improve_tol: float = 0.05,
           stall_tol: float = 0.01, prune_tol: float = 1e-4, variant: str = "identity",
           projection: str = "normalised", prune_scale: str = "normalised", seed=0) -> SearchResult:
    """Evolve an estimator of M_0(n) minimising the exact MSE under ``p_search``.

    Parameters
    ----------
    p_search : array (S',)
        The distribution the fitness is computed under (the plug-in estimate from the sample
        in the distribution-free setting, see :func:`plug_in_distribution`).
    n : int
        Sample size.
    max_terms : int
        Mutants with more terms are discarded (the paper: 20).
    n_parents, tournament : int
        Parents per generation (40) chosen by tournaments of this size (3).
    ngen, block, max_gen : int
        Generations before the first stopping test, extension per block, hard cap.
    improve_tol, stall_tol : float
        Continue after a block if the best fitness improved by more than ``improve_tol``
        (relative) over the block, or by less than ``stall_tol`` over the start.
    prune_tol : float
        Terms with |a| <= prune_tol are dropped after a mutation (the authors' 1e-4).
    seed : int, SeedSequence or Generator
    """
    p_search = check_prob_like("p_search", p_search)
    n = check_n("n", n, high=MAX_SEARCH_N)
    max_terms = check_int("max_terms", max_terms, low=1, high=200)
    n_parents = check_int("n_parents", n_parents, low=1, high=MAX_PARENTS)
    tournament = check_int("tournament", tournament, low=1, high=MAX_PARENTS)
    ngen = check_int("ngen", ngen, low=1, high=MAX_GENERATIONS)
    block = check_int("block", block, low=1, high=MAX_GENERATIONS)
    max_gen = check_int("max_gen", max_gen, low=ngen, high=MAX_GENERATIONS)
    if max_gen * n_parents > 10**7:
        raise ValueError(f"max_gen * n_parents must be <= 1e7 fitness evaluations (about 10 minutes); got "
                         f"max_gen={max_gen}, n_parents={n_parents}")
    improve_tol = check_real("improve_tol", improve_tol, low=0)
    stall_tol = check_real("stall_tol", stall_tol, low=0)
    prune_tol = check_real("prune_tol", prune_tol, low=0)
    check_str_choice("variant", variant, VARIANTS)
    check_str_choice("projection", projection, PROJECTIONS)
    check_str_choice("prune_scale", prune_scale, PRUNE_SCALES)
    rng = as_generator(seed)
    t0 = time.perf_counter()
    u, c = group_probabilities(p_search)
    kernel_seed = int(rng.integers(0, 2**63 - 1))
    gm, gk, ga, f_best, f_base, g, h_best, h_pop, h_atoms, atoms = K.evolve_kernel(
        u, c, _logfact(n + 2), n, kernel_seed, max_terms, n_parents, tournament, ngen, block, max_gen,
        improve_tol, stall_tol, prune_tol, variant == "authors_code", projection == "phi", prune_scale == "phi")
    genome = {(int(m), int(k)): float(a) for m, k, a in zip(gm, gk, ga)}
    history = pd.DataFrame({"generation": np.arange(1, g + 1), "best_fitness": h_best, "population": h_pop,
                            "atoms": h_atoms})
    return SearchResult(genome, to_estimator(genome, n, projection=projection), float(f_best), float(f_base), int(g),
                        history, time.perf_counter() - t0, int(atoms))


def search(sample=None, *, counts=None, n: int | None = None, seed=0, **ga) -> SearchResult:
    """Distribution-free search from a sample alone: plug-in p, then :func:`evolve`.

    Give exactly one of ``sample`` (labels) or ``counts``; ``n``, if given, must equal the sample size.
    """
    seed = as_generator(seed)  # validates seed first (named in its errors)
    if n is not None:
        n = check_n("n", n, high=MAX_SEARCH_N)
    if (sample is None) == (counts is None):
        raise ValueError("give exactly one of sample (labels) or counts (a count vector)")
    c = _sample_counts(sample) if counts is None else _as_counts(counts)
    n_obs = int(c.sum())
    if n is not None and n != n_obs:
        raise ValueError(f"n must equal the sample size {n_obs}; got {n}")
    return evolve(plug_in_distribution(counts=c), n_obs, seed=seed, **ga)


def search_run(distribution: str, S: int, n: int, *, seed=0, **ga) -> dict:
    """One run of the paper's experiment: draw p (Dirichlet) and a sample, search, judge under p.

    Returns a dict with the exact MSE of the evolved estimator and of Good–Turing under the
    true p, their ratio, success (evolved < Good–Turing), generations, the formula, seconds.
    """
    check_str_choice("distribution", distribution, DISTRIBUTIONS)
    S = check_int("S", S, low=1, high=10**5)
    n = check_n("n", n, high=MAX_SEARCH_N)
    p = make_distribution(distribution, S, seed=child_seed(seed, "p"))
    labels = draw_sample(p, n, seed=child_seed(seed, "sample"))
    res = search(labels, seed=child_seed(seed, "ga"), **ga)
    evo = exact_moments(res.estimator, p, n)
    gt = exact_moments(good_turing(n), p, n)
    return dict(distribution=distribution, S=S, n=n, seed=seed, gt_mse=gt.mse, evo_mse=evo.mse,
                ratio=evo.mse / gt.mse, success=bool(evo.mse < gt.mse), evo_bias=evo.bias, evo_var=evo.var,
                plug_in_fitness=res.fitness, plug_in_gt=res.initial_fitness, generations=res.generations,
                n_terms=res.estimator.n_terms, atoms=res.atoms, seconds=res.seconds,
                formula=str(res.estimator), _estimator=res.estimator)
