"""theorylab.highdim.critical_batch (paper cbs): the exact recursion against the stochastic SGD and its numpy
reference, the stability limit, the CBS finder, the random-feature reduction, bad input, and broken variants the
claims catch."""

import numpy as np
import pytest

from theorylab.core import run_claim
from theorylab.core.checks import REGISTRY
from theorylab.highdim import _kernels_critical_batch as K
from theorylab.highdim import critical_batch as C


def _claim(name):
    import theorylab.validations.cbs  # noqa: F401 - registers the claims

    return REGISTRY.claims[f"cbs:{name}"]


@pytest.fixture(scope="module")
def small():
    return C.power_law_problem(12, a=1.5, beta=1.2)


def test_power_law_problem_normalisation(small):
    lam, w2 = small
    np.testing.assert_allclose([lam.sum(), w2.sum()], [1.0, 1.0], rtol=1e-12)
    np.testing.assert_allclose(lam[0] / lam[3], 4 ** 1.5, rtol=1e-12)
    np.testing.assert_allclose(w2[0] / w2[1], 2 ** 1.2, rtol=1e-12)


def test_recursion_matches_stochastic_sgd_mean(small):
    """Seed-averaged excess risk of the stochastic SGD (with EWA) within 4 standard errors of the exact recursion."""
    lam, w2 = small
    rec = np.array([0, 5, 20, 60])
    for B, eta, gamma in ((1, 0.8, 1.0), (4, 1.5, 0.2)):
        exact = C.risk_curve(lam, w2, noise=0.3, B=B, eta=eta, gamma=gamma, n_steps=60, record=rec)
        sims = C.simulate_sgd(lam, np.sqrt(w2), noise=0.3, B=B, eta=eta, gamma=gamma, n_steps=60, record=rec,
                              n_seeds=2000, seed=1)
        se = sims.std(axis=0, ddof=1) / np.sqrt(sims.shape[0])
        assert np.all(np.abs(sims.mean(axis=0) - exact) <= 4 * se + 1e-12), (sims.mean(axis=0), exact, se)


def test_kernel_equals_numpy_reference(small):
    lam, w2 = small
    etas = np.array([0.1, 0.5, 1.0])
    out = np.empty(3)
    K.final_risks(lam, w2, 0.04, 3.0, etas, 0.3, 50, out)
    np.testing.assert_allclose(out, C.final_risk_numpy(lam, w2, noise=0.2, B=3, etas=etas, gamma=0.3, n_steps=50),
                               rtol=1e-11)


def test_stability_limit_separates_growth_from_decay(small):
    lam, w2 = small
    for B in (1, 8):
        e = C.stability_limit(lam, B)
        lo = C.risk_curve(lam, w2, noise=0.0, B=B, eta=0.97 * e, n_steps=4000, record=[4000])[0]
        hi = C.risk_curve(lam, w2, noise=0.0, B=B, eta=1.03 * e, n_steps=4000, record=[4000])[0]
        assert lo < 1e-3 and hi > 1e3


def test_cbs_finder_interpolates_the_crossing():
    B = np.array([1.0, 2.0, 4.0, 8.0])
    steps = np.array([100.0, 50.0, 27.5, 20.0])  # ratios 1, 1, 1.1, 1.6
    # crossing of 1.2 between 4 (1.1) and 8 (1.6) in log-log
    want = np.exp(np.log(4) + (np.log(1.2) - np.log(1.1)) / (np.log(1.6) - np.log(1.1)) * np.log(2))
    assert C.critical_batch_size(B, steps) == pytest.approx(want, rel=1e-12)
    assert C.critical_batch_size(B, [100.0, 50.0, 25.0, 12.5]) == np.inf
    assert C.critical_batch_size(B, [100.0, 50.0, np.inf, np.inf]) == 2.0


def test_steps_vs_batch_target_and_linear_scaling(small):
    lam, w2 = small
    r = C.steps_vs_batch(lam, w2, N=400, batches=[1, 2, 4], noise=0.1, n_eta=8)
    assert r["steps"][0] == 400 and np.all(r["ratio"][1:] >= 0.9)
    final = C.risk_curve(lam, w2, noise=0.1, B=1, eta=r["eta1"], gamma=min(1, 1 / 40), n_steps=400, record=[400])[0]
    assert final == pytest.approx(r["target"], rel=1e-12)


