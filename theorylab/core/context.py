"""The run context: what the command line (or a test) chose for the claim now running.

:func:`theorylab.core.checks.run_claim` enters :func:`using_run` around a claim function, so
that code deep inside a validation (chiefly :func:`theorylab.core.sweep.sweep`) can find the
cache to store each sweep point in, the executor and dask scheduler to send points to, and the
progress reporter, without every claim threading them through its arguments.  Outside a run
(a notebook calling a simulator) :func:`current_run` returns the defaults: no cache, serial.
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, replace
from typing import Callable


@dataclass(frozen=True)
class RunContext:
    """Settings of the run in progress.

    ``claim_key``: ``"paper:claim"`` of the claim running (names its sweeps in the cache);
    ``cache``: a :class:`~theorylab.core.cache.Cache` or None; ``executor``: ``"serial"``,
    ``"process"`` or ``"dask"``; ``scheduler``: a dask address or Client (with ``"dask"``);
    ``progress``: a callable ``progress(event: str, **info)`` or None; ``force``: recompute
    everything computed before this run (claims, experiments, sweep points; ``--force``);
    ``memo``: False (``--no-cache``) forbids the in-process memo of experiments too;
    ``run_id``: names this run, so that under ``force`` what it computed is reused within it;
    ``point_times``: a folder where sweeps record and read their tasks' times (for the longest-first
    order), or None: the cache's ``point-times/`` folder, or only this process without a cache.
    """

    claim_key: str | None = None
    cache: object | None = None
    executor: str = "serial"
    scheduler: object | None = None
    progress: Callable | None = None
    force: bool = False
    memo: bool = True
    run_id: str | None = None
    point_times: object | None = None


_CURRENT: contextvars.ContextVar[RunContext] = contextvars.ContextVar("theorylab_run", default=RunContext())


def current_run() -> RunContext:
    """The settings of the run in progress (defaults outside a run)."""
    return _CURRENT.get()


@contextlib.contextmanager
def using_run(**changes):
    """Run the body with the current context's fields replaced by ``changes``, and BLAS on one thread
    (:func:`theorylab.core.parallel.blas_threads`: runs parallelise over paths and points, not in BLAS)."""
    from .parallel import blas_threads

    token = _CURRENT.set(replace(_CURRENT.get(), **changes))
    try:
        with blas_threads():
            yield _CURRENT.get()
    finally:
        _CURRENT.reset(token)
