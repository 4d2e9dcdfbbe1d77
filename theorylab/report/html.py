"""The HTML report: a static site of every paper's claims, figures and findings.

``theorylab report --html [PAPER...] [--out DIR] [--publish]`` calls :func:`write_site`.  The site
is built from the recorded results (``results/PAPER.SCALE.json``), the claim and figure
declarations of the registry, the calibration tables (``results/calibration/PAPER.csv``) and the
figures (``figures/PAPER/NAME.png`` + ``.csv``); no number is typed into a template.  Pages are
Jinja2 templates (``templates/``), styled by one stylesheet, with formulas between ``$...$``
rendered by a vendored copy of KaTeX (``static/katex/``, MIT licence), so the site works from
``file://`` with no network.
"""

from __future__ import annotations

import csv
import datetime as _dt
import gzip
import json
import math
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from theorylab.core.records import stage_text

HERE = Path(__file__).parent
STATIC = HERE / "static"
MARKER = ".theorylab-site"  # written into every site folder; only such folders are cleaned before writing
CSV_GZIP_BYTES = 1_000_000  # figure data larger than this is copied gzip-compressed (.csv.gz)

STATUS_CLASS = {"reproduced": "ok", "declared finding": "finding", "unexpected failure": "bad",
                "declaration contradicted": "contra"}
SOURCE_LABEL = {"paper": "paper", "code": "authors' code", "third-party": "third-party", "derived": "derived"}


# --------------------------------------------------------------------------- the data of a page

def source_of(claim, citation: str) -> tuple[str, str]:
    """``(source, ref)`` of a claim: its declared ``source``/``ref`` fields when the Claim has them,
    else read off the citation's tag (``[paper]``, ``[R]`` / ``R:`` for the authors' repository,
    ``[3rd-party ...]``, ``[derived]``)."""
    src, ref = getattr(claim, "source", None), getattr(claim, "ref", None)
    if src:
        return str(src), str(ref or citation or "")
    text = citation or ""
    low = text.lower()
    tags = [t.strip() for t in re.findall(r"\[([^\]]+)\]", low)]
    tag = next((t for t in tags if re.match(r"(paper|derived|third-party|3rd-party|r\b)", t)), None)
    if tag is None and re.match(r"(r:|paper:? code)", low):
        tag = "r"
    if tag is not None:
        if re.match(r"(r\b|paper:? code)", tag):
            src = "code"
        elif tag.startswith(("3rd-party", "third-party")):
            src = "third-party"
        elif tag.startswith("derived"):
            src = "derived"
        else:
            src = "paper"
    elif "3rd-party" in low or "third-party" in low:
        src = "third-party"
    elif "derived" in low:
        src = "derived"
    else:
        src = "paper"
    return src, text


def _f(x):
    """A finite float, or None."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


@dataclass
class IntervalPlot:
    """Pixel geometry of a claim's interval picture (drawn by the template as inline SVG)."""

    width: int = 220
    height: int = 30
    band: tuple | None = None      # (x0, x1) of the tolerance band / claimed side
    predicted: float | None = None  # x of the predicted value
    ci: tuple | None = None         # (x0, x1) of the reported interval
    fw: tuple | None = None         # (x0, x1) of the family-wise interval
    value: float | None = None      # x of the point estimate
    lo_label: str = ""
    hi_label: str = ""
    title: str = ""


