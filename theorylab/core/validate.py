"""Input validation for the public API.

Every public simulator validates its arguments here before it calls a jitted kernel, so
that kernels never check anything.  Each error names the argument, the value it got and
what is allowed, e.g.::

    ValueError: gamma must be a finite float in (0, inf); got -0.1

Whatever the input (a string, None, an array where a name is expected, a ragged list, a huge
int), a validator raises ValueError/TypeError naming the argument; none converts silently.
Sizes are refused against a stated budget *before* anything is allocated or looped over:
:func:`check_size` for a count (``n_paths``, ``n_steps``, ``reps``) and :func:`check_budget` for a
derived total (``n_paths * n_steps`` iterations, the elements of an output array); the default
budget is 10**8 elements (800 MB of float64), overridable with ``$THEORYLAB_MAX_ELEMENTS``.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Iterable

import numpy as np


class SimulationDiverged(RuntimeError):
    """A simulation produced a non-finite or exploding state.

    Raised instead of returning NaN, so that no figure or check is ever computed from a
    diverged run.  The message says where (step, path) and with which parameters.
    """


def _fmt(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_name(name) -> str:
    if not isinstance(name, str):
        raise TypeError(f"name must be a str (the name of the argument checked); got {_fmt(name)} of type "
                        f"{type(name).__name__}")
    return name


def _limit(name, what, value, *, integer=False):
    """A bound given to a validator (``low``/``high``/``atol``...) must itself be a number or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"checking {name}: {what} must be a real number or None; got {_fmt(value)} of type "
                        f"{type(value).__name__}")
    if integer and isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if math.isnan(float(value)):
        raise ValueError(f"checking {name}: {what} must be a real number or None; got nan")
    return float(value)


def _flag(name, what, value) -> bool:
    """An option of a validator that must be a bool (``low_open``, ``finite``)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"checking {name}: {what} must be True or False; got {_fmt(value)}")
    return bool(value)


def check_real(name: str, value, *, low=None, high=None, low_open=False, high_open=False):
    """Return ``value`` as a float after checking it is a finite real number in range.

    Strings are refused (``"0.5"`` is a TypeError naming the argument, never converted), as are
    bools and arrays.

    Parameters
    ----------
    name, value : str, object
        The argument's name (for the error message) and the value given.
    low, high : float, optional
        The allowed range, inclusive unless ``low_open``/``high_open`` is set.
    low_open, high_open : bool
        Exclude the end.

    Returns
    -------
    float

    Raises
    ------
    TypeError, ValueError
        Naming the argument, its value and what is allowed.
    """
    _check_name(name)
    low, high = _limit(name, "low", low), _limit(name, "high", high)
    low_open, high_open = _flag(name, "low_open", low_open), _flag(name, "high_open", high_open)
    lo = "-inf" if low is None else repr(float(low))
    hi = "inf" if high is None else repr(float(high))
    interval = f"{'(' if low is None or low_open else '['}{lo}, {hi}{')' if high is None or high_open else ']'}"
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number in {interval}; got {_fmt(value)} of type {type(value).__name__}")
    try:
        x = float(value)
    except (OverflowError, ValueError):  # an int beyond the float range, a Fraction with a huge numerator
        raise ValueError(f"{name} must be a finite float in {interval}; got {_fmt(value)} (beyond the float range)") from None
    bad = not np.isfinite(x)
    if low is not None and (x < low or (low_open and x == low)):
        bad = True
    if high is not None and (x > high or (high_open and x == high)):
        bad = True
    if bad:
        raise ValueError(f"{name} must be a finite float in {interval}; got {_fmt(value)}")
    return x


def check_positive(name: str, value) -> float:
    """Return ``value`` as a float after checking it is a finite real number > 0.

    Parameters
    ----------
    name, value : str, object
        The argument's name (for the error message) and the value given.

    Returns
    -------
    float
    """
    return check_real(name, value, low=0.0, low_open=True)


def check_int(name: str, value, *, low=None, high=None) -> int:
    """Return ``value`` as an int after checking it is an integer in [low, high].

    A float with an integral value (``3.0``) is accepted as that integer; bools, strings, arrays
    and non-integral or non-finite floats are refused.

    Parameters
    ----------
    name, value : str, object
        The argument's name (for the error message) and the value given.
    low, high : int, optional
        The allowed range (inclusive).

    Returns
    -------
    int
    """
    _check_name(name)
    low, high = _limit(name, "low", low, integer=True), _limit(name, "high", high, integer=True)
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer; got {_fmt(value)} of type {type(value).__name__}")
    k = int(value)
    if (low is not None and k < low) or (high is not None and k > high):
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}]; got {k}")
    return k


def _is_one_of(value, allowed) -> bool:
    """``value in allowed`` without numpy's elementwise ``==`` (an array is in no tuple of names)."""
    for a in allowed:
        if value is a:
            return True
        try:
            eq = value == a
        except Exception:  # noqa: BLE001 - a comparison that cannot be made is not a match
            continue
        if isinstance(eq, (bool, np.bool_)) and eq:
            return True
    return False


