"""core.experiment (issue 29) and what --force / --no-cache mean at every level (issue 30, defect 3).

A shared experiment is memoised in-process and cached on disk under its paper, name, arguments and code
fingerprint; its sweep points are keyed by the experiment, so two claims of one stream compute it once, also
in two processes.  ``--no-cache`` reads and writes neither the disk nor the memo (also on a long-lived dask
worker); ``--force`` recomputes claims, experiments and sweep points computed before the run, and reuses
within the run what it computed.
"""

import os
import subprocess
import sys

import pytest

from theorylab.core import (Cache, Estimate, Paper, clear_experiments, experiment, grid, run_claim, sweep,
                            using_run)
from theorylab.core.checks import Claim
from theorylab.core.seeding import child_seed
from theorylab.core.experiment import ExperimentEntry

PAPER = Paper(id="experimenttest", title="t", authors="a")
CALLS = []


def point(*, x, seed):
    CALLS.append(x)
    return {"y": x * 10 + seed % 7}


@experiment(PAPER)
def shared(n_points, seed):
    return sweep(point, grid(x=list(range(n_points))), seed=seed, progress=False)


def level(*, n_points, seed):
    v = float(shared(n_points, seed)["y"].sum())
    return Estimate(value=v, ci=(v - 1.0, v + 1.0), predicted=v)


def top(*, n_points, seed):
    v = float(shared(n_points, seed)["y"].max())
    return Estimate(value=v, ci=(v - 1.0, v + 1.0), predicted=v)


def _claim(cid, func):  # one stream: both claims get the same seed
    return Claim(PAPER, cid, "s", "c", func, {"ci": {"n_points": 4}, "full": {"n_points": 4}}, stream="one")


@pytest.fixture(autouse=True)
def fresh():
    clear_experiments()
    CALLS.clear()
    yield
    clear_experiments()


def test_two_claims_of_one_stream_compute_their_experiment_once(tmp_path):
    cache = Cache(tmp_path / "c")
    a, b = run_claim(_claim("level", level), "ci", 3, cache=cache), run_claim(_claim("top", top), "ci", 3, cache=cache)
    assert a.verdict == b.verdict == "reproduced" and CALLS == [0, 1, 2, 3]
    # another process: the memo is gone, the disk entry serves it (no point recomputed)
    clear_experiments()
    c = run_claim(_claim("top", top), "ci", 3, cache=cache, force=False, overrides={"n_points": 4})
    assert CALLS == [0, 1, 2, 3] and c.measured_value == b.measured_value
    entries = [cache.get(p.stem) for p in cache.root.rglob("*.pkl")]
    assert sum(isinstance(e, ExperimentEntry) for e in entries) == 1
    # a lost experiment entry: its points, keyed by the experiment, are served
    clear_experiments()
    for p in cache.root.rglob("*.pkl"):
        p.unlink() if isinstance(cache.get(p.stem), ExperimentEntry) else None
    with using_run(cache=cache, claim_key="experimenttest:other"):
        shared(4, _claim("top", top).seed(3, "ci"))  # the stream's seed at this scale
    assert CALLS == [0, 1, 2, 3]


def test_no_cache_uses_neither_disk_nor_memo(tmp_path):
    shared(3, 1)
    assert CALLS == [0, 1, 2]
    shared(3, 1)
    assert CALLS == [0, 1, 2]  # outside a run: memoised
    with using_run(memo=False):  # --no-cache
        shared(3, 1)
        shared(3, 1)
    assert CALLS == [0, 1, 2] * 3


def test_force_recomputes_every_level_once_per_run(tmp_path):
    cache = Cache(tmp_path / "c")
    first = run_claim(_claim("level", level), "ci", 3, cache=cache)
    assert CALLS == [0, 1, 2, 3]
    with using_run(force=True, run_id="run-1"):  # `theorylab check --force` over two claims of the stream
        again = run_claim(_claim("level", level), "ci", 3, cache=cache)
        run_claim(_claim("top", top), "ci", 3, cache=cache)
    assert CALLS == [0, 1, 2, 3] * 2  # claim, experiment (memo and disk) and points recomputed, once
    assert again.measured_value == first.measured_value
    clear_experiments()
    with using_run(force=True, run_id="run-1"):  # a dask worker of the same run: the run's disk entry serves
        run_claim(_claim("top", top), "ci", 3, cache=cache)
    assert len(CALLS) == 8
    run_claim(_claim("level", level), "ci", 3, cache=cache, force=True)  # its own run
    assert len(CALLS) == 12