def interval_plot(numbers: dict, predicted_text: str, width: int = 220) -> IntervalPlot | None:
    """The interval picture of a record's ``numbers``: the 95% and the family-wise interval of the
    measurement beside the predicted value and its tolerance band (or the claimed side of a
    one-sided claim).  None when the record has no numeric value."""
    value = _f(numbers.get("value"))
    if value is None:
        return None
    lo, hi = _f(numbers.get("ci_low")), _f(numbers.get("ci_high"))
    flo, fhi = _f(numbers.get("fw_low")), _f(numbers.get("fw_high"))
    pred = _f(numbers.get("predicted_value"))
    tol = (_f(numbers.get("tol_abs")) or 0.0) + (_f(numbers.get("tol_rel")) or 0.0) * abs(pred or 0.0)
    side = "equal"
    ptext = (predicted_text or "").strip()
    if ptext.startswith(("<=", "≤", "<")):
        side = "upper"
    elif ptext.startswith((">=", "≥", ">")):
        side = "lower"
    pts = [v for v in (value, lo, hi, flo, fhi) if v is not None]
    if pred is not None:
        pts += [pred - tol, pred + tol]
    a, b = min(pts), max(pts)
    span = b - a
    if span <= 0:
        span = max(abs(a), 1.0) * 0.1
        a, b = a - span, b + span
        span = b - a
    a, b = a - 0.08 * span, b + 0.08 * span
    pad = 6

    def x(v):
        return round(pad + (v - a) / (b - a) * (width - 2 * pad), 2)

    digits = 3
    while digits < 8 and f"{a:.{digits}g}" == f"{b:.{digits}g}":
        digits += 1
    plot = IntervalPlot(width=width, value=x(value), lo_label=f"{a:.{digits}g}", hi_label=f"{b:.{digits}g}")
    if pred is not None:
        plot.predicted = x(pred)
        if side == "upper":
            plot.band = (0, x(pred + tol))
        elif side == "lower":
            plot.band = (x(pred - tol), width)
        elif tol > 0:
            plot.band = (x(pred - tol), x(pred + tol))
    if lo is not None and hi is not None:
        plot.ci = (x(lo), x(hi))
    if flo is not None and fhi is not None:
        plot.fw = (x(flo), x(fhi))
    level = _f(numbers.get("level"))
    parts = [f"measured {value:.4g}"]
    if plot.ci:
        parts.append(f"{100 * (level or 0.95):.3g}% CI [{lo:.4g}, {hi:.4g}]")
    if plot.fw:
        parts.append(f"family-wise [{flo:.4g}, {fhi:.4g}]")
    if pred is not None:
        parts.append(f"predicted {ptext or f'{pred:.4g}'}" + (f" ± {tol:.3g}" if tol else ""))
    plot.title = "; ".join(parts)
    return plot


@dataclass
class ClaimRow:
    id: str
    statement: str
    source: str
    source_label: str
    ref: str
    measured: str
    predicted: str
    tolerance: str
    verdict: str
    status: str
    status_class: str
    expected: bool
    why_not: str
    note: str
    plot: IntervalPlot | None
    calibration: dict | None
    stage: str = ""
    family: str = ""
    command: str = ""
    runtime_s: float | None = None
    scale: str = ""


def _calibration(pid: str, root: Path) -> dict[str, dict]:
    path = root / "calibration" / f"{pid}.csv"
    if not path.exists():
        return {}
    out = {}
    with path.open(newline="") as fh:
        for row in csv.DictReader(fh):
            ratio, confirmed = _f(row.get("ratio")), _f(row.get("confirm_ratio"))
            out[row["claim"]] = {"seeds": row.get("seeds", ""), "flips": row.get("flips", ""),
                                 "reproduced": row.get("reproduced", ""),
                                 "ratio": f"{ratio:.2f}" if ratio is not None else "",
                                 "confirmed": (f"{confirmed:.2f} on {int(float(row['confirm_seeds']))} fresh seeds"
                                               if confirmed is not None else ""),
                                 "ok": str(row.get("ok", "")).lower() == "true"}
    return out


