"""Rebuild notebooks from their builders: ``python notebooks/build.py PAPER [PAPER ...]`` or ``--all``
(from the repository root).  Each paper's builder is ``notebooks/builders/PAPER.py``: a ``cells()``
function whose cells :func:`theorylab.core.notebooks.write_notebook` writes to
``notebooks/PAPER.ipynb`` with stable cell ids, so rebuilding an unchanged builder changes nothing.
Builders are presentation: they live beside the notebooks, outside the library and its fingerprint.
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

BUILDERS = Path(__file__).resolve().parent / "builders"


def papers() -> list[str]:
    """Paper ids that have a builder."""
    return sorted(p.stem for p in BUILDERS.glob("*.py") if not p.stem.startswith("_"))


def load(paper_id: str):
    """The builder module of ``paper_id``."""
    path = BUILDERS / f"{paper_id}.py"
    if not path.exists():
        raise ValueError(f"paper_id must name a builder in {BUILDERS}; got {paper_id!r}; known: "
                         f"{', '.join(papers())}")
    spec = importlib.util.spec_from_file_location(f"notebook_builder_{paper_id}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(paper_id: str) -> Path:
    """Write ``notebooks/PAPER.ipynb`` from its builder and return its path."""
    from theorylab.core.notebooks import write_notebook

    return write_notebook(paper_id, load(paper_id).cells())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("papers", nargs="*", help="paper ids (default: none; see --all)")
    parser.add_argument("--all", action="store_true", help="rebuild every notebook that has a builder")
    args = parser.parse_args(argv)
    ids = papers() if args.all else args.papers
    if not ids:
        parser.error(f"name a paper or pass --all; builders: {', '.join(papers())}")
    for paper_id in ids:
        print(build(paper_id))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
