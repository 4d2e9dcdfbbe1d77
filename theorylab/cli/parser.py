"""The argument parser of ``theorylab`` and :func:`main`."""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from . import commands as _c
from .output import _eprint

SCALE_CHOICES = ("ci", "full")
SCALE_HELP = ("ci: small sizes, seconds per paper (what the tests run); full: the sizes behind the published "
              "records and figures, minutes per paper")


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

    command("list", _c.cmd_list, "papers with their claims, figures and benchmarks")

    def targets(sp, what="PAPER or PAPER:CLAIM"):
        sp.add_argument("targets", nargs="*", metavar="TARGET", help=what)
        sp.add_argument("--all", action="store_true", help="every registered paper")

    c = command("check", _c.cmd_check, "run claims as checks and print the verdicts")
    targets(c)
    c.add_argument("-k", dest="keyword", help="keep claims whose paper:claim matches (pytest-like: and/or/not)")
    c.add_argument("--scale", choices=SCALE_CHOICES, default="ci", help=SCALE_HELP + " (default ci)")
    c.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    c.add_argument("--set", action="append", metavar="NAME=VALUE", help="override a scale parameter (non-standard)")
    c.add_argument("--format", choices=("table", "json", "csv"), default="table", help="stdout format")
    c.add_argument("--verbose", "-v", action="store_true", help="full statement, citation and note per claim")
    c.add_argument("--no-cache", action="store_true", help="reuse nothing: no result cache, no in-memory results")
    c.add_argument("--force", action="store_true", help="recompute all once: claims, experiments, points")
    c.add_argument("--no-record", action="store_true", help="write no results record")

    f = command("figures", _c.cmd_figures, "regenerate figures (PNG + CSV)")
    targets(f, "PAPER or PAPER:FIGURE")
    f.add_argument("--scale", choices=SCALE_CHOICES, default="full", help=SCALE_HELP + " (default full)")
    f.add_argument("--seed", type=int, default=0)

    r = command("report", _c.cmd_report, "write the ledger paper_checks.md from the recorded results")
    r.add_argument("targets", nargs="*", metavar="PAPER", help="papers in the ledger (default: all)")
    r.add_argument("--scale", choices=SCALE_CHOICES, default="ci",
                   help="scale to run papers with no current record at; " + SCALE_HELP + " (default ci)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--no-cache", action="store_true")
    r.add_argument("--html", action="store_true", help="a static HTML site instead: --out DIR (the site's folder), "
                   "--publish writes docs/")

    b = command("bench", _c.cmd_bench, "benchmarks: speed-up against a reference in the same process")
    targets(b, "PAPER")
    b.add_argument("--quick", action="store_true", help="small sizes (seconds)")

    k = command("calibrate", _c.cmd_calibrate, "rerun claims over root seeds: verdict flips, interval calibration")
    targets(k, "PAPER or PAPER:CLAIM (a claim's rows replace its old ones in the paper's tables)")
    k.add_argument("--seeds", type=int, default=20, help="number of root seeds (default 20)")
    k.add_argument("--first-seed", type=int, default=1, help="first root seed (default 1)")
    k.add_argument("--confirm-seeds", type=int, default=40, metavar="M",
                   help="fresh seeds that re-measure a ratio outside the band (the confirmation stage of "
                        "theorylab.core.calibrate; 0: none; default 40)")
    k.add_argument("--scale", choices=SCALE_CHOICES, default="ci", help=SCALE_HELP + " (default ci)")
    k.add_argument("--format", choices=("table", "json", "csv"), default="table")

    t = command("cite", _c.cmd_cite, "BibTeX of a paper and of theorylab")
    targets(t, "PAPER")

    n = command("new", _c.cmd_new, "scaffold a paper of your own in your package (claims, figure, tests, notebook)")
    n.add_argument("paper", metavar="PAPER", help="the new paper's id (a Python identifier)")
    n.add_argument("--in", dest="folder", required=True, metavar="DIR",
                   help="your package's project folder (created if missing)")
    n.add_argument("--package", help="the package's import name (default: DIR's name)")
    n.add_argument("--title", default="", help="the paper's title")
    n.add_argument("--authors", default="", help="the paper's authors")

    rp = command("reproduce", _c.cmd_reproduce, "every claim and figure at full scale, timed per paper (resumable)")
    rp.add_argument("targets", nargs="*", metavar="PAPER", help="papers (default: all)")
    rp.add_argument("--seed", type=int, default=0)
    rp.add_argument("--no-cache", action="store_true")
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)  # --help and --version end here, before any heavy import
    from ..core.interrupt import Interrupted, handling_signals
    if args.command == "calibrate" and args.seeds < 2:
        _eprint("theorylab: error: --seeds must be at least 2")
        return 2
    if args.command == "calibrate" and (args.confirm_seeds < 0 or args.confirm_seeds == 1):
        _eprint(f"theorylab: error: --confirm-seeds must be 0 (no confirmation stage) or at least 2, "
                f"got {args.confirm_seeds}")
        return 2
    try:
        with handling_signals():
            return args.func(args)
    except Interrupted as exc:
        from ..core.cache import default_cache_dir

        _eprint(f"\ntheorylab: {exc}; nothing partial was recorded. Finished claims and sweep points are cached "
                f"under {default_cache_dir()}: rerun the same command to resume.")
        return exc.exit_code
    except (ValueError, ConnectionError, OSError) as exc:
        _eprint(f"theorylab: error: {exc}")
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
