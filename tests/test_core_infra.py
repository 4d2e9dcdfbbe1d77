"""Seeding, sweeps (serial, processes, dask), the cache, validation helpers and the CLI."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from theorylab import cli
from theorylab.core import (Cache, SimulationDiverged, check_array, check_int, check_positive,
                            check_probability_vector, child_seed, grid, require_finite, spawn_seeds, sweep)
from theorylab.core.cache import atomic_write_text


def draw(*, mu, n, seed):
    rng = np.random.default_rng(seed)
    return {"mean": float(rng.normal(mu, 1.0, n).mean())}


CALLS = []


def counted(*, x, seed):
    CALLS.append(x)
    return {"y": x * 2}


def test_seeds_are_reproducible_and_prefix_stable():
    a, b = spawn_seeds(7, 5), spawn_seeds(7, 8)
    assert a.dtype == np.uint64 and np.array_equal(a, b[:5])
    assert len(set(b.tolist())) == 8
    assert not np.array_equal(spawn_seeds(8, 5), a)


def test_child_seed_is_stable_across_processes():
    here = child_seed(0, "rr_sgd", "pr_bias")
    code = "from theorylab.core import child_seed; print(child_seed(0, 'rr_sgd', 'pr_bias'))"
    there = int(subprocess.check_output([sys.executable, "-c", code], text=True))
    assert here == there and child_seed(0, "rr_sgd", "other") != here


def test_grid_and_sweep_serial_equals_processes():
    points = grid(mu=[0.0, 1.0], n=[10, 100])
    assert len(points) == 4 and points[0] == {"mu": 0.0, "n": 10}
    serial = sweep(draw, points, seed=3, executor="serial", progress=False)
    procs = sweep(draw, points, seed=3, executor="process", n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(serial, procs)
    assert set(serial.columns) == {"mean", "mu", "n", "seed"}
    shuffled = sweep(draw, points[::-1], seed=3, executor="serial", progress=False)
    assert sorted(shuffled["mean"]) == sorted(serial["mean"])  # a point's seed does not depend on its position


def test_sweep_on_a_dask_local_cluster():
    distributed = pytest.importorskip("distributed")
    points = grid(mu=[0.0, 1.0, 2.0], n=[50])
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as lc, \
            distributed.Client(lc) as client:
        on_dask = sweep(draw, points, seed=3, executor="dask", scheduler=client, progress=False)
    pd.testing.assert_frame_equal(on_dask, sweep(draw, points, seed=3, executor="serial", progress=False))


def test_sweep_cache_resumes(tmp_path):
    cache = Cache(tmp_path)
    CALLS.clear()
    sweep(counted, grid(x=[1, 2]), cache=cache, cache_key="t", executor="serial", progress=False)
    out = sweep(counted, grid(x=[1, 2, 3]), cache=cache, cache_key="t", executor="serial", progress=False)
    assert CALLS == [1, 2, 3] and out["y"].tolist() == [2, 4, 6]


def test_cache_keys_are_canonical_and_writes_atomic(tmp_path):
    cache = Cache(tmp_path)
    assert cache.key("a", {"x": 1, "y": (2, 3)}) == cache.key("a", {"y": [2, 3], "x": 1})
    cache.put(cache.key("k"), {"v": 1})
    assert cache.get(cache.key("k")) == {"v": 1}
    assert not list(tmp_path.rglob("*.tmp"))
    atomic_write_text(tmp_path / "f.txt", "hello")
    assert (tmp_path / "f.txt").read_text() == "hello"


def test_validation_messages_name_argument_value_and_range():
    with pytest.raises(ValueError, match=r"gamma must be a finite float in \(0.0, inf\); got -0.1"):
        check_positive("gamma", -0.1)
    with pytest.raises(TypeError, match="n must be an integer"):
        check_int("n", "ten")
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, inf\]; got 0"):
        check_int("n", 0, low=1)
    with pytest.raises(ValueError, match="x0 must have shape"):
        check_array("x0", np.zeros(3), shape=(2,))
    with pytest.raises(ValueError, match="NaN"):
        check_array("x0", [np.nan])
    with pytest.raises(ValueError, match="sum to 1"):
        check_probability_vector("p", [0.5, 0.6])
    with pytest.raises(SimulationDiverged, match="loss diverged"):
        require_finite("loss", [1.0, np.inf], eta=0.1)


def test_cli_list_and_unknown_paper(capsys):
    assert cli.main(["list"]) == 0
    assert "rr_sgd" in capsys.readouterr().out
    assert cli.main(["check", "no_such_paper"]) == 2
    assert "unknown paper id 'no_such_paper'" in capsys.readouterr().err


def test_cli_check_records_and_report_renders(tmp_path, monkeypatch, cache, capsys):
    from theorylab.core import ledger

    monkeypatch.setenv("THEORYLAB_ROOT", str(tmp_path))
    assert cli.main(["check", "rr_sgd", "--scale", "ci", "--no-progress", "--publish"]) == 0
    out = capsys.readouterr().out
    assert "rr_leading_level" in out and "reproduced" in out
    doc = ledger.best_record("rr_sgd")
    assert doc is not None and doc["scale"] == "ci"
    assert (tmp_path / "results" / "rr_sgd" / "rr_leading_level.ci.csv").exists()
    path = ledger.write_ledger({"rr_sgd": doc})
    text = path.read_text()
    assert path == tmp_path / "paper_checks.md" and "| `pr_bias_order` |" in text


def test_code_fingerprint_follows_imports_only():
    from theorylab.core.fingerprint import code_fingerprint, computing_files

    files = set(computing_files("theorylab.validations.rr_sgd"))
    assert "theorylab.markov._kernels" in files and "theorylab.core.evidence" in files
    assert not any(m.startswith(("theorylab.tv", "theorylab.sde")) for m in files)
    assert "theorylab.core.plotting" not in files  # presentation (tests/test_core_fingerprint.py)
    assert code_fingerprint("theorylab.validations.rr_sgd") != code_fingerprint("theorylab.validations.tv_distance")
    assert len(code_fingerprint("no.such.module")) == 16


def test_write_notebook_is_reproducible(tmp_path):
    import nbformat
    import pytest

    from theorylab.core.notebooks import write_notebook

    cells = [("md", "# t"), ("code", "x = 1")]
    a = write_notebook("t", cells, tmp_path / "a.ipynb").read_text()
    b = write_notebook("t", cells, tmp_path / "b.ipynb").read_text()
    assert a == b
    nbformat.validate(nbformat.read(tmp_path / "a.ipynb", as_version=4))
    with pytest.raises(ValueError, match="cell kind"):
        write_notebook("t", [("python", "x")], tmp_path / "c.ipynb")


def test_a_foreign_validations_folder_does_not_shadow_the_papers(tmp_path):
    """A notebook started in a folder with its own validations/ (and benchmarks/) still finds
    theorylab's papers: they install as theorylab.validations, not as a top-level package."""
    for name in ("validations", "benchmarks"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
        (tmp_path / name / "mine.py").write_text("raise RuntimeError('the foreign package was imported')\n")
    code = ("from theorylab.core import discover; import sys; reg = discover(); "
            "print(len(reg.papers), 'validations' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env={k: v for k, v in __import__('os').environ.items() if k != "PYTHONPATH"})
    assert out.returncode == 0, out.stderr
    n_papers, foreign = out.stdout.split()
    assert int(n_papers) >= 7 and foreign == "False"


def test_discovery_fails_loudly_when_it_finds_no_paper(tmp_path, monkeypatch):
    from theorylab.core import checks
    (tmp_path / "empty_validations").mkdir()
    (tmp_path / "empty_validations" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(checks, "_DISCOVERED", False)
    monkeypatch.setattr(checks, "REGISTRY", checks.Registry())
    with pytest.raises(RuntimeError, match="discover found no paper in 'empty_validations'"):
        checks.discover(packages=("empty_validations",))
