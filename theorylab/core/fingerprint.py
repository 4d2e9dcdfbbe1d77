"""One fingerprint of "the code behind a result", shared by the cache and the recorded results.

:func:`code_fingerprint` hashes the source of a module (a validation module, a benchmark, a
simulator function's module), all of ``theorylab/core``, and every theorylab subpackage the
module reaches through its imports (followed transitively at subpackage level: a validation
importing ``theorylab.cpwl`` pulls in whatever ``theorylab.cpwl`` imports from other
subpackages).  Editing an unrelated paper's simulator leaves the fingerprint unchanged; editing
anything a result depends on changes it.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
from pathlib import Path

import theorylab

PKG_ROOT = Path(theorylab.__file__).parent


def _theorylab_imports(path: Path, own_package: str | None) -> set[str]:
    """Subpackage names of theorylab imported by the file at ``path`` (relative imports too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.ImportFrom):
            if node.level and own_package:
                found.add(own_package)
            names = [node.module] if node.module and not node.level else []
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "theorylab" and len(parts) > 1:
                found.add(parts[1])
    return found


def _files(sub: str) -> list[Path]:
    target = PKG_ROOT / sub
    if target.is_dir():
        return sorted(target.rglob("*.py"))
    single = target.with_suffix(".py")
    return [single] if single.exists() else []


def _subpackages(origin: Path, module_name: str) -> list[str]:
    parts = module_name.split(".")
    own = parts[1] if parts[0] == "theorylab" and len(parts) > 2 else None
    if own is not None and not _files(own):  # theorylab.validations / .benchmarks: mapped leaves
        own = None
    todo = _theorylab_imports(origin, own) | {"core"} | ({own} if own else set())
    done: set[str] = set()
    while todo:
        sub = todo.pop()
        done.add(sub)
        for f in _files(sub):
            todo |= _theorylab_imports(f, sub) - done
    return sorted(done)


@functools.lru_cache(maxsize=None)
def code_fingerprint(module_name: str | None) -> str:
    """16 hex digits identifying the source of ``module_name`` and the theorylab code it uses.

    ``None`` or a module that cannot be located hashes the whole ``theorylab`` package.
    """
    h = hashlib.sha256(theorylab.__version__.encode())
    try:
        spec = importlib.util.find_spec(module_name) if module_name else None
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None or not Path(spec.origin).exists():
        h.update((module_name or "").encode())
        for f in sorted(PKG_ROOT.rglob("*.py")):
            h.update(f.read_bytes())
        return h.hexdigest()[:16]
    origin = Path(spec.origin)
    h.update(origin.read_bytes())
    for sub in _subpackages(origin, module_name):
        for f in _files(sub):
            h.update(str(f.relative_to(PKG_ROOT)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]
