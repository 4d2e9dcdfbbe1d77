"""Mixtures of product distributions over [q]^n, with exact (rational) and float views.

A mixture ``P = sum_i w_i (x)_j P_ij`` is given by weights ``w`` (k,) and a marginal table
``marginals[i, j, s] = P_ij(s)`` of shape (k, n, q); a product distribution is the case k = 1.
This is the input model of Bhattacharyya et al., "Computational Explorations of Total
Variation Distance" (ICLR 2025, Sec. 1: "mixtures of product distributions, over arbitrary
alphabets").

Numbers may be given as floats, ints, :class:`fractions.Fraction` or strings like ``"1/3"``.
The exact view converts every entry with ``Fraction(x)`` (a float is taken at its exact binary
value); rational inputs must then sum to exactly 1, float inputs to within ``atol``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from theorylab.core.seeding import as_generator
from theorylab.core.validate import _fmt, check_array, check_budget, check_int, check_real
from theorylab.core.validate import check_record


class FloatInputWarning(UserWarning):
    """An exact algorithm was given a distribution built from floats: it compares the floats'
    exact binary values (0.1 is 3602879701896397 / 2^55, not 1/10)."""


def warn_if_floats(fn_name, **dists):
    """Warn (FloatInputWarning) when a Mixture passed to an exact algorithm came from floats."""
    import warnings

    names = [name for name, D in dists.items() if isinstance(D, Mixture) and D.from_floats]
    if names:
        warnings.warn(f"{fn_name}: {', '.join(names)} built from floats; the exact computation uses each float's "
                      "exact binary value (0.1 != 1/10, so decimal inputs that agree on paper can differ). "
                      "Pass Fractions or strings such as '1/10' or '0.1' for decimal values.",
                      FloatInputWarning, stacklevel=3)


def _to_fraction(name, x):
    if isinstance(x, bool):
        raise TypeError(f"{name} must hold numbers; got {x!r}")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (numbers.Integral, np.integer)):
        return Fraction(int(x))
    if isinstance(x, (numbers.Real, np.floating)):
        xf = float(x)
        if not np.isfinite(xf):
            raise ValueError(f"{name} must contain only finite values; got {x!r}")
        return Fraction(xf)
    if isinstance(x, str):
        try:
            return Fraction(x)
        except ValueError as exc:
            raise ValueError(f"{name} holds {x!r}, which is not a rational number") from exc
    raise TypeError(f"{name} must hold numbers (float, int, Fraction or 'a/b' strings); got {_fmt(x)}")


def _is_rational_input(values) -> bool:
    return all(isinstance(v, (Fraction, numbers.Integral, np.integer, str)) and not isinstance(v, bool)
               for v in values)


def _flatten(name, obj, shape_hint):
    arr = np.array(obj, dtype=object)
    if arr.ndim != len(shape_hint):
        raise ValueError(f"{name} must be a {len(shape_hint)}-d array of shape {shape_hint}; got shape {arr.shape}")
    return arr


@dataclass(frozen=True)
class Mixture:
    """A mixture of ``k`` product distributions on [q]^n (use :func:`mixture` / :func:`product`).

    Attributes
    ----------
    weights : ndarray (k,)
        Mixing weights (float view).
    marginals : ndarray (k, n, q)
        ``marginals[i, j, s]`` = probability that component ``i`` puts on symbol ``s`` at
        coordinate ``j`` (float view).
    exact_weights, exact_marginals : tuple of Fraction
        The same numbers as exact rationals (nested tuples), used by the exact algorithms.
    """

    weights: np.ndarray
    marginals: np.ndarray
    exact_weights: tuple = field(repr=False)
    exact_marginals: tuple = field(repr=False)
    #: some weight or marginal was given as a float: its exact view is the float's binary value
    from_floats: bool = field(default=False, repr=False)

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)

    @property
    def k(self) -> int:
        return self.marginals.shape[0]

    @property
    def n(self) -> int:
        return self.marginals.shape[1]

    @property
    def q(self) -> int:
        return self.marginals.shape[2]

    def _point(self, x) -> np.ndarray:
        x = check_array("x", x, shape=(self.n,), dtype=np.int64)
        if np.any(x < 0) or np.any(x >= self.marginals.shape[2]):
            raise ValueError(f"x must be a point of [q]^n with q = {self.marginals.shape[2]}; got {x.tolist()}")
        return x

    def pmf(self, x) -> float:
        """P(x) for one point ``x`` in [q]^n (float)."""
        x = self._point(x)
        return float(np.sum(self.weights * np.prod(self.marginals[:, np.arange(self.n), x], axis=1)))

    def pmf_exact(self, x) -> Fraction:
        """P(x) as an exact rational."""
        x = self._point(x)
        total = Fraction(0)
        for w, comp in zip(self.exact_weights, self.exact_marginals):
            num, den = w.numerator, w.denominator  # multiply as integers, reduce once
            for j, s in enumerate(x):
                f = comp[j][int(s)]
                num *= f.numerator
                den *= f.denominator
            total += Fraction(num, den)
        return total

    def sample(self, size, seed=0) -> np.ndarray:
        """``size`` draws from the mixture, shape (size, n), entries in [0, q)."""
        size = check_int("size", size, low=0)
        rng = as_generator(seed)
        comp = rng.choice(self.k, size=size, p=self.weights / self.weights.sum())
        cdf = np.cumsum(self.marginals, axis=2)
        u = rng.random((size, self.n, 1))
        x = (u > cdf[comp]).sum(axis=2)
        return np.minimum(x, self.q - 1)


def _exactly_normalised(P: "Mixture") -> bool:
    return sum(P.exact_weights) == 1 and all(sum(row) == 1 for comp in P.exact_marginals for row in comp)


def _rewrite(P: "Mixture", weights, marginals) -> "Mixture":
    """A Mixture rewritten from P's exact numbers: exact sums are demanded only if P had them."""
    if _exactly_normalised(P):
        return mixture(weights, marginals)
    return mixture([float(x) for x in weights], [[[float(x) for x in row] for row in comp] for comp in marginals],
                   _exact=(tuple(weights), tuple(tuple(tuple(row) for row in comp) for comp in marginals)))