def test_no_cache_on_a_long_lived_dask_worker(tmp_path):
    """A worker in this process (processes=False) keeps its memo between runs; --no-cache must bypass it."""
    distributed = pytest.importorskip("distributed")
    from theorylab.core import dask_backend

    c = _claim("level", level)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as lc, distributed.Client(lc) as client:
        dask_backend.run_claims([c], "ci", 3, client)
        assert sorted(CALLS) == [0, 1, 2, 3]
        dask_backend.run_claims([c], "ci", 3, client)  # memoised on the worker
        assert len(CALLS) == 4
        with using_run(memo=False):  # what `theorylab check --no-cache --scheduler ...` sets
            dask_backend.run_claims([c], "ci", 3, client)
        assert len(CALLS) == 8


def test_experiment_arguments_and_declaration():
    with pytest.raises(TypeError, match="paper must be"):
        experiment("rr_sgd")
    with pytest.raises(TypeError):
        shared(3)  # a missing argument is refused like a plain call
    assert shared.experiment == ("experimenttest", "shared")


def test_two_check_processes_share_an_experiment(tmp_path):
    """Issue 29: `theorylab check rr_sgd:rr_leading_level` then `rr_sgd:rr_sqrt_n_rate` (one stream): the
    second process is served the experiment from disk and recomputes no sweep point."""
    env = {**os.environ, "THEORYLAB_CACHE": str(tmp_path / "cache"), "NUMBA_NUM_THREADS": "1"}

    def check(cid):
        out = subprocess.run([sys.executable, "-m", "theorylab", "check", f"rr_sgd:{cid}", "--set", "i_max=3",
                              "--set", "n_chains=64", "--no-progress", "--no-record", "--out", str(tmp_path / "o")],
                             capture_output=True, text=True, timeout=600, env=env)
        assert out.returncode in (0, 1), out.stderr
        return len(list((tmp_path / "cache").rglob("*.pkl")))

    after_first = check("rr_leading_level")
    assert after_first == 1 + 1 + 4  # the claim, the experiment, its 4 points
    assert check("rr_sqrt_n_rate") == after_first + 1  # only the second claim's own entry


def test_check_force_and_no_cache_hold_at_every_level(tmp_path, monkeypatch):
    """Issue 30 defect 3 through the command line: a cached claim is served; --force recomputes its sweep
    points (not only the claim) although the memo and the disk hold them; --no-cache recomputes them too."""
    import theorylab.validations.rr_sgd as V
    from theorylab import cli

    monkeypatch.setenv("THEORYLAB_CACHE", str(tmp_path / "cache"))
    calls = []
    real = V.run_pair
    monkeypatch.setattr(V, "run_pair", lambda *a, **k: calls.append(k["n"]) or real(*a, **k))

    def check(*flags):
        calls.clear()
        argv = ["check", "rr_sgd:rr_leading_level", "--set", "i_max=2", "--set", "n_chains=16", "--no-progress",
                "--no-record", "--out", str(tmp_path / "o"), *flags]
        assert cli.main(argv) in (0, 1)
        return len(calls)

    assert check() == 3  # one sweep point per N
    assert check() == 0  # the claim is cached
    assert check("--force") == 3
    assert check("--no-cache") == 3  # the memo holds it from the runs above, and is not used


def test_claims_of_one_stream_share_one_task_on_dask_and_compute_their_experiment_once():
    """As separate tasks, claims of one stream started together on the cluster and each computed their
    experiment (issue 29: 44 point tasks instead of 18 for rr_sgd at ci); run_claims sends a stream as one task."""
    distributed = pytest.importorskip("distributed")
    from theorylab.core import dask_backend

    lonely = Claim(PAPER, "lonely", "s", "c", level, {"ci": {"n_points": 2}})
    claims = [_claim("level", level), lonely, _claim("top", top)]
    assert dask_backend.stream_groups(claims) == [[0, 2], [1]]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as lc, distributed.Client(lc) as client:
        got = dask_backend.run_claims(claims, "ci", 3, client)
    assert sorted(CALLS) == [0, 0, 1, 1, 2, 3]  # the stream's 4 points once, the lonely claim's 2
    assert [r.claim for r in got] == ["level", "lonely", "top"]
    assert [r.measured_value for r in got] == [run_claim(c, "ci", 3).measured_value for c in claims]
