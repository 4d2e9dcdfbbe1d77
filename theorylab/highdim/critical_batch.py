"""Critical batch size of one-pass minibatch SGD on power-law linear regression (paper cbs).

Zhang, Morwani, Vyas, Wu, Zou, Ghai, Foster, Kakade, "How Does Critical Batch Size Scale in Pre-training?",
ICLR 2025, arXiv:2410.21676 (Sec. 3: the critical batch size as the batch at which the steps to a target
loss exceed ideal linear scaling by 20%, constant learning rate with exponential weight averaging; Sec. 4.1:
width independence in the infinite-width limit; Sec. 4.2: infinite-dimensional least squares with a
power-law spectrum, following Zou et al. 2023).

Model: y = <w*, x> + sigma xi, x ~ N(0, H), H = diag(lam_i), lam_i proportional to i^-a (trace 1),
w*_i^2 proportional to i^-beta (sum 1).  One-pass minibatch SGD from w_0 = 0 with batch B, constant
learning rate eta and EWA w_bar <- (1 - gamma) w_bar + gamma w.

* :func:`power_law_problem` - (lam, w*^2) of the instance (spectrum from :func:`theorylab.scaling.eigenvalues`);
* :func:`risk_curve` - the exact excess risk of the EWA iterate.  For Gaussian x the diagonal second
  moments close [derived]: with m_i = E e_i^2 (e = w - w*), E[Hhat M Hhat] = (1 + 1/B) H M H + tr(HM) H / B
  (Isserlis), so m_i' = m_i (1 - 2 eta lam_i + eta^2 (1 + 1/B) lam_i^2) + eta^2 lam_i (sum_j lam_j m_j
  + sigma^2) / B, and the EWA moments q_i = E[e_bar_i e_i], p_i = E e_bar_i^2 follow
  q' = (1 - gamma)(1 - eta lam_i) q + gamma m', p' = (1 - gamma)^2 p + 2 gamma (1 - gamma)(1 - eta lam_i) q
  + gamma^2 m'; the excess risk is sum_i lam_i p_i;
* :func:`simulate_sgd` - the stochastic one-pass SGD itself (jitted, many seeds), the reference of the
  recursion in the tests;
* :func:`stability_limit` - the largest eta at which the recursion is stable (secular equation
  (eta / B) sum_i lam_i / (2 - eta (1 + 1/B) lam_i) = 1);
* :func:`steps_vs_batch` - the tuned steps S(B) to the target loss that B = 1 reaches with N samples,
  the learning rate tuned per batch on a grid up to 0.9 x the stability limit;
* :func:`critical_batch_size` - the largest B with B S(B) / S(1) <= 1.2, as the continuous crossing
  (log-log interpolation between grid batches); :func:`bootstrap_cbs` - a percentile CI over replicates;
* :func:`random_feature_problem` - random-feature regression f(x) = <v, S x> / m with muP-style output
  scaling 1/m (readout learning rate eta m), reduced exactly to the same form in the eigenbasis of the
  feature covariance (x Gaussian, so the residual of the best readout is independent Gaussian noise).

We use the definition "largest B with S(B) <= 1.2 S(1) / B" with the continuous crossing; the authors'
code instead fits S = a + b / B with a constant offset.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from theorylab.core.seeding import child_seed, spawn_seeds
from theorylab.core.validate import check_array, check_budget, check_int, check_real
from theorylab.scaling import eigenvalues

from . import _kernels_critical_batch as K

__all__ = ["bootstrap_cbs", "critical_batch_size", "effective_dimension", "final_risk_numpy", "power_law_problem",
           "random_feature_problem", "risk_curve", "simulate_sgd", "stability_limit", "steps_vs_batch"]

THRESHOLD = 1.2  # steps may exceed ideal linear scaling by 20% (paper Sec. 3)
EWA_FRACTION = 0.1  # EWA window gamma^-1 = EWA_FRACTION * N / B steps (linear-scaling invariant)
WORK_BUDGET = 10 ** 11  # multiply-adds in one call (about a minute of one core)


def power_law_problem(d, *, a=1.5, beta=1.2):
    """(lam, w2): lam_i = i^-a / sum_j j^-a (trace 1) and w*_i^2 = i^-beta / sum_j j^-beta, i = 1..d.

    ``a`` > 1 is required (summable spectrum: the infinite-dimensional limit has finite trace and a finite
    SGD stability limit); ``beta`` > 0 (summable target energy as d grows needs beta > 1, but the finite
    instance only needs the decay)."""
    d = check_int("d", d, low=1, high=10 ** 7)
    a = check_real("a", a, low=1.0, low_open=True, high=20.0)
    beta = check_real("beta", beta, low=0.0, low_open=True, high=20.0)
    lam = eigenvalues(d, a - 1.0) / d
    w2 = np.arange(1, d + 1, dtype=float) ** -beta
    return lam, w2 / w2.sum()


def _problem(lam, w2):
    lam = check_array("lam", lam, ndim=1)
    if lam.size < 1 or np.any(lam <= 0):
        raise ValueError(f"lam must be a non-empty vector of positive eigenvalues; got min {lam.min() if lam.size else None!r}")
    w2 = check_array("w2", w2, shape=lam.shape)
    if np.any(w2 < 0):
        raise ValueError(f"w2 must hold non-negative squared target coordinates; got min {w2.min():.3g}")
    return np.ascontiguousarray(lam), np.ascontiguousarray(w2)


def _batch(B):
    return float(check_real("B", B, low=1.0, high=1e9))


def stability_limit(lam, B):
    """The largest learning rate at which the second-moment recursion of batch-B SGD is stable."""
    lam = _problem(lam, np.zeros(np.size(lam)))[0]
    B = _batch(B)
    cap = 2.0 / ((1.0 + 1.0 / B) * lam.max())

    def f(e):
        return (e / B) * np.sum(lam / (2.0 - e * (1.0 + 1.0 / B) * lam)) - 1.0

    return cap if f(cap * (1 - 1e-12)) < 0 else brentq(f, 0.0, cap * (1 - 1e-12), xtol=1e-14, rtol=1e-12)


def _steps(name, n, low=0):
    n = check_int(name, n, low=low)
    check_budget("the SGD steps", n, **{name: n})
    return n


def risk_curve(lam, w2, *, noise=0.1, B=1, eta, gamma=1.0, n_steps, record=None):
    """Exact excess risk E (x^T (w_bar - w*))^2 of the EWA iterate at the steps ``record`` (default every
    step 0..n_steps), from the closed second-moment recursion (module docstring)."""
    lam, w2 = _problem(lam, w2)
    noise, B = check_real("noise", noise, low=0.0, high=1e6), _batch(B)
    eta = check_real("eta", eta, low=0.0, low_open=True, high=1e6)
    gamma = check_real("gamma", gamma, low=0.0, low_open=True, high=1.0)
    n_steps = _steps("n_steps", n_steps)
    rec = np.arange(n_steps + 1) if record is None else np.sort(check_array("record", record, ndim=1, dtype=np.int64))
    if rec.size and (rec[0] < 0 or rec[-1] > n_steps):
        raise ValueError(f"record must hold steps in [0, n_steps={n_steps}]; got [{rec[0]}, {rec[-1]}]")
    check_budget("the recursion work", lam.size * n_steps, max_elements=WORK_BUDGET, n_steps=n_steps, d=lam.size)
    return K.risk_curve(lam, w2, noise ** 2, B, eta, gamma, n_steps, rec)


def simulate_sgd(lam, wstar, *, noise=0.1, B=1, eta, gamma=1.0, n_steps, record=None, n_seeds=16, seed=0):
    """Stochastic one-pass minibatch SGD with EWA (module docstring): (n_seeds, len(record)) excess risks of
    the averaged iterate, one core.rng stream per seed (child seeds of ``seed``)."""
    lam = _problem(lam, np.zeros(np.size(lam)))[0]
    wstar = check_array("wstar", wstar, shape=lam.shape)
    noise = check_real("noise", noise, low=0.0, high=1e6)
    B = check_int("B", B, low=1, high=10 ** 6)
    eta = check_real("eta", eta, low=0.0, low_open=True, high=1e6)
    gamma = check_real("gamma", gamma, low=0.0, low_open=True, high=1.0)
    n_steps, n_seeds = _steps("n_steps", n_steps), check_int("n_seeds", n_seeds, low=1, high=10 ** 6)
    rec = np.arange(n_steps + 1) if record is None else np.sort(check_array("record", record, ndim=1, dtype=np.int64))
    if rec.size and (rec[0] < 0 or rec[-1] > n_steps):
        raise ValueError(f"record must hold steps in [0, n_steps={n_steps}]; got [{rec[0]}, {rec[-1]}]")
    check_budget("the SGD work", n_seeds * n_steps * B * lam.size, max_elements=WORK_BUDGET, n_seeds=n_seeds, n_steps=n_steps, B=B, d=lam.size)
    check_budget("the recorded risks", n_seeds * rec.size, n_seeds=n_seeds, record=rec.size)
    seeds = spawn_seeds(check_int("seed", seed, low=0), n_seeds).astype(np.uint64)
    out = np.empty((n_seeds, rec.size))
    K.sgd_paths(np.sqrt(lam), np.ascontiguousarray(wstar), noise, B, eta, gamma, n_steps, rec, seeds, out)
    return out


def _gamma(B, N):
    return min(1.0, B / (EWA_FRACTION * N))


def _tune_b1(lam, w2, noise2, N, n_eta):
    """The B = 1 rate minimising the EWA risk after N steps: the grid 0.9 eta_max 2^(-j/2), j < n_eta, refined by
    factors 2^(+-1/4) then 2^(+-1/8) around the best point (all below 0.9 eta_max)."""
    cap = 0.9 * stability_limit(lam, 1.0)
    etas = cap * 2.0 ** (-np.arange(n_eta) / 2.0)
    g = _gamma(1.0, N)
    fin = np.empty(etas.size)
    K.final_risks(lam, w2, noise2, 1.0, etas, g, N, fin)
    best_eta, best = etas[int(np.nanargmin(fin))], float(np.nanmin(fin))
    for f in (2.0 ** 0.25, 2.0 ** 0.125):
        cand = np.array([e for e in (best_eta / f, best_eta * f) if e <= cap])
        out = np.empty(cand.size)
        K.final_risks(lam, w2, noise2, 1.0, cand, g, N, out)
        if out.size and np.nanmin(out) < best:
            best_eta, best = cand[int(np.nanargmin(out))], float(np.nanmin(out))
    return best_eta, best


def steps_vs_batch(lam, w2, *, N, batches, noise=0.1, n_eta=16):
    """Tuned steps to the target loss for each batch in ``batches`` (sorted, starting at 1).

    The target is the smallest EWA excess risk that B = 1 reaches after N steps (learning rate tuned on the grid
    0.9 eta_max(1) 2^(-j/2), j < n_eta, refined by 2^(+-1/4), 2^(+-1/8)), so S(1) = N.  S(B) is the smallest
    continuous step count to reach it over the rates B eta1 2^(k/4), |k| <= 4 (the linear-scaling rule and its
    neighbours) and 0.9 eta_max(B) 2^(-j/4), j < 4, all at most 0.9 eta_max(B), within 2 N / B steps (inf beyond).
    The EWA rate is gamma = B / (0.1 N).  Returns a dict with batches, steps, ratio B S(B) / S(1), target, eta1."""
    lam, w2 = _problem(lam, w2)
    N = _steps("N", N, low=1)
    Bs = np.unique(check_array("batches", batches, ndim=1))
    if Bs.size < 2 or Bs[0] != 1 or np.any(Bs > 1e9):
        raise ValueError(f"batches must hold at least 2 batch sizes, the smallest equal to 1 and all <= 1e9; got {batches!r}")
    noise = check_real("noise", noise, low=0.0, high=1e6)
    n_eta = check_int("n_eta", n_eta, low=1, high=64)
    check_budget("the tuning work", N * (n_eta + 4) * lam.size, max_elements=WORK_BUDGET, N=N, n_eta=n_eta, d=lam.size)
    eta1, target = _tune_b1(lam, w2, noise ** 2, N, n_eta)
    etas = np.empty((Bs.size - 1, 13))
    for k, B in enumerate(Bs[1:]):
        cap = 0.9 * stability_limit(lam, B)
        row = np.concatenate([B * eta1 * 2.0 ** (np.arange(4, -5, -1) / 4.0), cap * 2.0 ** (-np.arange(4) / 4.0)])
        etas[k] = np.minimum(row, cap)
    S = np.empty(etas.shape)
    K.steps_grid(lam, w2, noise ** 2, Bs[1:].copy(), etas, np.array([_gamma(B, N) for B in Bs[1:]]), target,
                 np.array([int(2 * N / B) + 2 for B in Bs[1:]], dtype=np.int64), S)
    steps = np.concatenate([[float(N)], S.min(axis=1)])
    return {"batches": Bs, "steps": steps, "ratio": Bs * steps / N, "target": target, "eta1": float(eta1)}


def critical_batch_size(batches, steps, *, threshold=THRESHOLD):
    """Largest B with B S(B) / S(1) <= threshold, as the continuous crossing: the largest grid batch with the
    ratio at or below ``threshold`` and the next one above it, interpolated linearly in (log B, log ratio).
    Returns inf if no grid batch exceeds the threshold (the CBS is beyond the grid)."""
    Bs = check_array("batches", batches, ndim=1)
    if Bs.size < 2 or Bs[0] != 1 or np.any(np.diff(Bs) <= 0):
        raise ValueError(f"batches must be increasing from 1, at least 2 of them; got {Bs!r}")
    S = check_array("steps", steps, shape=Bs.shape, finite=False)
    threshold = check_real("threshold", threshold, low=1.0, low_open=True, high=100.0)
    if not np.isfinite(S[0]) or S[0] <= 0:
        raise ValueError(f"steps[0] (the steps at B = 1) must be finite > 0; got {S[0]!r}")
    if np.any(np.isnan(S)) or np.any(S < 0):
        raise ValueError(f"steps must be non-negative or inf; got {S!r}")
    r = Bs * S / S[0]
    below = np.flatnonzero(r <= threshold)
    k = int(below[-1])
    if k == Bs.size - 1:
        return float("inf")
    if not np.isfinite(r[k + 1]):
        return float(Bs[k])
    lb, lr = np.log(Bs[k:k + 2]), np.log(r[k:k + 2])
    return float(np.exp(lb[0] + (np.log(threshold) - lr[0]) / (lr[1] - lr[0]) * (lb[1] - lb[0])))


def bootstrap_cbs(values, *, n_boot=2000, level=0.95, seed=0):
    """Mean of replicate CBS values (e.g. one per random-feature sketch) and its percentile bootstrap CI."""
    v = check_array("values", values, ndim=1)
    if v.size < 2:
        raise ValueError(f"values must hold at least 2 replicates; got {v.size}")
    n_boot = check_int("n_boot", n_boot, low=10, high=10 ** 6)
    level = check_real("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    reps = v[rng.integers(0, v.size, size=(n_boot, v.size))].mean(axis=1)
    lo, hi = np.quantile(reps, [(1 - level) / 2, (1 + level) / 2])
    return float(v.mean()), (float(lo), float(hi))


def effective_dimension(lam, eta, N):
    """#{i : eta N lam_i >= 1}: the directions SGD with learning rate eta fits within N samples."""
    lam = _problem(lam, np.zeros(np.size(lam)))[0]
    eta = check_real("eta", eta, low=0.0, low_open=True, high=1e6)
    N = check_real("N", N, low=1.0, high=1e15)
    return int(np.sum(eta * N * lam >= 1.0))


