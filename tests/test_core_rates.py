"""Rate fitting and the evidence rules on synthetic data with known answers, including failures."""

import numpy as np
import pytest

from theorylab.core import (INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Bound, Estimate, Fraction, Identity, Slope,
                            fit_loglog, mean_ci, proportion_ci)

H = np.geomspace(1e-3, 1e-1, 6)


def noisy_power(p, reps=200, rel=0.05, seed=0, floor=0.0):
    rng = np.random.default_rng(seed)
    return 2.0 * H**p * (1 + rel * rng.standard_normal((reps, H.size))) + floor * np.abs(rng.standard_normal((reps, H.size)))


@pytest.mark.parametrize("p", [0.5, 1.0, 2.0, -0.75])
def test_bootstrap_slope_recovers_known_exponent(p):
    fit = fit_loglog(H, samples=noisy_power(p), seed=1)
    assert fit.ci[0] < p < fit.ci[1]
    assert fit.ci[1] - fit.ci[0] < 0.05
    assert Slope(fit=fit, predicted=p).verdict() == REPRODUCED


def test_slope_check_fails_on_wrong_exponent():
    fit = fit_loglog(H, samples=noisy_power(1.0), seed=1)
    assert Slope(fit=fit, predicted=0.5).verdict() == NOT_REPRODUCED
    assert Slope(fit=fit, predicted=2.0, side="at_least").verdict() == NOT_REPRODUCED
    assert Slope(fit=fit, predicted=0.5, side="at_least").verdict() == REPRODUCED
    assert Slope(fit=fit, predicted=0.5, side="at_most").verdict() == NOT_REPRODUCED


def test_noise_floor_is_inconclusive_not_pass():
    y = 2.0 * H**2                  # the truth is on the power law ...
    y_se = np.full(H.size, 1e-5)    # ... but the Monte Carlo error swamps the smallest values
    fit = fit_loglog(H, y, y_se=y_se, seed=0)
    assert fit.noise_floor
    assert Slope(fit=fit, predicted=2.0).verdict() == INCONCLUSIVE
    assert not fit_loglog(H, y, y_se=1e-3 * y, seed=0).noise_floor


def test_ols_and_parametric_bootstrap_and_window():
    y = 3.0 * H**1.5 * np.exp(0.01 * np.random.default_rng(0).standard_normal(H.size))
    ols = fit_loglog(H, y)
    assert ols.method.startswith("OLS") and ols.ci[0] < 1.5 < ols.ci[1]
    pb = fit_loglog(H, y, y_se=0.01 * y)
    assert pb.method == "parametric bootstrap" and abs(pb.slope - 1.5) < 0.05
    bent = np.where(H < 1e-2, H**2, 1e-2 * H)  # slope 2 below 1e-2, 1 above
    assert abs(fit_loglog(H, bent, window=(None, 1e-2)).slope - 2) < 1e-9
    with pytest.raises(ValueError, match="window"):
        fit_loglog(H, bent, window=(5e-2, 6e-2))


def test_fit_rejects_bad_input():
    with pytest.raises(ValueError, match="positive"):
        fit_loglog(H, -H)
    with pytest.raises(ValueError, match="shape"):
        fit_loglog(H, H[:3])
    with pytest.raises(ValueError, match="finite"):
        fit_loglog(H, np.full(H.size, np.nan))


def test_estimate_rule():
    assert Estimate(value=1.0, ci=(0.95, 1.05), predicted=1.02).verdict() == REPRODUCED
    assert Estimate(value=1.0, ci=(0.95, 1.05), predicted=1.2).verdict() == NOT_REPRODUCED
    assert Estimate(value=1.0, ci=(0.95, 1.05), predicted=1.1, atol=0.06).verdict() == REPRODUCED
    assert Estimate(value=1.0, ci=(0.0, 2.0), predicted=1.0).verdict() == INCONCLUSIVE


def test_mean_ci_covers_at_the_nominal_rate():
    rng = np.random.default_rng(0)
    covered = sum(lo < 0 < hi for _, lo, hi, _ in (mean_ci(rng.standard_normal(50)) for _ in range(2000)))
    assert 0.93 < covered / 2000 < 0.97


def test_bound_fraction_identity_rules():
    assert Bound(value=0.5, ci=(0.4, 0.6), bound=1.0).verdict() == REPRODUCED
    assert Bound(value=1.5, ci=(1.4, 1.6), bound=1.0).verdict() == NOT_REPRODUCED
    assert Bound(value=1.0, ci=(0.9, 1.1), bound=1.0).verdict() == INCONCLUSIVE
    assert Bound(value=2.0, bound=1.0, side=">=").verdict() == REPRODUCED
    assert Fraction(successes=98, trials=100, threshold=0.9).verdict() == REPRODUCED
    assert Fraction(successes=70, trials=100, threshold=0.9).verdict() == NOT_REPRODUCED
    assert Fraction(successes=9, trials=10, threshold=0.9).verdict() == INCONCLUSIVE
    assert Identity(discrepancy=0, instances=10).verdict() == REPRODUCED
    assert Identity(discrepancy=1e-20, instances=10).verdict() == NOT_REPRODUCED
    assert Identity(discrepancy=1e-12, instances=10, atol=1e-9).verdict() == REPRODUCED
    p, lo, hi = proportion_ci(5, 10)
    assert lo < 0.5 < hi and p == 0.5
