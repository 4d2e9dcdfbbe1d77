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
import re
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
    """A paper: its stable short id, which names its module, figure folder and records.

    Parameters
    ----------
    id : str
        A short identifier (letters, digits, ``_``), stable across versions.
    title, authors : str
        As on the paper.
    venue : str
        Where it appeared (default ``"ICLR 2025"``).
    arxiv : str
        The arXiv id, if any.
    """

    id: str
    title: str
    authors: str
    venue: str = "ICLR 2025"
    arxiv: str = ""

    def __post_init__(self):
        for name in ("id", "title", "authors", "venue", "arxiv"):
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
    source: str = ""
    ref: str = ""

    @property
    def key(self) -> str:
        return f"{self.paper.id}:{self.id}"

    def params(self, scale: str) -> dict:
        if scale not in self.scales:
            raise ValueError(f"scale must be one of {', '.join(self.scales)} for {self.key}; got {scale!r}")
        return dict(self.scales[scale])

    def statement_for(self, params: dict) -> str:
        """The statement with its ``{name}`` placeholders filled from the parameters actually run."""
        return format_statement(self.statement, params)

    def seed(self, root: int, scale: str, stage: int = 1) -> int:
        """The claim's stream seed: (root, paper, stream, scale), and ``"replicate"`` for stage 2.

        The scale is part of the key, so a ci run is not the first paths of the full run, and the
        replicate stream of stage 2 shares no draw with the primary one (issue 28, item 9).
        """
        keys = (self.paper.id, self.stream or self.id, scale) + (("replicate",) if stage == 2 else ())
        return child_seed(root, *keys)


def format_statement(statement: str, params: dict) -> str:
    """``statement`` with each ``{name}`` (str.format field syntax, e.g. ``{eta:.3g}``) naming a key of
    ``params`` filled in.

    Only fields whose name is a parameter are formatted; other braces (set notation such as
    ``{0, 1}^N``) stay as written, so statements need no brace escaping.  A field that cannot be
    formatted (a ``--set`` value of another type) is kept, followed by the value.
    """
    if "{" not in statement:
        return statement

    def fill(m):
        try:
            return m.group(0).format(**params) if m.group(1) in params else m.group(0)
        except (ValueError, TypeError, IndexError, KeyError, AttributeError):
            return m.group(0) + f" (= {params[m.group(1)]!r})"
    return _PLACEHOLDER.sub(fill, statement)


_PLACEHOLDER = re.compile(r"\{(\w+)((?:\[\w+\]|\.\w+)*(?:![rsa])?(?::[^{}]*)?)\}")


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
    """The outcome of one claim at one scale (what :func:`run_claim` returns and records hold).

    Parameters
    ----------
    paper, claim : str
        Which claim.
    statement, citation : str
        As declared, with the statement's placeholders filled.
    scale : str
        ``"ci"`` or ``"full"``.
    seed : int
        The claim's stream seed.
    verdict : str
        ``reproduced``, ``not reproduced``, ``inconclusive`` or ``error``.
    measured, predicted, tolerance : str
        The measurement with its interval, the prediction, and the tolerance rule, as text.
    measured_value : float
        The point estimate (NaN where there is none).
    expect_reproduced : bool
        The declaration (False for a declared finding).
    runtime_s : float
        Seconds the claim took.
    params : dict
        The parameters run.
    note : str
        Anything the evidence or the rule adds.
    data : DataFrame, optional
        The table behind the measurement.
    numbers : dict
        The machine-readable numbers (``value``, ``ci_low``/``ci_high``, ``fw_low``/``fw_high``, ...).
    root_seed, fingerprint, standard, stage, stage1
        The root seed, the code fingerprint, whether the parameters were the scale's, which stage
        decided, and stage 1's verdict when stage 2 ran.
    """

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
    stage: int = 1
    stage1: dict = field(default_factory=dict)

    @property
    def status(self) -> str:
        """What the verdict means against the declaration (see :data:`STATUSES`)."""
        return status_of(self.verdict, self.expect_reproduced)

    @property
    def stage_text(self) -> str:
        """How the verdict was reached, for the ledger: '' for stage 1, else what the replicate did."""
        return describe_stage(self.stage, self.verdict, self.stage1)

    @property
    def outside_reported_ci(self) -> bool:
        """A reproduced verdict whose reported interval excludes the prediction (module evidence)."""
        return bool((self.numbers or {}).get("outside_reported_ci", False))

    @property
    def ok(self) -> bool:
        """True for a reproduced expected claim and for a declared finding that still holds."""
        return self.status in OK_STATUSES

    def row(self) -> dict:
        return {k: getattr(self, k) for k in ("paper", "claim", "citation", "statement", "measured", "predicted",
                                              "tolerance", "verdict", "scale", "seed", "runtime_s", "note")}

    def to_record(self) -> dict:
        """This result's row in a recorded ``results/<paper>.<scale>.json`` (schema: core.records)."""
        from .records import to_record

        return to_record(self)

    @classmethod
    def from_record(cls, row: dict, *, root_seed=None, fingerprint: str = "") -> "Result":
        """The result a recorded row describes (``root_seed``, ``fingerprint``: the record's header)."""
        from .records import from_record

        return from_record(cls, row, root_seed=root_seed, fingerprint=fingerprint)