def claim_rows(pid: str, reg, doc: dict | None, calib: dict) -> list[ClaimRow]:
    from theorylab.core.checks import status_of

    by_id = {r["claim"]: r for r in (doc or {}).get("results", [])}
    rows = []
    for c in reg.claims_of(pid):
        r = by_id.get(c.id)
        src, ref = source_of(c, (r or {}).get("citation") or c.citation)
        if r is None:
            verdict, measured, predicted, tolerance, note, plot = "not recorded", "", "", "", "", None
            family = ""
            status = "unexpected failure"
        else:
            verdict = r["verdict"]
            status = status_of(verdict, c.expect_reproduced)
            measured, predicted, tolerance = r.get("measured", ""), r.get("predicted", ""), r.get("tolerance", "")
            note = r.get("note", "") or ""
            suffix = f"[expected not to reproduce: {c.why_not}]"
            if c.why_not and note.endswith(suffix):  # shown separately as the finding's reason
                note = note[: -len(suffix)].rstrip()
            plot = interval_plot(r.get("numbers") or {}, predicted)
            nums = r.get("numbers") or {}
            flo, fhi = _f(nums.get("fw_low")), _f(nums.get("fw_high"))
            family = f"family-wise [{flo:.4g}, {fhi:.4g}]" if flo is not None and fhi is not None else ""
        rows.append(ClaimRow(id=c.id, statement=(r or {}).get("statement") or c.statement, source=src,
                             source_label=SOURCE_LABEL.get(src, src), ref=ref, measured=measured,
                             predicted=predicted, tolerance=tolerance, verdict=verdict, status=status,
                             status_class=STATUS_CLASS.get(status, "bad"), expected=c.expect_reproduced,
                             why_not=c.why_not, note=note, plot=plot, calibration=calib.get(c.id),
                             stage=stage_text(r or {}), family=family,
                             command=f"theorylab check {pid}:{c.id} --scale full",
                             runtime_s=_f((r or {}).get("runtime_s")),
                             scale=(r or {}).get("scale", "")))
    return rows


def find_record(pid: str, roots) -> tuple[dict | None, bool]:
    """``(record, current)``: the best current record (ledger.best_record), else the highest-scale
    record found whatever its fingerprint (``current`` False: the code changed since)."""
    from theorylab.core import ledger

    doc = ledger.best_record(pid, roots=roots)
    if doc is not None:
        return doc, True
    for scale in sorted(ledger.SCALE_RANK, key=ledger.SCALE_RANK.get, reverse=True):
        for folder in roots:
            doc = ledger.load_record(pid, scale, folder)
            if doc is not None:
                return doc, False
    return None, False


