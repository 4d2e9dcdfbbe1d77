"""Audit of issue 14 (runs and inputs): the defects the existing tests cover only indirectly.

* Ctrl-C / SIGTERM while a numba kernel runs (serial and ``parallel=True``): the run stops when the
  kernel returns, with :class:`~theorylab.core.interrupt.Interrupted` (exit 130 / 143), not an
  ``error`` row, and the next claim never starts; nothing is cached for the interrupted claim.
* Resume per sweep point through :func:`~theorylab.core.checks.run_claim` (the CLI's entry), both
  for a real validation (rr_sgd's cos sweep: only the missing points are recomputed) and for a
  run killed by SIGKILL in the middle of a claim.
* ``$THEORYLAB_DASK_SCHEDULER`` on the command line: a dead address fails fast naming it.
* ``figures`` and ``calibrate`` without a paper refuse and point to ``--all``.
* A corrupt or malformed record among the *committed* results (not only the user's outputs) stops
  ``report`` naming the file; a truncated or foreign cache file is reported and recomputed, also
  for a sweep point.
* The README's user commands (check, figures at ci scale, report) leave results/, figures/ and
  paper_checks.md of the checkout untouched.
"""

import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

from theorylab import cli
from theorylab.core import Cache, clear_experiments, grid, sweep, using_run
from theorylab.core.cache import CacheWarning
from theorylab.core.checks import discover, run_claim

FAST = "rr_sgd:rr_leading_level"  # its cos sweep has 8 points at ci scale (i_max = 7)


@pytest.fixture
def out(tmp_path, monkeypatch):
    monkeypatch.setenv("THEORYLAB_OUT", str(tmp_path / "out"))
    return tmp_path / "out"


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update({k: str(v) for k, v in extra.items()})
    return env


# ------------------------------------------------------------------------------ a signal inside a numba kernel
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


def test_an_interrupted_run_does_not_poison_later_sweeps_in_the_process(clear_interrupt):
    from theorylab.core.interrupt import Interrupted, handling_signals

    with pytest.raises(Interrupted), handling_signals():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
    # later, outside any run: a notebook cell after a Ctrl-C'd `cli.main(["check", ...])`
    df = sweep(_point, grid(x=[1, 2]), seed=0)
    assert df["y"].tolist() == [1.5, 2.5]


# ------------------------------------------------------------------------------ resume per point, real claim
def test_a_real_claim_stores_its_sweep_points_and_recomputes_only_missing_ones(monkeypatch,
                                                                                rerun_after_losing_points):
    import theorylab.validations.rr_sgd as V

    c = discover().claims[FAST]
    calls = []
    real_run_pair = V.run_pair

    def counting_run_pair(*args, **kwargs):
        calls.append(kwargs.get("n"))
        return real_run_pair(*args, **kwargs)

    monkeypatch.setattr(V, "run_pair", counting_run_pair)
    # the claim entry lost (a kill after the last point, before the claim was stored) and three
    # points lost (in flight); reset: the in-process memo of the sweep, so the claim really runs it
    first, again, first_calls = rerun_after_losing_points(c, 7, calls, slice(None, 9, 3),
                                                          reset=clear_experiments)
    assert len(first_calls) == c.params("ci")["i_max"] + 1  # one entry per sweep point
    assert again.measured_value == first.measured_value


KILL_POINTS = """
import os, signal, uuid
from pathlib import Path

def point(*, x, seed):
    (Path(os.environ["CALLS"]) / f"{x}-{uuid.uuid4().hex}").touch()
    if os.environ.get("KILL_AT") == str(x):
        os.kill(os.getpid(), signal.SIGKILL)  # the run dies in the middle of the claim
    return {"y": x * 10 + seed % 7}
"""

