"""The record schema (core.records, ``Result.to_record`` / ``Result.from_record``): every record
round-trips byte for byte, a partial rerun changes only its own rows, and ``theorylab.results()``
reads the user's runs by default (issue 30, defects 2 and 4)."""

import dataclasses
import json
from pathlib import Path

import pytest

import theorylab
from theorylab import cli
from theorylab.core import records
from theorylab.core.checks import Result, discover
from theorylab.core.paths import results_dir

COMMITTED = sorted(p for p in results_dir().glob("*.*.json"))
# Keys added to the schema after the first records were written (a record lacking them is one write
# away from the current schema; the main developer's rerun brings every committed record there).
ADDED_SINCE_FIRST_RECORDS = {"status", "standard", "numbers", "root_seed", "stage", "stage1"}


def _result(**kw):
    base = dict(paper="p", claim="c", statement="s", citation="Thm 1", scale="ci", seed=7, verdict="reproduced",
                measured="1.0 [0.9, 1.1]", predicted="1", tolerance="95% CI", measured_value=1.0,
                expect_reproduced=True, runtime_s=0.5, params={"n": 200, "name": "200", "shape": (3, (7,)),
                                                                "eta": 1e-3, "flag": True})
    return Result(**{**base, **kw})


def test_committed_records_exist():
    assert len(COMMITTED) >= 24


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.name)
def test_every_committed_record_round_trips_byte_for_byte(path):
    text = path.read_text()
    header, results = records.loads(text, str(path))
    once = records.dumps(header, results)
    doc = json.loads(text)
    written = json.loads(once)["results"]
    missing = ({k for r, w in zip(doc["results"], written) for k in w if k not in r}
               | ({"root_seed"} - set(doc)))
    if not missing:
        assert once == text  # read, write: the committed bytes
    else:  # a record older than the current schema: only the keys added since may be new
        assert missing <= ADDED_SINCE_FIRST_RECORDS, missing
        old, new = doc["results"], json.loads(once)["results"]
        assert [{k: r[k] for k in o} for o, r in zip(old, new)] == old
    assert records.dumps(*records.loads(once)) == once  # write, read, write: the same bytes
    for r in results:  # params typed again (no quoted numbers)
        assert not any(isinstance(v, str) and v.startswith(("'", '"')) for v in r.params.values()), r.params


def test_params_and_numbers_are_typed_and_round_trip():
    r = _result(numbers={"kind": "estimate", "value": 1.0, "ci_low": float("nan"), "level": 0.95},
                measured_value=float("nan"))
    row = r.to_record()
    assert row["params"] == {"n": "200", "name": "'200'", "shape": "(3, (7,))", "eta": "0.001", "flag": "True"}
    assert row["measured_value"] is None and row["numbers"]["ci_low"] is None and row["status"] == "reproduced"
    back = Result.from_record(json.loads(json.dumps(row)), root_seed=0, fingerprint="f")
    assert back.params == r.params and back.params["name"] == "200" and back.params["shape"] == (3, (7,))
    assert back.measured_value != back.measured_value  # NaN again
    assert (back.root_seed, back.fingerprint) == (0, "f")
    assert back.to_record() == row
    # a parameter whose repr is no literal is kept as that text and written unchanged
    odd = Result.from_record({**row, "params": {"a": "array([1, 2])"}})
    assert odd.to_record()["params"] == {"a": "array([1, 2])"}


def test_a_field_added_to_result_round_trips_without_editing_the_schema():
    @dataclasses.dataclass
    class Extended(Result):
        review: str = "none"
        review_numbers: dict = dataclasses.field(default_factory=dict)

    r = Extended(**{f.name: getattr(_result(), f.name) for f in dataclasses.fields(Result)},
                 review="second look", review_numbers={"value": 0.5, "ci_low": float("nan")})
    row = r.to_record()
    assert list(row)[:len(records.ROW_ORDER)] == list(records.ROW_ORDER)
    assert list(row)[-2:] == ["review", "review_numbers"]
    back = Extended.from_record(json.loads(json.dumps(row)))
    assert back.review == "second look" and back.review_numbers == {"value": 0.5, "ci_low": None}
    assert json.dumps(back.to_record()) == json.dumps(row)