def describe_stage(stage: int, verdict: str, stage1: dict | None) -> str:
    """How a verdict was reached under the two-stage rule: '' for stage 1, else what the replicate did,
    with stage 1's verdict and interval (the one wording, for results and recorded rows alike)."""
    if stage != 2:
        return ""
    first = (stage1 or {}).get("verdict", "?")
    what = "confirmed" if verdict == first else verdict
    return f"{what} on replicate (stage 1: {first} at {(stage1 or {}).get('measured', '?')})"


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


SOURCES = ("paper", "code", "third-party", "derived")


def _bind(func, fixed: dict):
    """``func`` with ``fixed`` bound: a picklable partial that keeps the module and a qualified name
    naming the row (the registry and the fingerprint read them)."""
    import functools

    if not isinstance(fixed, dict) or not all(isinstance(k, str) for k in fixed):
        raise TypeError(f"fixed must be a dict of argument names to values; got {fixed!r}")
    bound = functools.partial(func, **fixed)
    bound.__module__ = func.__module__
    bound.__name__ = func.__name__
    bound.__qualname__ = f"{func.__qualname__}[{', '.join(f'{k}={v!r}' for k, v in sorted(fixed.items()))}]"
    bound.__doc__ = func.__doc__
    return bound


def claim(paper: Paper, claim_id: str, *, statement: str, citation: str, scales: dict,
          expect_reproduced: bool = True, why_not: str = "", stream: str = "", source: str = "", ref: str = "",
          fixed: dict | None = None):
    """Register a claim function: it takes the scale's parameters and ``seed`` and returns evidence.

    Parameters
    ----------
    paper : Paper
        The paper the claim belongs to.
    claim_id : str
        The claim's id within the paper (``paper:claim`` names it on the command line).
    statement : str
        What the paper states, in words; ``{name}`` placeholders are filled from the parameters run.
    citation : str
        Where it is stated or derived, in detail.
    scales : dict
        Keyword parameters per scale, ``{"ci": {...}, "full": {...}}`` (both required).
    expect_reproduced : bool
        False declares a finding: the claim is expected *not* to reproduce, and ``why_not`` says why.
    why_not : str
        The reason a declared finding does not reproduce (required with ``expect_reproduced=False``).
    stream : str
        Claims naming the same stream get the same seed, so several claims can read one experiment
        (e.g. a level and a rate from one sweep); by default each claim draws its own stream.
    source : {"paper", "code", "third-party", "derived"}
        Where the statement comes from: the paper's text, the authors' code, a third-party
        restatement, or a derivation of ours (never cited as the paper's).
    ref : str
        Where in the source (``"Thm 3.2"``, ``"authors' repository, optim.py"``).
    fixed : dict, optional
        Arguments bound to the function for this claim, so that a table of claims is one
        module-level function declared once per row::

            for beta in (0.5, 1.0, 2.0):
                claim(PAPER, f"power_law_beta_{beta:g}", ..., fixed=dict(beta=beta))(power_law_claim)

    Returns
    -------
    callable
        A decorator; the decorated function gets a ``claim`` attribute (the registered claim).
    """
    if not expect_reproduced and not why_not:
        raise ValueError(f"{paper.id}:{claim_id}: a claim not expected to reproduce needs why_not")
    if source not in SOURCES:
        raise ValueError(f"{paper.id}:{claim_id}: source must be one of {', '.join(SOURCES)} (where the statement "
                         f"comes from); got {source!r}")

    def deco(func):
        REGISTRY.add_paper(paper)
        bound = _bind(func, fixed) if fixed else func
        c = Claim(paper, claim_id, statement, citation, bound, _check_scales(scales, claim_id),
                  expect_reproduced, why_not, stream, source, ref)
        REGISTRY._add(REGISTRY.claims, c.key, c)
        func.claim = c
        return func

    return deco


