"""Results as data: one flat, typed record per claim run, for JSON/CSV output and DataFrames.

``theorylab check ... --format json|csv`` prints these records; :func:`results` reads the
recorded runs back (``Result.from_record``, the schema of core.records) as a typed
:class:`pandas.DataFrame` with the same columns.
"""

from __future__ import annotations

import math

import pandas as pd

COLUMNS = {  # name -> dtype of the DataFrame column
    "paper": "string", "claim": "string", "scale": "string", "seed": "Int64", "claim_seed": "Int64",
    "verdict": "string", "status": "string", "expected": "boolean", "kind": "string",
    "value": "float64", "ci_low": "float64", "ci_high": "float64", "level": "float64",
    "fw_low": "float64", "fw_high": "float64", "predicted": "float64", "tol_abs": "float64", "tol_rel": "float64",
    "measured_text": "string", "predicted_text": "string", "tolerance_text": "string",
    "fingerprint": "string", "runtime_s": "float64", "standard": "boolean",
    "stage": "Int64", "outside_reported_ci": "boolean",
    "citation": "string", "statement": "string", "note": "string",
}


def _num(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def result_record(r) -> dict:
    """The flat record of a :class:`~theorylab.core.checks.Result` (JSON-safe: NaN becomes None)."""
    n = getattr(r, "numbers", None) or {}
    return {"paper": r.paper, "claim": r.claim, "scale": r.scale, "seed": getattr(r, "root_seed", None),
            "claim_seed": r.seed, "verdict": r.verdict, "status": r.status, "expected": bool(r.expect_reproduced),
            "kind": n.get("kind"), "value": _num(n.get("value", r.measured_value)),
            "ci_low": _num(n.get("ci_low")), "ci_high": _num(n.get("ci_high")), "level": _num(n.get("level")),
            "fw_low": _num(n.get("fw_low")), "fw_high": _num(n.get("fw_high")),
            "predicted": _num(n.get("predicted_value")), "tol_abs": _num(n.get("tol_abs")),
            "tol_rel": _num(n.get("tol_rel")), "measured_text": r.measured, "predicted_text": r.predicted,
            "tolerance_text": r.tolerance, "fingerprint": getattr(r, "fingerprint", ""),
            "runtime_s": _num(r.runtime_s), "standard": bool(getattr(r, "standard", True)),
            "stage": int(getattr(r, "stage", 1)), "outside_reported_ci": bool(n.get("outside_reported_ci", False)),
            "citation": r.citation, "statement": r.statement, "note": r.note,
            "params": {k: repr(v) for k, v in r.params.items()}}


def frame(records) -> pd.DataFrame:
    """A typed DataFrame of flat records (``params`` kept as a dict column)."""
    df = pd.DataFrame(list(records), columns=[*COLUMNS, "params"])
    for col, dtype in COLUMNS.items():
        df[col] = df[col].astype(dtype)
    return df


SOURCES = ("user", "committed")


def _known_papers() -> list[str]:
    """Paper ids, theorylab's and other packages' (found without importing them)."""
    from .papers import known_papers

    return known_papers()


def _names(value, what, allowed):
    if value is None:
        return None
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple, set)) or not all(isinstance(n, str) for n in names):
        raise TypeError(f"{what} must be a name or a list of names; got {value!r}")
    unknown = sorted(set(names) - set(allowed))
    if unknown:
        raise ValueError(f"{what}: unknown {', '.join(map(repr, unknown))}; known: {', '.join(allowed)}")
    return list(names)


def results(paper=None, scale=None, *, source="user", root=None) -> pd.DataFrame:
    """The recorded results as a typed DataFrame (one row per claim and scale).

    ``paper``/``scale``: a name or a list of names to keep (default: all); an unknown name is a
    ValueError.  ``source``: ``"user"`` (default) reads your own runs, the records ``theorylab check``
    writes under the output folder (``$THEORYLAB_OUT`` or ``<cache>/out``, see
    :func:`~theorylab.core.paths.out_dir`); ``"committed"`` reads the checkout's ``results/``.
    ``root``: a folder of records to read instead (e.g. ``<--out DIR>/results``).
    """
    from pathlib import Path

    from .checks import SCALES
    from .ledger import read_record
    from .paths import out_dir, results_dir

    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(map(repr, SOURCES))}; got {source!r}")
    papers = _names(paper, "paper", _known_papers())
    scales = _names(scale, "scale", list(SCALES))
    if root is not None:
        folder = Path(root)
    else:
        folder = out_dir() / "results" if source == "user" else results_dir()
    rows = []
    for path in sorted(folder.glob("*.*.json")):
        pid, sc = path.name[:-len(".json")].rsplit(".", 1)
        if (papers and pid not in papers) or (scales and sc not in scales):
            continue
        _, recorded = read_record(pid, sc, folder)
        rows += [result_record(r) for r in recorded]
    return frame(rows)
