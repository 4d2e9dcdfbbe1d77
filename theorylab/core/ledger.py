"""Recorded results (``results/<paper>.<scale>.json``) and the ledger ``paper_checks.md``.

``theorylab check`` records every result with provenance (scale, seed, versions, a
fingerprint of the code that produced it).  ``theorylab report`` builds the ledger from the
recorded results whose fingerprint matches the current code, preferring ``full`` over
``ci``; a paper with no current record is run (at ``--scale``, default ``ci``) first.  The
ledger is generated, never hand-edited.
"""

from __future__ import annotations

import datetime as _dt
import platform
from pathlib import Path

import theorylab

from . import records
from .cache import atomic_write_text
from .fingerprint import code_fingerprint
from .checks import Result, discover
from .paths import ledger_path, results_dir
from .records import RecordError  # noqa: F401 - re-exported: callers catch ledger.RecordError

SCALE_RANK = {"full": 2, "ci": 1}


def paper_fingerprint(paper_id: str) -> str:
    """Fingerprint of the code behind a paper's results (its validation module and what it uses)."""
    import importlib.util

    from .papers import module_of

    module = module_of(paper_id)
    if importlib.util.find_spec(module) is None:
        raise ValueError(f"no validation module for paper {paper_id!r}")
    return code_fingerprint(module)


def _versions() -> dict:
    import numba
    import numpy
    import scipy

    return {"theorylab": theorylab.__version__, "python": platform.python_version(), "numpy": numpy.__version__,
            "scipy": scipy.__version__, "numba": numba.__version__, "platform": platform.platform()}


def record(paper_id: str, scale: str, results: list[Result], root=None) -> Path:
    """Write ``<root>/<paper>.<scale>.json`` and each claim's data table as CSV next to it.

    ``root`` defaults to the committed ``results/``; the CLI passes the user's output folder
    unless ``--publish`` is given.  A non-standard result (``--set`` overrides) is refused for
    the committed folder.  The rows are ``Result.to_record()`` (the schema: core.records).
    """
    folder = Path(root) if root is not None else results_dir()
    if any(not getattr(r, "standard", True) for r in results) and folder.resolve() == results_dir().resolve():
        raise ValueError("results with --set overrides are non-standard and never go to the committed results/")
    folder.mkdir(parents=True, exist_ok=True)
    for r in results:
        if r.data is not None:
            table = folder / paper_id / f"{r.claim}.{scale}.csv"
            table.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(table, r.data.to_csv(index=False))
    seeds = {getattr(r, "root_seed", None) for r in results} - {None}
    header = {"paper": paper_id, "scale": scale, "fingerprint": paper_fingerprint(paper_id),
              "root_seed": seeds.pop() if len(seeds) == 1 else None,
              "recorded": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
              "versions": _versions()}
    path = folder / f"{paper_id}.{scale}.json"
    atomic_write_text(path, records.dumps(header, results))
    return path


def read_record(paper_id: str, scale: str, root=None) -> tuple[dict, list[Result]] | None:
    """``(header, results)`` of the record of ``paper_id`` at ``scale`` under ``root``, or None.

    Raises :class:`RecordError` naming the file if it is not a readable record.
    """
    path = (Path(root) if root is not None else results_dir()) / f"{paper_id}.{scale}.json"
    if not path.exists():
        return None
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: not a readable results record ({type(exc).__name__}: {exc})") from exc
    header, results = records.loads(text, str(path))
    header["path"] = str(path)
    return header, results


def load_record(paper_id: str, scale: str, root=None) -> dict | None:
    """The recorded results of ``paper_id`` at ``scale`` under ``root`` as a dict (the header's keys,
    ``path``, and ``results``: the rows as ``Result.to_record()`` writes them), or None if there are none.

    Raises :class:`RecordError` naming the file if it is not a readable record.
    """
    got = read_record(paper_id, scale, root)
    if got is None:
        return None
    header, results = got
    return {**header, "results": [r.to_record() for r in results]}


def best_record(paper_id: str, root=None, *, roots=None) -> dict | None:
    """The highest-scale record of ``paper_id`` that covers all its claims and matches the code.

    ``roots``: folders searched in order (the first current record of the highest scale wins).
    """
    reg = discover()
    want = {c.id for c in reg.claims_of(paper_id)}
    fp = paper_fingerprint(paper_id)
    roots = list(roots) if roots is not None else [root]
    for scale in sorted(SCALE_RANK, key=SCALE_RANK.get, reverse=True):
        for folder in roots:
            doc = load_record(paper_id, scale, folder)
            if doc and doc.get("fingerprint") == fp and want <= {r["claim"] for r in doc["results"]}:
                return doc
    return None


def counts(records: dict[str, dict]) -> dict[str, int]:
    """Claims per status over the records' current claims (see checks.STATUSES)."""
    from .checks import STATUSES, status_of

    reg = discover()
    out = dict.fromkeys(STATUSES, 0)
    for pid, doc in records.items():
        current = {c.id: c for c in reg.claims_of(pid)}
        for r in doc["results"]:
            if r["claim"] in current:
                out[status_of(r["verdict"], current[r["claim"]].expect_reproduced)] += 1
    return out


