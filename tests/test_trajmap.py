"""theorylab.krylov.trajectories (paper trajmap): the closed-form heavy-ball updates against the recursion run in
exact rational arithmetic, the sign-change count, the phase average against a quadrature in one dimension, the
trajectory map, bad input, and broken variants the claims catch."""

from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate

from theorylab.krylov import trajectories as TR


def test_closed_form_against_the_recursion_in_rationals():
    lams, theta0, eta, beta = [Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)], [1, -2, Fraction(1, 3)], 1, Fraction(9, 10)
    prev = cur = [Fraction(x) for x in theta0]
    path = [cur]
    for _ in range(30):
        nxt = [c - eta * l * c + beta * (c - p) for c, p, l in zip(cur, prev, lams)]
        prev, cur = cur, nxt
        path.append(cur)
    exact_deltas = np.array([[float(b - a) for a, b in zip(p, q)] for p, q in zip(path[:-1], path[1:])])
    got = TR.heavy_ball_exact_updates(np.array(lams, dtype=float), np.array(theta0, dtype=float), eta=1.0, beta=0.9,
                                      steps=30)
    np.testing.assert_allclose(got, exact_deltas, rtol=1e-10, atol=1e-14)
    sim = np.diff(TR.heavy_ball(np.array(lams, dtype=float), np.array(theta0, dtype=float), steps=30), axis=0)
    np.testing.assert_allclose(sim, exact_deltas, rtol=1e-10, atol=1e-14)


def test_sign_changes_count_multiples_of_pi():
    omega = TR.root_angles([0.3], eta=1.0, beta=0.9)[0]
    d = TR.heavy_ball_exact_updates([0.3], [1.0], steps=500)
    assert TR.sign_changes(d)[0] == np.floor(500 * omega / np.pi)


def test_phase_average_in_one_dimension_is_cos_omega_sign_average():
    # d = 1: F(phi) = sign(sin phi sin(phi + omega)); its mean is 1 - 2 omega / pi
    omega = 0.7
    m, se = TR.ergodic_cosine_mean([1.0], [omega], samples=200_000, seed=1)
    q = integrate.quad(lambda p: np.sign(np.sin(p) * np.sin(p + omega)), 0, 2 * np.pi, points=[np.pi - omega, np.pi,
                                                                                                2 * np.pi - omega])[0]
    assert abs(m - q / (2 * np.pi)) < 5 * se and q / (2 * np.pi) == pytest.approx(1 - 2 * omega / np.pi, rel=1e-9)


def test_cosines_and_trajectory_map():
    d = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, -2.0]])
    np.testing.assert_allclose(TR.consecutive_cosines(d), [1 / np.sqrt(2), -1 / np.sqrt(2)])
    C, mds = TR.trajectory_map(d)
    np.testing.assert_allclose(np.diag(C), 1.0)
    assert mds == pytest.approx((1 / np.sqrt(2) + 0.0 - 1 / np.sqrt(2)) / 3)


def test_mlp_trajectory_without_momentum_is_plain_sgd():
    from theorylab.core import as_generator, child_seed
    from theorylab.finite_sum import gaussian_mixture, init_mlp, mlp_loss_grad

    data = gaussian_mixture(60, 4, 3, seed=0)
    out = TR.mlp_trajectory(data, width=5, lr=0.2, beta=0.0, batch=10, steps=6, every=3, seed=1)
    rng = as_generator(child_seed(1, "batches"))
    params = init_mlp(2, 4, 5, 3, seed=child_seed(1, "init"))
    flat = lambda ps: np.concatenate([np.concatenate([W.ravel(), b]) for W, b in ps])
    theta0, ck = flat(params), []
    for t in range(6):
        idx = rng.choice(60, 10, replace=False)
        _, g = mlp_loss_grad(params, data.X[idx], data.y[idx])
        params = [(W - 0.2 * gW, b - 0.2 * gb) for (W, b), (gW, gb) in zip(params, g)]
        if (t + 1) % 3 == 0:
            ck.append(flat(params) - theta0)
    np.testing.assert_allclose(out["checkpoints"], np.array(ck), rtol=1e-12, atol=1e-14)
    decayed = TR.mlp_trajectory(data, width=5, lr=0.2, beta=0.5, weight_decay=0.1, batch=10, steps=6, every=3, seed=1)
    assert not np.allclose(decayed["checkpoints"], out["checkpoints"])


def test_mutation_root_angle_without_the_square_root(broken_claim):
    """cos omega = (1 + beta - eta lambda) / (2 beta): the sign-change claim catches the wrong frequencies."""
    real = TR.root_angles
    r = broken_claim("trajmap:hb_sign_change_rate", (TR, "root_angles"),
                     lambda lams, eta=1.0, beta=0.9: real(lams, eta=eta * np.sqrt(beta), beta=beta))
    assert r.verdict == "not reproduced", r.measured


def test_mutation_previous_iterate_zero_in_the_simulator(broken_claim):
    """theta_{-1} = 0 instead of theta_0 (a first step with momentum beta theta_0): the exact-trajectory claim
    catches it."""
    r = broken_claim("trajmap:hb_exact_trajectory", (TR, "heavy_ball"),
                     lambda lams, theta0, eta=1.0, beta=0.9, steps=1000: _previous_zero(lams, theta0, eta, beta, steps))
    assert r.verdict == "not reproduced", r.measured


def _previous_zero(lams, theta0, eta, beta, steps):
    out = np.empty((steps + 1, len(lams)))
    out[0], prev = theta0, np.zeros(len(lams))
    for t in range(steps):
        out[t + 1] = out[t] - eta * lams * out[t] + beta * (out[t] - prev)
        prev = out[t]
    return out


def _mixture():
    from theorylab.finite_sum import gaussian_mixture

    return gaussian_mixture(40, 3, 3, seed=0)


@pytest.mark.parametrize("call, name", [
    (lambda: TR.root_angles([4.0]), "lams"),
    (lambda: TR.root_angles([-1.0]), "lams"),
    (lambda: TR.root_angles([0.5], beta=1.0), "beta"),
    (lambda: TR.heavy_ball([0.5], [1.0, 2.0]), "theta0"),
    (lambda: TR.heavy_ball([0.5], [1.0], steps=0), "steps"),
    (lambda: TR.heavy_ball_exact_updates([0.5], [1.0], eta=0.0), "eta"),
    (lambda: TR.consecutive_cosines(np.ones((1, 3))), "deltas"),
    (lambda: TR.consecutive_cosines(np.zeros((3, 3))), "deltas"),
    (lambda: TR.ergodic_cosine_mean([1.0], [0.5, 0.5]), "omega"),
    (lambda: TR.ergodic_cosine_mean([1.0], [0.5], samples=1), "samples"),
    (lambda: TR.trajectory_map(np.ones(3)), "thetas"),
    (lambda: TR.mlp_trajectory("data"), "data"),
    (lambda: TR.mlp_trajectory(_mixture(), batch=10, beta=1.0), "beta"),
    (lambda: TR.mlp_trajectory(_mixture(), batch=100), "batch"),
    (lambda: TR.mlp_trajectory(_mixture(), batch=10, steps=10, every=6), "every"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()
