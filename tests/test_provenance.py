"""Structured provenance (issue 29): every claim says where its statement comes from, and nothing in
the repository points to files outside it."""

from pathlib import Path

import pytest

from theorylab.core.checks import SOURCES, Paper, claim, discover

ROOT = Path(__file__).resolve().parents[1]


def test_every_claim_has_a_structured_source():
    reg = discover()
    bad = {k: c.source for k, c in reg.claims.items() if c.source not in SOURCES}
    assert not bad, f"claims without a source in {SOURCES}: {bad}"


def test_a_claim_without_a_source_is_refused_at_declaration():
    paper = Paper(id="provenance_probe", title="t", authors="a")
    with pytest.raises(ValueError, match="source must be one of"):
        claim(paper, "c", statement="s", citation="c", scales={"ci": {}, "full": {}})
    with pytest.raises(ValueError, match="source must be one of"):
        claim(paper, "c", statement="s", citation="c", scales={"ci": {}, "full": {}}, source="spec")


def test_no_source_file_points_outside_the_repository():
    needle = "shared" + "/specs"
    hits = [str(p.relative_to(ROOT)) for folder in ("theorylab", "validations", "benchmarks", "tests", "notebooks")
            for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md", ".ipynb") and needle in p.read_text()]
    hits += [n for n in ("README.md", "DEVELOPERS.md") if needle in (ROOT / n).read_text()]
    assert not hits, hits
