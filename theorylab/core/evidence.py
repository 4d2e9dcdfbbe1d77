"""What a claim function returns: a measurement together with the paper's prediction.

A claim function computes data and wraps it in one of these; it never decides the verdict.
The framework calls :meth:`Evidence.verdict`, which applies one fixed, stated rule per kind:

========== ============================================================================
Estimate   predicted lies in the CI of the estimate, widened by a stated model tolerance
Slope      predicted exponent lies in the CI of the fitted log-log slope (+ tolerance);
           one-sided forms for "order at least p" (O(h^p) upper bounds)
Bound      the measured quantity is on the claimed side of the bound, CI included
Proportion the success rate's Clopper–Pearson CI is above the claimed threshold
Identity   an exact (rational / symbolic) identity holds, or a float identity to a tolerance
========== ============================================================================

Each rule can answer *not reproduced*; *inconclusive* is returned when the measurement is
too noisy to decide (CI wider than ``max_ci_width``, Monte Carlo noise floor, or a CI that
straddles a bound), never to hide a failure.

The family-wise rule, in two stages
-----------------------------------
Claims report honest intervals at their stated level (95% by default) and those are what the
ledger shows.  A verdict of *not reproduced* needs evidence at two levels, on two independent
streams of random numbers (the stages are run by :func:`theorylab.core.checks.run_claim`):

* **Stage 1** is the run at the root seed.  The interval used to reject the claim is the
  reported one widened to the per-claim level ``1 - FAMILY_ALPHA / DESIGN_CLAIMS`` (Bonferroni
  over a design size of 500 claims, the scale of 38 papers; z = 3.89), by scaling each side's
  distance from the point estimate by ``z_fw / z_level`` (exact for a normal interval, first
  order for a bootstrap one; a Proportion uses the Clopper-Pearson interval at that level
  directly).  If the outcome agrees with the claim's declaration, it is the verdict.
* **Stage 2** runs only when stage 1 contradicts the declaration (an expected claim *not
  reproduced*, or a declared finding *reproduced*): the same claim, scale and parameters on an
  independent replicate stream (``child_seed(root, paper, stream, scale, "replicate")``), whose
  interval rejects at the reported level, ``REPLICATE_LEVEL`` = 95%.  The replicate's verdict is
  the claim's verdict: the contradiction stands only if the replicate confirms it.  A
  deterministic claim (the replicate gives the same numbers) has no second stage: its
  stage-1 verdict is final.

The arithmetic.  For a true claim with calibrated intervals, stage 1 rejects with probability
at most alpha_1 = 0.05/500 = 1e-4 and the independent replicate with probability at most
alpha_2 = 0.05, so a false *not reproduced* has probability at most alpha_1 alpha_2 = 5e-6
per claim, and over a full run of up to 500 true claims at most 500 x 5e-6 = 0.25% (union
bound): within the stated 5% family-wise bound, with room for a design 20 times larger.
Power is almost untouched: against a true offset of delta standard errors, one stage rejects
with probability Phi(delta - 3.89) and the two stages with Phi(delta - 3.89) Phi(delta - 1.96)
(at delta = 5: 0.867 and 0.866).
tests/test_core_two_stage.py simulates the rule on synthetic calibrated claims (false-alarm
rate and power).

Model tolerances (``rtol``/``atol``/``tol``) are added to the rejection interval, never scaled.
For the one-sided kinds (Bound, Proportion) *reproduced* still needs the reported interval on the
claimed side; between the two the verdict is *inconclusive*.  Identities are exact: no widening.
A *reproduced* verdict whose reported interval excludes the prediction (it passes only through
the widening) is flagged ``outside_reported_ci`` in the record and the ledger, so that a
consistent offset is visible.  Calibration (``theorylab calibrate``) checks that the reported
intervals deserve this trust, and reports how often stage 2 ran and overturned stage 1.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from statistics import NormalDist

from .rates import RateFit, proportion_ci

FAMILY_ALPHA = 0.05
DESIGN_CLAIMS = 500
FAMILY_LEVEL = 1 - FAMILY_ALPHA / DESIGN_CLAIMS
REPLICATE_LEVEL = 0.95  # stage 2's rejection level (module docstring)


def z_of(level: float) -> float:
    """The two-sided normal quantile of a confidence level (1.96 for 0.95)."""
    return float(NormalDist().inv_cdf(0.5 + level / 2))  # stdlib: no scipy.stats at import time


Z_FAMILY = z_of(FAMILY_LEVEL)


def family_interval(value: float, ci, level: float = 0.95, to: float | None = None) -> tuple[float, float]:
    """The reported ``ci`` around ``value`` rescaled from ``level`` to ``to`` (default :data:`FAMILY_LEVEL`)."""
    lo, hi = map(float, ci)
    k = (Z_FAMILY if to is None else z_of(to)) / z_of(level)
    return value - k * (value - lo), value + k * (hi - value)


def _finite_interval(ci) -> bool:
    return ci is not None and len(ci) == 2 and bool(np.all(np.isfinite(np.asarray(ci, dtype=float)))) and ci[0] <= ci[1]


REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)


def _g(x) -> str:
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        x = float(x)
        if x == 0 or 1e-3 <= abs(x) < 1e5:
            return f"{x:.4g}"
        return f"{x:.3e}"
    return str(x)


def _real(owner: str, name: str, value, *, finite=True):
    """``value`` as a float: any real number (int, float, numpy, fractions.Fraction, flint), not a bool."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or not (isinstance(value, numbers.Real)
                                                               or hasattr(value, "__float__")):
        raise TypeError(f"{owner}.{name} must be a real number; got {value!r} of type {type(value).__name__}")
    try:
        value = float(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"{owner}.{name} must be a real number; got {value!r}") from exc
    if finite and not np.isfinite(value):
        raise ValueError(f"{owner}.{name} must be finite; got {value!r}")
    return float(value)