def figure(paper: Paper, name: str, *, caption: str, scales: dict):
    """Register a figure function ``f(*, seed, **params) -> (matplotlib Figure, DataFrame)``.

    Parameters
    ----------
    paper : Paper
        The paper the figure belongs to.
    name : str
        The figure's name: files ``<name>.png`` and ``<name>.csv`` (the plotted data).
    caption : str
        What the figure shows, written under it in the report.
    scales : dict
        Keyword parameters per scale, ``{"ci": {...}, "full": {...}}``.

    Returns
    -------
    callable
        A decorator; the decorated function gets a ``figure`` attribute.
    """

    def deco(func):
        REGISTRY.add_paper(paper)
        f = Figure(paper, name, caption, func, _check_scales(scales, name))
        REGISTRY._add(REGISTRY.figures, f"{paper.id}:{name}", f)
        func.figure = f
        return func

    return deco


def benchmark(paper_id: str, name: str):
    """Register a benchmark ``f(*, quick: bool) -> dict`` (printed by ``theorylab bench``).

    Parameters
    ----------
    paper_id : str
        The paper's id.
    name : str
        The benchmark's name.

    Returns
    -------
    callable
        A decorator.  The function's dict must hold ``ratio``: reference time / theorylab's time,
        both measured in the same process on the same inputs (its docstring says what the reference is).
    """

    def deco(func):
        b = Benchmark(paper_id, name, func)
        REGISTRY._add(REGISTRY.benchmarks, f"{paper_id}:{name}", b)
        func.benchmark = b
        return func

    return deco


_DISCOVERED = False


