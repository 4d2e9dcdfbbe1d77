"""ReLU networks with exact rational weights (Averkov, Hojny, Merkert, ICLR 2025, Sec. 2).

A network with ``k`` hidden layers is ``f = T_{k+1} o ReLU o T_k o ... o ReLU o T_1`` with
affine maps ``T_l(y) = W_l y + b_l``.  Weights are kept as :class:`fractions.Fraction` so that
evaluation, composition and the tropical (Newton polytope) description are exact; the paper's
weight classes are integers (HHL, ICLR 2023) and N-ary fractions ``a / N^e`` (AHM, Thm 3/4).
"""

from __future__ import annotations

import numbers
from fractions import Fraction
from math import gcd, lcm

import numpy as np

from theorylab.core.validate import check_array, check_int

from . import _kernels

_INT64_SAFE = 2 ** 62


def to_fraction(name: str, value, *, allow_float: bool = False) -> Fraction:
    """Convert ``value`` to an exact :class:`Fraction`.

    Integers, Fractions and decimal strings (``"0.1"``, ``"3/10"``) are exact.  Floats are
    rejected unless ``allow_float`` (then the float's exact binary value is used): ``0.1`` as
    a float is not the decimal fraction 1/10, and exactness is the point of this package.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string (the argument's name, used in messages); got {type(name).__name__}")
    if not isinstance(allow_float, (bool, np.bool_)):
        raise TypeError(f"allow_float must be True or False; got {allow_float!r}")
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a rational number (int, Fraction or str); got bool {value!r}")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (numbers.Integral, np.integer)):
        return Fraction(int(value))
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError) as exc:
            raise ValueError(f"{name} must be a rational number; could not parse the string {value!r}") from exc
    if isinstance(value, (float, np.floating)):
        x = float(value)
        if not np.isfinite(x):
            raise ValueError(f"{name} must be a finite rational number; got {x!r}")
        if allow_float:
            return Fraction(x)
        raise TypeError(f"{name} must be exact (int, Fraction or str such as '0.1'); got the float {x!r}. "
                        "Pass allow_float=True to use its exact binary value.")
    raise TypeError(f"{name} must be a rational number (int, Fraction or str); got {value!r} "
                    f"of type {type(value).__name__}")


def point_array(X, *, n_inputs=None, max_entries: int = 10**7, why: str = "the exact evaluation budget"):
    """``X`` as an ``(m, n)`` object array of points, or a clear error (naming ``X``, its shape and the limit).

    Shared input check of the exact evaluators (:func:`theorylab.relu.F_n`, :func:`evaluate_reference`);
    the entries are converted later, one by one, by :func:`to_fraction`.  ``n_inputs``, if given, is the
    required number of columns; ``max_entries`` the size budget, ``why`` what the budget protects.
    """
    cols = "n" if n_inputs is None else str(n_inputs)
    if isinstance(X, (str, bytes)) or X is None:
        raise TypeError(f"X must be an (m, {cols}) array of rationals; got {type(X).__name__} {X!r:.40}")
    try:
        Xo = np.asarray(X, dtype=object)
    except ValueError:
        raise ValueError(f"X must be a regular (m, {cols}) array (rows of equal length)") from None
    if Xo.ndim != 2:
        raise ValueError(f"X must be a 2-d array (points x coordinates) of shape (m, {cols}); got shape {Xo.shape}")
    if n_inputs is not None and Xo.shape[1] != n_inputs:
        raise ValueError(f"X must have shape (m, {n_inputs}); got {Xo.shape}")
    if Xo.size > max_entries:
        raise ValueError(f"X has {Xo.size} entries; {why} is {max_entries:.0e} entries")
    return Xo


def rational_numerators(X, *, allow_float: bool = False):
    """Integer numerators and a common denominator of a rational array: ``X = num / S``.

    Returns ``(num, S)`` with ``num`` an object array of Python ints of the shape of ``X``.
    """
    Xo = np.asarray(X, dtype=object)
    if Xo.dtype == object and Xo.size and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                              for v in Xo.ravel()):
        return np.vectorize(int, otypes=[object])(Xo), 1
    fr = np.empty(Xo.shape, dtype=object)
    for idx in np.ndindex(Xo.shape):
        fr[idx] = to_fraction(f"X{list(idx)}", Xo[idx], allow_float=allow_float)
    S = lcm(*[v.denominator for v in fr.ravel()]) if fr.size else 1
    num = np.empty(fr.shape, dtype=object)
    for idx in np.ndindex(fr.shape):
        v = fr[idx]
        num[idx] = v.numerator * (S // v.denominator)
    return num, S


def _fraction_array(name, value, shape_hint, allow_float):
    arr = np.asarray(value, dtype=object)
    if arr.ndim != len(shape_hint):
        raise ValueError(f"{name} must be a {len(shape_hint)}-d array; got shape {arr.shape}")
    out = np.empty(arr.shape, dtype=object)
    for idx in np.ndindex(arr.shape):
        out[idx] = to_fraction(f"{name}{list(idx)}", arr[idx], allow_float=allow_float)
    return out


class ReLUNetwork:
    """A feed-forward ReLU network ``R^n -> R^m`` with exact rational weights.

    Parameters
    ----------
    weights : list of 2-d arrays
        ``weights[l]`` has shape ``(n_{l+1}, n_l)``; entries int, Fraction or str.
    biases : list of 1-d arrays, optional
        ``biases[l]`` has shape ``(n_{l+1},)``; default all zero.
    allow_float : bool
        Accept floats (converted to their exact binary value); default False.

    Attributes
    ----------
    depth : int
        Number of hidden layers ``k = len(weights) - 1``.
    dims : tuple of int
        ``(n_0, n_1, ..., n_{k+1})``.
    """

    def __init__(self, weights, biases=None, *, allow_float: bool = False):
        if not isinstance(weights, (list, tuple)) or len(weights) < 1:
            raise ValueError(f"weights must be a non-empty list of 2-d arrays; got {type(weights).__name__}")
        Ws = [_fraction_array(f"weights[{l}]", W, (None, None), allow_float) for l, W in enumerate(weights)]
        if biases is None:
            bs = [np.array([Fraction(0)] * W.shape[0], dtype=object) for W in Ws]
        else:
            if len(biases) != len(Ws):
                raise ValueError(f"biases must have one entry per layer ({len(Ws)}); got {len(biases)}")
            bs = [_fraction_array(f"biases[{l}]", b, (None,), allow_float) for l, b in enumerate(biases)]
        for l, W in enumerate(Ws):
            if W.shape[0] < 1 or W.shape[1] < 1:
                raise ValueError(f"weights[{l}] must have positive shape; got {W.shape}")
            if l > 0 and W.shape[1] != Ws[l - 1].shape[0]:
                raise ValueError(f"mismatched layer shapes: weights[{l}] has {W.shape[1]} columns but "
                                 f"weights[{l - 1}] has {Ws[l - 1].shape[0]} rows")
            if bs[l].shape != (W.shape[0],):
                raise ValueError(f"biases[{l}] must have shape ({W.shape[0]},); got {bs[l].shape}")
        self.weights = Ws
        self.biases = bs
        self._int_cache = None

    # -- structure --------------------------------------------------------------------------
    @property
    def depth(self) -> int:
        """Number of hidden layers."""
        return len(self.weights) - 1

    @property
    def dims(self) -> tuple:
        return (self.weights[0].shape[1],) + tuple(W.shape[0] for W in self.weights)

    @property
    def n_inputs(self) -> int:
        return self.dims[0]

    @property
    def n_outputs(self) -> int:
        return self.dims[-1]

    @property
    def width(self) -> int:
        """Largest hidden-layer width (0 for an affine map)."""
        return max(self.dims[1:-1], default=0)

    @property
    def n_neurons(self) -> int:
        return sum(self.dims[1:-1])

    def weight_values(self) -> set:
        """The set of distinct weights and biases (Fractions)."""
        vals = set()
        for W, b in zip(self.weights, self.biases):
            vals.update(W.ravel().tolist())
            vals.update(b.tolist())
        return vals

    def denominator_lcm(self) -> int:
        """lcm of all weight/bias denominators (1 for an integer network)."""
        return lcm(*[v.denominator for v in self.weight_values()]) if self.weight_values() else 1

    def is_nary(self, N: int) -> bool:
        """True if every weight and bias is an N-ary fraction ``a / N^e`` (AHM, Sec. 1)."""
        N = check_int("N", N, low=1)
        for v in self.weight_values():
            d = v.denominator
            while d > 1:
                g = gcd(d, N)
                if g == 1:
                    return False
                d //= g
        return True

    # -- composition ------------------------------------------------------------------------
    def compose(self, inner: "ReLUNetwork") -> "ReLUNetwork":
        """The network ``self o inner``: the output map of ``inner`` is merged with the input map
        of ``self``, so depth(self o inner) = depth(self) + depth(inner)."""
        if not isinstance(inner, ReLUNetwork):
            raise TypeError(f"inner must be a ReLUNetwork; got {type(inner).__name__}")
        if inner.n_outputs != self.n_inputs:
            raise ValueError(f"mismatched layer shapes: inner has {inner.n_outputs} outputs but self has "
                             f"{self.n_inputs} inputs")
        W1, b1 = self.weights[0], self.biases[0]
        Wl, bl = inner.weights[-1], inner.biases[-1]
        merged_W = W1.dot(Wl)
        merged_b = W1.dot(bl) + b1
        Ws = inner.weights[:-1] + [merged_W] + self.weights[1:]
        bs = inner.biases[:-1] + [merged_b] + self.biases[1:]
        return ReLUNetwork(Ws, bs)

    # -- evaluation -------------------------------------------------------------------------
    def _integer_form(self):
        """Per layer integer numerators ``A_l = D_l W_l``, ``B_l = D_l b_l`` and ``D_l``."""
        if self._int_cache is None:
            forms = []
            for W, b in zip(self.weights, self.biases):
                D = lcm(*[v.denominator for v in list(W.ravel()) + list(b)])
                A = np.array([[int(v * D) for v in row] for row in W], dtype=object)
                B = np.array([int(v * D) for v in b], dtype=object)
                forms.append((A, B, D))
            self._int_cache = forms
        return self._int_cache

    def evaluate(self, X, *, exact: bool = True, allow_float: bool = False):
        """Evaluate the network at the rows of ``X``.

        Parameters
        ----------
        X : array (m, n) or (n,)
            Points; for ``exact=True`` entries must be rational (int, Fraction, str).
        exact : bool
            True: exact rational outputs (object array of Fraction), computed on int64
            numerators by a jitted kernel when an a-priori bound rules out overflow, else on
            Python integers.  False: float64 outputs (fast path for large batches).

        Returns
        -------
        array (m, n_outputs) (or (n_outputs,) for a single point)
        """
        for flag, value in (("exact", exact), ("allow_float", allow_float)):
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{flag} must be True or False; got {value!r}")
        single = np.ndim(X) == 1
        if not exact:
            Xf = check_array("X", X, dtype=float)
            Xf = Xf[None, :] if single else Xf
            if Xf.ndim != 2 or Xf.shape[1] != self.n_inputs:
                raise ValueError(f"X must have shape (m, {self.n_inputs}); got {np.shape(X)}")
            y = Xf.T
            for l, (W, b) in enumerate(zip(self.weights, self.biases)):
                y = W.astype(float) @ y + b.astype(float)[:, None]
                if l < self.depth:
                    y = np.maximum(y, 0.0)
            out = y.T
            return out[0] if single else out
        Xo = np.asarray(X, dtype=object)
        Xo = Xo[None, :] if single else Xo
        if Xo.ndim != 2 or Xo.shape[1] != self.n_inputs:
            raise ValueError(f"X must have shape (m, {self.n_inputs}); got {np.shape(X)}")
        num, S0 = rational_numerators(Xo, allow_float=allow_float)
        Y, S = self.evaluate_numerators(num, S0)
        out = np.empty(Y.shape, dtype=object)
        for idx in np.ndindex(Y.shape):
            out[idx] = Fraction(int(Y[idx]), S)
        return out[0] if single else out

    def _check_numerators(self, num):
        """``num`` as an (m, n_inputs) array of integers (object array of Python ints, or an int array) and
        max |num| (0 if empty); floats, strings, bools and other shapes are refused naming ``num``."""
        if num is None or isinstance(num, (str, bytes)):
            raise TypeError(f"num must be an (m, {self.n_inputs}) array of integers; got {num!r:.60}")
        arr = np.asarray(num) if isinstance(num, np.ndarray) else np.asarray(num, dtype=object)
        if arr.ndim != 2 or arr.shape[1] != self.n_inputs:
            raise ValueError(f"num must have shape (m, {self.n_inputs}); got shape {arr.shape}")
        if arr.dtype.kind in "iu":
            return arr, (int(np.abs(arr.astype(object)).max()) if arr.size else 0)
        if arr.dtype != object:
            raise TypeError(f"num must hold integers (numerators); got {arr.dtype.name} data {num!r:.60}")
        bound = 0
        for v in arr.ravel():
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"num must hold integers (numerators); got {type(v).__name__} {v!r:.40}")
            bound = max(bound, abs(int(v)))
        return arr, bound

    def evaluate_numerators(self, num, S0: int = 1, *, backend: str = "auto"):
        """Exact evaluation on integer numerators ``num / S0``; returns ``(Y, S)`` with outputs ``Y / S``.

        ``backend``: ``"auto"`` (int64 kernel when provably overflow-free), ``"int64"``
        (raise OverflowError if not provably safe) or ``"python"`` (Python integers).
        """
        if backend not in ("auto", "int64", "python"):
            raise ValueError(f"backend must be 'auto', 'int64' or 'python'; got {backend!r}")
        num, bound = self._check_numerators(num)
        S0 = check_int("S0", S0, low=1)
        forms = self._integer_form()
        S = [S0]
        for _, _, D in forms:
            S.append(S[-1] * D)
        safe = bound < _INT64_SAFE and S[-1] < _INT64_SAFE
        for l, (A, B, D) in enumerate(forms):
            row = max((sum(abs(int(a)) for a in r) for r in A), default=0)
            bmax = max((abs(int(v)) for v in B), default=0)
            bound = row * bound + S[l] * bmax
            safe = safe and bound < _INT64_SAFE
        if backend == "int64" and not safe:
            raise OverflowError("int64 evaluation is not provably overflow-free for this network and input")
        if safe and backend != "python":
            dims = np.array(self.dims, dtype=np.int64)
            A_flat = np.concatenate([np.asarray(A, dtype=np.int64).ravel() for A, _, _ in forms])
            B_flat = np.concatenate([np.asarray(B, dtype=np.int64).ravel() for _, B, _ in forms])
            a_off = np.cumsum([0] + [A.size for A, _, _ in forms])[:-1].astype(np.int64)
            b_off = np.cumsum([0] + [B.size for _, B, _ in forms])[:-1].astype(np.int64)
            Xi = np.ascontiguousarray(np.asarray(num, dtype=np.int64))
            Y = _kernels.eval_int_batch(Xi, A_flat, B_flat, np.array(S[:-1], dtype=np.int64), a_off, b_off, dims)
            return Y.astype(object), S[-1]
        y = np.asarray(num, dtype=object).T
        for l, (A, B, D) in enumerate(forms):
            y = A.dot(y) + (B * S[l])[:, None]
            if l < self.depth:
                y = np.where(y > 0, y, 0)
        return y.T, S[-1]

    def __call__(self, X, **kw):
        return self.evaluate(X, **kw)

    def __repr__(self):
        return f"ReLUNetwork(dims={self.dims}, depth={self.depth})"


def evaluate_reference(net: ReLUNetwork, X):
    """Naive reference: Fraction-by-Fraction evaluation, one point at a time (for benchmarks/tests).

    ``X``: (m, n_inputs) ints, Fractions or strings (floats refused, as in :meth:`ReLUNetwork.evaluate`)."""
    if not isinstance(net, ReLUNetwork):
        raise TypeError(f"net must be a ReLUNetwork; got {type(net).__name__}")
    Xo = point_array(X, n_inputs=net.n_inputs, max_entries=10**6,
                     why="the limit of the reference (one Fraction at a time)")
    out = []
    for i, x in enumerate(Xo):
        y = [to_fraction(f"X[{i}, {j}]", v) for j, v in enumerate(x)]
        for l, (W, b) in enumerate(zip(net.weights, net.biases)):
            z = [sum((W[r, c] * y[c] for c in range(len(y))), Fraction(0)) + b[r] for r in range(W.shape[0])]
            y = [max(v, Fraction(0)) for v in z] if l < net.depth else z
        out.append(y)
    return np.array(out, dtype=object)
