"""``theorylab new PAPER --in DIR``: a paper of your own, ready to check, in your package.

Writes into ``DIR`` (the package's project folder; the package is ``DIR``'s name unless
``package=`` says otherwise):

* ``<package>/<paper>.py``: the validation module, a toy that runs in seconds with one claim of each
  evidence kind (estimate, slope, bound, proportion, identity) and one figure with its caption;
* ``tests/test_<paper>.py``: unit tests of the simulator, a mutation test and the notebook's run;
* ``notebooks/<paper>.ipynb``: the claims and the figure, with parameters to explore;
* ``pyproject.toml`` with the entry point that registers the paper (if ``DIR`` has none; otherwise
  the lines to add are returned, never written into an existing file), ``README.md`` likewise.

Existing files are never overwritten.  ``pytest`` (and ``pytest -p theorylab``) passes in the
scaffold as generated, once the package is installed (``pip install -e DIR``).
"""

from __future__ import annotations

import json
import keyword
from pathlib import Path

TEMPLATES = Path(__file__).parent / "templates"


def entry_point_lines(paper: str, package: str) -> str:
    """The ``pyproject.toml`` lines that register ``paper`` (module ``package.paper``) with theorylab."""
    return f'[project.entry-points."theorylab.papers"]\n{paper} = "{package}.{paper}"\n'


def _identifier(what: str, value) -> str:
    if not isinstance(value, str) or not value.isidentifier() or keyword.iskeyword(value):
        raise ValueError(f"{what} must be a Python identifier (letters, digits, _; not a keyword); got {value!r}")
    return value


def _notebook(paper: str, package: str) -> str:
    """The notebook: markdown and code cells (nbformat 4), written as JSON here because nbformat (which
    :func:`theorylab.core.notebooks.write_notebook` uses) is a test extra, not a dependency of theorylab."""
    from ..core.notebooks import KERNELSPEC

    def cell(kind, text):
        c = {"cell_type": kind, "metadata": {}, "source": text.strip("\n").splitlines(keepends=True)}
        if kind == "code":
            c.update(execution_count=None, outputs=[])
        return c

    cells = [
        cell("markdown", f"# {paper}: claims checked by simulation\n\nThe claims of `{package}/{paper}.py`, "
                         "run at ci scale (seconds), and the figure. Change the parameters below and rerun."),
        cell("code", f"from theorylab.claims import run_claim\n\nfrom {package} import {paper} as paper"),
        cell("markdown", "## The claims and their verdicts"),
        cell("code", "claims = [paper.mse_rate, paper.mse_constant, paper.gaussian_tail, paper.clt_coverage,\n"
                     "          paper.mse_closed_form]\n"
                     "for f in claims:\n"
                     "    r = run_claim(f.claim, \"ci\", seed=0)\n"
                     "    print(f\"{r.claim:<16} {r.verdict:<15} measured {r.measured}  predicted {r.predicted}\")"),
        cell("markdown", "## The figure"),
        cell("code", "fig, data = paper.mse_vs_k(**paper.SCALES[\"ci\"], seed=0)\ndata"),
        cell("markdown", "## Explore: the noise level\n\n`k E[x_k^2]` should be `sigma^2` whatever `sigma` is."),
        cell("code", "for sigma in (0.5, 1.0, 2.0):\n"
                     "    x = paper.sgd_iterates(256, 4000, sigma=sigma, seed=1)\n"
                     "    print(sigma, 256 * (x[:, -1] ** 2).mean(), sigma ** 2)"),
    ]
    nb = {"cells": cells, "metadata": {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    for i, c in enumerate(nb["cells"]):
        c["id"] = f"{paper}-{i}"
    return json.dumps(nb, indent=1) + "\n"


def scaffold(paper: str, folder, *, package: str | None = None, title: str = "", authors: str = "",
             venue: str = "preprint") -> dict:
    """Write a new paper ``paper`` into the project folder ``folder`` (see the module docstring).

    Parameters
    ----------
    paper : str
        The paper id: an identifier, not one of theorylab's built-in papers.
    folder : str or Path
        The project folder of the package (created if missing).
    package : str, optional
        The import name of the package; default ``folder``'s name.
    title, authors, venue : str
        The paper's metadata, written into its ``Paper(...)``.

    Returns
    -------
    dict
        ``written``: the files written; ``skipped``: files that existed and were left alone;
        ``entry_points``: the pyproject lines registering the paper (to add by hand when the
        project already had a pyproject.toml: ``pyproject_written`` is then False).
    """
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    from ..core.papers import builtin_papers

    paper = _identifier("PAPER", paper)
    if paper in builtin_papers():
        raise ValueError(f"PAPER: {paper!r} is one of theorylab's built-in papers; choose another id")
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--in: {str(folder)!r} is a file; give the project folder of your package")
    package = _identifier("--package (default: the folder's name)", package or folder.resolve().name)
    for name, value in (("title", title), ("authors", authors), ("venue", venue)):
        if not isinstance(value, str) or '"' in value or "\n" in value:
            raise ValueError(f"{name} must be a one-line str without double quotes; got {value!r}")
    env = Environment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined, keep_trailing_newline=True)
    entry = entry_point_lines(paper, package)
    values = dict(paper=paper, package=package, title=title or f"The paper {paper}", authors=authors or "Me",
                  venue=venue, entry_points=entry)
    files = {
        folder / package / f"{paper}.py": env.get_template("paper.py.j2").render(**values),
        folder / "tests" / f"test_{paper}.py": env.get_template("test_paper.py.j2").render(**values),
        folder / "notebooks" / f"{paper}.ipynb": _notebook(paper, package),
        folder / "pyproject.toml": env.get_template("pyproject.toml.j2").render(**values),
        folder / "README.md": env.get_template("README.md.j2").render(**values),
    }
    files[folder / package / "__init__.py"] = f'"""{package}: papers checked with theorylab."""\n'
    written, skipped = [], []
    for path, text in files.items():
        if path.exists():
            skipped.append(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return {"written": written, "skipped": skipped, "entry_points": entry,
            "pyproject_written": folder / "pyproject.toml" in written, "package": package}
