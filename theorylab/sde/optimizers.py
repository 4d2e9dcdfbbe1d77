"""Discrete optimizers and their SDEs on quadratics with injected gradient noise.

Setting of Compagnoni, Liu, Islamov, Proske, Orvieto, Lucchi, "Adaptive Methods through the
Lens of SDEs", ICLR 2025 (arXiv 2411.15958): the stochastic gradient is
``grad f(x) + Z`` with ``Z = s * xi``, ``s = sigma / sqrt(batch)`` per coordinate, and ``xi``
i.i.d. standard Gaussian or Student-t(nu) (nu = 1 is Cauchy).  The objective is
``f(x) = x^T H x / 2`` with a symmetric positive definite ``H`` (diagonal or not).

Optimizers (``optimizer=``): ``"sgd"``, ``"signsgd"``, ``"rmspropw"`` (no bias correction,
second moment started at ``v0``), ``"adamw"`` (m = v = 0 with bias corrections).  Weight
decay ``theta`` is decoupled: ``x <- x - eta (u + theta x)``.

SDEs (time ``t = k eta``; see :mod:`theorylab.sde._kernels` for the equations):
SignSGD Thm 3.2 with S(y) = 1 - 2 P(y + xi < 0) (erf for Gaussian noise, Cor. 3.3; the
Student-t CDF otherwise); SGD ``dX = -grad f dt + sqrt(eta) Sigma^(1/2) dW``; RMSpropW and
AdamW with ``rho_i = (1 - beta_i) / eta`` and bias corrections ``1 - exp(-rho_i t)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import special, stats

from theorylab.core import (SimulationDiverged, check_array, check_choice, check_int, check_positive, check_real,
                            spawn_seeds)
from theorylab.core.seeding import as_generator
from theorylab.core.validate import require_finite
from theorylab.core.validate import check_record

from . import _kernels as K
from .engine import BOUND_FACTOR, check_budget, raise_if_diverged

OPTIMIZERS = ("sgd", "signsgd", "rmspropw", "adamw")
NOISES = ("gaussian", "student_t")
_OPT_CODE = {"sgd": K.OPT_SGD, "signsgd": K.OPT_SIGNSGD, "rmspropw": K.OPT_RMSPROPW, "adamw": K.OPT_ADAMW}
_SDE_CODE = {"sgd": K.SGD, "signsgd": K.SIGNSGD, "rmspropw": K.RMSPROPW, "adamw": K.ADAMW}
_TABLE_SIZE = 8193
_TABLES: dict = {}
#: Smallest Student-t degrees of freedom: for nu >= 1/4 the kernel's chi-square draw
#: 2 Gamma(nu/2) >= (2^-53)^(2/nu) stays above the double range's underflow (1e-308), so a
#: draw is always finite (|t| < 1e70).
NU_MIN = 0.25


def _eigenvalues(h):
    h = check_array("h", np.atleast_1d(check_array("h", h)), ndim=1)
    if h.size == 0 or np.any(h <= 0) or h.size > 10**4:
        raise ValueError(f"h must hold between 1 and 10**4 positive eigenvalues; got {h.size} values"
                         + (f", min {h.min():.3g}" if h.size else ""))
    return h


@dataclass(frozen=True)
class Quadratic:
    """``f(x) = x^T H x / 2`` with symmetric positive definite ``H`` (minimum 0 at x = 0)."""

    H: np.ndarray

    def __post_init__(self):
        H = check_array("H", self.H, ndim=2)
        if H.shape[0] != H.shape[1] or H.shape[0] < 1:
            raise ValueError(f"H must be a square (d, d) matrix; got shape {H.shape}")
        if not np.allclose(H, H.T, atol=1e-12 * max(1.0, np.abs(H).max())):
            raise ValueError("H must be symmetric")
        ev = np.linalg.eigvalsh(H)
        if ev.min() <= 0:
            raise ValueError(f"H must be positive definite; got smallest eigenvalue {ev.min():.3g}")
        object.__setattr__(self, "H", H)

    @classmethod
    def diagonal(cls, h):
        """Diagonal Hessian ``diag(h)``."""
        return cls(np.diag(_eigenvalues(h)))

    @classmethod
    def rotated(cls, h, *, seed=0):
        """Non-diagonal Hessian ``Q diag(h) Q^T`` with a random orthogonal ``Q``."""
        h = _eigenvalues(h)
        q, r = np.linalg.qr(as_generator(seed).standard_normal((h.size, h.size)))
        q = q * np.sign(np.diag(r))
        H = (q * h) @ q.T
        return cls(0.5 * (H + H.T))

    @property
    def d(self) -> int:
        return self.H.shape[0]

    @property
    def kernel_H(self) -> np.ndarray:
        """``H`` as the kernels take it: its diagonal, shape (1, d), if ``H`` is diagonal
        (O(d) gradient instead of O(d^2)), else the dense (d, d) matrix.  Always a fresh writable
        C-contiguous copy: a read-only array (``np.diag``'s view when d = 1) is another numba type, and
        each kernel would compile a second time for it (~4 s cold)."""
        if np.count_nonzero(self.H - np.diag(np.diag(self.H))) == 0:
            return np.array(np.diag(self.H)[None, :], dtype=float, order="C")
        return np.array(self.H, dtype=float, order="C")

    @property
    def mu(self) -> float:
        """Smallest eigenvalue (strong convexity / PL constant)."""
        return float(np.linalg.eigvalsh(self.H)[0])

    @property
    def L(self) -> float:
        return float(np.linalg.eigvalsh(self.H)[-1])

    def _point(self, x):
        x = check_array("x", x)
        if x.ndim == 0 or x.shape[-1] != self.d:
            raise ValueError(f"x must have shape (..., d) with d = {self.d}; got shape {x.shape}")
        return x

    def loss(self, x):
        x = self._point(x)
        return 0.5 * np.einsum("...i,ij,...j->...", x, self.H, x)

    def grad(self, x):
        return self._point(x) @ self.H


@dataclass
class Run:
    """Loss trajectories of ``n_paths`` paths recorded at times ``t`` (= step * eta)."""

    t: np.ndarray
    step: np.ndarray
    loss: np.ndarray
    info: dict = field(default_factory=dict)

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)

    def mean(self):
        """Mean loss over paths at each recorded time."""
        return self.loss.mean(axis=0)

    def se(self):
        return self.loss.std(axis=0, ddof=1) / np.sqrt(self.loss.shape[0])

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame({"t": self.t, "step": self.step, "mean_loss": self.mean(), "se": self.se()})


def sign_mean(y, *, noise="gaussian", nu=None):
    """``S(y) = E sign(y + xi) = 1 - 2 P(xi < -y)`` for standard noise ``xi`` (Thm 3.2 drift).

    Gaussian: ``erf(y / sqrt 2)`` (Cor. 3.3); Student-t(nu): ``2 F_nu(y) - 1``.
    """
    noise = check_choice("noise", noise, NOISES)
    y = check_array("y", y, finite=False).reshape(np.shape(y))  # +-inf allowed (S = +-1); strings refused
    if np.any(np.isnan(y)):
        raise ValueError("y must not contain NaN")
    if nu is not None:  # checked even when Gaussian noise ignores it
        nu = check_positive("nu", nu)
    if noise == "gaussian":
        return special.erf(y / np.sqrt(2.0))
    nu = check_positive("nu", nu)
    return 2.0 * stats.t.cdf(y, nu) - 1.0


def sign_mean_table(noise, nu=None, n=_TABLE_SIZE):
    """The kernel's lookup table of ``S(tan u)`` on a uniform grid of ``u`` in [-pi/2, pi/2]."""
    noise = check_choice("noise", noise, NOISES)
    if noise == "student_t":
        if nu is None:
            raise ValueError("nu must be given for noise='student_t' (degrees of freedom >= 0.25); got None")
        nu = check_real("nu", nu, low=NU_MIN)
    elif nu is not None:  # ignored by Gaussian noise, but checked
        check_real("nu", nu, low=NU_MIN)
    n = check_int("n", n, low=3, high=10 ** 7)
    key = (noise, None if nu is None else float(nu), n)
    if key not in _TABLES:
        u = np.linspace(-np.pi / 2, np.pi / 2, n)
        y = np.tan(u)
        y[0], y[-1] = -np.inf, np.inf
        _TABLES[key] = np.ascontiguousarray(sign_mean(y, noise=noise, nu=nu))
    return _TABLES[key]


def _check_common(optimizer, quadratic, x0, eta, sigma, noise, nu, batch, beta1, beta2, eps, theta):
    optimizer = check_choice("optimizer", optimizer, OPTIMIZERS)
    if not isinstance(quadratic, Quadratic):
        raise TypeError(f"quadratic must be a theorylab.sde.Quadratic; got {type(quadratic).__name__}")
    d = quadratic.d
    scalar_x0 = np.ndim(x0) == 0
    x0 = check_array("x0", x0)  # refuses "0.5" (never converted); a scalar comes back as shape (1,)
    x0 = check_array("x0", np.full(d, x0[0]) if scalar_x0 else x0, shape=(d,))
    eta = check_positive("eta", eta)
    scalar_sigma = np.ndim(sigma) == 0
    sig = check_array("sigma", sigma)
    if scalar_sigma:
        sig = np.full(d, check_positive("sigma", float(sig[0])))
    sig = check_array("sigma", sig, shape=(d,))
    if np.any(sig <= 0):
        raise ValueError(f"sigma must be positive in every coordinate; got minimum {sig.min():.3g}")
    noise = check_choice("noise", noise, NOISES)
    if noise == "student_t" and nu is None:
        raise ValueError("nu must be given for noise='student_t' (degrees of freedom > 0); got None")
    if nu is not None:  # checked even when Gaussian noise ignores it: a bad nu is an error in any mode
        nu = check_real("nu", nu, low=NU_MIN)
    if noise != "student_t":
        nu = 1.0
    batch = check_real("batch", batch, low=0, low_open=True)
    beta1 = check_real("beta1", beta1, low=0, high=1, high_open=True)
    beta2 = check_real("beta2", beta2, low=0, high=1, high_open=True)
    # eps > 0 for the adaptive methods: with eps = 0 a zero second moment gives 0/0
    eps = check_real("eps", eps, low=0, low_open=optimizer in ("rmspropw", "adamw"))
    theta = check_real("theta", theta, low=0)
    s = np.ascontiguousarray(sig / np.sqrt(batch))
    return optimizer, d, np.ascontiguousarray(x0), eta, s, noise, float(nu), beta1, beta2, eps, theta


def _v0(v0, quadratic, x0, s, noise, nu):
    """Default RMSpropW second moment: E g^2 at x0 (Gaussian-equivalent variance for t noise)."""
    if v0 is None:
        var = s ** 2 * (nu / (nu - 2) if noise == "student_t" and nu > 2 else 1.0)
        return np.ascontiguousarray(quadratic.grad(x0) ** 2 + var)
    scalar = np.ndim(v0) == 0
    v0 = check_array("v0", v0)  # refuses strings (never converted)
    v0 = np.full(quadratic.d, float(v0[0])) if scalar else v0
    v0 = check_array("v0", v0, shape=(quadratic.d,))
    if np.any(v0 < 0):
        raise ValueError(f"v0 must be non-negative; got minimum {v0.min():.3g}")
    return np.ascontiguousarray(v0)


def check_stable(optimizer, quadratic, *, step, theta, what):
    """Raise :class:`SimulationDiverged` before simulating if ``step`` is outside the stability
    range of the deterministic part: the SGD recursion (and Euler–Maruyama of its SDE) contracts
    iff ``step (L + theta) < 2`` (L the largest eigenvalue of H); the adaptive methods' weight-decay
    term ``x (1 - step theta)`` iff ``step theta < 2`` (their other step is bounded)."""
    if optimizer == "signsgd":          # |x_{k+1} - x_k| = eta: SignSGD cannot diverge
        return
    L = quadratic.L
    rate = step * (L + theta) if optimizer == "sgd" else step * theta
    if rate >= 2.0:
        need = f"step * (L + theta) = {step:g} * ({L:g} + {theta:g})" if optimizer == "sgd" else \
            f"step * theta = {step:g} * {theta:g}"
        raise SimulationDiverged(f"{what} diverges: {need} = {rate:.4g} >= 2, outside the stability range "
                                 f"(|1 - step lambda| < 1 for every eigenvalue); choose step < "
                                 f"{2 / (L + theta if optimizer == 'sgd' else theta):.4g}")


def state_bound(optimizer, quadratic, x0, *, eta, s, noise, nu, beta2, n_draws):
    """The |x_i| beyond which a path counts as diverged: ``BOUND_FACTOR`` (1e6) times the run's
    own scale, the largest of |x0|, the stationary spread ``s_max sqrt(eta / mu)`` of SGD (mu the
    smallest eigenvalue), the step of SignSGD (eta) and of RMSpropW/AdamW
    (eta / sqrt(1 - beta2) bounds |g| / sqrt(v)); for Student-t noise times ``n_draws^(1/nu)``,
    the growth of the largest of ``n_draws`` heavy-tailed draws (so a heavy-tailed but stable run
    is never flagged)."""
    step = eta / np.sqrt(1.0 - beta2) if optimizer in ("rmspropw", "adamw") else eta
    scale = max(float(np.abs(x0).max()), float(np.max(s)) * np.sqrt(eta / quadratic.mu), step)
    if noise == "student_t":
        scale *= float(n_draws) ** (1.0 / nu) if np.log10(max(n_draws, 2)) / nu < 250 else 1e250
    return float(min(BOUND_FACTOR * scale, 1e300))


def run_optimizer(optimizer, quadratic, x0, *, eta, sigma, n_steps, n_paths=1000, noise="gaussian", nu=None,
                  batch=1.0, beta1=0.9, beta2=0.999, eps=1e-8, theta=0.0, v0=None, record_every=1, seed=0):
    """Run the discrete optimizer on ``quadratic`` with injected noise, ``n_paths`` paths.

    Parameters
    ----------
    optimizer : {"sgd", "signsgd", "rmspropw", "adamw"}
    quadratic : Quadratic
    x0 : float or array (d,)
        Initial point of every path.
    eta : float
        Learning rate (> 0).
    sigma : float or array (d,)
        Noise scale per coordinate (> 0); the injected noise is ``sigma / sqrt(batch) * xi``.
    noise : {"gaussian", "student_t"}; nu : float
        Distribution of ``xi``; Student-t needs ``nu > 0`` (``nu = 1``: Cauchy).
    beta1, beta2, eps, theta : float
        Adam/RMSprop moment parameters, epsilon and decoupled weight decay.
    v0 : float or array, optional
        RMSpropW's initial second moment (default ``grad f(x0)^2 + s^2``).
    n_steps, record_every, seed : int

    Returns
    -------
    Run
        ``loss`` of shape (n_paths, n_steps // record_every + 1), times ``t = step * eta``.
    """
    optimizer, d, x0, eta, s, noise, nu, beta1, beta2, eps, theta = _check_common(
        optimizer, quadratic, x0, eta, sigma, noise, nu, batch, beta1, beta2, eps, theta)
    n_steps = check_int("n_steps", n_steps, low=1)
    n_paths = check_int("n_paths", n_paths, low=1)
    record_every = check_int("record_every", record_every, low=1, high=n_steps)
    check_budget(n_paths=n_paths, n_steps=n_steps, dim=d, n_rec=n_steps // record_every + 1 + d)
    v0 = _v0(v0, quadratic, x0, s, noise, nu)
    check_stable(optimizer, quadratic, step=eta, theta=theta, what=f"{optimizer} (eta={eta:g})")
    bound = state_bound(optimizer, quadratic, x0, eta=eta, s=s, noise=noise, nu=nu, beta2=beta2,
                        n_draws=n_paths * n_steps * d)
    p = np.array([eta, beta1, beta2, eps, theta, 0.0 if noise == "gaussian" else 1.0, nu])
    loss, xf, diverged = K.opt_run(_OPT_CODE[optimizer], x0, v0, quadratic.kernel_H, s, p, n_steps, record_every,
                                   spawn_seeds(seed, n_paths), bound)
    raise_if_diverged(diverged, what=f"{optimizer} optimizer", bound=bound, eta=eta, sigma=float(np.max(s)),
                      noise=noise, nu=nu, eps=eps, theta=theta)
    require_finite(f"{optimizer} optimizer losses", loss, eta=eta, noise=noise, nu=nu, eps=eps)
    step = record_every * np.arange(loss.shape[1])
    return Run(t=step * eta, step=step, loss=loss, info=dict(optimizer=optimizer, x_final=xf, eta=eta))


def _sde_setup(optimizer, quadratic, x0, eta, s, noise, nu, beta1, beta2, eps, theta, v0):
    d = quadratic.d
    tab = np.zeros(2)
    noise_code = 0.0
    sig = s
    if optimizer == "signsgd":
        if noise == "student_t":
            tab = sign_mean_table(noise, nu)
            noise_code = 1.0
    elif noise == "student_t":
        if nu <= 2:
            raise ValueError(f"the {optimizer} SDE needs finite noise variance: nu must be > 2 for "
                             f"noise='student_t'; got nu={nu}")
        sig = s * np.sqrt(nu / (nu - 2))
    sig = np.ascontiguousarray(sig)
    p = np.array([eta, (1 - beta1) / eta, (1 - beta2) / eta, eps, theta, noise_code])
    if optimizer in ("sgd", "signsgd"):
        y0 = x0.copy()
    elif optimizer == "rmspropw":
        y0 = np.concatenate([x0, v0])
    else:
        y0 = np.concatenate([x0, np.zeros(2 * d)])
    return sig, p, tab, np.ascontiguousarray(y0)


def _sde_bound(optimizer, quadratic, x0, y0, *, eta, s, beta2):
    """:func:`state_bound` (Gaussian noise) for the whole SDE state: the moments M, V start at
    y0 and stay within 1e6 of (|H x| + sigma)^2 on a non-diverged path, so the bound also covers
    max |y0| times the factor."""
    b = state_bound(optimizer, quadratic, x0, eta=eta, s=s, noise="gaussian", nu=1.0, beta2=beta2, n_draws=1)
    scale = float(np.max(np.abs(y0))) + float(np.max(np.abs(quadratic.grad(x0)) + s)) ** 2
    return float(min(max(b, BOUND_FACTOR * scale), 1e300))


def run_sde(optimizer, quadratic, x0, *, eta, sigma, n_steps, n_sub=1, n_paths=1000, noise="gaussian", nu=None,
            batch=1.0, beta1=0.9, beta2=0.999, eps=1e-8, theta=0.0, v0=None, record_every=1, seed=0,
            return_states=False):
    """Integrate the optimizer's SDE by Euler–Maruyama with step ``dt = eta / n_sub``.

    Same arguments as :func:`run_optimizer`; ``n_steps`` counts optimizer steps (horizon
    ``t = n_steps * eta``) and ``record_every`` is in optimizer steps.  For SGD/RMSpropW/AdamW
    with Student-t noise the SDE uses the noise variance ``s^2 nu / (nu - 2)`` (needs nu > 2).

    Returns
    -------
    Run
        ``loss`` (n_paths, n_rec); with ``return_states`` the full state is in ``info["states"]``.
    """
    if not isinstance(return_states, (bool, np.bool_)):
        raise TypeError(f"return_states must be True or False; got {return_states!r}")
    optimizer, d, x0, eta, s, noise, nu, beta1, beta2, eps, theta = _check_common(
        optimizer, quadratic, x0, eta, sigma, noise, nu, batch, beta1, beta2, eps, theta)
    n_steps = check_int("n_steps", n_steps, low=1)
    n_sub = check_int("n_sub", n_sub, low=1, high=10**6)
    n_paths = check_int("n_paths", n_paths, low=1)
    record_every = check_int("record_every", record_every, low=1, high=n_steps)
    dim = {"sgd": 1, "signsgd": 1, "rmspropw": 2, "adamw": 3}[optimizer] * d
    check_budget(n_paths=n_paths, n_steps=n_steps * n_sub, dim=dim, n_rec=2 * (n_steps // record_every + 1))
    v0 = _v0(v0, quadratic, x0, s, noise, nu)
    check_stable(optimizer, quadratic, step=eta / n_sub, theta=theta, what=f"Euler–Maruyama of the {optimizer} SDE "
                 f"(dt = eta / n_sub = {eta / n_sub:g})")
    sig, p, tab, y0 = _sde_setup(optimizer, quadratic, x0, eta, s, noise, nu, beta1, beta2, eps, theta, v0)
    bound = _sde_bound(optimizer, quadratic, x0, y0, eta=eta, s=sig, beta2=beta2)
    states, diverged = K.em_run(_SDE_CODE[optimizer], y0, d, quadratic.kernel_H, sig, p, tab, 0.0, eta / n_sub,
                                n_steps * n_sub, record_every * n_sub, spawn_seeds(seed, n_paths), bound)
    raise_if_diverged(diverged, what=f"{optimizer} SDE", bound=bound, step_unit="SDE step", eta=eta, n_sub=n_sub,
                      sigma=float(np.max(s)), eps=eps, theta=theta)
    require_finite(f"{optimizer} SDE states", states, eta=eta, n_sub=n_sub)
    step = record_every * np.arange(states.shape[1])
    loss = quadratic.loss(states[:, :, :d])
    info = dict(optimizer=optimizer, eta=eta, dt=eta / n_sub)
    if return_states:
        info["states"] = states
    return Run(t=step * eta, step=step, loss=loss, info=info)


def run_coupled(optimizer, quadratic, x0, *, eta, sigma, n_steps, n_sub=4, n_paths=1000, batch=1.0, beta1=0.9,
                beta2=0.999, eps=1e-8, theta=0.0, v0=None, record_every=1, seed=0):
    """The optimizer and its SDE (Euler–Maruyama, ``dt = eta / n_sub``) on shared Gaussian noise.

    The optimizer's noise at each step is the normalised sum of the ``n_sub`` Brownian
    increments the SDE uses in that step, so both marginals are exact and
    ``loss_opt - loss_sde`` is a low-variance estimator of the weak error of the SDE
    approximation (Gaussian noise only).

    Returns
    -------
    (Run, Run)
        The optimizer's and the SDE's loss trajectories, path ``i`` coupled with path ``i``.
    """
    optimizer, d, x0, eta, s, noise, nu, beta1, beta2, eps, theta = _check_common(
        optimizer, quadratic, x0, eta, sigma, "gaussian", None, batch, beta1, beta2, eps, theta)
    n_steps = check_int("n_steps", n_steps, low=1)
    n_sub = check_int("n_sub", n_sub, low=1, high=10**6)
    n_paths = check_int("n_paths", n_paths, low=2)
    record_every = check_int("record_every", record_every, low=1, high=n_steps)
    check_budget(n_paths=n_paths, n_steps=n_steps * (n_sub + 1), dim=3 * d, n_rec=2 * (n_steps // record_every + 1))
    v0 = _v0(v0, quadratic, x0, s, noise, nu)
    check_stable(optimizer, quadratic, step=eta, theta=theta, what=f"{optimizer} (eta={eta:g})")
    sig, p_sde, tab, y0 = _sde_setup(optimizer, quadratic, x0, eta, s, noise, nu, beta1, beta2, eps, theta, v0)
    bound = _sde_bound(optimizer, quadratic, x0, y0, eta=eta, s=sig, beta2=beta2)
    p_opt = np.array([eta, beta1, beta2, eps, theta, 0.0, 1.0])
    lo, ls, diverged = K.coupled_run(_OPT_CODE[optimizer], x0, v0, quadratic.kernel_H, s, p_opt, p_sde, tab, n_steps,
                                     n_sub, record_every, spawn_seeds(seed, n_paths), bound)
    raise_if_diverged(diverged, what=f"{optimizer} optimizer/SDE pair", bound=bound, eta=eta, n_sub=n_sub,
                      sigma=float(np.max(s)), eps=eps, theta=theta)
    require_finite(f"{optimizer} optimizer/SDE losses", np.stack([lo, ls]), eta=eta, n_sub=n_sub)
    step = record_every * np.arange(lo.shape[1])
    info = dict(optimizer=optimizer, eta=eta, n_sub=n_sub)
    return Run(step * eta, step, lo, dict(info)), Run(step * eta, step, ls, dict(info))