KILL_SCRIPT = """
import sys

from theorylab.core import Cache, Estimate, Paper, grid, sweep
from theorylab.core.checks import Claim, run_claim
from kill_points import point


def summed(*, n_points, seed):
    df = sweep(point, grid(x=list(range(n_points))), seed=seed)
    v = float(df["y"].sum())
    return Estimate(value=v, ci=(v - 1.0, v + 1.0), predicted=v)


if __name__ == "__main__":
    c = Claim(Paper(id="killtest", title="t", authors="a"), "summed", "s", "c", summed,
              {"ci": {"n_points": 8}})
    r = run_claim(c, "ci", 3, cache=Cache(sys.argv[1]))
    print(r.verdict, r.measured_value)
"""


def test_sigkill_inside_a_claim_resumes_from_its_points_through_run_claim(tmp_path):
    (tmp_path / "kill_points.py").write_text(textwrap.dedent(KILL_POINTS))
    script = tmp_path / "kill_claim.py"
    script.write_text(textwrap.dedent(KILL_SCRIPT))

    def run(cache, calls, **extra):
        calls.mkdir()
        return subprocess.run([sys.executable, str(script), str(cache)], capture_output=True, text=True, timeout=120,
                              env=_env(PYTHONPATH=tmp_path, CALLS=calls, **extra))

    killed = run(tmp_path / "cache", tmp_path / "calls1", KILL_AT=5)
    assert killed.returncode == -signal.SIGKILL
    assert len(list((tmp_path / "cache").rglob("*.pkl"))) == 5  # points 0..4, no claim entry
    resumed = run(tmp_path / "cache", tmp_path / "calls2")
    assert resumed.returncode == 0, resumed.stderr
    assert sorted(int(p.name.split("-")[0]) for p in (tmp_path / "calls2").iterdir()) == [5, 6, 7]
    fresh = run(tmp_path / "fresh", tmp_path / "calls3")
    assert resumed.stdout == fresh.stdout and resumed.stdout.startswith("reproduced")


# ------------------------------------------------------------------------------ command line
def test_the_scheduler_from_the_environment_fails_fast_naming_it(out, capsys, monkeypatch):
    monkeypatch.setenv("THEORYLAB_DASK_SCHEDULER", "tcp://127.0.0.1:1")
    t0 = time.monotonic()
    assert cli.main(["check", FAST, "--no-progress", "--no-record"]) == 2
    assert time.monotonic() - t0 < 15 and "tcp://127.0.0.1:1" in capsys.readouterr().err


def test_figures_calibrate_and_report_with_a_dead_scheduler_do_not_silently_run_locally(out, capsys, tmp_path,
                                                                                          monkeypatch):
    dead = ["--scheduler", "tcp://127.0.0.1:1"]
    assert cli.main(["figures", "rr_sgd:rescaled_error", "--scale", "ci", "--no-progress", *dead]) == 2
    assert "scheduler" in capsys.readouterr().err.lower()
    assert cli.main(["calibrate", "highway_bp", "--seeds", "2", "--no-progress", *dead]) == 2
    assert "tcp://127.0.0.1:1" in capsys.readouterr().err
    monkeypatch.setenv("THEORYLAB_ROOT", str(tmp_path))  # no committed record: report must run the claims
    assert cli.main(["report", "highway_bp", "--no-progress", "--no-cache", *dead]) == 2
    assert "tcp://127.0.0.1:1" in capsys.readouterr().err


def test_calibration_on_a_cluster_equals_the_local_one():
    distributed = pytest.importorskip("distributed")
    from theorylab.core.calibrate import calibrate_paper

    local, _ = calibrate_paper("highway_bp", [1, 2], claims=["exact_last_k_layers"])
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as lc, distributed.Client(lc) as client:
        on_dask, runs = calibrate_paper("highway_bp", [1, 2], claims=["exact_last_k_layers"], scheduler=client)
        ran = [str(t[0]) for t in lc.scheduler.transition_log if str(t[0]).startswith("claim-highway_bp")]
    assert ran and len(runs) == 2
    pd.testing.assert_frame_equal(local, on_dask)


def test_figures_and_calibrate_without_a_paper_refuse_pointing_to_all(capsys):
    for argv in (["figures", "--no-progress"], ["figures", "--scale", "ci", "--no-progress"],
                 ["calibrate", "--seeds", "2", "--no-progress"]):
        assert cli.main(argv) == 2, argv
        assert "--all" in capsys.readouterr().err, argv


