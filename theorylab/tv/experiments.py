"""Experiment drivers behind the tv_distance claims and figures (instance families, timings).

Every function takes ``seed`` and returns a tidy DataFrame; nothing here decides a verdict.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from theorylab.core.seeding import as_generator, spawn_seeds
from theorylab.core.validate import check_choice, check_int

from .distributions import conditioning_pair, perturb, random_mixture, random_product, split_and_permute
from .equivalence import equivalent
from .estimators import coupling_g_samples, coupling_parts, coupling_samples_needed, fptas_uniform
from .exact import _tv_enumeration, tv_exact, tv_exact_rational

#: (q, largest n) pairs with q^n <= 256, so exact rational enumeration stays cheap
SMALL_SPACES = ((2, 8), (3, 5), (4, 4))
FAMILIES = ("split", "conditioning", "independent", "perturbed")


def equivalence_instance(family, *, seed, max_k=4):
    """One (P, Q) pair of a family: ``split`` (same law, components split and permuted),
    ``conditioning`` (a joint pmf on [q]^2 conditioned on x_1 vs on x_2), ``independent``
    (two random mixtures) or ``perturbed`` (a split pair with 10^-6 of mass moved in P)."""
    check_choice("family", family, FAMILIES)
    rng = as_generator(seed)
    q, n_max = SMALL_SPACES[int(rng.integers(len(SMALL_SPACES)))]
    n = int(rng.integers(1, n_max + 1))
    k = int(rng.integers(1, max_k + 1))
    if family == "conditioning":
        return conditioning_pair(int(rng.integers(2, 5)), seed=rng)
    P = random_mixture(k, n, q, seed=rng)
    if family == "independent":
        return P, random_mixture(int(rng.integers(1, max_k + 1)), n, q, seed=rng)
    Q = split_and_permute(P, seed=rng)
    if family == "perturbed":
        return perturb(P, size="1/1000000", seed=rng), Q
    return P, Q


def equivalence_agreement(n_per_family, *, seed) -> pd.DataFrame:
    """For each family instance: exact rational TV by enumeration and both test methods."""
    n_per_family = check_int("n_per_family", n_per_family, low=1)
    rows = []
    for f, family in enumerate(FAMILIES):
        for r, s in enumerate(spawn_seeds([seed, f], n_per_family)):
            P, Q = equivalence_instance(family, seed=int(s))
            tv = tv_exact_rational(P, Q)
            ex = equivalent(P, Q, method="exact")
            mo = equivalent(P, Q, method="modular")
            rows.append(dict(family=family, rep=r, n=P.n, q=P.q, k1=P.k, k2=Q.k, tv=float(tv), tv_is_zero=tv == 0,
                             exact_says_equivalent=ex.equivalent, modular_says_equivalent=mo.equivalent,
                             witness=str(ex.witness), witness_diff=float(ex.difference or 0),
                             final_basis_dim=int(ex.basis_sizes[-1])))
    return pd.DataFrame(rows)


def _timed(fn, *args, repeat=3, **kw):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args, **kw)
        best = min(best, time.perf_counter() - t0)
    return best


def equivalence_timings(ns, ks, *, q=2, method="modular", certify=False, repeat=3, seed=0) -> pd.DataFrame:
    """Best-of-``repeat`` wall time of :func:`equivalent` on random non-equivalent pairs of
    k-component mixtures (K = 2k, full-rank basis: the worst case) over the grid ns x ks.

    ``certify=False`` times the decision (with its witness point) without the O(n^2)-bit exact
    recomputation of P(x) - Q(x)."""
    rows = []
    equivalent(random_mixture(1, 2, q, seed=0), random_mixture(1, 2, q, seed=1), method=method)  # warm the jit
    for i, k in enumerate(ks):
        for j, n in enumerate(ns):
            P = random_mixture(k, n, q, seed=[seed, i, j, 0])
            Q = random_mixture(k, n, q, seed=[seed, i, j, 1])
            t = _timed(equivalent, P, Q, method=method, certify=certify, repeat=repeat)
            res = equivalent(P, Q, method=method, certify=certify)
            rows.append(dict(method=method, certify=certify, n=n, k=k, q=q, K=2 * k, time_s=t, ops=res.ops,
                             max_basis_dim=int(res.basis_sizes.max()), equivalent=res.equivalent))
    return pd.DataFrame(rows)


def enumeration_timings(ns, *, k=4, q=2, repeat=3, seed=0, threads=1) -> pd.DataFrame:
    """Best-of-``repeat`` wall time of :func:`tv_exact` (q^n points) on random k-mixture pairs.

    Timed on ``threads`` numba threads (default 1: the cost of the work itself, not of thread
    start-up and of cores shared with other jobs; the previous setting is restored)."""
    import numba

    P0 = random_mixture(1, 2, q, seed=0, exact=False)
    tv_exact(P0, P0)  # warm the jit
    rows = []
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        P1 = random_mixture(k, 1, q, seed=[seed, 0, 0], exact=False)
        overhead = _timed(tv_exact, P1, P1, repeat=max(repeat, 5))  # fixed cost of a call (n = 1)
        for j, n in enumerate(ns):
            P = random_mixture(k, n, q, seed=[seed, j, 0], exact=False)
            Q = random_mixture(k, n, q, seed=[seed, j, 1], exact=False)
            rows.append(dict(n=n, k=k, q=q, points=q ** n, time_s=_timed(tv_exact, P, Q, repeat=repeat),
                             overhead_s=overhead, ops=_tv_enumeration(P, Q)[1], K=P.k + Q.k))
    finally:
        numba.set_num_threads(old)
    return pd.DataFrame(rows)


def product_pair(n, q, *, closeness, seed):
    """Random products P and Q = (1 - closeness) P + closeness R, R another random product
    (small ``closeness``: many small coordinate distances, TV well below Z)."""
    rng = as_generator(seed)
    P = random_product(n, q, seed=rng)
    R = random_product(n, q, seed=rng)
    from .distributions import product

    Qm = (1 - closeness) * P.marginals[0] + closeness * R.marginals[0]
    return P, product(Qm / Qm.sum(axis=1, keepdims=True))


def coupling_contract_runs(instances, reps, *, eps, delta, seed, ns=(6, 10, 14), q=2,
                           closeness=(1.0, 0.3, 0.05)) -> pd.DataFrame:
    """Per (instance, rep): the coupling estimate at its contract sample size and its
    relative error against exact TV by enumeration."""
    rows = []
    for a, s in enumerate(spawn_seeds([seed, 0], instances)):
        rng = as_generator(int(s))
        n = int(ns[a % len(ns)])
        c = float(closeness[(a // len(ns)) % len(closeness)])
        P, Q = product_pair(n, q, closeness=c, seed=rng)
        tv = tv_exact(P, Q)
        parts = coupling_parts(P, Q)
        N = coupling_samples_needed(P, Q, eps, delta)
        for r, s2 in enumerate(spawn_seeds([seed, 1, a], reps)):
            g = coupling_g_samples(P, Q, N, seed=int(s2))[:N]
            est = parts.Z * g.mean()
            rows.append(dict(instance=a, rep=r, n=n, closeness=c, tv=tv, Z=parts.Z, N=N, estimate=est,
                             rel_err=abs(est - tv) / tv, eps=eps, delta=delta))
    return pd.DataFrame(rows)


def coupling_error_curve(sample_sizes, reps, *, n=12, q=2, closeness=0.1, delta=0.1, seed=0) -> pd.DataFrame:
    """Relative error of Z * mean(g) against exact TV for growing numbers of draws (one instance)."""
    P, Q = product_pair(n, q, closeness=closeness, seed=[seed, 0])
    tv = tv_exact(P, Q)
    parts = coupling_parts(P, Q)
    mu_lb = float(parts.d.max()) / parts.Z
    rows = []
    N_max = int(max(sample_sizes))
    for r, s in enumerate(spawn_seeds([seed, 1], reps)):
        g = coupling_g_samples(P, Q, N_max, seed=int(s))
        csum = np.cumsum(g)
        for N in sample_sizes:
            est = parts.Z * csum[int(N) - 1] / int(N)
            rows.append(dict(rep=r, N=int(N), estimate=est, rel_err=abs(est - tv) / tv, tv=tv, Z=parts.Z,
                             mu_lb=mu_lb, contract_eps=np.sqrt(3 * np.log(2 / delta) / (int(N) * mu_lb)),
                             delta=delta))
    return pd.DataFrame(rows)


def fptas_runs(instances, eps_list, *, seed, ns=(8, 12, 16), q=2, closeness=(1.0, 0.2, 0.02)) -> pd.DataFrame:
    """Relative error of :func:`fptas_uniform` against exact TV(P, U) for each eps.

    Odd-numbered instances repeat one marginal in every coordinate, so that the rounding
    errors of the log-likelihood ratios all have the same sign (the case the error bound is
    tight for); even ones have independent random coordinates."""
    from .estimators import uniform

    rows = []
    for a, s in enumerate(spawn_seeds([seed, 0], instances)):
        rng = as_generator(int(s))
        n = int(ns[a % len(ns)])
        c = float(closeness[(a // len(ns)) % len(closeness)])
        U = uniform(n, q)
        P, _ = product_pair(n, q, closeness=1.0, seed=rng)
        # pull P towards uniform by `c` (small c: TV(P, U) small, the hard regime)
        from .distributions import product

        Pm = c * P.marginals[0] + (1 - c) / q
        if a % 2 == 1:  # identical coordinates: every rounding error has the same sign (worst case)
            Pm = np.repeat(Pm[:1], n, axis=0)
        P = product(Pm / Pm.sum(axis=1, keepdims=True))
        tv = tv_exact(P, U)
        for eps in eps_list:
            t0 = time.perf_counter()
            res = fptas_uniform(P, eps=eps)
            rows.append(dict(instance=a, n=n, closeness=c, eps=eps, tv=tv, fptas=res.value, states=res.states,
                             rel_err=abs(res.value - tv) / tv, time_s=time.perf_counter() - t0))
    return pd.DataFrame(rows)
