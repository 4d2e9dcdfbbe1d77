"""Calibration: do a paper's verdicts and intervals survive a change of root seed?

``theorylab calibrate PAPER --seeds K`` reruns every claim of the paper at ``ci`` scale with
root seeds ``1..K`` (no cache) and reports, per claim:

* the verdict counts and the number of **flips**: runs whose outcome differs from the
  declaration (an expected claim not reproduced, inconclusive or erroring; a declared finding
  that reproduces), after the two-stage rule (:mod:`theorylab.core.evidence`);
* how often **stage 2** ran (stage 1 contradicted the declaration) and how often the replicate
  **overturned** stage 1;
* for a **statistical** claim (one with a reported interval whose point estimate varies with
  the seed) the **calibration ratio**

      ratio = z_level * sd_over_seeds(point estimate) / mean(reported half-width),

  which is about 1 when the reported interval has its nominal coverage (the half-width of a
  calibrated 95% interval is 1.96 standard deviations of the estimate).  A ratio above 1
  means the intervals are too narrow (they under-cover); below 1, too wide.  With K = 20 the
  ratio itself is uncertain by about 1/sqrt(2(K-1)) = 16%, so the accepted band is [0.7, 1.4].

Claims whose point estimate is the same on every seed are deterministic (exact identities,
ODE fits) and get no ratio.  The ratio is computed from stage 1's numbers (the primary stream),
the interval the rule widens.  A paper is done only when its expected claims have 0 flips over
20 seeds and every statistical claim's ratio is in the band (see DEVELOPERS.md).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .checks import ERROR, discover, run_claim, status_of
from .evidence import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, z_of

RATIO_BAND = (0.7, 1.4)


def _results(claims, seed, scale, client):
    """The claims' Results at root ``seed`` (no cache), locally or as tasks on ``client``'s cluster."""
    if client is None:  # lazily: the progress hook ticks as each claim finishes
        return (run_claim(c, scale, seed, cache=None) for c in claims)
    from .dask_backend import run_claims

    return run_claims(claims, scale, seed, client, cache=None)


def _runs(claims, seeds, scale, progress, client=None):
    rows = []
    for seed in seeds:
        for c, r in zip(claims, _results(claims, seed, scale, client)):
            first = r.stage1 if r.stage == 2 else {}
            n = first.get("numbers") or r.numbers or {}  # the primary stream's interval is the one calibrated
            rows.append({"paper": c.paper.id, "claim": c.id, "seed": seed, "verdict": r.verdict,
                         "stage": r.stage, "stage1_verdict": first.get("verdict", r.verdict),
                         "status": r.status, "expected": c.expect_reproduced, "value": n.get("value", np.nan),
                         "ci_low": n.get("ci_low", np.nan), "ci_high": n.get("ci_high", np.nan),
                         "level": n.get("level", np.nan), "runtime_s": r.runtime_s,
                         "error": r.note if r.verdict == ERROR else ""})
            if progress is not None:
                progress(c, seed, r)
    return pd.DataFrame(rows)


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """Per-claim summary of a table of runs (one row per claim and seed)."""
    out = []
    for (paper, claim), g in runs.groupby(["paper", "claim"], sort=False):
        expected = bool(g["expected"].iloc[0])
        counts = g["verdict"].value_counts()
        flips = int((g["status"].map(lambda s: s not in ("reproduced", "declared finding"))).sum())
        stage2 = g["stage"] == 2 if "stage" in g else pd.Series(False, index=g.index)
        overturned = stage2 & (g["verdict"] != g["stage1_verdict"]) if "stage1_verdict" in g else stage2 & False
        value = g["value"].to_numpy(float)
        half = (g["ci_high"] - g["ci_low"]).to_numpy(float) / 2
        level = g["level"].to_numpy(float)
        finite = np.isfinite(value) & np.isfinite(half) & np.isfinite(level)
        sd = float(np.std(value[finite], ddof=1)) if finite.sum() >= 2 else np.nan
        spread = np.ptp(value[finite]) if finite.any() else 0.0
        scale_ = max(1.0, float(np.nanmax(np.abs(value[finite])))) if finite.any() else 1.0
        statistical = bool(finite.sum() >= 2 and spread > 1e-12 * scale_ and np.mean(half[finite]) > 0)
        ratio = (z_of(float(np.median(level[finite]))) * sd / float(np.mean(half[finite]))) if statistical else np.nan
        calibrated = (RATIO_BAND[0] <= ratio <= RATIO_BAND[1]) if statistical else None
        out.append({"paper": paper, "claim": claim, "expected": expected, "seeds": len(g),
                    "reproduced": int(counts.get(REPRODUCED, 0)), "not_reproduced": int(counts.get(NOT_REPRODUCED, 0)),
                    "inconclusive": int(counts.get(INCONCLUSIVE, 0)), "error": int(counts.get(ERROR, 0)),
                    "flips": flips, "stage2_runs": int(stage2.sum()), "stage2_overturned": int(overturned.sum()),
                    "statistical": statistical,
                    "mean": float(np.mean(value[finite])) if finite.any() else np.nan, "sd_over_seeds": sd,
                    "mean_half_width": float(np.mean(half[finite])) if finite.any() else np.nan,
                    "ratio": ratio, "calibrated": calibrated,
                    "ok": flips == 0 and calibrated is not False})
    return pd.DataFrame(out)


def calibrate_paper(paper_id: str, seeds=range(1, 21), *, scale: str = "ci", claims=None, progress=None,
                    scheduler=None):
    """Rerun ``paper_id``'s claims over root ``seeds``; return ``(summary, runs)`` DataFrames.

    ``scheduler`` (a dask address or ``distributed.Client``) runs each seed's claims as tasks on
    that cluster (results identical to the local run: seeds depend on the root seed only).
    """
    reg = discover()
    if paper_id not in reg.papers:
        raise ValueError(f"unknown paper id {paper_id!r}; known: {', '.join(sorted(reg.papers))}")
    todo = [c for c in reg.claims_of(paper_id) if claims is None or c.id in claims]
    if scheduler is None:
        runs = _runs(todo, list(seeds), scale, progress)
        return summarise(runs), runs
    from .dask_backend import connect

    client = connect(scheduler)
    try:
        runs = _runs(todo, list(seeds), scale, progress, client=client)
    finally:
        if client is not scheduler:
            client.close()
    return summarise(runs), runs


def _int(row, name) -> str:
    """A count column of a summary row; '-' for papers calibrated before the column existed."""
    value = getattr(row, name, np.nan)
    return "-" if value is None or value != value else str(int(value))


def render_markdown(summary: pd.DataFrame, *, seeds, scale: str) -> str:
    """The committed calibration table (results/calibration/README.md).

    ``summary`` may join papers calibrated at different times with different numbers of seeds
    (its ``seeds`` column); the title states the range, each row its own count.
    """
    counts = sorted({int(k) for k in summary["seeds"]}) if len(summary) and "seeds" in summary else [len(seeds)]
    over = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    lines = [f"# Calibration over {over} root seeds (1..K) at scale `{scale}`", "",
             "Generated by `theorylab calibrate PAPER... --seeds K --publish`; do not edit by hand.",
             "ratio = z x sd over seeds of the point estimate / mean reported half-width (about 1 when the",
             f"interval is calibrated; accepted band {RATIO_BAND}). flips = runs whose outcome contradicts",
             "the declaration after the two-stage rule; stage 2 ran = runs whose stage 1 contradicted the",
             "declaration (the replicate stream was run), overturned = runs whose replicate changed the verdict.",
             "The ratio uses stage 1's numbers. Deterministic claims (the same estimate on every seed) have no ratio.", ""]
    n_exp_flip = int(summary.loc[summary["expected"], "flips"].sum()) if len(summary) else 0
    stat = summary[summary["statistical"]] if len(summary) else summary
    n_bad = int((stat["calibrated"] == False).sum()) if len(stat) else 0  # noqa: E712
    lines += [f"Summary: {len(summary)} claims, {len(stat)} statistical; {n_exp_flip} flips among expected claims; "
              f"{n_bad} statistical claims outside the band.", "",
              "| paper | claim | expected | seeds | reproduced | not repr. | inconcl. | error | flips | stage 2 ran | "
              "overturned | ratio | ok |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in summary.itertuples():
        ratio = f"{r.ratio:.2f}" if np.isfinite(r.ratio) else "deterministic"
        lines.append(f"| {r.paper} | `{r.claim}` | {'yes' if r.expected else 'declared'} | {r.seeds} | {r.reproduced} | "
                     f"{r.not_reproduced} | {r.inconclusive} | {r.error} | {r.flips} | {_int(r, 'stage2_runs')} | "
                     f"{_int(r, 'stage2_overturned')} | {ratio} | "
                     f"{'yes' if r.ok else '**no**'} |")
    return "\n".join(lines) + "\n"
