"""Results as data: one flat, typed record per claim run, for JSON/CSV output and DataFrames.

``theorylab check ... --format json|csv`` prints these records; :func:`results` reads the
recorded runs back as a typed :class:`pandas.DataFrame` with the same columns.
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


def _record_row(doc: dict, row: dict) -> dict:
    n = row.get("numbers") or {}
    from .checks import status_of

    return {"paper": doc["paper"], "claim": row["claim"], "scale": doc["scale"], "seed": doc.get("root_seed", 0),
            "claim_seed": row.get("seed"), "verdict": row["verdict"],
            "status": row.get("status") or status_of(row["verdict"], row.get("expect_reproduced", True)),
            "expected": row.get("expect_reproduced", True), "kind": n.get("kind"),
            "value": n.get("value", row.get("measured_value")), "ci_low": n.get("ci_low"), "ci_high": n.get("ci_high"),
            "level": n.get("level"), "fw_low": n.get("fw_low"), "fw_high": n.get("fw_high"),
            "predicted": n.get("predicted_value"), "tol_abs": n.get("tol_abs"), "tol_rel": n.get("tol_rel"),
            "measured_text": row.get("measured"), "predicted_text": row.get("predicted"),
            "tolerance_text": row.get("tolerance"), "fingerprint": doc.get("fingerprint", ""),
            "runtime_s": row.get("runtime_s"), "standard": row.get("standard", True),
            "stage": row.get("stage", 1), "outside_reported_ci": bool(n.get("outside_reported_ci", False)),
            "citation": row.get("citation"),
            "statement": row.get("statement"), "note": row.get("note", ""), "params": row.get("params", {})}


def results(paper=None, scale=None, *, root=None) -> pd.DataFrame:
    """The recorded results as a typed DataFrame (one row per claim and scale).

    ``paper``/``scale``: a name or a list of names to keep (default: all); ``root``: the folder of
    records (default: the committed ``results/`` of the checkout).
    """
    from pathlib import Path

    from .ledger import load_record
    from .paths import results_dir

    folder = Path(root) if root is not None else results_dir()
    papers = [paper] if isinstance(paper, str) else paper
    scales = [scale] if isinstance(scale, str) else scale
    rows = []
    for path in sorted(folder.glob("*.*.json")):
        pid, sc = path.name[:-len(".json")].rsplit(".", 1)
        if (papers and pid not in papers) or (scales and sc not in scales):
            continue
        doc = load_record(pid, sc, folder)
        rows += [_record_row(doc, row) for row in doc["results"]]
    return frame(rows)
