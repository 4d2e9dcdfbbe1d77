"""Resuming after a lost or damaged cache (was part of the issue-14 audit).

* Resume per sweep point through :func:`~theorylab.core.checks.run_claim` (the CLI's entry), both
  for a real validation (rr_sgd's cos sweep: only the missing points are recomputed) and for a
  run killed by SIGKILL in the middle of a claim.
* A truncated, foreign or hand-edited cache file (also a sweep point) is reported and recomputed,
  never served.
"""

import os
import signal
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

from theorylab.core import Cache, clear_experiments, grid, sweep, using_run
from theorylab.core.cache import CacheWarning
from theorylab.core.checks import discover

FAST = "rr_sgd:rr_leading_level"  # its cos sweep has 8 points at ci scale (i_max = 7)


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update({k: str(v) for k, v in extra.items()})
    return env


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