def test_the_two_stages_round_trip():
    r = _result(stage=2, stage1={"verdict": "not reproduced", "measured": "1.2 [1.1, 1.3]",
                                 "numbers": {"value": 1.2, "ci_low": float("nan")}})
    row = json.loads(json.dumps(r.to_record()))
    back = Result.from_record(row)
    assert back.stage == 2 and back.stage1["numbers"] == {"value": 1.2, "ci_low": None}
    assert json.dumps(back.to_record()) == json.dumps(row)


def test_a_row_without_a_required_field_is_a_record_error():
    row = _result().to_record()
    del row["statement"]
    with pytest.raises(records.RecordError, match="statement"):
        Result.from_record(row)
    with pytest.raises(records.RecordError, match="where.json"):
        records.loads(json.dumps({"paper": "p", "results": [row]}), "where.json")


def _fake_record(pid, folder):
    """A full record of ``pid`` at ci scale written by ledger.record, from made-up results."""
    from theorylab.core import ledger

    rs = [Result(pid, c.id, c.statement, c.citation, "ci", 11, "reproduced", "1.0", "1.0", "exact", 1.0,
                 c.expect_reproduced, 0.25, c.params("ci"), root_seed=0) for c in discover().claims_of(pid)]
    return ledger.record(pid, "ci", rs, root=folder)


def test_a_partial_rerun_changes_only_its_own_rows(tmp_path, monkeypatch, cache):
    """Rerunning one claim of a paper twice keeps the other rows byte for byte (issue 30: each rerun
    used to quote every kept parameter once more: "200" -> "'200'" -> "\"'200'\"")."""
    out = tmp_path / "out"
    monkeypatch.setenv("THEORYLAB_OUT", str(out))
    path = _fake_record("relu_depth", out / "results")
    first = json.loads(path.read_text())
    for _ in range(2):
        assert cli.main(["check", "relu_depth:lucas_threshold", "--no-progress"]) == 0
        doc = json.loads(path.read_text())
        assert [r["claim"] for r in doc["results"]] == [r["claim"] for r in first["results"]]  # registry order
        for old, new in zip(first["results"], doc["results"]):
            if new["claim"] != "lucas_threshold":
                assert new == old
        c = {c.id: c for c in discover().claims_of("relu_depth")}
        for row in doc["results"]:
            assert row["params"] == {k: repr(v) for k, v in c[row["claim"]].params("ci").items()}
    text = path.read_text()
    assert records.dumps(*records.loads(text)) == text
    # a rerun with another root seed replaces the record rather than mixing seeds in it
    assert cli.main(["check", "relu_depth:lucas_threshold", "--seed", "3", "--no-progress"]) == 0
    doc = json.loads(path.read_text())
    assert [r["claim"] for r in doc["results"]] == ["lucas_threshold"] and doc["root_seed"] == 3


def test_results_reads_the_users_runs_by_default(tmp_path, monkeypatch):
    out = tmp_path / "out"
    monkeypatch.setenv("THEORYLAB_OUT", str(out))
    assert len(theorylab.results(paper="relu_depth", scale="ci")) == 0  # nothing run yet
    _fake_record("relu_depth", out / "results")
    mine = theorylab.results(paper="relu_depth", scale="ci")
    assert len(mine) == len(discover().claims_of("relu_depth")) and set(mine["measured_text"]) == {"1.0"}
    committed = theorylab.results(paper="relu_depth", source="committed")
    assert len(committed) > 0 and set(committed["measured_text"]) != {"1.0"}
    assert len(theorylab.results(root=out / "results")) == len(mine)


def test_results_refuses_unknown_papers_scales_and_sources():
    with pytest.raises(ValueError, match="'rr_sdg'"):
        theorylab.results(paper="rr_sdg")
    with pytest.raises(ValueError, match="'medium'"):
        theorylab.results(scale="medium")
    with pytest.raises(ValueError, match="source"):
        theorylab.results(source="mine")
    with pytest.raises(TypeError, match="paper"):
        theorylab.results(paper=3)
