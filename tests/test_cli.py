"""The command line and the core behaviours behind it: selection, formats, outputs, cache
integrity, clean interruption, the family-wise verdict rule and calibration."""

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from theorylab import cli
from theorylab.core import Cache, Estimate, Slope, fit_loglog
from theorylab.core.cache import CacheWarning
from theorylab.core.checks import discover, run_claim
from theorylab.core.evidence import (FAMILY_LEVEL, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Z_FAMILY, Bound,
                                     Proportion, family_interval)

FAST = "rr_sgd:rr_leading_level"  # a claim that runs in well under a second at ci scale


@pytest.fixture
def out(tmp_path, monkeypatch):
    """User outputs in a temporary folder; the checkout's root pointed elsewhere to catch writes."""
    monkeypatch.setenv("THEORYLAB_OUT", str(tmp_path / "out"))
    return tmp_path / "out"


# ------------------------------------------------------------------------------ family-wise rule
def test_family_interval_scales_each_side_by_the_z_ratio():
    lo, hi = family_interval(1.0, (0.9, 1.2), 0.95)
    k = Z_FAMILY / 1.959963984540054
    assert np.isclose(1.0 - lo, 0.1 * k) and np.isclose(hi - 1.0, 0.2 * k)
    assert 0.9998 < FAMILY_LEVEL < 1


def test_rejection_needs_family_wise_evidence():
    # 3 standard errors away: outside the 95% CI, inside the family-wise one -> still reproduced
    se = 0.01
    e = Estimate(value=1.0, ci=(1 - 1.96 * se, 1 + 1.96 * se), predicted=1.0 + 3 * se)
    assert e.verdict() == REPRODUCED
    assert Estimate(value=1.0, ci=(1 - 1.96 * se, 1 + 1.96 * se), predicted=1.0 + 5 * se).verdict() == NOT_REPRODUCED
    # one-sided kinds: reproduced on the 95% interval, rejected only on the family-wise one
    assert Bound(value=1.0, bound=1.03, side="<=", ci=(0.98, 1.02)).verdict() == REPRODUCED
    assert Bound(value=1.0, bound=0.97, side="<=", ci=(0.98, 1.02)).verdict() == INCONCLUSIVE
    assert Bound(value=1.0, bound=0.9, side="<=", ci=(0.98, 1.02)).verdict() == NOT_REPRODUCED
    assert Proportion(successes=95, trials=100, threshold=0.9).verdict() == INCONCLUSIVE
    assert Proportion(successes=990, trials=1000, threshold=0.9).verdict() == REPRODUCED
    assert Proportion(successes=50, trials=100, threshold=0.9).verdict() == NOT_REPRODUCED


def test_non_finite_evidence_is_refused():
    with pytest.raises(ValueError, match="ci"):
        Estimate(value=1.0, ci=(-np.inf, np.inf), predicted=1.0, max_ci_width=None)
    with pytest.raises(ValueError, match="value"):
        Estimate(value=np.nan, ci=(0.9, 1.1), predicted=1.0)
    with pytest.raises(ValueError, match="ci"):
        Bound(value=1.0, bound=2.0, ci=(np.nan, 1.1))
    with pytest.raises(ValueError, match="max_ci_width"):
        Estimate(value=1.0, ci=(0.9, 1.1), predicted=1.0, max_ci_width=float("nan"))
    with pytest.raises(TypeError, match="level"):
        Estimate(value=0.5, ci=(0.2, 0.5), predicted=0.5, level="0.5")
    with pytest.raises(TypeError, match="fit"):
        Slope(fit=float("nan"), predicted=0.5)


def test_slope_verdict_uses_the_widened_interval():
    x = np.array([1.0, 2, 4, 8])
    rng = np.random.default_rng(0)
    samples = x ** 1.0 * np.exp(0.01 * rng.standard_normal((200, 4)))
    fit = fit_loglog(x, samples=samples)
    s = Slope(fit=fit, predicted=fit.ci[1] + 0.5 * (fit.ci[1] - fit.slope))
    assert s.verdict() == REPRODUCED and s.numbers()["fw_high"] > fit.ci[1]


# ------------------------------------------------------------------------------ selection and formats
def test_check_without_a_paper_refuses_and_points_to_all(capsys):
    assert cli.main(["check", "--no-progress"]) == 2
    assert "--all" in capsys.readouterr().err
    assert cli.main(["figures", "--no-progress"]) == 2
    assert cli.main(["check", "rr_sgd:no_such_claim"]) == 2
    assert "has no claim 'no_such_claim'" in capsys.readouterr().err


