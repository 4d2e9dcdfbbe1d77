"""On-disk result cache with atomic writes.

Keys hash (kind, paper, claim/figure, scale, seed, canonicalised parameters, theorylab
version, and :func:`theorylab.core.fingerprint.code_fingerprint` of the module that computes
the result: its source, theorylab/core and the theorylab subpackages it imports).  The fingerprint means an edited simulator or claim never serves a
stale result.  Every entry is written to a temporary file in the same folder and then
renamed (:func:`os.replace`), so an interrupted run leaves either the whole entry or
nothing, and a rerun resumes from what finished.

Location: ``$THEORYLAB_CACHE`` or ``~/.cache/theorylab``.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from pathlib import Path

import numpy as np

from .fingerprint import code_fingerprint


def default_cache_dir() -> Path:
    return Path(os.environ.get("THEORYLAB_CACHE", Path.home() / ".cache" / "theorylab"))


def _canonical(obj):
    """JSON-able canonical form: dict keys sorted, tuples as lists, numpy scalars as Python."""
    if isinstance(obj, dict):
        return {str(k): _canonical(obj[k]) for k in sorted(obj, key=str)}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return {"ndarray": obj.tolist(), "dtype": str(obj.dtype)}
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, range):
        return {"range": [obj.start, obj.stop, obj.step]}
    return obj


class Cache:
    """A folder of pickled results keyed by content hash."""

    def __init__(self, root=None):
        self.root = Path(root) if root is not None else default_cache_dir()

    def key(self, *parts, module: str | None = None) -> str:
        payload = json.dumps([_canonical(list(parts)), code_fingerprint(module)], sort_keys=True, default=repr)
        return hashlib.sha256(payload.encode()).hexdigest()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.pkl"

    def get(self, key: str):
        p = self.path(key)
        if not p.exists():
            return None
        try:
            with open(p, "rb") as fh:
                return pickle.load(fh)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
            return None  # a corrupt or outdated entry is recomputed

    def put(self, key: str, value) -> None:
        p = self.path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(p, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def atomic_write_bytes(path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path, text: str) -> None:
    atomic_write_bytes(path, text.encode())
