"""The command line as a user meets it (issue 30, defect 8 and frictions): messages that name the
parameter, output folders checked before any claim runs, lazy imports, a report that says why it
fails, cached claims shown as cached."""

import json
import subprocess
import sys

import pytest

from theorylab import cli
from theorylab.cli import commands
from theorylab.core.checks import Result, discover

FAST = "rr_sgd:rr_leading_level"


@pytest.fixture
def out(tmp_path, monkeypatch):
    monkeypatch.setenv("THEORYLAB_OUT", str(tmp_path / "out"))
    return tmp_path / "out"


@pytest.fixture
def no_claim_may_run(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("a claim ran")

    monkeypatch.setattr(commands, "run_claims", boom)


def test_a_set_value_of_the_wrong_type_names_the_parameter_before_running(out, capsys, no_claim_may_run):
    assert cli.main(["check", "cpwl_decomp:unique_1d", "--set", "n_instances=2.5", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "n_instances" in err and "2.5" in err and "integer" in err
    assert cli.main(["check", "cpwl_decomp:unique_1d", "--set", "n_instances=abc", "--no-progress"]) == 2
    assert "n_instances" in capsys.readouterr().err


def test_an_error_row_under_set_names_the_overrides(out, capsys, monkeypatch):
    c = discover().claims["cpwl_decomp:unique_1d"]

    def broken(**kw):
        raise ValueError("size must be positive")

    import theorylab.core.checks as checks  # a Claim is frozen: register a broken copy under its key

    monkeypatch.setitem(checks.REGISTRY.claims, c.key, type(c)(c.paper, c.id, c.statement, c.citation, broken,
                                                               c.scales, c.expect_reproduced, c.why_not, c.stream))
    assert cli.main(["check", "cpwl_decomp:unique_1d", "--set", "n_instances=0", "--no-progress", "--no-cache",
                     "--no-record"]) == 1
    assert "cpwl_decomp:unique_1d (with --set n_instances=0): ValueError: size must be positive" in \
        capsys.readouterr().err


@pytest.mark.parametrize("argv", [["check", FAST], ["figures", "rr_sgd", "--scale", "ci"],
                                  ["calibrate", "rr_sgd", "--seeds", "2"], ["report", "rr_sgd"],
                                  ["reproduce", "rr_sgd"]])
def test_an_unwritable_out_is_refused_before_any_claim_runs(tmp_path, capsys, argv, no_claim_may_run, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    monkeypatch.setattr(commands, "_draw_figures", lambda *a, **k: pytest.fail("a figure was drawn"))
    monkeypatch.setattr(commands, "_calibrate_one", lambda *a, **k: pytest.fail("a calibration ran"))
    assert cli.main([*argv, "--out", str(blocker / "sub"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"--out {blocker / 'sub'}: cannot write to" in err


_PROBE = """
import io, contextlib, sys
from theorylab.cli import main
with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
print(code, sorted(m for m in sys.modules if m.startswith("theorylab.validations.")))
"""


@pytest.mark.parametrize("argv, code", [(["--help"], 0), (["check"], 2), (["check", "no_such_paper"], 2),
                                        (["check", "rr_sgd", "-k", "("], 2), (["check", "rr_sgd", "--set", "x"], 2),
                                        (["figures"], 2), (["calibrate", "rr_sgd", "--seeds", "1"], 2),
                                        (["bench", "no_such_paper"], 2), (["check", "--scale", "huge", "x"], 2)])
def test_usage_errors_and_help_import_no_validation_module(argv, code):
    run = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, timeout=120)
    got, imported = run.stdout.strip().split(" ", 1)
    assert int(got) == code and imported == "[]", run.stdout + run.stderr


def test_a_command_naming_a_paper_imports_only_that_paper():
    run = subprocess.run([sys.executable, "-c", _PROBE, "cite", "highway_bp"], capture_output=True, text=True,
                         timeout=120)
    assert run.stdout.strip() == "0 ['theorylab.validations.highway_bp']", run.stdout + run.stderr


def _record_with(pid, folder, verdicts):
    from theorylab.core import ledger

    rs = [Result(pid, c.id, c.statement, c.citation, "full", 1, verdicts.get(c.id, "reproduced"), "1.0", "1.0",
                 "exact", 1.0, c.expect_reproduced, 0.25, c.params("full"), root_seed=0)
          for c in discover().claims_of(pid)]
    return ledger.record(pid, "full", rs, root=folder)


def test_report_names_the_claims_that_make_it_fail(tmp_path, out, capsys, monkeypatch):
    monkeypatch.setenv("THEORYLAB_ROOT", str(tmp_path / "checkout"))  # no committed record
    path = _record_with("relu_depth", out / "results", {"bound_table": "not reproduced"})
    assert cli.main(["report", "relu_depth", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "report exits 1: 1 claim not as declared" in err
    assert f"relu_depth:bound_table (not reproduced at full scale: unexpected failure; {path})" in err
    _record_with("relu_depth", out / "results", {})
    assert cli.main(["report", "relu_depth", "--no-progress"]) == 0
    assert "report exits 1" not in capsys.readouterr().err


def test_a_cached_claim_says_cached_instead_of_an_old_runtime(out, capsys, cache):
    assert cli.main(["check", FAST, "--no-record"]) == 0
    capsys.readouterr()
    assert cli.main(["check", FAST, "--no-record"]) == 0
    got = capsys.readouterr()
    assert "reproduced (cached)" in got.err
    row = next(line for line in got.out.splitlines() if line.startswith("rr_leading_level"))
    assert row.rstrip().endswith("cached")
    assert cli.main(["check", FAST, "--no-record", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["runtime_s"] > 0  # the data keeps the measured runtime


# ------------------------------------------------------------------------------ frictions
def test_ratio_range_is_where_a_calibrated_ratio_falls():
    import numpy as np

    rng = np.random.default_rng(0)
    for k in (4, 20):
        lo, hi = commands.ratio_range(k)
        sd_hat = rng.standard_normal((40_000, k)).std(axis=1, ddof=1)  # true sd 1: the ratio of a calibrated CI
        inside = np.mean((sd_hat >= lo) & (sd_hat <= hi))
        assert abs(inside - 0.95) < 0.01, (k, inside)
    assert commands.seeds_warning(20, (0.7, 1.4)) is None
    text = commands.seeds_warning(4, (0.7, 1.4))
    assert "--seeds 4 cannot judge" in text and "[0.27, 1.77]" in text and "[0.68, 1.31]" in text


def test_calibrate_with_few_seeds_warns_before_running(capsys, tmp_path, monkeypatch):
    def stop(*a, **k):
        raise ValueError("stopped before running")

    monkeypatch.setattr(commands, "_calibrate_one", stop)
    assert cli.main(["calibrate", "highway_bp", "--seeds", "4", "--out", str(tmp_path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.index("--seeds 4 cannot judge") < err.index("stopped before running")


def test_a_ratio_only_failure_with_few_seeds_is_marked_as_such():
    from types import SimpleNamespace as R

    assert commands._calibration_ok(R(ok=False, flips=0, calibrated=False), 4) == "NO (ratio, 4 seeds)"
    assert commands._calibration_ok(R(ok=False, flips=1, calibrated=False), 4) == "NO"
    assert commands._calibration_ok(R(ok=False, flips=0, calibrated=False), 20) == "NO"
    assert commands._calibration_ok(R(ok=True, flips=0, calibrated=True), 4) == "ok"


def test_bench_says_what_its_ratio_means_and_warns_on_a_loaded_machine(capsys, monkeypatch):
    import os

    import theorylab.benchmarks.highway_bp  # noqa: F401 - registered before the registry is swapped
    from theorylab.core import checks

    def cluster_speedup(*, quick=False):
        """ratio = wall time on 1 worker / on 2 workers; nothing else."""
        return {"ratio": 1.5}

    fake = checks.Benchmark("highway_bp", "cluster_speedup", cluster_speedup)
    monkeypatch.setattr(checks.REGISTRY, "benchmarks", {"highway_bp:cluster_speedup": fake})
    monkeypatch.setattr(os, "getloadavg", lambda: (1.7, 1.0, 1.0))
    assert cli.main(["bench", "highway_bp", "--quick"]) == 0
    got = capsys.readouterr()
    assert "ratio = reference time / theorylab's time" in got.out
    assert "highway_bp:cluster_speedup  (ratio = wall time on 1 worker / on 2 workers: 2 is perfect scaling" in got.out
    assert "load average 1.70" in got.err and "cluster speed-up needs an idle core per worker" in got.err
    monkeypatch.setattr(os, "getloadavg", lambda: (0.1, 0.1, 0.1))
    assert cli.main(["bench", "highway_bp", "--quick"]) == 0
    assert "load average" not in capsys.readouterr().err
    loads = iter([(0.1, 0.1, 0.1), (1.9, 1.0, 1.0)])  # idle before; the cluster's own workers load it after
    monkeypatch.setattr(os, "getloadavg", lambda: next(loads))
    assert cli.main(["bench", "highway_bp", "--quick"]) == 0
    assert "load average" not in capsys.readouterr().err


def test_scale_has_help_text_in_every_command(capsys):
    for command in ("check", "figures", "report", "calibrate"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "ci: small sizes" in text and "full: the sizes behind the published" in text, command


def test_cite_gives_full_author_names():
    reg = discover()
    for pid, paper in reg.papers.items():
        names = [n.strip() for n in paper.authors.split(",")]
        assert all(len(n.split()) >= 2 for n in names), (pid, paper.authors)  # given name(s) and surname
        assert f"author    = {{{' and '.join(names)}}}" in paper.bibtex()


def test_license_and_readme_counts():
    from theorylab.core.paths import project_root

    license_text = (project_root() / "LICENSE").read_text()
    assert license_text.startswith("MIT License") and "Copyright (c) 2026 theorylab contributors" in license_text
    readme = (project_root() / "README.md").read_text()
    n = len(discover().papers)
    assert "all 38" not in readme and f"the {n} papers" in readme


def test_calibrate_a_claim_replaces_only_its_rows(tmp_path):
    """`calibrate PAPER:CLAIM` recalibrates one claim after its interval was fixed: its rows replace the old
    ones in the paper's tables, the other claims' rows stay, in the registry's order; an unknown claim is refused."""
    import pandas as pd

    base = ["--out", str(tmp_path), "--no-progress"]
    assert cli.main(["calibrate", "highway_bp", "--seeds", "2", *base]) == 0
    before = pd.read_csv(tmp_path / "calibration" / "highway_bp.csv")
    assert cli.main(["calibrate", "highway_bp:decay_bound", "--seeds", "3", *base]) == 0
    after = pd.read_csv(tmp_path / "calibration" / "highway_bp.csv")
    assert list(after["claim"]) == list(before["claim"])
    assert dict(zip(after["claim"], after["seeds"])) == {c: (3 if c == "decay_bound" else 2) for c in before["claim"]}
    runs = pd.read_csv(tmp_path / "calibration" / "highway_bp.runs.csv")
    assert sorted(runs.loc[runs["claim"] == "decay_bound", "seed"]) == [1, 2, 3]
    assert len(runs) == 2 * (len(before) - 1) + 3
    assert cli.main(["calibrate", "highway_bp:no_such_claim", "--seeds", "2", *base]) == 2
