"""Strongly convex test problems for constant-step SGD, with their exact local constants.

Each problem carries what the theory needs at the optimum theta*:

* ``H = grad^2 f(theta*)`` and the noise covariance ``Sigma_eps = E[eps(theta*) eps(theta*)^T]``;
* the minimax-optimal asymptotic covariance ``Sigma_inf = H^{-1} Sigma_eps H^{-1}`` (Hájek–Le Cam),
  the leading term of Sheshukova et al. (ICLR 2025), Thm 1 / Eq. (5);
* the first-order bias of the stationary mean, ``E_pi[theta] - theta* = gamma Delta + O(gamma^2)``,
  ``Delta = -1/2 H^{-1} f'''(theta*)[C]`` with ``H C + C H = Sigma_eps`` (Dieuleveut, Durmus & Bach,
  Ann. Stat. 2020, Thm 4; in 1-d ``Delta = -f''' sigma^2 / (4 H^2)``).  The RR paper builds on this
  expansion: Richardson–Romberg cancels the gamma-linear term.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import solve_continuous_lyapunov
from scipy.optimize import brentq

from ..core.seeding import as_generator
from ..core.validate import check_array, check_choice, check_int, check_positive, check_real
from . import _kernels as K

#: Largest noise scale / curvature parameter accepted: keeps sigma^2, the Lipschitz constant and the
#: divergence bound of :func:`theorylab.markov.run_pair` (which scale with them) finite in float64.
MAX_SCALE = 1e100
#: softplus parameters c, b are at most this (beyond it exp(b x) overflows at theta* ~ -c b).
MAX_SOFTPLUS = 100.0
#: logistic data sets: n_data * d entries at most (8 MB of float64).
MAX_DATA_ENTRIES = 10**6

KINDS = ("1d", "logistic")


@dataclass(frozen=True)
class Problem:
    """A test problem; ``kind`` selects the kernel (``"1d"`` additive noise or ``"logistic"``).

    ``mu`` is a global strong-convexity constant (f'' >= mu everywhere), used to derive the divergence
    bound of the chains.  Built by the constructors below; a hand-made Problem is validated (finite
    arrays of matching shapes, H and Sigma_eps symmetric, kind and args usable by the kernels).
    """

    name: str
    kind: str
    theta_star: np.ndarray
    H: np.ndarray
    Sigma_eps: np.ndarray
    third: np.ndarray  # f'''(theta*) as a (d, d, d) tensor
    args: dict = field(repr=False, default_factory=dict)
    mu: float = 1.0

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str; got {self.name!r}")
        check_choice("kind", self.kind if isinstance(self.kind, str) else repr(self.kind), KINDS)
        theta = check_array("theta_star", self.theta_star, ndim=1)
        d = theta.size
        if d == 0 or d > 200:
            raise ValueError(f"theta_star must have 1 to 200 entries; got {d}")
        H = check_array("H", self.H, shape=(d, d))
        S = check_array("Sigma_eps", self.Sigma_eps, shape=(d, d))
        T = check_array("third", self.third, shape=(d, d, d))
        for nm, M in (("H", H), ("Sigma_eps", S)):
            if not np.allclose(M, M.T, rtol=1e-10, atol=0):
                raise ValueError(f"{nm} must be symmetric; got {_short(M)}")
        if np.linalg.eigvalsh(H).min() <= 0:
            raise ValueError(f"H must be positive definite; got eigenvalues {np.linalg.eigvalsh(H)}")
        if np.linalg.eigvalsh(S).min() < -1e-12 * max(1.0, float(np.abs(S).max())):
            raise ValueError(f"Sigma_eps must be positive semi-definite; got eigenvalues {np.linalg.eigvalsh(S)}")
        mu = check_real("mu", self.mu, low=0.0, high=MAX_SCALE, low_open=True)
        if not isinstance(self.args, dict):
            raise TypeError(f"args must be a dict of the kernel's parameters; got {type(self.args).__name__}")
        need = ("code", "c", "b", "sigma") if self.kind == "1d" else ("A", "y", "lam", "G_star")
        missing = [k for k in need if k not in self.args]
        if missing:
            raise ValueError(f"args must hold {', '.join(need)} for kind {self.kind!r}; missing {', '.join(missing)}")
        a = self.args
        if self.kind == "1d":
            if d != 1:
                raise ValueError(f"theta_star must have 1 entry for kind '1d'; got {d}")
            check_choice("args['code']", a["code"] if isinstance(a["code"], int) else repr(a["code"]),
                         (K.COS, K.SOFTPLUS, K.QUADRATIC))
            check_real("args['c']", a["c"], low=0.0, high=MAX_SOFTPLUS)
            check_real("args['b']", a["b"], low=0.0, high=MAX_SOFTPLUS)
            check_real("args['sigma']", a["sigma"], low=0.0, high=MAX_SCALE, low_open=True)
        else:
            A = check_array("args['A']", a["A"], ndim=2)
            if A.shape[1] != d or A.size > MAX_DATA_ENTRIES or A.shape[0] < 1:
                raise ValueError(f"args['A'] must be (n_data, {d}) with n_data * d <= {MAX_DATA_ENTRIES}; got {A.shape}")
            y = check_array("args['y']", a["y"], shape=(A.shape[0],))
            if not np.all(np.abs(y) == 1):
                raise ValueError("args['y'] must hold labels +-1")
            check_array("args['G_star']", a["G_star"], shape=A.shape)
            check_real("args['lam']", a["lam"], low=0.0, high=1e3, low_open=True)
        for nm, v in (("theta_star", theta), ("H", H), ("Sigma_eps", S), ("third", T)):
            object.__setattr__(self, nm, v)
        object.__setattr__(self, "mu", mu)

    @property
    def dim(self) -> int:
        return self.theta_star.size

    @property
    def Sigma_inf(self) -> np.ndarray:
        """H^{-1} Sigma_eps H^{-1}: the asymptotic covariance of sqrt(n)(theta_bar - theta*)."""
        Hinv = np.linalg.inv(self.H)
        return Hinv @ self.Sigma_eps @ Hinv

    @property
    def C(self) -> np.ndarray:
        """Solution of H C + C H = Sigma_eps (stationary covariance of theta/sqrt(gamma) at first order)."""
        return solve_continuous_lyapunov(self.H, self.Sigma_eps)

    @property
    def Delta(self) -> np.ndarray:
        """First-order bias coefficient: -1/2 H^{-1} f'''(theta*)[C]."""
        contraction = np.einsum("jkl,kl->j", self.third, self.C)
        return -0.5 * np.linalg.solve(self.H, contraction)


def _short(M) -> str:
    text = np.array2string(np.asarray(M), threshold=6, precision=3)
    return " ".join(text.split())


def _one_d(name, code, theta_star, h, f3, sigma, c=0.0, b=0.0) -> Problem:
    # f'' >= 1 everywhere for the three 1-d functions (2 - cos x, 1 + c b^2 s(1-s), 1): mu = 1
    return Problem(name, "1d", np.array([theta_star]), np.array([[h]]), np.array([[sigma**2]]),
                   np.array([[[f3]]]), {"code": code, "c": c, "b": b, "sigma": sigma}, mu=1.0)


def _sigma(sigma) -> float:
    return check_real("sigma", sigma, low=0.0, high=MAX_SCALE, low_open=True)


def cos_problem(*, sigma: float = 1.0) -> Problem:
    """f(x) = x^2 + cos x with additive N(0, sigma^2) noise: theta* = 0, H = 1, f''' = 0.

    The authors' example (repository ``svsamsonov/richardson_romberg_example``, ``1d_example.py``).
    f' is odd and the noise symmetric, so the SGD bias is exactly zero: it tests the variance
    terms, not bias reduction.
    """
    sigma = _sigma(sigma)
    return _one_d("cos", K.COS, 0.0, 1.0, 0.0, sigma)


def softplus_problem(*, c: float = 2.0, b: float = 3.0, sigma: float = 1.0) -> Problem:
    """f(x) = x^2/2 + c softplus(b x) with additive N(0, sigma^2) noise (f''' != 0: visible bias)."""
    c = check_real("c", c, low=0.0, high=MAX_SOFTPLUS, low_open=True)
    b = check_real("b", b, low=0.0, high=MAX_SOFTPLUS, low_open=True)
    sigma = _sigma(sigma)
    sig = lambda t: 1.0 / (1.0 + np.exp(-t))  # noqa: E731
    x = brentq(lambda t: t + c * b * sig(b * t), -c * b - 1.0, 0.0, xtol=1e-15, rtol=1e-15)
    s = sig(b * x)
    h = 1.0 + c * b**2 * s * (1 - s)
    f3 = c * b**3 * s * (1 - s) * (1 - 2 * s)
    return _one_d("softplus", K.SOFTPLUS, x, h, f3, sigma, c, b)


def quadratic_problem(*, sigma: float = 1.0) -> Problem:
    """f(x) = x^2/2 with additive noise: linear gradient, so PR averaging is unbiased."""
    sigma = _sigma(sigma)
    return _one_d("quadratic", K.QUADRATIC, 0.0, 1.0, 0.0, sigma)


def _sigmoid(t):
    return 0.5 * (1.0 + np.tanh(0.5 * t))


def logistic_problem(*, d: int = 5, n_data: int = 200, lam: float = 0.1, seed=0) -> Problem:
    """l2-regularised logistic regression on a fixed synthetic data set; SGD samples one point per step.

    f(theta) = 1/m sum_i log(1 + exp(-y_i a_i.theta)) + lam/2 |theta|^2.  The noise
    eps(theta) = grad f_i(theta) - grad f(theta) is state dependent; theta*, H, Sigma_eps and
    f''' are computed exactly over the m data points (Newton's method to machine precision).
    """
    d = check_int("d", d, low=1, high=200)
    n_data = check_int("n_data", n_data, low=2, high=MAX_DATA_ENTRIES // d)
    lam = check_real("lam", lam, low=0.0, high=1e3, low_open=True)
    rng = as_generator(seed)
    A = rng.standard_normal((n_data, d)) / np.sqrt(d) * 2.0
    w_true = rng.standard_normal(d)
    y = np.where(rng.random(n_data) < _sigmoid(A @ w_true), 1.0, -1.0)
    theta = np.zeros(d)
    for _ in range(100):
        t = y * (A @ theta)
        grad = -(A * (y * _sigmoid(-t))[:, None]).mean(0) + lam * theta
        w2 = _sigmoid(t) * _sigmoid(-t)
        H = (A * w2[:, None]).T @ A / n_data + lam * np.eye(d)
        step = np.linalg.solve(H, grad)
        theta -= step
        if np.max(np.abs(step)) < 1e-15:
            break
    t = y * (A @ theta)
    G_star = -(A * (y * _sigmoid(-t))[:, None]) + lam * theta  # grad f_i(theta*), rows average to 0
    Sigma_eps = G_star.T @ G_star / n_data
    s, sm = _sigmoid(t), _sigmoid(-t)
    phi3 = s * sm * (sm - s)  # third derivative of log(1 + e^{-t}); y^3 = y
    third = np.einsum("i,ij,ik,il->jkl", phi3 * y, A, A, A) / n_data
    return Problem("logistic", "logistic", theta, H, Sigma_eps, third,
                   {"A": np.ascontiguousarray(A), "y": y, "lam": lam, "G_star": np.ascontiguousarray(G_star)},
                   mu=lam)  # the loss part is convex: f'' >= lam


PROBLEMS = {"cos": cos_problem, "softplus": softplus_problem, "quadratic": quadratic_problem,
            "logistic": logistic_problem}


def get_problem(problem) -> Problem:
    """A :class:`Problem` from an instance or a name in :data:`PROBLEMS`."""
    if isinstance(problem, Problem):
        return problem
    if isinstance(problem, str) and problem in PROBLEMS:
        return PROBLEMS[problem]()
    raise ValueError(f"problem must be a Problem or one of {', '.join(map(repr, PROBLEMS))}; got {problem!r}")


def check_step(problem: Problem, gamma) -> float:
    """gamma in (0, 1/L), L a global Lipschitz constant of the gradient: then 2 gamma L < 2 and both
    chains (steps gamma and 2 gamma) are stable contractions in expectation."""
    gamma = check_positive("gamma", gamma)
    if problem.kind == "1d":
        lip = {K.COS: 3.0, K.SOFTPLUS: 1.0 + problem.args["c"] * problem.args["b"] ** 2 / 4, K.QUADRATIC: 1.0}
        L = lip[problem.args["code"]]
    else:
        A = problem.args["A"]
        L = 0.25 * float(np.max(np.sum(A**2, axis=1))) + problem.args["lam"]
    check_real("gamma", gamma, low=0.0, high=1.0 / L, low_open=True, high_open=True)
    return gamma
