"""Rate fitting and confidence intervals.

:func:`fit_loglog` fits ``log y = a + p log x`` over a stated window and gives a confidence
interval for the slope ``p`` in one of three ways:

* ``samples`` of shape (repetitions, len(x)): ``y`` is the mean over repetitions and the CI
  is a bootstrap over repetitions (rows are resampled whole, so the correlation between the
  points of one coupled repetition is kept);
* ``y`` with standard errors ``y_se``: a parametric bootstrap, ``y + y_se * N(0, 1)``;
* ``y`` alone: the ordinary least-squares t-interval from the residuals.

The fit also flags the Monte Carlo noise floor: if, at the smallest mean in the window, the
standard error is more than ``noise_floor_ratio`` of the value, the slope is not to be
trusted and a :class:`~theorylab.core.evidence.Slope` check reports *inconclusive*.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .seeding import as_generator
from .validate import check_array, check_budget, check_int, check_real, check_size

#: Bootstrap replicates are drawn in a Python loop: at most this many (10**6, about a minute).
MAX_BOOT = 10**6


def _level(level) -> float:
    return check_real("level", level, low=0, high=1, low_open=True, high_open=True)


def _n_boot(n_boot) -> int:
    return check_size("n_boot", n_boot, low=2, budget=MAX_BOOT)


def _stats():
    """scipy.stats, imported on first use (it costs ~1 s at import, which every process would pay)."""
    from scipy import stats

    return stats


@dataclass(frozen=True)
class RateFit:
    """A log-log slope with its confidence interval (what :func:`fit_loglog` returns).

    Parameters
    ----------
    slope, intercept : float
        The least-squares line ``log y = intercept + slope log x`` over the window.
    ci : (float, float)
        The slope's confidence interval at ``level``.
    stderr : float
        The slope's standard error.
    level : float
        The confidence level of ``ci``.
    method : str
        How the interval was obtained (bootstrap over repetitions, parametric bootstrap, OLS t).
    window : (float, float)
        The fitted range of x.
    n_points : int
        Points in the window.
    noise_floor : bool
        True when the smallest value in the window is within noise (its standard error exceeds
        ``noise_floor_ratio`` of it): a :class:`~theorylab.core.evidence.Slope` is then inconclusive.
    x, y, y_se : ndarray
        The data fitted (``y_se`` None without standard errors).
    """

    slope: float
    intercept: float
    ci: tuple[float, float]
    stderr: float
    level: float
    method: str
    window: tuple[float, float]
    n_points: int
    noise_floor: bool
    x: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    y_se: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):  # a fit built by hand (or by replace) is checked like one fit_loglog returns
        def put(name, value):
            object.__setattr__(self, name, value)

        for name in ("slope", "intercept"):
            put(name, check_real(f"RateFit.{name}", getattr(self, name)))
        put("stderr", check_real("RateFit.stderr", self.stderr, low=0))
        put("level", check_real("RateFit.level", self.level, low=0, high=1, low_open=True, high_open=True))
        if not isinstance(self.method, str):
            raise TypeError(f"RateFit.method must be a str; got {self.method!r:.60} of type {type(self.method).__name__}")
        put("ci", _pair_of("RateFit.ci", self.ci, finite=True))
        put("window", _pair_of("RateFit.window", self.window, finite=False))  # (an open end is -inf or inf)
        put("n_points", check_int("RateFit.n_points", self.n_points, low=2))
        if not isinstance(self.noise_floor, (bool, np.bool_)):
            raise TypeError(f"RateFit.noise_floor must be True or False; got {self.noise_floor!r:.60}")
        put("noise_floor", bool(self.noise_floor))
        put("x", check_array("RateFit.x", self.x, ndim=1))
        if self.x.size < self.n_points:
            raise ValueError(f"RateFit.x must hold at least n_points = {self.n_points} abscissae; got {self.x.size}")
        put("y", check_array("RateFit.y", self.y, shape=(self.x.size,)))
        if self.y_se is not None:
            put("y_se", check_array("RateFit.y_se", self.y_se, shape=(self.x.size,)))

    def predict(self, x):
        """The fitted power law ``exp(a) * x**p`` at ``x`` (finite positive reals, a number or an array)."""
        x = check_array("x", x).reshape(np.shape(x))  # (a number stays a number)
        if np.any(x <= 0):
            raise ValueError(f"x must be positive (a power law's abscissae); got minimum {x.min():.3g}")
        return np.exp(self.intercept) * x ** self.slope

    def power(self, k: float) -> "RateFit":
        """The fit of ``y**k`` (``k > 0``): slope, intercept, interval and standard error times ``k`` (e.g. the
        rate of ``(E|X|^q)^(1/q)`` from the fit of ``E|X|^q``: ``k = 1/q``); ``y_se`` by the delta method."""
        k = check_real("k", k, low=0, low_open=True)
        y_se = None if self.y_se is None else k * self.y ** (k - 1) * self.y_se
        return replace(self, slope=self.slope * k, intercept=self.intercept * k, ci=(self.ci[0] * k, self.ci[1] * k),
                       stderr=self.stderr * k, y=self.y ** k, y_se=y_se)

    def __str__(self) -> str:
        lo, hi = self.ci
        return f"{self.slope:.3f} [{lo:.3f}, {hi:.3f}]"


def _pair_of(name, value, *, finite):
    """``(lo, hi)`` floats with lo <= hi (NaN never; +-inf only if not ``finite``)."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__") or len(value) != 2:
        raise TypeError(f"{name} must be a pair (lo, hi); got {value!r:.60}")
    out = []
    for i, v in enumerate(value):
        if finite or not (isinstance(v, (float, np.floating)) and np.isinf(v)):
            v = check_real(f"{name}[{i}]", v)
        out.append(float(v))
    lo, hi = out
    if not lo <= hi:
        raise ValueError(f"{name} must be a pair (lo, hi) with lo <= hi; got {value!r:.60}")
    return float(lo), float(hi)


