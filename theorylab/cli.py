"""The ``theorylab`` command line.

    theorylab list
    theorylab check rr_sgd --scale ci              # table of claims; exit 1 on any unexpected outcome
    theorylab check rr_sgd:pr_bias_order -k bias   # one claim; pytest-like -k selection
    theorylab check --all --scale full --format json
    theorylab figures rr_sgd                        # PNG + CSV of the plotted data
    theorylab calibrate scaling_ode --seeds 20      # verdict stability and interval calibration
    theorylab report                                # the ledger from the recorded results
    theorylab reproduce                             # every claim and figure at full scale, timed
    theorylab bench rr_sgd | cite rr_sgd

Outputs: a user's runs write under ``--out DIR`` (default ``$THEORYLAB_OUT`` or
``<cache>/out``, the cache being ``$THEORYLAB_CACHE`` or ``~/.cache/theorylab``) and never touch
the checkout.  ``--publish`` (maintainers) writes the committed ``results/``, ``figures/`` and
``paper_checks.md`` instead; it refuses ``--set`` overrides and ci-scale figures.

``--scheduler ADDRESS`` (before or after the command, or ``$THEORYLAB_DASK_SCHEDULER``) runs the
claims and their sweep points on a dask cluster.  SIGINT/SIGTERM stop a run cleanly (exit 130 /
143): nothing partial is recorded, and what finished is cached, so the same command resumes.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import re
import sys
import time
from pathlib import Path

from . import __version__

SCALE_CHOICES = ("ci", "full")


# ----------------------------------------------------------------------------------------- output
def _eprint(*a):
    print(*a, file=sys.stderr, flush=True)


def _shorten(text, width):
    text = str(text).replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _table(rows, headers, max_width=60) -> str:
    """A plain-text table; cells longer than ``max_width`` end in "…" (``--verbose`` prints them whole)."""
    rows = [[_shorten(c, max_width) for c in r] for r in rows]
    widths = [max([len(str(h))] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def fmt(r):
        return "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()

    return "\n".join([fmt(headers), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


class Progress:
    """Progress of a run: a tqdm bar on a terminal, plain lines otherwise (CI logs).

    Reports claims, the sweep points inside a claim (through the run context) and numba
    compilation (through numba's event API), so a first run never sits silent.
    """

    def __init__(self, total, desc, enabled=True, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = enabled and self.stream.isatty()
        self.total, self.desc, self.done = total, desc, 0
        self.bar = None
        self._last_line = 0.0
        self._compiling = set()
        if self.tty:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=desc, leave=False, file=self.stream)
        self._listener = self._install_numba_listener() if enabled else None

    def _line(self, text):
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def _install_numba_listener(self):
        try:
            from numba.core import event
        except ImportError:  # pragma: no cover - numba is a dependency
            return None
        progress = self

        class _Compile(event.Listener):
            def on_start(self, ev):
                name = getattr(ev.data.get("dispatcher"), "__qualname__", None) if isinstance(ev.data, dict) else None
                name = name or "a kernel"
                if name not in progress._compiling:
                    progress._compiling.add(name)
                    progress._line(f"  compiling {name} (numba, first run; cached afterwards)")

            def on_end(self, ev):
                pass

        listener = _Compile()
        event.register("numba:compile", listener)
        return listener

    def start(self, what):
        if self.bar is not None:
            self.bar.set_postfix_str(what)
        elif self.enabled:
            self._line(f"[{self.done + 1}/{self.total}] {self.desc}: {what} ...")

    def finish(self, what, detail=""):
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.enabled:
            self._line(f"[{self.done}/{self.total}] {self.desc}: {what} {detail}".rstrip())

    def __call__(self, event, **info):
        """The run context's progress hook: ``progress("sweep_point", done=i, total=n, desc=...)``."""
        if not self.enabled or event != "sweep_point":
            return
        done, total = info.get("done", 0), info.get("total", 0)
        text = f"{info.get('desc', 'sweep')} point {done}/{total}"
        if self.bar is not None:
            self.bar.set_postfix_str(text)
        elif time.monotonic() - self._last_line > 5 or done == total:
            self._last_line = time.monotonic()
            self._line(f"    {text}")

    def close(self):
        if self.bar is not None:
            self.bar.close()
        if self._listener is not None:
            from numba.core import event

            event.unregister("numba:compile", self._listener)
            self._listener = None


# -------------------------------------------------------------------------------------- selection
def _keyword_matcher(expr: str):
    """pytest-like ``-k``: words matched as substrings of ``paper:claim``, with and/or/not/()."""
    tokens = re.findall(r"\(|\)|[^\s()]+", expr)
    if not tokens:
        raise ValueError(f"-k needs an expression; got {expr!r}")
    parts = []
    for t in tokens:
        if t in ("and", "or", "not", "(", ")"):
            parts.append(t)
        else:
            parts.append(f"({t!r} in key)")
    code = " ".join(parts)
    try:
        compiled = compile(code, "<-k>", "eval")
        eval(compiled, {"__builtins__": {}}, {"key": ""})  # noqa: S307 - built from quoted literals only
    except SyntaxError as exc:
        raise ValueError(f"-k expression {expr!r} is not valid (use words, and, or, not, parentheses)") from exc
    return lambda key: bool(eval(compiled, {"__builtins__": {}}, {"key": key}))  # noqa: S307


def select_claims(targets, *, all_=False, keyword=None):
    """Claims named by ``PAPER`` or ``PAPER:CLAIM`` targets (or every claim with ``all_``), filtered by ``-k``."""
    from .core.checks import discover

    reg = discover()
    if not targets and not all_:
        raise ValueError("name a paper (PAPER or PAPER:CLAIM; `theorylab list` shows them) or use --all")
    known = sorted(reg.papers)
    chosen = []
    if all_:
        chosen = [c for pid in known for c in reg.claims_of(pid)]
    for t in targets:
        pid, _, cid = t.partition(":")
        if pid not in reg.papers:
            raise ValueError(f"unknown paper id {pid!r}; known: {', '.join(known)}")
        claims = reg.claims_of(pid)
        if cid:
            match = [c for c in claims if c.id == cid]
            if not match:
                raise ValueError(f"{pid} has no claim {cid!r}; its claims: {', '.join(c.id for c in claims)}")
            claims = match
        chosen += [c for c in claims if c not in chosen]
    if keyword:
        match = _keyword_matcher(keyword)
        chosen = [c for c in chosen if match(c.key)]
    if not chosen:
        raise ValueError("no claim matches the selection" + (f" with -k {keyword!r}" if keyword else ""))
    return chosen


def select_papers(targets, *, all_=False):
    from .core.checks import paper_ids, resolve_papers

    if not targets and not all_:
        raise ValueError("name a paper (`theorylab list` shows them) or use --all")
    return paper_ids() if all_ else resolve_papers([t.partition(":")[0] for t in targets])


def parse_overrides(items) -> dict:
    """``--set name=value`` pairs; values are Python literals (numbers, lists, strings)."""
    out = {}
    for item in items or []:
        name, eq, text = item.partition("=")
        if not eq or not name.isidentifier():
            raise ValueError(f"--set takes name=value (a parameter of the claim's scale); got {item!r}")
        try:
            out[name] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            out[name] = text
    return out


# ------------------------------------------------------------------------------------ where to write
def out_root(args) -> Path:
    """The folder for a user's outputs (``--out``, ``$THEORYLAB_OUT`` or ``<cache>/out``)."""
    from .core.cache import default_cache_dir

    if getattr(args, "out", None):
        return Path(args.out)
    return Path(os.environ.get("THEORYLAB_OUT", default_cache_dir() / "out"))


def results_root(args) -> Path:
    from .core.paths import results_dir

    return results_dir() if getattr(args, "publish", False) else out_root(args) / "results"


def _cache(args):
    from .core.cache import Cache

    return None if getattr(args, "no_cache", False) else Cache()


def _scheduler_address(args):
    return getattr(args, "scheduler", None) or os.environ.get("THEORYLAB_DASK_SCHEDULER") or None


@contextlib.contextmanager
def _connected(scheduler):
    """A dask client for the address ``scheduler`` (failing fast, closed on exit); None without one."""
    if not scheduler:
        yield None
        return
    from .core import dask_backend

    client = dask_backend.connect(scheduler)
    try:
        yield client
    finally:
        client.close()


# ------------------------------------------------------------------------------------------ running
def run_claims(claims, scale, seed, *, cache, force, overrides, progress, scheduler=None):
    """Run ``claims`` in order (locally, or on the dask cluster at ``scheduler``); a list of Results."""
    from .core.checks import run_claim
    from .core.context import using_run

    per_claim = [_claim_overrides(c, scale, overrides) for c in claims]
    # --no-cache: no disk and no in-process memo; --force: one run id, so what this run computed is reused in it
    run = dict(memo=cache is not None, force=bool(force), run_id=f"cli-{os.getpid()}-{time.time_ns()}")
    if scheduler:
        from .core import dask_backend

        with _connected(scheduler) as client, using_run(executor="dask", scheduler=client, progress=progress, **run):
            if any(per_claim):
                raise ValueError("--set is not supported together with --scheduler")
            results = dask_backend.run_claims(claims, scale, seed, client, cache=cache, force=force)
        for c, r in zip(claims, results):
            progress.finish(c.key, f"{r.verdict} ({r.runtime_s:.1f}s)")
        return results
    results = []
    with using_run(progress=progress, **run):
        for c, ov in zip(claims, per_claim):
            progress.start(c.key)
            r = run_claim(c, scale, seed, cache=cache, force=force, overrides=ov)
            progress.finish(c.key, f"{r.verdict} ({r.runtime_s:.1f}s)")
            results.append(r)
    return results


def _claim_overrides(c, scale, overrides):
    if not overrides:
        return None
    return {k: v for k, v in overrides.items() if k in c.params(scale)}


def _check_overrides_apply(claims, scale, overrides):
    if not overrides:
        return
    known = set().union(*(c.params(scale) for c in claims))
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(f"--set {', '.join(unknown)}: no selected claim has such a parameter at scale {scale}; "
                         f"their parameters are {', '.join(sorted(known)) or '(none)'}")


def _print_results(results, fmt, verbose, scale):
    from .core.results import frame, result_record

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
                 r.verdict + ("" if r.status == "reproduced" else f" ({r.status})"), f"{r.runtime_s:.1f}s")
                for r in rs]
        print(f"\n{pid} — scale {scale}")
        print(_table(rows, ["claim", "measured", "predicted", "tolerance", "verdict", "time"],
                     max_width=10_000 if verbose else 60))
        if verbose:
            for r in rs:
                print(f"\n  {r.claim}: {r.statement}\n    citation: {r.citation}\n    measured: {r.measured}"
                      f"\n    tolerance: {r.tolerance}" + (f"\n    note: {r.note}" if r.note else ""))


