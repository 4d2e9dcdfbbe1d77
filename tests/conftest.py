"""Shared test setup: results cache in a temporary folder, CI scale, headless matplotlib."""

import os

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ["THEORYLAB_SCALE"] = "ci"


@pytest.fixture(scope="session")
def cache(tmp_path_factory):
    """One result cache for the whole session, so claims sharing a run are computed once."""
    from theorylab.core import Cache

    root = tmp_path_factory.mktemp("theorylab-cache")
    os.environ["THEORYLAB_CACHE"] = str(root)
    return Cache(root)