def _ols(lx, ly):
    A = np.vstack([np.ones_like(lx), lx]).T
    coef, *_ = np.linalg.lstsq(A, ly, rcond=None)
    return coef  # intercept, slope


def _window(window):
    """``window`` as ``(lo, hi)`` floats (``None`` ends open), or None."""
    if window is None:
        return None
    if isinstance(window, (str, bytes, dict)) or not hasattr(window, "__len__") or len(window) != 2:
        raise TypeError(f"window must be a pair (x_min, x_max) with None for an open end; got {window!r}"[:200])
    lo, hi = (None if w is None else check_real(f"window[{i}]", w, low=0, low_open=True) for i, w in enumerate(window))
    lo = -np.inf if lo is None else lo
    hi = np.inf if hi is None else hi
    if lo > hi:
        raise ValueError(f"window must have x_min <= x_max; got {window!r}")
    return lo, hi


def _window_mask(x, window):
    if window is None:
        return np.ones(x.shape, dtype=bool), (float(x.min()), float(x.max()))
    lo, hi = window
    return (x >= lo) & (x <= hi), (float(lo), float(hi))


def fit_loglog(x, y=None, *, samples=None, y_se=None, window=None, level=0.95, n_boot=2000,
               seed=0, noise_floor_ratio=1 / 3) -> RateFit:
    """Fit a power law ``y ~ C x^p`` on log-log axes over ``window = (x_min, x_max)``.

    Parameters
    ----------
    x : array (k,)
        Positive abscissae (step sizes, sample sizes, ...).
    y : array (k,), optional
        Positive ordinates; the mean of ``samples`` over axis 0 if ``samples`` is given.
    samples : array (reps, k), optional
        Per-repetition values; gives a bootstrap CI over repetitions.
    y_se : array (k,), optional
        Standard errors of ``y``; gives a parametric-bootstrap CI.
    window : (float, float), optional
        Inclusive range of ``x`` fitted (``None`` ends are open). At least 2 points, 3 for OLS.
    level : float
        Confidence level of ``ci``.
    n_boot : int
        Bootstrap resamples (default 2000).
    seed : int
        Seed of the bootstrap.
    noise_floor_ratio : float
        The noise-floor rule: with standard errors, the fit is flagged ``noise_floor`` when the
        smallest value in the window has a standard error above this fraction of it (default 1/3).

    Returns
    -------
    RateFit
        The slope, its interval (OLS t-interval without ``samples``/``y_se``) and the data.
    """
    x = check_array("x", x, ndim=1)
    if x.size < 2:
        raise ValueError(f"x must hold at least 2 points for a log-log fit; got {x.size}")
    level = _level(level)
    n_boot = _n_boot(n_boot)
    noise_floor_ratio = check_real("noise_floor_ratio", noise_floor_ratio, low=0)
    window = _window(window)
    rng = as_generator(seed)
    if samples is not None:
        samples = check_array("samples", samples, ndim=2)
        if samples.shape[1] != x.size:
            raise ValueError(f"samples must have shape (reps, {x.size}) to match x; got {samples.shape}")
        if samples.shape[0] < 2:
            raise ValueError(f"samples needs at least 2 repetitions; got {samples.shape[0]}")
        check_budget("the bootstrap over samples", n_boot * samples.size, n_boot=n_boot, samples=samples.shape)
        with np.errstate(over="ignore", invalid="ignore"):
            y = samples.mean(axis=0)
            y_se = samples.std(axis=0, ddof=1) / np.sqrt(samples.shape[0])
        if not (np.all(np.isfinite(y)) and np.all(np.isfinite(y_se))):
            raise ValueError("samples are too large for a float mean and standard error (overflow to inf)")
    elif y is None:
        raise ValueError("fit_loglog needs y or samples; got y=None and samples=None")
    y = check_array("y", y, shape=(x.size,))
    if y_se is not None:
        y_se = check_array("y_se", y_se, shape=(x.size,))
        if np.any(y_se < 0):
            raise ValueError(f"y_se must be non-negative standard errors; got minimum {y_se.min():.3g}")
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("x and y must be positive for a log-log fit; got "
                         f"min x {x.min():.3g}, min y {y.min():.3g}")
    mask, win = _window_mask(x, window)
    k = int(mask.sum())
    method = "bootstrap over repetitions" if samples is not None else (
        "parametric bootstrap" if y_se is not None else "OLS t-interval")
    if k < (2 if y_se is not None else 3):
        raise ValueError(f"window {win} keeps {k} of the points of x; a {method} fit needs at least "
                         f"{2 if y_se is not None else 3}")
    if np.unique(x[mask]).size < 2:
        raise ValueError(f"x must hold at least 2 distinct values in the window {win}; got only {x[mask][0]:.6g}")
    lx, ly = np.log(x[mask]), np.log(y[mask])
    intercept, slope = _ols(lx, ly)
    alpha = 1 - level
    if samples is not None or y_se is not None:
        boot = np.empty(n_boot)
        for b in range(n_boot):
            if samples is not None:
                rows = rng.integers(0, samples.shape[0], samples.shape[0])
                yb = samples[rows][:, mask].mean(axis=0)
            else:
                yb = y[mask] + y_se[mask] * rng.standard_normal(k)
            yb = np.where(yb > 0, yb, np.nan)
            boot[b] = _ols(lx, np.log(yb))[1] if np.all(np.isfinite(yb)) else np.nan
        boot = boot[np.isfinite(boot)]
        if boot.size < max(2, n_boot // 2):
            raise ValueError(f"{'samples' if samples is not None else 'y_se'}: only {boot.size} of {n_boot} "
                             "bootstrap resamples have positive values at every point; the data are too noisy "
                             "for a log-log fit (more repetitions, or drop the points near zero)")
        ci = (float(np.quantile(boot, alpha / 2)), float(np.quantile(boot, 1 - alpha / 2)))
        stderr = float(boot.std(ddof=1))
    else:
        resid = ly - (intercept + slope * lx)
        dof = k - 2
        s2 = float(resid @ resid) / dof
        stderr = float(np.sqrt(s2 / np.sum((lx - lx.mean()) ** 2)))
        t = _stats().t.ppf(1 - alpha / 2, dof)
        ci = (float(slope - t * stderr), float(slope + t * stderr))
    floor = False
    if y_se is not None:
        i_min = np.argmin(np.where(mask, y, np.inf))
        floor = bool(y_se[i_min] > noise_floor_ratio * y[i_min])
    return RateFit(slope=float(slope), intercept=float(intercept), ci=ci, stderr=stderr, level=level,
                   method=method, window=win, n_points=k, noise_floor=floor, x=x, y=y, y_se=y_se)


def mean_ci(samples, level=0.95):
    """The mean of ``samples`` with its Student-t confidence interval.

    Parameters
    ----------
    samples : array (n,)
        Independent draws (n >= 2).
    level : float
        Confidence level (default 0.95).

    Returns
    -------
    (float, float, float, float)
        ``(mean, lo, hi, se)``.
    """
    s = check_array("samples", samples, ndim=1)
    level = _level(level)
    if s.size < 2:
        raise ValueError(f"samples needs at least 2 values; got {s.size}")
    with np.errstate(over="ignore", invalid="ignore"):
        m = float(s.mean())
        se = float(s.std(ddof=1) / np.sqrt(s.size))
    if not (np.isfinite(m) and np.isfinite(se)):
        raise ValueError("samples are too large for a float mean and standard error (overflow to inf)")
    t = _stats().t.ppf(0.5 + level / 2, s.size - 1)
    return m, m - t * se, m + t * se, se


def bootstrap_ci(statistic, *samples, level=0.95, n_boot=2000, seed=0):
    """Percentile bootstrap CI of ``statistic(*samples)``; rows of all samples resampled together.

    Parameters
    ----------
    statistic : callable
        ``statistic(*samples) -> float``.
    *samples : arrays
        Arrays with one row per independent unit (the same number of rows).
    level : float
        Confidence level (default 0.95).
    n_boot : int
        Resamples (default 2000).
    seed : int
        Seed of the resampling.

    Returns
    -------
    (float, float, float)
        ``(estimate, lo, hi)``.
    """
    if not callable(statistic):
        raise TypeError(f"statistic must be a callable statistic(*samples) -> float; got {statistic!r}"[:200])
    level, n_boot, rng = _level(level), _n_boot(n_boot), as_generator(seed)
    if not samples:
        raise TypeError("bootstrap_ci needs at least one array of samples after statistic")
    arrays = [_sample_rows(f"samples[{i}]", s) for i, s in enumerate(samples)]
    n = arrays[0].shape[0]
    if any(a.shape[0] != n for a in arrays):
        raise ValueError("samples: all arrays must have the same number of rows; got "
                         + ", ".join(str(a.shape[0]) for a in arrays))
    check_budget("the bootstrap over samples", n_boot * sum(a.size for a in arrays), n_boot=n_boot,
                 samples=[a.shape for a in arrays])
    est = _statistic_value(statistic, arrays)
    boot = np.empty(n_boot)
    for b in range(n_boot):
        rows = rng.integers(0, n, n)
        boot[b] = _statistic_value(statistic, [a[rows] for a in arrays], resample=True)
    boot = boot[np.isfinite(boot)]
    if boot.size < max(2, n_boot // 2):
        raise ValueError(f"statistic is non-finite on {n_boot - boot.size} of {n_boot} bootstrap resamples of "
                         "samples; no percentile interval")
    alpha = 1 - level
    return est, float(np.quantile(boot, alpha / 2)), float(np.quantile(boot, 1 - alpha / 2))


def bootstrap_rows(statistic, n: int, *, n_boot: int = 2000, seed=0) -> np.ndarray:
    """Replicates ``statistic(rows)`` of a nonparametric bootstrap over ``n`` independent units (paths, groups):
    ``rows`` are ``n`` indices drawn with replacement, so a statistic indexing several arrays with the same
    ``rows`` keeps their pairing (e.g. paths coupled across levels).  ``seed`` may be a Generator, whose stream
    continues.  Non-finite replicates are kept (the caller decides); the percentile CI is
    ``np.quantile(reps[np.isfinite(reps)], [alpha / 2, 1 - alpha / 2])``."""
    if not callable(statistic):
        raise TypeError(f"statistic must be a callable statistic(rows) -> float; got {statistic!r}"[:200])
    n = check_int("n", n, low=1)
    n_boot, rng = _n_boot(n_boot), as_generator(seed)
    check_budget("the bootstrap over units", n_boot * n, n_boot=n_boot, n=n)
    return np.array([statistic(rng.integers(0, n, n)) for _ in range(n_boot)], dtype=float)


def paired_ratio(numerator, denominator):
    """``(r, se)``: the ratio r = mean(numerator) / mean(denominator) of paired samples (unit i of both
    from one seed) and its delta-method standard error, with the covariance of the pair:
    se = r sqrt(se_d^2 / m_d^2 + se_n^2 / m_n^2 - 2 cov(d, n) / (N m_d m_n))."""
    num = check_array("numerator", numerator, ndim=1)
    den = check_array("denominator", denominator, ndim=1)
    if num.shape != den.shape:
        raise ValueError(f"numerator and denominator must be paired samples of one shape; got {num.shape} and "
                         f"{den.shape}")
    m1, _, _, s1 = mean_ci(den)
    mk, _, _, sk = mean_ci(num)
    if m1 == 0.0 or mk == 0.0:
        raise ValueError(f"the means must be non-zero for a ratio's delta method; got {mk} / {m1}")
    ratio = mk / m1
    c1k = float(np.cov(den, num)[0, 1]) / den.size
    return ratio, ratio * np.sqrt(max((s1 / m1) ** 2 + (sk / mk) ** 2 - 2 * c1k / (m1 * mk), 0.0))


def batch_means(samples, n_batches: int = 1000) -> np.ndarray:
    """Per-unit samples (n, k) as means over ``n_batches`` equal batches of units: the same overall mean and
    i.i.d. rows, so a bootstrap over batches is a bootstrap over groups of units (and 1e5 paths x 2000
    replicates stay within the bootstrap budget).  The last ``n % n_batches`` units are dropped; with
    ``n <= n_batches`` the samples are returned as they are."""
    check_array("samples", samples, ndim=2)
    samples = np.asarray(samples)       # as given (no copy): the batch means sum in the same order
    n_batches = check_int("n_batches", n_batches, low=1)
    n = samples.shape[0]
    if n <= n_batches:
        return samples
    m = n // n_batches
    return samples[: m * n_batches].reshape(n_batches, m, -1).mean(axis=1)


def _sample_rows(name, s) -> np.ndarray:
    """One array of samples for :func:`bootstrap_ci`: at least 1-d with 2 rows, finite if numeric."""
    if s is None or isinstance(s, (str, bytes, dict)):
        raise TypeError(f"{name} must be an array of samples (rows resampled); got {s!r}"[:200])
    try:
        a = np.asarray(s)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a regular array of samples; got {s!r}"[:200]) from exc
    if a.ndim == 0 or a.shape[0] < 2:
        raise ValueError(f"{name} must hold at least 2 rows to resample; got shape {a.shape}")
    if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must contain only finite values; got NaN or inf")
    if a.dtype.kind not in "biufcO":
        raise TypeError(f"{name} must be numeric samples; got {a.dtype.name} data")
    return a


def _statistic_value(statistic, arrays, *, resample=False) -> float:
    try:
        value = float(statistic(*arrays))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"statistic must return one real number for the samples; got {exc}") from exc
    if not resample and not np.isfinite(value):
        raise ValueError(f"statistic is not finite on the samples (got {value})")
    return value


#: Most trials of :func:`proportion_ci` (counts beyond 2^53 are not exact in the float arithmetic of the interval).
MAX_TRIALS = 2**53


def proportion_ci(successes: int, trials: int, level=0.95):
    """Clopper-Pearson (exact) confidence interval for a binomial proportion.

    Parameters
    ----------
    successes : int
        Successes (0 <= successes <= trials).
    trials : int
        Trials (>= 1).
    level : float
        Confidence level (default 0.95).

    Returns
    -------
    (float, float, float)
        ``(p_hat, lo, hi)``.
    """
    successes = check_int("successes", successes, low=0, high=MAX_TRIALS)
    trials = check_int("trials", trials, low=1, high=MAX_TRIALS)
    level = _level(level)
    if successes > trials:
        raise ValueError(f"successes must be <= trials; got successes={successes}, trials={trials}")
    alpha = 1 - level
    lo = 0.0 if successes == 0 else float(_stats().beta.ppf(alpha / 2, successes, trials - successes + 1))
    hi = 1.0 if successes == trials else float(_stats().beta.ppf(1 - alpha / 2, successes + 1, trials - successes))
    return successes / trials, lo, hi


# ------------------------------------------------------------------------------ slopes over units, exact slopes
def _units(x, samples, window):
    """Validated (x, samples, window mask, (lo, hi)) for a fit over units (rows of positive ``samples``)."""
    x = check_array("x", x, ndim=1)
    raw = samples
    samples = check_array("samples", samples, ndim=2)
    if isinstance(raw, np.ndarray) and raw.dtype == np.float64:
        samples = raw  # validated; kept in its memory layout, which sets the summation order of means
    if samples.shape[1] != x.size:
        raise ValueError(f"samples must have shape (units, {x.size}) to match x; got {samples.shape}")
    if samples.shape[0] < 2:
        raise ValueError(f"samples needs at least 2 units (rows); got {samples.shape[0]}")
    if np.any(x <= 0) or np.any(samples <= 0):
        raise ValueError(f"x and samples must be positive for a log-log fit; got min x {x.min():.3g}, "
                         f"min samples {samples.min():.3g}")
    mask, win = _window_mask(x, _window(window))
    if np.unique(x[mask]).size < 2:
        raise ValueError(f"window {win} keeps fewer than 2 distinct values of x; a slope needs at least 2")
    return x, samples, mask, win


def _floor(y, y_se, mask, noise_floor_ratio) -> bool:
    """The noise-floor rule of :func:`fit_loglog`: standard error above ``noise_floor_ratio`` of the value at
    the smallest value in the window."""
    i_min = np.argmin(np.where(mask, y, np.inf))
    return bool(y_se[i_min] > noise_floor_ratio * y[i_min])


def unit_slopes(x, samples, *, window=None) -> np.ndarray:
    """OLS slope of ``log samples[u]`` against ``log x`` over ``window``, for every unit (row) ``u``."""
    x, samples, mask, _ = _units(x, samples, window)
    lx = np.log(x[mask])
    xc = lx - lx.mean()
    return (np.log(samples[:, mask]) @ xc) / (xc @ xc)


def fit_per_unit(x, samples, *, window=None, statistic=np.mean, label="units", level=0.95, n_boot=2000, seed=0,
                 noise_floor_ratio=1 / 3) -> RateFit:
    """A rate as ``statistic`` (e.g. a trimmed mean) of the per-unit log-log slopes (:func:`unit_slopes`), with a
    percentile bootstrap over units (:func:`bootstrap_ci`), for claims that bound every unit (every game, every
    instance) and whose units differ too much for one curve.  ``y`` is the geometric-mean curve (its intercept
    is the OLS one for the fitted slope); the noise floor is :func:`fit_loglog`'s rule applied to it, with the
    standard error of its log."""
    if not callable(statistic):
        raise TypeError(f"statistic must be a callable of the per-unit slopes; got {statistic!r}"[:200])
    x, samples, mask, win = _units(x, samples, window)
    noise_floor_ratio = check_real("noise_floor_ratio", noise_floor_ratio, low=0)
    s = unit_slopes(x, samples, window=window)
    q, lo, hi = bootstrap_ci(statistic, s, level=level, n_boot=n_boot, seed=seed)
    L = np.log(samples)
    y = np.exp(L.mean(0))
    y_se = y * L.std(0, ddof=1) / np.sqrt(L.shape[0])
    intercept = float(np.mean(np.log(y[mask])) - q * np.mean(np.log(x[mask])))
    name = getattr(statistic, "__name__", "statistic").strip("_")
    return RateFit(slope=float(q), intercept=intercept, ci=(lo, hi), stderr=float(s.std(ddof=1) / np.sqrt(s.size)),
                   level=level, method=f"{name} of per-{label.rstrip('s')} slopes, bootstrap over {label}", window=win,
                   n_points=int(mask.sum()), noise_floor=_floor(y, y_se, mask, noise_floor_ratio), x=x, y=y, y_se=y_se)


def fit_geometric_mean(x, samples, *, window=None, label="units", level=0.95, n_boot=2000, seed=0,
                       noise_floor_ratio=1 / 3) -> RateFit:
    """Log-log slope of the whole geometric-mean curve ``exp(mean_u log samples[u])`` over ``window``, with a
    percentile bootstrap over units (rows resampled whole), for units whose levels are heavy-tailed (the
    arithmetic mean's standard error would trip the noise floor); equal to the mean of the per-unit slopes.
    The noise floor is :func:`fit_loglog`'s rule with the standard error of the log curve."""
    x, samples, mask, win = _units(x, samples, window)
    level, n_boot, rng = _level(level), _n_boot(n_boot), as_generator(seed)
    noise_floor_ratio = check_real("noise_floor_ratio", noise_floor_ratio, low=0)
    check_budget("the bootstrap over units", n_boot * samples.size, n_boot=n_boot, samples=samples.shape)
    whole = bool(mask.all())  # no copy then: the memory layout of samples sets the summation order of the mean
    lx, L = np.log(x if whole else x[mask]), np.log(samples if whole else samples[:, mask])
    n = L.shape[0]
    xc = lx - lx.mean()

    def slope(rows_mean):
        return (rows_mean - rows_mean.mean(-1, keepdims=True)) @ xc / (xc @ xc)

    m = L.mean(0)
    boot = slope(L[rng.integers(0, n, (n_boot, n))].mean(1))
    a = 1 - level
    b = float(slope(m))
    L_all = np.log(samples)
    y = np.exp(L_all.mean(0))
    y_se = y * (L_all.std(0, ddof=1) / np.sqrt(n))
    return RateFit(slope=b, intercept=float(m.mean() - b * lx.mean()),
                   ci=(float(np.quantile(boot, a / 2)), float(np.quantile(boot, 1 - a / 2))),
                   stderr=float(boot.std(ddof=1)), level=level, method=f"bootstrap over {label} (geometric mean)",
                   window=win, n_points=int(mask.sum()), noise_floor=_floor(y, y_se, mask, noise_floor_ratio),
                   x=x, y=y, y_se=y_se)


def curve_slope(x, y, *, window=None) -> float:
    """The exact log-log least-squares slope of a closed-form (noise-free) curve over a window.

    What :func:`fit_loglog` would estimate on the same abscissae without noise: the finite-window
    prediction to compare a fitted slope with, when the asymptotic exponent is reached only slowly.

    Parameters
    ----------
    x, y : array (k,)
        Positive abscissae and the curve's values there.
    window : (float, float), optional
        Inclusive range of ``x`` (``None`` ends are open); at least 2 distinct values.

    Returns
    -------
    float
        The slope.
    """
    x = check_array("x", x, ndim=1)
    y = check_array("y", y, shape=(x.size,))
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError(f"x and y must be positive for a log-log slope; got min x {x.min():.3g}, min y {y.min():.3g}")
    mask, win = _window_mask(x, _window(window))
    if np.unique(x[mask]).size < 2:
        raise ValueError(f"window {win} keeps fewer than 2 distinct values of x; a slope needs at least 2")
    return float(np.polyfit(np.log(x[mask]), np.log(y[mask]), 1)[0])
