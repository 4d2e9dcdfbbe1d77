"""One house style for every figure; each figure is saved as PNG with its data as CSV.

matplotlib is imported lazily (simulators and checks never import this module at import
time), with the non-interactive Agg backend unless a backend is already chosen.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from .validate import check_array, check_real, check_size

STYLE = {
    "figure.dpi": 110,
    "savefig.dpi": 150,
    "font.size": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "lines.linewidth": 1.6,
    "lines.markersize": 5,
}


def pyplot():
    """matplotlib.pyplot with the house style applied (Agg backend when headless)."""
    import matplotlib

    if "MPLBACKEND" not in os.environ and not os.environ.get("DISPLAY"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(STYLE)
    return plt


def subplots(nrows=1, ncols=1, *, width=4.2, height=3.3, **kw):
    """``plt.subplots`` sized ``width`` x ``height`` inches per panel, house style."""
    nrows = check_size("nrows", nrows, budget=50)
    ncols = check_size("ncols", ncols, budget=50)
    width = check_real("width", width, low=0, high=100, low_open=True)
    height = check_real("height", height, low=0, high=100, low_open=True)
    plt = pyplot()
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, **kw)
    return fig, axes


def loglog_rate(ax, x, y, *, fit=None, predicted=None, label="measured", yerr=None, color=None, marker="o"):
    """Points on log-log axes, the fitted power law and a reference line of the predicted slope."""
    x = check_array("x", x, ndim=1)
    y = check_array("y", y, shape=(x.size,))
    if x.size == 0:
        raise ValueError("x and y must hold at least one point; got empty arrays")
    if predicted is not None:
        predicted = check_real("predicted", predicted)
        if x[0] <= 0 or y[0] <= 0 or x.min() <= 0:
            raise ValueError(f"x and y must be positive for the reference line of slope {predicted:g}; "
                             f"got x[0]={x[0]:.3g}, y[0]={y[0]:.3g}, min x {x.min():.3g}")
    line = ax.errorbar(x, y, yerr=yerr, fmt=marker, color=color, label=label, capsize=2)
    color = line[0].get_color()
    if fit is not None:
        xs = np.geomspace(*fit.window) if np.all(np.isfinite(fit.window)) else x
        ax.plot(xs, fit.predict(xs), "-", color=color, alpha=0.7, label=f"fit: slope {fit}")
    if predicted is not None:
        x0, y0 = x[0], y[0]
        xs = np.geomspace(x.min(), x.max(), 20)
        ax.plot(xs, y0 * (xs / x0) ** predicted, ":", color="k", alpha=0.7, label=f"slope {predicted:g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    return ax


def save_figure(fig, data: pd.DataFrame, paper_id: str, name: str, outdir=None) -> tuple[Path, Path]:
    """Write ``<outdir>/<paper_id>/<name>.png`` and ``<name>.csv``; return both paths."""
    from .paths import figures_dir

    for what, value in (("paper_id", paper_id), ("name", name)):
        if not isinstance(value, str) or not value or "/" in value or "\\" in value or value.startswith("."):
            raise ValueError(f"{what} must be a non-empty file name without a path separator; got {value!r}")
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"figure {paper_id}:{name} must return its data as a DataFrame; got {type(data).__name__}")
    root = Path(outdir) if outdir is not None else figures_dir()
    folder = root / paper_id
    folder.mkdir(parents=True, exist_ok=True)
    png, csv = folder / f"{name}.png", folder / f"{name}.csv"
    fig.tight_layout()
    fig.savefig(png)
    data.to_csv(csv, index=False)
    pyplot().close(fig)
    return png, csv
