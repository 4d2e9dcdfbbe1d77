"""Input validation for the public API.

Every public simulator validates its arguments here before it calls a jitted kernel, so
that kernels never check anything.  Each error names the argument, the value it got and
what is allowed, e.g.::

    ValueError: gamma must be a finite float in (0, inf); got -0.1
"""

from __future__ import annotations

import numbers

import numpy as np


class SimulationDiverged(RuntimeError):
    """A simulation produced a non-finite or exploding state.

    Raised instead of returning NaN, so that no figure or check is ever computed from a
    diverged run.  The message says where (step, path) and with which parameters.
    """


def _fmt(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_real(name: str, value, *, low=None, high=None, low_open=False, high_open=False):
    """Return ``value`` as a float after checking it is a finite real number in range.

    ``low``/``high`` are inclusive unless ``low_open``/``high_open`` is set.
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number; got {_fmt(value)} of type {type(value).__name__}")
    x = float(value)
    lo = "-inf" if low is None else repr(float(low))
    hi = "inf" if high is None else repr(float(high))
    interval = f"{'(' if low is None or low_open else '['}{lo}, {hi}{')' if high is None or high_open else ']'}"
    bad = not np.isfinite(x)
    if low is not None and (x < low or (low_open and x == low)):
        bad = True
    if high is not None and (x > high or (high_open and x == high)):
        bad = True
    if bad:
        raise ValueError(f"{name} must be a finite float in {interval}; got {_fmt(value)}")
    return x


def check_positive(name: str, value) -> float:
    """A finite real number > 0."""
    return check_real(name, value, low=0.0, low_open=True)


def check_int(name: str, value, *, low=None, high=None) -> int:
    """Return ``value`` as an int after checking it is an integer in [low, high]."""
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


def check_choice(name: str, value, allowed):
    """``value`` must be one of ``allowed``."""
    allowed = tuple(allowed)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {_fmt(value)}")
    return value


def check_array(name: str, value, *, ndim=None, shape=None, dtype=float, finite=True):
    """Return ``value`` as a contiguous numpy array after checking ndim, shape and finiteness.

    ``shape`` may contain ``None`` for a free axis.
    """
    try:
        arr = np.ascontiguousarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be array-like of {np.dtype(dtype).name}; got {_fmt(value)}") from exc
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array; got shape {arr.shape}")
    if shape is not None:
        ok = arr.ndim == len(shape) and all(s is None or s == t for s, t in zip(shape, arr.shape))
        if not ok:
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {want}; got {arr.shape}")
    if finite and arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values; got NaN or inf in an array of shape {arr.shape}")
    return arr


def check_probability_vector(name: str, value, *, atol=1e-9):
    """A 1-d array of non-negative finite numbers summing to 1 (within ``atol``)."""
    p = check_array(name, value, ndim=1)
    if p.size == 0:
        raise ValueError(f"{name} must be a non-empty probability vector; got an empty array")
    if np.any(p < 0):
        raise ValueError(f"{name} must be non-negative; got minimum {p.min():.3g}")
    total = float(p.sum())
    if abs(total - 1.0) > atol:
        raise ValueError(f"{name} must sum to 1 (within {atol:g}); got sum {total:.12g}")
    return p


def require_finite(name: str, values, **context):
    """Raise :class:`SimulationDiverged` if ``values`` holds NaN/inf; say where and with what."""
    arr = np.asarray(values)
    bad = ~np.isfinite(arr)
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
    arr = require_finite(name, values, **context)
    over = np.abs(arr) > bound
    if np.any(over):
        where = np.argwhere(over)[0].tolist()
        ctx = ", ".join(f"{k}={_fmt(v)}" for k, v in context.items())
        raise SimulationDiverged(
            f"{name} diverged: |value| = {float(np.abs(arr[tuple(where)])):.3g} exceeds the bound {bound:.3g} "
            f"at index {where} (of shape {arr.shape})" + (f" with {ctx}" if ctx else ""))
    return arr
