"""Closed forms from (or derived from) Compagnoni et al., ICLR 2025, arXiv 2411.15958.

Provenance (the paper's full text could not be read here; the public OpenReview reviews
were): the structure (Thm 3.2 SignSGD SDE,
Cor. 3.3 Gaussian/erf, Lemma 3.4 phases with threshold 3/2, Lemma 3.7 stationary
distribution, Lemma 3.13 scaling rules) is confirmed by the public reviews; the explicit
constants below are the brief's *derived* forms, treated as hypotheses that the checks in
``validations/adaptive_sde/`` test against simulation.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from theorylab.core import check_array, check_choice, check_positive, check_real

SQRT_2_OVER_PI = np.sqrt(2.0 / np.pi)


def _pos_array(name, x):
    a = np.atleast_1d(check_array(name, x))  # refuses strings (never converted)
    if not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise ValueError(f"{name} must be positive and finite; got {a.tolist()[:5]}")
    return a


def t_density_at_zero(nu):
    """``c_nu = Gamma((nu+1)/2) / (sqrt(nu pi) Gamma(nu/2))``, the Student-t density at 0."""
    nu = check_positive("nu", nu)
    return float(np.exp(special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2)) / np.sqrt(nu * np.pi))


def signsgd_stationary_loss(sigma, *, eta, noise="gaussian", nu=None):
    """Stationary ``E f`` of SignSGD on ``f = x^T H x / 2`` (phase 3, Lemma 3.7 setting).

    ``X_inf ~ N(0, eta / (4 c) Sigma^(1/2) H^-1)`` with ``c`` the noise density at 0, so
    ``E f = eta / (8 c) sum_i sigma_i``: ``(eta / 4) sqrt(pi / 2) sum sigma_i`` for Gaussian
    noise (c = 1 / sqrt(2 pi)), ``eta sum sigma_i / (8 c_nu)`` for Student-t(nu).
    Independent of H.  [DERIVED in the brief]
    """
    eta = check_positive("eta", eta)
    s = _pos_array("sigma", sigma)
    noise = check_choice("noise", noise, ("gaussian", "student_t"))
    if nu is not None:  # checked even when Gaussian noise ignores it
        check_positive("nu", nu)
    c = 1 / np.sqrt(2 * np.pi) if noise == "gaussian" else t_density_at_zero(nu)
    return float(eta * s.sum() / (8 * c))


def sgd_stationary_loss(sigma, *, eta, noise="gaussian", nu=None):
    """Stationary ``E f = (eta / 4) sum_i Var(Z_i)`` of the SGD SDE on a quadratic.

    ``inf`` for Student-t with ``nu <= 2`` (infinite variance).  [DERIVED in the brief; equals
    tr(H Cov) / 2 with Lemma 3.8's Cov = (eta/2) H^-1 Sigma as quoted by a third-party reading]
    """
    eta = check_positive("eta", eta)
    s = _pos_array("sigma", sigma)
    noise = check_choice("noise", noise, ("gaussian", "student_t"))
    if nu is not None:  # checked even when Gaussian noise ignores it
        check_positive("nu", nu)
    if noise == "gaussian":
        var = s ** 2
    else:
        nu = check_positive("nu", nu)
        if nu <= 2:
            return float("inf")
        var = s ** 2 * nu / (nu - 2)
    return float(eta * var.sum() / 4)


def adaptive_stationary_loss(h, sigma, *, eta, theta=0.0, batch=1.0):
    """Asymptotic ``E f`` of RMSpropW / AdamW on ``f = sum h_i x_i^2 / 2``:
    ``(eta / 4) sum_i h_i sigma_i / (sqrt(B) h_i + theta sigma_i)``.

    With ``theta = 0`` it is ``eta sum sigma_i / (4 sqrt B)`` (linear in sigma); with
    ``theta > 0`` it saturates at ``eta sum h_i / (4 theta)`` as sigma -> inf (decoupled
    weight decay stabilises at high noise).  [DERIVED in the brief; for B = 1 it equals
    tr(H Cov) / 2 with the AdamW stationary covariance (eta/2)(H Sigma^(-1/2) + theta I)^-1 of
    Lemma C.57 (Lemma C.52 for theta = 0), as quoted by a third-party full-text reading]
    """
    eta = check_positive("eta", eta)
    theta = check_real("theta", theta, low=0)
    batch = check_positive("batch", batch)
    h = _pos_array("h", h)
    s = np.broadcast_to(_pos_array("sigma", sigma), h.shape)
    return float(eta / 4 * np.sum(h * s / (np.sqrt(batch) * h + theta * s)))


def signsgd_phase1_loss(f0, mu, t):
    """Phase-1 law ``(sqrt(f0) - sqrt(mu / 2) t)^2`` (SignGD ODE, Lemma 3.4, |Y| > 3/2);
    an equality for a 1-D quadratic, an upper bound for mu-PL f.  Valid while
    ``sqrt(f0) > sqrt(mu / 2) t``.  [DERIVED in the brief]"""
    f0 = check_real("f0", f0, low=0)
    mu = check_positive("mu", mu)
    shape = np.shape(t) if not isinstance(t, str) else None
    t = check_array("t", t)
    t = t.reshape(shape) if shape is not None else t
    if np.any(t < 0):
        raise ValueError(f"t must be non-negative times; got minimum {t.min():.3g}")
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.maximum(np.sqrt(f0) - np.sqrt(mu / 2) * t, 0.0) ** 2
    if not np.all(np.isfinite(out)):
        raise ValueError(f"signsgd_phase1_loss overflows for f0={f0!r}, mu={mu!r}, t up to {t.max():.3g}")
    return out


def signsgd_phase3_rate(h, sigma):
    """Phase-3 linearised rate ``a = h sqrt(2/pi) / sigma`` of ``x`` (so ``E x^2`` relaxes
    at ``2a``); inversely proportional to sigma, unlike SGD's rate h.  [RECALLED in the brief]"""
    return float(check_positive("h", h) * SQRT_2_OVER_PI / check_positive("sigma", sigma))


def phase_of(y):
    """Lemma 3.4 phase of a signal-to-noise value ``|Y|``: 1 if > 3/2, 2 if in (1, 3/2], else 3."""
    shape = np.shape(y) if not isinstance(y, str) else None
    a = np.abs(check_array("y", y if not isinstance(y, str) else [y], finite=False))
    a = a.reshape(shape) if shape is not None else a
    if np.any(np.isnan(a)):
        raise ValueError("y must not contain NaN (|Y| = inf is phase 1)")
    return np.where(a > 1.5, 1, np.where(a > 1.0, 2, 3))


def scale_hyperparameters(kappa, *, eta, theta=0.0, beta1=0.9, beta2=0.999, eps=1e-8, batch=1.0):
    """AdamW/RMSpropW batch-size scaling rule for ``B -> kappa B`` (Lemma 3.13 form per the brief):
    ``eta -> sqrt(kappa) eta``, ``theta -> sqrt(kappa) theta``, ``1 - beta_i -> kappa (1 - beta_i)``,
    ``eps -> eps / sqrt(kappa)``.  Returns the new keyword arguments.  [DERIVED in the brief]"""
    kappa = check_positive("kappa", kappa)
    eta = check_positive("eta", eta)
    theta = check_real("theta", theta, low=0)
    beta1 = check_real("beta1", beta1, low=0, high=1, high_open=True)
    beta2 = check_real("beta2", beta2, low=0, high=1, high_open=True)
    eps = check_real("eps", eps, low=0)
    batch = check_positive("batch", batch)
    b1 = 1 - kappa * (1 - beta1)
    b2 = 1 - kappa * (1 - beta2)
    if b1 < 0 or b2 < 0:
        raise ValueError(f"kappa={kappa} makes 1 - kappa (1 - beta) negative (beta1={beta1}, beta2={beta2}); "
                         "the scaling rule needs kappa (1 - beta_i) <= 1")
    return dict(eta=np.sqrt(kappa) * eta, theta=np.sqrt(kappa) * theta, beta1=b1, beta2=b2,
                eps=eps / np.sqrt(kappa), batch=kappa * batch)