def mixture(weights, marginals, *, atol=1e-9, _exact=None) -> Mixture:
    """A validated mixture of product distributions ``sum_i w_i (x)_j marginals[i, j, :]``.

    Parameters
    ----------
    weights : array-like (k,)
        Non-negative weights summing to 1.
    marginals : array-like (k, n, q)
        Every row ``marginals[i, j, :]`` a probability vector over the alphabet [q].
    atol : float
        Tolerance of the sums for float input (rational input must sum to exactly 1).

    Raises
    ------
    ValueError
        Negative entries, rows or weights not summing to 1, wrong shapes.
    """
    atol = check_real("atol", atol, low=0)
    w_obj = _flatten("weights", weights, ("k",))
    m_obj = _flatten("marginals", marginals, ("k", "n", "q"))
    k, n, q = m_obj.shape
    if k < 1 or n < 1 or q < 1:
        raise ValueError(f"marginals must have shape (k, n, q) with k, n, q >= 1; got {m_obj.shape}")
    if w_obj.shape != (k,):
        raise ValueError(f"weights must have shape ({k},) to match marginals of shape {m_obj.shape}; "
                         f"got {w_obj.shape}")
    wf = tuple(_to_fraction("weights", x) for x in w_obj)
    mf = tuple(tuple(tuple(_to_fraction("marginals", m_obj[i, j, s]) for s in range(q)) for j in range(n))
               for i in range(k))
    w = np.array([float(x) for x in wf])
    m = np.array([[[float(x) for x in row] for row in comp] for comp in mf]).reshape(k, n, q)
    if np.any(w < 0):
        raise ValueError(f"weights must be non-negative; got minimum {w.min():.3g}")
    if np.any(m < 0):
        i, j, s = np.argwhere(m < 0)[0]
        raise ValueError(f"marginals must be non-negative; got marginals[{i}, {j}, {s}] = {m[i, j, s]:.3g}")
    exact_w = _is_rational_input(w_obj.ravel())
    exact_m = _is_rational_input(m_obj.ravel())
    if exact_w:
        if sum(wf) != 1:
            raise ValueError(f"weights must sum to 1 exactly (rational input); got sum {sum(wf)}")
    elif abs(w.sum() - 1.0) > atol:
        raise ValueError(f"weights must sum to 1 (within {atol:g}); got sum {w.sum():.12g}")
    for i in range(k):
        for j in range(n):
            if exact_m:
                tot = sum(mf[i][j])
                if tot != 1:
                    raise ValueError(f"marginals[{i}, {j}, :] must sum to 1 exactly (rational input); got sum {tot}")
            elif abs(m[i, j].sum() - 1.0) > atol:
                raise ValueError(f"marginals[{i}, {j}, :] must sum to 1 (within {atol:g}); "
                                 f"got sum {m[i, j].sum():.12g}")
    w.setflags(write=False)
    m.setflags(write=False)
    from_floats = not (exact_w and exact_m)
    if _exact is not None:  # internal: keep the exact numbers of a rewritten float mixture
        wf, mf = _exact
    return Mixture(w, m, wf, mf, from_floats)