def random_feature_problem(lam, w2, *, width, noise=0.1, seed=0):
    """Random-feature regression f(x) = <v, S x> / m, S (m, D) with N(0, 1) entries, in the form of
    :func:`power_law_problem`: returns (lam_S, v2, noise_S) with lam_S the eigenvalues of S H S^T / m, v2 the
    squared coordinates of the best readout in that eigenbasis and noise_S = sqrt(sigma^2 + approximation
    error).  The muP-style output scale 1/m with readout learning rate eta m is the same SGD in function
    space as the learning rate eta on the features S x / sqrt(m) (so widths share one learning-rate grid);
    as m -> infinity at fixed D, S^T S / m -> I and the problem tends to the D-dimensional one.  The sign of
    w*_i is +1 (only w*^2 enters the D-dimensional recursion)."""
    lam, w2 = _problem(lam, w2)
    D = lam.size
    m = check_int("width", width, low=1, high=D)
    noise = check_real("noise", noise, low=0.0, high=1e6)
    check_budget("the sketch", m * D, width=m, D=D)
    rng = np.random.default_rng(child_seed(check_int("seed", seed, low=0), "sketch", m))
    S = rng.standard_normal((m, D))
    w = np.sqrt(w2)
    C = (S * lam) @ S.T / m
    c = S @ (lam * w) / np.sqrt(m)  # Cov(S x / sqrt(m), y)
    ev, U = np.linalg.eigh(C)
    keep = ev > ev.max() * 1e-12
    u = U[:, keep].T @ c / ev[keep]
    approx = float(np.sum(lam * w2) - np.sum(ev[keep] * u ** 2))
    order = np.argsort(ev[keep])[::-1]
    return ev[keep][order], (u ** 2)[order], float(np.sqrt(noise ** 2 + max(approx, 0.0)))


