"""q-Gaussian (q-exponential family) policies and a two-bump continuous bandit: a toy proxy of Zhu, Shah, Wang,
Nagai, White, "q-exponential family for policy optimization" (ICLR 2025, arXiv:2408.07245; code
github.com/lingweizhu/qexp).

The paper is empirical (heavy-tailed q > 1 policies, especially the Student-t, beat the Gaussian in online RL).
What is checked here is the mathematics the policies stand on and a one-dimensional toy proxy of exploration.

The family (standard identities; Tsallis 2009, Thistleton et al. 2007, IEEE Trans. Inf. Theory 53(12)):

* ``exp_q(x) = [1 + (1 - q) x]_+^{1 / (1 - q)}``, ``ln_q(x) = (x^{1 - q} - 1) / (1 - q)`` (``exp``/``log`` at q = 1).
* The q-Gaussian ``p(x) = sqrt(beta) / C_q exp_q(-beta (x - mu)^2)``, normalisable for q < 3, with
  ``C_q = 2 sqrt(pi) Gamma(1/(1-q)) / ((3-q) sqrt(1-q) Gamma((3-q)/(2(1-q))))`` (q < 1), ``sqrt(pi)`` (q = 1),
  ``sqrt(pi) Gamma((3-q)/(2(q-1))) / (sqrt(q-1) Gamma(1/(q-1)))`` (1 < q < 3).
* q < 1: compact support ``|x - mu| <= a = 1 / sqrt(beta (1 - q))``; ``(x - mu + a) / (2a)`` is Beta(alpha, alpha),
  ``alpha = (2 - q) / (1 - q)`` [derived: ``1 - u^2 = 4 v (1 - v)`` with ``v = (u + 1) / 2``], which gives the CDF.
* 1 < q < 3: a Student-t with ``nu = (3 - q) / (q - 1)`` degrees of freedom and scale ``s = 1 / sqrt((3 - q) beta)``
  [derived by matching ``[1 + (q - 1) beta y^2]^{-1/(q-1)}`` with ``(1 + y^2 / (nu s^2))^{-(nu + 1)/2}``]; the tail
  ``P(|X| > x)`` is regularly varying with index ``nu`` (density tail ``|x|^{-2/(q-1)}``).
* Sampling (generalized Box-Muller, Thistleton et al.): ``Z = sqrt(-2 ln_{q'}(U1)) cos(2 pi U2)`` with
  ``q' = (1 + q) / (3 - q)`` is a q-Gaussian with beta = 1 / (3 - q), so ``x = mu + Z / sqrt((3 - q) beta)``.
  The authors' code (q-exp offline/core/policy/qGaussian.py, ``HeavyTailedBetaGaussian.rsample``) uses
  ``q' = (q - 1) / (3 - q)`` instead, which at q = 2 gives q' = 1, a Gaussian (:func:`box_muller_parameter`
  ``authors=True`` reproduces it, for the declared finding).

The bandit (a toy proxy of exploration, ours): reward ``r(a) = h_l exp(-a^2 / (2 w^2)) + h_g exp(-(a - c)^2 / (2 w^2))``
(local bump at 0, global at c); a policy ``a = mu + sigma Z_q`` with a FIXED scale ``sigma`` (``beta = 1 / ((3 - q)
sigma^2)``, so sigma is the standard deviation at q = 1 and the Student-t scale for q > 1) and policy-gradient
ascent on mu with the likelihood-ratio estimator ``(r(a) - b) d/dmu log p(a | mu)``,
``d/dmu log p = 2 beta y / (1 + (q - 1) beta y^2)``, ``y = a - mu``.  Its mean is ``J'(mu) = E r'(mu + sigma Z_q)``
(integration by parts), so exact gradient ascent from mu = 0 passes the valley iff ``J' > 0`` on [0, valley];
:func:`escape_threshold` is the smallest such sigma (bisection on a grid-checked bracket).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import integrate, special

from theorylab.core.seeding import as_generator
from theorylab.core.validate import check_int, check_positive, check_real, check_size

__all__ = ["exp_q", "log_q", "q_gaussian_normaliser", "q_gaussian_pdf", "q_gaussian_cdf", "student_t_dof",
           "tail_index", "box_muller_parameter", "q_gaussian_sample", "hill_estimator", "population_hill",
           "beta_from_scale", "Bandit", "bandit_reward", "bandit_reward_grad", "bandit_valley", "policy_score",
           "smoothed_gradient", "escape_threshold", "policy_gradient"]

Q_MAX = 3.0      # the q-Gaussian is normalisable for q < 3


def _q(q, *, heavy=False):
    """q as a float in (-inf, 3), or (1, 3) when ``heavy``."""
    if heavy:
        return check_real("q", q, low=1.0, high=Q_MAX, low_open=True, high_open=True)
    return check_real("q", q, high=Q_MAX, high_open=True)


def _bool(name, v):
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {v!r} of type {type(v).__name__}")
    return bool(v)


def _arr(name, x):
    if isinstance(x, (str, bytes, bool)) or x is None:
        raise TypeError(f"{name} must be a real number or array of reals; got {x!r}")
    a = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite; got non-finite values")
    return a


def exp_q(x, q):
    """``[1 + (1 - q) x]_+^{1/(1-q)}`` (exp at q = 1); q < 3."""
    q, x = _q(q), _arr("x", x)
    if q == 1.0:
        return np.exp(x)
    base = 1.0 + (1.0 - q) * x
    with np.errstate(divide="ignore"):
        return np.where(base > 0, np.maximum(base, 1e-300) ** (1.0 / (1.0 - q)), 0.0)


def log_q(x, q):
    """``(x^{1-q} - 1) / (1 - q)`` for x > 0 (log at q = 1); any real q (the Box-Muller q' may exceed 3)."""
    q = check_real("q", q)
    x = _arr("x", x)
    if np.any(x <= 0):
        raise ValueError("x must be > 0 for log_q")
    return np.log(x) if q == 1.0 else (x ** (1.0 - q) - 1.0) / (1.0 - q)


def q_gaussian_normaliser(q):
    """C_q with ``p(x) = sqrt(beta) / C_q exp_q(-beta x^2)`` (module docstring)."""
    q = _q(q)
    if q < 1:
        log_ratio = special.gammaln(1 / (1 - q)) - special.gammaln((3 - q) / (2 * (1 - q)))
        return float(2 * np.sqrt(np.pi) * np.exp(log_ratio) / ((3 - q) * np.sqrt(1 - q)))
    if q == 1:
        return float(np.sqrt(np.pi))
    return float(np.sqrt(np.pi) * np.exp(special.gammaln((3 - q) / (2 * (q - 1))) - special.gammaln(1 / (q - 1)))
                 / np.sqrt(q - 1))


def q_gaussian_pdf(x, q, beta=1.0, mu=0.0):
    """The q-Gaussian density ``sqrt(beta) / C_q exp_q(-beta (x - mu)^2)``; q < 3, beta > 0."""
    q, beta, mu = _q(q), check_positive("beta", beta), check_real("mu", mu)
    y = _arr("x", x) - mu
    return np.sqrt(beta) / q_gaussian_normaliser(q) * exp_q(-beta * y * y, q)


def student_t_dof(q):
    """nu = (3 - q) / (q - 1) of the Student-t equal to the q-Gaussian, 1 < q < 3."""
    q = _q(q, heavy=True)
    return (3.0 - q) / (q - 1.0)


def tail_index(q):
    """The index of regular variation of ``P(|X| > x)``: nu = 2 / (q - 1) - 1, 1 < q < 3."""
    return student_t_dof(q)


def q_gaussian_cdf(x, q, beta=1.0, mu=0.0):
    """The q-Gaussian CDF in closed form: a symmetric Beta CDF (q < 1), the normal (q = 1), Student-t (q > 1)."""
    q, beta, mu = _q(q), check_positive("beta", beta), check_real("mu", mu)
    y = _arr("x", x) - mu
    if q < 1:
        a = 1.0 / np.sqrt(beta * (1.0 - q))
        alpha = (2.0 - q) / (1.0 - q)
        return special.betainc(alpha, alpha, (np.clip(y / a, -1.0, 1.0) + 1.0) / 2.0)
    if q == 1:
        return special.ndtr(np.sqrt(2.0 * beta) * y)
    return special.stdtr((3.0 - q) / (q - 1.0), y * np.sqrt((3.0 - q) * beta))


def box_muller_parameter(q, authors=False):
    """q' of the generalized Box-Muller method: (1 + q) / (3 - q) (Thistleton et al. 2007); ``authors=True``
    returns the authors' code's (q - 1) / (3 - q) (qGaussian.py ``HeavyTailedBetaGaussian.rsample``)."""
    q = _q(q)
    return (q - 1.0) / (3.0 - q) if _bool("authors", authors) else (1.0 + q) / (3.0 - q)


def q_gaussian_sample(n, q, beta=1.0, mu=0.0, seed=0, authors=False):
    """n draws of the q-Gaussian by the generalized Box-Muller method (module docstring); ``authors=True`` uses
    the authors' Box-Muller parameter (a wrong sampler, kept for the declared finding)."""
    n = check_size("n", n)
    q, beta, mu, authors = _q(q), check_positive("beta", beta), check_real("mu", mu), _bool("authors", authors)
    rng = as_generator(seed)
    u1 = 1.0 - rng.random(n)                 # in (0, 1]
    u2 = rng.random(n)
    qp = box_muller_parameter(q, authors=authors)
    z = np.sqrt(np.maximum(-2.0 * log_q(u1, qp), 0.0)) * np.cos(2.0 * np.pi * u2)
    return mu + z / np.sqrt((3.0 - q) * beta)


def hill_estimator(x, k):
    """Hill's estimate of 1 / (tail index) from the k largest |x|: mean log(|x|_(i) / |x|_(k+1)), i <= k."""
    x = np.abs(_arr("x", x)).ravel()
    if x.size < 2:
        raise ValueError(f"x must hold at least 2 values for the Hill estimator; got {x.size}")
    k = check_int("k", k, low=1, high=x.size - 1)
    top = np.partition(x, x.size - k - 1)[x.size - k - 1:]
    thresh = top.min()
    if thresh <= 0:
        raise ValueError("the (k+1)-th largest |x| must be > 0 for the Hill estimator")
    return float(np.mean(np.log(np.sort(top)[1:] / thresh)))


def population_hill(q, p):
    """The population Hill functional at tail fraction p: ``(1/p) int_t^inf S(x) / x dx`` with ``S(x) = P(|X| > x)``
    and ``S(t) = p`` (any beta: it is scale free), 1 < q < 3.  The Hill estimator with k = p n estimates it; it tends
    to 1 / nu as p -> 0 [derived: E[log(|X|/t) | |X| > t] = int_t^inf S(x)/(x S(t)) dx by parts]."""
    nu = student_t_dof(q)
    p = check_real("p", p, low=0.0, high=1.0, low_open=True, high_open=True)
    t = -special.stdtrit(nu, p / 2.0)
    # x = t e^u: int_0^U S(t e^u) du, S decaying like e^{-nu u} for large u; U stops at log x = 700 (float range)
    # or at 50 / nu + 50 (the neglected tail is then below e^{-50} p / nu)
    log_t = float(np.log(t))
    U = max(0.0, min(700.0 - log_t, 50.0 / nu + 50.0))
    val, _ = integrate.quad(lambda u: 2.0 * special.stdtr(nu, -np.exp(log_t + u)), 0.0, U, epsabs=0, epsrel=1e-10,
                            limit=400)
    return float(val / p)


def beta_from_scale(q, sigma):
    """beta = 1 / ((3 - q) sigma^2): sigma is the s.d. at q = 1 and the Student-t scale for 1 < q < 3."""
    q, sigma = _q(q), check_positive("sigma", sigma)
    return 1.0 / ((3.0 - q) * sigma * sigma)


@dataclass(frozen=True)
class Bandit:
    """Two Gaussian bumps: height ``h_local`` at 0, ``h_global`` at ``c``, common width ``w``."""
    h_local: float = 1.0
    h_global: float = 2.0
    c: float = 5.0
    w: float = 1.0

    def __post_init__(self):
        for name in ("h_local", "h_global", "c", "w"):
            check_positive(f"Bandit.{name}", getattr(self, name))


def _bandit(b):
    if not isinstance(b, Bandit):
        raise TypeError(f"bandit must be a theorylab.toys.Bandit; got {type(b).__name__}")
    return b


def bandit_reward(a, bandit=Bandit()):
    """r(a) of the two-bump bandit."""
    b, a = _bandit(bandit), _arr("a", a)
    return b.h_local * np.exp(-a * a / (2 * b.w ** 2)) + b.h_global * np.exp(-(a - b.c) ** 2 / (2 * b.w ** 2))


def bandit_reward_grad(a, bandit=Bandit()):
    """r'(a) of the two-bump bandit."""
    b, a = _bandit(bandit), _arr("a", a)
    return (-a * b.h_local * np.exp(-a * a / (2 * b.w ** 2))
            - (a - b.c) * b.h_global * np.exp(-(a - b.c) ** 2 / (2 * b.w ** 2))) / b.w ** 2


def bandit_valley(bandit=Bandit()):
    """The argmin of r on [0, c] (golden-section on the unimodal valley, to 1e-12)."""
    b = _bandit(bandit)
    from scipy.optimize import minimize_scalar
    return float(minimize_scalar(lambda a: float(bandit_reward(a, b)), bounds=(0.0, b.c), method="bounded",
                                 options=dict(xatol=1e-12)).x)


def policy_score(y, q, sigma):
    """d/dmu log p(mu + y | mu) = 2 beta y / (1 + (q - 1) beta y^2) for the q-Gaussian policy of scale sigma."""
    beta = beta_from_scale(q, sigma)
    y = _arr("y", y)
    return 2.0 * beta * y / (1.0 + (q - 1.0) * beta * y * y)


def _grid(b):
    """Quadrature nodes on [-12 w, c + 12 w], spacing w / 200 (r' is below 1e-29 relative outside)."""
    return np.linspace(-12.0 * b.w, b.c + 12.0 * b.w, int(round((b.c / b.w + 24.0) * 200)) + 1)


def smoothed_gradient(mu, q, sigma, bandit=Bandit()):
    """J'(mu) = E r'(mu + sigma Z_q) (the mean policy gradient), by trapezoid quadrature of r' against the density
    on a fixed fine grid (error far below 1e-8: r' is smooth and negligible beyond the grid)."""
    b = _bandit(bandit)
    beta = beta_from_scale(q, sigma)
    mu = np.atleast_1d(_arr("mu", mu))
    a = _grid(b)
    dens = q_gaussian_pdf(a[None, :] - mu[:, None], q, beta)
    return integrate.trapezoid(bandit_reward_grad(a, b)[None, :] * dens, a, axis=1)


def _escapes(q, sigma, b, valley):
    return bool(np.all(smoothed_gradient(np.linspace(0.0, valley, 121), q, sigma, b) > 0))


def escape_threshold(q, bandit=Bandit(), *, sigma_max=5.0, tol=1e-3):
    """The smallest fixed scale sigma at which exact gradient ascent from mu = 0 passes the valley (J' > 0 on
    [0, valley], checked on 121 points): bisection between the last failing and first passing scale of a grid
    (the predicate is checked monotone on that grid; a non-monotone grid raises)."""
    q, b = _q(q), _bandit(bandit)
    sigma_max, tol = check_positive("sigma_max", sigma_max), check_positive("tol", tol)
    valley = bandit_valley(b)
    grid = np.linspace(0.5, sigma_max, 10)
    ok = np.array([_escapes(q, s, b, valley) for s in grid])
    if not ok.any():
        raise ValueError(f"no escape up to sigma_max = {sigma_max}; pass a larger sigma_max")
    first = int(np.argmax(ok))
    if not ok[first:].all() or first == 0:
        raise ValueError(f"the escape predicate is not monotone on the sigma grid for q = {q}")
    lo, hi = grid[first - 1], grid[first]
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if _escapes(q, mid, b, valley) else (mid, hi)
    return float(hi)


def policy_gradient(q, sigma, *, runs=200, steps=300, batch=32, lr=1.0, mu0=0.0, bandit=Bandit(), seed=0):
    """``runs`` independent policy-gradient runs on mu with a fixed scale sigma: each step draws ``batch`` actions
    and moves mu by ``lr`` times the likelihood-ratio estimate with a leave-one-out baseline (unbiased for J').
    Returns the final mu of every run."""
    q, sigma = _q(q), check_positive("sigma", sigma)
    runs, steps, batch = check_size("runs", runs), check_size("steps", steps), check_size("batch", batch, low=2)
    lr, mu0, b = check_positive("lr", lr), check_real("mu0", mu0), _bandit(bandit)
    beta = beta_from_scale(q, sigma)
    rng = as_generator(seed)
    mu = np.full(runs, mu0)
    for _ in range(steps):
        y = q_gaussian_sample(runs * batch, q, beta, seed=rng).reshape(runs, batch)
        r = bandit_reward(mu[:, None] + y, b)
        base = (r.sum(1, keepdims=True) - r) / (batch - 1)
        mu = mu + lr * np.mean((r - base) * policy_score(y, q, sigma), axis=1)
    return mu