def product(marginals, *, atol=1e-9) -> Mixture:
    """The product distribution ``(x)_j marginals[j, :]`` on [q]^n (a mixture with k = 1).

    ``marginals`` has shape (n, q); every row must be a probability vector.
    """
    m_obj = np.array(marginals, dtype=object)
    if m_obj.ndim != 2:
        raise ValueError(f"marginals must be a 2-d array of shape (n, q); got shape {m_obj.shape}")
    one = [1] if _is_rational_input(m_obj.ravel()) else [1.0]
    return mixture(one, [m_obj.tolist()], atol=atol)


def _require_mixture(name, P):
    if not isinstance(P, Mixture):
        raise TypeError(f"{name} must be a Mixture (from theorylab.tv.mixture/product); got {type(P).__name__}")
    return P


def check_same_space(P: Mixture, Q: Mixture, names=("P", "Q")):
    """Both distributions live on the same [q]^n, else ValueError naming the mismatch."""
    for name, D in zip(names, (P, Q)):
        if not isinstance(D, Mixture):
            raise TypeError(f"{name} must be a Mixture (from theorylab.tv.mixture/product); got {type(D).__name__}")
    a, b = names
    if P.q != Q.q:
        raise ValueError(f"alphabet mismatch: {a} has alphabet size q = {P.q} but {b} has q = {Q.q}")
    if P.n != Q.n:
        raise ValueError(f"dimension mismatch: {a} has n = {P.n} coordinates but {b} has n = {Q.n}")


def signed_components(P: Mixture, Q: Mixture):
    """(c, M): f = P - Q = sum_i c_i prod_j M[i, j, x_j] with c = (w, -v), K = k1 + k2 (float)."""
    c = np.concatenate([P.weights, -Q.weights])
    M = np.ascontiguousarray(np.concatenate([P.marginals, Q.marginals], axis=0))
    return c, M


# --------------------------------------------------------------------------- random instances
_MIN_ACCEPTANCE = 1e-3


def _random_rational_simplices(rng, rows, q, denom):
    """``rows`` random probability vectors over [q] with entries in (1/denom) Z, all > 0
    (q - 1 distinct cut points, uniform over the subsets of {1, .., denom - 1}), as a list of
    lists of Fractions.

    Cuts are drawn i.i.d. and a row with a repeated cut is redrawn while the chance that a row has
    none, prod_i (1 - i / (denom - 1)), is at least ``_MIN_ACCEPTANCE``; below it (many cuts in a
    small range: ``conditioning_pair(7)``, ``random_product(1, 90, exact=True)``, where redrawing
    never ended) each row is a uniform subset drawn without replacement.  Both are uniform over
    the subsets; the first keeps the numbers the sampler always gave where it terminated."""
    if q == 1:
        return [[Fraction(1)] for _ in range(rows)]
    m = denom - 1  # cut points 1..m, q - 1 of them distinct
    log_accept = float(np.sum(np.log1p(-np.arange(q - 1) / m)))
    if log_accept >= np.log(_MIN_ACCEPTANCE):
        cuts = np.sort(rng.integers(1, denom, size=(rows, q - 1)), axis=1)
        while True:
            bad = np.flatnonzero((np.diff(cuts, axis=1) == 0).any(axis=1)) if q > 2 else np.array([], int)
            if bad.size == 0:
                break
            cuts[bad] = np.sort(rng.integers(1, denom, size=(bad.size, q - 1)), axis=1)
    elif rows * m <= 10**7:  # random keys, the q - 1 smallest per row
        keys = rng.random((rows, m))
        cuts = np.sort(np.argpartition(keys, q - 2, axis=1)[:, :q - 1], axis=1) + 1
    else:
        cuts = np.array([np.sort(rng.choice(m, size=q - 1, replace=False)) + 1 for _ in range(rows)],
                        dtype=np.int64).reshape(rows, q - 1)
    parts = np.diff(np.concatenate([np.zeros((rows, 1), int), cuts, np.full((rows, 1), denom)], axis=1), axis=1)
    memo = {}
    out = []
    for row in parts.tolist():
        out.append([memo.get(a) or memo.setdefault(a, Fraction(a, denom)) for a in row])
    return out


def _random_rational_simplex(rng, q, denom):
    """One random probability vector over [q] with entries in (1/denom) Z, all > 0."""
    return _random_rational_simplices(rng, 1, q, denom)[0]