def _copy(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.suffix == ".csv" and src.stat().st_size > CSV_GZIP_BYTES:
        dst = dst.with_name(dst.name + ".gz")
        with src.open("rb") as fi, dst.open("wb") as raw, \
                gzip.GzipFile(filename=src.name, mode="wb", compresslevel=6, fileobj=raw, mtime=0) as fo:
            shutil.copyfileobj(fi, fo)  # mtime 0: the same data gives the same bytes (a committed site)
    else:
        shutil.copyfile(src, dst)
    return dst


# --------------------------------------------------------------------------- the site

def _duration(s) -> str:
    if s is None:
        return ""
    return f"{s / 60:.1f} min" if s >= 90 else f"{s:.0f} s" if s >= 10 else f"{s:.1f} s"


def _env():
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["minutes"] = _duration
    return env


def _clean(out: Path):
    """Remove a previous site from ``out`` (only if ``out`` holds one: the marker file)."""
    if not (out / MARKER).exists():
        return
    for name in ("figures", "static", "notebooks"):
        shutil.rmtree(out / name, ignore_errors=True)
    for page in out.glob("*.html"):
        page.unlink()


def write_site(out_dir, papers=None, *, roots=None, project=None) -> dict:
    """Write the static site into ``out_dir``; return a summary (paths, counts, seconds).

    ``papers``: paper ids (default: every registered paper); ``roots``: folders searched for
    records, in order (default: the committed ``results/``); ``project``: the checkout whose
    ``figures/``, ``notebooks/`` and ``results/calibration/`` are read (default: the project root).
    """
    import time

    from theorylab.core.checks import STATUSES, discover, resolve_papers
    from theorylab.core.evidence import DESIGN_CLAIMS, FAMILY_ALPHA, FAMILY_LEVEL, REPLICATE_LEVEL, Z_FAMILY
    from theorylab.core.paths import project_root

    t0 = time.perf_counter()
    reg = discover()
    ids = sorted(resolve_papers(list(papers))) if papers else sorted(reg.papers)
    for pid in ids:
        if pid in ("index", "findings"):
            raise ValueError(f"paper id {pid!r} clashes with a page of the site")
    project = Path(project) if project is not None else project_root()
    roots = [Path(r) for r in roots] if roots else [project / "results"]
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"out_dir must be a folder; got the file {str(out)!r}")
    out.mkdir(parents=True, exist_ok=True)
    _clean(out)
    shutil.copytree(STATIC, out / "static", dirs_exist_ok=True)
    (out / MARKER).write_text("written by theorylab report --html; the folder is regenerated as a whole\n")

    timings = {}
    tpath = roots[0] / "reproduce_timings.json"
    for folder in roots:
        if (folder / "reproduce_timings.json").exists():
            tpath = folder / "reproduce_timings.json"
            break
    machine = ""
    if tpath.exists():
        try:
            tdoc = json.loads(tpath.read_text())
            timings = {k: float(v) for k, v in tdoc.get("papers", {}).items()}
            machine = str(tdoc.get("machine", ""))
        except (ValueError, TypeError, AttributeError):
            timings = {}

    env = _env()
    generated = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    from theorylab.core.calibrate import RATIO_BAND

    rule = {"alpha": f"{FAMILY_ALPHA:g}", "n": DESIGN_CLAIMS, "level": f"{100 * FAMILY_LEVEL:.4g}",
            "z": f"{Z_FAMILY:.2f}", "band": f"{RATIO_BAND[0]:g} to {RATIO_BAND[1]:g}",
            "replicate": f"{100 * REPLICATE_LEVEL:g}", "per_claim": f"{FAMILY_ALPHA / DESIGN_CLAIMS * (1 - REPLICATE_LEVEL):g}",
            "bound": f"{100 * FAMILY_ALPHA * (1 - REPLICATE_LEVEL):.2g}"}
    common = {"generated": generated, "rule": rule, "statuses": STATUSES, "status_class": STATUS_CLASS}
    entries, findings, unexpected = [], [], []
    n_figures = 0
    for pid in ids:
        paper = reg.papers[pid]
        doc, current = find_record(pid, roots)
        # the checkout's tables and figures first, then the user's output folders (papers of other packages)
        homes = [project / "results"] + [r.parent for r in roots if r.parent != project]
        calib = next((t for t in (_calibration(pid, h) for h in homes) if t), {})
        rows = claim_rows(pid, reg, doc, calib)
        counts = dict.fromkeys(STATUSES, 0)
        for r in rows:
            if r.verdict != "not recorded":  # a claim without a record is counted nowhere (the bar stays grey)
                counts[r.status] += 1
        figs = []
        for f in reg.figures_of(pid):
            folder = next((h / pid for h in [project / "figures"] + [r.parent / "figures" for r in roots]
                           if (h / pid / f"{f.name}.png").exists()), project / "figures" / pid)
            png, data = folder / f"{f.name}.png", folder / f"{f.name}.csv"
            item = {"name": f.name, "caption": f.caption, "png": None, "csv": None,
                    "command": f"theorylab figures {pid}:{f.name}"}
            if png.exists():
                item["png"] = _copy(png, out / "figures" / pid / png.name).relative_to(out).as_posix()
            if data.exists():
                item["csv"] = _copy(data, out / "figures" / pid / data.name).relative_to(out).as_posix()
            figs.append(item)
        commands = [(f"theorylab check {pid} --scale full", f"every claim (or {pid}:CLAIM)"),
                    (f"theorylab figures {pid}", "every figure (PNG + CSV)"),
                    (f"theorylab calibrate {pid} --seeds 20", "verdict flips and interval calibration")]
        width = max(len(c) for c, _ in commands) + 2
        commands = "\n".join(f"{c:<{width}}# {w}" for c, w in commands)
        n_figures += len(figs)
        nb = project / "notebooks" / f"{pid}.ipynb"
        notebook = _copy(nb, out / "notebooks" / nb.name).relative_to(out).as_posix() if nb.exists() else None
        entry = {"id": pid, "paper": paper, "doc": doc, "current": current, "rows": rows, "counts": counts,
                 "figures": figs, "notebook": notebook, "time": timings.get(pid), "n_claims": len(rows),
                 "recorded": (doc or {}).get("recorded", ""), "fingerprint": (doc or {}).get("fingerprint", ""),
                 "scale": (doc or {}).get("scale", ""), "bibtex": paper.bibtex(),
                 "has_calibration": bool(calib), "commands": commands}
        entries.append(entry)
        for r in rows:
            if not r.expected:
                findings.append((entry, r))
            elif r.status != "reproduced":
                unexpected.append((entry, r))
        page = env.get_template("paper.html.j2").render(e=entry, **common)
        (out / f"{pid}.html").write_text(page, encoding="utf-8")

    total = dict.fromkeys(STATUSES, 0)
    for e in entries:
        for k, v in e["counts"].items():
            total[k] += v
    summary = {"stale": [e["id"] for e in entries if e["doc"] is not None and not e["current"]],
               "missing": [e["id"] for e in entries if e["doc"] is None], "papers": len(entries),
               "claims": sum(e["n_claims"] for e in entries), "recorded": sum(total.values()),
               "figures": n_figures, "counts": total,
               "time": sum(timings.get(e["id"], 0.0) for e in entries) if timings else None, "machine": machine}
    (out / "index.html").write_text(env.get_template("index.html.j2").render(
        entries=entries, summary=summary, **common), encoding="utf-8")
    (out / "findings.html").write_text(env.get_template("findings.html.j2").render(
        findings=findings, unexpected=unexpected, summary=summary, **common), encoding="utf-8")
    summary["out"] = out
    summary["seconds"] = time.perf_counter() - t0
    return summary


