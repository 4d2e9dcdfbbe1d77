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
