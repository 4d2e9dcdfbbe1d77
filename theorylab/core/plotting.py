"""One house style for every figure; each figure is saved as PNG with its data as CSV.

matplotlib is imported lazily (simulators and checks never import this module at import
time), with the non-interactive Agg backend unless a backend is already chosen.

The conventions every figure follows:

* measurements are markers (with a solid fitted line where there is a fit); **theory** is drawn
  with :func:`theory_line` / :func:`reference_slope` in one distinct style (dark grey, dashed),
  each predicted slope with its own dash pattern and the slope in its label;
* error bars say what they are: :func:`errorbar_ci` labels them with the interval's level
  ("95% CI") or "±1 s.e.", never unlabelled;
* symbols are mathtext: :func:`sym` turns ``"eta"`` into ``$\\eta$`` (see :data:`SYMBOLS`);
* ticks stay readable at every scale: :func:`save_figure` calls :func:`readable_ticks` on every
  axis (at most ~6 major labels, no minor labels on log axes).
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
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "xtick.labelsize": 8.5,
    "ytick.labelsize": 8.5,
    "legend.fontsize": 8,
    "mathtext.fontset": "dejavusans",
}

#: How theory is drawn: one colour and width for every theoretical curve or reference slope.
THEORY = {"color": "0.2", "linewidth": 1.2, "alpha": 0.85}
#: Dash patterns of successive theory lines on one axis (so slope 1 and slope 2 never look alike).
THEORY_DASHES = ["--", "-.", (0, (1, 1.5)), (0, (6, 2, 1, 2, 1, 2))]

#: Plain names of the papers' symbols and their mathtext.
SYMBOLS = {"alpha": r"$\alpha$", "beta": r"$\beta$", "gamma": r"$\gamma$", "delta": r"$\delta$",
           "eps": r"$\varepsilon$", "epsilon": r"$\varepsilon$", "eta": r"$\eta$", "theta": r"$\theta$",
           "kappa": r"$\kappa$", "lambda": r"$\lambda$", "mu": r"$\mu$", "nu": r"$\nu$", "rho": r"$\rho$",
           "sigma": r"$\sigma$", "tau": r"$\tau$", "phi": r"$\varphi$", "omega": r"$\omega$", "pi": r"$\pi$"}


def sym(name: str) -> str:
    """The mathtext of a symbol's plain name (``sym("eta") == "$\\eta$"``); other text is returned as is."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str; got {type(name).__name__}")
    return SYMBOLS.get(name, name)


def _next_dash(ax):
    k = getattr(ax, "_theorylab_theory_lines", 0)
    ax._theorylab_theory_lines = k + 1
    return THEORY_DASHES[k % len(THEORY_DASHES)]


def theory_line(ax, x, y, *, label="theory", slope=None):
    """A theoretical curve in the house theory style; ``slope`` (if given) is written in the label."""
    x = check_array("x", x, ndim=1)
    y = check_array("y", y, shape=(x.size,))
    if slope is not None:
        label = f"{label}: slope {check_real('slope', slope):g}"
    return ax.plot(x, y, linestyle=_next_dash(ax), label=label, **THEORY)[0]


def reference_slope(ax, x, x0, y0, slope, *, label="theory"):
    """The power law of exponent ``slope`` through ``(x0, y0)`` over ``x``, labelled with the slope."""
    x = check_array("x", x, ndim=1)
    x0, y0, slope = check_real("x0", x0, low=0, low_open=True), check_real("y0", y0, low=0, low_open=True), \
        check_real("slope", slope)
    if x.size == 0 or np.any(x <= 0):
        raise ValueError("x must be non-empty and positive for a power-law reference line")
    xs = np.geomspace(x.min(), x.max(), 32) if x.max() > x.min() else x
    return theory_line(ax, xs, y0 * (xs / x0) ** slope, label=label, slope=slope)


def errorbar_ci(ax, x, y, lo=None, hi=None, *, yerr=None, level=0.95, label="measured", **kw):
    """Points with error bars whose meaning is in the legend: ``label (95% CI)`` or ``label (±1 s.e.)``.

    Give the interval as ``lo``/``hi`` (absolute ends) or ``yerr`` (half-widths); ``level=None``
    marks ``yerr`` as one standard error.
    """
    x = check_array("x", x, ndim=1)
    y = check_array("y", y, shape=(x.size,))
    if lo is not None or hi is not None:
        lo = check_array("lo", lo, shape=(x.size,))
        hi = check_array("hi", hi, shape=(x.size,))
        err = np.vstack([np.maximum(y - lo, 0), np.maximum(hi - y, 0)])
    elif yerr is not None:
        err = check_array("yerr", yerr, shape=(x.size,))
    else:
        err = None
    what = "±1 s.e." if level is None else f"{100 * check_real('level', level, low=0, high=1, low_open=True, high_open=True):.3g}% CI"
    kw.setdefault("fmt", "o")
    kw.setdefault("capsize", 2)
    return ax.errorbar(x, y, yerr=err, label=f"{label} ({what})" if err is not None else label, **kw)