def _verdict_cell(verdict: str, expect_reproduced: bool, row: dict | None = None) -> str:
    """The verdict, its status against the declaration, and how it was reached (two-stage rule)."""
    from .checks import status_of
    from .records import stage_text

    row = row or {}
    status = status_of(verdict, expect_reproduced)
    marks = [] if status == "reproduced" else [status]
    if row.get("stage", 1) == 2:
        marks.append(stage_text({"verdict": verdict, **row}))
    if (row.get("numbers") or {}).get("outside_reported_ci"):
        marks.append("95% CI excludes the prediction: passes only at the family-wise level")
    return f"**{verdict}**" + (f" ({'; '.join(marks)})" if marks else "")


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(records: dict[str, dict], *, timings: dict | None = None, machine: str = "") -> str:
    reg = discover()
    now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    from .evidence import DESIGN_CLAIMS, FAMILY_ALPHA, FAMILY_LEVEL, REPLICATE_LEVEL, Z_FAMILY

    out = ["# paper_checks — the theorylab ledger", "",
           f"Generated by `theorylab report` on {now}; do not edit by hand.",
           "Each row is one claim of a paper, run as a check; *measured* carries the 95% confidence",
           "interval, *tolerance* the rule, *verdict* is decided by theorylab.core.evidence.",
           "A claim marked *expected not to reproduce* is a finding, explained in its note.", "",
           f"**Verdict rule (two stages).** Stage 1 calls a claim *not reproduced* only on evidence at the "
           f"family-wise level: its reported interval is widened to the per-claim level 1 - {FAMILY_ALPHA:g}/{DESIGN_CLAIMS} "
           f"= {100 * FAMILY_LEVEL:.4g}% (Bonferroni over a design size of {DESIGN_CLAIMS} claims, z = {Z_FAMILY:.2f}). "
           f"Only when stage 1 contradicts the declaration (an expected claim not reproduced, a declared finding "
           f"reproduced) does stage 2 run: the same claim on an independent replicate stream, rejecting at "
           f"{100 * REPLICATE_LEVEL:g}%; its verdict stands, and the row says *on replicate* with stage 1's result in the "
           f"note. A false *not reproduced* then needs both stages: at most {FAMILY_ALPHA / DESIGN_CLAIMS:g} x "
           f"{1 - REPLICATE_LEVEL:.2g} per claim, {100 * FAMILY_ALPHA * (1 - REPLICATE_LEVEL):.2g}% over "
           f"{DESIGN_CLAIMS} claims, within the stated {100 * FAMILY_ALPHA:g}% family-wise bound when the intervals are "
           "calibrated (results/calibration/). A deterministic claim has no stage 2. Model tolerances are added, "
           "never scaled. A reproduced row whose 95% interval excludes the prediction is marked so.", ""]
    n = counts(records)
    out.append(f"Summary: {sum(n.values())} claims — reproduced: {n['reproduced']}, declared findings "
               f"(expected not to reproduce, and did not): {n['declared finding']}, unexpected failures: "
               f"{n['unexpected failure']}, declarations contradicted: {n['declaration contradicted']}.")
    if timings:
        total = sum(timings.values())
        out.append("")
        out.append(f"Wall time of the last `theorylab reproduce` ({machine or 'this machine'}): {total / 60:.1f} min in "
                   "all; " + ", ".join(f"{pid} {t:.0f} s" for pid, t in sorted(timings.items())) + ".")
    out.append("")
    for pid in sorted(records):
        doc = records[pid]
        paper = reg.papers[pid]
        out += [f"## `{pid}` — {paper.title}", "",
                f"{paper.authors}, {paper.venue}" + (f", arXiv:{paper.arxiv}" if paper.arxiv else "") + ".  ",
                f"Scale `{doc['scale']}`, recorded {doc['recorded']}, code fingerprint `{doc['fingerprint']}`.", "",
                "| claim | citation | statement | measured | predicted | tolerance | verdict | scale | note |",
                "|---|---|---|---|---|---|---|---|---|"]
        order = {c.id: i for i, c in enumerate(reg.claims_of(pid))}
        current = {c.id: c for c in reg.claims_of(pid)}
        for r in sorted(doc["results"], key=lambda r: order.get(r["claim"], 1e9)):
            if r["claim"] not in order:
                continue
            out.append("| " + " | ".join(_cell(x) for x in (
                f"`{r['claim']}`", r["citation"], r["statement"], r["measured"], r["predicted"], r["tolerance"],
                _verdict_cell(r["verdict"], current[r["claim"]].expect_reproduced, r), r["scale"],
                r.get("note", ""))) + " |")
        out.append("")
    return "\n".join(out)


def write_ledger(records: dict[str, dict], path=None, *, timings=None, machine="") -> Path:
    path = Path(path) if path is not None else ledger_path()
    atomic_write_text(path, render(records, timings=timings, machine=machine))
    return path
