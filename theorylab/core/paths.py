"""Where generated artefacts go: the project root (the folder holding ``validations/`` and
``pyproject.toml``) when run from a checkout, else the current directory.

``$THEORYLAB_ROOT`` overrides the root; figures go to ``<root>/figures/<paper>/``, the ledger
to ``<root>/paper_checks.md`` and recorded check results to ``<root>/results/`` (``--publish``).
A user's own runs go to :func:`out_dir` instead and never touch the checkout.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path


def project_root() -> Path:
    env = os.environ.get("THEORYLAB_ROOT")
    if env:
        return Path(env)
    try:
        spec = importlib.util.find_spec("theorylab.validations")
    except ImportError:
        spec = None
    if spec is not None and spec.origin:
        root = Path(spec.origin).parent.parent
        if (root / "pyproject.toml").exists():
            return root
    return Path.cwd()


def figures_dir() -> Path:
    return project_root() / "figures"


def results_dir() -> Path:
    return project_root() / "results"


def ledger_path() -> Path:
    return project_root() / "paper_checks.md"


def out_dir() -> Path:
    """The folder for a user's outputs when no ``--out`` is given: ``$THEORYLAB_OUT`` or
    ``<cache>/out`` (the cache being ``$THEORYLAB_CACHE`` or ``~/.cache/theorylab``)."""
    from .cache import default_cache_dir

    return Path(os.environ.get("THEORYLAB_OUT", default_cache_dir() / "out"))
