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

**Confirmation stage.**  With K = 20 a perfectly calibrated interval still falls outside the
band 3.9% of the time (chi-square with 19 degrees of freedom: 3.2% below 0.7, 0.7% above 1.4),
so over 200 statistical claims about 8 calibrated ones would be marked out of band by chance.
The rule, stated before it runs and the same for every claim (like the verdict's two stages): a
statistical claim whose ratio over seeds ``1..K`` is outside the band is rerun on ``CONFIRM_SEEDS``
= 40 fresh root seeds ``K+1..K+40`` (independent draws), and the ratio over those seeds alone
decides (the first K are not pooled: they were selected for being out of band).  A calibrated
interval then ends out of band with probability 0.039 x 0.0034 = 1.3e-4 (0.03 claims in 200);
a truly miscalibrated one is caught about as often as by one stage alone (accepted with
probability 0.25 -> 0.36 at a true ratio of 1.6, 0.13 -> 0.19 at 0.6, 0.01 at 0.5).  Both
ratios are reported; flips on the confirmation seeds count as flips.

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
#: fresh root seeds that re-measure a ratio outside the band (see the module docstring)
CONFIRM_SEEDS = 40


def _results(claims, seed, scale, client):
    """The claims' Results at root ``seed`` (no cache), locally or as tasks on ``client``'s cluster."""
    if client is None:  # lazily: the progress hook ticks as each claim finishes
        return (run_claim(c, scale, seed, cache=None) for c in claims)
    from .dask_backend import run_claims

    return run_claims(claims, scale, seed, client, cache=None)


def _runs(claims, seeds, scale, progress, client=None, phase="primary"):
    rows = []
    for seed in seeds:
        for c, r in zip(claims, _results(claims, seed, scale, client)):
            first = r.stage1 if r.stage == 2 else {}
            n = first.get("numbers") or r.numbers or {}  # the primary stream's interval is the one calibrated
            rows.append({"paper": c.paper.id, "claim": c.id, "seed": seed, "verdict": r.verdict,
                         "stage": r.stage, "stage1_verdict": first.get("verdict", r.verdict),
                         "status": r.status, "expected": c.expect_reproduced, "value": n.get("value", np.nan),
                         "ci_low": n.get("ci_low", np.nan), "ci_high": n.get("ci_high", np.nan),
                         "level": n.get("level", np.nan), "runtime_s": r.runtime_s, "phase": phase,
                         "error": r.note if r.verdict == ERROR else ""})
            if progress is not None:
                progress(c, seed, r)
    return pd.DataFrame(rows)


def _ratio(g: pd.DataFrame) -> dict:
    """The interval statistics of one claim's runs (rows of one phase)."""
    value = g["value"].to_numpy(float)
    half = (g["ci_high"] - g["ci_low"]).to_numpy(float) / 2
    level = g["level"].to_numpy(float)
    finite = np.isfinite(value) & np.isfinite(half) & np.isfinite(level)
    sd = float(np.std(value[finite], ddof=1)) if finite.sum() >= 2 else np.nan
    spread = np.ptp(value[finite]) if finite.any() else 0.0
    scale_ = max(1.0, float(np.nanmax(np.abs(value[finite])))) if finite.any() else 1.0
    statistical = bool(finite.sum() >= 2 and spread > 1e-12 * scale_ and np.mean(half[finite]) > 0)
    ratio = (z_of(float(np.median(level[finite]))) * sd / float(np.mean(half[finite]))) if statistical else np.nan
    return {"statistical": statistical, "mean": float(np.mean(value[finite])) if finite.any() else np.nan,
            "sd_over_seeds": sd, "mean_half_width": float(np.mean(half[finite])) if finite.any() else np.nan,
            "ratio": ratio}


def _flips(g: pd.DataFrame) -> int:
    return sum(s not in ("reproduced", "declared finding") for s in g["status"])


def _in_band(ratio: float) -> bool:
    return bool(RATIO_BAND[0] <= ratio <= RATIO_BAND[1])


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """Per-claim summary of a table of runs (one row per claim and seed; rows of ``phase`` "confirm"
    are the confirmation stage, judged on their own: see the module docstring)."""
    out = []
    for (paper, claim), g in runs.groupby(["paper", "claim"], sort=False):
        confirm = g["phase"] == "confirm" if "phase" in g else pd.Series(False, index=g.index)
        first, again = g[~confirm], g[confirm]
        expected = bool(first["expected"].iloc[0])
        counts = first["verdict"].value_counts()
        stage2 = first["stage"] == 2 if "stage" in first else pd.Series(False, index=first.index)
        overturned = (stage2 & (first["verdict"] != first["stage1_verdict"]) if "stage1_verdict" in first
                      else stage2 & False)
        stats = _ratio(first)
        calibrated = _in_band(stats["ratio"]) if stats["statistical"] else None
        row = {"paper": paper, "claim": claim, "expected": expected, "seeds": len(first),
               "reproduced": int(counts.get(REPRODUCED, 0)), "not_reproduced": int(counts.get(NOT_REPRODUCED, 0)),
               "inconclusive": int(counts.get(INCONCLUSIVE, 0)), "error": int(counts.get(ERROR, 0)),
               "flips": _flips(first), "stage2_runs": int(stage2.sum()), "stage2_overturned": int(overturned.sum()),
               **stats, "confirm_seeds": len(again), "confirm_flips": _flips(again),
               "confirm_ratio": _ratio(again)["ratio"] if len(again) else np.nan}
        if np.isfinite(row["confirm_ratio"]):
            calibrated = _in_band(row["confirm_ratio"])
        row["calibrated"] = calibrated
        row["ok"] = row["flips"] == 0 and row["confirm_flips"] == 0 and calibrated is not False
        out.append(row)
    return pd.DataFrame(out)


def calibrate_paper(paper_id: str, seeds=range(1, 21), *, scale: str = "ci", claims=None, progress=None,
                    scheduler=None, confirm: int = CONFIRM_SEEDS):
    """Rerun ``paper_id``'s claims over root ``seeds``; return ``(summary, runs)`` DataFrames.

    A statistical claim whose ratio is outside :data:`RATIO_BAND` is rerun on ``confirm`` fresh
    seeds after ``max(seeds)`` and judged on those (the confirmation stage; ``confirm=0``: none).

    ``scheduler`` (a dask address or ``distributed.Client``) runs each seed's claims as tasks on
    that cluster (results identical to the local run: seeds depend on the root seed only).
    """
    reg = discover()
    if paper_id not in reg.papers:
        raise ValueError(f"unknown paper id {paper_id!r}; known: {', '.join(sorted(reg.papers))}")
    if isinstance(confirm, bool) or not isinstance(confirm, (int, np.integer)) or confirm < 0:
        raise ValueError(f"confirm must be a number of seeds >= 0 (0: no confirmation stage), got {confirm!r}")
    todo = [c for c in reg.claims_of(paper_id) if claims is None or c.id in claims]
    seeds = list(seeds)
    if scheduler is None:
        return _calibrate(todo, seeds, scale, progress, None, confirm)
    from .dask_backend import connect

    client = connect(scheduler)
    try:
        return _calibrate(todo, seeds, scale, progress, client, confirm)
    finally:
        if client is not scheduler:
            client.close()


def _calibrate(todo, seeds, scale, progress, client, confirm):
    """Stage 1 over ``seeds``; the confirmation stage for the claims out of band (module docstring)."""
    runs = _runs(todo, seeds, scale, progress, client=client)
    summary = summarise(runs)
    out = summary.loc[summary["calibrated"] == False, "claim"].tolist()  # noqa: E712 (None: not statistical)
    if confirm and out:
        fresh = list(range(max(seeds) + 1, max(seeds) + 1 + int(confirm)))
        again = _runs([c for c in todo if c.id in out], fresh, scale, progress, client=client, phase="confirm")
        runs = pd.concat([runs, again], ignore_index=True)
        summary = summarise(runs)
    return summary, runs


def _int(row, name) -> str:
    """A count column of a summary row; '-' for papers calibrated before the column existed."""
    value = getattr(row, name, np.nan)
    return "-" if value is None or value != value else str(int(value))


def confirmed_cell(row) -> str:
    """The confirmation stage's cell: its ratio and seed count, or '-' where it did not run."""
    k = getattr(row, "confirm_seeds", 0)
    if k is None or k != k or int(k) == 0:
        return "-"
    ratio = getattr(row, "confirm_ratio", np.nan)
    flips = int(getattr(row, "confirm_flips", 0) or 0)
    text = f"{ratio:.2f} ({int(k)} seeds)" if np.isfinite(ratio) else f"deterministic ({int(k)} seeds)"
    return text + (f", {flips} flips" if flips else "")


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
             "The ratio uses stage 1's numbers. Deterministic claims (the same estimate on every seed) have no ratio.",
             f"confirmed = the ratio over {CONFIRM_SEEDS} fresh seeds (K+1..K+{CONFIRM_SEEDS}) of a claim whose ratio over 1..K",
             "was outside the band; it decides (the confirmation stage of theorylab.core.calibrate; its flips count).", ""]
    flips = summary["flips"] + (summary["confirm_flips"].fillna(0) if "confirm_flips" in summary else 0)
    n_exp_flip = int(flips[summary["expected"]].sum()) if len(summary) else 0
    n_confirm = int((summary["confirm_seeds"].fillna(0) > 0).sum()) if "confirm_seeds" in summary else 0
    stat = summary[summary["statistical"]] if len(summary) else summary
    n_bad = int((stat["calibrated"] == False).sum()) if len(stat) else 0  # noqa: E712
    lines += [f"Summary: {len(summary)} claims, {len(stat)} statistical; {n_exp_flip} flips among expected claims; "
              f"{n_bad} statistical claims outside the band (after the confirmation stage, which ran for {n_confirm}).", "",
              "| paper | claim | expected | seeds | reproduced | not repr. | inconcl. | error | flips | stage 2 ran | "
              "overturned | ratio | confirmed | ok |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in summary.itertuples():
        ratio = f"{r.ratio:.2f}" if np.isfinite(r.ratio) else "deterministic"
        lines.append(f"| {r.paper} | `{r.claim}` | {'yes' if r.expected else 'declared'} | {r.seeds} | {r.reproduced} | "
                     f"{r.not_reproduced} | {r.inconclusive} | {r.error} | {r.flips} | {_int(r, 'stage2_runs')} | "
                     f"{_int(r, 'stage2_overturned')} | {ratio} | {confirmed_cell(r)} | "
                     f"{'yes' if r.ok else '**no**'} |")
    return "\n".join(lines) + "\n"