def cmd_list(args) -> int:
    from .core.checks import discover

    reg = discover()
    rows = [(pid, len(reg.claims_of(pid)), len(reg.figures_of(pid)), len(reg.benchmarks_of(pid)), reg.papers[pid].title)
            for pid in sorted(reg.papers)]
    print(_table(rows, ["paper", "claims", "figures", "benchmarks", "title"]))
    return 0


def cmd_check(args) -> int:
    from .core import ledger

    overrides = parse_overrides(args.set)
    if overrides and args.publish:
        raise ValueError("--set makes a run non-standard; it cannot be --publish'ed to the committed results")
    claims = select_claims(args.targets, all_=args.all, keyword=args.keyword)
    _check_overrides_apply(claims, args.scale, overrides)
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
            _eprint(f"  ! {r.paper}:{r.claim}: {r.note}")
    if not args.no_record:
        folder = results_root(args)
        for pid in dict.fromkeys(r.paper for r in results):
            mine = [r for r in results if r.paper == pid]
            path = ledger.record(pid, args.scale, _merge_with_record(pid, args.scale, mine, folder), root=folder)
            _eprint(f"recorded {path}")
    return _summary(results, time.perf_counter() - t0)


def _merge_with_record(pid, scale, results, folder):
    """A run of some claims of a paper keeps the paper's other current results in its record."""
    from .core.checks import discover
    from .core.ledger import RecordError, load_record, paper_fingerprint

    all_ids = [c.id for c in discover().claims_of(pid)]
    if {r.claim for r in results} >= set(all_ids):
        return results
    try:
        doc = load_record(pid, scale, folder)
    except RecordError as exc:
        _eprint(f"note: {exc}; replacing it")
        doc = None
    if not doc or doc.get("fingerprint") != paper_fingerprint(pid):
        return results
    from .core.checks import Result

    have = {r.claim for r in results}
    kept = []
    for row in doc["results"]:
        if row["claim"] in have or row["claim"] not in all_ids:
            continue
        r = Result(pid, row["claim"], row["statement"], row["citation"], row["scale"], row["seed"], row["verdict"],
                   row["measured"], row["predicted"], row["tolerance"],
                   row.get("measured_value") if row.get("measured_value") is not None else float("nan"),
                   row["expect_reproduced"], row["runtime_s"], {}, row.get("note", ""),
                   numbers=row.get("numbers") or {}, root_seed=doc.get("root_seed"), fingerprint=doc["fingerprint"],
                   standard=row.get("standard", True))
        r.params = row.get("params", {})
        kept.append(r)
    return kept + results


