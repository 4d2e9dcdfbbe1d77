"""Project-wide conventions of DEVELOPERS.md that a grep or a signature can check.

* Streams come from ``child_seed``/``spawn_seeds``: no hand-made ``seed + j`` (or ``seed * k``,
  ``100 * k + seed``) anywhere in the library, the validations or the benchmarks (notebook builders'
  code cells included; comments are ignored).
* One seed default: every public callable (a module's ``__all__``, methods of public classes
  included) that takes ``seed`` defaults to ``seed=0``, so a bare call, e.g. in a notebook cell,
  gives the same numbers every time.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import io
import pkgutil
import re
import tokenize
from pathlib import Path

import theorylab

ROOT = Path(__file__).resolve().parents[1]
SOURCE_DIRS = ("theorylab", "validations", "benchmarks")

# `seed` (the identifier itself) added, multiplied or xor-ed with something, on either side (not `-`: prose
# such as "seed-mean" and flags such as "--first-seed" would match).
SEED_ARITHMETIC = re.compile(r"\bseed\s*[+*^]\s*[\w(]|[\w)]\s*[+*^]\s*\bseed\b")


def _code_lines(path: Path):
    """(line number, text) of ``path`` with its comments blanked (strings, hence notebook cells, kept)."""
    src = path.read_text()
    lines = src.splitlines()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            lines[row - 1] = lines[row - 1][:col]
    return enumerate(lines, 1)


def seed_arithmetic_sites(dirs=SOURCE_DIRS):
    hits = []
    for d in dirs:
        for path in sorted((ROOT / d).rglob("*.py")):
            for no, line in _code_lines(path):
                if SEED_ARITHMETIC.search(line):
                    hits.append(f"{path.relative_to(ROOT)}:{no}: {line.strip()}")
    return hits


def test_no_hand_made_seed_arithmetic():
    hits = seed_arithmetic_sites()
    assert not hits, ("derive streams with theorylab.core.child_seed(seed, name, j) or spawn_seeds(seed, n), "
                      "never by arithmetic on the seed:\n" + "\n".join(hits))


def test_seed_arithmetic_pattern_catches_the_old_forms(tmp_path):
    # the grep must be able to fail: each form once found in the tree is caught, a named stream is not
    for bad in ("seed=seed + j", "f(seed + 1000 * j)", "seed=seed + 100 * k + j", "rng(seed+r)", "7 * seed",
                "seed * 31 + i"):
        assert SEED_ARITHMETIC.search(bad), bad
    for ok in ('seed=child_seed(seed, "eta", j)', "seeds = spawn_seeds(seed, n)", "first_seed + n_seeds",
               "seed_s", "x + 1  "):
        assert not SEED_ARITHMETIC.search(ok), ok
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("x = f(seed=seed + 1)  # seed + 2 in a comment is ignored\n"
                                           "# y = seed + 3\n")
    lines = [line for _, line in _code_lines(tmp_path / "pkg" / "m.py") if SEED_ARITHMETIC.search(line)]
    assert lines == ["x = f(seed=seed + 1)  "]


# --------------------------------------------------------------------------- seed defaults

# Exempt: the seeding primitives (their `seed` is the value they convert or derive from; None means
# fresh entropy there) and record dataclasses (a stored field, e.g. Result.seed).
SEED_PRIMITIVES = "theorylab.core.seeding"


#: The command line and the HTML report: tools around the library, whose functions take what the user
#: typed (a root seed is required there, never defaulted).
NOT_LIBRARY = ("theorylab.cli", "theorylab.report")


def _public_modules():
    for info in pkgutil.walk_packages(theorylab.__path__, "theorylab."):
        name = info.name
        if name.endswith("__main__") or "._build_notebook" in name or name.startswith(NOT_LIBRARY):
            continue
        yield importlib.import_module(name)


def _callables(obj):
    if inspect.isclass(obj):
        if not dataclasses.is_dataclass(obj):
            yield obj
        for attr, member in vars(obj).items():
            if not attr.startswith("_") and callable(getattr(obj, attr, None)):
                yield getattr(obj, attr)
    elif callable(obj):
        yield obj


def seed_defaults():
    """{qualified name: default of its ``seed`` parameter} over every public callable."""
    out = {}
    for mod in [theorylab, *_public_modules()]:
        for name in getattr(mod, "__all__", ()):
            for f in _callables(getattr(mod, name)):
                if getattr(f, "__module__", "") == SEED_PRIMITIVES:
                    continue
                try:
                    p = inspect.signature(f).parameters.get("seed")
                except (TypeError, ValueError):
                    continue
                if p is not None:
                    out[f"{f.__module__}.{f.__qualname__}"] = p.default
    return out


def test_public_seed_default_is_zero():
    defaults = seed_defaults()
    assert len(defaults) > 50                 # the walk found the subpackages
    bad = {k: v for k, v in defaults.items() if not (type(v) is int and v == 0)}
    assert not bad, ("a public function that draws takes seed=0 (DEVELOPERS.md, Conventions); "
                     f"these do not: {bad}")
