"""Progress of a run: a tqdm bar on a terminal, plain lines otherwise (CI logs).

Used by the command line and by anything that runs claims with a progress hook
(:func:`~theorylab.core.context.using_run` passes sweep points to it).
"""

from __future__ import annotations

import sys
import time


class Progress:
    """Progress of a run: a tqdm bar on a terminal, plain lines otherwise (CI logs).

    Reports claims, the sweep points inside a claim (through the run context) and numba
    compilation (through numba's event API), so a first run never sits silent.
    """

    def __init__(self, total, desc, enabled=True, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = enabled and self.stream.isatty()
        self.total, self.desc, self.done = total, desc, 0
        self.bar = None
        self._last_line = 0.0
        self._compiling = set()
        if self.tty:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=desc, leave=False, file=self.stream)
        self._listener = self._install_numba_listener() if enabled else None

    def _line(self, text):
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def _install_numba_listener(self):
        try:
            from numba.core import event
        except ImportError:  # pragma: no cover - numba is a dependency
            return None
        progress = self

        class _Compile(event.Listener):
            def on_start(self, ev):
                name = getattr(ev.data.get("dispatcher"), "__qualname__", None) if isinstance(ev.data, dict) else None
                name = name or "a kernel"
                if name not in progress._compiling:
                    progress._compiling.add(name)
                    progress._line(f"  compiling {name} (numba, first run; cached afterwards)")

            def on_end(self, ev):
                pass

        listener = _Compile()
        event.register("numba:compile", listener)
        return listener

    def start(self, what):
        if self.bar is not None:
            self.bar.set_postfix_str(what)
        elif self.enabled:
            self._line(f"[{self.done + 1}/{self.total}] {self.desc}: {what} ...")

    def finish(self, what, detail=""):
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.enabled:
            self._line(f"[{self.done}/{self.total}] {self.desc}: {what} {detail}".rstrip())

    def __call__(self, event, **info):
        """The run context's progress hook: ``progress("sweep_point", done=i, total=n, desc=...)``."""
        if not self.enabled or event != "sweep_point":
            return
        done, total = info.get("done", 0), info.get("total", 0)
        text = f"{info.get('desc', 'sweep')} point {done}/{total}"
        if self.bar is not None:
            self.bar.set_postfix_str(text)
        elif time.monotonic() - self._last_line > 5 or done == total:
            self._last_line = time.monotonic()
            self._line(f"    {text}")

    def close(self):
        if self.bar is not None:
            self.bar.close()
        if self._listener is not None:
            from numba.core import event

            event.unregister("numba:compile", self._listener)
            self._listener = None