def _summary(results, seconds) -> int:
    from .core.checks import STATUSES

    counts = {s: sum(r.status == s for r in results) for s in STATUSES}
    bad = [f"{r.paper}:{r.claim} ({r.verdict})" for r in results if not r.ok]
    _eprint(f"\n{len(results)} claims in {seconds:.1f}s: reproduced {counts['reproduced']}, declared findings "
            f"{counts['declared finding']}, unexpected failures {counts['unexpected failure']}, declarations "
            f"contradicted {counts['declaration contradicted']}" + (f": {', '.join(bad)}" if bad else ""))
    return 1 if bad else 0


def _figure_targets(args):
    from .core.checks import discover

    reg = discover()
    papers = select_papers(args.targets, all_=args.all)
    figs = [f for pid in papers for f in reg.figures_of(pid)]
    named = [t.partition(":") for t in args.targets if ":" in t]
    if named:
        figs = [f for f in figs if any(f.paper.id == p and f.name == n for p, _, n in named)
                or f.paper.id not in {p for p, _, _ in named}]
    return figs


def cmd_figures(args) -> int:
    from .core.context import using_run
    from .core.paths import figures_dir

    if args.publish and args.scale != "full":
        raise ValueError("--publish writes the committed full-scale figures; use --scale full (the default)")
    figs = _figure_targets(args)
    outdir = figures_dir() if args.publish else out_root(args) / "figures"
    progress = Progress(len(figs), f"figures ({args.scale})", enabled=not args.no_progress)
    with _connected(_scheduler_address(args)) as client, using_run(**({"executor": "dask", "scheduler": client} if client else {})):
        _draw_figures(figs, args, outdir, progress)
    return 0