def discover(packages=("theorylab.validations", "theorylab.benchmarks")) -> Registry:
    """Import every module of the validation (and benchmark) packages, and the modules of papers
    registered by other packages (entry points, :mod:`theorylab.core.papers`); return the registry.

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
    if packages[0] == "theorylab.validations":  # and the papers other packages register (core.papers)
        from .papers import import_external

        import_external()
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


def evaluate(c: Claim, evidence: Evidence, *, scale, seed, params, runtime, reject_level=None) -> Result:
    """The :class:`Result` of one stage: ``evidence``'s verdict with *not reproduced* decided at
    ``reject_level`` (default: the family-wise level of stage 1; see :mod:`theorylab.core.evidence`)."""
    if not isinstance(evidence, Evidence):
        raise TypeError(f"{c.key} returned {type(evidence).__name__}; a claim must return an Evidence")
    verdict = evidence.verdict(reject_level)
    assert verdict in (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)
    numbers = evidence.numbers()
    if verdict == REPRODUCED and evidence.interval() is not None:
        # passes only through the widening: the reported interval alone would reject it
        numbers["outside_reported_ci"] = evidence.verdict(evidence.interval()[3]) == NOT_REPRODUCED
    note = evidence.note
    if not c.expect_reproduced:
        note = (note + " " if note else "") + f"[expected not to reproduce: {c.why_not}]"
    return Result(c.paper.id, c.id, c.statement_for(params), c.citation, scale, seed, verdict, evidence.measured,
                  evidence.predicted_text, evidence.tolerance, evidence.measured_value(), c.expect_reproduced,
                  runtime, params, note, evidence.data, numbers=numbers)


def contradicts(verdict: str, expect_reproduced: bool) -> bool:
    """Does a stage-1 verdict contradict the declaration (the trigger of stage 2)?"""
    return verdict == (NOT_REPRODUCED if expect_reproduced else REPRODUCED)


def same_numbers(a: Result, b: Result) -> bool:
    """Two stages gave the same measurement: the claim draws nothing from its seed (deterministic)."""
    keys = ("value", "ci_low", "ci_high")
    na, nb = a.numbers or {}, b.numbers or {}
    return a.measured == b.measured and all(
        (na.get(k) == nb.get(k)) or (na.get(k) != na.get(k) and nb.get(k) != nb.get(k)) for k in keys)


def two_stage(stage1: Result, run_replicate) -> Result:
    """Apply the two-stage rule (module :mod:`theorylab.core.evidence`) to a stage-1 result.

    ``run_replicate()`` runs the same claim on its replicate stream and returns that stage's
    :class:`Result` (rejecting at :data:`~theorylab.core.evidence.REPLICATE_LEVEL`); it is called
    only when ``stage1`` contradicts the declaration.  The replicate's verdict is final unless it
    measured the very same numbers (a deterministic claim), whose stage-1 verdict is final.
    """
    if stage1.verdict == ERROR or not contradicts(stage1.verdict, stage1.expect_reproduced):
        return stage1
    replicate = run_replicate()
    if replicate.verdict != ERROR and same_numbers(stage1, replicate):
        stage1.note = (stage1.note + " " if stage1.note else "") + "[deterministic: the replicate stream gives the same numbers, so this verdict is final]"
        return stage1
    replicate.stage = 2
    replicate.stage1 = {"verdict": stage1.verdict, "measured": stage1.measured, "seed": stage1.seed,
                        "runtime_s": stage1.runtime_s, "numbers": dict(stage1.numbers or {})}
    replicate.runtime_s += stage1.runtime_s
    replicate.note = (f"[{replicate.stage_text}] " + replicate.note).strip()
    return replicate


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


def _run_stage(c: Claim, scale: str, root: int, stage: int, params: dict, cache, fingerprint, standard,
               force=False, run_id=None) -> Result:
    """Run ``c`` once on the stream of ``stage``; any exception but an interrupt becomes an error row."""
    from . import interrupt
    from .context import using_run
    from .evidence import REPLICATE_LEVEL

    claim_seed = c.seed(root, scale, stage)
    interrupt.check()
    t0 = time.perf_counter()
    try:
        with using_run(claim_key=c.key, cache=cache, force=force, run_id=run_id):
            evidence = c.func(seed=claim_seed, **params)
        result = evaluate(c, evidence, scale=scale, seed=claim_seed, params=params, runtime=time.perf_counter() - t0,
                          reject_level=REPLICATE_LEVEL if stage == 2 else None)
        interrupt.check()  # a signal deferred in a kernel call interrupts this claim, even if it then finished
    except BaseException as exc:  # a crashed check is reported, never silently skipped
        if interrupt.requested() is not None:
            raise interrupt.Interrupted(interrupt.requested()) from None
        if not isinstance(exc, Exception):
            raise
        tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
        result = Result(c.paper.id, c.id, c.statement_for(params), c.citation, scale, claim_seed, ERROR, tb, "", "",
                        float("nan"), c.expect_reproduced, time.perf_counter() - t0, params, tb)
        result.exception = exc
    result.root_seed, result.fingerprint, result.standard = root, fingerprint, standard
    return result


def run_claim(c: Claim, scale: str = "ci", seed: int = 0, *, cache=None, force=False, overrides=None) -> Result:
    """Run one claim at ``scale`` under the two-stage rule; with a cache, reuse a stored result.

    Stage 1 runs on the claim's stream at root ``seed``; stage 2 (the same claim on its
    replicate stream) only when stage 1 contradicts the declaration (see
    :mod:`theorylab.core.evidence`).  Each stage runs inside
    :func:`~theorylab.core.context.using_run` (its key and the cache), so its sweeps store each
    point.  A signal during the run raises :class:`~theorylab.core.interrupt.Interrupted` (never an
    ``error`` row); any other exception becomes an ``error`` result with the exception attached.

    Parameters
    ----------
    c : Claim
        The claim (a decorated function's ``.claim``).
    scale : {"ci", "full"}
        Which parameters to run.
    seed : int
        The root seed.
    cache : Cache, optional
        A result cache; None (default) computes everything.
    force : bool
        Recompute at every level (claim, experiments, sweep points) even with a cache.
    overrides : dict, optional
        Parameters replacing the scale's; the result is then marked ``standard=False`` and is never
        written to the committed ledger.

    Returns
    -------
    Result
        The verdict, the numbers behind it and how it was reached (``result.ok``, ``result.status``).
    """
    from .context import current_run
    from .fingerprint import code_fingerprint

    ctx = current_run()  # --force holds at every level (experiments, sweep points): see core.experiment
    force = bool(force) or ctx.force
    run_id = ctx.run_id or (f"run-{time.time_ns()}-{id(c)}" if force else None)
    params, standard = apply_overrides(c, c.params(scale), overrides)
    fingerprint = code_fingerprint(c.func.__module__)
    key = None
    if cache is not None:
        key = cache.key("claim", c.paper.id, c.id, scale, seed, params, module=c.func.__module__)
        if not force:
            hit = _cached_result(cache, key, c, scale)
            if hit is not None:
                hit.standard = standard  # same parameters, same numbers; standardness is how they were asked for
                hit.cached = True  # not a field (never recorded): displays say "(cached)", not an old runtime
                return hit

    def stage(k):
        return _run_stage(c, scale, seed, k, params, cache, fingerprint, standard, force=force, run_id=run_id)

    result = two_stage(stage(1), lambda: stage(2))
    if cache is not None and result.verdict != ERROR:
        cache.put(key, result)
    return result


def results_frame(results) -> pd.DataFrame:
    """One row per :class:`Result` (the ledger's text columns)."""
    if isinstance(results, (str, bytes)) or not isinstance(results, (list, tuple)) or not all(
            isinstance(r, Result) for r in results):
        raise TypeError(f"results must be a list of Result objects; got {type(results).__name__}")
    return pd.DataFrame([r.row() for r in results])
