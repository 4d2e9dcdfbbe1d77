"""Declarative claims, figures and benchmarks, and the registry that discovers them.

A validation module (``validations/<paper_id>.py``, installed as
``theorylab.validations.<paper_id>``) declares its paper once and decorates
functions::

    PAPER = Paper(id="rr_sgd", title="...", authors="...", arxiv="2410.05106")

    @claim(PAPER, "pr_bias_order", citation="Thm 2",
           statement="PR-averaged constant-step SGD has bias of order gamma",
           scales={"ci": dict(n_chains=200), "full": dict(n_chains=4000)})
    def pr_bias_order(*, n_chains, seed):
        ...
        return Slope(fit=fit, predicted=1.0, data=table)

The function receives the parameters of the chosen scale plus ``seed`` (a per-claim child of
the root seed) and returns an :class:`~theorylab.core.evidence.Evidence`; the framework turns
it into a :class:`Result` with the verdict.  ``@figure`` and ``@benchmark`` register the same
way.  Nothing is listed by hand: :func:`discover` imports every module of ``validations``
(and ``benchmarks``) and the decorators fill the registry.
"""

from __future__ import annotations

import importlib
import pkgutil
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from .evidence import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Evidence
from .seeding import child_seed

SCALES = ("ci", "full")
ERROR = "error"


@dataclass(frozen=True)
class Paper:
    """A paper: its stable short id (names the validation module and figure folder)."""

    id: str
    title: str
    authors: str
    venue: str = "ICLR 2025"
    arxiv: str = ""
    seed_file: str = ""

    def __post_init__(self):
        for name in ("id", "title", "authors", "venue", "arxiv", "seed_file"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"Paper.{name} must be a str; got {value!r}")
        if not self.id.isidentifier():
            raise ValueError(f"Paper.id must be a short identifier (letters, digits, _); got {self.id!r}")

    def cite(self) -> str:
        arx = f", arXiv:{self.arxiv}" if self.arxiv else ""
        return f"{self.authors}, \"{self.title}\", {self.venue}{arx}"

    def bibtex(self) -> str:
        """A BibTeX entry for the paper (authors as declared; ``and``-joined)."""
        names = [a.strip() for a in self.authors.replace(" and ", ", ").split(",") if a.strip()]
        year = "".join(ch for ch in self.venue if ch.isdigit())[-4:] or "2025"
        lines = [f"@inproceedings{{{self.id},", f"  title     = {{{self.title}}},",
                 f"  author    = {{{' and '.join(names) or self.authors}}},",
                 f"  booktitle = {{{self.venue}}},", f"  year      = {{{year}}},"]
        if self.arxiv:
            lines.append(f"  eprint    = {{{self.arxiv}}},\n  archivePrefix = {{arXiv}},")
        lines.append(f"  note      = {{claims checked by theorylab, paper id {self.id}}}")
        return "\n".join(lines) + "\n}"


@dataclass(frozen=True)
class Claim:
    paper: Paper
    id: str
    statement: str
    citation: str
    func: Callable = field(repr=False, compare=False)
    scales: dict = field(repr=False, compare=False)
    expect_reproduced: bool = True
    why_not: str = ""
    stream: str = ""

    @property
    def key(self) -> str:
        return f"{self.paper.id}:{self.id}"

    def params(self, scale: str) -> dict:
        if scale not in self.scales:
            raise ValueError(f"scale must be one of {', '.join(self.scales)} for {self.key}; got {scale!r}")
        return dict(self.scales[scale])


@dataclass(frozen=True)
class Figure:
    paper: Paper
    name: str
    caption: str
    func: Callable = field(repr=False, compare=False)
    scales: dict = field(repr=False, compare=False)


@dataclass(frozen=True)
class Benchmark:
    paper_id: str
    name: str
    func: Callable = field(repr=False, compare=False)


@dataclass
class Result:
    """The outcome of one claim at one scale."""

    paper: str
    claim: str
    statement: str
    citation: str
    scale: str
    seed: int
    verdict: str
    measured: str
    predicted: str
    tolerance: str
    measured_value: float
    expect_reproduced: bool
    runtime_s: float
    params: dict
    note: str = ""
    data: pd.DataFrame | None = field(default=None, repr=False)
    numbers: dict = field(default_factory=dict)
    root_seed: int | None = None
    fingerprint: str = ""
    standard: bool = True

    @property
    def status(self) -> str:
        """What the verdict means against the declaration (see :data:`STATUSES`)."""
        return status_of(self.verdict, self.expect_reproduced)

    @property
    def ok(self) -> bool:
        """True for a reproduced expected claim and for a declared finding that still holds."""
        return self.status in OK_STATUSES

    def row(self) -> dict:
        return {k: getattr(self, k) for k in ("paper", "claim", "citation", "statement", "measured", "predicted",
                                              "tolerance", "verdict", "scale", "seed", "runtime_s", "note")}


STATUSES = ("reproduced", "declared finding", "unexpected failure", "declaration contradicted")
OK_STATUSES = ("reproduced", "declared finding")


