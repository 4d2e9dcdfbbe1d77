"""theorylab.toys.temporal_decay (paper d2po, a toy proxy): the loss against DPO and an explicit loop, the tabular
loss and gradient against log-softmax and finite differences, the exact reward and KL against enumeration, GD
against a plain loop, the Newton minimiser, reproducibility, bad input, and broken variants the claims catch."""

import itertools

import numpy as np
import pytest
from scipy.special import log_softmax
from scipy.stats import entropy

from theorylab.toys import temporal_decay as D


@pytest.fixture(scope="module")
def small():
    return D.preference_task(vocab=3, horizon=4, n_pairs=200, head=2, seed=5)


def test_token_weights_start_at_gamma_on_the_first_response_token():
    mask = np.array([[0, 0, 1, 1, 1, 0], [0, 1, 1, 0, 0, 0]], float)
    w = D.token_weights(mask, 0.5)
    np.testing.assert_array_equal(w, [[0, 0, 0.5, 0.25, 0.125, 0], [0, 0.5, 0.25, 0, 0, 0]])


def test_d2po_equals_dpo_at_gamma_one_and_a_loop_below():
    rng = np.random.default_rng(1)
    n, L = 7, 9
    lp = {k: -rng.exponential(1.0, (n, L)) for k in ("logp_chosen", "logp_rejected", "ref_chosen", "ref_rejected")}
    m = {f"mask_{s}": (np.arange(L)[None, :] >= rng.integers(1, 4, (n, 1))).astype(float) for s in ("chosen", "rejected")}
    assert abs(D.d2po_loss(**lp, **m, gamma=1.0, beta=0.3) - D.dpo_loss(**lp, **m, beta=0.3)) < 1e-13
    ref = 0.0
    for i in range(n):
        r = []
        for s in ("chosen", "rejected"):
            resp = [t for t in range(L) if m[f"mask_{s}"][i, t]]
            r.append(sum(0.7 ** (j + 1) * (lp[f"logp_{s}"][i, t] - lp[f"ref_{s}"][i, t]) for j, t in enumerate(resp)))
        ref += -np.log(1 / (1 + np.exp(-0.3 * (r[0] - r[1])))) / n
    assert abs(D.d2po_loss(**lp, **m, gamma=0.7, beta=0.3) - ref) < 1e-13


def test_tabular_loss_is_d2po_of_the_policy_and_the_gradient_matches_differences(small):
    rng = np.random.default_rng(2)
    th = rng.standard_normal((4, 3))
    loss, g = D.tabular_loss_grad(small, th, gamma=0.9, beta=0.5)
    lp = log_softmax(th, axis=1)
    pos = np.arange(4)
    ones, ref = np.ones((200, 4)), np.full((200, 4), -np.log(3))
    direct = D.d2po_loss(lp[pos, small.chosen], lp[pos, small.rejected], ref, ref, ones, ones, gamma=0.9, beta=0.5)
    assert abs(loss - direct) < 1e-13
    fd = np.zeros_like(th)
    for i, j in itertools.product(range(4), range(3)):
        e = np.zeros_like(th)
        e[i, j] = 1e-6
        fd[i, j] = (D.tabular_loss_grad(small, th + e, gamma=0.9, beta=0.5)[0]
                    - D.tabular_loss_grad(small, th - e, gamma=0.9, beta=0.5)[0]) / 2e-6
    np.testing.assert_allclose(g, fd, atol=1e-8)


def test_reward_and_kl_against_enumeration(small):
    th = np.random.default_rng(3).standard_normal((4, 3))
    p = np.exp(log_softmax(th, axis=1))
    exact = sum(np.prod([p[t, y[t]] for t in range(4)]) * sum(small.weights[t] * small.utility[y[t]] for t in range(4))
                for y in itertools.product(range(3), repeat=4))
    assert abs(D.true_reward(small, th) - exact) < 1e-12
    assert abs(D.kl_to_reference(th) - sum(entropy(p[t], np.full(3, 1 / 3)) for t in range(4))) < 1e-12


def test_gd_equals_a_plain_loop_and_newton_reaches_a_stationary_point(small):
    out = D.train_gd(small, gamma=0.9, beta=0.5, step=2.0, n_steps=25)
    th = np.zeros((4, 3))
    for _ in range(25):
        th = th - 2.0 * D.tabular_loss_grad(small, th, gamma=0.9, beta=0.5)[1]
    np.testing.assert_allclose(out["theta"], th, atol=1e-12)
    assert out["kl"][0] == 0.0 and abs(out["reward"][-1] - D.true_reward(small, th)) < 1e-12
    star = D.train_to_convergence(small, gamma=0.9, beta=0.5)
    assert np.abs(D.tabular_loss_grad(small, star, gamma=0.9, beta=0.5)[1]).max() < 1e-12
    np.testing.assert_allclose(star.sum(axis=1), 0.0, atol=1e-10)


def test_task_is_reproducible_and_labels_follow_the_reward():
    a, b = D.preference_task(seed=4), D.preference_task(seed=4)
    np.testing.assert_array_equal(a.chosen, b.chosen)
    r = lambda y: (a.weights * a.utility[y]).sum(1)
    assert np.mean(r(a.chosen) > r(a.rejected)) > 0.6
    np.testing.assert_array_equal(D.reward_profile(6, "back", head=2, tail_weight=0.5), [0.5] * 4 + [1, 1])


@pytest.mark.parametrize("gamma", [0.0, -0.5, 1.01, float("nan")])
def test_gamma_outside_zero_one_is_refused(small, gamma):
    with pytest.raises(ValueError, match="gamma"):
        D.train_gd(small, gamma=gamma, n_steps=1)
    with pytest.raises(ValueError, match="gamma"):
        D.token_weights(np.ones((1, 2)), gamma)


def test_other_bad_input_names_the_argument(small):
    with pytest.raises(ValueError, match="mask"):
        D.token_weights(np.full((1, 2), 0.5), 0.9)
    with pytest.raises(ValueError, match="profile"):
        D.preference_task(profile="middle")
    with pytest.raises(TypeError, match="task"):
        D.train_gd("task")
    with pytest.raises(ValueError, match="theta"):
        D.true_reward(small, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="n_steps"):
        D.train_gd(small, n_steps=10**12)


def _weights_off_by_one(m, gamma):
    return gamma ** (np.cumsum(m, axis=1) - 1) * m          # gamma^{c_t - 1}: still DPO at gamma = 1


def test_loss_identity_catches_an_exponent_off_by_one(broken_claim):
    r = broken_claim("d2po:loss_identity", (D, "_weights"), _weights_off_by_one)
    assert r.verdict == "not reproduced"


def test_temperature_invariance_catches_weights_from_gamma_zero(broken_claim):
    def parts(task, gamma, beta):
        t = np.arange(task.horizon)
        return t * task.vocab + task.chosen, t * task.vocab + task.rejected, beta * gamma ** t
    r = broken_claim("d2po:temperature_invariance", (D, "_margin_parts"), parts)
    assert r.verdict == "not reproduced"
