"""Notebook cells as a user saves them (issue 30 frictions): a slider cell run without a front end and
without THEORYLAB_HEADLESS saves no ``interactive(...)`` placeholder and no ``<function redraw>`` line,
and ``|x|`` in a claims table reads as written."""

import json

import pytest

from theorylab.core.notebooks import SLIDERS_TEXT, explore_cell, header_cells, table_cell

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipywidgets")


def _saved_outputs(cell_source, monkeypatch, headless):
    if headless:
        monkeypatch.setenv("THEORYLAB_HEADLESS", "1")
    else:
        monkeypatch.delenv("THEORYLAB_HEADLESS", raising=False)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell_source)],
                                  metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    return json.dumps(nb.cells[0]["outputs"])


def test_a_slider_cell_saves_no_placeholder_and_no_function_line(monkeypatch):
    _, src = explore_cell("f'value {2 * x}'", {"x": (1, "IntSlider(value=1, min=0, max=3)")})
    saved = _saved_outputs(src, monkeypatch, headless=False)
    assert "interactive(" not in saved and "<function" not in saved
    assert SLIDERS_TEXT in saved and "application/vnd.jupyter.widget-view+json" in saved
    saved = _saved_outputs(src, monkeypatch, headless=True)
    assert "value 2" in saved and "<function" not in saved and "widget-view" not in saved


def test_table_cells_keep_absolute_values():
    assert table_cell("E|theta - theta*| -> 2") == r"E\|theta - theta*\| -> 2"
    assert table_cell("on $|x|^2$ and |y|") == r"on $\vert x\vert ^2$ and \|y\|"
    assert table_cell("costs $5 | more") == r"costs $5 \| more"  # an unpaired $ is no math
    intro = header_cells("rr_sgd")[0][1]
    assert r"E\|theta_RR - theta*\|" in intro and "E/theta_RR" not in intro
