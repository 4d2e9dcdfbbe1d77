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


def _paper_of(nodeid: str, papers) -> str:
    """The paper a test belongs to: its file test_<paper>.py, or a parameter id naming the paper."""
    path, _, rest = nodeid.partition("::")
    stem = path.rsplit("/", 1)[-1].removesuffix(".py").removeprefix("test_")
    if stem in papers:
        return stem
    if stem in ("fuzz", "zz_fuzz"):
        return "fuzz (budget 60 s)"
    if "[" in rest:
        param = rest.split("[", 1)[1].rstrip("]")
        for pid in papers:
            if param == pid or param.startswith(pid + ":") or param.startswith(pid + "-"):
                return pid
    return "core and shared"


def pytest_terminal_summary(terminalreporter):
    """Print each paper's share of the run (setup + call + teardown), against the 15 s budget."""
    try:
        from theorylab.core.checks import paper_ids

        papers = paper_ids()
    except Exception:  # noqa: BLE001 - the summary must never break a run
        return
    share: dict[str, float] = {}
    for reports in terminalreporter.stats.values():
        for rep in reports:
            if hasattr(rep, "duration") and hasattr(rep, "nodeid") and rep.nodeid:
                pid = _paper_of(rep.nodeid, papers)
                share[pid] = share.get(pid, 0.0) + float(rep.duration)
    if not share:
        return
    terminalreporter.section("CI share per paper (budget 15 s each, numba compilation included)")
    for pid, seconds in sorted(share.items(), key=lambda kv: -kv[1]):
        budget = {"core and shared": None, "fuzz (budget 60 s)": 60}.get(pid, 15)
        flag = "  OVER BUDGET" if budget is not None and seconds > budget else ""
        terminalreporter.write_line(f"{pid:<24} {seconds:7.1f} s{flag}")
