"""Issue 36: papers of a package that is not theorylab (entry points), the pytest plugin, the scaffold.

``tests/external/tl_example`` is made importable with its entry points by a ``dist-info`` folder written
into a temporary directory put on ``PYTHONPATH`` (importlib.metadata reads entry points from there), as
``pip install`` would.  The CLI and pytest run in subprocesses, as a user runs them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from theorylab.core.paths import results_dir

EXAMPLE = Path(__file__).parent / "external"
PAPERS = {"ext_demo": "tl_example.demo", "ext_wrong": "tl_example.wrong"}


def install(site: Path, name: str, papers: dict) -> Path:
    """Make a distribution ``name`` registering ``papers`` visible from ``site`` (a folder for PYTHONPATH)."""
    site.mkdir(parents=True, exist_ok=True)
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    lines = "".join(f"{pid} = {module}\n" for pid, module in papers.items())
    (info / "entry_points.txt").write_text(f"[theorylab.papers]\n{lines}")
    return site


def user_env(tmp_path, *path) -> dict:
    """Environment variables of a user with the folders ``path`` importable and an output folder of their own."""
    e = dict(os.environ)
    e.update(PYTHONPATH=os.pathsep.join([str(p) for p in path] + [p for p in [e.get("PYTHONPATH")] if p]),
             THEORYLAB_OUT=str(tmp_path / "out"), THEORYLAB_CACHE=str(tmp_path / "cache"), MPLBACKEND="Agg",
             NUMBA_NUM_THREADS="1")
    e.pop("THEORYLAB_ROOT", None)
    e["THEORYLAB_PAPERS"] = "all"  # conftest limits this session to the built-in papers; a user's run does not
    return e


@pytest.fixture
def env(tmp_path):
    """A user with tl_example installed."""
    return user_env(tmp_path, install(tmp_path / "site", "tl_example", PAPERS), EXAMPLE)


def theorylab(env, *args, cwd=None):
    return subprocess.run([sys.executable, "-m", "theorylab", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_cli_lists_checks_and_reports_an_external_paper(env, tmp_path):
    before = sorted(p.name for p in results_dir().glob("*"))
    listed = theorylab(env, "list")
    assert listed.returncode == 0, listed.stderr
    assert "ext_demo" in listed.stdout and "tl_example.demo" in listed.stdout and "rr_sgd" in listed.stdout

    checked = theorylab(env, "check", "ext_demo", "--no-progress")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "variance_rate" in checked.stdout and "declared finding" in checked.stdout
    out = tmp_path / "out"
    assert (out / "results" / "ext_demo.ci.json").exists()
    # records go to the user's output folder, never into theorylab's own results/
    assert sorted(p.name for p in results_dir().glob("*")) == before
    assert not list(results_dir().glob("ext_*"))

    figs = theorylab(env, "figures", "ext_demo", "--scale", "ci", "--no-progress")
    assert figs.returncode == 0, figs.stderr
    assert (out / "figures" / "ext_demo" / "variance_vs_n.ci.png").exists()

    site = tmp_path / "site_html"
    html = theorylab(env, "report", "--html", "--out", str(site))
    assert html.returncode == 0, html.stderr
    page = (site / "ext_demo.html").read_text()
    assert "variance_rate" in page and "A. Tester" in page
    assert "ext_demo" in (site / "index.html").read_text()


def test_a_wrong_claim_fails_the_check_and_publishing_is_refused(env):
    wrong = theorylab(env, "check", "ext_wrong", "--no-progress", "--no-record")
    assert wrong.returncode == 1
    assert "ext_wrong:variance_rate_wrong (not reproduced)" in wrong.stderr
    published = theorylab(env, "check", "ext_demo", "--publish", "--no-progress")
    assert published.returncode == 2 and "another package" in published.stderr, published.stderr


def test_an_id_of_a_builtin_paper_is_refused(tmp_path, env):
    install(tmp_path / "site2", "tl_clash", {"rr_sgd": "tl_example.clash"})
    env = {**env, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site2"), env["PYTHONPATH"]])}
    r = theorylab(env, "list")
    assert r.returncode == 2
    assert "tl_clash" in r.stderr and "'rr_sgd' is one of theorylab's built-in papers" in r.stderr


def test_the_fingerprint_follows_the_external_package(monkeypatch):
    from theorylab.core.fingerprint import computing_files

    monkeypatch.syspath_prepend(str(EXAMPLE))
    files = computing_files("tl_example.demo")
    assert {"tl_example", "tl_example.demo", "tl_example.sim", "theorylab.claims", "theorylab.core.evidence"} <= set(files)
    assert "tl_example.wrong" not in files and "theorylab.cli" not in files


def _pytest(env, folder, *args):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_pytest_plugin_collects_claims_and_reports_the_verdict(env, tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "conftest.py").write_text("")  # a project without tests: the plugin's items are the only ones
    inactive = _pytest(env, folder, "-q")
    assert inactive.returncode == 5, inactive.stdout  # not asked for: no item collected

    run = _pytest(env, folder, "-p", "theorylab", "-v")
    assert run.returncode == 1, run.stdout + run.stderr  # ext_wrong fails; ext_demo's three pass
    for cid in ("variance_rate", "variance_level", "variance_doubled"):  # the declared finding passes too
        assert f"ext_demo:{cid} PASSED" in run.stdout
    assert "ext_wrong:variance_rate_wrong FAILED" in run.stdout
    for text in ("ext_wrong:variance_rate_wrong at ci scale: not reproduced (unexpected failure)",
                 "95% interval: [", "family-wise interval: [", "predicted:  -2", "measured:   slope"):
        assert text in run.stdout, run.stdout

    by_k = _pytest(env, folder, "-p", "theorylab", "-k", "ext_demo and rate", "--collect-only", "-q")
    assert "ext_demo:variance_rate" in by_k.stdout and "variance_level" not in by_k.stdout, by_k.stdout
    selected = _pytest(env, folder, "-p", "theorylab", "--theorylab-paper", "ext_demo", "--collect-only", "-q")
    assert "ext_demo:variance_rate" in selected.stdout and "ext_wrong" not in selected.stdout
    unknown = _pytest(env, folder, "-p", "theorylab", "--theorylab-paper", "nope")
    assert unknown.returncode == 4 and "nope: not a registered paper" in unknown.stderr


def test_the_scaffold_passes_its_own_tests(tmp_path):
    from theorylab.scaffold import scaffold

    project = tmp_path / "mypkg"
    out = scaffold("my_rate", project)
    assert out["pyproject_written"] and len(out["written"]) == 6
    assert '[project.entry-points."theorylab.papers"]\nmy_rate = "mypkg.my_rate"' in (project / "pyproject.toml").read_text()
    again = scaffold("my_rate", project)  # never overwrites
    assert again["written"] == [] and len(again["skipped"]) == 6

    e = user_env(tmp_path, install(tmp_path / "site", "mypkg", {"my_rate": "mypkg.my_rate"}), project)
    r = _pytest(e, project, "-p", "theorylab", "-q")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "14 passed" in r.stdout  # 9 tests (incl. the mutation test and the notebook) + 5 claims


def test_the_scaffold_refuses_bad_ids(tmp_path):
    from theorylab.scaffold import scaffold

    with pytest.raises(ValueError, match="built-in"):
        scaffold("rr_sgd", tmp_path / "p")
    with pytest.raises(ValueError, match="PAPER"):
        scaffold("my-rate", tmp_path / "p")
    with pytest.raises(ValueError, match="package"):
        scaffold("my_rate", tmp_path / "my-pkg")


def test_the_public_api_is_documented():
    """Every name of theorylab.claims exists and its documentation has numpydoc sections."""
    import inspect

    import theorylab.claims as api

    missing = []
    for name in api.__all__:
        obj = getattr(api, name)
        if isinstance(obj, str):
            continue
        doc = inspect.getdoc(obj) or ""
        takes_arguments = bool(inspect.signature(obj).parameters)
        if not doc or (takes_arguments and "Parameters\n----------" not in doc):
            missing.append(name)
    assert not missing, f"no numpydoc Parameters section: {', '.join(missing)}"


def test_new_from_the_command_line(tmp_path, env):
    r = theorylab(env, "new", "my_rate", "--in", str(tmp_path / "mypkg"))
    assert r.returncode == 0, r.stderr
    assert "pip install -e" in r.stdout and (tmp_path / "mypkg" / "mypkg" / "my_rate.py").exists()
    existing = tmp_path / "other"
    existing.mkdir()
    (existing / "pyproject.toml").write_text("[project]\nname = 'other'\n")
    r = theorylab(env, "new", "their_rate", "--in", str(existing))
    assert r.returncode == 0 and 'their_rate = "other.their_rate"' in r.stdout
    assert (existing / "pyproject.toml").read_text() == "[project]\nname = 'other'\n"
    bad = theorylab(env, "new", "rr_sgd", "--in", str(tmp_path / "x"))
    assert bad.returncode == 2 and "built-in" in bad.stderr
    shutil.rmtree(tmp_path / "mypkg")
