"""On-disk result cache with atomic writes.

Keys hash (kind, paper, claim/figure, scale, seed, canonicalised parameters, theorylab
version, and :func:`theorylab.core.fingerprint.code_fingerprint` of the module that computes
the result: its source and the theorylab modules that compute its numbers).  The fingerprint means an
edited simulator or claim never serves a stale result.  Every entry is written to a temporary file in the same folder and then
renamed (:func:`os.replace`), so an interrupted run leaves either the whole entry or
nothing, and a rerun resumes from what finished.

Integrity: an entry starts with a header line holding its own key and the SHA-256 of the
pickled payload.  An entry whose stored key is not the key asked for (a file copied or moved
between keys), whose checksum does not match (a hand-edited or truncated file), or that cannot
be read is reported (a :class:`CacheWarning` naming the file and what is wrong), removed and
recomputed; it is never served.

Location: ``$THEORYLAB_CACHE`` or ``~/.cache/theorylab``.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import tempfile
import warnings
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


MAGIC = b"theorylab-cache-v2\n"
_KEY = re.compile(r"[0-9A-Za-z_-]+")


def _check_key(key) -> str:
    """An entry key: a non-empty str of letters, digits, ``_`` and ``-`` (never a path: no ``/`` or ``..``)."""
    if not isinstance(key, str):
        raise TypeError(f"key must be a str (as Cache.key returns); got {key!r:.60} of type {type(key).__name__}")
    if not _KEY.fullmatch(key):
        raise ValueError(f"key must be a non-empty name of letters, digits, '_' and '-' (as Cache.key returns); "
                         f"got {key!r:.60}")
    return key


class CacheWarning(UserWarning):
    """A cache entry was not served (foreign key, bad checksum, unreadable): it is recomputed."""


class Cache:
    """A folder of pickled results keyed by content hash, each entry checked against its key."""

    def __init__(self, root=None):
        if root is not None and not isinstance(root, (str, os.PathLike)):
            raise TypeError(f"root must be a folder path (str or os.PathLike) or None; got {root!r}")
        self.root = Path(root) if root is not None else default_cache_dir()

    def key(self, *parts, module: str | None = None) -> str:
        """The entry key of ``parts`` (SHA-256 hex), tied to the code fingerprint of ``module`` (a module name)."""
        if module is not None and not isinstance(module, str):
            raise TypeError(f"module must be a module name (str) or None; got {module!r:.60} of type "
                            f"{type(module).__name__}")
        payload = json.dumps([_canonical(list(parts)), code_fingerprint(module)], sort_keys=True, default=repr)
        return hashlib.sha256(payload.encode()).hexdigest()

    def path(self, key: str) -> Path:
        """The file of the entry ``key`` (a name of letters, digits, ``_`` and ``-``, as :meth:`key` returns)."""
        key = _check_key(key)
        return self.root / key[:2] / f"{key}.pkl"

    def get(self, key: str):
        """The value stored under ``key``, or None (missing, or not trustworthy: reported and removed)."""
        p = self.path(key)
        try:
            blob = p.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.report(key, f"cannot be read ({exc})")
            return None
        why = None
        if not blob.startswith(MAGIC):
            why = "has no theorylab cache header (old format or not a cache entry)"
        else:
            head, _, payload = blob[len(MAGIC):].partition(b"\n")
            try:
                meta = json.loads(head)
            except ValueError:
                meta = None
            if not isinstance(meta, dict):
                why = "has a corrupt header"
            elif meta.get("key") != key:
                why = f"is stored under key {str(meta.get('key'))[:16]}..., not its own"
            elif meta.get("sha256") != hashlib.sha256(payload).hexdigest():
                why = "fails its checksum (edited or truncated)"
            else:
                try:
                    return pickle.loads(payload)
                except Exception as exc:  # noqa: BLE001 - any unpickling failure means recompute
                    why = f"cannot be unpickled ({type(exc).__name__}: {exc})"
        self.report(key, why)
        return None

    def report(self, key: str, why: str) -> None:
        """Warn that the entry for ``key`` is not served (``why``: a phrase saying what is wrong), and remove it."""
        p = self.path(key)
        if not isinstance(why, str) or not why.strip():
            raise TypeError(f"why must be a non-empty str saying what is wrong with the entry; got {why!r:.60}")
        warnings.warn(f"cache entry {p} {why}; recomputing", CacheWarning, stacklevel=3)
        try:
            p.unlink()
        except OSError:
            pass

    def put(self, key: str, value: object) -> None:
        """Store ``value`` (any picklable object but None, which :meth:`get` returns for a missing entry)."""
        path = self.path(key)
        if value is None:
            raise ValueError("value must not be None (get returns None for a missing entry, so it could not be served)")
        try:
            payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - pickle raises many kinds for an unpicklable object
            raise TypeError(f"value must be picklable; got {type(value).__name__} ({type(exc).__name__}: {exc})") from None
        head = json.dumps({"key": key, "sha256": hashlib.sha256(payload).hexdigest()}).encode()
        atomic_write_bytes(path, MAGIC + head + b"\n" + payload)


def atomic_write_bytes(path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path (str or os.PathLike); got {path!r}")
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"data must be bytes; got {type(data).__name__}")
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
    """Write the str ``text`` (UTF-8) to ``path`` atomically."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    atomic_write_bytes(path, text.encode())
