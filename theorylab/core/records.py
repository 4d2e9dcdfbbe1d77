"""The record schema, in one place: how a :class:`~theorylab.core.checks.Result` is written to and
read from ``results/<paper>.<scale>.json``.

A record is a header (``paper``, ``scale``, ``fingerprint``, ``root_seed``, ``recorded``, ``versions``)
and one row per claim (``Result.to_record()``).  A row holds every field of ``Result`` except
``data`` (the claim's table, a CSV beside the record) and the two the header holds once
(``root_seed``, ``fingerprint``), plus ``status`` (derived, for readers; recomputed on reading).
The mapping is generic over the dataclass fields, so a field added to ``Result`` is written and
read back without an edit here; only these keep a typed encoding:

- ``params``: each value as its ``repr`` (a Python literal; read back with ``ast.literal_eval``, and a
  value that is not a literal, e.g. an array's repr, read back as :class:`Verbatim` text that
  writes itself unchanged);
- float fields (``measured_value``, ``runtime_s``): NaN is written as ``null`` and read back as NaN;
- dicts (``numbers``): NaN as ``null``, read back as ``None``; numpy scalars as plain numbers.

Writing, reading and writing again gives the same bytes (tests/test_records.py checks this for
every committed record and for a partial rerun).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import math
import typing

HEADER_FIELDS = ("root_seed", "fingerprint")  # Result fields the record's header holds once
SEPARATE_FIELDS = ("data",)  # the claim's table: <paper>/<claim>.<scale>.csv beside the record
DERIVED = ("status",)  # written for readers of the JSON, recomputed from verdict and declaration
# The order of the first keys of a row (that of the records written so far); fields added to Result
# later follow in their dataclass order.
ROW_ORDER = ("paper", "claim", "citation", "statement", "measured", "predicted", "tolerance", "verdict", "scale",
             "seed", "runtime_s", "note", "params", "expect_reproduced", "status", "standard", "measured_value",
             "numbers")


class RecordError(ValueError):
    """A recorded results file that cannot be used (corrupt JSON, wrong shape); names the file."""


class Verbatim(str):
    """A recorded parameter whose text is not a Python literal (e.g. an array's repr): kept as text,
    and written back unchanged (its ``repr`` is the text itself)."""

    def __repr__(self):
        return str(self)


def _plain(x):
    """A JSON value for ``x``: NaN -> None, numpy scalars and arrays -> Python numbers and lists."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if hasattr(x, "tolist") and not isinstance(x, (str, bytes)):  # numpy scalar or array
        return _plain(x.tolist())
    if isinstance(x, float) and math.isnan(x):
        return None
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return str(x)


def _param_value(text):
    if not isinstance(text, str):  # a record written by hand with JSON values
        return text
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return Verbatim(text)


def _fields(cls):
    return [f for f in dataclasses.fields(cls) if f.name not in HEADER_FIELDS + SEPARATE_FIELDS]


def _float_fields(cls) -> set:
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - an unresolvable annotation: fall back to the annotation text
        hints = {f.name: f.type for f in dataclasses.fields(cls)}
    return {name for name, t in hints.items() if t is float or t == "float"}


def to_record(r) -> dict:
    """The JSON row of the result ``r`` (see the module docstring)."""
    row = {}
    for f in _fields(type(r)):
        value = getattr(r, f.name)
        if f.name == "params":
            row[f.name] = {str(k): repr(v) for k, v in (value or {}).items()}
        else:
            row[f.name] = _plain(value)
    row["status"] = r.status
    known = [k for k in ROW_ORDER if k in row]
    return {k: row[k] for k in known + [k for k in row if k not in ROW_ORDER]}


def from_record(cls, row: dict, *, root_seed=None, fingerprint: str = ""):
    """The ``cls`` (a Result) of a JSON row; ``root_seed`` and ``fingerprint`` come from the header.

    Raises :class:`RecordError` when a field without a default is missing.  Keys that are no field
    (a newer schema's) are ignored.
    """
    if not isinstance(row, dict):
        raise RecordError(f"a record row must be a JSON object; got {type(row).__name__}")
    floats = _float_fields(cls)
    kwargs, missing = {}, []
    for f in _fields(cls):
        if f.name not in row:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                missing.append(f.name)
            continue
        value = row[f.name]
        if f.name == "params":
            if not isinstance(value, dict):
                raise RecordError(f"row {row.get('claim')!r}: params must be an object; got {value!r}")
            value = {k: _param_value(v) for k, v in value.items()}
        elif f.name in floats:
            value = float("nan") if value is None else value  # an int stays an int: same bytes on rewrite
        kwargs[f.name] = value
    if missing:
        raise RecordError(f"row {row.get('claim')!r} lacks {', '.join(missing)}")
    names = {f.name for f in dataclasses.fields(cls)}
    if "root_seed" in names:
        kwargs["root_seed"] = root_seed
    if "fingerprint" in names:
        kwargs["fingerprint"] = fingerprint or ""
    return cls(**kwargs)


def dumps(header: dict, results) -> str:
    """The text of a record: ``header`` (in its order) and the rows of ``results``."""
    doc = {k: _plain(v) for k, v in header.items() if k != "results"}
    doc["results"] = [r.to_record() for r in results]
    return json.dumps(doc, indent=1) + "\n"


def loads(text: str, where: str = "record") -> tuple[dict, list]:
    """``(header, results)`` of a record's text; :class:`RecordError` naming ``where`` if it is not one."""
    from .checks import Result

    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise RecordError(f"{where}: not a readable results record ({type(exc).__name__}: {exc})") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list) or any(
            not isinstance(r, dict) or "claim" not in r or "verdict" not in r for r in doc["results"]):
        raise RecordError(f"{where}: not a results record (needs a 'results' list of claims with verdicts)")
    header = {k: v for k, v in doc.items() if k != "results"}
    try:
        results = [Result.from_record(row, root_seed=header.get("root_seed"), fingerprint=header.get("fingerprint", ""))
                   for row in doc["results"]]
    except (RecordError, TypeError, ValueError) as exc:
        raise RecordError(f"{where}: not a results record ({exc})") from exc
    return header, results


def stage_text(row: dict) -> str:
    """How a recorded row's verdict was reached under the two-stage rule: '' for stage 1, else what the
    replicate did, with stage 1's verdict and interval.  The one rendering of a record's stage, used by the
    ledger and the HTML report (:func:`~theorylab.core.checks.describe_stage`, as ``Result.stage_text``)."""
    from .checks import describe_stage

    return describe_stage(row.get("stage", 1), row.get("verdict", "?"), row.get("stage1"))
