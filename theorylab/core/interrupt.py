"""Prompt, clean interruption of a run by SIGINT (Ctrl-C) or SIGTERM.

A signal arriving while a numba kernel runs cannot stop the kernel; Python sees it when the
kernel returns, and depending on where, the exception surfaces as ``KeyboardInterrupt`` or as a
``SystemError`` from numba's dispatcher.  So the handler installed by :func:`handling_signals`
records the signal first and then raises :class:`Interrupted`; :func:`theorylab.core.checks.run_claim`
asks :func:`requested` whatever the exception was, and turns the run into an
:class:`Interrupted` instead of an ``error`` row.  Nothing partial is recorded; what finished is
already in the cache (claims and sweep points), so a rerun resumes.  The CLI exits 128 + signal
number (130 for SIGINT, 143 for SIGTERM).
"""

from __future__ import annotations

import contextlib
import signal
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


def _handler(signum, frame):
    if not _REQUESTED:
        _REQUESTED.append(signum)
    raise Interrupted(signum)


@contextlib.contextmanager
def handling_signals(signals=(signal.SIGINT, signal.SIGTERM)):
    """Install the recording handler for the body (main thread only; elsewhere a no-op).

    The recorded signal is forgotten on exit, so later work in the same process (a notebook
    cell after an interrupted ``cli.main``) is not stopped by a signal that was already handled.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _REQUESTED.clear()
    old = {s: signal.signal(s, _handler) for s in signals}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        _REQUESTED.clear()
