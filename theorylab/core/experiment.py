"""Shared experiments: a computation several claims (and figures) of one paper read their numbers from.

Declare it once in the validation module::

    @experiment(PAPER)
    def cos_sweep(i_max, n_chains, seed):
        return sweep(cos_point, grid(i=range(i_max + 1), n_chains=[n_chains]), seed=seed)

and call it from every claim of the stream (``@claim(..., stream="cos")`` gives them one seed).  A
call is served, in this order, from

1. the in-process memo (keyed by paper, experiment, arguments);
2. the run's on-disk cache (:class:`~theorylab.core.cache.Cache`, keyed by paper, experiment,
   arguments, which hold the seed, and the code fingerprint of the validation module), so a
   second ``theorylab check`` process, or another dask worker, does not recompute it;
3. a computation, inside which sweeps store their points under the experiment (not under the claim
   that asked first), so that a killed run resumes per point whichever claim reruns it.

What the run asks for (:class:`~theorylab.core.context.RunContext`) holds at every level:

* ``--no-cache`` (``memo=False``, no cache): neither the memo nor the disk is read or written;
* ``--force`` (``force=True``): nothing computed before this run is served (memo, disk, sweep
  points); what this run computed is reused within it (a memo entry or disk entry carrying the
  run's ``run_id``), so a shared experiment is still computed once per run.

``disk=False`` declares a cheap deterministic piece (a problem instance, a constant) that is only
memoised in-process.  :func:`clear_experiments` is the one way to empty the memo (tests that
monkeypatch a simulator call it before and after).
"""

from __future__ import annotations

import functools
import inspect
import json
from dataclasses import dataclass

from .cache import _canonical
from .context import current_run, using_run

_MEMO: dict = {}
#: Experiments kept in memory (least recently used dropped first), so a long-lived process (a dask
#: worker, a calibration over seeds) does not grow without bound.
MEMO_SIZE = 4096


@dataclass
class ExperimentEntry:
    """What an experiment stores on disk: its name, the value, and the run that computed it."""

    paper: str
    name: str
    value: object
    run_id: str | None = None


def clear_experiments() -> None:
    """Forget every memoised experiment of this process (tests that patch a simulator call it)."""
    _MEMO.clear()


def _memo_key(paper_id, name, params) -> str:
    return json.dumps([paper_id, name, _canonical(params)], sort_keys=True, default=repr)


def experiment(paper, name: str | None = None, *, disk: bool = True):
    """Declare ``fn`` a shared experiment of ``paper``: computed once, read by several claims.

    A call is served from the in-process memo, else the run's disk cache (keyed by the paper, the
    experiment, its arguments and the code's fingerprint), else computed (see the module docstring);
    ``--no-cache`` and ``--force`` hold at every level.

    Parameters
    ----------
    paper : Paper
        The paper the experiment belongs to.
    name : str, optional
        Identifies it in the cache (default: the function's name).
    disk : bool
        False: memoised in-process only (a cheap deterministic piece, e.g. a problem instance).

    Returns
    -------
    callable
        A decorator; the function's arguments must be plain values (numbers, strings, tuples),
        which key it.
    """
    pid = getattr(paper, "id", None)
    if not isinstance(pid, str):
        raise TypeError(f"paper must be a theorylab.core.Paper; got {paper!r}")
    if name is not None and (not isinstance(name, str) or not name):
        raise TypeError(f"name must be a non-empty str or None; got {name!r}")
    if not isinstance(disk, bool):
        raise TypeError(f"disk must be True (memo and disk cache) or False (memo only); got {disk!r}")

    def deco(fn):
        exp_name = name or fn.__name__
        signature = inspect.signature(fn)
        module = fn.__module__

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            params = dict(bound.arguments)
            return _serve(pid, exp_name, module, disk, params, lambda: fn(*args, **kwargs))

        wrapper.experiment = (pid, exp_name)
        return wrapper

    return deco


def _serve(pid, name, module, disk, params, compute):
    ctx = current_run()
    mkey = _memo_key(pid, name, params)
    if ctx.memo and mkey in _MEMO:
        value, run_id = _MEMO[mkey]
        if not ctx.force or (run_id is not None and run_id == ctx.run_id):
            _MEMO[mkey] = _MEMO.pop(mkey)  # most recently used last
            return value
    cache = ctx.cache if disk else None
    dkey = cache.key("experiment", pid, name, params, module=module) if cache is not None else None
    if cache is not None:
        hit = cache.get(dkey)
        if hit is not None and not (isinstance(hit, ExperimentEntry) and (hit.paper, hit.name) == (pid, name)):
            cache.report(dkey, f"holds {type(hit).__name__}, not experiment {pid}:{name}")
        elif hit is not None and (not ctx.force or (hit.run_id is not None and hit.run_id == ctx.run_id)):
            if ctx.memo:
                _remember(mkey, hit.value, hit.run_id)
            return hit.value
    with using_run(claim_key=f"{pid}:{name}"):  # its sweeps' points are keyed by the experiment
        value = compute()
    if cache is not None:
        cache.put(dkey, ExperimentEntry(pid, name, value, ctx.run_id))
    if ctx.memo:
        _remember(mkey, value, ctx.run_id)
    return value


def _remember(mkey, value, run_id):
    _MEMO.pop(mkey, None)
    _MEMO[mkey] = (value, run_id)
    while len(_MEMO) > MEMO_SIZE:
        del _MEMO[next(iter(_MEMO))]
