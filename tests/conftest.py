"""Shared test setup: results cache in a temporary folder, CI scale, headless matplotlib; the
resume fixture (`rerun_after_losing_points`)."""

import os

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ["THEORYLAB_SCALE"] = "ci"
# theorylab's own papers only: a package with papers installed in the environment (entry point group
# theorylab.papers) must not change what these tests run; tests/test_external_papers.py turns it back on
os.environ["THEORYLAB_PAPERS"] = "builtin"


@pytest.fixture(scope="session")
def cache(tmp_path_factory):
    """One result cache for the whole session, so claims sharing a run are computed once."""
    from theorylab.core import Cache

    root = tmp_path_factory.mktemp("theorylab-cache")
    os.environ["THEORYLAB_CACHE"] = str(root)
    return Cache(root)


# The mutation-test fixture `broken_claim` is theorylab's pytest plugin's (theorylab/pytest_plugin.py,
# loaded through its pytest11 entry point), the same one users' packages get.


@pytest.fixture
def rerun_after_losing_points(tmp_path):
    """Issue 14's resume protocol for a claim whose loop goes through core.sweep.

    ``check(c, seed, calls, lose, overrides=None, reset=None)`` runs claim ``c`` at ci scale with a
    fresh Cache and asserts it is reproduced with one cache entry per sweep point (``calls``: a
    list the test's monkeypatched point function appends to, one item per computed point).  It
    then deletes the claim entry and the points ``lose`` selects (as a SIGKILL mid-claim would),
    reruns, and asserts that exactly those points are recomputed, the others served unchanged
    from the cache, with the same verdict and measured text.  Shared experiments' entries
    (core.experiment) are lost with the claim entry, and their in-process memo is cleared before each
    run (``reset``: anything else to clear).  Returns ``(first, again, first_calls)``.
    """
    from theorylab.core import Cache, clear_experiments
    from theorylab.core.checks import apply_overrides, run_claim
    from theorylab.core.experiment import ExperimentEntry

    def check(c, seed, calls, lose, overrides=None, reset=None):
        extra = reset or (lambda: None)

        def reset():
            clear_experiments()
            extra()

        store = Cache(tmp_path / "resume-cache")
        params, _ = apply_overrides(c, c.params("ci"), overrides)
        claim_path = store.path(store.key("claim", c.paper.id, c.id, "ci", seed, params, module=c.func.__module__))
        reset()
        first = run_claim(c, "ci", seed, cache=store, overrides=overrides)
        first_calls = list(calls)
        entries = [p for p in sorted(store.root.rglob("*.pkl")) if p != claim_path]
        experiments = [p for p in entries if isinstance(store.get(p.stem), ExperimentEntry)]
        points = [p for p in entries if p not in experiments]
        assert first.verdict == "reproduced" and claim_path.exists() and len(points) == len(first_calls)

        claim_path.unlink()
        for p in experiments:
            p.unlink()
        lost = points[lose]
        kept = {p: p.stat().st_mtime_ns for p in points if p not in lost}
        for p in lost:
            p.unlink()
        calls.clear()
        reset()
        try:
            again = run_claim(c, "ci", seed, cache=store, overrides=overrides)
        finally:
            reset()
        assert len(calls) == len(lost) > 0
        assert {p: p.stat().st_mtime_ns for p in kept} == kept  # served, not rewritten
        assert (again.verdict, again.measured) == (first.verdict, first.measured)
        return first, again, first_calls

    return check


def _paper_of(nodeid: str, papers) -> str:
    """The paper a test belongs to: its file test_<paper>.py, or a parameter id naming the paper."""
    path, _, rest = nodeid.partition("::")
    stem = path.rsplit("/", 1)[-1].removesuffix(".py").removeprefix("test_")
    if stem in papers:
        return stem
    if stem == "bad_input_fuzz":
        return "fuzz (budget 60 s)"
    if "[" in rest:
        param = rest.split("[", 1)[1].rstrip("]")
        for pid in papers:
            if param == pid or param.startswith(pid + ":") or param.startswith(pid + "-"):
                return pid
    return "core and shared"


#: Test files that run after all others, in this order: by then the papers' tests have compiled the
#: numba kernels into their on-disk caches, so these load them instead of compiling.
RUN_LAST = ("test_interrupt_real_kernels.py", "test_bad_input_fuzz.py")


def pytest_collection_modifyitems(session, config, items):
    """Run the files of :data:`RUN_LAST` last (a stable sort keeps every other order)."""
    def rank(item):
        name = item.nodeid.split("::")[0].rsplit("/", 1)[-1]
        return RUN_LAST.index(name) + 1 if name in RUN_LAST else 0
    items.sort(key=rank)


_CPU: dict[str, float] = {}  # nodeid -> CPU seconds of this process and its reaped children


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start = _cpu_seconds()
    yield
    _CPU[item.nodeid] = _CPU.get(item.nodeid, 0.0) + _cpu_seconds() - start


def pytest_terminal_summary(terminalreporter):
    """Print each paper's share of the run (setup + call + teardown) in wall and CPU time, against the 15 s budget.

    Wall time grows when other work shares the machine; CPU time (this process and the subprocesses it
    waited for) does not, but counts each busy thread.  A paper is OVER BUDGET when both exceed it; when
    only the wall time does, the machine was loaded (the load average is printed).
    """
    try:
        from theorylab.core.checks import paper_ids

        papers = paper_ids()
    except Exception:  # noqa: BLE001 - the summary must never break a run
        return
    share: dict[str, float] = {}
    cpu: dict[str, float] = {}
    for reports in terminalreporter.stats.values():
        for rep in reports:
            if hasattr(rep, "duration") and hasattr(rep, "nodeid") and rep.nodeid:
                pid = _paper_of(rep.nodeid, papers)
                share[pid] = share.get(pid, 0.0) + float(rep.duration)
    for nodeid, seconds in _CPU.items():
        pid = _paper_of(nodeid, papers)
        cpu[pid] = cpu.get(pid, 0.0) + seconds
    if not share:
        return
    terminalreporter.section("CI share per paper (budget 15 s each, numba compilation included)")
    terminalreporter.write_line(f"{'':<24} {'wall':>9} {'CPU':>9}")
    loaded = False
    for pid, seconds in sorted(share.items(), key=lambda kv: -kv[1]):
        budget = {"core and shared": None, "fuzz (budget 60 s)": 60}.get(pid, 15)
        used = cpu.get(pid, 0.0)
        flag = ""
        if budget is not None and seconds > budget:
            flag = "  OVER BUDGET" if used > budget else "  (wall only: machine loaded)"
            loaded |= used <= budget
        terminalreporter.write_line(f"{pid:<24} {seconds:7.1f} s {used:7.1f} s{flag}")
    if loaded and hasattr(os, "getloadavg"):
        terminalreporter.write_line(f"load average now {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
