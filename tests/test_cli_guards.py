"""Commands that must refuse, or stay away from the committed outputs (was part of the issue-14 audit).

* ``figures`` and ``calibrate`` without a paper refuse and point to ``--all``.
* A corrupt or malformed record among the *committed* results (not only the user's outputs) stops
  ``report`` naming the file.
* The README's user commands (check, figures at ci scale, report) leave results/, figures/ and
  paper_checks.md of the checkout untouched.
"""

import re

import pytest

from theorylab import cli
from theorylab.core.checks import discover

FAST = "rr_sgd:rr_leading_level"  # its cos sweep has 8 points at ci scale (i_max = 7)


@pytest.fixture
def out(tmp_path, monkeypatch):
    monkeypatch.setenv("THEORYLAB_OUT", str(tmp_path / "out"))
    return tmp_path / "out"


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
