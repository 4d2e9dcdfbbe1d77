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
