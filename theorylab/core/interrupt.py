"""Prompt, clean interruption of a run by SIGINT (Ctrl-C) or SIGTERM.

A signal arriving while a numba kernel runs cannot stop the kernel; Python sees it at the next
Python bytecode the main thread runs.  That is usually back in the caller, once the kernel has
returned, but it can also be *inside* the compiled call: numba's wrapper calls back into Python
(``numba.core.serialize._numba_unpickle``) for the Python type of every array it returns (numba's
``PythonAPI.nrt_adapt_ndarray_to_python``, which does not check the result), and its
dispatcher calls Python to type unusual arguments.  An exception raised there is not expected by
the compiled code: the array is boxed with a NULL type and the process dies with SIGSEGV, or the
call ends in a ``SystemError`` ("returned a result with an exception set").  So the handler
installed by :func:`handling_signals` records the signal first and raises :class:`Interrupted`
only in a frame that is not numba's own; in numba's frames it defers and re-sends the signal to
the main thread shortly after (every ``_RETRY_S``) until it lands in an ordinary Python frame,
i.e. once the kernel has returned.  Long kernels are called in bounded chunks
(:func:`chunked`), so that "once the kernel has returned" is within about a second.

:func:`theorylab.core.checks.run_claim` asks :func:`requested` whatever the exception was, and
turns the run into an :class:`Interrupted` instead of an ``error`` row.  Nothing partial is
recorded; what finished is already in the cache (claims and sweep points), so a rerun resumes.
The CLI exits 128 + signal number (130 for SIGINT, 143 for SIGTERM).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading


class Interrupted(BaseException):
    """The run was stopped by a signal; ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.signum = int(signum)

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


_REQUESTED: list[int] = []


def requested() -> int | None:
    """The signal number received during the current run, or None."""
    return _REQUESTED[0] if _REQUESTED else None


def check() -> None:
    """Raise :class:`Interrupted` if a signal was received (call between units of work)."""
    if _REQUESTED:
        raise Interrupted(_REQUESTED[0])


_RETRY_S = 0.005
#: Seconds between the progress lines of a long chunked call (:func:`chunks` with ``desc``).
PROGRESS_EVERY_S = 5.0
_ACTIVE: list[bool] = []     # [True] while handling_signals' body runs
_RAISED: list[bool] = []     # [True] once Interrupted was raised for the recorded signal
_RETRY: list[threading.Timer] = []
_NUMBA_DIR = None


def _in_numba(frame) -> bool:
    """Whether ``frame`` (where the handler runs) is numba's own code: possibly a callback from a
    compiled function or from the dispatcher, where an exception is not safe."""
    global _NUMBA_DIR
    if frame is None:
        return False
    if _NUMBA_DIR is None:
        numba = sys.modules.get("numba")
        if numba is None:  # not imported yet: no frame can be numba's
            return False
        _NUMBA_DIR = os.path.dirname(numba.__file__) + os.sep
    return frame.f_code.co_filename.startswith(_NUMBA_DIR)


def _redeliver(signum):
    if _ACTIVE and not _RAISED:
        signal.pthread_kill(threading.main_thread().ident, signum)


def _handler(signum, frame):
    if not _REQUESTED:
        _REQUESTED.append(signum)
    if _in_numba(frame):  # inside a compiled call: raise later, in the caller's frame
        if not any(t.is_alive() for t in _RETRY):
            _RETRY[:] = [threading.Timer(_RETRY_S, _redeliver, (signum,))]
            _RETRY[0].daemon = True
            _RETRY[0].start()
        return
    _RAISED[:] = [True]
    raise Interrupted(signum)


@contextlib.contextmanager
def handling_signals(signals=(signal.SIGINT, signal.SIGTERM)):
    """Install the recording handler for the body (main thread only; elsewhere a no-op).

    A signal whose exception was deferred (it arrived inside a compiled call) and not yet raised
    when the body ends is raised at its end, so a body that finished after a signal still stops,
    and one that failed meanwhile reports the interruption rather than its error.

    The recorded signal is forgotten on exit, so later work in the same process (a notebook
    cell after an interrupted ``cli.main``) is not stopped by a signal that was already handled.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _REQUESTED.clear()
    _RAISED.clear()
    old = {s: signal.signal(s, _handler) for s in signals}
    _ACTIVE[:] = [True]
    try:
        yield
    except Exception as exc:  # what a signal deferred in a kernel call left behind (e.g. a SystemError)
        if _REQUESTED and not _RAISED:
            raise Interrupted(_REQUESTED[0]) from exc
        raise
    else:
        if _REQUESTED and not _RAISED:  # deferred in a kernel call, and the body ended before it was re-sent
            raise Interrupted(_REQUESTED[0])
    finally:
        _ACTIVE.clear()
        for t in _RETRY:
            t.cancel()
        _RETRY.clear()
        for s, h in old.items():
            signal.signal(s, h)
        _REQUESTED.clear()
        _RAISED.clear()


def chunks(n: int, work_per_item: float = 1.0, *, target: float = 2e7, desc: str | None = None,
           at_least: int | None = None):
    """Slices of ``range(n)`` each worth about ``target`` units of kernel work (at least one item),
    with :func:`check` before each: call a long kernel once per slice, so that a signal stops the
    run within about a second (``target`` 2e7 inner steps) instead of at the end of the whole call.
    Kernels that draw per item from ``spawn_seeds`` give the same numbers chunked or not.  A chunk
    holds at least ``at_least`` items (default: numba's thread count, so that a ``prange`` over the
    items keeps every thread busy).

    With ``desc``, a call that has run 5 s reports its progress every 5 s: to the run's progress
    hook (``theorylab check`` prints it) as ``progress("sweep_point", done, total, desc)``, or
    outside a run as a line on stderr, with the time it expects to still need."""
    import time

    n = int(n)
    if at_least is None:
        import numba

        at_least = numba.get_num_threads()
    size = max(1, int(at_least), int(target // max(float(work_per_item), 1.0)))
    total = -(-n // size)
    t0 = last = time.monotonic()
    for i, start in enumerate(range(0, n, size)):
        check()
        now = time.monotonic()
        if desc is not None and i and now - last >= PROGRESS_EVERY_S:
            last = now
            from .context import current_run

            hook = current_run().progress
            if hook is not None:
                hook("sweep_point", done=i, total=total, desc=desc)
            else:
                left = (now - t0) / i * (total - i)
                print(f"  {desc}: {i}/{total} chunks, {now - t0:.0f} s, ~{left:.0f} s left", file=sys.stderr,
                      flush=True)
        yield slice(start, min(n, start + size))
