"""The commands of ``theorylab``: one ``cmd_*(args) -> exit code`` per subcommand.

Every import of the check framework (and so of the validation modules) happens inside a
command, so ``theorylab --help`` and a usage error stay fast.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path

from .. import __version__
from .output import _eprint, _table
from .selection import (_check_overrides_apply, _claim_overrides, parse_overrides, registry, select_claims,
                        select_papers)


def Progress(*args, **kwargs):  # noqa: N802 - imported on first use: `theorylab --help` loads no core module
    from ..core.progress import Progress as _Progress

    return _Progress(*args, **kwargs)


# ------------------------------------------------------------------------------------ where to write
def out_root(args) -> Path:
    """The folder for a user's outputs (``--out``, ``$THEORYLAB_OUT`` or ``<cache>/out``)."""
    from ..core.paths import out_dir

    return Path(args.out) if getattr(args, "out", None) else out_dir()


def results_root(args) -> Path:
    from ..core.paths import results_dir

    return results_dir() if getattr(args, "publish", False) else out_root(args) / "results"


def require_writable(args, *folders) -> None:
    """Refuse, before any claim runs, an output folder that cannot be created or written to."""
    import tempfile

    for folder in folders:
        folder = Path(folder)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".theorylab-write-test-"):
                pass
        except OSError as exc:
            if getattr(args, "publish", False):
                given = "--publish (the checkout)"
            elif getattr(args, "out", None):
                given = f"--out {args.out}"
            else:
                given = "the output folder ($THEORYLAB_OUT or <cache>/out)"
            raise ValueError(f"{given}: cannot write to {folder} ({exc.strerror or exc}); "
                             f"choose a writable folder with --out DIR") from None


def publishable(args, paper_ids, *, all_: bool) -> list[str]:
    """The papers a command writes: ``paper_ids`` itself, except that ``--publish`` writes theorylab's checkout,
    where a paper registered by another package never goes: dropped from ``--all`` (``all_``), refused when named."""
    paper_ids = list(dict.fromkeys(paper_ids))
    if not getattr(args, "publish", False):
        return paper_ids
    from ..core.papers import external_papers

    ext = [p for p in paper_ids if p in external_papers()]
    if all_:
        return [p for p in paper_ids if p not in ext]
    if ext:
        raise ValueError(f"--publish writes theorylab's own results/, figures/ and ledger; {', '.join(ext)} "
                         f"{'is a paper' if len(ext) == 1 else 'are papers'} of another package (entry point "
                         f"theorylab.papers): run without --publish, its outputs go to --out DIR "
                         f"($THEORYLAB_OUT or <cache>/out)")
    return paper_ids


def _cache(args):
    from ..core.cache import Cache

    return None if getattr(args, "no_cache", False) else Cache()


def _scheduler_address(args):
    return getattr(args, "scheduler", None) or os.environ.get("THEORYLAB_DASK_SCHEDULER") or None


@contextlib.contextmanager
def _connected(scheduler):
    """A dask client for the address ``scheduler`` (failing fast, closed on exit); None without one."""
    if not scheduler:
        yield None
        return
    from ..core import dask_backend

    client = dask_backend.connect(scheduler)
    try:
        yield client
    finally:
        client.close()


# ------------------------------------------------------------------------------------------ running
def run_claims(claims, scale, seed, *, cache, force, overrides, progress, scheduler=None):
    """Run ``claims`` in order (locally, or on the dask cluster at ``scheduler``); a list of Results."""
    from ..core.checks import run_claim
    from ..core.context import using_run

    per_claim = [_claim_overrides(c, scale, overrides) for c in claims]
    # --no-cache: no disk and no in-process memo; --force: one run id, so what this run computed is reused in it
    run = dict(memo=cache is not None, force=bool(force), run_id=f"cli-{os.getpid()}-{time.time_ns()}")
    if scheduler:
        from ..core import dask_backend

        with _connected(scheduler) as client, using_run(executor="dask", scheduler=client, progress=progress, **run):
            if any(per_claim):
                raise ValueError("--set is not supported together with --scheduler")
            results = dask_backend.run_claims(claims, scale, seed, client, cache=cache, force=force)
        for c, r in zip(claims, results):
            progress.finish(c.key, f"{r.verdict} ({_runtime(r)})")
        return results
    results = []
    with using_run(progress=progress, **run):
        for c, ov in zip(claims, per_claim):
            progress.start(c.key)
            r = run_claim(c, scale, seed, cache=cache, force=force, overrides=ov)
            progress.finish(c.key, f"{r.verdict} ({_runtime(r)})")
            results.append(r)
    return results


