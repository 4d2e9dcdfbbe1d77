"""Which claims and papers a command line names: ``PAPER``, ``PAPER:CLAIM``, ``--all``, ``-k``, ``--set``."""

from __future__ import annotations

import ast
import re


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


def known_papers() -> list[str]:
    """Paper ids, theorylab's and those other packages register (entry points), without importing any."""
    from ..core.papers import known_papers as _known

    return _known()


def registry(paper_ids=None, *, benchmarks=False):
    """The claim registry with the validation modules of ``paper_ids`` imported (all with None).

    A command naming papers imports only theirs (a paper id names its validation module, and its
    benchmark module with ``benchmarks``), so it does not pay for importing all of them.
    """
    import importlib

    from ..core.checks import REGISTRY, discover

    if paper_ids is None:
        return discover()
    from ..core.papers import benchmark_module_of, import_paper

    for pid in paper_ids:
        import_paper(pid)
        bench = benchmark_module_of(pid) if benchmarks else ""
        if bench:
            try:
                importlib.import_module(bench)
            except ModuleNotFoundError as exc:
                if exc.name not in (bench, "theorylab.benchmarks"):
                    raise
    if any(pid not in REGISTRY.papers for pid in paper_ids):  # a module not named after its paper
        return discover()
    return REGISTRY


def _check_known(pids):
    known = known_papers()
    unknown = [p for p in dict.fromkeys(pids) if p not in known]
    if unknown:
        raise ValueError(f"unknown paper id{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
                         f"known: {', '.join(known)}")


def select_claims(targets, *, all_=False, keyword=None):
    """Claims named by ``PAPER`` or ``PAPER:CLAIM`` targets (or every claim with ``all_``), filtered by ``-k``.

    Usage errors (no target, an unknown paper, a bad ``-k``) are found before any validation module
    is imported.
    """
    if not targets and not all_:
        raise ValueError("name a paper (PAPER or PAPER:CLAIM; `theorylab list` shows them) or use --all")
    match = _keyword_matcher(keyword) if keyword else None
    pids = [t.partition(":")[0] for t in targets]
    _check_known(pids)
    reg = registry(None if all_ else list(dict.fromkeys(pids)))
    chosen = []
    if all_:
        chosen = [c for pid in sorted(reg.papers) for c in reg.claims_of(pid)]
    for t in targets:
        pid, _, cid = t.partition(":")
        claims = reg.claims_of(pid)
        if cid:
            hit = [c for c in claims if c.id == cid]
            if not hit:
                raise ValueError(f"{pid} has no claim {cid!r}; its claims: {', '.join(c.id for c in claims)}")
            claims = hit
        chosen += [c for c in claims if c not in chosen]
    if match is not None:
        chosen = [c for c in chosen if match(c.key)]
    if not chosen:
        raise ValueError("no claim matches the selection" + (f" with -k {keyword!r}" if keyword else ""))
    return chosen


def select_papers(targets, *, all_=False):
    """Paper ids named by ``targets`` (``PAPER`` or ``PAPER:NAME``), or all with ``all_``; imports none."""
    if not targets and not all_:
        raise ValueError("name a paper (`theorylab list` shows them) or use --all")
    if all_:
        return known_papers()
    pids = list(dict.fromkeys(t.partition(":")[0] for t in targets))
    _check_known(pids)
    return pids


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


def _claim_overrides(c, scale, overrides):
    if not overrides:
        return None
    return {k: v for k, v in overrides.items() if k in c.params(scale)}


def _check_overrides_apply(claims, scale, overrides):
    """Every ``--set`` names a parameter of a selected claim and has the type of its value at ``scale``."""
    if not overrides:
        return
    known = set().union(*(c.params(scale) for c in claims))
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(f"--set {', '.join(unknown)}: no selected claim has such a parameter at scale {scale}; "
                         f"their parameters are {', '.join(sorted(known)) or '(none)'}")
    for name, value in overrides.items():
        for c in claims:
            params = c.params(scale)
            if name in params and not _same_kind(value, params[name]):
                raise ValueError(f"--set {name}={value!r}: {name} of {c.key} is {_kind(params[name])} "
                                 f"(its {scale} value is {params[name]!r}); got {type(value).__name__} {value!r}")


def _kind(default) -> str:
    if isinstance(default, bool):
        return "True or False"
    if isinstance(default, int):
        return "an integer"
    if isinstance(default, float):
        return "a number"
    if isinstance(default, str):
        return "a string"
    if isinstance(default, (tuple, list)):
        return "a tuple or list"
    return f"a {type(default).__name__}"


def _same_kind(value, default) -> bool:
    """Whether an override ``value`` can stand for the scale's ``default`` (an int for a float is fine)."""
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    if isinstance(default, int):
        return isinstance(value, int)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    if isinstance(default, (str, tuple, list)):
        return isinstance(value, (tuple, list)) if not isinstance(default, str) else isinstance(value, str)
    return True
