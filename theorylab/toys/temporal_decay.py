"""D2PO -- Shao et al., "Earlier Tokens Contribute More: Learning Direct Preference Optimization From Temporal
Decay Perspective" (ICLR 2025, arXiv:2502.14340; code github.com/LotuSrc/D2PO) -- as a TOY PROXY.

The loss (paper Sec. 3; the weighting as restated from the authors' ``get_batch_logps`` by a third-party
re-implementation note): the sequence log-likelihood is replaced by a gamma-discounted sum over response tokens,

    log pi^gamma(y | x) = sum_t w_t log pi(y_t | y_<t, x),   w_t = gamma^{c_t} m_t,

with m_t the response mask and c_t the number of response tokens up to and including t (first response token:
gamma^1), and

    L_D2PO = -E log sigma( beta [ (log pi^gamma_theta(y_w) - log pi^gamma_ref(y_w))
                                  - (log pi^gamma_theta(y_l) - log pi^gamma_ref(y_l)) ] );

gamma = 1 is DPO (Rafailov et al. 2023).  Default gamma = 0.98, beta = 0.1.

The toy [derived, ours]: vocabulary V, horizon T, a tabular policy with position-dependent logits theta[t, v]
(pi(y) = prod_t softmax(theta_t)[y_t]), the uniform reference, a true reward r(y) = sum_t c_t u(y_t) with
u ~ N(0, 1) per token and a profile c (front-loaded: c_t = 1 on the first ``head`` positions and ``tail_weight``
after; back-loaded: the mirror image), pairs drawn from the reference and labelled by Bradley--Terry,
P(y_1 > y_2) = sigma(r(y_1) - r(y_2)).  For this policy the log-normalisers of position t cancel between y_w and
y_l, so the margin is z = beta sum_t gamma^t (theta_t[y_w,t] - theta_t[y_l,t]): a logistic regression in
phi_t = beta gamma^t theta_t whose data do not depend on gamma.  Hence at the minimiser beta gamma^t theta_t does
not depend on gamma (D2PO = DPO with a per-position temperature beta gamma^t), while a fixed number of
gradient steps does depend on gamma (position t moves at rate (beta gamma^t)^2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.core import (SimulationDiverged, as_generator, check_array, check_budget, check_choice, check_int,
                            check_positive, check_real, check_size)
from theorylab.core import interrupt
from theorylab.core.seeding import child_seed

__all__ = ["PreferenceTask", "token_weights", "d2po_loss", "dpo_loss", "reward_profile", "preference_task",
           "true_reward", "kl_to_reference", "tabular_loss_grad", "train_gd", "train_to_convergence"]

PROFILES = ("front", "back")
MAX_VOCAB = 1000
MAX_WORK = 10**10       # design entries x steps of full-batch GD (two dense products per step, ~1e9 per s
                        # measured on one BLAS thread: about 10 s)
MAX_DESIGN = 10**7      # entries of the dense design matrix (80 MB)


def _gamma(gamma) -> float:
    return check_real("gamma", gamma, low=0.0, high=1.0, low_open=True)


def token_weights(mask, gamma: float = 0.98) -> np.ndarray:
    """w_t = gamma^{c_t} m_t for a 0/1 response ``mask`` of shape (n, L): c_t counts the response tokens up to and
    including t, so the first response token gets gamma^1 and prompt/padding tokens get 0."""
    return _weights(_mask("mask", check_array("mask", mask, ndim=2)), _gamma(gamma))


def _mask(name, m):
    if not np.all((m == 0) | (m == 1)):
        raise ValueError(f"{name} must hold only 0 and 1 (response tokens are 1)")
    return m


def _weights(m, gamma):
    return gamma ** np.cumsum(m, axis=1) * m


def _pair_arrays(**arrays):
    out, shape = {}, None
    for name, a in arrays.items():
        out[name] = check_array(name, a, ndim=2)
        shape = out[name].shape if shape is None else shape
        if out[name].shape != shape or 0 in shape:
            raise ValueError(f"{name} must have the non-empty shape (n, L) = {shape} shared by all token arrays; "
                             f"got {out[name].shape}")
    return out


def _neg_log_sigmoid(z):
    return np.logaddexp(0.0, -z)


def d2po_loss(logp_chosen, logp_rejected, ref_chosen, ref_rejected, mask_chosen, mask_rejected, *,
              gamma: float = 0.98, beta: float = 0.1) -> float:
    """The D2PO loss (mean over pairs) from token-level log-probabilities of shape (n, L) of the policy and the
    reference on the chosen and rejected sequences, with 0/1 response masks."""
    gamma, beta = _gamma(gamma), check_positive("beta", beta)
    a = _pair_arrays(logp_chosen=logp_chosen, logp_rejected=logp_rejected, ref_chosen=ref_chosen,
                     ref_rejected=ref_rejected, mask_chosen=mask_chosen, mask_rejected=mask_rejected)
    wc = _weights(_mask("mask_chosen", a["mask_chosen"]), gamma)
    wr = _weights(_mask("mask_rejected", a["mask_rejected"]), gamma)
    z = beta * ((wc * (a["logp_chosen"] - a["ref_chosen"])).sum(1) - (wr * (a["logp_rejected"] - a["ref_rejected"])).sum(1))
    return float(_neg_log_sigmoid(z).mean())


def dpo_loss(logp_chosen, logp_rejected, ref_chosen, ref_rejected, mask_chosen, mask_rejected, *,
             beta: float = 0.1) -> float:
    """Standard DPO (mean over pairs): sequence log-likelihoods are plain masked sums of token log-probabilities."""
    beta = check_positive("beta", beta)
    a = _pair_arrays(logp_chosen=logp_chosen, logp_rejected=logp_rejected, ref_chosen=ref_chosen,
                     ref_rejected=ref_rejected, mask_chosen=mask_chosen, mask_rejected=mask_rejected)
    for name in ("mask_chosen", "mask_rejected"):
        _mask(name, a[name])
    seq = {k: (a["mask_" + k.split("_")[-1]] * a[k]).sum(1)
           for k in ("logp_chosen", "logp_rejected", "ref_chosen", "ref_rejected")}
    z = beta * ((seq["logp_chosen"] - seq["ref_chosen"]) - (seq["logp_rejected"] - seq["ref_rejected"]))
    return float(_neg_log_sigmoid(z).mean())


def reward_profile(horizon: int = 20, profile: str = "front", *, head: int = 5, tail_weight: float = 0.1) -> np.ndarray:
    """Per-position reward weights c_t: 1 on the first ``head`` positions and ``tail_weight`` after ("front"), or
    1 on the last ``head`` positions and ``tail_weight`` before ("back")."""
    T = check_size("horizon", horizon, budget=10**4)
    profile = check_choice("profile", profile, PROFILES)
    head = check_int("head", head, low=1, high=T)
    c = np.full(T, check_real("tail_weight", tail_weight, low=0.0, high=1.0))
    c[:head] = 1.0
    return c if profile == "front" else c[::-1].copy()


@dataclass(frozen=True)
class PreferenceTask:
    """A tabular token-level preference data set: per-token utility u (V,), per-position reward weights c (T,),
    chosen and rejected sequences (n, T) of token ids in [0, V)."""

    utility: np.ndarray
    weights: np.ndarray
    chosen: np.ndarray
    rejected: np.ndarray

    def __post_init__(self):
        u = check_array("utility", self.utility, ndim=1)
        c = check_array("weights", self.weights, ndim=1)
        if not 2 <= u.size <= MAX_VOCAB:
            raise ValueError(f"utility must have a size (the vocabulary) in [2, {MAX_VOCAB}]; got {u.size}")
        for name in ("chosen", "rejected"):
            y = check_array(name, getattr(self, name), ndim=2)
            if y.shape[1] != c.size or y.shape[0] < 1:
                raise ValueError(f"{name} must have shape (n >= 1, T) with T = {c.size} the size of weights; got "
                                 f"{y.shape}")
            if not np.all((y == np.round(y)) & (y >= 0) & (y < u.size)):
                raise ValueError(f"{name} must hold integer token ids in [0, {u.size})")
            object.__setattr__(self, name, y.astype(np.int64))
        if self.chosen.shape != self.rejected.shape:
            raise ValueError(f"chosen and rejected must have the same shape; got {self.chosen.shape} and "
                             f"{self.rejected.shape}")
        object.__setattr__(self, "utility", u)
        object.__setattr__(self, "weights", c)

    @property
    def vocab(self) -> int:
        return self.utility.size

    @property
    def horizon(self) -> int:
        return self.weights.size

    @property
    def n_pairs(self) -> int:
        return self.chosen.shape[0]


def preference_task(vocab: int = 8, horizon: int = 20, n_pairs: int = 2000, *, profile: str = "front",
                    head: int = 5, tail_weight: float = 0.1, seed=0) -> PreferenceTask:
    """Draw u ~ N(0, 1)^V, n pairs of sequences from the uniform reference and Bradley--Terry labels
    P(y_1 preferred) = sigma(r(y_1) - r(y_2)), r(y) = sum_t c_t u(y_t) (independent child streams)."""
    V = check_int("vocab", vocab, low=2, high=MAX_VOCAB)
    c = reward_profile(horizon, profile, head=head, tail_weight=tail_weight)
    n = check_size("n_pairs", n_pairs)
    check_budget("the pair arrays", 2 * n * c.size, n_pairs=n, horizon=c.size)
    u = as_generator(child_seed(seed, "utility")).standard_normal(V)
    rng = as_generator(child_seed(seed, "pairs"))
    y1, y2 = rng.integers(0, V, (n, c.size)), rng.integers(0, V, (n, c.size))
    d = (c * u[y1]).sum(1) - (c * u[y2]).sum(1)
    first = as_generator(child_seed(seed, "labels")).random(n) < 1.0 / (1.0 + np.exp(-d))
    return PreferenceTask(u, c, np.where(first[:, None], y1, y2), np.where(first[:, None], y2, y1))


def _theta(task: PreferenceTask, theta) -> np.ndarray:
    if not isinstance(task, PreferenceTask):
        raise TypeError(f"task must be a PreferenceTask; got {type(task).__name__}")
    return check_array("theta", theta, shape=(task.horizon, task.vocab))


def _log_softmax(theta):
    s = theta - theta.max(axis=1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=1, keepdims=True))


def _reward_kl(task, theta):
    logp = _log_softmax(theta)
    p = np.exp(logp)
    return (float((task.weights[:, None] * p * task.utility[None, :]).sum()),
            float(max((p * (logp + np.log(theta.shape[1]))).sum(), 0.0)))


def true_reward(task: PreferenceTask, theta) -> float:
    """E_{y ~ pi_theta} r(y) = sum_t c_t sum_v softmax(theta_t)_v u_v (exact)."""
    return _reward_kl(task, _theta(task, theta))[0]


def kl_to_reference(theta) -> float:
    """KL(pi_theta || uniform) = sum_t sum_v p_tv log(V p_tv) for position-wise logits theta (T, V)."""
    th = check_array("theta", theta, ndim=2)
    if th.shape[0] < 1 or th.shape[1] < 2:
        raise ValueError(f"theta must have shape (T >= 1, V >= 2); got {th.shape}")
    logp = _log_softmax(th)
    return float(max((np.exp(logp) * (logp + np.log(th.shape[1]))).sum(), 0.0))


def _margin_parts(task, gamma, beta):
    """Flat indices t V + y of the chosen/rejected tokens and the per-token factor beta gamma^t (t = 1..T)."""
    t = np.arange(task.horizon)
    return t * task.vocab + task.chosen, t * task.vocab + task.rejected, beta * gamma ** (t + 1.0)


def tabular_loss_grad(task: PreferenceTask, theta, *, gamma: float = 0.98, beta: float = 0.1):
    """(L_D2PO, dL/dtheta) of the tabular policy against the uniform reference, exactly: with
    z_n = beta sum_t gamma^t (theta_t[y_w] - theta_t[y_l]), dL/dtheta_t[v] = -(1/n) sum_n sigma(-z_n) beta gamma^t
    ([y_w,t = v] - [y_l,t = v])."""
    th = _theta(task, theta)
    gamma, beta = _gamma(gamma), check_positive("beta", beta)
    iw, il, a = _margin_parts(task, gamma, beta)
    flat = th.ravel()
    z = (a * (flat[iw] - flat[il])).sum(1)
    s = 0.5 * (1.0 - np.tanh(0.5 * z))                 # sigma(-z), stable
    coef = s[:, None] * a[None, :] / task.n_pairs
    size = th.size
    g = np.bincount(il.ravel(), coef.ravel(), size) - np.bincount(iw.ravel(), coef.ravel(), size)
    return float(_neg_log_sigmoid(z).mean()), g.reshape(th.shape)


def train_gd(task: PreferenceTask, *, gamma: float = 0.98, beta: float = 0.1, step: float = 30.0,
             n_steps: int = 300) -> dict:
    """Full-batch gradient descent on L_D2PO from the reference (theta = 0) with exact gradients.  Returns theta
    after ``n_steps`` and the true reward and KL to the reference after every step (index 0 = start)."""
    if not isinstance(task, PreferenceTask):
        raise TypeError(f"task must be a PreferenceTask; got {type(task).__name__}")
    gamma, beta, step = _gamma(gamma), check_positive("beta", beta), check_positive("step", step)
    K = check_size("n_steps", n_steps)
    check_budget("the gradient work", K * task.n_pairs * task.horizon * task.vocab, max_elements=MAX_WORK,
                 n_steps=K, n_pairs=task.n_pairs)
    check_budget("the design matrix", task.n_pairs * task.horizon * task.vocab, max_elements=MAX_DESIGN,
                 n_pairs=task.n_pairs, horizon=task.horizon, vocab=task.vocab)
    X = _design(task, gamma, beta)
    th = np.zeros(X.shape[1])
    reward, kl, loss = np.empty(K + 1), np.empty(K + 1), np.empty(K + 1)
    for sl in interrupt.chunks(K + 1, 4 * X.size, desc="D2PO gradient descent", at_least=1):
        for k in range(sl.start, sl.stop):
            z = X @ th
            loss[k] = _neg_log_sigmoid(z).mean()
            reward[k], kl[k] = _reward_kl(task, th.reshape(task.horizon, task.vocab))
            if k < K:
                th = th + step * (X.T @ (0.5 * (1.0 - np.tanh(0.5 * z)))) / task.n_pairs
    th = th.reshape(task.horizon, task.vocab)
    if not np.all(np.isfinite(th)):
        raise SimulationDiverged(f"train_gd: theta not finite after {K} steps (step = {step}, gamma = {gamma})")
    return {"theta": th, "reward": reward, "kl": kl, "loss": loss}


def _design(task, gamma, beta):
    """Rows x_n = dz_n/dtheta (flattened), so z = X theta."""
    iw, il, a = _margin_parts(task, gamma, beta)
    X = np.zeros((task.n_pairs, task.horizon * task.vocab))
    rows = np.repeat(np.arange(task.n_pairs), task.horizon)
    np.add.at(X, (rows, iw.ravel()), np.tile(a, task.n_pairs))
    np.add.at(X, (rows, il.ravel()), -np.tile(a, task.n_pairs))
    return X


def train_to_convergence(task: PreferenceTask, *, gamma: float = 0.98, beta: float = 0.1, tol: float = 1e-12,
                         max_iter: int = 100) -> np.ndarray:
    """The minimiser of L_D2PO in theta (each theta_t centred: softmax is invariant to a constant per position),
    by damped Newton steps in theta from 0 until the Newton step is below ``tol`` relative to |theta|.  Raises
    SimulationDiverged when the data are separable (no minimiser) or it does not converge."""
    if not isinstance(task, PreferenceTask):
        raise TypeError(f"task must be a PreferenceTask; got {type(task).__name__}")
    gamma, beta = _gamma(gamma), check_positive("beta", beta)
    tol = check_real("tol", tol, low=0.0, high=1e-3, low_open=True)
    max_iter = check_int("max_iter", max_iter, low=1, high=1000)
    check_budget("the Newton design matrix", task.n_pairs * task.horizon * task.vocab, max_elements=MAX_DESIGN,
                 n_pairs=task.n_pairs, horizon=task.horizon, vocab=task.vocab)
    X = _design(task, gamma, beta)
    th = np.zeros(X.shape[1])
    f = lambda v: float(_neg_log_sigmoid(X @ v).mean())
    for _ in range(max_iter):
        z = X @ th
        s = 0.5 * (1.0 - np.tanh(0.5 * z))
        g = -(X.T @ s) / task.n_pairs
        H = (X.T * (s * (1.0 - s))) @ X / task.n_pairs
        d = np.linalg.lstsq(H, -g, rcond=None)[0]
        t, f0 = 1.0, f(th)
        while f(th + t * d) > f0 + 1e-4 * t * (g @ d) and t > 1e-10:
            t *= 0.5
        th = th + t * d
        if np.abs(t * d).max() <= tol * max(1.0, np.abs(th).max()):
            out = th.reshape(task.horizon, task.vocab)
            return out - out.mean(axis=1, keepdims=True)
        if not np.all(np.isfinite(th)) or np.abs(th).max() > 1e12:
            break
    raise SimulationDiverged(f"train_to_convergence: no convergence in {max_iter} Newton steps (gamma = {gamma}; "
                             "separable data have no minimiser)")