def test_random_features_reduce_exactly_and_tend_to_full_problem():
    lam, w2 = C.power_law_problem(30)
    l_s, v2, noise_s = C.random_feature_problem(lam, w2, width=30, noise=0.1, seed=0)
    # full width: S invertible, no approximation error, the feature spectrum carries the whole signal
    assert noise_s == pytest.approx(0.1, rel=1e-6)
    np.testing.assert_allclose(np.sum(l_s * v2), np.sum(lam * w2), rtol=1e-8)
    l5, v5, n5 = C.random_feature_problem(lam, w2, width=5, noise=0.1, seed=0)
    np.testing.assert_allclose(np.sum(l5 * v5) + n5 ** 2, np.sum(lam * w2) + 0.01, rtol=1e-8)


def test_bootstrap_cbs_covers_the_mean():
    m, (lo, hi) = C.bootstrap_cbs([10.0, 12.0, 11.0, 13.0], seed=0)
    assert m == 11.5 and lo <= m <= hi


def test_same_seed_same_numbers(small):
    lam, w2 = small
    a = C.simulate_sgd(lam, np.sqrt(w2), eta=0.5, n_steps=10, n_seeds=3, seed=5)
    np.testing.assert_array_equal(a, C.simulate_sgd(lam, np.sqrt(w2), eta=0.5, n_steps=10, n_seeds=3, seed=5))


def test_mutation_batch_free_noise_is_caught(broken_claim):
    """The gradient noise not divided by B (batch averaging dropped): no batch beyond 1 scales, slope ~ 0."""

    real = K.steps_grid

    def broken(lam, w2, noise2, Bs, etas, gammas, target, max_steps, out):
        real(lam, w2, noise2, np.ones_like(Bs), etas, gammas, target, max_steps, out)

    r = broken_claim("cbs:cbs_grows_with_data", "theorylab.highdim._kernels_critical_batch.steps_grid", broken)
    assert r.verdict == "not reproduced", r.measured


@pytest.mark.parametrize("call, name", [
    (lambda: C.power_law_problem(10, a=1.0), "a"),
    (lambda: C.power_law_problem(10, a=0.5), "a"),
    (lambda: C.power_law_problem(10, beta=0.0), "beta"),
    (lambda: C.power_law_problem(0), "d"),
    (lambda: C.stability_limit([1.0, 0.5], 0.5), "B"),
    (lambda: C.stability_limit([1.0, -0.5], 2), "lam"),
    (lambda: C.risk_curve([1.0], [1.0], eta=0.1, B=0, n_steps=3), "B"),
    (lambda: C.risk_curve([1.0], [1.0, 2.0], eta=0.1, n_steps=3), "w2"),
    (lambda: C.risk_curve([1.0], [1.0], eta=-0.1, n_steps=3), "eta"),
    (lambda: C.risk_curve([1.0], [1.0], eta=0.1, gamma=1.5, n_steps=3), "gamma"),
    (lambda: C.risk_curve([1.0], [1.0], eta=0.1, n_steps=3, record=[5]), "record"),
    (lambda: C.simulate_sgd([1.0], [1.0], eta=0.1, B=0, n_steps=3), "B"),
    (lambda: C.simulate_sgd([1.0], [1.0], eta=0.1, n_steps=3, n_seeds=0), "n_seeds"),
    (lambda: C.simulate_sgd([1.0], [1.0], eta=0.1, n_steps=10 ** 9, n_seeds=10 ** 5), "n_steps"),
    (lambda: C.steps_vs_batch([1.0], [1.0], N=10, batches=[2, 4]), "batches"),
    (lambda: C.steps_vs_batch([1.0], [1.0], N=0, batches=[1, 4]), "N"),
    (lambda: C.critical_batch_size([1, 2], [1.0, 1.0], threshold=1.0), "threshold"),
    (lambda: C.critical_batch_size([2, 4], [1.0, 1.0]), "batches"),
    (lambda: C.bootstrap_cbs([1.0]), "values"),
    (lambda: C.random_feature_problem([1.0, 0.5], [1.0, 1.0], width=3), "width"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()