def check_choice(name: str, value, allowed):
    """``value`` must be one of ``allowed``.

    Safe for any ``value``: an array, a list or another unhashable object is refused with a
    ValueError naming the argument (no "truth value of an array is ambiguous").
    """
    _check_name(name)
    if isinstance(allowed, (str, bytes)) or not isinstance(allowed, Iterable):
        raise TypeError(f"checking {name}: allowed must be a collection of values; got {_fmt(allowed)}")
    allowed = tuple(allowed)
    if not _is_one_of(value, allowed):
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {_fmt(value)}")
    return value


def _as_dtype(name, dtype) -> np.dtype:
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"checking {name}: dtype must be a numpy dtype; got {_fmt(dtype)}") from None


def check_array(name: str, value, *, ndim=None, shape=None, dtype=float, finite=True):
    """Return ``value`` as a contiguous numpy array after checking ndim, shape and finiteness.

    Refused with an error naming the argument: None, strings (for a numeric ``dtype``; no silent
    ``"0.5"`` -> 0.5), ragged nesting, complex values for a real ``dtype``, and for an integer
    ``dtype`` non-integral floats or values out of the dtype's range (never truncated or wrapped).

    Parameters
    ----------
    name, value : str, array_like
        The argument's name (for the error message) and the value given.
    ndim : int, optional
        The required number of dimensions.
    shape : tuple, optional
        The required shape; ``None`` for a free axis.
    dtype : dtype
        The dtype returned (default float).
    finite : bool
        Refuse NaN and inf (default True).

    Returns
    -------
    ndarray
    """
    _check_name(name)
    finite = _flag(name, "finite", finite)
    target = _as_dtype(name, dtype)
    if ndim is not None and (isinstance(ndim, bool) or not isinstance(ndim, (numbers.Integral, np.integer))):
        raise TypeError(f"checking {name}: ndim must be an integer or None; got {_fmt(ndim)}")
    if shape is not None:
        if not isinstance(shape, tuple) or not all(s is None or (isinstance(s, (numbers.Integral, np.integer))
                                                                 and not isinstance(s, bool)) for s in shape):
            raise TypeError(f"checking {name}: shape must be a tuple of ints and None; got {_fmt(shape)}")
    kind = target.kind
    want = f"array-like of {target.name}"
    if value is None:
        raise TypeError(f"{name} must be {want}; got None")
    if kind in "biufc":
        if isinstance(value, (str, bytes)):
            raise TypeError(f"{name} must be {want}; got the string {_fmt(value)}")
        try:
            raw = np.asarray(value)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be {want} (a regular, non-ragged nesting); got {_fmt(value)}") from exc
        if raw.dtype.kind in "USV":
            raise TypeError(f"{name} must be {want}; got {raw.dtype.name} data {_fmt(value)}")
        if raw.dtype.kind == "c" and kind != "c":
            raise TypeError(f"{name} must be {want}; got complex values")
        if kind in "iu" and raw.dtype.kind in "fO" and raw.size:
            try:
                as_float = raw.astype(float)
            except (TypeError, ValueError, OverflowError) as exc:
                raise TypeError(f"{name} must be {want}; got {_fmt(value)}") from exc
            if not np.all(np.isfinite(as_float)) or np.any(as_float != np.round(as_float)):
                raise ValueError(f"{name} must hold integers; got non-integral or non-finite values in {_fmt(value)}")
        if kind in "iu" and raw.dtype.kind in "iuf" and raw.size:
            info = np.iinfo(target)
            if raw.min() < info.min or raw.max() > info.max:
                raise ValueError(f"{name} must hold integers in [{info.min}, {info.max}] ({target.name}); "
                                 f"got values in [{raw.min()}, {raw.max()}]")
    else:
        raw = value
    try:
        arr = np.ascontiguousarray(raw, dtype=target)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"{name} must be {want}; got {_fmt(value)}") from exc
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array; got shape {arr.shape}")
    if shape is not None:
        ok = arr.ndim == len(shape) and all(s is None or s == t for s, t in zip(shape, arr.shape))
        if not ok:
            want_shape = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
            raise ValueError(f"{name} must have shape {want_shape}; got {arr.shape}")
    if finite and arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values; got NaN or inf in an array of shape {arr.shape}")
    return arr


