"""theorylab.toys.local_loss (paper bp_localloss, a toy proxy): gradients against finite differences, the global
minimum against an explicit SVD network, the BP offset's mean at K = 1, reproducibility, bad input, and broken
variants the claims catch."""

import numpy as np
import pytest

from theorylab.toys import local_loss as T


@pytest.fixture(scope="module")
def net():
    task = T.linear_task(m=[4.0, 1.0, 0.25, 0.25], seed=1)
    W, P = T.init_network(task, 0.7, 2, seed=2)
    return task, W, P


def _batch_losses(task, W, P, x, y):
    """Independent path: the global and local batch losses by explicit forward products."""
    z = [x[0]]
    for Wh in W:
        z.append(z[-1] @ Wh[0].T)
    F = 0.5 * np.mean(np.sum((z[-1] - y[0]) ** 2 * task.m, axis=1))
    loc = [0.5 * np.mean(np.sum((z[h + 1] @ P[h][0].T - y[0]) ** 2, axis=1)) for h in range(len(P))]
    return F, loc


def test_batch_gradients_match_finite_differences(net):
    task, W, P = net
    W = [w[:1].copy() for w in W]
    P = [q[:1].copy() for q in P]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 7, task.d))
    y = rng.standard_normal((1, 7, task.p))
    gbp, gloc, gP = T.batch_gradients(task, W, P, x, y)
    eps = 1e-6
    for h in range(task.depth):
        for idx in [(0, 0, 0), (0, W[h].shape[1] - 1, W[h].shape[2] - 1)]:
            Wp = [w.copy() for w in W]
            Wm = [w.copy() for w in W]
            Wp[h][idx] += eps
            Wm[h][idx] -= eps
            Fp, lp = _batch_losses(task, Wp, P, x, y)
            Fm, lm = _batch_losses(task, Wm, P, x, y)
            assert abs((Fp - Fm) / (2 * eps) - gbp[h][idx]) < 1e-6
            if h < task.depth - 1:
                assert abs((lp[h] - lm[h]) / (2 * eps) - gloc[h][idx]) < 1e-6
    Pp = [q.copy() for q in P]
    Pp[1][0, 2, 1] += eps
    Pm = [q.copy() for q in P]
    Pm[1][0, 2, 1] -= eps
    assert abs((_batch_losses(task, W, Pp, x, y)[1][1] - _batch_losses(task, W, Pm, x, y)[1][1]) / (2 * eps)
               - gP[1][0, 2, 1]) < 1e-6


def test_population_gradients_are_the_batch_limit(net):
    """Population gradients equal batch gradients on a batch whose second moments are exact (whitened x, y = A x):
    then every sample moment equals its population value (sigma = 0)."""
    task, W, P = net
    t0 = T.LinearTask(A=task.A, m=task.m, sigma=0.0, width=task.width, depth=task.depth)
    Q, _ = np.linalg.qr(np.random.default_rng(1).standard_normal((60, task.d)))
    x = np.broadcast_to(Q * np.sqrt(60), (2, 60, task.d))
    y = x @ task.A.T
    for a, b in zip(T.population_gradients(t0, W, P), T.batch_gradients(t0, W, P, x, y)):
        for ga, gb in zip(a, b):
            np.testing.assert_allclose(ga, gb, atol=1e-12)


def test_global_minimum_attained_by_svd_network():
    task = T.linear_task(m=[4.0, 1.0, 0.25, 0.25], seed=3)
    s = np.sqrt(task.m)
    U, S, Vt = np.linalg.svd(s[:, None] * task.A)
    k = task.width
    W = [(Vt[:k])[None], np.eye(k)[None], ((U[:, :k] * S[:k]) / s[:, None])[None]]
    assert abs(T.global_loss(task, W)[0] - T.global_minimum(task)) < 1e-12
    Wr, _ = T.init_network(task, 1.0, 50, seed=4)
    assert np.all(T.global_loss(task, Wr) >= T.global_minimum(task))