def random_mixture(k, n, q, *, seed=0, exact=True, denom=97) -> Mixture:
    """A random k-component mixture on [q]^n.

    ``exact=True`` draws rationals with denominator ``denom`` (good for exact tests);
    otherwise Dirichlet(1) floats.
    """
    k = check_int("k", k, low=1)
    n = check_int("n", n, low=1)
    q = check_int("q", q, low=2)
    # k n q marginal entries (Fractions when exact: ~100 bytes each): a 10**7-entry budget
    check_budget("random_mixture's marginal table", k * n * q, max_elements=10**7, k=k, n=n, q=q)
    if not isinstance(exact, (bool, np.bool_)):
        raise TypeError(f"exact must be True or False; got {exact!r}")
    denom = check_int("denom", denom, low=2, high=10**12)  # checked even when exact=False ignores it
    rng = as_generator(seed)
    if exact:
        denom = check_int("denom", denom, low=q + 1, high=10**12)
        w = _random_rational_simplex(rng, k, max(denom, k + 1)) if k > 1 else [Fraction(1)]
        rows = _random_rational_simplices(rng, k * n, q, denom)
        mf = tuple(tuple(tuple(rows[i * n + j]) for j in range(n)) for i in range(k))
        # built valid by construction (positive entries summing to 1 exactly): skip re-validation
        wv = np.array([float(x) for x in w])
        mv = np.array([[[float(x) for x in row] for row in comp] for comp in mf]).reshape(k, n, q)
        wv.setflags(write=False)
        mv.setflags(write=False)
        return Mixture(wv, mv, tuple(w), mf)
    w = rng.dirichlet(np.ones(k))
    m = rng.dirichlet(np.ones(q), size=(k, n))
    return mixture(w, m)


def random_product(n, q, *, seed=0, exact=False, denom=97) -> Mixture:
    """A random product distribution on [q]^n (Dirichlet(1) rows, or rationals if ``exact``)."""
    return random_mixture(1, n, q, seed=seed, exact=exact, denom=denom)


def split_and_permute(P: Mixture, *, seed=0) -> Mixture:
    """The same law written differently: every component split into two with random rational
    weight shares, duplicated components, and the component order permuted (exact)."""
    _require_mixture("P", P)
    rng = as_generator(seed)
    w, comps = [], []
    for wi, comp in zip(P.exact_weights, P.exact_marginals):
        a = Fraction(int(rng.integers(1, 10)), 10)
        w += [wi * a, wi * (1 - a)]
        comps += [comp, comp]
    order = rng.permutation(len(w))
    return _rewrite(P, [w[i] for i in order], [comps[i] for i in order])


def conditioning_pair(q, *, seed=0, denom=50):
    """Two structurally different mixtures of the same random joint pmf on [q]^2.

    P conditions on x_1: P = sum_a p(a) delta_a (x) p(x_2 | a); Q conditions on x_2:
    Q = sum_b p(b) p(x_1 | b) (x) delta_b. Both equal the joint exactly (spec §4(b) item 2).
    """
    q = check_int("q", q, low=2, high=100)
    denom = check_int("denom", denom, low=q * q + 1, high=10**12)
    rng = as_generator(seed)
    cells = _random_rational_simplex(rng, q * q, max(denom, q * q + 1))
    joint = [[cells[a * q + b] for b in range(q)] for a in range(q)]
    delta = lambda a: [Fraction(int(s == a)) for s in range(q)]  # noqa: E731
    row = [sum(joint[a]) for a in range(q)]
    col = [sum(joint[a][b] for a in range(q)) for b in range(q)]
    Pw, Pm, Qw, Qm = [], [], [], []
    for a in range(q):
        if row[a] > 0:
            Pw.append(row[a])
            Pm.append([delta(a), [joint[a][b] / row[a] for b in range(q)]])
    for b in range(q):
        if col[b] > 0:
            Qw.append(col[b])
            Qm.append([[joint[a][b] / col[b] for a in range(q)], delta(b)])
    return mixture(Pw, Pm), mixture(Qw, Qm)


def perturb(P: Mixture, *, size=Fraction(1, 1000), seed=0) -> Mixture:
    """Move mass ``size`` between two symbols of one marginal row of one component (exact).

    The row stays a probability vector (the move is capped by the available mass).
    ``size``: a rational in (0, 1] (int, Fraction, string; a float at its exact binary value).
    """
    _require_mixture("P", P)
    if P.q < 2:
        raise ValueError(f"P must have an alphabet of at least 2 symbols to move mass; got q = {P.q}")
    size = _to_fraction("size", size)
    if not 0 < size <= 1:
        raise ValueError(f"size must be in (0, 1]; got {size}")
    rng = as_generator(seed)
    comps = [[list(row) for row in comp] for comp in P.exact_marginals]
    while True:
        i, j = int(rng.integers(P.k)), int(rng.integers(P.n))
        a, b = rng.choice(P.q, size=2, replace=False)
        if comps[i][j][a] > 0:
            break
    d = min(size, comps[i][j][a])
    comps[i][j][a] -= d
    comps[i][j][b] += d
    return _rewrite(P, list(P.exact_weights), comps)
