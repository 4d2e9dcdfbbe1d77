"""Writing a paper's notebook with nbformat (notebooks are built by scripts, never hand-edited).

``write_notebook("relu_depth", cells)`` writes ``notebooks/relu_depth.ipynb`` under the project
root.  ``cells`` are ``("md", text)`` / ``("code", source)`` pairs or ready nbformat cells.
"""

from __future__ import annotations

from pathlib import Path

from .paths import project_root

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def write_notebook(paper_id: str, cells, path=None) -> Path:
    """Write the notebook of ``paper_id`` (default ``notebooks/<paper_id>.ipynb``) and return its path."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    made = []
    for cell in cells:
        if isinstance(cell, tuple):
            kind, text = cell
            if kind not in ("md", "code"):
                raise ValueError(f"cell kind must be 'md' or 'code'; got {kind!r}")
            cell = new_markdown_cell(text) if kind == "md" else new_code_cell(text)
        cell["id"] = f"cell-{len(made):03d}"  # stable ids: rebuilding an unchanged notebook changes nothing
        made.append(cell)
    path = Path(path) if path else project_root() / "notebooks" / f"{paper_id}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(new_notebook(cells=made, metadata={"kernelspec": dict(KERNELSPEC)}), path)
    return path


def table_cell(text: str) -> str:
    """``text`` for a cell of a Markdown table: ``|`` escaped as ``\\|`` (``\\vert`` inside ``$...$`` math), so
    ``|x|`` reads as written instead of splitting the row (it was shown as ``/x/``)."""
    parts = str(text).replace("\n", " ").split("$")
    if len(parts) % 2 == 0:  # an unpaired $ (a price, a shell variable): no math, escape every |
        parts = ["$".join(parts)]
    return "$".join(p.replace("|", r"\vert " if i % 2 else r"\|") for i, p in enumerate(parts))


def header_cells(paper_id: str) -> list:
    """The opening cells of a paper's notebook: the paper, its claims (from the registry), how to run them."""
    from .checks import discover, format_statement

    reg = discover()
    if paper_id not in reg.papers:
        raise ValueError(f"unknown paper id {paper_id!r}; known: {', '.join(sorted(reg.papers))}")
    paper = reg.papers[paper_id]
    link = f" ([arXiv:{paper.arxiv}](https://arxiv.org/abs/{paper.arxiv}))" if paper.arxiv else ""
    rows = ["| claim | statement (full scale) | citation | declared |", "|---|---|---|---|"]
    for c in reg.claims_of(paper_id):
        declared = "expected to reproduce" if c.expect_reproduced else "declared not to reproduce"
        statement = format_statement(c.statement, c.params("full"))  # as run at full scale
        rows.append(f"| `{c.id}` | {table_cell(statement)} | {table_cell(c.citation)} | {declared} |")
    intro = (f"# {paper.title}\n\n{paper.authors}, {paper.venue}{link}.\n\n"
             f"This notebook explores the simulator behind the paper's checks. Run every claim with "
             f"`theorylab check {paper_id} --scale ci` (or `--scale full`); one claim with "
             f"`theorylab check {paper_id}:CLAIM`. The verdicts are in `paper_checks.md`.\n\n"
             f"## Claims\n\n" + "\n".join(rows))
    return [("md", intro)]


def explore_cell(call: str, controls: dict) -> tuple[str, str]:
    """A code cell that redraws ``call`` (an expression in the controls' names) under ipywidgets sliders.

    ``controls`` maps a keyword to ``(default, ipywidgets expression)``, e.g.
    ``{"gamma": (0.05, "FloatLogSlider(value=0.05, base=10, min=-3, max=-0.5)")}``.  Without
    ipywidgets (the optional ``notebook`` extra), or when run headless (``THEORYLAB_HEADLESS=1``,
    as in the tests and for saving executed notebooks), the cell draws once at the defaults.
    """
    args = ", ".join(f"{k}={default!r}" for k, (default, _) in controls.items())
    widgets = ",\n        ".join(f"{k}=widgets.{expr}" for k, (_, expr) in controls.items())
    src = (f"from theorylab.core.notebooks import interact_or_once\n\n"
           f"def redraw({args}):\n    return {call}\n\n"
           f"try:\n    import ipywidgets as widgets\n    controls = dict(\n        {widgets})\n"
           f"except ImportError:\n    controls = None\n"
           f"interact_or_once(redraw, controls)")
    return ("code", src)


SLIDERS_TEXT = ("[sliders: open this notebook in Jupyter with ipywidgets to move them; run it with "
                "THEORYLAB_HEADLESS=1 to save the figure at the defaults instead]")


def headless() -> bool:
    """True when ``THEORYLAB_HEADLESS`` is set to anything but "" or "0": slider cells draw once."""
    import os

    return os.environ.get("THEORYLAB_HEADLESS", "") not in ("", "0")


class _Sliders:
    """An ``ipywidgets.interactive`` shown under a plain-text stand-in that says what it is.

    A notebook executed without a front end (nbconvert, nbclient) saves each output's text/plain
    part; for a widget that is ``interactive(children=(...))``.  This keeps the widget for Jupyter
    and replaces that text with :data:`SLIDERS_TEXT`.
    """

    def __init__(self, widget):
        self.widget = widget

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = dict(self.widget._repr_mimebundle_(include=include, exclude=exclude) or {})
        data["text/plain"] = SLIDERS_TEXT
        return data

    def __repr__(self):
        return SLIDERS_TEXT


def interact_or_once(func, controls):
    """Sliders for ``func`` in an interactive session; else ``func()`` at its defaults.

    Headless (``THEORYLAB_HEADLESS`` set) or without ipywidgets, the cell's value is ``func()`` (its
    figure is saved with the notebook).  With sliders the widget is displayed and None returned, so the
    cell saves no ``<function redraw>`` line and no ``interactive(...)`` text (see :class:`_Sliders`).
    """
    if controls is None or headless():
        return func()
    import ipywidgets
    from IPython.display import display

    display(_Sliders(ipywidgets.interactive(func, **controls)))
    return None