def check_probability_vector(name: str, value, *, atol=1e-9):
    """A 1-d array of non-negative finite numbers summing to 1 (within ``atol``)."""
    atol = check_real(f"atol (checking {_check_name(name)})", atol, low=0)
    p = check_array(name, value, ndim=1)
    if p.size == 0:
        raise ValueError(f"{name} must be a non-empty probability vector; got an empty array")
    if np.any(p < 0):
        raise ValueError(f"{name} must be non-negative; got minimum {p.min():.3g}")
    total = float(p.sum())
    if abs(total - 1.0) > atol:
        raise ValueError(f"{name} must sum to 1 (within {atol:g}); got sum {total:.12g}")
    return p


#: Default budget of :func:`check_size` and :func:`check_budget`: 10**8 elements, i.e. 800 MB of
#: float64 in one allocation, or 10**8 iterations of a loop (about a second to a minute, depending
#: on the body).  Override with the environment variable ``THEORYLAB_MAX_ELEMENTS``.
DEFAULT_MAX_ELEMENTS = 10**8


def default_budget() -> int:
    """The size budget in force: ``$THEORYLAB_MAX_ELEMENTS`` if set, else :data:`DEFAULT_MAX_ELEMENTS` (10**8)."""
    env = os.environ.get("THEORYLAB_MAX_ELEMENTS")
    if env is None or not env.strip():
        return DEFAULT_MAX_ELEMENTS
    try:
        value = int(float(env))
    except ValueError:
        raise ValueError(f"THEORYLAB_MAX_ELEMENTS must be a positive integer; got {env!r}") from None
    if value < 1:
        raise ValueError(f"THEORYLAB_MAX_ELEMENTS must be a positive integer; got {env!r}")
    return value


def check_size(name: str, n, *, low=1, budget=None) -> int:
    """Return ``n`` as an int after checking it is a count (paths, chains, steps, samples, ...) in
    ``[low, budget]``.

    ``budget`` defaults to :func:`default_budget` (10**8 unless ``$THEORYLAB_MAX_ELEMENTS`` says
    otherwise), so that ``n_paths=10**9`` or ``2**63`` is refused before anything is allocated or
    looped over (and never wraps around in an int64 kernel).  Pass a smaller ``budget`` where one
    unit is expensive (a Python-level loop, a dense matrix row).
    """
    cap = default_budget() if budget is None else check_int(f"budget (checking {_check_name(name)})", budget, low=0)
    k = check_int(name, n, low=low)
    if k > cap:
        raise ValueError(f"{name} = {k} exceeds the size budget of {cap:,}; pass a smaller {name} "
                         "(or raise $THEORYLAB_MAX_ELEMENTS if the machine can afford it)")
    return k


