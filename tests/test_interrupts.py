"""Ctrl-C / SIGTERM during a run (was part of the issue-14 audit).

* while a numba kernel runs (serial and ``parallel=True``): the run stops when the kernel returns,
  with :class:`~theorylab.core.interrupt.Interrupted` (exit 130 / 143), not an ``error`` row, and the
  next claim never starts; nothing is cached for the interrupted claim;
* a signal that numba's dispatcher hands back wrapped in a ``SystemError`` still interrupts;
* an interrupted run leaves later sweeps in the process working.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from theorylab.core import Cache, grid, sweep
from theorylab.core.checks import run_claim


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update({k: str(v) for k, v in extra.items()})
    return env


SIGNAL_SCRIPT = """
import sys

import numba
import numpy as np

from theorylab.core import Cache, Estimate, Paper
from theorylab.core.checks import Claim, run_claim
from theorylab.core.interrupt import Interrupted, handling_signals


@numba.njit
def busy(n):
    s = 0.0
    for i in range(n):
        s += np.sin(i * 1e-9)
    return s


@numba.njit(parallel=True)
def busy_parallel(n):
    s = 0.0
    for i in numba.prange(n):
        s += np.sin(i * 1e-9)
    return s


KERNEL = busy_parallel if sys.argv[2] == "parallel" else busy


def in_kernel(*, n, seed):
    print("KERNEL", flush=True)
    KERNEL(n)
    return Estimate(value=0.0, ci=(-1.0, 1.0), predicted=0.0)


def after(*, n, seed):
    print("SECOND CLAIM STARTED", flush=True)
    return Estimate(value=0.0, ci=(-1.0, 1.0), predicted=0.0)


if __name__ == "__main__":
    KERNEL(10)  # compiled (and the threading layer started) before the run
    paper = Paper(id="sigtest", title="t", authors="a")
    claims = [Claim(paper, "in_kernel", "s", "c", in_kernel, {"ci": {"n": int(sys.argv[3])}}),
              Claim(paper, "after", "s", "c", after, {"ci": {"n": 1}})]
    try:
        with handling_signals():
            rows = [run_claim(c, "ci", 0, cache=Cache(sys.argv[1])) for c in claims]
    except Interrupted as exc:
        print("INTERRUPTED", exc.signum, flush=True)
        sys.exit(exc.exit_code)
    print("ROWS", [(r.claim, r.verdict) for r in rows], flush=True)
"""


@pytest.mark.parametrize("kernel, signum, code", [("serial", signal.SIGINT, 130), ("parallel", signal.SIGTERM, 143)])
def test_a_signal_during_a_numba_kernel_interrupts_the_run_not_an_error_row(tmp_path, kernel, signum, code):
    script = tmp_path / "signal_in_kernel.py"
    script.write_text(textwrap.dedent(SIGNAL_SCRIPT))
    cache = tmp_path / "cache"
    # ~2 s of kernel on an idle 2-core machine (the parallel one gets more work per core): the signal
    # 0.3 s after it started lands while it runs
    n = 4 * 10**8 if kernel == "serial" else 2 * 10**8 * max(2, os.cpu_count() or 1)
    proc = subprocess.Popen([sys.executable, str(script), str(cache), kernel, str(n)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    t0 = time.monotonic()
    line = proc.stdout.readline()
    assert line.strip() == "KERNEL", (line, proc.stderr.read() if proc.poll() is not None else "")
    time.sleep(0.3)
    assert proc.poll() is None, "the kernel finished before the signal: make it longer"
    proc.send_signal(signum)
    t_sig = time.monotonic()
    try:
        rest, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the run did not stop within 60 s of the signal")
    assert proc.returncode == code, (rest, err)
    assert f"INTERRUPTED {int(signum)}" in rest
    assert "SECOND CLAIM STARTED" not in rest and "ROWS" not in rest  # was: an error row, then the next claim
    assert "SystemError" not in err
    assert not list(cache.rglob("*.pkl")), "nothing of the interrupted claim may be cached"
    assert time.monotonic() - t_sig < 60 and t_sig - t0 < 120


def _signal_surfacing_as_system_error(*, n, seed):
    """What numba's dispatcher can do with a signal that arrives while a kernel runs: the handler's
    exception comes back wrapped in a SystemError ("returned a result with an exception set")."""
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)  # the handler runs here
    except BaseException as exc:
        raise SystemError("<CPUDispatcher(kernel)> returned a result with an exception set") from exc
    raise AssertionError("the signal handler did not run")


@pytest.fixture
def clear_interrupt():
    """The signal recorded by an in-process test must not leak into later tests."""
    from theorylab.core import interrupt

    yield
    interrupt._REQUESTED.clear()


def test_a_signal_wrapped_in_a_system_error_still_interrupts_the_run(tmp_path, clear_interrupt):
    from theorylab.core import Paper
    from theorylab.core.checks import Claim
    from theorylab.core.interrupt import Interrupted, handling_signals

    c = Claim(Paper(id="sigwrap", title="t", authors="a"), "wrapped", "s", "c", _signal_surfacing_as_system_error,
              {"ci": {"n": 1}})
    store = Cache(tmp_path)
    with pytest.raises(Interrupted) as info, handling_signals():
        run_claim(c, "ci", 0, cache=store)  # was: an error row (SystemError), and the run moved on
    assert info.value.signum == signal.SIGINT and info.value.exit_code == 130
    assert not list(tmp_path.rglob("*.pkl"))


def _point(*, x, seed):
    return {"y": float(x) + 0.5}


def test_an_interrupted_run_does_not_poison_later_sweeps_in_the_process(clear_interrupt):
    from theorylab.core.interrupt import Interrupted, handling_signals

    with pytest.raises(Interrupted), handling_signals():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
    # later, outside any run: a notebook cell after a Ctrl-C'd `cli.main(["check", ...])`
    df = sweep(_point, grid(x=[1, 2]), seed=0)
    assert df["y"].tolist() == [1.5, 2.5]

