"""Argument checks shared by the cpwl API (errors name the argument, its value and what is allowed).

Exact numbers: ints, Fractions, strings such as "1/3" or "0.1" (= 1/10), and floats, which
are converted exactly to their binary value (0.1 becomes 3602879701896397 / 2^55); NaN/inf,
booleans and other types are refused.
"""

from __future__ import annotations

import numpy as np

from theorylab.core.exact import to_fraction
from theorylab.core.validate import _fmt


def require_type(name, obj, cls, hint=""):
    if not isinstance(obj, cls):
        want = cls.__name__ if isinstance(cls, type) else " or ".join(c.__name__ for c in cls)
        raise TypeError(f"{name} must be a {want}{hint}; got {type(obj).__name__} {_fmt(obj)}")
    return obj


def exact_number(name, x):
    try:
        return to_fraction(x)
    except OverflowError as exc:
        raise ValueError(f"{name}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}: {exc}") from None


def _sequence(name, values):
    if isinstance(values, (str, bytes, dict, set)) or values is None or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a sequence of numbers; got {type(values).__name__} {_fmt(values)}")
    if isinstance(values, np.ndarray) and values.ndim == 0:
        raise TypeError(f"{name} must be a sequence of numbers; got a 0-d array {_fmt(values)}")
    return values


def exact_vector(name, values, *, length=None, min_len=0):
    values = _sequence(name, values)
    if length is not None and len(values) != length:
        raise ValueError(f"{name} must have {length} entries; got {len(values)}")
    if len(values) < min_len:
        raise ValueError(f"{name} must have at least {min_len} entries; got {len(values)}")
    return [exact_number(f"{name}[{i}]", v) for i, v in enumerate(values)]


def exact_matrix(name, rows, *, n_rows=None, n_cols=None, max_entries=10**6):
    rows = _sequence(name, rows)
    if n_rows is not None and len(rows) != n_rows:
        raise ValueError(f"{name} must have {n_rows} rows; got {len(rows)}")
    out = []
    for i, row in enumerate(rows):
        out.append(exact_vector(f"{name}[{i}]", row, length=n_cols))
        if len(out) * len(out[-1]) > max_entries:
            raise ValueError(f"{name} has more than {max_entries} entries (exact-arithmetic budget)")
    return out