def _draw_figures(figs, args, outdir, progress):
    """Draw and save ``figs``; on a cluster (the run's dask executor) their sweep points run there."""
    from .core.checks import child_seed
    from .core.plotting import save_figure

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
    from .core import ledger
    from .core.checks import discover
    from .core.paths import ledger_path, results_dir

    reg = discover()
    roots = [results_dir()] if args.publish else [out_root(args) / "results", results_dir()]
    if args.publish and args.targets:
        raise ValueError("--publish writes the whole ledger; give no papers")
    records = {}
    for pid in (select_papers(args.targets) if args.targets else sorted(reg.papers)):
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
    path = ledger.write_ledger(records, ledger_path() if args.publish else out_root(args) / "paper_checks.md",
                               timings=timings, machine=machine)
    n = ledger.counts(records)
    print(f"wrote {path} ({sum(n.values())} claims: " + ", ".join(f"{k} {v}" for k, v in n.items()) + ")")
    return 1 if n["unexpected failure"] or n["declaration contradicted"] else 0


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


def cmd_bench(args) -> int:
    from .core.checks import discover

    reg = discover()
    status = 0
    for pid in select_papers(args.targets, all_=args.all):
        benches = reg.benchmarks_of(pid)
        if not benches:
            _eprint(f"{pid}: no benchmark registered")
            status = 1
        for b in benches:
            out = b.func(quick=args.quick)
            print(f"\n{pid}:{b.name}")
            for k, v in out.items():
                print(f"  {k:<28} {v:.4g}" if isinstance(v, float) else f"  {k:<28} {v}")
    return status