def _log_label(value, _pos=None) -> str:
    """A positive tick value as a plain number in [0.01, 1000) ("0.05", "2", "500"), else as
    ``$10^{k}$`` or ``$a \\times 10^{k}$``."""
    if not value > 0 or not np.isfinite(value):
        return ""
    if 1e-2 - 1e-12 <= value < 1e3:
        return f"{value:.3g}"
    k = int(np.floor(np.log10(value) + 1e-9))
    a = value / 10.0 ** k
    if abs(a - 1) < 1e-6:
        return f"$10^{{{k}}}$"
    return f"${a:.2g}\\times 10^{{{k}}}$"


def _ticks_in(lo, hi, subs) -> int:
    """How many ticks ``a x 10^k`` (a in ``subs``) lie in [lo, hi]."""
    ks = np.arange(np.floor(np.log10(lo)) - 1, np.ceil(np.log10(hi)) + 1)
    v = (np.asarray(subs)[:, None] * 10.0 ** ks[None, :]).ravel()
    return int(np.sum((v >= lo * (1 - 1e-9)) & (v <= hi * (1 + 1e-9))))


def _plain_label(value, _pos=None) -> str:
    return f"{value:.3g}" if value > 0 and np.isfinite(value) else ""


def _set_by_hand(axis) -> bool:
    from matplotlib.ticker import FixedLocator

    return isinstance(axis.get_major_locator(), FixedLocator)


def readable_ticks(ax, *, max_labels=6):
    """At most ``max_labels`` major tick labels per axis and no minor labels on log axes.

    Left alone: colorbars, and axes whose ticks a figure set by hand (categorical labels).  A log
    axis spanning under ~1.5 decades gets 1, 2, 5 x 10^k labels; one so short that fewer than two
    of those fit gets every integer multiple of its power of ten, in plain numbers.
    """
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

    if ax.get_label() == "<colorbar>" or getattr(ax, "_colorbar", None) is not None:
        return
    for axis, scale, lim in ((ax.xaxis, ax.get_xscale(), ax.get_xlim()), (ax.yaxis, ax.get_yscale(), ax.get_ylim())):
        if _set_by_hand(axis):
            continue
        if scale == "log":
            lo, hi = sorted(lim)
            ok = lo > 0 and np.isfinite(hi / lo)
            decades = np.log10(hi / lo) if ok else 2.0
            # under ~1.5 decades a power of ten may not even be on the axis: label 1, 2, 5 x 10^k
            subs, formatter = ((1.0, 2.0, 5.0) if decades < 1.5 else (1.0,)), _log_label
            if ok and _ticks_in(lo, hi, subs) < 2:
                subs, formatter = tuple(np.arange(1.0, 10.0)), _plain_label
            axis.set_major_locator(LogLocator(base=10, subs=subs, numticks=max_labels + 1))
            axis.set_major_formatter(FuncFormatter(formatter))
            axis.set_minor_formatter(NullFormatter())
        elif scale == "linear":
            axis.set_major_locator(MaxNLocator(nbins=max_labels, min_n_ticks=3))


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


def loglog_rate(ax, x, y, *, fit=None, predicted=None, label="measured", yerr=None, color=None, marker="o",
                level=0.95):
    """Points on log-log axes, the fitted power law and a theory line of the predicted slope.

    ``yerr`` are half-widths of intervals at ``level`` (``None``: one standard error), said in the legend.
    """
    x = check_array("x", x, ndim=1)
    y = check_array("y", y, shape=(x.size,))
    if x.size == 0:
        raise ValueError("x and y must hold at least one point; got empty arrays")
    if predicted is not None:
        predicted = check_real("predicted", predicted)
        if x[0] <= 0 or y[0] <= 0 or x.min() <= 0:
            raise ValueError(f"x and y must be positive for the reference line of slope {predicted:g}; "
                             f"got x[0]={x[0]:.3g}, y[0]={y[0]:.3g}, min x {x.min():.3g}")
    line = errorbar_ci(ax, x, y, yerr=yerr, level=level, label=label, fmt=marker, color=color)
    color = line[0].get_color()
    if fit is not None:
        lo, hi = fit.window
        lo, hi = max(lo, float(x.min())), min(hi, float(x.max()))
        xs = np.geomspace(lo, hi) if hi > lo else x
        ax.plot(xs, fit.predict(xs), "-", color=color, alpha=0.7,
                label=f"fit: slope {fit} ({100 * fit.level:.3g}% CI)")
    if predicted is not None:
        reference_slope(ax, x, x[0], y[0], predicted)
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
    for ax in fig.get_axes():
        readable_ticks(ax)
    fig.tight_layout()
    fig.savefig(png)
    data.to_csv(csv, index=False)
    pyplot().close(fig)
    return png, csv