def _runtime(r) -> str:
    """A result's runtime, or "cached" for one served from the cache (its runtime is an old run's)."""
    return "cached" if getattr(r, "cached", False) else f"{r.runtime_s:.1f}s"


def _print_results(results, fmt, verbose, scale):
    from ..core.results import frame, result_record

    if fmt == "json":
        print(json.dumps([result_record(r) for r in results], indent=1))
        return
    if fmt == "csv":
        df = frame(result_record(r) for r in results).drop(columns=["params"])
        sys.stdout.write(df.to_csv(index=False))
        return
    by_paper = {}
    for r in results:
        by_paper.setdefault(r.paper, []).append(r)
    for pid, rs in by_paper.items():
        rows = [(r.claim, r.measured, r.predicted, r.tolerance,
                 r.verdict + ("" if r.status == "reproduced" else f" ({r.status})"), _runtime(r))
                for r in rs]
        print(f"\n{pid} — scale {scale}")
        print(_table(rows, ["claim", "measured", "predicted", "tolerance", "verdict", "time"],
                     max_width=10_000 if verbose else 60))
        if verbose:
            for r in rs:
                print(f"\n  {r.claim}: {r.statement}\n    citation: {r.citation}\n    measured: {r.measured}"
                      f"\n    tolerance: {r.tolerance}" + (f"\n    note: {r.note}" if r.note else ""))


def cmd_list(args) -> int:
    from ..core.checks import discover
    from ..core.papers import external_papers

    reg = discover()
    ext = external_papers()
    rows = [(pid, len(reg.claims_of(pid)), len(reg.figures_of(pid)), len(reg.benchmarks_of(pid)),
             ext.get(pid, "theorylab"), reg.papers[pid].title) for pid in sorted(reg.papers)]
    print(_table(rows, ["paper", "claims", "figures", "benchmarks", "from", "title"]))
    return 0


def cmd_new(args) -> int:
    """``theorylab new PAPER --in DIR``: the scaffold of :mod:`theorylab.scaffold`."""
    from ..scaffold import scaffold

    out = scaffold(args.paper, args.folder, package=args.package, title=args.title, authors=args.authors)
    for path in out["written"]:
        print(f"wrote   {path}")
    for path in out["skipped"]:
        print(f"kept    {path} (exists)")
    folder = Path(args.folder)
    if not out["pyproject_written"]:
        print(f"\n{folder / 'pyproject.toml'} exists: add these lines to it to register the paper:\n\n"
              f"{out['entry_points']}")
    print(f"\nnext:\n  pip install -e {folder}\n  cd {folder} && pytest -p theorylab\n  theorylab check {args.paper}")
    return 0


def cmd_check(args) -> int:
    from ..core import ledger

    overrides = parse_overrides(args.set)
    if overrides and args.publish:
        raise ValueError("--set makes a run non-standard; it cannot be --publish'ed to the committed results")
    claims = select_claims(args.targets, all_=args.all, keyword=args.keyword)
    keep = set(publishable(args, [c.paper.id for c in claims], all_=args.all))
    claims = [c for c in claims if c.paper.id in keep]
    _check_overrides_apply(claims, args.scale, overrides)
    if not args.no_record:
        require_writable(args, results_root(args))
    t0 = time.perf_counter()
    progress = Progress(len(claims), f"check ({args.scale})", enabled=not args.no_progress)
    try:
        results = run_claims(claims, args.scale, args.seed, cache=_cache(args), force=args.force,
                             overrides=overrides, progress=progress, scheduler=_scheduler_address(args))
    finally:
        progress.close()
    _print_results(results, args.format, args.verbose, args.scale)
    for r in results:
        if r.verdict == "error":
            given = _claim_overrides(next(c for c in claims if c.key == f"{r.paper}:{r.claim}"), args.scale, overrides)
            with_set = f" (with --set {', '.join(f'{k}={v!r}' for k, v in given.items())})" if given else ""
            _eprint(f"  ! {r.paper}:{r.claim}{with_set}: {r.note}")
    if not args.no_record:
        folder = results_root(args)
        for pid in dict.fromkeys(r.paper for r in results):
            mine = [r for r in results if r.paper == pid]
            path = ledger.record(pid, args.scale, _merge_with_record(pid, args.scale, mine, folder), root=folder)
            _eprint(f"recorded {path}")
    return _summary(results, time.perf_counter() - t0)


