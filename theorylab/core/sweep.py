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
* Order: each computed point's time is recorded (in the process, and in the run's cache folder
  under ``point-times/``); the process and dask executors submit the points longest-first by
  those recorded times (points never timed first, in grid order), so that the largest point does
  not start last and leave the other workers idle (longest-processing-time-first).  Seeds depend
  only on the point, so the order changes no number.
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


def _timed_call(fn, point, seed):
    """``(fn's output, seconds)``: the point's own compute time, measured where it runs."""
    t0 = time.perf_counter()
    out = fn(seed=seed, **point)
    return out, time.perf_counter() - t0


# ------------------------------------------------------------------------------ recorded point times
_TIMES: dict[str, dict[str, float]] = {}


def _point_id(point) -> str:
    return json.dumps(_canonical(point), sort_keys=True, default=repr)


def _times_path(cache, name):
    return cache.root / "point-times" / f"{hashlib.sha256(name.encode()).hexdigest()[:32]}.json"


def recorded_times(name, cache=None) -> dict[str, float]:
    """Seconds per point (by its canonical JSON) recorded for the sweep ``name``, in this process or in
    ``cache``'s folder."""
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
          cache_key: str | None = None, progress=None, desc="sweep") -> pd.DataFrame:
    """Run ``fn(seed=<point seed>, **point)`` over ``points``; one DataFrame.

    Each point's seed depends only on the point and ``seed``, so the numbers do not depend on the
    executor, the order or the number of workers; each finished point is cached (and a killed run
    resumes per point).  Rows come in the order of ``points`` whatever the executor.

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
    times_name = cache_key
    cache, cache_key = _cache_settings(fn, cache, cache_key, ctx)
    times_name = cache_key or times_name or _sweep_name(fn, ctx)
    seeds = [_point_seed(seed, p) for p in points]
    module = getattr(fn, "__module__", None)
    keys = [cache.key("sweep", cache_key, p, s, module=module) if cache is not None else None
            for p, s in zip(points, seeds)]
    results: dict[int, object] = {}
    todo = []
    for i, k in enumerate(keys):
        hit = cache.get(k) if k is not None and not ctx.force else None
        if hit is not None:
            results[i] = hit
        else:
            todo.append(i)
    bar = _Progress(progress, ctx, len(points), desc)
    if len(todo) < len(points):
        bar.update(len(points) - len(todo))
    ids = [_point_id(p) for p in points]
    timed: dict[str, float] = {}

    def done(i, result):
        out, seconds = result
        _check_out(out)  # refuse a bad return value before caching it
        results[i] = out
        if keys[i] is not None:
            cache.put(keys[i], out)
        timed[ids[i]] = float(seconds)
        bar.update(1)

    try:
        if not todo:
            pass
        elif executor == "serial" or (executor == "process" and len(todo) <= 1):
            for i in todo:
                interrupt.check()
                done(i, _timed_call(fn, points[i], seeds[i]))
        else:
            if times_name is not None:  # longest first: the largest point must not start last
                todo = longest_first(todo, ids, recorded_times(times_name, cache))
            if executor == "process":
                _run_processes(fn, points, seeds, todo, done, n_jobs)
            else:
                _run_dask(fn, points, seeds, todo, done, scheduler if scheduler is not None else ctx.scheduler)
    finally:
        bar.close()
        if times_name is not None:
            _record_times(times_name, cache, timed)
    frames = [_rows(results[i], points[i], seeds[i]) for i in range(len(points))]
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


def _run_processes(fn, points, seeds, todo, done, n_jobs):
    _check_picklable(fn, "process")
    workers = min(n_jobs or os.cpu_count() or 1, len(todo))
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=_mp_context())
    try:
        futs = {pool.submit(_timed_call, fn, points[i], seeds[i]): i for i in todo}  # FIFO: todo's order
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


def _run_dask(fn, points, seeds, todo, done, scheduler):
    from . import dask_backend

    _check_picklable(fn, "dask")
    if scheduler is None and _in_dask_task():
        from distributed import worker_client

        # a claim running as a task on a worker: submit its points to the same cluster;
        # worker_client secedes this task from the worker's thread pool while it waits
        with worker_client() as client:
            _map_dask(client, fn, points, seeds, todo, done)
        return
    if scheduler is None:
        scheduler = os.environ.get("THEORYLAB_DASK_SCHEDULER") or None
    if scheduler is None:
        raise ValueError("executor='dask' needs scheduler=ADDRESS (or a distributed.Client), a run with a "
                         "scheduler (theorylab --scheduler ADDRESS), or $THEORYLAB_DASK_SCHEDULER")
    _map_dask(dask_backend.client_for(scheduler), fn, points, seeds, todo, done)


def _map_dask(client, fn, points, seeds, todo, done):
    from distributed import as_completed as dask_completed

    # one task per point, prioritised in todo's order (longest first): dask runs higher priorities first
    futs = [client.submit(_timed_call, fn, points[i], seeds[i], pure=False, priority=len(todo) - rank)
            for rank, i in enumerate(todo)]
    index = {f.key: i for f, i in zip(futs, todo)}
    try:
        for fut in dask_completed(futs):
            done(index[fut.key], fut.result())
            interrupt.check()
    except BaseException:
        client.cancel(futs)
        raise
