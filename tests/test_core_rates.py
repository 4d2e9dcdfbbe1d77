"""Rate fitting and the evidence rules on synthetic data with known answers, including failures."""

import numpy as np
import pytest

from theorylab.core import (INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Bound, Estimate, Proportion, Identity, Slope,
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
    assert Proportion(successes=98, trials=100, threshold=0.9).verdict() == REPRODUCED
    assert Proportion(successes=70, trials=100, threshold=0.9).verdict() == NOT_REPRODUCED
    assert Proportion(successes=9, trials=10, threshold=0.9).verdict() == INCONCLUSIVE
    assert Identity(discrepancy=0, instances=10).verdict() == REPRODUCED
    assert Identity(discrepancy=1e-20, instances=10).verdict() == NOT_REPRODUCED
    assert Identity(discrepancy=1e-12, instances=10, atol=1e-9).verdict() == REPRODUCED
    p, lo, hi = proportion_ci(5, 10)
    assert lo < 0.5 < hi and p == 0.5


# --- bad input to the rate/CI helpers and the validators (issue 14: errors name the argument) ---

from theorylab.core import bootstrap_ci, check_array, check_choice, check_int, check_real  # noqa: E402
from theorylab.core.timing import best_time  # noqa: E402
from theorylab.core.validate import (DEFAULT_MAX_ELEMENTS, SimulationDiverged, check_budget,  # noqa: E402
                                     check_size, default_budget, require_bounded, require_finite)


@pytest.mark.parametrize("kwargs, match", [
    (dict(x=H), "y or samples"),
    (dict(x=H[:1], y=H[:1]), "x must hold at least 2 points"),
    (dict(x=np.full(4, 0.1), y=np.ones(4)), "x must hold at least 2 distinct"),
    (dict(x=H, y=H, level=1.0), "level"),
    (dict(x=H, y=H, n_boot=10**9), "n_boot"),
    (dict(x=H, y=H, window=(1e-2,)), "window"),
    (dict(x=H, y=H, window=(1e-1, 1e-3)), "window"),
    (dict(x=H, y=H, noise_floor_ratio="0.3"), "noise_floor_ratio"),
    (dict(x=H, y=H, y_se=-H), "y_se"),
    (dict(x=H, y=H, seed="0"), "seed"),
    (dict(x=H, samples=np.full((3, H.size), 1e308)), "samples"),
])
def test_fit_loglog_names_the_bad_argument(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        fit_loglog(**kwargs)


def test_fit_loglog_refuses_hopelessly_noisy_bootstrap():
    z = np.random.default_rng(0).standard_normal((20, H.size))
    samples = z - z.mean(axis=0) + 0.01  # positive means, but most resamples have a mean <= 0 somewhere
    with pytest.raises(ValueError, match="samples: only"):
        fit_loglog(H, samples=samples, seed=0)


def test_ci_helpers_name_the_bad_argument():
    with pytest.raises(ValueError, match="level"):
        mean_ci([1.0, 2.0, 3.0], level=1.5)
    with pytest.raises(ValueError, match="samples"):
        mean_ci([1e308, -1e308, 1e308])
    with pytest.raises(TypeError, match="trials"):
        proportion_ci(2, float("inf"))
    with pytest.raises(TypeError, match="successes"):
        proportion_ci(np.array([1, 2]), 3)
    with pytest.raises(ValueError, match="successes must be <= trials"):
        proportion_ci(4, 3)
    with pytest.raises(TypeError, match="statistic"):
        bootstrap_ci(3.0, np.ones(5))
    with pytest.raises(ValueError, match=r"samples\[0\]"):
        bootstrap_ci(np.mean, np.ones(1))
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap_ci(np.mean, np.ones(5), n_boot=2**63)
    with pytest.raises(ValueError, match="statistic is not finite"):
        bootstrap_ci(lambda a: np.nan, np.ones(5))
    est, lo, hi = bootstrap_ci(np.mean, np.arange(10.0), n_boot=200, seed=1)
    assert lo <= est <= hi
    with pytest.raises(ValueError, match="repeat"):
        best_time(lambda: None, repeat=10**9)
    with pytest.raises(TypeError, match="fn"):
        best_time(None)


def test_check_choice_with_arrays_and_unhashables_names_the_argument():
    with pytest.raises(ValueError, match="mode must be one of 'a', 'b'; got array"):
        check_choice("mode", np.array([1.0, 2.0]), ("a", "b"))
    with pytest.raises(ValueError, match="mode must be one of"):
        check_choice("mode", {"a": 1}, ("a", "b"))
    with pytest.raises(TypeError, match="allowed"):
        check_choice("mode", "a", 5)
    assert check_choice("mode", "b", ["a", "b"]) == "b"
    assert check_choice("k", np.int64(2), (1, 2)) == 2


def test_check_array_never_converts_silently():
    with pytest.raises(TypeError, match="x must be array-like of float64; got the string"):
        check_array("x", "0.5")
    with pytest.raises(TypeError, match="x must be array-like"):
        check_array("x", None)
    with pytest.raises(TypeError, match="x must be array-like.*ragged"):
        check_array("x", [[1.0], [1.0, 2.0]])
    with pytest.raises(TypeError, match="complex"):
        check_array("x", [1 + 2j])
    with pytest.raises(ValueError, match="x must hold integers"):
        check_array("x", [1.5, 2.0], dtype=np.int64)
    with pytest.raises(ValueError, match="x must hold integers in"):
        check_array("x", [2**63], dtype=np.int64)
    with pytest.raises(ValueError, match=r"must have shape \(3,\)"):
        check_array("x", [1.0, 2.0], shape=(3,))
    with pytest.raises(TypeError, match="dtype"):
        check_array("x", [1.0], dtype="no such dtype")
    assert check_array("x", [1.0, 2.0], dtype=np.int64).tolist() == [1, 2]
    assert check_array("x", ["a", 1], dtype=object).tolist() == ["a", 1]  # object arrays as before


def test_scalar_validators_name_the_argument():
    with pytest.raises(TypeError, match="gamma must be a real number"):
        check_real("gamma", "0.5")
    with pytest.raises(ValueError, match="gamma must be a finite float.*beyond the float range"):
        check_real("gamma", 10**400)
    with pytest.raises(TypeError, match="low"):
        check_real("gamma", 0.5, low=np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="name must be a str"):
        check_int(3, 4)
    assert check_int("n", 3.0) == 3


def test_size_budget_refuses_before_allocating():
    assert default_budget() == DEFAULT_MAX_ELEMENTS == 10**8
    assert check_size("n_paths", 1000) == 1000
    with pytest.raises(ValueError, match="n_paths = 1000000000 exceeds the size budget of 100,000,000"):
        check_size("n_paths", 10**9)
    with pytest.raises(ValueError, match="n_paths"):
        check_size("n_paths", 2**63)
    with pytest.raises(ValueError, match=r"n_paths must be an integer in \[1, inf\]"):
        check_size("n_paths", 0)
    with pytest.raises(ValueError, match="n_steps"):
        check_size("n_steps", 11, budget=10)
    with pytest.raises(ValueError, match=r"the path array needs 10,000,000,000 elements \(from n_paths=100, "
                                         r"n_steps=100000000\).*reduce n_paths or n_steps"):
        check_budget("the path array", 100 * 10**8, n_paths=100, n_steps=10**8)
    assert check_budget("the path array", 10**6, max_elements=10**6) == 10**6


def test_size_budget_follows_the_environment(monkeypatch):
    monkeypatch.setenv("THEORYLAB_MAX_ELEMENTS", "1000")
    with pytest.raises(ValueError, match="budget of 1,000"):
        check_size("n", 1001)
    monkeypatch.setenv("THEORYLAB_MAX_ELEMENTS", "lots")
    with pytest.raises(ValueError, match="THEORYLAB_MAX_ELEMENTS"):
        check_size("n", 1)


def test_divergence_guards_check_their_inputs():
    with pytest.raises(SimulationDiverged, match="loss diverged"):
        require_finite("loss", [1.0, np.inf])
    with pytest.raises(TypeError, match="loss must be numeric"):
        require_finite("loss", "abc")
    with pytest.raises(ValueError, match="bound"):
        require_bounded("loss", [1.0], -1.0)
    with pytest.raises(SimulationDiverged, match="exceeds the bound"):
        require_bounded("loss", [1.0, 5.0], 2.0)
    assert require_finite("q", [1, 2]).tolist() == [1, 2]


# ------------------------------------------------------------------------------ issue 29: shared statistics
def test_estimate_from_se_uses_z_of_its_level():
    from theorylab.core import Estimate
    from theorylab.core.evidence import z_of

    e = Estimate.from_se(1.0, 0.1, 1.05)
    assert e.ci == pytest.approx((1.0 - 0.1 * z_of(0.95), 1.0 + 0.1 * z_of(0.95)), abs=0, rel=1e-15)
    assert abs(z_of(0.95) - 1.96) < 1e-4 and e.level == 0.95 and e.verdict() == "reproduced"
    e90 = Estimate.from_se(1.0, 0.1, 1.05, level=0.9, rtol=0.01)
    assert e90.ci[1] - 1.0 == pytest.approx(0.1 * 1.6448536, rel=1e-6) and e90.rtol == 0.01
    with pytest.raises(ValueError, match="se must be"):
        Estimate.from_se(1.0, -0.1, 1.0)
    with pytest.raises(ValueError, match="level"):
        Estimate.from_se(1.0, 0.1, 1.0, level=1.5)


def _units(slopes, x, noise=0.0, seed=0):
    rng = np.random.default_rng(seed)
    scale = np.exp(rng.normal(0, 1, (len(slopes), 1)))          # unit levels spread over orders of magnitude
    return scale * x[None, :] ** np.asarray(slopes)[:, None] * np.exp(noise * rng.normal(size=(len(slopes), x.size)))


def test_unit_slopes_and_the_per_unit_fit():
    from scipy.stats import trim_mean

    from theorylab.core.rates import fit_per_unit, unit_slopes

    x = np.geomspace(10, 1000, 7)
    slopes = np.linspace(-1.2, -0.8, 40)
    S = _units(slopes, x)
    assert unit_slopes(x, S) == pytest.approx(slopes, abs=1e-12)
    fit = fit_per_unit(x, S, statistic=np.mean, label="games", seed=1)
    assert fit.slope == pytest.approx(slopes.mean(), abs=1e-12) and fit.ci[0] < fit.slope < fit.ci[1]
    assert fit.method == "mean of per-game slopes, bootstrap over games" and not fit.noise_floor
    trimmed = fit_per_unit(x, S, statistic=lambda s: trim_mean(s, 0.1), window=(20, 500), seed=1)
    assert trimmed.window == (20.0, 500.0) and trimmed.n_points == int(((x >= 20) & (x <= 500)).sum())
    assert fit_per_unit(x, _units(slopes, x, noise=3.0), seed=1).noise_floor  # log noise sd 3: a floor
    with pytest.raises(ValueError, match="samples must have shape"):
        fit_per_unit(x, S[:, :3])
    with pytest.raises(TypeError, match="statistic"):
        fit_per_unit(x, S, statistic="mean")


def test_geometric_mean_fit_equals_the_mean_unit_slope():
    from theorylab.core.rates import fit_geometric_mean

    x = np.geomspace(256, 2048, 4)
    slopes = np.linspace(-0.7, -0.3, 32)
    S = _units(slopes, x, noise=0.01)
    fit = fit_geometric_mean(x, S, label="instances", seed=3)
    per = [np.polyfit(np.log(x), np.log(row), 1)[0] for row in S]
    assert fit.slope == pytest.approx(np.mean(per), abs=1e-12) and fit.ci[0] < fit.slope < fit.ci[1]
    assert fit.method == "bootstrap over instances (geometric mean)" and not fit.noise_floor
    assert fit.y == pytest.approx(np.exp(np.log(S).mean(0)))
    assert fit_geometric_mean(x, _units(slopes, x, noise=3.0), seed=3).noise_floor


def test_curve_slope_of_a_closed_form_curve_and_rate_fit_power():
    from theorylab.core import fit_loglog
    from theorylab.core.rates import curve_slope

    x = np.geomspace(1e-3, 1e-1, 5)
    assert curve_slope(x, 3 * x**0.75) == pytest.approx(0.75, abs=1e-12)
    bent = x**0.5 * (1 + x)
    assert curve_slope(x, bent) == pytest.approx(np.polyfit(np.log(x), np.log(bent), 1)[0], abs=0)
    assert curve_slope(x, bent, window=(None, 1e-2)) < curve_slope(x, bent)
    with pytest.raises(ValueError, match="positive"):
        curve_slope(x, -bent)
    f = fit_loglog(x, samples=np.abs(np.random.default_rng(0).normal(1, 0.1, (50, 5))) * x**0.25, seed=0)
    g = f.power(2.0)
    assert (g.slope, g.intercept, g.ci, g.stderr) == (2 * f.slope, 2 * f.intercept, (2 * f.ci[0], 2 * f.ci[1]),
                                                      2 * f.stderr)
    assert g.y == pytest.approx(f.y**2) and g.y_se == pytest.approx(2 * f.y * f.y_se)
    with pytest.raises(ValueError, match="k"):
        f.power(0.0)