def _merge_with_record(pid, scale, results, folder):
    """A run of some claims of a paper keeps the paper's other current results in its record.

    Kept rows are read back as Results (``Result.from_record``) and written again unchanged; the
    record lists the claims in their registry order, so a partial rerun changes only its own rows.
    A record of another root seed or of older code is replaced, not merged.
    """
    from ..core.ledger import RecordError, paper_fingerprint, read_record

    all_ids = [c.id for c in registry([pid]).claims_of(pid)]
    if {r.claim for r in results} >= set(all_ids):
        return results
    try:
        got = read_record(pid, scale, folder)
    except RecordError as exc:
        _eprint(f"note: {exc}; replacing it")
        got = None
    if got is None:
        return results
    header, old = got
    seeds = {r.root_seed for r in results}
    if header.get("fingerprint") != paper_fingerprint(pid) or seeds != {header.get("root_seed")}:
        return results
    have = {r.claim for r in results}
    kept = [r for r in old if r.claim not in have and r.claim in all_ids]
    order = {cid: i for i, cid in enumerate(all_ids)}
    return sorted(kept + list(results), key=lambda r: order[r.claim])


def _summary(results, seconds) -> int:
    from ..core.checks import STATUSES

    counts = {s: sum(r.status == s for r in results) for s in STATUSES}
    bad = [f"{r.paper}:{r.claim} ({r.verdict})" for r in results if not r.ok]
    _eprint(f"\n{len(results)} claims in {seconds:.1f}s: reproduced {counts['reproduced']}, declared findings "
            f"{counts['declared finding']}, unexpected failures {counts['unexpected failure']}, declarations "
            f"contradicted {counts['declaration contradicted']}" + (f": {', '.join(bad)}" if bad else ""))
    return 1 if bad else 0


def _figure_targets(args):
    papers = select_papers(args.targets, all_=args.all)
    reg = registry(None if args.all else papers)
    figs = [f for pid in papers for f in reg.figures_of(pid)]
    named = [t.partition(":") for t in args.targets if ":" in t]
    if named:
        figs = [f for f in figs if any(f.paper.id == p and f.name == n for p, _, n in named)
                or f.paper.id not in {p for p, _, _ in named}]
    return figs


def cmd_figures(args) -> int:
    from ..core.context import using_run
    from ..core.paths import figures_dir

    if args.publish and args.scale != "full":
        raise ValueError("--publish writes the committed full-scale figures; use --scale full (the default)")
    figs = _figure_targets(args)
    keep = set(publishable(args, [f.paper.id for f in figs], all_=args.all))
    figs = [f for f in figs if f.paper.id in keep]
    outdir = figures_dir() if args.publish else out_root(args) / "figures"
    require_writable(args, outdir)
    progress = Progress(len(figs), f"figures ({args.scale})", enabled=not args.no_progress)
    with _connected(_scheduler_address(args)) as client, using_run(**({"executor": "dask", "scheduler": client} if client else {})):
        _draw_figures(figs, args, outdir, progress)
    return 0


