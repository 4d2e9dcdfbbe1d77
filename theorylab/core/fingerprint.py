"""One fingerprint of "the code that computes a result", shared by the cache and the recorded results.

:func:`code_fingerprint` hashes the source of the files that compute a module's numbers: the
module itself (every file of it if it is a package, e.g. ``validations/<paper>/``), the theorylab
modules it imports, followed transitively module by module (a package's ``__init__`` runs on
import, so it counts; a file that imports modules by name at run time, e.g. a package
``__init__`` calling ``importlib.import_module``, pulls in every module of its package), and of
``theorylab/core`` only what it reaches that way.  Presentation is never hashed
(:data:`PRESENTATION`: plotting, the ledger writer, the results reader, notebooks and their
builders, paths, timing, progress, the command line, the dask driver, interrupts, the HTML
report), so editing it leaves every record current; editing a kernel changes exactly the
fingerprints of the modules that import it.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from pathlib import Path

import theorylab

PKG_ROOT = Path(theorylab.__file__).parent

#: Modules whose edits change no number (matched by dotted name; ``*`` ends a prefix).
PRESENTATION = (
    "theorylab",  # the package __init__: version (hashed separately) and results()
    "theorylab.__main__", "theorylab.cli", "theorylab.cli.*",
    "theorylab.core.plotting", "theorylab.core.ledger", "theorylab.core.results", "theorylab.core.notebooks",
    "theorylab.core.paths", "theorylab.core.timing", "theorylab.core.progress", "theorylab.core.report",
    "theorylab.core.report.*", "theorylab.core.html", "theorylab.core.calibrate", "theorylab.core.dask_backend",
    "theorylab.core.interrupt", "theorylab.core.fingerprint", "theorylab.core.records",
    "theorylab.report", "theorylab.report.*", "theorylab.core.papers", "theorylab.pytest_plugin",
    "theorylab.scaffold", "theorylab.scaffold.*",
)


def is_presentation(module: str) -> bool:
    """True for a module whose source is not part of any fingerprint (see :data:`PRESENTATION`)."""
    last = module.rsplit(".", 1)[-1]
    if last.startswith("_build_notebook"):
        return True
    return any(module == p or (p.endswith(".*") and module.startswith(p[:-1])) for p in PRESENTATION)


def read_source(path: Path) -> bytes:
    """The bytes hashed for ``path`` (one place, so that a test can simulate an edit)."""
    return Path(path).read_bytes()


# ------------------------------------------------------------------------------ locating modules
_ROOTS: dict[str, list[Path]] = {}


def _search_roots(top: str) -> list[Path]:
    """Folders holding ``theorylab.<top>``'s submodules (validations/benchmarks are mapped by setup.py)."""
    if top not in _ROOTS:
        try:
            spec = importlib.util.find_spec(f"theorylab.{top}")
        except (ImportError, ValueError):
            spec = None
        locs = list(getattr(spec, "submodule_search_locations", None) or []) if spec else []
        _ROOTS[top] = [Path(p) for p in locs] or [PKG_ROOT / top]
    return _ROOTS[top]


_EXT_ROOTS: dict[str, list] = {}


def _external_roots(top: str) -> tuple[Path | None, list[Path]]:
    """(file of the top-level module, folders of its submodules) of a package that is not theorylab."""
    if top not in _EXT_ROOTS:
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
        origin = Path(spec.origin) if spec is not None and spec.origin and spec.origin.endswith(".py") else None
        locs = list(getattr(spec, "submodule_search_locations", None) or []) if spec else []
        _EXT_ROOTS[top] = [origin] + [Path(p) for p in locs]
    first, *rest = _EXT_ROOTS[top]
    return first, rest


def _find_in(roots, rest: list[str]) -> tuple[Path, bool] | None:
    """(file, is_package) of the submodule ``rest`` (dotted parts; none: the package itself) under ``roots``."""
    for root in roots:
        base = root.joinpath(*rest)
        if (base / "__init__.py").is_file():
            return base / "__init__.py", True
        if rest and base.with_suffix(".py").is_file():
            return base.with_suffix(".py"), False
    return None


def _locate_external(parts: list[str]) -> tuple[Path, bool] | None:
    """(file, is_package) of a module of another package (a user's paper), or None."""
    origin, roots = _external_roots(parts[0])
    if len(parts) == 1 and not roots:  # a top-level single-file module
        return (origin, False) if origin is not None and origin.is_file() else None
    return _find_in(roots, parts[1:])


def locate(module: str) -> tuple[Path, bool] | None:
    """(file, is_package) of a module with a source file (theorylab's, or another package's), or None."""
    parts = module.split(".")
    if parts[0] != "theorylab":
        return _locate_external(parts) if all(p.isidentifier() for p in parts) else None
    if len(parts) == 1:
        return PKG_ROOT / "__init__.py", True
    found = _find_in(_search_roots(parts[1]), parts[2:])
    if found is not None:
        return found
    if len(parts) == 2 and (PKG_ROOT / f"{parts[1]}.py").is_file():
        return PKG_ROOT / f"{parts[1]}.py", False
    return None


