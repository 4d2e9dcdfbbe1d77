"""The CI-scale run of every registered validation: claims, figures, benchmarks, ledger.

Nothing is listed by hand: the registry is filled by importing validations/ and benchmarks/.
Both ways: a claim expected to reproduce must come out *reproduced*, and one declared not to
reproduce (``expect_reproduced=False``) must still come out *not reproduced* — a declared finding
that starts reproducing means its declaration has to be revisited.
"""

import math

import pandas as pd
import pytest

from theorylab.core import discover, run_claim
from theorylab.core.checks import ERROR, child_seed
from theorylab.core.paths import ledger_path
from theorylab.core.plotting import save_figure

REG = discover()
CLAIMS = sorted(REG.claims.values(), key=lambda c: c.key)
FIGURES = sorted(REG.figures.values(), key=lambda f: (f.paper.id, f.name))
BENCHMARKS = sorted(REG.benchmarks.values(), key=lambda b: (b.paper_id, b.name))


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.key)
def test_claim_at_ci_scale(claim, cache):
    r = run_claim(claim, "ci", seed=0, cache=cache)
    if r.verdict == ERROR:
        raise r.exception
    assert r.measured and r.predicted, f"{claim.key}: empty measured/predicted"
    assert r.ok, (f"{claim.key}: {r.verdict} ({r.status}): measured {r.measured}, predicted {r.predicted}, "
                  f"tolerance {r.tolerance}; {r.note}")


@pytest.mark.parametrize("fig", FIGURES, ids=lambda f: f"{f.paper.id}:{f.name}")
def test_figure_at_ci_scale(fig, tmp_path):
    figure, data = fig.func(seed=child_seed(0, fig.paper.id, fig.name), **fig.scales["ci"])
    png, csv = save_figure(figure, data, fig.paper.id, fig.name, outdir=tmp_path)
    assert png.stat().st_size > 5000
    table = pd.read_csv(csv)
    assert len(table) > 0 and table.select_dtypes("number").notna().all().all()


@pytest.mark.parametrize("bench", BENCHMARKS, ids=lambda b: f"{b.paper_id}:{b.name}")
def test_benchmark_quick(bench):
    out = bench.func(quick=True)
    assert "ratio" in out and math.isfinite(out["ratio"]) and out["ratio"] > 0


def test_family_wise_design_size_covers_every_claim():
    from theorylab.core.evidence import DESIGN_CLAIMS

    assert len(CLAIMS) <= DESIGN_CLAIMS, (f"{len(CLAIMS)} claims exceed the family-wise design size {DESIGN_CLAIMS}: "
                                          "raise DESIGN_CLAIMS in theorylab/core/evidence.py and rerun the records")


# Papers whose simulators have no hot loop to benchmark (issue 35: "no benchmark needed unless a kernel is hot"):
# short numpy computations, no jitted kernel (checked below); `theorylab bench PAPER` says so.
NO_HOT_LOOP = {
    "bp_localloss": "deep linear networks of width <= 6: each update is a few 6x6 products (theorylab.toys.local_loss)",
    "d2po": "exact gradients of a tabular softmax model; a numba kernel was slower than numpy's dense products",
    "dre_lp": "closed forms, 1-D quadrature and a Newton fit of a log-linear model (theorylab.highdim.density_ratio)",
}


def test_every_paper_has_claims_figures_and_a_benchmark():
    for pid in REG.papers:
        assert REG.claims_of(pid), f"{pid} has no claims"
        assert REG.figures_of(pid), f"{pid} has no figures"
        if pid not in NO_HOT_LOOP:
            assert REG.benchmarks_of(pid), f"{pid} has no benchmark"


@pytest.mark.parametrize("pid", sorted(NO_HOT_LOOP))
def test_a_paper_without_a_benchmark_has_no_jitted_kernel(pid):
    """A paper may go without a benchmark only while nothing it runs is jitted (its validation module and
    the theorylab modules it imports define no numba kernel)."""
    import importlib
    import inspect
    import sys

    module = importlib.import_module(f"theorylab.validations.{pid}")
    used = {m for name, m in list(sys.modules.items()) if name.startswith("theorylab.") and m is not None
            and not name.startswith("theorylab.core")  # the framework's own kernels (rng, ...) are not the paper's
            and any(getattr(module, a, None) is m or getattr(getattr(module, a, None), "__module__", None) == name
                    for a in dir(module))}
    for m in used | {module}:
        try:
            text = inspect.getsource(m)
        except (OSError, TypeError):
            continue
        assert not any(w in text for w in ("@njit", "numba", "_kernels")), f"{pid} uses jitted code in {m.__name__}: benchmark it"
    assert not REG.benchmarks_of(pid), f"{pid} has a benchmark now: remove it from NO_HOT_LOOP"


def test_ledger_lists_every_registered_claim():
    text = ledger_path().read_text()
    sections = {}
    for block in text.split("\n## ")[1:]:
        pid = block.split("`")[1]
        sections[pid] = block
    missing = [c.key for c in CLAIMS if f"| `{c.id}` |" not in sections.get(c.paper.id, "")]
    assert not missing, f"paper_checks.md lacks {missing}: run `theorylab report`"
