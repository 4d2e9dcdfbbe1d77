"""Parameter sweeps: a grid of keyword arguments mapped to a tidy pandas DataFrame.

``sweep(fn, grid(gamma=[0.1, 0.05], n=[1000]), seed=0)`` calls
``fn(gamma=..., n=..., seed=<child seed>)`` at every grid point and stacks the returned rows
(a dict, a list of dicts or a DataFrame) with the grid parameters and the seed as columns.

* Seeds: each point's seed is ``child_seed(seed, <canonical params>)``: it depends on the
  point, not on its position in the grid or on the executor, so results are identical
  serially, in processes or on a dask cluster.
* Run context: arguments left at ``None`` come from :func:`theorylab.core.context.current_run`,
  which :func:`theorylab.core.checks.run_claim` and the CLI fill in.  Inside a claim with a
  cache, each finished point is stored under ``"<paper>:<claim>:<fn module>.<fn qualname>"``,
  so a run killed in the middle of a claim (even by SIGKILL) loses at most the points in
  flight, and the rerun computes only the missing points (inside a shared experiment,
  :mod:`theorylab.core.experiment`, points are keyed by the experiment).  ``cache=False`` turns
  caching off; a run with ``force`` (``--force``) recomputes every point and overwrites it.
* Executors (``executor=``, else a non-serial executor of the run, else
  ``$THEORYLAB_EXECUTOR``, else ``"serial"``): ``"serial"``; ``"process"`` (local processes
  started by *forkserver* or *spawn*, never fork, so it works after a parallel numba kernel
  ran OpenMP/TBB threads in the parent; ``n_jobs`` of them, default all cores); ``"dask"``
  (``pip install theorylab[dask]``): points go to the cluster given by ``scheduler=`` (an
  address or a ``distributed.Client``), the run's scheduler or ``$THEORYLAB_DASK_SCHEDULER``;
  inside a task on a dask worker (a claim sent by :func:`theorylab.core.dask_backend.run_claims`)
  the points are submitted to the same cluster through ``distributed.worker_client``.
  Process and dask executors need a module-level (picklable) ``fn``.
* Batches (``batches=``): a point too large for one task is split into ``B`` independent calls
  ``fn(seed=<point seed>, batch=Batch(b, B), **point)``, b = 0..B-1, whose rows are stacked in
  batch order as the point's rows.  Every batch gets the point's seed; ``fn`` computes the units
  ``batch.slice(n_units)`` of its point with each unit's own stream (e.g. ``spawn_seeds(seed,
  n)[batch.slice(n)]``), so the stacked rows are those of one unsplit call and ``B`` changes no
  number.  Each batch is one task (cached, timed, submitted) of its own.
* Order: each computed task's time is recorded (in the process, and in the folder of point times:
  the run's ``point_times``, else the cache folder's ``point-times/``); the process and dask executors
  submit the tasks longest-first by those recorded times (tasks never timed first, in grid order), so
  that the largest does not start last and leave the other workers idle
  (longest-processing-time-first).  On dask a timed task's priority is its recorded time, so the
  tasks of several sweeps sharing the cluster (several claims) also run longest-first overall.
  Seeds depend only on the point, so the order changes no number.
* Progress: the run's progress hook gets ``progress("sweep_point", done=i, total=n, desc=desc)``
  after each point; without one, a tqdm bar is shown only on a terminal (``progress=False``
  silences it, ``True`` forces the bar, a callable replaces the hook).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import multiprocessing
import os
import pickle
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import interrupt
from .cache import _canonical
from .context import current_run
from .seeding import child_seed
from .validate import check_choice, check_int

EXECUTORS = ("serial", "process", "dask")


def grid(**axes) -> list[dict]:
    """The Cartesian product of the given value lists, as a list of keyword dicts.

    Parameters
    ----------
    **axes : list
        One list of values per parameter, e.g. ``grid(n=[100, 200], eta=[0.1])``.

    Returns
    -------
    list of dict
        ``[{"n": 100, "eta": 0.1}, {"n": 200, "eta": 0.1}]``: the points of :func:`sweep`.
    """
    for name, values in axes.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError(f"grid axis {name} must be a list of values; got {values!r}")
    names = list(axes)
    return [dict(zip(names, combo)) for combo in itertools.product(*(list(axes[n]) for n in names))]


@dataclass(frozen=True)
class Batch:
    """Batch ``index`` of ``count`` of one sweep point (see ``sweep(..., batches=)``)."""

    index: int
    count: int

    def slice(self, n: int) -> slice:
        """This batch's contiguous share of ``n`` units (chains, paths): the ``count`` shares cover
        ``range(n)`` in order and differ in size by at most one."""
        n = check_int("n", n, low=self.count)
        return slice(self.index * n // self.count, (self.index + 1) * n // self.count)


def _n_batches(batches, point) -> int:
    b = batches(point) if callable(batches) else batches
    return check_int("batches", b, low=1)


def _point_seed(seed, point):
    return child_seed(seed, json.dumps(_canonical(point), sort_keys=True))


def _check_out(out):
    if not isinstance(out, (pd.DataFrame, dict, list)):
        raise TypeError(f"a sweep function must return a dict, list of dicts or DataFrame; got {type(out).__name__}")


def _rows(out, point, seed) -> pd.DataFrame:
    _check_out(out)
    if isinstance(out, pd.DataFrame):
        df = out.copy()
    elif isinstance(out, dict):
        df = pd.DataFrame([out])
    else:
        df = pd.DataFrame(out)
    for k, v in point.items():
        if k not in df.columns:
            df[k] = [v] * len(df)
    df["seed"] = seed
    return df


def _timed_call(fn, point, seed, batch=None):
    """``(fn's output, seconds)``: the point's (or batch's) own compute time, measured where it runs."""
    t0 = time.perf_counter()
    out = fn(seed=seed, **point) if batch is None else fn(seed=seed, batch=batch, **point)
    return out, time.perf_counter() - t0


# ------------------------------------------------------------------------------ recorded point times
_TIMES: dict[str, dict[str, float]] = {}


def _point_id(point) -> str:
    return json.dumps(_canonical(point), sort_keys=True, default=repr)


def _task_id(point_id, batch) -> str:
    return point_id if batch is None else f"{point_id} batch {batch.index}/{batch.count}"


def _times_folder(where) -> Path | None:
    """The folder of point times: ``where`` itself (a path), or a Cache's ``point-times/``."""
    if where is None:
        return None
    if isinstance(where, (str, Path)):
        return Path(where)
    return where.root / "point-times"


def _times_path(where, name):
    return _times_folder(where) / f"{hashlib.sha256(name.encode()).hexdigest()[:32]}.json"


def recorded_times(name, cache=None) -> dict[str, float]:
    """Seconds per point (by its canonical JSON; a batch's id adds ``" batch b/B"``) recorded for the sweep
    ``name``, in this process or in ``cache`` (a Cache: its ``point-times/`` folder; or a folder)."""
    times = dict(_TIMES.get(name, {}))
    if cache is not None:
        try:
            stored = json.loads(_times_path(cache, name).read_text())
        except (OSError, ValueError):
            stored = {}
        if isinstance(stored, dict):
            times = {**{k: float(v) for k, v in stored.items() if isinstance(v, (int, float))}, **times}
    return times


def _record_times(name, cache, new: dict[str, float]):
    if not new:
        return
    _TIMES.setdefault(name, {}).update(new)
    if cache is not None:
        from .cache import atomic_write_text

        merged = {**recorded_times(name, cache), **new}
        try:
            atomic_write_text(_times_path(cache, name), json.dumps(merged, sort_keys=True))
        except OSError:  # timings only order the submission; never fail a sweep over them
            pass


def longest_first(todo, ids, times) -> list:
    """``todo`` (point indices) ordered by recorded time, longest first; points never timed come first,
    in their given order (they may be the longest)."""
    unknown = [i for i in todo if ids[i] not in times]
    known = sorted((i for i in todo if ids[i] in times), key=lambda i: -times[ids[i]])
    return unknown + known


#: Dask priority of tasks never timed: above every timed task (whose priority is its milliseconds).
UNTIMED_PRIORITY = 10**12


def priorities(order, ids, times) -> list[int]:
    """Dask priorities (higher runs first) of the tasks ``order`` (from :func:`longest_first`): a timed
    task's recorded milliseconds (comparable across the sweeps of concurrent claims), untimed ones above
    all of them in their given order."""
    return [1 + int(times[ids[i]] * 1000) if ids[i] in times else UNTIMED_PRIORITY + len(order) - rank
            for rank, i in enumerate(order)]


# ------------------------------------------------------------------------------ settings
def _executor(executor, ctx) -> str:
    if executor is None:
        if ctx.executor != "serial":
            executor = ctx.executor
        else:
            executor = os.environ.get("THEORYLAB_EXECUTOR") or ctx.executor
    return check_choice("executor", executor, EXECUTORS)


def _fn_name(fn) -> str | None:
    """``module.qualname`` of a module-level function, or None (lambda, local function)."""
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if not module or not qualname or "<" in qualname:
        return None
    return f"{module}.{qualname}"


def _cache_settings(fn, cache, cache_key, ctx):
    """(cache, key prefix) for the points, or (None, None) when points are not cached."""
    if cache is False:
        return None, None
    if cache is None:
        cache = ctx.cache
    if cache is None:
        return None, None
    if cache_key is None:
        name = _fn_name(fn)
        if name is None:  # two lambdas of one module would share a key
            return None, None
        cache_key = f"{ctx.claim_key}:{name}" if ctx.claim_key else name
    return cache, cache_key


def _sweep_name(fn, ctx) -> str | None:
    """The name under which a sweep's point times are recorded when its points are not cached."""
    name = _fn_name(fn)
    if name is None:
        return None
    return f"{ctx.claim_key}:{name}" if ctx.claim_key else name


class _Progress:
    """Reports finished points to the run's hook, or to a tqdm bar on a terminal."""

    def __init__(self, progress, ctx, total, desc):
        self.total, self.desc, self.done = total, desc, 0
        self.hook, self.bar = None, None
        if progress is None:
            progress = ctx.progress if ctx.progress is not None else (total > 1 and sys.stderr.isatty())
        if callable(progress):
            self.hook = progress
        elif progress:
            try:
                from tqdm.auto import tqdm
            except ImportError:  # tqdm is a dependency, but keep sweeps usable without it
                return
            self.bar = tqdm(total=total, desc=desc, leave=False)

    def update(self, k=1):
        self.done += k
        if self.hook is not None:
            self.hook("sweep_point", done=self.done, total=self.total, desc=self.desc)
        elif self.bar is not None:
            self.bar.update(k)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _check_sweep_args(scheduler, cache, cache_key, progress, desc):
    """The options of :func:`sweep`, checked whether or not the executor uses them (errors name the argument)."""
    import re

    import numpy as np

    from .cache import Cache

    if scheduler is not None:
        client = type(scheduler).__module__.split(".")[0] == "distributed"
        if not client and not isinstance(scheduler, str):
            raise TypeError(f"scheduler must be None, a dask address such as 'tcp://127.0.0.1:8786' or a "
                            f"distributed.Client; got {scheduler!r:.60} of type {type(scheduler).__name__}")
        if not client and not re.fullmatch(r"([A-Za-z][A-Za-z0-9+.-]*://\S+|[^\s/:]+:\d+)", scheduler):
            raise ValueError(f"scheduler must be a dask address such as 'tcp://127.0.0.1:8786' (or HOST:PORT); "
                             f"got {scheduler!r:.60}")
    if cache is not None and cache is not False and not isinstance(cache, Cache):
        raise TypeError(f"cache must be None (the run's cache), False (no caching) or a theorylab.core.Cache; got "
                        f"{cache!r:.60} of type {type(cache).__name__}")
    if cache_key is not None and (not isinstance(cache_key, str) or not cache_key):
        raise TypeError(f"cache_key must be None or a non-empty str naming the sweep; got {cache_key!r:.60}")
    if progress is not None and not isinstance(progress, (bool, np.bool_)) and not callable(progress):
        raise TypeError(f"progress must be None, True, False or a hook progress(event, **info); got {progress!r:.60}")
    if not isinstance(desc, str):
        raise TypeError(f"desc must be a str (the progress label); got {desc!r:.60} of type {type(desc).__name__}")


# ------------------------------------------------------------------------------ the sweep
def sweep(fn, points, *, seed=0, executor=None, n_jobs=None, scheduler=None, cache=None,
          cache_key: str | None = None, progress=None, desc="sweep", batches=None) -> pd.DataFrame:
    """Run ``fn(seed=<point seed>, **point)`` over ``points``; one DataFrame.

    Each point's seed depends only on the point and ``seed``, so the numbers do not depend on the
    executor, the order or the number of workers; each finished point is cached (and a killed run
    resumes per point).  Rows come in the order of ``points`` (and of batches within a point) whatever
    the executor.

    Parameters
    ----------
    fn : callable
        ``fn(seed=..., **point)`` returning a dict, a list of dicts or a DataFrame.
    points : list of dict
        The points (see :func:`grid`).
    seed : int
        The root of the points' seeds.
    executor : {"serial", "process", "dask"}, optional
        Where the points run (default: the run context's, serial outside a run).
    n_jobs : int, optional
        Processes of the ``"process"`` executor.
    scheduler : optional
        A dask client or address for the ``"dask"`` executor.
    cache : Cache, optional
        Where points are stored (default: the run's cache).
    cache_key : str, optional
        Names the sweep in the cache (default: the claim or experiment running and ``fn``'s
        module and qualified name).
    progress : optional
        A progress display (default: the run's).
    desc : str
        The progress line's label.
    batches : int or callable, optional
        None: one call per point; an int or a function ``point -> int``: each point's number of
        batches, each called as ``fn(seed=<point seed>, batch=Batch(b, B), **point)`` and cached,
        timed and scheduled as its own task (see the module docstring); its rows are stacked in
        batch order.

    Returns
    -------
    DataFrame
        One or more rows per point, with the point's parameters as columns.
    """
    ctx = current_run()
    _check_sweep_args(scheduler, cache, cache_key, progress, desc)
    executor = _executor(executor, ctx)
    if not callable(fn):
        raise TypeError(f"fn must be a callable returning a dict, list of dicts or DataFrame; got {fn!r}")
    if isinstance(points, (str, bytes, dict)) or not hasattr(points, "__iter__"):
        raise TypeError(f"points must be a list of keyword dicts (see grid); got {points!r}")
    points = list(points)
    for p in points:
        if not isinstance(p, dict):
            raise TypeError(f"points must be a list of keyword dicts (see grid); got an element {p!r}")
    points = [dict(p) for p in points]
    if n_jobs is not None:
        n_jobs = check_int("n_jobs", n_jobs, low=1)
    if batches is not None and not callable(batches):
        batches = check_int("batches", batches, low=1)
    # tasks: (point index, Batch or None), in grid order and batch order within a point
    tasks = [(i, None) for i in range(len(points))] if batches is None else \
        [(i, Batch(b, B)) for i, p in enumerate(points) for B in (_n_batches(batches, p),) for b in range(B)]
    times_name = cache_key
    cache, cache_key = _cache_settings(fn, cache, cache_key, ctx)
    times_name = cache_key or times_name or _sweep_name(fn, ctx)
    times_where = ctx.point_times if ctx.point_times is not None else cache
    seeds = [_point_seed(seed, p) for p in points]
    module = getattr(fn, "__module__", None)

    def key(i, batch):
        parts = ("sweep", cache_key, points[i], seeds[i]) + (() if batch is None else (batch.index, batch.count))
        return cache.key(*parts, module=module)

    keys = [key(i, b) if cache is not None else None for i, b in tasks]
    results: dict[int, object] = {}
    todo = []
    for t, k in enumerate(keys):
        hit = cache.get(k) if k is not None and not ctx.force else None
        if hit is not None:
            results[t] = hit
        else:
            todo.append(t)
    bar = _Progress(progress, ctx, len(tasks), desc)
    if len(todo) < len(tasks):
        bar.update(len(tasks) - len(todo))
    point_ids = [_point_id(p) for p in points]
    ids = [_task_id(point_ids[i], b) for i, b in tasks]
    calls = [(points[i], seeds[i], b) for i, b in tasks]
    timed: dict[str, float] = {}

    def done(t, result):
        out, seconds = result
        _check_out(out)  # refuse a bad return value before caching it
        results[t] = out
        if keys[t] is not None:
            cache.put(keys[t], out)
        timed[ids[t]] = float(seconds)
        bar.update(1)

    try:
        if not todo:
            pass
        elif executor == "serial" or (executor == "process" and len(todo) <= 1):
            for t in todo:
                interrupt.check()
                done(t, _timed_call(fn, *calls[t]))
        else:
            times = recorded_times(times_name, times_where) if times_name is not None else {}
            todo = longest_first(todo, ids, times)  # the largest task must not start last
            if executor == "process":
                _run_processes(fn, calls, todo, done, n_jobs)
            else:
                _run_dask(fn, calls, todo, priorities(todo, ids, times), done,
                          scheduler if scheduler is not None else ctx.scheduler)
    finally:
        bar.close()
        if times_name is not None:
            _record_times(times_name, times_where, timed)
    frames = [_rows(results[t], points[i], seeds[i]) for t, (i, _) in enumerate(tasks)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# ------------------------------------------------------------------------------ local processes
def _mp_context():
    """forkserver (POSIX) or spawn: a fresh interpreter, never a fork of a parent whose numba
    threading layer (OpenMP/TBB) already started threads, which breaks the pool."""
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        # the server imports these once; each worker is then a cheap fork of the (thread-free) server
        ctx.set_forkserver_preload(["__main__", "theorylab.core"])
        return ctx
    return multiprocessing.get_context("spawn")


def _check_picklable(fn, executor):
    if getattr(fn, "__module__", None) == "__main__" and not getattr(sys.modules.get("__main__"), "__file__", None):
        raise TypeError(f"executor={executor!r} needs fn defined in an importable module, not in an interactive "
                        f"__main__ (a notebook or python -c); got {fn!r}; use executor='serial' or move it to a module")
    if executor == "process":
        try:
            pickle.dumps(fn)
        except Exception as exc:  # noqa: BLE001 - pickle raises several types
            raise TypeError(f"executor='process' needs a module-level (picklable) sweep function; got {fn!r} "
                            f"({type(exc).__name__}: {exc})") from None


def _run_processes(fn, calls, todo, done, n_jobs):
    _check_picklable(fn, "process")
    workers = min(n_jobs or os.cpu_count() or 1, len(todo))
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=_mp_context())
    try:
        futs = {pool.submit(_timed_call, fn, *calls[t]): t for t in todo}  # FIFO: todo's order
        pending = set(futs)
        while pending:
            finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for fut in finished:
                done(futs[fut], fut.result())
            interrupt.check()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


# ------------------------------------------------------------------------------ dask
def _in_dask_task() -> bool:
    try:
        from distributed import get_worker
    except ImportError:
        return False
    try:
        get_worker()
    except ValueError:
        return False
    return True


def _run_dask(fn, calls, todo, prio, done, scheduler):
    from . import dask_backend

    _check_picklable(fn, "dask")
    if scheduler is None and _in_dask_task():
        from distributed import worker_client

        # a claim running as a task on a worker: submit its points to the same cluster;
        # worker_client secedes this task from the worker's thread pool while it waits
        with worker_client() as client:
            _map_dask(client, fn, calls, todo, prio, done)
        return
    if scheduler is None:
        scheduler = os.environ.get("THEORYLAB_DASK_SCHEDULER") or None
    if scheduler is None:
        raise ValueError("executor='dask' needs scheduler=ADDRESS (or a distributed.Client), a run with a "
                         "scheduler (theorylab --scheduler ADDRESS), or $THEORYLAB_DASK_SCHEDULER")
    _map_dask(dask_backend.client_for(scheduler), fn, calls, todo, prio, done)


def _map_dask(client, fn, calls, todo, prio, done):
    from distributed import as_completed as dask_completed

    # one task per point or batch, with its priority (see priorities): dask runs higher priorities first
    futs = [client.submit(_timed_call, fn, *calls[t], pure=False, priority=pr) for t, pr in zip(todo, prio)]
    index = {f.key: t for f, t in zip(futs, todo)}
    try:
        for fut in dask_completed(futs):
            done(index[fut.key], fut.result())
            interrupt.check()
    except BaseException:
        client.cancel(futs)
        raise
