"""Plain-text output of the command line: stderr lines and tables."""

from __future__ import annotations

import sys


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