def _draw_figures(figs, args, outdir, progress):
    """Draw and save ``figs``; on a cluster (the run's dask executor) their sweep points run there."""
    from ..core.checks import child_seed
    from ..core.plotting import save_figure

    try:
        for f in figs:
            progress.start(f"{f.paper.id}:{f.name}")
            t0 = time.perf_counter()
            fig, data = f.func(seed=child_seed(args.seed, f.paper.id, f.name), **f.scales[args.scale])
            name = f.name if args.scale == "full" else f"{f.name}.{args.scale}"
            png, csv = save_figure(fig, data, f.paper.id, name, outdir=outdir)
            progress.finish(f"{f.paper.id}:{f.name}", f"({time.perf_counter() - t0:.1f}s)")
            print(f"{png}  {csv}  ({time.perf_counter() - t0:.1f}s)")
    finally:
        progress.close()


def cmd_report(args) -> int:
    if args.html:  # the static site (theorylab.report.html), from the records; runs nothing
        from ..report.html import report_command
        return report_command(args)
    from ..core import ledger
    from ..core.checks import discover
    from ..core.paths import ledger_path, results_dir

    reg = discover()
    roots = [results_dir()] if args.publish else [out_root(args) / "results", results_dir()]
    if args.publish and args.targets:
        raise ValueError("--publish writes the whole ledger; give no papers")
    ledger_file = ledger_path() if args.publish else out_root(args) / "paper_checks.md"
    require_writable(args, ledger_file.parent, roots[0])
    records = {}
    # the committed ledger holds theorylab's own papers only (--publish takes no papers: see above)
    for pid in publishable(args, select_papers(args.targets) if args.targets else sorted(reg.papers),
                           all_=not args.targets):
        doc = ledger.best_record(pid, roots=roots)
        if doc is None:
            _eprint(f"{pid}: no current record; running it at scale {args.scale}")
            claims = reg.claims_of(pid)
            progress = Progress(len(claims), f"{pid} ({args.scale})", enabled=not args.no_progress)
            try:
                results = run_claims(claims, args.scale, args.seed, cache=_cache(args), force=False, overrides=None,
                                     progress=progress, scheduler=_scheduler_address(args))
            finally:
                progress.close()
            ledger.record(pid, args.scale, results, root=roots[0])
            doc = ledger.best_record(pid, roots=roots)
        records[pid] = doc
    timings, machine = _load_timings(roots[0])
    path = ledger.write_ledger(records, ledger_file, timings=timings, machine=machine)
    n = ledger.counts(records)
    print(f"wrote {path} ({sum(n.values())} claims: " + ", ".join(f"{k} {v}" for k, v in n.items()) + ")")
    failing = _failing_rows(records, reg)
    if failing:
        _eprint(f"report exits 1: {len(failing)} claim{'s' if len(failing) > 1 else ''} not as declared:")
        for line in failing:
            _eprint(f"  {line}")
    return 1 if failing else 0


def _failing_rows(records, reg) -> list[str]:
    """``paper:claim (verdict at scale: status; record file)`` for each recorded claim that fails the ledger."""
    from ..core.checks import OK_STATUSES, status_of

    out = []
    for pid, doc in records.items():
        current = {c.id: c for c in reg.claims_of(pid)}
        for row in doc["results"]:
            c = current.get(row["claim"])
            if c is None:
                continue
            status = status_of(row["verdict"], c.expect_reproduced)
            if status not in OK_STATUSES:
                out.append(f"{pid}:{row['claim']} ({row['verdict']} at {doc['scale']} scale: {status}; "
                           f"{doc.get('path', 'record')})")
    return out


def _load_timings(folder):
    path = Path(folder) / "reproduce_timings.json"
    if not path.exists():
        return None, ""
    try:
        doc = json.loads(path.read_text())
        return {k: float(v) for k, v in doc["papers"].items()}, str(doc.get("machine", ""))
    except (ValueError, KeyError, TypeError) as exc:
        _eprint(f"note: {path} is not readable ({exc}); the ledger header has no timings")
        return None, ""


RATIO_MEANING = ("ratio = reference time / theorylab's time, both measured in this process on the same inputs: "
                 "above 1 means theorylab's code is faster (each benchmark's line below says what its reference is)")