def status_of(verdict: str, expect_reproduced: bool) -> str:
    """``reproduced`` / ``unexpected failure`` for an expected claim, ``declared finding`` /
    ``declaration contradicted`` for one declared not to reproduce (an error is always a failure)."""
    if verdict == ERROR:
        return "unexpected failure"
    if expect_reproduced:
        return "reproduced" if verdict == REPRODUCED else "unexpected failure"
    return "declared finding" if verdict == NOT_REPRODUCED else "declaration contradicted"


class Registry:
    def __init__(self):
        self.papers: dict[str, Paper] = {}
        self.claims: dict[str, Claim] = {}
        self.figures: dict[str, Figure] = {}
        self.benchmarks: dict[str, Benchmark] = {}

    def _add(self, table, key, item):
        if key in table and table[key].func.__qualname__ != item.func.__qualname__:
            raise ValueError(f"{key} is registered twice")
        table[key] = item

    def add_paper(self, paper: Paper):
        old = self.papers.get(paper.id)
        if old is not None and old != paper:
            raise ValueError(f"paper id {paper.id!r} is declared twice with different metadata")
        self.papers[paper.id] = paper

    def claims_of(self, paper_id: str) -> list[Claim]:
        return [c for c in self.claims.values() if c.paper.id == paper_id]

    def figures_of(self, paper_id: str) -> list[Figure]:
        return [f for f in self.figures.values() if f.paper.id == paper_id]

    def benchmarks_of(self, paper_id: str) -> list[Benchmark]:
        return [b for b in self.benchmarks.values() if b.paper_id == paper_id]


REGISTRY = Registry()


def _check_scales(scales, what):
    missing = [s for s in SCALES if s not in scales]
    if missing:
        raise ValueError(f"{what} must define scales {SCALES}; missing {missing}")
    return {k: dict(v) for k, v in scales.items()}


def claim(paper: Paper, claim_id: str, *, statement: str, citation: str, scales: dict,
          expect_reproduced: bool = True, why_not: str = "", stream: str = ""):
    """Register a claim function (see the module docstring).

    ``stream``: claims naming the same stream get the same seed, so that several claims can be
    read off one experiment (e.g. a level and a rate from one sweep, memoised in the module);
    by default each claim draws its own independent stream.
    """
    if not expect_reproduced and not why_not:
        raise ValueError(f"{paper.id}:{claim_id}: a claim not expected to reproduce needs why_not")

    def deco(func):
        REGISTRY.add_paper(paper)
        c = Claim(paper, claim_id, statement, citation, func, _check_scales(scales, claim_id),
                  expect_reproduced, why_not, stream)
        REGISTRY._add(REGISTRY.claims, c.key, c)
        func.claim = c
        return func

    return deco


def figure(paper: Paper, name: str, *, caption: str, scales: dict):
    """Register a figure function ``f(*, seed, **params) -> (matplotlib Figure, DataFrame)``."""

    def deco(func):
        REGISTRY.add_paper(paper)
        f = Figure(paper, name, caption, func, _check_scales(scales, name))
        REGISTRY._add(REGISTRY.figures, f"{paper.id}:{name}", f)
        func.figure = f
        return func

    return deco


def benchmark(paper_id: str, name: str):
    """Register a benchmark ``f(*, quick: bool) -> dict`` (keys incl. ``ratio``; printed by the CLI)."""

    def deco(func):
        b = Benchmark(paper_id, name, func)
        REGISTRY._add(REGISTRY.benchmarks, f"{paper_id}:{name}", b)
        func.benchmark = b
        return func

    return deco


_DISCOVERED = False


def discover(packages=("theorylab.validations", "theorylab.benchmarks")) -> Registry:
    """Import every module of the validation (and benchmark) packages; return the registry.

    The repository's top-level ``validations/`` and ``benchmarks/`` install as
    ``theorylab.validations`` and ``theorylab.benchmarks`` (see setup.py), so a folder of the same
    name in the working directory cannot shadow them.  Finding no paper is an error, never an
    empty run.
    """
    global _DISCOVERED
    if _DISCOVERED:
        return REGISTRY
    for pkg_name in packages:
        try:
            pkg = importlib.import_module(pkg_name)
        except ModuleNotFoundError as exc:
            if exc.name == pkg_name and pkg_name != packages[0]:
                continue
            raise ModuleNotFoundError(
                f"cannot import {pkg_name!r} ({exc}); is theorylab installed from its checkout "
                f"(pip install -e .)?", name=exc.name) from exc
        for mod in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
            if not mod.name.startswith("_"):
                importlib.import_module(f"{pkg_name}.{mod.name}")
    if not REGISTRY.papers:
        where = getattr(importlib.import_module(packages[0]), "__path__", ["?"])
        raise RuntimeError(f"discover found no paper in {packages[0]!r} (searched {list(where)}); "
                           f"each validation module must declare a Paper")
    _DISCOVERED = True
    return REGISTRY


def paper_ids() -> list[str]:
    return sorted(discover().papers)


