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


def select_claims(targets, *, all_=False, keyword=None):
    """Claims named by ``PAPER`` or ``PAPER:CLAIM`` targets (or every claim with ``all_``), filtered by ``-k``."""
    from ..core.checks import discover

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
    from ..core.checks import paper_ids, resolve_papers

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