def test_mean_update_and_reproducibility(net):
    task, W, P = net
    u1 = T.sample_updates(task, W, P, 0.5, 4, 4, 300, seed=7)
    u2 = T.sample_updates(task, W, P, 0.5, 4, 4, 300, seed=7)
    assert np.array_equal(u1, u2)
    assert not np.array_equal(u1, T.sample_updates(task, W, P, 0.5, 4, 4, 300, seed=8))
    mom = T.update_moments(task, W, P, 1.0, 4, 4)
    assert np.all(mom["bias_norm"] == 0) and np.all(mom["trace_cov"] > 0)
    r = T.train_local(task, 1.0, 2, eta=0.02, steps=20, batch=8, batch_prime=8, replicates=3, seed=1)
    assert np.array_equal(r["excess"], T.train_local(task, 1.0, 2, eta=0.02, steps=20, batch=8, batch_prime=8,
                                                     replicates=3, seed=1)["excess"])
    assert np.all(np.isfinite(r["excess"])) and not r["diverged"].any()


def test_broken_offset_sign_is_caught(broken_claim):
    """A wrong sign of the BP offset (local minus BP) makes the bias (1 + alpha) c: the bias law catches it."""
    good = T._offset
    r = broken_claim("bp_localloss:bias_law", (T, "_offset"),
                     lambda *a, **k: [-o for o in good(*a, **k)])
    assert r.verdict == "not reproduced", r.measured


def test_broken_shared_batch_is_caught(broken_claim):
    """The offset computed on the same batch as the local gradient (no split mini-batch): the variance is no longer
    V_loc / B + alpha^2 V_off / B', and the variance law catches it."""

    def sample_shared(task, W, P, alpha, batch, batch_prime, draws, seed=0):
        W1 = [np.broadcast_to(w[:1], (draws,) + w.shape[1:]) for w in W]
        P1 = [np.broadcast_to(q[:1], (draws,) + q.shape[1:]) for q in P]
        x, y = T._draw(task, np.random.default_rng(seed), draws, batch)
        gbp, gloc, _ = T.batch_gradients(task, W1, P1, x, y)
        return T._flat(gloc) + alpha * (T._flat(gbp) - T._flat(gloc))
    r = broken_claim("bp_localloss:variance_law", (T, "sample_updates"), sample_shared)
    assert r.verdict == "not reproduced", r.measured


@pytest.mark.parametrize("call, name", [
    (lambda: T.linear_task(depth=1), "depth"),
    (lambda: T.linear_task(m=[1.0, -1.0, 1.0, 1.0]), "m"),
    (lambda: T.linear_task(sigma=-0.1), "sigma"),
    (lambda: T.init_network("task"), "task"),
    (lambda: T.init_network(T.linear_task(), replicates=0), "replicates"),
    (lambda: T.update_moments(T.linear_task(), *T.init_network(T.linear_task()), -0.5, 8, 8), "alpha"),
    (lambda: T.update_moments(T.linear_task(), *T.init_network(T.linear_task()), 0.5, 0, 8), "batch"),
    (lambda: T.sample_updates(T.linear_task(), *T.init_network(T.linear_task()), 0.5, 8, 0, 10), "batch_prime"),
    (lambda: T.train_local(T.linear_task(), -1.0, 1, 0.1, 10, 8, 8), "alpha"),
    (lambda: T.train_local(T.linear_task(), 1.0, 0, 0.1, 10, 8, 8), "refresh"),
    (lambda: T.train_local(T.linear_task(), 1.0, 1, -0.1, 10, 8, 8), "eta"),
    (lambda: T.train_local(T.linear_task(), 1.0, 1, 0.1, 10, 8, 8, replicates=10 ** 6), "replicates"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()


def test_divergence_is_flagged_not_raised():
    """A run that blows up (large alpha, stale offset) is counted as diverged with infinite excess loss."""
    task = T.linear_task(m=[4.0, 1.0, 0.25, 0.25], seed=1)
    r = T.train_local(task, 64.0, 64, eta=0.03, steps=200, batch=8, batch_prime=8, replicates=3, seed=0)
    assert r["diverged"].all() and np.all(np.isinf(r["excess"]))