def test_single_claim_as_json(out, capsys, cache):
    assert cli.main(["check", FAST, "--format", "json", "--no-progress"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["claim"] for r in records] == ["rr_leading_level"]
    r = records[0]
    assert r["verdict"] == "reproduced" and r["status"] == "reproduced" and r["scale"] == "ci" and r["seed"] == 0
    for k in ("value", "ci_low", "ci_high", "predicted", "fw_low", "fw_high", "runtime_s"):
        assert isinstance(r[k], float), k
    assert r["ci_low"] <= r["value"] <= r["ci_high"] and r["fw_low"] <= r["ci_low"] and len(r["fingerprint"]) == 16
    assert (out / "results" / "rr_sgd.ci.json").exists()


def test_keyword_selection_and_csv(out, capsys, cache):
    claims = cli.select_claims(["rr_sgd"], keyword="leading and not remainder")
    assert [c.id for c in claims] == ["rr_leading_level"]
    with pytest.raises(ValueError, match="no claim matches"):
        cli.select_claims(["rr_sgd"], keyword="zzz")
    assert cli.main(["check", "rr_sgd", "-k", "leading", "--format", "csv", "--no-progress", "--no-record"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("paper,claim,scale") and len(lines) == 2


def test_set_override_is_non_standard_and_never_published(out, capsys, cache):
    c = discover().claims[FAST]
    name = next(iter(c.params("ci")))
    assert cli.main(["check", FAST, "--set", f"{name}={c.params('ci')[name]}", "--publish", "--no-progress"]) == 2
    assert "non-standard" in capsys.readouterr().err
    assert cli.main(["check", FAST, "--set", "no_such_param=1", "--no-progress"]) == 2
    assert "no selected claim has such a parameter" in capsys.readouterr().err
    assert cli.main(["check", FAST, "--set", f"{name}={c.params('ci')[name]}", "--format", "json",
                     "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["standard"] is False


def test_long_cells_are_abbreviated_visibly():
    text = cli._table([("x" * 100,)], ["h"])
    assert "…" in text and "x" * 100 not in text
    assert "x" * 100 in cli._table([("x" * 100,)], ["h"], max_width=1000)


def test_version_module_entry_and_cite():
    run = subprocess.run([sys.executable, "-m", "theorylab", "--version"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.startswith("theorylab ")
    run = subprocess.run([sys.executable, "-m", "theorylab", "cite", "rr_sgd"], capture_output=True, text=True)
    assert run.returncode == 0 and "@inproceedings{rr_sgd," in run.stdout and "@software{theorylab," in run.stdout


def test_plain_progress_lines_off_a_terminal(out, capsys, cache):
    assert cli.main(["check", FAST, "--no-record"]) == 0
    assert "[1/1] check (ci): rr_sgd:rr_leading_level" in capsys.readouterr().err


# ------------------------------------------------------------------------------ outputs
def test_user_runs_leave_the_checkout_alone(out, capsys, cache):
    from theorylab.core.paths import ledger_path, results_dir

    before = {p: p.stat().st_mtime_ns for p in [ledger_path(), *results_dir().rglob("*")] if p.is_file()}
    assert cli.main(["check", "relu_depth", "--no-progress"]) == 0  # the cheapest paper; cached for later tests
    assert cli.main(["report", "relu_depth", "--no-progress"]) == 0
    after = {p: p.stat().st_mtime_ns for p in [ledger_path(), *results_dir().rglob("*")] if p.is_file()}
    assert before == after
    assert (out / "results" / "relu_depth.ci.json").exists()
    assert "| `bound_table` |" in (out / "paper_checks.md").read_text()


def test_reproduce_times_a_paper_at_full_scale_and_leaves_the_checkout_alone(out, capsys, cache):
    """`theorylab reproduce PAPER` (issue 15): claims and figures at full scale, the time per paper printed
    against the budget and written to reproduce_timings.json, all under the user's output folder."""
    import re

    from theorylab.core.paths import ledger_path, results_dir

    before = {p: p.stat().st_mtime_ns for p in [ledger_path(), *results_dir().rglob("*")] if p.is_file()}
    assert cli.main(["reproduce", "highway_bp", "--no-progress"]) == 0  # the fastest paper at full scale (~3 s)
    printed = capsys.readouterr().out
    assert re.search(rf"highway_bp: \d+ s \(budget {cli.PAPER_BUDGET_S} s\)", printed), printed
    assert re.search(r"total \d+\.\d min for 1 papers", printed), printed
    timings = json.loads((out / "results" / "reproduce_timings.json").read_text())
    assert timings["papers"]["highway_bp"] > 0 and timings["total_s"] >= timings["papers"]["highway_bp"]
    assert json.loads((out / "results" / "highway_bp.full.json").read_text())["results"]
    for f in discover().figures_of("highway_bp"):
        assert (out / "figures" / "highway_bp" / f"{f.name}.png").exists()
        assert (out / "figures" / "highway_bp" / f"{f.name}.csv").exists()
    after = {p: p.stat().st_mtime_ns for p in [ledger_path(), *results_dir().rglob("*")] if p.is_file()}
    assert before == after


def test_ci_figures_carry_their_scale_and_cannot_be_published(out, capsys):
    assert cli.main(["figures", "tv_distance", "--scale", "ci", "--publish", "--no-progress"]) == 2
    figs = discover().figures_of("tv_distance")[:1]
    assert cli.main(["figures", f"tv_distance:{figs[0].name}", "--scale", "ci", "--no-progress"]) == 0
    assert (out / "figures" / "tv_distance" / f"{figs[0].name}.ci.png").exists()


# ------------------------------------------------------------------------------ cache and records
def test_cache_refuses_foreign_and_edited_entries(tmp_path, cache):
    c = discover().claims[FAST]
    other = discover().claims["rr_sgd:pr_bias_constant"]
    store = Cache(tmp_path / "c")
    good = run_claim(c, "ci", 0, cache=store)
    key_c = store.key("claim", c.paper.id, c.id, "ci", 0, c.params("ci"), module=c.func.__module__)
    key_o = store.key("claim", other.paper.id, other.id, "ci", 0, other.params("ci"), module=other.func.__module__)
    # another claim's entry copied under this key: reported, recomputed, never served
    store.path(key_o).parent.mkdir(parents=True, exist_ok=True)
    store.path(key_o).write_bytes(store.path(key_c).read_bytes())
    with pytest.warns(CacheWarning, match="not its own"):
        assert store.get(key_o) is None
    # a hand-edited verdict fails the checksum
    blob = store.path(key_c).read_bytes()
    store.path(key_c).write_bytes(blob.replace(b"reproduced", b"REPRODUCED", 1))
    with pytest.warns(CacheWarning, match="checksum"):
        again = run_claim(c, "ci", 0, cache=store)
    assert again.verdict == good.verdict == "reproduced" and again.measured == good.measured


def test_corrupt_record_is_named(out, capsys, tmp_path, monkeypatch):
    (out / "results").mkdir(parents=True)
    bad = out / "results" / "rr_sgd.full.json"  # searched before the committed records
    bad.write_text("{not json")
    assert cli.main(["report", "rr_sgd", "--no-progress"]) == 2
    assert str(bad) in capsys.readouterr().err


# ------------------------------------------------------------------------------ interruption
@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_run_cleanly(tmp_path, signum, code):
    env = {**os.environ, "THEORYLAB_OUT": str(tmp_path / "out"), "THEORYLAB_CACHE": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "theorylab", "check", "rr_sgd", "--scale", "full"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    t0 = time.monotonic()
    for line in proc.stderr:  # wait until the first claim has started
        if "check (full): rr_sgd:" in line:
            break
        assert time.monotonic() - t0 < 120, "the run never started"
    time.sleep(1.0)
    proc.send_signal(signum)
    try:
        rest = proc.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the run did not stop within 60 s of the signal")
    assert proc.returncode == code, rest
    assert "nothing partial was recorded" in rest and "resume" in rest
    assert not (tmp_path / "out" / "results" / "rr_sgd.full.json").exists()


# ------------------------------------------------------------------------------ calibration
def test_calibration_summary_flags_under_coverage():
    import pandas as pd

    from theorylab.core.calibrate import summarise

    from scipy.stats import norm

    rows = []
    for seed in range(20):
        v = float(norm.ppf((seed + 0.5) / 20))  # a sample of sd ~0.95 whatever the RNG
        for claim, half in (("calibrated", 1.96), ("too_narrow", 0.5)):
            rows.append(dict(paper="p", claim=claim, seed=seed, verdict="reproduced", status="reproduced",
                             expected=True, value=v, ci_low=v - half, ci_high=v + half, level=0.95))
        rows.append(dict(paper="p", claim="exact", seed=seed, verdict="reproduced", status="reproduced",
                         expected=True, value=0.0, ci_low=0.0, ci_high=0.0, level=0.95))
    s = summarise(pd.DataFrame(rows)).set_index("claim")
    assert 0.7 <= s.loc["calibrated", "ratio"] <= 1.4 and s.loc["calibrated", "ok"]
    assert s.loc["too_narrow", "ratio"] > 2 and not s.loc["too_narrow", "ok"]
    assert not s.loc["exact", "statistical"] and s.loc["exact", "ok"]


def _synthetic_runs(claim, seeds, half, phase="primary", status="reproduced"):
    from scipy.stats import norm

    k = len(seeds)
    return [dict(paper="p", claim=claim, seed=s, verdict="reproduced", status=status, expected=True,
                 value=float(norm.ppf((i + 0.5) / k)), ci_low=float(norm.ppf((i + 0.5) / k)) - half,
                 ci_high=float(norm.ppf((i + 0.5) / k)) + half, level=0.95, phase=phase)
            for i, s in enumerate(seeds)]


def test_calibration_confirmation_stage_decides_an_out_of_band_ratio():
    """The confirmation stage (core.calibrate docstring): a claim out of band over seeds 1..20 is judged
    on its fresh seeds alone; a confirmation flip counts; a claim out of band on both stays out."""
    import pandas as pd
    from theorylab.core.calibrate import summarise

    first, fresh = range(1, 21), range(21, 61)
    rows = (_synthetic_runs("chance", first, 0.6) + _synthetic_runs("chance", fresh, 1.9, "confirm")
            + _synthetic_runs("narrow", first, 0.6) + _synthetic_runs("narrow", fresh, 0.6, "confirm")
            + _synthetic_runs("flip", first, 0.6) + _synthetic_runs("flip", fresh, 1.9, "confirm", "not reproduced"))
    s = summarise(pd.DataFrame(rows)).set_index("claim")
    assert s.loc["chance", "ratio"] > 1.4 and 0.7 <= s.loc["chance", "confirm_ratio"] <= 1.4
    assert s.loc["chance", "calibrated"] and s.loc["chance", "ok"] and s.loc["chance", "confirm_seeds"] == 40
    assert not s.loc["narrow", "calibrated"] and not s.loc["narrow", "ok"]
    assert s.loc["flip", "confirm_flips"] == 40 and not s.loc["flip", "ok"]


def test_calibration_confirms_only_the_claims_out_of_band(monkeypatch):
    """Only the out-of-band claims are rerun, on seeds K+1..K+CONFIRM_SEEDS, and only when asked."""
    import pandas as pd
    from types import SimpleNamespace
    from theorylab.core import calibrate as cal

    calls = []

    def fake_runs(claims, seeds, scale, progress, client=None, phase="primary"):
        calls.append(([c.id for c in claims], list(seeds), phase))
        rows = []
        for c in claims:
            rows += _synthetic_runs(c.id, seeds, {"good": 1.9, "bad": 0.6}[c.id], phase)
        return pd.DataFrame(rows)

    monkeypatch.setattr(cal, "_runs", fake_runs)
    todo = [SimpleNamespace(id="good"), SimpleNamespace(id="bad")]
    summary, runs = cal._calibrate(todo, list(range(1, 21)), "ci", None, None, cal.CONFIRM_SEEDS)
    assert calls[1] == (["bad"], list(range(21, 21 + cal.CONFIRM_SEEDS)), "confirm")
    assert len(calls) == 2 and set(runs["phase"]) == {"primary", "confirm"}
    assert "| 3.26 (40 seeds) | **no** |" in cal.render_markdown(summary, seeds=range(1, 21), scale="ci")
    calls.clear()
    cal._calibrate(todo, list(range(1, 21)), "ci", None, None, 0)
    assert len(calls) == 1


# ------------------------------------------------------------------------------ dask cluster
def test_check_on_a_dask_cluster_equals_the_serial_run(out, capsys):
    distributed = pytest.importorskip("distributed")
    assert cli.main(["check", FAST, "--format", "json", "--no-progress", "--no-cache", "--no-record"]) == 0
    serial = json.loads(capsys.readouterr().out)[0]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc:
        code = cli.main(["check", FAST, "--format", "json", "--no-progress", "--no-cache", "--no-record",
                         "--scheduler", lc.scheduler_address])
        ran = [str(t[0]) for t in lc.scheduler.transition_log if str(t[0]).startswith(f"claim-{FAST}")]
    assert code == 0 and ran, "the claim did not run as a task on the cluster"
    on_dask = json.loads(capsys.readouterr().out)[0]
    for k in ("verdict", "value", "ci_low", "ci_high", "measured_text"):
        assert on_dask[k] == serial[k], k


def test_an_unreachable_scheduler_fails_fast(capsys):
    t0 = time.monotonic()
    assert cli.main(["--scheduler", "tcp://127.0.0.1:1", "check", FAST, "--no-progress"]) == 2
    assert time.monotonic() - t0 < 15 and "tcp://127.0.0.1:1" in capsys.readouterr().err