def _calibrate_one(pid, seeds, args, folder, client):
    from .core.calibrate import calibrate_paper
    from .core.checks import discover

    claims = discover().claims_of(pid)
    progress = Progress(len(claims) * len(seeds), f"calibrate {pid}", enabled=not args.no_progress)

    def tick(c, seed, r):
        progress.finish(f"{c.key} seed {seed}", r.verdict)

    try:
        summary, runs = calibrate_paper(pid, seeds, scale=args.scale, progress=tick, scheduler=client)
    finally:
        progress.close()
    folder.mkdir(parents=True, exist_ok=True)
    summary.to_csv(folder / f"{pid}.csv", index=False)
    runs.to_csv(folder / f"{pid}.runs.csv", index=False)
    return summary


def cmd_calibrate(args) -> int:
    from .core.calibrate import RATIO_BAND, render_markdown
    from .core.paths import results_dir

    import pandas as pd

    papers = select_papers(args.targets, all_=args.all)
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    folder = (results_dir() if args.publish else out_root(args)) / "calibration"
    summaries = []
    with _connected(_scheduler_address(args)) as client:
        for pid in papers:
            summaries.append(_calibrate_one(pid, seeds, args, folder, client))
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
                 r.inconclusive, r.error, r.flips, f"{r.ratio:.2f}" if r.ratio == r.ratio else "deterministic",
                 "ok" if r.ok else "NO") for r in summary.itertuples()]
        print(_table(rows, ["claim", "expected", "repr.", "not repr.", "inconcl.", "error", "flips", "ratio", "ok"]))
    print(f"\nwrote {folder} (band {RATIO_BAND}, seeds {seeds[0]}..{seeds[-1]})")
    return 0 if bool(summary["ok"].all()) else 1


def cmd_cite(args) -> int:
    from .core.checks import discover

    reg = discover()
    for pid in select_papers(args.targets, all_=args.all):
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

    from .core import ledger
    from .core.checks import child_seed, discover
    from .core.paths import figures_dir
    from .core.plotting import save_figure

    reg = discover()
    papers = select_papers(args.targets, all_=not args.targets)
    cache, folder = _cache(args), results_root(args)
    fig_dir = figures_dir() if args.publish else out_root(args) / "figures"
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


# Full-scale budget per paper on 2 cores (DEVELOPERS.md): the first seven papers take 28.5 min together
# (adaptive_sde, scaling_ode and relu_depth above this budget); 31 more at 150 s each keep all 38 under
# 2 h (28.5 + 77.5 = 106 min).
PAPER_BUDGET_S = 150


