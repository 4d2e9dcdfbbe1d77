"""Every notebook in notebooks/ executes headless at CI scale (so that none can rot)."""

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path):
    os.environ["THEORYLAB_SCALE"] = "ci"
    os.environ["THEORYLAB_HEADLESS"] = "1"  # widget cells draw once at their defaults
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors


def test_there_is_a_notebook_per_paper():
    from theorylab.core import discover

    stems = {p.stem for p in NOTEBOOKS}
    missing = sorted(set(discover().papers) - stems)
    assert not missing, f"papers without a notebook: {missing}"


def notebook_builders() -> dict:
    """{paper id: path of the script that builds notebooks/<paper id>.ipynb}.

    The one place that knows where builders live (notebooks/builders/<paper id>.py, run by
    notebooks/build.py).  A builder defines ``cells()`` and writes with ``write_notebook("<paper id>", ...)``."""
    import re

    root = Path(__file__).resolve().parent.parent
    found = {}
    for path in sorted(root.glob("notebooks/builders/*.py")):
        m = re.search(r'write_notebook\(\s*"(\w+)"', path.read_text())
        assert m, f"{path}: no write_notebook(\"<paper id>\", ...) call"
        assert m.group(1) not in found, f"two builders for {m.group(1)}: {found[m.group(1)]}, {path}"
        found[m.group(1)] = path
    return found


def _load(path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_nb_builder_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_notebook_has_a_builder():
    assert sorted(notebook_builders()) == sorted(p.stem for p in NOTEBOOKS)


@pytest.mark.parametrize("paper_id", sorted(notebook_builders()))
def test_committed_notebook_equals_its_builders_output(paper_id, tmp_path):
    """Issue 28: a committed notebook that drifted from its builder (a claim renamed or removed, a cell edited
    by hand) fails here; rebuild it with its builder."""
    from theorylab.core.notebooks import write_notebook

    path = notebook_builders()[paper_id]
    built = write_notebook(paper_id, _load(path).cells(), tmp_path / f"{paper_id}.ipynb")
    committed = Path(__file__).resolve().parent.parent / "notebooks" / f"{paper_id}.ipynb"
    assert built.read_text() == committed.read_text(), (
        f"notebooks/{paper_id}.ipynb differs from what {path.name} builds: rebuild it")
