"""Where papers come from: theorylab's own (``theorylab.validations``) and other packages' (entry points).

A package that is not theorylab registers its papers in its ``pyproject.toml``::

    [project.entry-points."theorylab.papers"]
    my_rate = "mypkg.my_rate"          # paper id = module declaring Paper(id="my_rate")

    [project.entry-points."theorylab.benchmarks"]   # optional
    my_rate = "mypkg.bench_my_rate"

Once installed, every command (``list``, ``check``, ``figures``, ``calibrate``, ``report``,
``reproduce``, ``bench``, ``cite``) and the pytest plugin treat the paper like a built-in one,
except that its records and figures only ever go to the user's output folder (``--out``,
``$THEORYLAB_OUT``): ``--publish`` writes theorylab's own checkout and refuses them.  An id that is
also a built-in paper, an id named by two distributions, or an id that is not an identifier is
refused with a message naming the distribution.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil

PAPERS_GROUP = "theorylab.papers"
BENCHMARKS_GROUP = "theorylab.benchmarks"


def builtin_papers() -> list[str]:
    """theorylab's own paper ids: the modules of ``theorylab.validations`` (found without importing them)."""
    pkg = importlib.import_module("theorylab.validations")
    return sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_"))


_FOUND: dict[str, dict[str, str]] = {}


def forget() -> None:
    """Read the entry points again on next use (after installing a package into a running process)."""
    _FOUND.clear()


def _entry_points(group: str) -> dict[str, str]:
    """``{paper id: module}`` registered under ``group``, each checked (see the module docstring)."""
    if group not in _FOUND:
        _FOUND[group] = _read_entry_points(group)
    return dict(_FOUND[group])


def _read_entry_points(group: str) -> dict[str, str]:
    builtin = set(builtin_papers())
    out: dict[str, tuple[str, str]] = {}
    for ep in importlib.metadata.entry_points(group=group):
        dist = getattr(getattr(ep, "dist", None), "name", None) or "an installed distribution"
        where = f"entry point {group}:{ep.name} = {ep.value!r} of {dist}"
        if not ep.name.isidentifier():
            raise ValueError(f"{where}: a paper id must be a short identifier (letters, digits, _); got {ep.name!r}")
        if ep.name in builtin:
            raise ValueError(f"{where}: paper id {ep.name!r} is one of theorylab's built-in papers; "
                             f"give the paper another id (its Paper(id=...) and the entry point's name)")
        module = ep.value.partition(":")[0].strip()
        if not module or not all(part.isidentifier() for part in module.split(".")):
            raise ValueError(f"{where}: the value must name a module (e.g. 'mypkg.{ep.name}'); got {ep.value!r}")
        if ep.name in out and out[ep.name][0] != module:
            raise ValueError(f"{where}: paper id {ep.name!r} is also registered by {out[ep.name][1]} "
                             f"(module {out[ep.name][0]!r}); an id names one paper")
        out[ep.name] = (module, dist)
    return {pid: module for pid, (module, _) in sorted(out.items())}


def external_papers() -> dict[str, str]:
    """``{paper id: validation module}`` of the papers other packages register (entry points).

    ``$THEORYLAB_PAPERS=builtin`` ignores them (theorylab's own test suite sets it, so that a package a
    developer has installed does not change which papers theorylab's tests run).
    """
    if _builtin_only():
        return {}
    return _entry_points(PAPERS_GROUP)


def _builtin_only() -> bool:
    import os

    value = os.environ.get("THEORYLAB_PAPERS", "").strip()
    if value not in ("", "builtin", "all"):
        raise ValueError(f"THEORYLAB_PAPERS must be 'builtin' (theorylab's papers only) or 'all' (the default: "
                         f"with the papers other packages register); got {value!r}")
    return value == "builtin"


def external_benchmarks() -> dict[str, str]:
    """``{paper id: benchmark module}`` registered by other packages."""
    return {} if _builtin_only() else _entry_points(BENCHMARKS_GROUP)


def known_papers() -> list[str]:
    """Every paper id: theorylab's and the registered external ones."""
    return sorted(set(builtin_papers()) | set(external_papers()))


def module_of(paper_id: str) -> str:
    """The module that declares ``paper_id``'s claims."""
    ext = external_papers()
    if paper_id in ext:
        return ext[paper_id]
    if paper_id in builtin_papers():
        return f"theorylab.validations.{paper_id}"
    raise ValueError(f"unknown paper id {paper_id!r}; known: {', '.join(known_papers())}")


def benchmark_module_of(paper_id: str) -> str:
    """The module that would hold ``paper_id``'s benchmarks (it may not exist)."""
    ext = external_benchmarks()
    if paper_id in ext:
        return ext[paper_id]
    if paper_id in external_papers():
        return ""
    return f"theorylab.benchmarks.{paper_id}"


def import_external(paper_ids=None, *, benchmarks: bool = True) -> list[str]:
    """Import the modules of the external papers ``paper_ids`` (default: all), and with ``benchmarks`` every
    external benchmark module; the ids imported.

    A module that does not declare the paper its entry point names is refused.
    """
    from .checks import REGISTRY

    ext = external_papers()
    ids = list(ext) if paper_ids is None else list(paper_ids)
    for pid in ids:
        import_paper(pid, ext[pid])
    for module in (external_benchmarks().values() if benchmarks else ()):
        importlib.import_module(module)
    missing = [pid for pid in ids if pid not in REGISTRY.papers]
    if missing:
        raise ValueError(f"entry point(s) {', '.join(missing)} of group {PAPERS_GROUP}: the module "
                         f"{', '.join(ext[p] for p in missing)} declares no Paper with that id")
    return ids


def import_paper(paper_id: str, module: str | None = None):
    """Import the module declaring ``paper_id``; a module that cannot be imported names the entry point."""
    module = module or module_of(paper_id)
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if paper_id in external_papers() and exc.name and module.startswith(exc.name):
            raise ValueError(f"paper {paper_id!r}: its entry point names module {module!r}, which cannot be "
                             f"imported ({exc}); is its package installed?") from exc
        raise