def ratio_meaning(b) -> str:
    """What a benchmark's ``ratio`` is, from its docstring (or its module's): "ratio = ..." or "the ratio is ..."."""
    import re
    import sys as _sys

    for doc in (b.func.__doc__, getattr(_sys.modules.get(b.func.__module__), "__doc__", None)):
        m = re.search(r"\bratio`*\s*(?:=|is)\s*([^.;:]*?/[^.;:]*)", " ".join((doc or "").split()))
        if m:
            text = f"ratio = {m.group(1).strip().rstrip(',')}"
            return text + (": 2 is perfect scaling on 2 workers" if "2 workers" in text else "")
    return "ratio = reference time / theorylab's time"


def load_warning(name: str, before: float, after: float, cores: int) -> str | None:
    """A warning when the machine was busy while timing: other work shares the cores being measured.

    ``before``/``after``: the load average when the benchmark started and ended.  A cluster speed-up (a
    benchmark named *cluster*) needs a free core per worker, so any load above 0.5 distorts it, judged
    before it ran (its own workers raise the load it ends with); a single-process ratio is distorted
    once the larger of the two reaches half the cores.
    """
    cluster = "cluster" in name
    load = before if cluster else max(before, after)
    if load < (0.5 if cluster else 0.5 * cores):
        return None
    what = ("a cluster speed-up needs an idle core per worker: it is understated on a loaded machine"
            if cluster else "both timings share the cores with other work: the ratio is unreliable")
    return f"  warning: load average {load:.2f} on {cores} cores while timing {name}; {what}"


def cmd_bench(args) -> int:
    papers = select_papers(args.targets, all_=args.all)
    reg = registry(None if args.all else papers, benchmarks=True)
    status = 0
    print(RATIO_MEANING)
    for pid in papers:
        benches = reg.benchmarks_of(pid)
        if not benches:
            _eprint(f"{pid}: no benchmark registered")
            status = 1
        for b in benches:
            before = os.getloadavg()[0]
            out = b.func(quick=args.quick)
            after = os.getloadavg()[0]
            print(f"\n{pid}:{b.name}  ({ratio_meaning(b)})")
            for k, v in out.items():
                print(f"  {k:<28} {v:.4g}" if isinstance(v, float) else f"  {k:<28} {v}")
            warning = load_warning(b.name, before, after, os.cpu_count() or 1)
            if warning:
                _eprint(warning)
    return status


def _calibrate_one(pid, seeds, args, folder, client, named=None):
    """Calibrate paper ``pid`` (only the claims ``named``, if given) and write its tables into ``folder``;
    with ``named``, the other claims' rows already in the tables are kept as they were."""
    from ..core.calibrate import calibrate_paper
    registered = registry([pid]).claims_of(pid)
    claims = registered
    if named is not None:
        unknown = sorted(set(named) - {c.id for c in claims})
        if unknown:
            raise ValueError(f"unknown claim{'s' if len(unknown) > 1 else ''} of {pid}: {', '.join(unknown)}; "
                             f"known: {', '.join(c.id for c in claims)}")
        claims = [c for c in claims if c.id in named]
    progress = Progress(len(claims) * len(seeds), f"calibrate {pid}", enabled=not args.no_progress)

    def tick(c, seed, r):
        progress.finish(f"{c.key} seed {seed}", r.verdict)

    try:
        summary, runs = calibrate_paper(pid, seeds, scale=args.scale, progress=tick, scheduler=client,
                                        claims=None if named is None else [c.id for c in claims],
                                        confirm=args.confirm_seeds if len(seeds) >= SEEDS_FOR_BAND else 0)
    finally:
        progress.close()
    folder.mkdir(parents=True, exist_ok=True)
    order = [c.id for c in registered]
    for table, name in ((summary, f"{pid}.csv"), (runs, f"{pid}.runs.csv")):
        _merge_rows(table, folder / name, order, replace=named is not None).to_csv(folder / name, index=False)
    return summary


