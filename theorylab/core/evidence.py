"""What a claim function returns: a measurement together with the paper's prediction.

A claim function computes data and wraps it in one of these; it never decides the verdict.
The framework calls :meth:`Evidence.verdict`, which applies one fixed, stated rule per kind:

========== ============================================================================
Estimate   predicted lies in the CI of the estimate, widened by a stated model tolerance
Slope      predicted exponent lies in the CI of the fitted log-log slope (+ tolerance);
           one-sided forms for "order at least p" (O(h^p) upper bounds)
Bound      the measured quantity is on the claimed side of the bound, CI included
Fraction   the success rate's Clopper–Pearson CI is above the claimed threshold
Identity   an exact (rational / symbolic) identity holds, or a float identity to a tolerance
========== ============================================================================

Each rule can answer *not reproduced*; *inconclusive* is returned when the measurement is
too noisy to decide (CI wider than ``max_ci_width``, Monte Carlo noise floor, or a CI that
straddles a bound), never to hide a failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .rates import RateFit, proportion_ci

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


@dataclass
class Evidence:
    """Base class; ``data`` is the table behind the measurement, ``note`` free text."""

    data: pd.DataFrame | None = field(default=None, kw_only=True)
    note: str = field(default="", kw_only=True)

    def verdict(self) -> str:  # pragma: no cover - abstract
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


@dataclass
class Estimate(Evidence):
    """A point estimate ``value`` with confidence interval ``ci`` against ``predicted``.

    Reproduced iff ``predicted`` lies in ``[ci_lo - tol, ci_hi + tol]`` where
    ``tol = atol + rtol * |predicted|`` is the stated model tolerance (pre-asymptotic effects,
    discretisation), not a Monte Carlo allowance: the CI carries that.  Inconclusive if the
    CI is wider than ``max_ci_width`` (default: 50% of |predicted| or ``atol`` if larger).
    """

    value: float
    ci: tuple[float, float]
    predicted: float
    rtol: float = 0.0
    atol: float = 0.0
    max_ci_width: float | None = None
    level: float = 0.95

    def _tol(self):
        return self.atol + self.rtol * abs(self.predicted)

    def verdict(self) -> str:
        lo, hi = self.ci
        width_cap = self.max_ci_width if self.max_ci_width is not None else max(0.5 * abs(self.predicted), self.atol)
        if not np.isfinite(self.value) or hi - lo > width_cap > 0:
            return INCONCLUSIVE
        tol = self._tol()
        return REPRODUCED if lo - tol <= self.predicted <= hi + tol else NOT_REPRODUCED

    @property
    def measured(self):
        return f"{_g(self.value)} [{_g(self.ci[0])}, {_g(self.ci[1])}]"

    @property
    def predicted_text(self):
        return _g(self.predicted)

    @property
    def tolerance(self):
        parts = [f"{int(round(self.level * 100))}% CI"]
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

    ``side``: ``"equal"`` (the exponent is ``predicted``), ``"at_least"`` (the quantity is
    O(x^predicted), so the slope must not be significantly below it) or ``"at_most"``.
    Inconclusive on the noise floor or if the CI is wider than ``max_ci_width``.
    """

    fit: RateFit
    predicted: float
    tol: float = 0.0
    side: str = "equal"
    max_ci_width: float = 1.0

    def __post_init__(self):
        if self.side not in ("equal", "at_least", "at_most"):
            raise ValueError(f"side must be 'equal', 'at_least' or 'at_most'; got {self.side!r}")

    def verdict(self) -> str:
        lo, hi = self.fit.ci
        if self.fit.noise_floor or not np.isfinite(self.fit.slope) or hi - lo > self.max_ci_width:
            return INCONCLUSIVE
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
        return f"{int(round(self.fit.level * 100))}% CI{tol}, x in [{_g(lo)}, {_g(hi)}]"

    def measured_value(self):
        return float(self.fit.slope)


@dataclass
class Bound(Evidence):
    """``value`` (with CI) against a claimed bound: ``side="<="`` means value <= bound.

    Reproduced if the whole CI is on the claimed side, not reproduced if the whole CI is on
    the wrong side, inconclusive if the CI straddles the bound.
    """

    value: float
    bound: float
    side: str = "<="
    ci: tuple[float, float] | None = None

    def verdict(self) -> str:
        lo, hi = self.ci if self.ci is not None else (self.value, self.value)
        if not np.isfinite(self.value):
            return INCONCLUSIVE
        if self.side == "<=":
            return REPRODUCED if hi <= self.bound else (NOT_REPRODUCED if lo > self.bound else INCONCLUSIVE)
        if self.side == ">=":
            return REPRODUCED if lo >= self.bound else (NOT_REPRODUCED if hi < self.bound else INCONCLUSIVE)
        raise ValueError(f"side must be '<=' or '>='; got {self.side!r}")

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
        return "CI on the claimed side" if self.ci is not None else "exact"

    def measured_value(self):
        return float(self.value)


@dataclass
class Fraction(Evidence):
    """"A beats B in at least ``threshold`` of runs": ``successes`` out of ``trials``.

    Reproduced if the Clopper–Pearson lower confidence limit is >= ``threshold``; not
    reproduced if the upper limit is below it; inconclusive in between (too few runs).
    """

    successes: int
    trials: int
    threshold: float
    level: float = 0.95

    def verdict(self) -> str:
        _, lo, hi = proportion_ci(self.successes, self.trials, self.level)
        if lo >= self.threshold:
            return REPRODUCED
        return NOT_REPRODUCED if hi < self.threshold else INCONCLUSIVE

    @property
    def measured(self):
        p, lo, hi = proportion_ci(self.successes, self.trials, self.level)
        return f"{self.successes}/{self.trials} = {p:.3f} [{lo:.3f}, {hi:.3f}]"

    @property
    def predicted_text(self):
        return f">= {self.threshold:.3g}"

    @property
    def tolerance(self):
        return f"{int(round(self.level * 100))}% Clopper-Pearson"

    def measured_value(self):
        return self.successes / self.trials


@dataclass
class Identity(Evidence):
    """An identity checked exactly (``atol=0``, e.g. in rationals) or to a float tolerance.

    ``discrepancy`` is the largest |lhs - rhs| over the instances tried (0 for exact
    equality), ``instances`` how many were tried.
    """

    discrepancy: float
    instances: int
    atol: float = 0.0
    what: str = "lhs - rhs"

    def verdict(self) -> str:
        if self.instances < 1 or not np.isfinite(self.discrepancy):
            return INCONCLUSIVE
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
