"""Number theory and depth bounds of AHM (ICLR 2025): Lucas' theorem, p(N), the bound table.

* Lucas' theorem: C(d, i) = 0 (mod p) for all 0 < i < d  iff  d is a power of p.  This is
  why the threshold in the volume invariant is p^k: Minkowski sums/convex hulls mix volumes
  with binomial coefficients, and only at d = p^k do all mixed terms vanish mod p.
* AHM Thm 3 (decimal, N = 10) and Thm 4 (N-ary): F_n needs at least ceil(log_p(n + 1))
  hidden layers for any prime p not dividing N; with p(N) = the smallest such prime, which is
  O(ln N), this is Omega(ln n / ln ln N).
* Upper bounds: the tournament, ceil(log2(n + 1)) (integer weights, tight for them by HHL);
  Bakaev, Brunck, Hertrich, Stade, Yehudayoff (arXiv 2505.14338): the max of m >= 4 numbers
  with ceil(log3(m - 2)) + 1 hidden layers (real, non-integer weights), i.e. F_n = max of
  n + 1 numbers with ceil(log3(n - 1)) + 1 for n >= 3; 2 hidden layers for the max of 5.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd

from theorylab.core.validate import check_int

from .constructions import ceil_log


def _int_list(name, values, *, low=1, high=None, max_len=10**6):
    """A list of ints in [low, high] from a sequence, each entry named ``name[i]`` in errors."""
    if isinstance(values, (str, bytes, dict)) or values is None or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a sequence of integers; got {type(values).__name__} {values!r:.40}")
    values = list(values) if not isinstance(values, range) else values
    if len(values) > max_len:
        raise ValueError(f"{name} has {len(values)} entries; the limit is {max_len}")
    return [check_int(f"{name}[{i}]", v, low=low, high=high) for i, v in enumerate(values)]


def is_prime(p: int) -> bool:
    p = check_int("p", p)
    if p < 2:
        return False
    i = 2
    while i * i <= p:
        if p % i == 0:
            return False
        i += 1
    return True


def is_power_of(d: int, p: int) -> bool:
    """True iff d = p^j for some j >= 0."""
    d = check_int("d", d, low=1)
    p = check_int("p", p, low=2)
    while d % p == 0:
        d //= p
    return d == 1


def binomials_vanish_mod_p(d: int, p: int) -> bool:
    """True iff C(d, i) = 0 (mod p) for every 0 < i < d (computed directly, not by Lucas)."""
    d = check_int("d", d, low=1, high=5000)      # d big-integer binomials of up to d bits each
    p = check_int("p", p, low=2)
    return all(comb(d, i) % p == 0 for i in range(1, d))


def smallest_prime_not_dividing(N: int) -> int:
    """p(N): the smallest prime that does not divide N (N >= 1)."""
    N = check_int("N", N, low=1)
    p = 2
    while True:
        if is_prime(p) and N % p:
            return p
        p += 1


def lower_bound_nary(n: int, N: int) -> int:
    """AHM Thm 4 (Thm 3 for N = 10): ceil(log_{p(N)}(n + 1)) hidden layers for F_n, N-ary weights.

    N = 1 means integer weights (p = 2, HHL's bound ceil(log2(n + 1))).
    """
    n = check_int("n", n, low=1)
    return ceil_log(smallest_prime_not_dividing(N), n + 1)


def upper_bound_tournament(n: int) -> int:
    """ceil(log2(n + 1)) hidden layers (integer weights {-1, 0, 1})."""
    return ceil_log(2, check_int("n", n, low=1) + 1)


def upper_bound_bakaev(n: int) -> int:
    """Bakaev et al. (2025): F_n (max of n + 1 numbers) with ceil(log3(n - 1)) + 1 layers, n >= 3.

    For n < 3 the tournament bound is returned (it is <= 2 there).
    """
    n = check_int("n", n, low=1)
    if n < 3:
        return upper_bound_tournament(n)
    return min(ceil_log(3, n - 1) + 1, upper_bound_tournament(n))


def bound_table(ns, Ns=(1, 2, 10, 210)) -> pd.DataFrame:
    """Depth bounds for F_n: lower bounds for each N and the two constructions, one row per n."""
    ns, Ns = _int_list("ns", ns, high=10**9), _int_list("Ns", Ns, high=10**18)
    rows = []
    for n in ns:
        row = {"n": n}
        for N in Ns:
            row[f"lower_N{N}"] = lower_bound_nary(n, N)
        row["upper_tournament"] = upper_bound_tournament(n)
        row["upper_bakaev"] = upper_bound_bakaev(n)
        rows.append(row)
    return pd.DataFrame(rows)


def lower_bound_vs_N(n: int, Ns) -> pd.DataFrame:
    """p(N), ceil(log_p(n+1)) and ln(n+1)/ln p(N) for each N, plus the Omega(ln n / ln ln N) scale
    (``ln_n_over_lnln_N``; for N < 3, where ln ln N <= 0, it is taken at N = 3)."""
    n = check_int("n", n, low=1, high=10**9)
    Ns = _int_list("Ns", Ns, high=10**18)
    rows = []
    for N in Ns:
        p = smallest_prime_not_dividing(N)
        rows.append({"N": N, "p": p, "lower_bound": ceil_log(p, n + 1),
                     "log_p_n1": np.log(n + 1) / np.log(p),
                     "ln_n_over_lnln_N": np.log(n + 1) / np.log(np.log(max(N, 3)))})
    return pd.DataFrame(rows)