def _merge_rows(table, path, order, *, replace):
    """``table``, or with ``replace`` the rows already in ``path`` with ``table``'s claims replaced by it,
    in the registry's claim ``order`` (claims no longer registered are dropped)."""
    import pandas as pd

    if replace and path.exists():
        kept = pd.read_csv(path)
        table = pd.concat([kept[~kept["claim"].isin(set(table["claim"]))], table], ignore_index=True)
    rank = table["claim"].map({c: i for i, c in enumerate(order)})
    return table[rank.notna()].iloc[rank.dropna().argsort(kind="stable")]


def cmd_calibrate(args) -> int:
    from ..core.calibrate import RATIO_BAND, confirmed_cell, render_markdown
    from ..core.paths import results_dir

    import pandas as pd

    papers = select_papers(args.targets, all_=args.all)
    named = {}  # paper -> claims named as PAPER:CLAIM (a paper named alone: all its claims)
    for t in args.targets:
        pid, _, cid = t.partition(":")
        if not cid:
            named[pid] = None
        elif named.get(pid, ()) is not None:
            named.setdefault(pid, []).append(cid)
    papers = publishable(args, papers, all_=args.all)
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    folder = (results_dir() if args.publish else out_root(args)) / "calibration"
    require_writable(args, folder)
    warning = seeds_warning(len(seeds), RATIO_BAND)
    if warning:
        _eprint(warning)
    summaries = []
    with _connected(_scheduler_address(args)) as client:
        for pid in papers:
            summaries.append(_calibrate_one(pid, seeds, args, folder, client, None if args.all else named[pid]))
    summary = pd.concat(summaries, ignore_index=True)
    everything = [pd.read_csv(p) for p in sorted(folder.glob("*.csv")) if not p.name.endswith(".runs.csv")]
    table = pd.concat(everything, ignore_index=True) if everything else summary
    (folder / "README.md").write_text(render_markdown(table, seeds=seeds, scale=args.scale))
    if args.format == "json":
        print(summary.to_json(orient="records", indent=1))
    elif args.format == "csv":
        sys.stdout.write(summary.to_csv(index=False))
    else:
        rows = [(f"{r.paper}:{r.claim}", "yes" if r.expected else "declared", r.reproduced, r.not_reproduced,
                 r.inconclusive, r.error, r.flips, r.stage2_runs, r.stage2_overturned,
                 f"{r.ratio:.2f}" if r.ratio == r.ratio else "deterministic", confirmed_cell(r),
                 _calibration_ok(r, len(seeds))) for r in summary.itertuples()]
        print(_table(rows, ["claim", "expected", "repr.", "not repr.", "inconcl.", "error", "flips", "stage 2",
                            "overturned", "ratio", "confirmed", "ok"]))
    print(f"\nwrote {folder} (band {RATIO_BAND}, seeds {seeds[0]}..{seeds[-1]})")
    if warning:
        _eprint(warning)
    return 0 if bool(summary["ok"].all()) else 1


# The band [0.7, 1.4] is set for 20 seeds (core.calibrate); fewer cannot judge a ratio against it.
SEEDS_FOR_BAND = 20


def ratio_range(k: int, coverage: float = 0.95) -> tuple[float, float]:
    """Where the calibration ratio of a perfectly calibrated interval falls with ``k`` seeds.

    The ratio is z x sd over seeds / mean half-width; for a calibrated normal estimate it is about
    sd_hat / sd, and (k - 1) sd_hat^2 / sd^2 is chi-square with k - 1 degrees of freedom, so the
    central ``coverage`` range is sqrt(chi2 quantiles / (k - 1)): 0.68-1.31 for 20 seeds, 0.27-1.77 for 4.
    """
    from scipy.stats import chi2

    tail = (1 - coverage) / 2
    return tuple(float((chi2.ppf(q, k - 1) / (k - 1)) ** 0.5) for q in (tail, 1 - tail))