def resolve_papers(ids) -> list[str]:
    """Validate paper ids given on the CLI or in the API (a list of str)."""
    if isinstance(ids, (str, bytes)) or not isinstance(ids, (list, tuple)) or not all(isinstance(p, str) for p in ids):
        raise TypeError(f"ids must be a list of paper id strings; got {ids!r}")
    known = paper_ids()
    unknown = [p for p in ids if p not in known]
    if unknown:
        raise ValueError(f"unknown paper id(s) {', '.join(map(repr, unknown))}; known: {', '.join(known)}")
    return list(ids)


def evaluate(c: Claim, evidence: Evidence, *, scale, seed, params, runtime) -> Result:
    if not isinstance(evidence, Evidence):
        raise TypeError(f"{c.key} returned {type(evidence).__name__}; a claim must return an Evidence")
    verdict = evidence.verdict()
    assert verdict in (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)
    note = evidence.note
    if not c.expect_reproduced:
        note = (note + " " if note else "") + f"[expected not to reproduce: {c.why_not}]"
    return Result(c.paper.id, c.id, c.statement, c.citation, scale, seed, verdict, evidence.measured,
                  evidence.predicted_text, evidence.tolerance, evidence.measured_value(), c.expect_reproduced,
                  runtime, params, note, evidence.data, numbers=evidence.numbers())


def _cached_result(cache, key, c: Claim, scale: str):
    """A cached result for ``c`` at ``scale``, or None; a foreign or malformed entry is reported."""
    hit = cache.get(key)
    if hit is None:
        return None
    if not isinstance(hit, Result) or (hit.paper, hit.claim, hit.scale) != (c.paper.id, c.id, scale):
        got = f"{hit.paper}:{hit.claim} at {hit.scale}" if isinstance(hit, Result) else type(hit).__name__
        cache.report(key, f"holds {got}, not {c.key} at {scale}")
        return None
    return hit


def apply_overrides(c: Claim, params: dict, overrides: dict | None) -> tuple[dict, bool]:
    """``params`` with ``--set name=value`` overrides applied; ``(params, standard)``."""
    if not overrides:
        return params, True
    unknown = sorted(set(overrides) - set(params))
    if unknown:
        raise ValueError(f"--set {', '.join(unknown)}: not a parameter of {c.key}; "
                         f"its parameters are {', '.join(sorted(params)) or '(none)'}")
    return {**params, **overrides}, False


def run_claim(c: Claim, scale: str = "ci", seed: int = 0, *, cache=None, force=False, overrides=None) -> Result:
    """Run one claim at ``scale``; with a :class:`~theorylab.core.cache.Cache`, reuse a stored result.

    The claim runs inside :func:`~theorylab.core.context.using_run` (its key and the cache), so
    its sweeps store each point.  ``overrides`` replace scale parameters; the result is then
    marked non-standard (``standard=False``) and is never written to the committed ledger.
    A signal during the run raises :class:`~theorylab.core.interrupt.Interrupted` (never an
    ``error`` row); any other exception becomes an ``error`` result with the exception attached.
    """
    from . import interrupt
    from .context import using_run
    from .fingerprint import code_fingerprint

    params, standard = apply_overrides(c, c.params(scale), overrides)
    claim_seed = child_seed(seed, c.paper.id, c.stream or c.id)
    fingerprint = code_fingerprint(c.func.__module__)
    key = None
    if cache is not None:
        key = cache.key("claim", c.paper.id, c.id, scale, seed, params, module=c.func.__module__)
        if not force:
            hit = _cached_result(cache, key, c, scale)
            if hit is not None:
                hit.standard = standard  # same parameters, same numbers; standardness is how they were asked for
                return hit
    interrupt.check()
    t0 = time.perf_counter()
    try:
        with using_run(claim_key=c.key, cache=cache):
            evidence = c.func(seed=claim_seed, **params)
        result = evaluate(c, evidence, scale=scale, seed=claim_seed, params=params,
                          runtime=time.perf_counter() - t0)
        interrupt.check()  # a signal deferred in a kernel call interrupts this claim, even if it then finished
    except BaseException as exc:  # a crashed check is reported, never silently skipped
        if interrupt.requested() is not None:
            raise interrupt.Interrupted(interrupt.requested()) from None
        if not isinstance(exc, Exception):
            raise
        tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
        result = Result(c.paper.id, c.id, c.statement, c.citation, scale, claim_seed, ERROR, tb, "", "",
                        float("nan"), c.expect_reproduced, time.perf_counter() - t0, params, tb,
                        root_seed=seed, fingerprint=fingerprint, standard=standard)
        result.exception = exc
        return result
    result.root_seed, result.fingerprint, result.standard = seed, fingerprint, standard
    if cache is not None:
        cache.put(key, result)
    return result


def results_frame(results) -> pd.DataFrame:
    """One row per :class:`Result` (the ledger's text columns)."""
    if isinstance(results, (str, bytes)) or not isinstance(results, (list, tuple)) or not all(
            isinstance(r, Result) for r in results):
        raise TypeError(f"results must be a list of Result objects; got {type(results).__name__}")
    return pd.DataFrame([r.row() for r in results])