def _parents(name: str, *, itself: bool = True) -> list[str]:
    """The dotted prefixes of ``name`` whose ``__init__`` runs when it is imported (and ``name`` itself):
    from ``theorylab.x`` down for theorylab (its own ``__init__`` is presentation), from the top for a user's."""
    parts = name.split(".")
    first = 2 if parts[0] == "theorylab" else 1
    return [".".join(parts[:k]) for k in range(first, len(parts) + (1 if itself else 0))]


def _package_of(module: str, is_pkg: bool) -> str:
    return module if is_pkg else module.rpartition(".")[0]


def _package_modules(package: str) -> set[str]:
    """Every module of ``package`` (recursively)."""
    found = locate(package)
    if found is None:
        return set()
    folder = found[0].parent
    out = set()
    for f in folder.rglob("*.py"):
        rel = f.relative_to(folder).with_suffix("").parts
        if rel[-1] == "__init__":
            rel = rel[:-1]
        out.add(".".join((package,) + rel))
    return out


def imported_modules(path: Path, module: str, is_pkg: bool) -> set[str]:
    """theorylab modules the file of ``module`` imports anywhere in its body (relative imports too).

    ``from P import x`` counts ``P`` and, when it is a module, ``P.x``; ``import P.Q`` counts
    ``P`` and ``P.Q`` (their ``__init__`` files run).  A file that imports modules by name
    (``importlib.import_module``, ``pkgutil``, ``__import__``) counts every module of its package.
    """
    source = read_source(path)
    memo_key = (str(path), module, is_pkg, hashlib.sha256(source).digest())
    if memo_key not in _IMPORTS:
        _IMPORTS[memo_key] = _parse_imports(source, module, is_pkg)
    return set(_IMPORTS[memo_key])


_IMPORTS: dict = {}


def _parse_imports(source: bytes, module: str, is_pkg: bool) -> frozenset:
    package = _package_of(module, is_pkg)
    tops = {"theorylab", module.split(".")[0]}  # theorylab and the module's own package (a user's paper)
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] not in tops:
                continue
            found.add(target)
            for alias in node.names:
                if alias.name != "*" and locate(f"{target}.{alias.name}") is not None:
                    found.add(f"{target}.{alias.name}")
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] in tops)
    if any(word in source for word in (b"import_module", b"pkgutil", b"__import__")):
        found |= _package_modules(package)
    return frozenset(p for name in found for p in _parents(name))


def computing_files(module_name: str) -> dict[str, Path]:
    """``{module name: file}`` of everything :func:`code_fingerprint` hashes for ``module_name``."""
    found = locate(module_name)
    if found is None:
        raise ValueError(f"module_name must name a theorylab module with a source file; got {module_name!r}")
    todo = {module_name}
    if found[1]:  # a package (e.g. validations/<paper>/): all of its files
        todo |= _package_modules(module_name)
    todo.update(_parents(module_name, itself=False))
    done: dict[str, Path] = {}
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        seen.add(name)
        loc = locate(name)
        if loc is None:
            continue
        if not is_presentation(name) or name == module_name:
            done[name] = loc[0]
        if is_presentation(name) and name != module_name:
            continue  # presentation is neither hashed nor followed
        todo |= imported_modules(loc[0], name, loc[1]) - seen
    return done


# ------------------------------------------------------------------------------ the fingerprint
def compute_fingerprint(module_name: str | None) -> str:
    """The fingerprint of ``module_name``, computed now (see :func:`code_fingerprint`)."""
    h = hashlib.sha256(theorylab.__version__.encode())
    files = None
    if module_name:
        # theorylab's modules, and a module of another package (a user's paper, a test's): its own
        # package's modules it imports are followed like theorylab's
        try:
            files = computing_files(module_name)
        except ValueError:
            files = None
    if files is None:  # unknown: the whole package, presentation aside
        h.update((module_name or "").encode())
        files = {}
        for f in sorted(PKG_ROOT.rglob("*.py")):
            name = ".".join(("theorylab",) + f.relative_to(PKG_ROOT).with_suffix("").parts).removesuffix(".__init__")
            if not is_presentation(name):
                files[name] = f
    for name in sorted(files):
        h.update(name.encode() + b"\0")
        h.update(read_source(files[name]))
    return h.hexdigest()[:16]


_MEMO: dict = {}


def code_fingerprint(module_name: str | None) -> str:
    """16 hex digits identifying the source that computes ``module_name``'s numbers.

    Computed once per process and module (the source of a running process does not change).
    ``None`` or a module that cannot be located hashes all of ``theorylab`` except presentation.
    A module of another package (a paper registered by entry point) is followed like theorylab's:
    its file, the modules of its own package it imports, and the theorylab modules it reaches.
    """
    fp = _MEMO.get(module_name)
    if fp is None:
        fp = _MEMO[module_name] = compute_fingerprint(module_name)
    return fp
