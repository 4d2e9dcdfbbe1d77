"""Parameter sweeps: a grid of keyword arguments mapped to a tidy pandas DataFrame.

``sweep(fn, grid(gamma=[0.1, 0.05], n=[1000]), seed=0)`` calls
``fn(gamma=..., n=..., seed=<child seed>)`` at every grid point and stacks the returned rows
(a dict, a list of dicts or a DataFrame) with the grid parameters and the seed as columns.

* Seeds: each point's seed is ``child_seed(seed, <canonical params>)``: it depends on the
  point, not on its position in the grid or on the executor, so results are identical
  serially, in processes or on a dask cluster.
* Executors: ``"process"`` (default, or ``$THEORYLAB_EXECUTOR``; local processes, all cores), ``"serial"``, or
  ``"dask"`` (``pip install theorylab[dask]``; the scheduler address comes from
  ``scheduler=`` or ``$THEORYLAB_DASK_SCHEDULER``; a ``distributed.Client`` may be passed).
* Cache: with ``cache=Cache(...)`` and a ``cache_key`` naming the sweep, each finished point
  is stored atomically, so an interrupted sweep resumes where it stopped.
* Progress: a tqdm bar over points (``progress=False`` to silence it).
"""

from __future__ import annotations

import itertools
import json
import os
from concurrent.futures import ProcessPoolExecutor, as_completed

import pandas as pd

from .cache import _canonical
from .seeding import child_seed
from .validate import check_choice

EXECUTORS = ("serial", "process", "dask")


def grid(**axes) -> list[dict]:
    """The Cartesian product of the given value lists, as a list of keyword dicts."""
    for name, values in axes.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError(f"grid axis {name} must be a list of values; got {values!r}")
    names = list(axes)
    return [dict(zip(names, combo)) for combo in itertools.product(*(list(axes[n]) for n in names))]


def _point_seed(seed, point):
    return child_seed(seed, json.dumps(_canonical(point), sort_keys=True))


def _rows(out, point, seed) -> pd.DataFrame:
    if isinstance(out, pd.DataFrame):
        df = out.copy()
    elif isinstance(out, dict):
        df = pd.DataFrame([out])
    elif isinstance(out, list):
        df = pd.DataFrame(out)
    else:
        raise TypeError(f"a sweep function must return a dict, list of dicts or DataFrame; got {type(out).__name__}")
    for k, v in point.items():
        if k not in df.columns:
            df[k] = [v] * len(df)
    df["seed"] = seed
    return df


def _call(fn, point, seed):
    return fn(seed=seed, **point)


def _progress(total, desc, enabled):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is a dependency, but keep sweeps usable without it
        return None
    return tqdm(total=total, desc=desc, leave=False)


def sweep(fn, points, *, seed=0, executor=None, n_jobs=None, scheduler=None, cache=None,
          cache_key=None, progress=True, desc="sweep") -> pd.DataFrame:
    """Run ``fn`` over ``points`` (from :func:`grid`) and return one DataFrame."""
    executor = executor or os.environ.get("THEORYLAB_EXECUTOR", "process")
    check_choice("executor", executor, EXECUTORS)
    points = [dict(p) for p in points]
    seeds = [_point_seed(seed, p) for p in points]
    keys = [cache.key("sweep", cache_key, p, s, module=getattr(fn, "__module__", None)) if cache is not None and cache_key
            else None for p, s in zip(points, seeds)]
    results: dict[int, object] = {}
    todo = []
    for i, k in enumerate(keys):
        hit = cache.get(k) if k is not None else None
        if hit is not None:
            results[i] = hit
        else:
            todo.append(i)
    bar = _progress(len(points), desc, progress)
    if bar is not None:
        bar.update(len(points) - len(todo))

    def done(i, out):
        results[i] = out
        if keys[i] is not None:
            cache.put(keys[i], out)
        if bar is not None:
            bar.update(1)

    if executor == "serial" or len(todo) <= 1:
        for i in todo:
            done(i, _call(fn, points[i], seeds[i]))
    elif executor == "process":
        workers = n_jobs or os.cpu_count() or 1
        with ProcessPoolExecutor(max_workers=min(workers, len(todo))) as pool:
            futs = {pool.submit(_call, fn, points[i], seeds[i]): i for i in todo}
            for fut in as_completed(futs):
                done(futs[fut], fut.result())
    else:
        client, own = _dask_client(scheduler)
        try:
            futs = client.map(_call, [fn] * len(todo), [points[i] for i in todo], [seeds[i] for i in todo], pure=False)
            index = {f.key: i for f, i in zip(futs, todo)}
            from distributed import as_completed as dask_completed
            for fut in dask_completed(futs):
                done(index[fut.key], fut.result())
        finally:
            if own:
                client.close()
    if bar is not None:
        bar.close()
    frames = [_rows(results[i], points[i], seeds[i]) for i in range(len(points))]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _dask_client(scheduler):
    try:
        from distributed import Client
    except ImportError as exc:
        raise ImportError("executor='dask' needs dask.distributed: pip install 'theorylab[dask]'") from exc
    if scheduler is not None and not isinstance(scheduler, str):
        return scheduler, False  # an existing Client
    address = scheduler or os.environ.get("THEORYLAB_DASK_SCHEDULER")
    if not address:
        raise ValueError("executor='dask' needs scheduler=ADDRESS (or a Client), or $THEORYLAB_DASK_SCHEDULER")
    return Client(address), True