def check_budget(name: str, elements, *, max_elements=None, unit="elements", **factors) -> int:
    """Refuse a derived size (memory to allocate, iterations to run) above a stated budget.

    Call it before allocating or looping, e.g. ``check_budget("the recorded path array",
    n_paths * (n_steps // record_every + 1) * d, n_paths=n_paths, n_steps=n_steps)``.

    Parameters
    ----------
    name : str
        What the size is, used in the error message.
    elements : int
        The size, computed by the caller from validated sizes as a Python int (no overflow).
    max_elements : int, optional
        The budget (default: 10**8 elements = 800 MB of float64, or ``$THEORYLAB_MAX_ELEMENTS``).
    unit : str
        What is counted (default ``"elements"``).
    **factors
        The arguments the size comes from, named in the message so the user sees which to reduce.

    Returns
    -------
    int
        ``elements``.
    """
    _check_name(name)
    if not isinstance(unit, str):
        raise TypeError(f"checking {name}: unit must be a str; got {_fmt(unit)}")
    cap = default_budget() if max_elements is None else check_int(f"max_elements (checking {name})", max_elements, low=0)
    if isinstance(elements, (float, np.floating)) and np.isfinite(elements) and float(elements).is_integer():
        elements = int(elements)
    if isinstance(elements, bool) or not isinstance(elements, (numbers.Integral, np.integer)):
        if isinstance(elements, (float, np.floating)) and not np.isfinite(elements):
            elements = math.inf
        else:
            raise TypeError(f"checking {name}: elements must be an integer; got {_fmt(elements)}")
    if elements < 0:
        raise ValueError(f"checking {name}: elements must be >= 0; got {elements}")
    if elements > cap:
        via = ", ".join(f"{k}={_fmt(v)}" for k, v in factors.items())
        raise ValueError(f"{name} needs {elements:,} {unit}" + (f" (from {via})" if via else "")
                         + f", over the budget of {cap:,}; reduce " + (" or ".join(factors) if factors else "the sizes")
                         + " (or raise $THEORYLAB_MAX_ELEMENTS if the machine can afford it)")
    return int(elements)


def _numeric_view(name, values):
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric (a number or a regular array); got {_fmt(values)}") from exc
    if arr.dtype.kind in "biufc":
        return arr, arr
    try:
        return arr, arr.astype(float)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"{name} must be numeric to be checked; got {arr.dtype.name} data {_fmt(values)}") from exc


def require_finite(name: str, values, **context):
    """Raise :class:`SimulationDiverged` if ``values`` holds NaN/inf; say where and with what."""
    arr, num = _numeric_view(_check_name(name), values)
    bad = ~np.isfinite(num)
    if np.any(bad):
        where = np.argwhere(bad)[0].tolist()
        ctx = ", ".join(f"{k}={_fmt(v)}" for k, v in context.items())
        raise SimulationDiverged(
            f"{name} diverged: non-finite value at index {where} (of shape {arr.shape})"
            + (f" with {ctx}" if ctx else "")
        )
    return arr