@pytest.mark.parametrize("content", ["{not json", "[]", '{"results": [{"claim": "x"}]}', ""])
def test_a_corrupt_committed_record_stops_report_naming_the_file(tmp_path, monkeypatch, out, capsys, content):
    root = tmp_path / "checkout"
    (root / "results").mkdir(parents=True)
    bad = root / "results" / "rr_sgd.full.json"
    bad.write_text(content)
    monkeypatch.setenv("THEORYLAB_ROOT", str(root))  # the committed results/ of a checkout
    assert cli.main(["report", "rr_sgd", "--no-progress"]) == 2
    assert str(bad) in capsys.readouterr().err
    import theorylab
    with pytest.raises(ValueError, match=re.escape(str(bad))):
        theorylab.results(paper="rr_sgd", source="committed")


def test_truncated_and_foreign_cache_files_are_reported_and_recomputed(tmp_path):
    store = Cache(tmp_path)
    key, other = store.key("a", 1), store.key("a", 2)
    store.put(key, {"v": 1})
    blob = store.path(key).read_bytes()
    store.path(key).write_bytes(blob[:-3])  # truncated
    with pytest.warns(CacheWarning, match=f"{store.path(key)}.*checksum"):
        assert store.get(key) is None
    assert not store.path(key).exists()  # removed, so the next run rewrites it
    store.path(key).write_bytes(b"not a cache entry")
    with pytest.warns(CacheWarning, match="no theorylab cache header"):
        assert store.get(key) is None
    store.put(other, {"v": 2})
    store.path(key).write_bytes(store.path(other).read_bytes())  # moved between keys
    with pytest.warns(CacheWarning, match="not its own"):
        assert store.get(key) is None


def _point(*, x, seed):
    return {"y": float(x) + 0.5}


def test_an_edited_sweep_point_is_recomputed_not_served(tmp_path):
    import pickle

    from theorylab.core.cache import MAGIC

    store = Cache(tmp_path)
    with using_run(claim_key="audit:points", cache=store):
        first = sweep(_point, grid(x=[1, 2]), seed=0)
    key = store.key("sweep", f"audit:points:{_point.__module__}._point", {"x": 1}, first["seed"].iloc[0],
                    module=_point.__module__)
    blob = store.path(key).read_bytes()
    assert blob.startswith(MAGIC) and pickle.loads(blob.split(b"\n", 2)[2]) == {"y": 1.5}
    head = blob.split(b"\n", 2)[1]
    store.path(key).write_bytes(MAGIC + head + b"\n" + pickle.dumps({"y": 99.0}))  # a hand-edited value
    with using_run(claim_key="audit:points", cache=store), pytest.warns(CacheWarning, match="checksum"):
        again = sweep(_point, grid(x=[1, 2]), seed=0)
    pd.testing.assert_frame_equal(first, again)
    assert pickle.loads(store.path(key).read_bytes().split(b"\n", 2)[2]) == {"y": 1.5}  # rewritten


def test_user_commands_leave_the_committed_outputs_alone(out, capsys, cache):
    from theorylab.core.paths import figures_dir, ledger_path, results_dir

    def snapshot():
        files = [ledger_path(), *results_dir().rglob("*"), *figures_dir().rglob("*")]
        return {p: p.stat().st_mtime_ns for p in files if p.is_file()}

    before = snapshot()
    figs = discover().figures_of("rr_sgd")
    assert cli.main(["check", FAST, "--no-progress"]) == 0
    assert cli.main(["figures", f"rr_sgd:{figs[0].name}", "--scale", "ci", "--no-progress"]) == 0
    assert cli.main(["report", "rr_sgd", "--no-progress"]) in (0, 1)
    assert snapshot() == before
    assert (out / "figures" / "rr_sgd" / f"{figs[0].name}.ci.png").exists()
    assert (out / "results" / "rr_sgd.ci.json").exists() and (out / "paper_checks.md").exists()