# ------------------------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="theorylab", description="Check ICLR 2025 theory papers by simulation.")
    p.add_argument("--version", action="version", version=f"theorylab {__version__}")

    def shared(sp, top=False):
        d = {} if top else {"default": argparse.SUPPRESS}
        sp.add_argument("--scheduler", help="dask scheduler address (or $THEORYLAB_DASK_SCHEDULER)", **d)
        sp.add_argument("--out", help="folder for outputs (default $THEORYLAB_OUT or <cache>/out)", **d)
        sp.add_argument("--publish", action="store_true",
                        help="maintainers: write the committed results/, figures/, paper_checks.md", **d)
        sp.add_argument("--no-progress", action="store_true", help="no progress display", **d)

    shared(p, top=True)
    sub = p.add_subparsers(dest="command", required=True)

    def command(name, func, help_):
        sp = sub.add_parser(name, help=help_)
        shared(sp)
        sp.set_defaults(func=func)
        return sp

    command("list", cmd_list, "papers with their claims, figures and benchmarks")

    def targets(sp, what="PAPER or PAPER:CLAIM"):
        sp.add_argument("targets", nargs="*", metavar="TARGET", help=what)
        sp.add_argument("--all", action="store_true", help="every registered paper")

    c = command("check", cmd_check, "run claims as checks and print the verdicts")
    targets(c)
    c.add_argument("-k", dest="keyword", help="keep claims whose paper:claim matches (pytest-like: and/or/not)")
    c.add_argument("--scale", choices=SCALE_CHOICES, default="ci")
    c.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    c.add_argument("--set", action="append", metavar="NAME=VALUE", help="override a scale parameter (non-standard)")
    c.add_argument("--format", choices=("table", "json", "csv"), default="table", help="stdout format")
    c.add_argument("--verbose", "-v", action="store_true", help="full statement, citation and note per claim")
    c.add_argument("--no-cache", action="store_true", help="reuse nothing: no result cache, no in-memory results")
    c.add_argument("--force", action="store_true", help="recompute all once: claims, experiments, points")
    c.add_argument("--no-record", action="store_true", help="write no results record")

    f = command("figures", cmd_figures, "regenerate figures (PNG + CSV)")
    targets(f, "PAPER or PAPER:FIGURE")
    f.add_argument("--scale", choices=SCALE_CHOICES, default="full")
    f.add_argument("--seed", type=int, default=0)

    r = command("report", cmd_report, "write the ledger paper_checks.md from the recorded results")
    r.add_argument("targets", nargs="*", metavar="PAPER", help="papers in the ledger (default: all)")
    r.add_argument("--scale", choices=SCALE_CHOICES, default="ci", help="scale for papers with no current record")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--no-cache", action="store_true")

    b = command("bench", cmd_bench, "benchmarks: speed-up against a reference in the same process")
    targets(b, "PAPER")
    b.add_argument("--quick", action="store_true", help="small sizes (seconds)")

    k = command("calibrate", cmd_calibrate, "rerun claims over root seeds: verdict flips, interval calibration")
    targets(k, "PAPER")
    k.add_argument("--seeds", type=int, default=20, help="number of root seeds (default 20)")
    k.add_argument("--first-seed", type=int, default=1, help="first root seed (default 1)")
    k.add_argument("--scale", choices=SCALE_CHOICES, default="ci")
    k.add_argument("--format", choices=("table", "json", "csv"), default="table")

    t = command("cite", cmd_cite, "BibTeX of a paper and of theorylab")
    targets(t, "PAPER")

    rp = command("reproduce", cmd_reproduce, "every claim and figure at full scale, timed per paper (resumable)")
    rp.add_argument("targets", nargs="*", metavar="PAPER", help="papers (default: all)")
    rp.add_argument("--seed", type=int, default=0)
    rp.add_argument("--no-cache", action="store_true")
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)  # --help and --version end here, before any heavy import
    from .core.interrupt import Interrupted, handling_signals
    if args.command == "calibrate" and args.seeds < 2:
        _eprint("theorylab: error: --seeds must be at least 2")
        return 2
    try:
        with handling_signals():
            return args.func(args)
    except Interrupted as exc:
        from .core.cache import default_cache_dir

        _eprint(f"\ntheorylab: {exc}; nothing partial was recorded. Finished claims and sweep points are cached "
                f"under {default_cache_dir()}: rerun the same command to resume.")
        return exc.exit_code
    except (ValueError, ConnectionError, OSError) as exc:
        _eprint(f"theorylab: error: {exc}")
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