def seeds_warning(k: int, band) -> str | None:
    """A warning that ``k`` < 20 seeds cannot judge the calibration band, or None."""
    if k >= SEEDS_FOR_BAND:
        return None
    lo, hi = ratio_range(k)
    lo20, hi20 = ratio_range(SEEDS_FOR_BAND)
    return (f"warning: --seeds {k} cannot judge the calibration band [{band[0]}, {band[1]}]: with {k} seeds even a "
            f"perfectly calibrated interval gives a ratio anywhere in [{lo:.2f}, {hi:.2f}] (95% of runs; "
            f"[{lo20:.2f}, {hi20:.2f}] with {SEEDS_FOR_BAND} seeds, which the band is set for). A ratio outside the "
            f"band is marked 'NO (ratio, {k} seeds)' and is not evidence of miscalibration; flips are counted over "
            f"{k} runs only, and no confirmation stage runs. Use --seeds {SEEDS_FOR_BAND} for a verdict on calibration.")


def _calibration_ok(r, k: int) -> str:
    if r.ok:
        return "ok"
    if k < SEEDS_FOR_BAND and r.flips == 0 and r.calibrated is False:
        return f"NO (ratio, {k} seeds)"
    return "NO"


def cmd_cite(args) -> int:
    papers = select_papers(args.targets, all_=args.all)
    reg = registry(None if args.all else papers)
    for pid in papers:
        print(reg.papers[pid].bibtex())
        print()
    print(THEORYLAB_BIBTEX)
    return 0


THEORYLAB_BIBTEX = f"""@software{{theorylab,
  title   = {{theorylab: checking the theory of ICLR 2025 optimization and learning-theory papers by simulation}},
  version = {{{__version__}}},
  year    = {{2026}},
  note    = {{Claims as checks with calibrated intervals; see CITATION.cff}}
}}"""


def cmd_reproduce(args) -> int:
    """Every claim and figure at full scale, paper by paper, timed and resumable."""
    import platform

    from ..core import ledger
    from ..core.checks import child_seed
    from ..core.paths import figures_dir
    from ..core.plotting import save_figure

    papers = select_papers(args.targets, all_=not args.targets)
    papers = publishable(args, papers, all_=not args.targets)
    reg = registry(papers if args.targets else None)
    cache, folder = _cache(args), results_root(args)
    fig_dir = figures_dir() if args.publish else out_root(args) / "figures"
    require_writable(args, folder, fig_dir)
    timings, status = {}, 0
    t_all = time.perf_counter()
    for pid in papers:
        t0 = time.perf_counter()
        claims = reg.claims_of(pid)
        figs = reg.figures_of(pid)
        progress = Progress(len(claims) + len(figs), f"reproduce {pid}", enabled=not args.no_progress)
        try:
            results = run_claims(claims, "full", args.seed, cache=cache, force=False, overrides=None,
                                 progress=progress, scheduler=_scheduler_address(args))
            ledger.record(pid, "full", results, root=folder)
            for f in figs:
                progress.start(f"{pid}:{f.name}")
                fig, data = f.func(seed=child_seed(args.seed, pid, f.name), **f.scales["full"])
                save_figure(fig, data, pid, f.name, outdir=fig_dir)
                progress.finish(f"{pid}:{f.name}")
        finally:
            progress.close()
        timings[pid] = time.perf_counter() - t0
        bad = [r.claim for r in results if not r.ok]
        status |= bool(bad)
        budget = PAPER_BUDGET_S
        print(f"{pid}: {timings[pid]:.0f} s (budget {budget} s{', OVER' if timings[pid] > budget else ''}); "
              f"{len(results)} claims, {len(figs)} figures" + (f"; unexpected: {', '.join(bad)}" if bad else ""),
              flush=True)
    total = time.perf_counter() - t_all
    machine = f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "reproduce_timings.json"
    old, _ = _load_timings(folder)  # a run of some papers keeps the others' last timings
    doc = {"papers": {**(old or {}), **timings}, "total_s": total, "machine": machine}
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"total {total / 60:.1f} min for {len(papers)} papers on {machine}")
    return 1 if status else 0


# Full-scale budget per paper on 2 cores (DEVELOPERS.md). The rerun of 2026-12-05 (README, results/
# reproduce_timings.json): 59.7 min for all 38, adaptive_sde (22.6 min), scaling_ode (13.5) and rr_sgd (5.4) over it.
PAPER_BUDGET_S = 150