def _pair(owner: str, name: str, value):
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise TypeError(f"{owner}.{name} must be a pair (lo, hi) of real numbers; got {value!r}")
    lo, hi = (_real(owner, f"{name}[{i}]", v) for i, v in enumerate(value))
    if lo > hi:
        raise ValueError(f"{owner}.{name} must have lo <= hi; got {value!r}")
    return lo, hi


def _level(owner: str, value):
    x = _real(owner, "level", value)
    if not 0 < x < 1:
        raise ValueError(f"{owner}.level must be in (0, 1); got {value!r}")
    return x


def _common(ev):
    owner = type(ev).__name__
    if not isinstance(ev.note, str):
        raise TypeError(f"{owner}.note must be a str; got {type(ev.note).__name__}")
    if ev.data is not None and not isinstance(ev.data, pd.DataFrame):
        raise TypeError(f"{owner}.data must be a pandas DataFrame or None; got {type(ev.data).__name__}")
    return owner


def _reject_level(owner: str, value):
    """``verdict``'s ``reject_level``: None (the family-wise level) or a level in (0, 1)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_, str, bytes)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}.verdict: reject_level must be None or a real number in (0, 1); got {value!r}")
    if not 0 < float(value) < 1:
        raise ValueError(f"{owner}.verdict: reject_level must be None or in (0, 1); got {value!r}")
    return float(value)


def _pct(level: float) -> str:
    return f"{100 * level:.4g}%"


@dataclass
class Evidence:
    """What a claim function returns: a measurement that decides its own verdict.

    Subclasses: :class:`Estimate`, :class:`Slope`, :class:`Bound`, :class:`Proportion`,
    :class:`Identity`.  Every verdict follows the rule of this module: *not reproduced* needs the
    interval widened to the family-wise level to exclude the prediction; *inconclusive* means too
    noisy to tell.

    Parameters
    ----------
    data : DataFrame, optional
        The table behind the measurement (recorded with the result).
    note : str
        Free text shown with the verdict.
    """

    data: pd.DataFrame | None = field(default=None, kw_only=True)
    note: str = field(default="", kw_only=True)

    def verdict(self, reject_level: float | None = None) -> str:  # pragma: no cover - abstract
        """``reproduced`` / ``not reproduced`` / ``inconclusive``; *not reproduced* needs the
        interval rescaled to ``reject_level`` (default :data:`FAMILY_LEVEL`) to exclude the claim."""
        raise NotImplementedError

    @property
    def measured(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def predicted_text(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def tolerance(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def measured_value(self) -> float:
        """The point estimate as a float (NaN where there is none)."""
        return float("nan")

    def interval(self):
        """``(value, lo, hi, level)`` of the reported interval, or None where there is none."""
        return None

    def numbers(self) -> dict:
        """The machine-readable form: value, reported and family-wise interval, prediction, tolerances."""
        nan = float("nan")
        out = {"kind": type(self).__name__.lower(), "value": self.measured_value(), "ci_low": nan, "ci_high": nan,
               "level": nan, "fw_low": nan, "fw_high": nan, "predicted_value": nan, "tol_abs": 0.0, "tol_rel": 0.0}
        iv = self.interval()
        if iv is not None:
            value, lo, hi, level = iv
            out.update(ci_low=float(lo), ci_high=float(hi), level=float(level))
            if _finite_interval((lo, hi)) and np.isfinite(value):
                out["fw_low"], out["fw_high"] = family_interval(value, (lo, hi), level)
        return out


@dataclass
class Estimate(Evidence):
    """A point estimate with a confidence interval against a predicted value.

    Reproduced iff ``predicted`` lies in ``[fw_lo - tol, fw_hi + tol]``, the family-wise
    widening of ``ci`` (module docstring) plus ``tol = atol + rtol * |predicted|``, the stated
    model tolerance (pre-asymptotic effects, discretisation), not a Monte Carlo allowance: the CI
    carries that.  Inconclusive if the value or CI is not finite, or the reported CI is wider than
    ``max_ci_width``.  :meth:`from_se` builds one from a standard error.

    Parameters
    ----------
    value : float
        The estimate.
    ci : (float, float)
        Its confidence interval at ``level``.
    predicted : float
        The value the claim predicts.
    rtol, atol : float
        The model tolerance, relative to ``|predicted|`` and absolute, stated before the run (>= 0).
    max_ci_width : float, optional
        Wider reported intervals are inconclusive (default: 50% of ``|predicted|``, or ``atol`` if larger).
    level : float
        The confidence level of ``ci`` (default 0.95).
    """

    value: float
    ci: tuple[float, float]
    predicted: float
    rtol: float = 0.0
    atol: float = 0.0
    max_ci_width: float | None = None
    level: float = 0.95

    def __post_init__(self):
        owner = _common(self)
        self.value = _real(owner, "value", self.value)
        self.predicted = _real(owner, "predicted", self.predicted)
        self.ci = _pair(owner, "ci", self.ci)
        self.level = _level(owner, self.level)
        if self.max_ci_width is not None:
            w = _real(owner, "max_ci_width", self.max_ci_width, finite=False)
            if not (np.isfinite(w) and w > 0):
                raise ValueError(f"Estimate.max_ci_width must be None or a finite float > 0; got {self.max_ci_width!r}")
        for name in ("rtol", "atol"):
            v = _real(owner, name, getattr(self, name))
            if v < 0:
                raise ValueError(f"Estimate.{name} must be a finite float >= 0; got {v!r}")

    @classmethod
    def from_se(cls, value, se, predicted, *, level=0.95, **kwargs) -> "Estimate":
        """An Estimate whose interval is the normal one, ``value -/+ z(level) * se`` (z = 1.96 at 95%),
        for an estimator with a standard error (a mean, a delta-method ratio, a weighted average)."""
        value = _real("Estimate", "value", value)
        se = _real("Estimate", "se", se)
        if se < 0:
            raise ValueError(f"Estimate.se must be a finite float >= 0; got {se!r}")
        half = z_of(_level("Estimate", level)) * se
        return cls(value=value, ci=(value - half, value + half), predicted=predicted, level=level, **kwargs)

    def _tol(self):
        return self.atol + self.rtol * abs(self.predicted)

    def interval(self):
        return float(self.value), float(self.ci[0]), float(self.ci[1]), float(self.level)

    def verdict(self, reject_level=None) -> str:
        reject_level = _reject_level(type(self).__name__, reject_level)
        lo, hi = self.ci
        if not (np.isfinite(self.value) and np.isfinite(self.predicted) and _finite_interval(self.ci)):
            return INCONCLUSIVE
        width_cap = self.max_ci_width if self.max_ci_width is not None else max(0.5 * abs(self.predicted), self.atol)
        if width_cap > 0 and hi - lo > width_cap:
            return INCONCLUSIVE
        tol = self._tol()
        flo, fhi = family_interval(self.value, self.ci, self.level, reject_level)
        return REPRODUCED if flo - tol <= self.predicted <= fhi + tol else NOT_REPRODUCED

    @property
    def measured(self):
        return f"{_g(self.value)} [{_g(self.ci[0])}, {_g(self.ci[1])}]"

    @property
    def predicted_text(self):
        return _g(self.predicted)

    def numbers(self):
        out = super().numbers()
        out.update(predicted_value=float(self.predicted), tol_abs=float(self.atol), tol_rel=float(self.rtol))
        return out

    @property
    def tolerance(self):
        parts = [f"{_pct(self.level)} CI, FW {_pct(FAMILY_LEVEL)}"]
        if self.rtol:
            parts.append(f"± {100 * self.rtol:.3g}% rel")
        if self.atol:
            parts.append(f"± {_g(self.atol)} abs")
        return " ".join(parts)

    def measured_value(self):
        return float(self.value)


@dataclass
class Slope(Evidence):
    """A fitted log-log slope against a predicted exponent.

    Inconclusive on the noise floor (``fit.noise_floor``) or if the CI is wider than ``max_ci_width``.

    Parameters
    ----------
    fit : RateFit
        The fit, from :func:`~theorylab.core.rates.fit_loglog` (its window and CI are reported).
    predicted : float
        The predicted exponent.
    tol : float
        A model tolerance on the exponent (finite-window bias), stated before the run (>= 0).
    side : {"equal", "at_least", "at_most"}
        ``"equal"``: the exponent is ``predicted``; ``"at_least"``: the quantity is O(x^predicted),
        so the slope must not be significantly below it; ``"at_most"``: the reverse.
    max_ci_width : float
        Wider intervals are inconclusive (default 1.0).
    """

    fit: RateFit
    predicted: float
    tol: float = 0.0
    side: str = "equal"
    max_ci_width: float = 1.0

    def __post_init__(self):
        owner = _common(self)
        if not isinstance(self.fit, RateFit):
            raise TypeError(f"Slope.fit must be a RateFit (from fit_loglog); got {type(self.fit).__name__}")
        self.predicted = _real(owner, "predicted", self.predicted)
        self.tol = _real(owner, "tol", self.tol)
        self.max_ci_width = _real(owner, "max_ci_width", self.max_ci_width)
        if self.tol < 0 or self.max_ci_width <= 0:
            raise ValueError(f"Slope.tol must be >= 0 and max_ci_width > 0; got {self.tol!r}, {self.max_ci_width!r}")
        if self.side not in ("equal", "at_least", "at_most"):
            raise ValueError(f"side must be 'equal', 'at_least' or 'at_most'; got {self.side!r}")

    def interval(self):
        return float(self.fit.slope), float(self.fit.ci[0]), float(self.fit.ci[1]), float(self.fit.level)

    def numbers(self):
        out = super().numbers()
        out.update(predicted_value=float(self.predicted), tol_abs=float(self.tol))
        return out

    def verdict(self, reject_level=None) -> str:
        reject_level = _reject_level(type(self).__name__, reject_level)
        lo, hi = self.fit.ci
        if (self.fit.noise_floor or not np.isfinite(self.fit.slope) or not _finite_interval(self.fit.ci)
                or hi - lo > self.max_ci_width):
            return INCONCLUSIVE
        lo, hi = family_interval(self.fit.slope, self.fit.ci, self.fit.level, reject_level)
        p, t = self.predicted, self.tol
        if self.side == "equal":
            ok = lo - t <= p <= hi + t
        elif self.side == "at_least":
            ok = hi + t >= p
        else:
            ok = lo - t <= p
        return REPRODUCED if ok else NOT_REPRODUCED

    @property
    def measured(self):
        return f"slope {self.fit}"

    @property
    def predicted_text(self):
        sym = {"equal": "", "at_least": ">= ", "at_most": "<= "}[self.side]
        return f"{sym}{_g(self.predicted)}"

    @property
    def tolerance(self):
        lo, hi = self.fit.window
        tol = f" ± {_g(self.tol)}" if self.tol else ""
        return f"{_pct(self.fit.level)} CI, FW {_pct(FAMILY_LEVEL)}{tol}, x in [{_g(lo)}, {_g(hi)}]"

    def measured_value(self):
        return float(self.fit.slope)


@dataclass
class Bound(Evidence):
    """A value (with an optional CI) against a claimed bound.

    Reproduced if the whole reported CI (at ``level``) is on the claimed side, not reproduced
    if the whole family-wise interval is on the wrong side, inconclusive in between.  Without
    a CI the value is exact (a deterministic computation).

    Parameters
    ----------
    value : float
        The measured quantity.
    bound : float
        The claimed bound.
    side : {"<=", ">="}
        ``"<="`` claims value <= bound.
    ci : (float, float), optional
        The value's confidence interval at ``level``; None for an exact value.
    level : float
        The confidence level of ``ci`` (default 0.95).
    """

    value: float
    bound: float
    side: str = "<="
    ci: tuple[float, float] | None = None
    level: float = 0.95

    def __post_init__(self):
        owner = _common(self)
        self.value = _real(owner, "value", self.value)
        self.bound = _real(owner, "bound", self.bound)
        if self.ci is not None:
            self.ci = _pair(owner, "ci", self.ci)
        self.level = _level(owner, self.level)
        if self.side not in ("<=", ">="):
            raise ValueError(f"side must be '<=' or '>='; got {self.side!r}")

    def interval(self):
        if self.ci is None:
            return None
        return float(self.value), float(self.ci[0]), float(self.ci[1]), float(self.level)

    def numbers(self):
        out = super().numbers()
        out.update(predicted_value=float(self.bound))
        return out

    def verdict(self, reject_level=None) -> str:
        reject_level = _reject_level(type(self).__name__, reject_level)
        if not np.isfinite(self.value) or not np.isfinite(self.bound):
            return INCONCLUSIVE
        if self.ci is None:
            lo = hi = flo = fhi = float(self.value)
        elif not _finite_interval(self.ci):
            return INCONCLUSIVE
        else:
            lo, hi = self.ci
            flo, fhi = family_interval(self.value, self.ci, self.level, reject_level)
        if self.side == "<=":
            return REPRODUCED if hi <= self.bound else (NOT_REPRODUCED if flo > self.bound else INCONCLUSIVE)
        return REPRODUCED if lo >= self.bound else (NOT_REPRODUCED if fhi < self.bound else INCONCLUSIVE)

    @property
    def measured(self):
        if self.ci is None:
            return _g(self.value)
        return f"{_g(self.value)} [{_g(self.ci[0])}, {_g(self.ci[1])}]"

    @property
    def predicted_text(self):
        return f"{self.side} {_g(self.bound)}"

    @property
    def tolerance(self):
        return (f"{_pct(self.level)} CI on the claimed side (rejected at FW {_pct(FAMILY_LEVEL)})"
                if self.ci is not None else "exact")

    def measured_value(self):
        return float(self.value)


@dataclass
class Proportion(Evidence):
    """"A beats B in at least ``threshold`` of runs": ``successes`` out of ``trials``.

    Reproduced if the Clopper-Pearson lower confidence limit at ``level`` is >= ``threshold``;
    not reproduced if the upper limit at the family-wise level is below it; inconclusive in
    between (too few runs).

    Parameters
    ----------
    successes : int
        Runs in which the event happened (0 <= successes <= trials).
    trials : int
        Independent runs (>= 1).
    threshold : float
        The claimed least frequency, in [0, 1].
    level : float
        The confidence level of the reported interval (default 0.95).
    """

    successes: int
    trials: int
    threshold: float
    level: float = 0.95

    def __post_init__(self):
        owner = _common(self)
        for name in ("successes", "trials"):
            v = getattr(self, name)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"Proportion.{name} must be an integer; got {v!r}")
            setattr(self, name, int(v))
        if not 0 <= self.successes <= self.trials or self.trials < 1:
            raise ValueError(f"Proportion needs 0 <= successes <= trials, trials >= 1; got {self.successes}/{self.trials}")
        self.threshold = _real(owner, "threshold", self.threshold)
        if not 0 <= self.threshold <= 1:
            raise ValueError(f"Proportion.threshold must be in [0, 1]; got {self.threshold!r}")
        self.level = _level(owner, self.level)

    def interval(self):
        p, lo, hi = proportion_ci(self.successes, self.trials, self.level)
        return p, lo, hi, float(self.level)

    def numbers(self):
        out = super().numbers()
        _, out["fw_low"], out["fw_high"] = proportion_ci(self.successes, self.trials, FAMILY_LEVEL)
        out.update(predicted_value=float(self.threshold))
        return out

    def verdict(self, reject_level=None) -> str:
        reject_level = _reject_level(type(self).__name__, reject_level)
        _, lo, _ = proportion_ci(self.successes, self.trials, self.level)
        if lo >= self.threshold:
            return REPRODUCED
        _, _, fhi = proportion_ci(self.successes, self.trials, FAMILY_LEVEL if reject_level is None else reject_level)
        return NOT_REPRODUCED if fhi < self.threshold else INCONCLUSIVE

    @property
    def measured(self):
        p, lo, hi = proportion_ci(self.successes, self.trials, self.level)
        return f"{self.successes}/{self.trials} = {p:.3f} [{lo:.3f}, {hi:.3f}]"

    @property
    def predicted_text(self):
        return f">= {self.threshold:.3g}"

    @property
    def tolerance(self):
        return f"{_pct(self.level)} Clopper-Pearson (rejected at FW {_pct(FAMILY_LEVEL)})"

    def measured_value(self):
        return self.successes / self.trials


@dataclass
class Identity(Evidence):
    """An identity checked exactly (``atol=0``, e.g. in rationals) or to a float margin.

    Reproduced iff ``|discrepancy| <= atol``; an infinite discrepancy (a violation coded as inf) is
    *not reproduced*, NaN is refused, and zero instances are *inconclusive*.  An equality checked in
    floating point states its margin ``atol`` before it runs.

    Parameters
    ----------
    discrepancy : float
        The largest ``|lhs - rhs|`` over the instances tried (0 for exact equality; inf may code a
        violation; never NaN).
    instances : int
        How many instances were tried (>= 0).
    atol : float
        The margin (>= 0), e.g. a few ulps times the condition of the computation.
    what : str
        What is compared, for the report (default ``"lhs - rhs"``).
    """

    discrepancy: float
    instances: int
    atol: float = 0.0
    what: str = "lhs - rhs"

    def __post_init__(self):
        owner = _common(self)
        self.discrepancy = _real(owner, "discrepancy", self.discrepancy, finite=False)
        if np.isnan(self.discrepancy):  # a broken computation is an error, never a verdict
            raise ValueError(f"{owner}.discrepancy must be a number, or inf for a violation coded as such; got nan "
                             "(raise where the computation broke instead)")
        if isinstance(self.instances, (bool, np.bool_)) or not isinstance(self.instances, (int, np.integer)):
            raise TypeError(f"Identity.instances must be an integer >= 0; got {self.instances!r}")
        if self.instances < 0:
            raise ValueError(f"Identity.instances must be an integer >= 0; got {self.instances!r}")
        self.instances = int(self.instances)
        self.atol = _real(owner, "atol", self.atol)
        if self.atol < 0:
            raise ValueError(f"Identity.atol must be >= 0; got {self.atol!r}")
        if not isinstance(self.what, str):
            raise TypeError(f"Identity.what must be a str; got {type(self.what).__name__}")

    def verdict(self, reject_level=None) -> str:
        """Exact: no interval, so ``reject_level`` plays no part.  An infinite discrepancy (a violation
        coded as inf) is a failure, never *inconclusive*; NaN is refused when the identity is built."""
        reject_level = _reject_level(type(self).__name__, reject_level)
        if self.instances < 1:
            return INCONCLUSIVE
        if not np.isfinite(self.discrepancy):
            return NOT_REPRODUCED
        return REPRODUCED if abs(self.discrepancy) <= self.atol else NOT_REPRODUCED

    @property
    def measured(self):
        return f"max |{self.what}| = {_g(self.discrepancy)} over {self.instances} instances"

    @property
    def predicted_text(self):
        return "0"

    @property
    def tolerance(self):
        return "exact" if self.atol == 0 else f"<= {_g(self.atol)}"

    def measured_value(self):
        return float(self.discrepancy)

    def numbers(self):
        out = super().numbers()
        out.update(predicted_value=0.0, tol_abs=float(self.atol))
        return out
