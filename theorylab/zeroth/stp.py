"""Stochastic Three Points (STP): the simulator of paper ``stp``.

T. El Bakkali El Kadi, O. Saadi, "On the Almost Sure Convergence of the Stochastic Three Points
Algorithm", ICLR 2025 (arXiv:2501.13886).  The algorithm is that of Bergou, Gorbunov & Richtarik
(2020): draw s_t ~ D and keep the best of three points,

    theta_{t+1} = argmin{ f(theta_t), f(theta_t + alpha_t s_t), f(theta_t - alpha_t s_t) }.

Objective: the separable f(theta) = (1/p) sum_i lam_i |theta_i - theta*_i|^p (f* = 0), with p = 2 the
diagonal quadratic of a given spectrum (take ``lam`` from :func:`theorylab.zeroth.oracles.quadratic_spectrum`)
and p > 2 a convex, not strongly convex function with bounded sublevel sets.

Step rules (``step``):

* ``"exact"``              alpha_t = |<grad f(theta_t), s_t>| / L (the directional derivative);
* ``"finite_difference"``  alpha_t = |f(theta_t + h s_t) - f(theta_t)| / (h L): the strongly convex theorem's
                           "step sizes obtained by approximating the directional derivatives" [paper, abstract];
                           the exact form is not in the stored sources, this forward difference is [derived];
* ``"decreasing"``         alpha_t = alpha0 (t + 1)^(-gamma) (the smooth/convex theorems use a decreasing
                           alpha_t whose form was not read; gamma = 0 is a constant step).

Directions (``distribution``): ``"sphere"`` (uniform on the unit sphere), ``"normal"`` (N(0, I/d)),
``"coordinate"`` (a uniformly random e_i); all have E[s s^T] = I/d.  ``b`` directions per step (the best of
2b + 1 points; b = 1 is STP).

Closed forms used by the checks ([derived], derivations in the docstrings):
:func:`contraction_bound` (1 - mu/(dL) and the paper's 1 - mu/(2 pi d L)), :func:`expected_gap` (the exact
mean gap of exact-step STP on a quadratic) and :func:`convex_bound` (T E[f_T - f*] / d <= Phi_0).

Example::

    from theorylab.zeroth.oracles import quadratic_spectrum
    from theorylab.zeroth.stp import run_stp
    lam = quadratic_spectrum(16, kappa=10, L=10, spacing="geometric")
    run = run_stp(lam, np.ones(16), n_steps=640, n_paths=32, seed=1)
    run.gap.mean(0)       # E[f(theta_t) - f*] at run.t
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.core.parallel import map_blocks
from theorylab.core.seeding import as_generator, spawn_seeds
from theorylab.core.validate import (check_array, check_budget, check_choice, check_int, check_real, check_size,
                                     require_bounded)
from theorylab.zeroth import _kernels_stp as K
from theorylab.core.validate import check_record

__all__ = ["STPRun", "STEPS", "DISTRIBUTIONS", "run_stp", "run_stp_numpy", "smoothness_constant",
           "contraction_bound", "expected_gap", "convex_bound", "record_grid"]

STEPS = ("exact", "finite_difference", "decreasing")
DISTRIBUTIONS = ("sphere", "normal", "coordinate")
_RULE = {"exact": K.RULE_EXACT, "finite_difference": K.RULE_FD, "decreasing": K.RULE_DECREASING}
_LAW = {"sphere": K.LAW_SPHERE, "normal": K.LAW_NORMAL, "coordinate": K.LAW_COORDINATE}

#: Work budget of one jitted call, n_paths * n_steps * b * d: about 1e8 element-steps per second per core,
#: so 4e9 is under a minute on 2 cores (the largest full-scale run is 4e8).  Split larger runs over seeds.
MAX_WORK = 4 * 10**9
#: The numpy reference runs all paths at once in Python: at most 2e8 element-steps (~ a minute).
MAX_WORK_NUMPY = 2 * 10**8
MAX_DIM = 10**5
#: Below this many element-steps per thread a run stays on one thread (thread start-up ~0.1 ms).
MIN_WORK_PER_THREAD = 10**6
MAX_POWER = 16.0
#: Largest |theta0 - theta*| accepted: keeps f(theta0) = (1/p) sum lam |u|^p finite in float64.
MAX_START = 1e15


@dataclass(frozen=True)
class STPRun:
    """Gaps of ``M`` independent STP paths: ``gap[m, k] = f(theta^m_{t[k]}) - f*``; ``rejected[m]`` counts the
    steps of path m where no trial point was strictly better; ``queries_per_step`` the function values one
    step costs (2b, or 3b with finite differences); ``L`` the smoothness constant the steps used."""

    t: np.ndarray
    gap: np.ndarray
    rejected: np.ndarray
    queries_per_step: int
    L: float

    def __post_init__(self):  # a record built by hand is checked like one a function returns
        check_record(self)


def record_grid(n_steps: int, n_points: int = 60) -> np.ndarray:
    """0 and about ``n_points`` log-spaced iteration counts up to ``n_steps`` (distinct, int64)."""
    n_steps = check_size("n_steps", n_steps, budget=10**12)
    n_points = check_size("n_points", n_points, budget=10**6)
    g = np.unique(np.round(np.geomspace(1, n_steps, n_points)).astype(np.int64))
    return np.concatenate([[0], g]).astype(np.int64)


def _objective(lam, theta0, theta_star, power):
    lam = check_array("lam", lam, ndim=1)
    if lam.size == 0:
        raise ValueError("lam must be a non-empty 1-d array of weights (the spectrum); got an empty array")
    check_size("lam (its length d)", lam.size, budget=MAX_DIM)
    if np.any(lam <= 0):
        raise ValueError(f"lam must be > 0 (a convex objective with minimiser theta*); got min {lam.min()!r}")
    d = lam.size
    theta0 = check_array("theta0", np.atleast_1d(_as_float_array("theta0", theta0)), shape=(d,))
    theta_star = (np.zeros(d) if theta_star is None
                  else check_array("theta_star", np.atleast_1d(_as_float_array("theta_star", theta_star)), shape=(d,)))
    power = check_real("power", power, low=2.0, high=MAX_POWER)
    u = np.abs(theta0 - theta_star)
    if u.max() > MAX_START:
        raise ValueError(f"theta0 must be within {MAX_START:g} of theta_star; got |theta0 - theta*| = {u.max():.3g}")
    f0 = float(np.sum(lam * u**power) / power)
    if not np.isfinite(f0):
        raise ValueError(f"f(theta0) overflows for theta0, lam and power={power}; got f(theta0) = {f0}")
    return lam, theta0, theta_star, power, f0


def _as_float_array(name, value):
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be a real array; got {value!r}"[:200])
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real array; got {value!r}"[:200]) from exc


def smoothness_constant(lam, theta0, *, theta_star=None, power: float = 2.0) -> float:
    """L of f on its sublevel set {f <= f(theta0)} (STP is monotone, so every iterate stays there) [derived].

    p = 2: L = max lam.  p > 2: on the sublevel set lam_i |u_i|^p / p <= f(theta0), so |u_i| <=
    (p f0 / lam_i)^(1/p) and the Hessian diag (p - 1) lam_i |u_i|^(p-2) is at most
    L = max_i (p - 1) lam_i (p f0 / lam_i)^((p-2)/p).
    """
    lam, theta0, theta_star, power, f0 = _objective(lam, theta0, theta_star, power)
    if power == 2.0:
        return float(lam.max())
    L = float(np.max((power - 1) * lam * (power * f0 / lam) ** ((power - 2) / power)))
    if not L > 0:
        raise ValueError(f"theta0 must differ from theta_star for power={power} > 2 (L would be 0); got f(theta0) = {f0}")
    return L


def _validate(lam, theta0, n_steps, n_paths, power, theta_star, step, distribution, b, L, h, alpha0, gamma,
              record_at, max_work):
    lam, theta0, theta_star, power, f0 = _objective(lam, theta0, theta_star, power)
    d = lam.size
    step = check_choice("step", step, STEPS)
    distribution = check_choice("distribution", distribution, DISTRIBUTIONS)
    b = check_int("b", b, low=1, high=10**6)
    n_paths = check_size("n_paths", n_paths, budget=10**7)
    n_steps = check_size("n_steps", n_steps, low=1, budget=max_work)  # (0 steps is no run: refused)
    check_budget("the STP work n_paths * n_steps * b * d", n_paths * n_steps * b * d, max_elements=max_work,
                 unit="element-steps", n_paths=n_paths, n_steps=n_steps, b=b, d=d)
    if L is None:
        L = smoothness_constant(lam, theta0, theta_star=theta_star, power=power)
    L = check_real("L", L, low=0.0, low_open=True)
    h = check_real("h", h, low=0.0, low_open=True, high=1e6)
    alpha0 = check_real("alpha0", alpha0, low=0.0, low_open=True, high=1e12)
    gamma = check_real("gamma", gamma, low=0.0, high=10.0)
    if record_at is None:
        record_at = record_grid(max(n_steps, 1))
        record_at = record_at[record_at <= n_steps]
    else:
        record_at = check_array("record_at", record_at, ndim=1, dtype=np.int64)
        if record_at.size == 0 or np.any(record_at < 0) or np.any(record_at > n_steps) or np.any(np.diff(record_at) < 0):
            raise ValueError(f"record_at must be a non-empty non-decreasing array of iteration counts in [0, n_steps="
                             f"{n_steps}]; got {record_at[:8]!r}")
    check_budget("the recorded gaps n_paths * len(record_at)", n_paths * record_at.size, n_paths=n_paths,
                 record_points=record_at.size)
    return (lam, theta0, theta_star, power, f0, n_steps, n_paths, step, distribution, b, L, h, alpha0, gamma,
            np.ascontiguousarray(record_at, dtype=np.int64))


def _finish(record_at, gap, rejected, step, b, L, f0):
    # STP is monotone: every recorded gap lies in [0, f(theta0)] (a kernel bug or overflow would leave it)
    require_bounded("gap", gap, f0 * (1 + 1e-12) + 1e-300, step=step)
    if np.any(gap < 0):
        raise ValueError("internal error: a negative gap f - f* (f* = 0 for this objective)")
    return STPRun(t=record_at.copy(), gap=gap, rejected=rejected, queries_per_step=(3 if step == "finite_difference"
                                                                                    else 2) * b, L=float(L))


def run_stp(lam, theta0, *, n_steps: int, n_paths: int = 32, power: float = 2.0, theta_star=None,
            step: str = "exact", distribution: str = "sphere", b: int = 1, L=None, h: float = 1e-6,
            alpha0: float = 1.0, gamma: float = 0.5, record_at=None, seed=0) -> STPRun:
    """Run ``n_paths`` independent STP paths from ``theta0`` on f = (1/p) sum lam_i |theta_i - theta*_i|^p.

    Parameters
    ----------
    lam : array (d,)
        Positive weights (for p = 2 the spectrum: mu = min lam, L = max lam).
    theta0 : array (d,)
        Common start of all paths (finite).
    n_steps : int
        Iterations T.
    n_paths : int
        Independent paths M (parallel over threads).
    power : float in [2, 16]
        Exponent p of the objective.
    theta_star : array (d,), optional
        Minimiser (default 0).
    step : {"exact", "finite_difference", "decreasing"}
        Step rule (module docstring).
    distribution : {"sphere", "normal", "coordinate"}
        Direction law D.
    b : int >= 1
        Directions per iteration (b = 1 is STP).
    L : float, optional
        Smoothness constant used by the exact/finite-difference steps; default :func:`smoothness_constant`.
    h : float > 0
        Finite-difference increment (``step="finite_difference"``).
    alpha0, gamma : float
        The decreasing schedule alpha_t = alpha0 (t + 1)^(-gamma).
    record_at : int array, optional
        Non-decreasing iteration counts in [0, n_steps] at which the gap is recorded (default: 0 and ~60
        log-spaced counts, :func:`record_grid`).
    seed : int or SeedSequence
        Path m always gets the same stream for the same seed, whatever the thread count (paths run in
        blocks on ``numba.get_num_threads()`` threads, core.parallel.map_blocks).
    """
    (lam, theta0, theta_star, power, f0, n_steps, n_paths, step, distribution, b, L, h, alpha0, gamma,
     record_at) = _validate(lam, theta0, n_steps, n_paths, power, theta_star, step, distribution, b, L, h, alpha0,
                            gamma, record_at, MAX_WORK)
    seeds = spawn_seeds(seed, n_paths)
    gap = np.empty((n_paths, record_at.size))
    rejected = np.empty(n_paths, dtype=np.int64)
    args = (lam, theta_star, power, theta0, L, _RULE[step], alpha0, gamma, h, _LAW[distribution], b, n_steps,
            record_at)
    # blocks of paths on threads (the kernel releases the GIL); path m depends only on seeds[m]
    map_blocks(lambda s: K.stp_paths(*args, seeds[s], gap[s], rejected[s]), n_paths,
               work=n_paths * n_steps * b * lam.size, min_work=MIN_WORK_PER_THREAD)
    return _finish(record_at, gap, rejected, step, b, L, f0)


def _f_numpy(lam, theta_star, power, X):
    U = X - theta_star
    if power == 2.0:
        return 0.5 * (U * U) @ lam
    return (np.abs(U) ** power) @ lam / power


def run_stp_numpy(lam, theta0, *, n_steps: int, n_paths: int = 32, power: float = 2.0, theta_star=None,
                  step: str = "exact", distribution: str = "sphere", b: int = 1, L=None, h: float = 1e-6,
                  alpha0: float = 1.0, gamma: float = 0.5, record_at=None, seed=0) -> STPRun:
    """The same computation as :func:`run_stp`, vectorised over paths in numpy (the reference of the benchmark
    and of the distributional test).  Same law, different random stream (numpy's Generator)."""
    (lam, theta0, theta_star, power, f0, n_steps, n_paths, step, distribution, b, L, h, alpha0, gamma,
     record_at) = _validate(lam, theta0, n_steps, n_paths, power, theta_star, step, distribution, b, L, h, alpha0,
                            gamma, record_at, MAX_WORK_NUMPY)
    rng = as_generator(seed)
    M, d = n_paths, lam.size
    theta = np.tile(theta0, (M, 1))
    f = _f_numpy(lam, theta_star, power, theta)
    gap = np.empty((M, record_at.size))
    rejected = np.zeros(M, dtype=np.int64)
    k = 0
    rows = np.arange(M)
    while k < record_at.size and record_at[k] == 0:
        gap[:, k] = f
        k += 1
    for t in range(n_steps):
        f_new, move = f.copy(), np.zeros((M, d))
        for _ in range(b):
            if distribution == "coordinate":
                S = np.zeros((M, d))
                S[rows, rng.integers(0, d, M)] = 1.0
            else:
                S = rng.standard_normal((M, d))
                S /= np.linalg.norm(S, axis=1, keepdims=True) if distribution == "sphere" else np.sqrt(d)
            if step == "exact":
                U = theta - theta_star
                G = lam * U if power == 2.0 else lam * np.sign(U) * np.abs(U) ** (power - 1)
                alpha = np.abs(np.einsum("md,md->m", G, S)) / L
            elif step == "finite_difference":
                alpha = np.abs(_f_numpy(lam, theta_star, power, theta + h * S) - f) / (h * L)
            else:
                alpha = np.full(M, alpha0 * (t + 1.0) ** (-gamma))
            D = alpha[:, None] * S
            fp = _f_numpy(lam, theta_star, power, theta + D)
            fm = _f_numpy(lam, theta_star, power, theta - D)
            plus = (fp < f_new) & (fp <= fm)
            minus = ~plus & (fm < f_new)
            move[plus], move[minus] = D[plus], -D[minus]
            f_new = np.where(plus, fp, np.where(minus, fm, f_new))
        better = f_new < f
        theta[better] += move[better]
        f = np.where(better, f_new, f)
        rejected += ~better
        while k < record_at.size and record_at[k] == t + 1:
            gap[:, k] = f
            k += 1
    return _finish(record_at, gap, rejected, step, b, L, f0)


def contraction_bound(mu: float, L: float, d: int, *, moment: str = "second") -> float:
    """The per-step contraction of E[f - f*] that the strongly convex analysis guarantees.

    ``moment="second"``: 1 - mu/(d L) [third-party: the reviewed abstract, OpenReview; derived]: with
    alpha = |g.s|/L and the better sign, f(theta+) <= f - (g.s)^2/(2L); E(g.s)^2 = |g|^2/d for E ss^T = I/d,
    and |g|^2 >= 2 mu (f - f*), so E[f+ - f*] <= (1 - mu/(dL)) (f - f*).
    ``moment="first"``: 1 - mu/(2 pi d L) [paper: ICLR abstract], from the first-moment bound
    E|g.s| >= |g| / sqrt(2 pi d) (Bergou et al.'s mu_D for the sphere) squared.
    """
    mu = check_real("mu", mu, low=0.0, low_open=True)
    L = check_real("L", L, low=mu)
    d = check_size("d", d, budget=10**12)
    moment = check_choice("moment", moment, ("second", "first"))
    c = 1.0 if moment == "second" else 1.0 / (2 * np.pi)
    return 1.0 - c * mu / (d * L)


def expected_gap(lam, theta0, *, record_at, theta_star=None, L=None, distribution: str = "sphere") -> np.ndarray:
    """E[f(theta_t) - f*] at ``record_at`` for exact-step STP (b = 1) on the quadratic p = 2, exactly [derived].

    With u = theta - theta*, g = lam * u and a unit direction s, the exact step gives y = theta - (g.s) s / L
    (f(y) <= f(theta) because s^T diag(lam) s <= L; the opposite point is worse than theta by convexity), so
    STP moves to y.  Taking expectations over s with E[s_i s_j] = delta_ij / d and E[s_i^2 s_j^2] = c_ij,
    the second moments m_i = E u_i^2 obey the linear recursion

        m_i' = m_i (1 - 2 lam_i / (d L)) + sum_j c_ij lam_j^2 m_j / L^2,

    c_ij = (1 + 2 delta_ij) / (d (d + 2)) on the sphere and delta_ij / d for random coordinates; and
    E[f - f*] = 1/2 sum_i lam_i m_i.  (The normal law is not unit-norm: no closed form here.)
    """
    lam, theta0, theta_star, _, _ = _objective(lam, theta0, theta_star, 2.0)
    d = lam.size
    L = float(lam.max()) if L is None else check_real("L", L, low=float(lam.max()))
    distribution = check_choice("distribution", distribution, ("sphere", "coordinate"))
    record_at = check_array("record_at", record_at, ndim=1, dtype=np.int64)
    if record_at.size == 0 or np.any(record_at < 0) or np.any(np.diff(record_at) < 0):
        raise ValueError(f"record_at must be a non-empty non-decreasing array of counts >= 0; got {record_at[:8]!r}")
    steps = np.diff(np.concatenate([[0], record_at]))
    flops = d**3 * int(sum(max(1, int(n).bit_length()) for n in steps))
    check_budget("the recursion's matrix powers d^3 sum(log2 steps)", flops, max_elements=2 * 10**9, d=d,
                 record_points=record_at.size)
    C = (np.ones((d, d)) + 2 * np.eye(d)) / (d * (d + 2)) if distribution == "sphere" else np.eye(d) / d
    A = np.diag(1 - 2 * lam / (d * L)) + C * (lam**2)[None, :] / L**2
    m = (theta0 - theta_star) ** 2
    out = np.empty(record_at.size)
    for k, n in enumerate(steps):
        if n:
            m = np.linalg.matrix_power(A, int(n)) @ m
        out[k] = 0.5 * lam @ m
    return out


def convex_bound(lam, theta0, *, theta_star=None, power: float = 2.0, L=None) -> float:
    """Phi_0 = f(theta0) - f* + (L/2) |theta0 - theta*|^2, with T E[f(theta_T) - f*] / d <= Phi_0 [derived].

    The O(d/T) rate of the convex theorem [paper, abstract] with a constant: for exact-step STP with a unit
    direction law (E ss^T = I/d), y = theta - (g.s)s/L satisfies E f(y) <= f - |g|^2/(2dL) and
    E|y - theta*|^2 = |u|^2 - 2 g.u/(dL) + |g|^2/(dL^2); so Phi = f - f* + (L/2)|u|^2 obeys
    E Phi+ <= Phi - g.u/d <= Phi - (f - f*)/d (convexity).  Summing, sum_{t<T} E[f_t - f*] <= d Phi_0, and
    f_t is non-increasing along a path, hence T E[f_T - f*] <= d Phi_0.  (STP keeps the best of three points;
    the point opposite to y is worse than theta by convexity, so on the quadratic STP always moves to y; for
    p > 2, L holds on a box around theta* that y may leave, STP may then stay at theta, and the bound is
    checked there, not implied.)
    """
    lam, theta0, theta_star, power, f0 = _objective(lam, theta0, theta_star, power)
    if L is None:
        L = smoothness_constant(lam, theta0, theta_star=theta_star, power=power)
    L = check_real("L", L, low=0.0, low_open=True)
    return f0 + 0.5 * L * float(np.sum((theta0 - theta_star) ** 2))
