"""The ``theorylab`` command line: list, check, figures, report, bench.

    theorylab list
    theorylab check rr_sgd --scale ci          # table of claims; exit 1 if an expected claim fails
    theorylab check --all --scale full
    theorylab figures rr_sgd                    # figures/rr_sgd/*.png + *.csv (full scale)
    theorylab report                            # regenerate paper_checks.md
    theorylab bench rr_sgd                      # speed-up against the reference implementation

``--scheduler ADDRESS`` (or ``$THEORYLAB_DASK_SCHEDULER``) sends sweeps to a dask cluster.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from .core import checks, ledger
from .core.cache import Cache
from .core.checks import ERROR, SCALES, discover, resolve_papers, run_claim


def _progress(items, desc, enabled):
    if not enabled or not sys.stderr.isatty():
        return items
    from tqdm.auto import tqdm

    return tqdm(items, desc=desc, leave=False, file=sys.stderr)


def _papers(args) -> list[str]:
    if getattr(args, "all", False) or not args.papers:
        return checks.paper_ids()
    return resolve_papers(args.papers)


def _table(rows, headers) -> str:
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h)) for i, h in enumerate(headers)]
    widths = [min(w, 60) for w in widths]

    def fmt(r):
        return "  ".join(str(c)[:60].ljust(w) for c, w in zip(r, widths))

    return "\n".join([fmt(headers), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def cmd_list(args) -> int:
    reg = discover()
    rows = [(pid, len(reg.claims_of(pid)), len(reg.figures_of(pid)), len(reg.benchmarks_of(pid)), reg.papers[pid].title)
            for pid in sorted(reg.papers)]
    print(_table(rows, ["paper", "claims", "figures", "benchmarks", "title"]))
    return 0


def run_papers(papers, scale, seed, cache, force, progress) -> dict[str, list]:
    reg = discover()
    todo = [c for pid in papers for c in reg.claims_of(pid)]
    out: dict[str, list] = {pid: [] for pid in papers}
    bar = _progress(todo, f"checks ({scale})", progress)
    for c in bar:
        if progress and hasattr(bar, "set_postfix_str"):
            bar.set_postfix_str(c.key)
        out[c.paper.id].append(run_claim(c, scale, seed, cache=cache, force=force))
    return out


def cmd_check(args) -> int:
    papers = _papers(args)
    cache = None if args.no_cache else Cache()
    t0 = time.perf_counter()
    by_paper = run_papers(papers, args.scale, args.seed, cache, args.force, not args.no_progress)
    failed = []
    for pid, results in by_paper.items():
        rows = [(r.claim, r.measured, r.predicted, r.tolerance, r.verdict + ("" if r.expect_reproduced else " (expected)"),
                 f"{r.runtime_s:.1f}s") for r in results]
        print(f"\n{pid} — scale {args.scale}")
        print(_table(rows, ["claim", "measured", "predicted", "tolerance", "verdict", "time"]))
        for r in results:
            if r.verdict == ERROR:
                print(f"  ! {r.claim}: {r.note}", file=sys.stderr)
        failed += [f"{pid}:{r.claim}" for r in results if not r.ok]
        if not args.no_record:
            path = ledger.record(pid, args.scale, results)
            print(f"recorded {path}")
    print(f"\n{sum(map(len, by_paper.values()))} claims in {time.perf_counter() - t0:.1f}s; "
          f"{len(failed)} expected to reproduce but did not" + (f": {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def cmd_figures(args) -> int:
    from .core.checks import child_seed
    from .core.plotting import save_figure

    reg = discover()
    papers = _papers(args)
    figs = [f for pid in papers for f in reg.figures_of(pid)]
    for f in _progress(figs, f"figures ({args.scale})", not args.no_progress):
        t0 = time.perf_counter()
        fig, data = f.func(seed=child_seed(args.seed, f.paper.id, f.name), **f.scales[args.scale])
        png, csv = save_figure(fig, data, f.paper.id, f.name, outdir=args.out)
        print(f"{png}  {csv}  ({time.perf_counter() - t0:.1f}s)")
    return 0


def cmd_report(args) -> int:
    reg = discover()
    records = {}
    cache = None if args.no_cache else Cache()
    for pid in sorted(reg.papers):
        doc = ledger.best_record(pid)
        if doc is None:
            print(f"{pid}: no current record; running at scale {args.scale}", file=sys.stderr)
            results = run_papers([pid], args.scale, args.seed, cache, False, not args.no_progress)[pid]
            ledger.record(pid, args.scale, results)
            doc = ledger.best_record(pid)
        records[pid] = doc
    path = ledger.write_ledger(records)
    print(f"wrote {path} ({sum(len(d['results']) for d in records.values())} claims)")
    return 0


def cmd_bench(args) -> int:
    reg = discover()
    papers = _papers(args)
    status = 0
    for pid in papers:
        benches = reg.benchmarks_of(pid)
        if not benches:
            print(f"{pid}: no benchmark registered", file=sys.stderr)
            status = 1
        for b in benches:
            out = b.func(quick=args.quick)
            print(f"\n{pid}:{b.name}")
            for k, v in out.items():
                print(f"  {k:<28} {v:.4g}" if isinstance(v, float) else f"  {k:<28} {v}")
    return status


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="theorylab", description="Check ICLR 2025 theory papers by simulation.")
    p.add_argument("--scheduler", help="dask scheduler address for sweeps (or $THEORYLAB_DASK_SCHEDULER)")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="papers with their claims, figures and benchmarks").set_defaults(func=cmd_list)

    def common(sp, scale_default):
        sp.add_argument("papers", nargs="*", metavar="PAPER")
        sp.add_argument("--all", action="store_true", help="every registered paper")
        sp.add_argument("--scale", choices=SCALES, default=scale_default)
        sp.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
        sp.add_argument("--no-progress", action="store_true")

    c = sub.add_parser("check", help="run claims as checks and print the verdicts")
    common(c, "ci")
    c.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    c.add_argument("--force", action="store_true", help="recompute and overwrite cached results")
    c.add_argument("--no-record", action="store_true", help="do not write results/<paper>.<scale>.json")
    c.set_defaults(func=cmd_check)
    f = sub.add_parser("figures", help="regenerate figures (PNG + CSV)")
    common(f, "full")
    f.add_argument("--out", help="output folder (default: <project>/figures)")
    f.set_defaults(func=cmd_figures)
    r = sub.add_parser("report", help="regenerate paper_checks.md from recorded results")
    r.add_argument("--scale", choices=SCALES, default="ci", help="scale for papers with no current record")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--no-cache", action="store_true")
    r.add_argument("--no-progress", action="store_true")
    r.set_defaults(func=cmd_report)
    b = sub.add_parser("bench", help="benchmarks: speed-up against a reference in the same process")
    b.add_argument("papers", nargs="*", metavar="PAPER")
    b.add_argument("--all", action="store_true")
    b.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    b.set_defaults(func=cmd_bench)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.scheduler:
        os.environ["THEORYLAB_DASK_SCHEDULER"] = args.scheduler
        os.environ["THEORYLAB_EXECUTOR"] = "dask"
    try:
        return args.func(args)
    except ValueError as exc:
        print(f"theorylab: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