def require_bounded(name: str, values, bound: float, **context):
    """Raise :class:`SimulationDiverged` if ``values`` holds NaN/inf or any ``|value| > bound``.

    ``bound`` is derived from the problem by the caller (e.g. ``1e6 *`` the initial loss), never
    a catch-all like 1e100; the message names it, where it was exceeded and the parameters.
    """
    bound = check_real(f"bound (checking {_check_name(name)})", bound, low=0)
    arr = require_finite(name, values, **context)
    num = _numeric_view(name, arr)[1]
    over = np.abs(num) > bound
    if np.any(over):
        where = np.argwhere(over)[0].tolist()
        ctx = ", ".join(f"{k}={_fmt(v)}" for k, v in context.items())
        raise SimulationDiverged(
            f"{name} diverged: |value| = {float(np.abs(num[tuple(where)])):.3g} exceeds the bound {bound:.3g} "
            f"at index {where} (of shape {arr.shape})" + (f" with {ctx}" if ctx else ""))
    return arr


def check_record(record, *, nonfinite=(), optional=()):
    """Validate the fields of a result record (a dataclass) from their annotations; call it from
    ``__post_init__``, so a record built by hand is checked like one a function returns.

    ``float`` fields must be finite reals, ``int`` fields integers, ``bool`` fields bools, ``str``
    fields strings, array fields (``np.ndarray``) numeric arrays (never strings) with finite entries,
    ``list``/``tuple``/``dict`` fields of that type, and fields annotated with a class instances of it.
    Fields in ``nonfinite`` may hold NaN/inf (documented, e.g. a moment that is infinite); fields in
    ``optional`` may be None.  Array fields are stored as numpy arrays (their dtype kept).  Errors
    name the field and the record: ``IsingModel: J must ...``.
    """
    import dataclasses
    import typing

    cls = type(record)
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - an annotation that cannot be evaluated: check by its text
        hints = {}
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        if value is None and f.name in optional:
            continue
        ann = hints.get(f.name, f.type)
        text = ann if isinstance(ann, str) else getattr(ann, "__name__", str(ann))
        try:
            new = _check_field(f.name, value, ann, text, f.name not in nonfinite)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{cls.__name__}: {exc}") from None
        if new is not value:
            object.__setattr__(record, f.name, new)


def _check_field(name, value, ann, text, finite):
    import types
    import typing

    if typing.get_origin(ann) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(ann) if a is not type(None)]
        if value is None and len(members) < len(typing.get_args(ann)):
            return value
        if len(members) == 1:
            return _check_field(name, value, members[0], getattr(members[0], "__name__", ""), finite)
        return value
    if ann is float or text == "float":
        if finite:
            return check_real(name, value)
        if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
            raise TypeError(f"{name} must be a real number; got {_fmt(value)} of type {type(value).__name__}")
        return float(value)
    if ann is int or text == "int":
        return check_int(name, value)
    if ann is bool or text == "bool":
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be a bool; got {_fmt(value)} of type {type(value).__name__}")
        return bool(value)
    if ann is str or text == "str":
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str; got {_fmt(value)} of type {type(value).__name__}")
        return value
    if ann is np.ndarray or text in ("ndarray", "np.ndarray"):
        if value is None or isinstance(value, (str, bytes)):
            raise TypeError(f"{name} must be a numeric array; got {_fmt(value)}")
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be a numeric array (a regular nesting); got {_fmt(value)}") from exc
        if arr.dtype.kind not in "biufc":
            raise TypeError(f"{name} must be a numeric array; got {arr.dtype.name} data {_fmt(value)}")
        if finite and arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must contain only finite values; got NaN or inf in an array of shape {arr.shape}")
        return arr if arr is not value else value
    if ann in (list, tuple, dict) or text in ("list", "tuple", "dict"):
        want = ann if ann in (list, tuple, dict) else {"list": list, "tuple": tuple, "dict": dict}[text]
        if not isinstance(value, want):
            raise TypeError(f"{name} must be a {want.__name__}; got {_fmt(value)} of type {type(value).__name__}")
        return value
    if isinstance(ann, type) and ann.__module__.startswith("theorylab") and not isinstance(value, ann):
        raise TypeError(f"{name} must be a {ann.__name__}; got {_fmt(value)} of type {type(value).__name__}")
    return value
