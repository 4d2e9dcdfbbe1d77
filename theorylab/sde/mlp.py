"""A small MLP regression objective in numpy, with the discrete optimizers and the SGD/SignSGD
SDEs run on it, vectorised over paths.

Issue #3 names "a small MLP regression in numpy" among the test objectives; the paper's own
experiments (Compagnoni et al., ICLR 2025, §4) compare optimizers with their SDEs on MLPs and
larger networks with full-batch gradients plus injected Gaussian noise, which is the protocol
here: the stochastic gradient is ``grad f(w) + sigma * xi`` with ``xi`` i.i.d. N(0, 1) or
Student-t(nu) per coordinate.

The network is ``u(x; w) = a . tanh(W x + b) + c`` (one hidden layer of width ``m``), the loss
``f(w) = (1 / 2n) sum_k (u(x_k; w) - y_k)^2`` on a fixed data set drawn from a random teacher
of the same shape plus label noise.  ``w`` packs ``(W, b, a, c)``, dimension ``D = m p + 2 m + 1``.
Everything takes a batch of parameter vectors ``w`` of shape ``(n_paths, D)``.

Randomness: one ``numpy.random.Generator`` from ``seed`` draws the noise of all paths, so a
path's numbers depend on ``n_paths`` (unlike the jitted quadratic kernels); the same
``(seed, n_paths)`` gives the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from theorylab.core import as_generator, check_array, check_choice, check_int, check_positive, check_real

from . import _kernels as K
from .engine import BOUND_FACTOR, check_budget, raise_if_diverged
from theorylab.core.validate import check_budget as check_elements
from .optimizers import NOISES, NU_MIN, OPTIMIZERS, Run


@dataclass(frozen=True)
class MLPRegression:
    """Mean-squared-error regression of ``y`` on ``X`` by a one-hidden-layer tanh MLP of width ``m``."""

    X: np.ndarray
    y: np.ndarray
    m: int

    def __post_init__(self):
        X = check_array("X", self.X, ndim=2)
        y = check_array("y", self.y, ndim=1)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X and y must have the same number of rows; got X {X.shape} and y {y.shape}")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "m", check_int("m", self.m, low=1))

    @classmethod
    def teacher(cls, *, n=32, p=2, m=4, label_noise=0.1, seed=0):
        """Data ``x_k ~ N(0, I_p)``, ``y_k = u(x_k; w_teacher) + label_noise * N(0, 1)`` with a
        random teacher of width ``m`` (weights N(0, 1)); the student has the same width."""
        n = check_int("n", n, low=1, high=10**6)
        p = check_int("p", p, low=1, high=10**4)
        m = check_int("m", m, low=1, high=10**4)
        check_elements("the teacher's data and weights (n * p + m * p)", n * p + m * p, n=n, p=p, m=m)
        label_noise = check_real("label_noise", label_noise, low=0)
        rng = as_generator(seed)
        X = rng.standard_normal((n, p))
        model = cls(X, np.zeros(n), m)
        w_t = rng.standard_normal(model.D)
        y = model.predict(w_t[None, :])[0] + label_noise * rng.standard_normal(n)
        return cls(X, y, m)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def p(self) -> int:
        return self.X.shape[1]

    @property
    def D(self) -> int:
        """Number of parameters ``m p + 2 m + 1``."""
        return self.m * self.p + 2 * self.m + 1

    def init(self, *, scale=0.5, seed=0):
        """An initial parameter vector with i.i.d. N(0, scale^2) entries."""
        return check_positive("scale", scale) * as_generator(seed).standard_normal(self.D)

    def _unpack(self, w):
        m, p = self.m, self.p
        W = w[:, :m * p].reshape(-1, m, p)
        b = w[:, m * p:m * p + m]
        a = w[:, m * p + m:m * p + 2 * m]
        c = w[:, -1]
        return W, b, a, c

    def _forward(self, w):
        W, b, a, c = self._unpack(w)
        h = np.tanh(np.einsum("Pmp,np->Pnm", W, self.X) + b[:, None, :])
        return h, a, np.einsum("Pnm,Pm->Pn", h, a) + c[:, None]

    def predict(self, w):
        """Network outputs ``(n_paths, n)`` for parameters ``w`` of shape ``(n_paths, D)``."""
        return self._forward(self._weights(w))[2]

    def _weights(self, w):
        w = np.atleast_2d(check_array("w", w))
        if w.ndim != 2 or w.shape[1] != self.D:
            raise ValueError(f"w must have shape (n_paths, D) or (D,) with D = {self.D}; got shape {w.shape}")
        return w

    def loss(self, w):
        """``f(w)`` for ``w`` of shape ``(..., D)``."""
        w = check_array("w", w)
        if w.ndim == 0 or w.shape[-1] != self.D:
            raise ValueError(f"w must have shape (..., D) with D = {self.D}; got shape {w.shape}")
        r = self.predict(w.reshape(-1, self.D)) - self.y
        return (0.5 * np.mean(r * r, axis=1)).reshape(w.shape[:-1])

    def grad(self, w):
        """``grad f(w)`` by backpropagation, shape ``(n_paths, D)`` for ``w`` of shape ``(n_paths, D)``."""
        w = self._weights(w)
        h, a, u = self._forward(w)
        du = (u - self.y) / self.n                            # d f / d u_k
        dz = du[:, :, None] * a[:, None, :] * (1.0 - h * h)   # d f / d (W x_k + b)
        gW = np.einsum("Pnm,np->Pmp", dz, self.X).reshape(w.shape[0], -1)
        return np.concatenate([gW, dz.sum(axis=1), np.einsum("Pn,Pnm->Pm", du, h), du.sum(axis=1)[:, None]],
                              axis=1)


def _check(optimizer, mlp, w0, eta, sigma, noise, nu, beta1, beta2, eps, theta):
    optimizer = check_choice("optimizer", optimizer, OPTIMIZERS)
    if not isinstance(mlp, MLPRegression):
        raise TypeError(f"mlp must be a theorylab.sde.MLPRegression; got {type(mlp).__name__}")
    w0 = check_array("w0", w0, shape=(mlp.D,))
    eta = check_positive("eta", eta)
    sigma = check_positive("sigma", sigma)
    noise = check_choice("noise", noise, NOISES)
    if noise == "student_t" and nu is None:
        raise ValueError("nu must be given for noise='student_t' (degrees of freedom > 0); got None")
    if nu is not None:  # checked even when Gaussian noise ignores it
        nu = check_real("nu", nu, low=NU_MIN)
    beta1 = check_real("beta1", beta1, low=0, high=1, high_open=True)
    beta2 = check_real("beta2", beta2, low=0, high=1, high_open=True)
    eps = check_real("eps", eps, low=0, low_open=optimizer in ("rmspropw", "adamw"))
    theta = check_real("theta", theta, low=0)
    return optimizer, w0, eta, sigma, noise, nu, beta1, beta2, eps, theta


def _opt_step(optimizer, k, w, m, v, g, eta, beta1, beta2, eps, theta):
    """Step ``k`` (1-based) of the optimizer with stochastic gradient ``g``, in place (cf. _kernels.opt_step)."""
    if optimizer == "sgd":
        w -= eta * (g + theta * w)
    elif optimizer == "signsgd":
        w -= eta * np.sign(g)
    elif optimizer == "rmspropw":
        v *= beta2
        v += (1.0 - beta2) * g * g
        w -= eta * (g / (np.sqrt(v) + eps) + theta * w)
    else:
        m *= beta1
        m += (1.0 - beta1) * g
        v *= beta2
        v += (1.0 - beta2) * g * g
        mh = m / (1.0 - beta1 ** k)
        vh = v / (1.0 - beta2 ** k)
        w -= eta * (mh / (np.sqrt(vh) + eps) + theta * w)


def _weight_bound(w0, eta, n_steps):
    """|w_j| beyond which an MLP path counts as diverged: ``BOUND_FACTOR`` (1e6) times the larger of
    |w0| and the distance ``eta n_steps`` a unit-size step covers (the weights are O(1) by construction)."""
    return float(BOUND_FACTOR * max(1.0, float(np.abs(w0).max()), eta * n_steps))


def _raise_if_bad(w, step, what, bound, **ctx):
    """:func:`~theorylab.sde.engine.raise_if_diverged` for the paths (rows of ``w``) that are
    non-finite or exceed ``bound`` after ``step``."""
    bad = ~np.all(np.abs(w) <= bound, axis=1)
    if bad.any():
        raise_if_diverged(np.where(bad, step, -1), what=what, bound=bound, **ctx)


def run_mlp_optimizer(optimizer, mlp, w0, *, eta, sigma, n_steps, n_paths=100, noise="gaussian", nu=None,
                      beta1=0.9, beta2=0.999, eps=1e-8, theta=0.0, record_every=1, seed=0):
    """Run a discrete optimizer on ``mlp`` from ``w0`` with gradient noise ``sigma * xi``.

    Same optimizers and hyper-parameters as :func:`theorylab.sde.run_optimizer` (RMSpropW's
    second moment starts at ``grad f(w0)^2 + sigma^2``, AdamW's moments at 0 with bias
    corrections).  Returns a :class:`Run` of the loss, ``info["w_final"]`` the final parameters.
    """
    optimizer, w0, eta, sigma, noise, nu, beta1, beta2, eps, theta = _check(
        optimizer, mlp, w0, eta, sigma, noise, nu, beta1, beta2, eps, theta)
    n_steps = check_int("n_steps", n_steps, low=1)
    n_paths = check_int("n_paths", n_paths, low=1)
    record_every = check_int("record_every", record_every, low=1, high=n_steps)
    check_budget(n_paths=n_paths, n_steps=n_steps, dim=mlp.D * mlp.n, n_rec=n_steps // record_every + 1 + mlp.D)
    bound = _weight_bound(w0, eta, n_steps)
    rng = as_generator(seed)
    w = np.tile(w0, (n_paths, 1))
    m = np.zeros_like(w)
    v = np.tile(mlp.grad(w0[None, :])[0] ** 2 + sigma ** 2, (n_paths, 1)) if optimizer == "rmspropw" else \
        np.zeros_like(w)
    losses = [mlp.loss(w)]
    for k in range(1, n_steps + 1):
        xi = rng.standard_normal(w.shape) if noise == "gaussian" else rng.standard_t(nu, w.shape)
        _opt_step(optimizer, k, w, m, v, mlp.grad(w) + sigma * xi, eta, beta1, beta2, eps, theta)
        _raise_if_bad(w, k, f"{optimizer} optimizer on the MLP", bound, eta=eta, sigma=sigma, noise=noise, eps=eps)
        if k % record_every == 0:
            losses.append(mlp.loss(w))
    step = record_every * np.arange(len(losses))
    return Run(t=step * eta, step=step, loss=np.stack(losses, axis=1), info=dict(optimizer=optimizer, w_final=w))


def _sde_step(optimizer, w, dt, dW, eta, sigma, mlp):
    """One Euler–Maruyama step of the SGD SDE ``dW = -grad f dt + sqrt(eta) sigma dB`` or of the
    Gaussian SignSGD SDE (Cor. 3.3) ``dW = -S dt + sqrt(eta) sqrt(1 - S^2) dB``, ``S = erf(grad f / (sqrt 2 sigma))``."""
    g = mlp.grad(w)
    if optimizer == "sgd":
        w += -g * dt + np.sqrt(eta) * sigma * dW
    else:
        S = special.erf(g / (np.sqrt(2.0) * sigma))
        w += -S * dt + np.sqrt(eta) * np.sqrt(np.maximum(1.0 - S * S, 0.0)) * dW


def run_mlp_coupled(optimizer, mlp, w0, *, eta, sigma, n_steps, n_sub=4, n_paths=100, record_every=1, seed=0):
    """SGD or SignSGD on ``mlp`` and its SDE (Euler–Maruyama, ``dt = eta / n_sub``) on shared
    Gaussian numbers, as :func:`theorylab.sde.run_coupled` does on quadratics: per optimizer
    step the SDE takes ``n_sub`` increments ``sqrt(dt) z_j`` and the optimizer's noise is
    ``-sum_j z_j / sqrt(n_sub)`` (exactly N(0, 1)).  Returns ``(Run, Run)`` (optimizer, SDE).
    """
    optimizer = check_choice("optimizer", optimizer, ("sgd", "signsgd"))
    optimizer, w0, eta, sigma, *_ = _check(optimizer, mlp, w0, eta, sigma, "gaussian", None, 0.9, 0.999, 0.0, 0.0)
    n_steps = check_int("n_steps", n_steps, low=1)
    n_sub = check_int("n_sub", n_sub, low=1, high=10**6)
    n_paths = check_int("n_paths", n_paths, low=2)
    record_every = check_int("record_every", record_every, low=1, high=n_steps)
    check_budget(n_paths=n_paths, n_steps=n_steps * (n_sub + 1), dim=mlp.D * mlp.n, n_rec=2 * (n_steps // record_every + 1))
    bound = _weight_bound(w0, eta, n_steps)
    rng = as_generator(seed)
    w = np.tile(w0, (n_paths, 1))
    x = w.copy()
    dt = eta / n_sub
    lo, ls = [mlp.loss(w)], [mlp.loss(x)]
    for k in range(1, n_steps + 1):
        xi = np.zeros_like(w)
        for _ in range(n_sub):
            z = rng.standard_normal(w.shape)
            xi -= z / np.sqrt(n_sub)
            _sde_step(optimizer, x, dt, np.sqrt(dt) * z, eta, sigma, mlp)
        _opt_step(optimizer, k, w, None, None, mlp.grad(w) + sigma * xi, eta, 0.0, 0.0, 0.0, 0.0)
        _raise_if_bad(np.concatenate([w, x], axis=1), k, f"{optimizer} optimizer/SDE pair on the MLP", bound,
                      eta=eta, sigma=sigma)
        if k % record_every == 0:
            lo.append(mlp.loss(w))
            ls.append(mlp.loss(x))
    step = record_every * np.arange(len(lo))
    info = dict(optimizer=optimizer, eta=eta, n_sub=n_sub)
    return (Run(step * eta, step, np.stack(lo, axis=1), dict(info)),
            Run(step * eta, step, np.stack(ls, axis=1), dict(info)))