def report_command(args) -> int:
    """``theorylab report --html``: the site into ``--out DIR`` (default ``<out>/site``), or with
    ``--publish`` into the committed ``docs/`` from the committed records only."""
    import os

    from theorylab.core.cache import default_cache_dir
    from theorylab.core.paths import project_root, results_dir

    targets = list(getattr(args, "targets", None) or [])
    user_out = Path(os.environ.get("THEORYLAB_OUT", default_cache_dir() / "out"))
    if getattr(args, "publish", False):
        if targets:
            raise ValueError("--html --publish writes the whole site to docs/; give no papers")
        if getattr(args, "out", None):
            raise ValueError("--html: give either --out DIR or --publish (which writes docs/), not both")
        out, roots = project_root() / "docs", [results_dir()]
        from theorylab.core.papers import builtin_papers

        targets = builtin_papers()  # the published site holds theorylab's own papers only
    else:
        out = Path(args.out) if getattr(args, "out", None) else user_out / "site"
        roots = [user_out / "results", results_dir()]
    s = write_site(out, targets or None, roots=roots)
    n = s["counts"]
    print(f"wrote {out / 'index.html'} ({s['papers']} papers, {s['claims']} claims: "
          + ", ".join(f"{k} {v}" for k, v in n.items()) + f"; {s['figures']} figures) in {s['seconds']:.1f} s")
    for what, ids in (("stale records (the code changed since; rerun them)", s["stale"]),
                      ("no record", s["missing"])):
        if ids:
            print(f"note: {what}: {', '.join(ids)}", file=sys.stderr)
    return 0
