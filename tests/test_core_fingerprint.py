"""The code fingerprint (issue 29): it hashes what computes the numbers, not presentation.

Editing a presentation module (plotting, the ledger writer, the results reader, the CLI, a notebook builder)
must leave every paper's fingerprint (and so every record) current; editing a kernel file must change the
fingerprints of exactly the papers that import it.  Edits are simulated by patching
``fingerprint.read_source``, the one function that reads the hashed bytes.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from theorylab.core import fingerprint as F
from theorylab.core.checks import paper_ids

RUNTIME_IMPORTS = textwrap.dedent("""
    import json, sys
    import theorylab.core
    out = {}
    for pid in sys.argv[1:]:
        for m in [m for m in sys.modules if m.startswith("theorylab.") and not m.startswith("theorylab.core")]:
            del sys.modules[m]
        __import__(f"theorylab.validations.{pid}")
        out[pid] = sorted(m for m in sys.modules if m.startswith("theorylab."))
    json.dump(out, sys.stdout)
""")


@pytest.fixture(scope="module")
def papers():
    return paper_ids()


@pytest.fixture(scope="module")
def runtime_imports(papers):
    """{paper: theorylab modules loaded by importing its validation module in a fresh interpreter}."""
    out = subprocess.run([sys.executable, "-c", RUNTIME_IMPORTS, *papers], capture_output=True, text=True,
                         timeout=300, env={"NUMBA_NUM_THREADS": "1", **__import__("os").environ})
    assert out.returncode == 0, out.stderr
    return {pid: set(mods) for pid, mods in json.loads(out.stdout).items()}


_READ_SOURCE = F.read_source


def _fingerprints(papers):
    return {pid: F.compute_fingerprint(f"theorylab.validations.{pid}") for pid in papers}


def _editing(monkeypatch, edited):
    """Patch read_source so that the files in ``edited`` (only these) read as edited (a comment appended)."""
    real = _READ_SOURCE
    edited = {Path(p).resolve() for p in edited}
    monkeypatch.setattr(F, "read_source", lambda path: real(path) + (b"\n# edited\n" if Path(path).resolve() in edited
                                                                   else b""))


def test_every_module_a_paper_loads_is_hashed_unless_it_is_presentation(papers, runtime_imports):
    for pid in papers:
        hashed = set(F.computing_files(f"theorylab.validations.{pid}"))
        loaded = {m for m in runtime_imports[pid] if not F.is_presentation(m) and F.locate(m) is not None}
        assert loaded <= hashed, (pid, sorted(loaded - hashed))
        assert not any(F.is_presentation(m) for m in hashed - {f"theorylab.validations.{pid}"}), pid


def test_editing_presentation_leaves_every_fingerprint_unchanged(monkeypatch, papers):
    pkg = F.PKG_ROOT
    presentation = [pkg / "__init__.py", *pkg.glob("cli*.py"), *pkg.glob("cli/*.py"), *pkg.rglob("_build_notebook*.py")]
    presentation += [pkg / "core" / f"{m}.py" for m in ("plotting", "ledger", "results", "notebooks", "paths",
                                                       "timing", "calibrate", "dask_backend", "interrupt")]
    assert all(p.exists() for p in presentation)
    before = _fingerprints(papers)
    _editing(monkeypatch, presentation)
    assert _fingerprints(papers) == before
    # the patch is seen: editing a computing part of core changes every paper
    _editing(monkeypatch, [pkg / "core" / "evidence.py"])
    after = _fingerprints(papers)
    assert all(after[pid] != before[pid] for pid in papers)


def test_editing_a_kernel_changes_exactly_the_papers_that_import_it(monkeypatch, papers, runtime_imports):
    before = _fingerprints(papers)
    kernels = sorted(F.PKG_ROOT.glob("*/_kernels*.py"))
    assert len(kernels) >= 10
    for path in kernels:
        rel = path.relative_to(F.PKG_ROOT).with_suffix("").parts
        module, package = ".".join(("theorylab",) + rel), f"theorylab.{rel[0]}"
        importers = {pid for pid in papers if module in runtime_imports[pid]}
        users = {pid for pid in papers if package in runtime_imports[pid]}
        _editing(monkeypatch, [path])
        changed = {pid for pid, fp in _fingerprints(papers).items() if fp != before[pid]}
        # every paper that loads the kernel goes stale; no paper that does not use its package does
        assert importers <= changed <= users, (module, importers, changed, users)
        if importers:  # a kernel imported lazily (inside a function) is hashed for its package's users
            assert changed == importers, (module, changed, importers)


def test_a_validation_package_hashes_its_submodules(tmp_path, monkeypatch):
    """validations/<paper>/ may be a package: its submodules are part of its fingerprint."""
    root = tmp_path / "validations"
    (root / "toy").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "toy" / "__init__.py").write_text("from .runs import f\n")
    (root / "toy" / "runs.py").write_text("from theorylab.markov import run_pair\ndef f(): return 1\n")
    (root / "toy" / "_private.py").write_text("X = 1\n")
    monkeypatch.setitem(F._ROOTS, "validations", [root])
    files = F.computing_files("theorylab.validations.toy")
    assert {"theorylab.validations.toy.runs", "theorylab.validations.toy._private", "theorylab.markov",
            "theorylab.markov._kernels"} <= set(files)
    before = F.compute_fingerprint("theorylab.validations.toy")
    _editing(monkeypatch, [root / "toy" / "_private.py"])
    assert F.compute_fingerprint("theorylab.validations.toy") != before


def test_fingerprint_of_unknown_and_foreign_modules():
    assert len(F.code_fingerprint("no.such.module")) == 16
    assert F.code_fingerprint("theorylab.validations.rr_sgd") != F.code_fingerprint("theorylab.validations.tv_distance")
    with pytest.raises(ValueError, match="module_name"):
        F.computing_files("theorylab.no_such_package")