def final_risk_numpy(lam, w2, *, noise=0.1, B=1, etas, gamma=1.0, n_steps):
    """The numpy reference of the recursion (vectorised over the learning rates ``etas``, a Python loop over
    steps): the EWA excess risk after ``n_steps`` for each eta; tests and the benchmark compare the kernel to it."""
    lam, w2 = _problem(lam, w2)
    etas = check_array("etas", etas, ndim=1)
    if etas.size < 1 or np.any(etas <= 0):
        raise ValueError(f"etas must be a non-empty vector of positive learning rates; got {etas!r}")
    noise, B = check_real("noise", noise, low=0.0, high=1e6), _batch(B)
    gamma = check_real("gamma", gamma, low=0.0, low_open=True, high=1.0)
    n_steps = _steps("n_steps", n_steps)
    check_budget("the recursion work", etas.size * lam.size * n_steps, max_elements=WORK_BUDGET, n_steps=n_steps,
                 d=lam.size, etas=etas.size)
    e = etas[:, None]
    m, q, p = (np.tile(w2, (etas.size, 1)) for _ in range(3))
    diag = 1.0 - 2.0 * e * lam + e ** 2 * (1.0 + 1.0 / B) * lam ** 2
    a = 1.0 - e * lam
    for _ in range(n_steps):
        mn = m * diag + (e ** 2 * ((m @ lam)[:, None] + noise ** 2) / B) * lam
        p = (1 - gamma) ** 2 * p + 2 * gamma * (1 - gamma) * a * q + gamma ** 2 * mn
        q = (1 - gamma) * a * q + gamma * mn
        m = mn
    return p @ lam
