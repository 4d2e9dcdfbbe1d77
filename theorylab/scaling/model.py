"""Student-teacher soft committee machine with a power-law data spectrum: set-up and SGD.

Worschech & Rosenow, "Analyzing Neural Scaling Laws in Two-Layer Networks with Power-Law
Data Spectra", ICLR 2025, arXiv:2410.09005, Sec. 2 (set-up).  The input covariance Sigma has
L distinct eigenvalues ``lambda_l = lambda_+ l^-(1+beta)`` (l = 1..L), each of multiplicity
N/L, normalised so that Tr(Sigma)/N = 1 (this normalisation is a spec hypothesis, see
README of the check module; it is the one under which the plateau shortens as L grows).
"""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd

from theorylab.core import (SimulationDiverged, as_generator, check_array, check_choice, check_int, check_positive,
                            check_real, require_bounded, spawn_seeds)

from . import _kernels as kr
from ._budget import check_memory, check_times, check_work

MAX_BETA = 50.0  # lambda_l ~ l^-(1+beta): beyond this the tail eigenvalues underflow for L >~ 1e6

ACTIVATIONS = ("erf", "linear")


def check_sizes(N, L, K=1, M=1):
    """Validate N, L, K, M; L must divide N (every eigenvalue has multiplicity N/L)."""
    N = check_int("N", N, low=1)
    L = check_int("L", L, low=1, high=N)
    K = check_int("K", K, low=1)
    M = check_int("M", M, low=1)
    check_memory("the weights (K + M) x N", (K + M) * N, N=N, K=K, M=M)
    if N % L:
        raise ValueError(f"L must divide N (each of the L eigenvalues has multiplicity N/L); got N={N}, L={L}")
    return N, L, K, M


def check_beta(beta):
    """beta in (0, MAX_BETA]."""
    return check_real("beta", beta, low=0.0, low_open=True, high=MAX_BETA)


def check_seed(seed):
    """A root seed: a non-negative integer (or a numpy Generator, passed through)."""
    if isinstance(seed, np.random.Generator):
        return seed
    return check_int("seed", seed, low=0, high=2 ** 63 - 1)


def eigenvalues(L, beta):
    """The L distinct eigenvalues ``lambda_l = lambda_+ l^-(1+beta)``, mean 1 (Sec. 2).

    Parameters
    ----------
    L : int
        Number of distinct eigenvalues, >= 1.
    beta : float
        Power-law exponent, > 0.

    Returns
    -------
    ndarray (L,)
        Decreasing eigenvalues with ``mean == 1`` (so Tr Sigma / N = 1).
    """
    L = check_int("L", L, low=1)
    beta = check_beta(beta)
    check_memory("the eigenvalues", L, L=L)
    w = np.arange(1, L + 1, dtype=float) ** -(1.0 + beta)
    lam = w * (L / w.sum())
    if not lam[-1] > np.finfo(float).tiny:
        raise ValueError(f"L={L}, beta={beta}: the smallest eigenvalue L^-(1+beta) underflows to "
                         f"{lam[-1]:.3g}; use a smaller beta or L")
    return lam


def spectrum(N, L, beta):
    """Per-coordinate eigenvalues (N,) in the eigenbasis: group l holds coordinates l*N/L..(l+1)*N/L-1."""
    N, L, _, _ = check_sizes(N, L)
    return np.repeat(eigenvalues(L, beta), N // L)


TEACHERS = ("gaussian", "sign")


def init_weights(N, K, M, *, sigma_J=0.01, teacher="gaussian", seed=0):
    """Random initial student J (K, N) with entries N(0, sigma_J^2) and teacher B (M, N).

    ``teacher="gaussian"``: B entries N(0, 1) (the paper's set-up).  ``teacher="sign"``: B entries
    +-1, so every coordinate carries teacher power exactly 1; this is the D_l(0) = 1 of the
    linear closed forms also when the multiplicity N/L is 1 (L = N), where a Gaussian teacher
    gives D_l(0) ~ chi^2_1 per eigenvalue instead of its mean 1.
    """
    N = check_int("N", N, low=1)
    K = check_int("K", K, low=1)
    M = check_int("M", M, low=1)
    check_memory("the weights (K + M) x N", (K + M) * N, N=N, K=K, M=M)
    sigma_J = check_real("sigma_J", sigma_J, low=0.0, high=1e3)
    teacher = check_choice("teacher", teacher, TEACHERS)
    rng = as_generator(check_seed(seed))
    B = rng.standard_normal((M, N))
    if teacher == "sign":
        B = np.sign(B)
    J = sigma_J * rng.standard_normal((K, N))
    return J, B


def group_overlaps(J, B, L):
    """Per-eigen-group overlaps q^l = (L/N) J_l J_l^T, r^l = (L/N) J_l B_l^T, t^l = (L/N) B_l B_l^T.

    The hierarchy of the paper, Q^(m) = J Sigma^m J^T / N, is ``(1/L) sum_l lambda_l^m q^l``.
    """
    J = check_array("J", J, ndim=2)
    B = check_array("B", B, ndim=2)
    K, N = J.shape
    M = B.shape[0]
    if B.shape[1] != N or K == 0 or M == 0 or N == 0:
        raise ValueError(f"J (K, N) and B (M, N) must be non-empty with the same N; got shapes {J.shape}, {B.shape}")
    L = check_int("L", L, low=1, high=N)
    if N % L:
        raise ValueError(f"L must divide N; got N={N}, L={L}")
    n = N // L
    Jg = J.reshape(K, L, n).transpose(1, 0, 2)
    Bg = B.reshape(M, L, n).transpose(1, 0, 2)
    q = np.einsum("lia,lka->lik", Jg, Jg) / n
    r = np.einsum("lia,lna->lin", Jg, Bg) / n
    t = np.einsum("lma,lna->lmn", Bg, Bg) / n
    return q, r, t


def _rec_steps(alphas, N):
    alphas = check_times("alphas", alphas)
    if not alphas[-1] * N < 2.0 ** 62:
        raise ValueError(f"alphas: the last time {alphas[-1]:.3g} is {alphas[-1] * N:.3g} steps at N={N}, beyond int64")
    return np.round(alphas * N).astype(np.int64)


def check_eta(eta, activation):
    """eta in (0, 2): for the linear network the online dynamics is unstable for eta >= 2 Tr(Sigma)/N = 2."""
    eta = check_positive("eta", eta)
    if eta > 1e3:
        raise ValueError(f"eta must be a finite float in (0, 1e3]; got {eta}")
    if activation == "linear" and eta >= 2.0:
        raise ValueError(f"eta must be in (0, 2) for the linear activation (the mean-square dynamics "
                         f"dD/dalpha = (-2 eta diag(lambda) + eta^2 lambda lambda^T / L) D is unstable "
                         f"for eta >= 2 Tr(Sigma)/N = 2); got {eta}")
    return eta


def sgd_stability_sum(eta, lam, n_trained):
    """``(a/2) sum_{k <= n_trained} lam_k / (1 - a lam_k)`` with ``a = eta / N`` (N = ``lam.size``),
    ``inf`` if some ``a lam_k >= 1``: linear one-pass SGD is mean-square stable iff it is < 1
    (:func:`check_eta_sgd`), and ``1 -`` it is the denominator of its stationary error
    (:func:`theorylab.scaling.trainable_final_error` with ``finite_n=True``)."""
    lam = np.asarray(lam, float)
    x = eta / lam.size * lam[:n_trained]
    return float(0.5 * np.sum(x / (1.0 - x))) if np.all(x < 1.0) else np.inf


def check_eta_sgd(eta, lam, n_trained):
    """Mean-square stability of linear one-pass SGD at finite N; raises ValueError outside it.

    ``lam``: the N per-coordinate eigenvalues; only the first ``n_trained`` coordinates move.
    Per coordinate, with a = eta/N, E[u_k^2] <- m_k E[u_k^2] + a^2 lam_k sum_j lam_j E[u_j^2] with
    m_k = 1 - 2 a lam_k (1 - a lam_k) (Gaussian inputs; sums over trained coordinates).  This
    diagonal-plus-rank-one map has spectral radius < 1 iff a lam_k < 1 for every trained k and
    (a/2) sum_k lam_k/(1 - a lam_k) < 1; for N -> infinity this is the ODE range eta < 2.
    """
    lam = np.asarray(lam, float)
    s = sgd_stability_sum(eta, lam, n_trained)
    if s >= 1.0:
        x = eta / lam.size * lam[:n_trained]
        raise ValueError(f"eta={eta} is outside the stable range of linear one-pass SGD at N={lam.size} "
                         f"(largest eta lam_k/N = {x.max():.3g}, stability sum (eta/2N) sum lam_k/(1 - eta lam_k/N) = "
                         f"{s:.3g}, must be < 1): E[eps_g], which the linear ODE describes, grows without bound")
    return eta


def simulate_sgd(*, N=1024, L=8, K=2, M=2, beta=1.0, eta=0.1, sigma_J=0.01, activation="erf",
                 alphas=None, n_seeds=1, n_trained=None, teacher="gaussian", seed=0, return_init=False):
    """One-pass SGD of the soft committee machine; eps_g exactly from the order parameters.

    Parameters
    ----------
    N, L, K, M : int
        Input dimension, number of distinct eigenvalues (must divide N), student and teacher
        hidden units.
    beta : float
        Spectral exponent, lambda_l ~ l^-(1+beta).
    eta : float
        Learning rate (J_i <- J_i + (eta/sqrt N) delta_i xi).
    sigma_J : float
        Standard deviation of the initial student entries.
    activation : {"erf", "linear"}
        g(x) = erf(x/sqrt 2) or g(x) = x.
    alphas : array, optional
        Times alpha = steps/N at which eps_g is recorded (default 0 and 59 log-spaced points from 1/N to 10).
    n_seeds : int
        Independent paths (teacher, student init and data all drawn per path), run in parallel.
    n_trained : int, optional
        Train only the first ``n_trained`` eigen-coordinates (Sec. 4.3); default all N.
    teacher : {"gaussian", "sign"}
        Teacher entries N(0, 1) or +-1 (see :func:`init_weights`).
    seed : int
        Root seed; path p uses ``spawn_seeds(seed, n_seeds)[p]``.
    return_init : bool
        Also return the initial weights (J0 (P, K, N), B (P, M, N)) used by every path.

    Returns
    -------
    DataFrame
        Columns ``alpha``, ``seed_index``, ``eps_g`` (long format).

    Raises
    ------
    SimulationDiverged
        If a path becomes non-finite or explodes.
    """
    N, L, K, M = check_sizes(N, L, K, M)
    n_seeds = check_int("n_seeds", n_seeds, low=1)
    check_memory("the weights of all paths (n_seeds x (K + M) x N)", n_seeds * (K + M) * N, n_seeds=n_seeds, N=N,
                 K=K, M=M)
    return _run_paths(N=N, Ls=[L] * n_seeds, K=K, M=M, beta=beta, eta=eta, sigma_J=sigma_J, activation=activation,
                      alphas=alphas, n_trained=n_trained, teacher=teacher, seed=seed, return_init=return_init)


def simulate_sgd_over_L(*, N=1024, Ls=(1, 4, 16), K=2, M=2, beta=1.0, eta=0.1, sigma_J=0.01, activation="erf",
                        alphas=None, teacher="gaussian", seed=0, return_init=False):
    """One SGD path per value of L, all run in parallel (Fig. 1 of the paper).

    Same parameters as :func:`simulate_sgd`, with ``Ls`` a sequence of L values (each must
    divide N).  The table's ``seed_index`` p is the path of ``Ls[p]``; a column ``L`` is added.
    """
    N = check_int("N", N, low=1)
    if isinstance(Ls, (str, bytes)) or not hasattr(Ls, "__len__"):
        raise TypeError(f"Ls must be a sequence of integers; got {Ls!r}")
    Ls = [check_int(f"Ls[{i}]", L, low=1, high=N) for i, L in enumerate(Ls)]
    check_memory("the weights of all paths (len(Ls) x (K + M) x N)", len(Ls) * (check_int("K", K, low=1) +
                 check_int("M", M, low=1)) * N, n_paths=len(Ls), N=N, K=K, M=M)
    Ls = [check_sizes(N, L, K, M)[1] for L in Ls]
    if not Ls:
        raise ValueError("Ls must hold at least one value of L")
    out = _run_paths(N=N, Ls=Ls, K=K, M=M, beta=beta, eta=eta, sigma_J=sigma_J, activation=activation,
                     alphas=alphas, n_trained=None, teacher=teacher, seed=seed, return_init=return_init)
    table = out[0] if return_init else out
    table["L"] = np.asarray(Ls)[table.seed_index.to_numpy()]
    return out


def _run_paths(*, N, Ls, K, M, beta, eta, sigma_J, activation, alphas, n_trained, teacher, seed, return_init):
    if not isinstance(return_init, (bool, np.bool_)):
        raise TypeError(f"return_init must be True or False; got {return_init!r:.60}")
    N, _, K, M = check_sizes(N, Ls[0], K, M)
    activation = check_choice("activation", activation, ACTIVATIONS)
    beta = check_beta(beta)
    eta = check_eta(eta, activation)
    sigma_J = check_real("sigma_J", sigma_J, low=0.0, high=1e3)
    teacher = check_choice("teacher", teacher, TEACHERS)
    seed = check_seed(seed)
    n_seeds = len(Ls)
    n_trained = N if n_trained is None else check_int("n_trained", n_trained, low=0, high=N)
    if alphas is None:
        alphas = np.concatenate([[0.0], np.geomspace(1.0 / N, 10.0, 59)])
    rec = _rec_steps(alphas, N)
    size = dict(n_seeds=n_seeds, N=N, K=K, M=M)
    check_memory("the weights of all paths (n_seeds x (K + M) x N)", n_seeds * (K + M) * N, **size)
    check_memory("the recorded errors (n_seeds x len(alphas))", n_seeds * rec.size, n_seeds=n_seeds,
                 n_alphas=rec.size)
    # each path (one per thread at a time) holds its (K + M) x (K + M) order parameters, inside the kernel
    check_memory("the order parameters of the paths run at once (threads x (K + M)^2)",
                 min(n_seeds, numba.get_num_threads()) * (K + M) ** 2, **size)
    # per step: N normals, (K + M) N multiply-adds for the pre-activations, K N for the update; per
    # recorded alpha: the (K + M)^2 N order parameters
    check_work("one-pass SGD (n_seeds x (alphas[-1] N steps x (2K + M + 1) N + len(alphas) (K + M)^2 N))",
               float(n_seeds) * (float(rec[-1]) * (2 * K + M + 1) + rec.size * float(K + M) ** 2) * N,
               alpha_max=float(rec[-1]) / N, **size)
    lam = np.stack([spectrum(N, L, beta) for L in Ls])
    if activation == "linear":
        for lam_p in lam:
            check_eta_sgd(eta, lam_p, n_trained)
    seeds = spawn_seeds(seed, 2 * n_seeds)
    J0 = np.empty((n_seeds, K, N))
    B0 = np.empty((n_seeds, M, N))
    for p in range(n_seeds):
        J0[p], B0[p] = init_weights(N, K, M, sigma_J=sigma_J, teacher=teacher, seed=int(seeds[2 * p]))
    run_seeds = (seeds[1::2] & np.uint64(0xFFFFFFFF)).astype(np.int64)
    blowup = divergence_bound(J0, B0, lam, activation)
    eps, status = kr.sgd_paths(J0, B0, lam, n_trained, eta, activation == "erf", rec, run_seeds, blowup)
    bad = np.flatnonzero(status >= 0)
    ctx = dict(N=N, K=K, M=M, beta=beta, eta=eta, activation=activation)
    if bad.size:
        p = int(bad[0])
        raise SimulationDiverged(f"SGD diverged on path {p} before alpha={rec[status[p]] / N:g}: eps_g non-finite or "
                                 f"above the bound {blowup[p]:.3g} (see divergence_bound) with L={Ls[p]}, "
                                 + ", ".join(f"{k}={v!r}" for k, v in ctx.items()))
    require_bounded("eps_g", eps, float(blowup.max()), **ctx)
    table = pd.DataFrame({"alpha": np.tile(rec / N, n_seeds), "seed_index": np.repeat(np.arange(n_seeds), rec.size),
                          "eps_g": eps.ravel()})
    if return_init:
        return table, (J0, B0)
    return table


def divergence_bound(J0, B0, lam, activation):
    """Per-path bound on eps_g beyond which a run has diverged (derived, not a catch-all).

    erf: |g| <= 1, so |f - y| <= sqrt(K) + sqrt(M) and eps_g <= (sqrt K + sqrt M)^2 / 2 on every
    path, whatever the weights; a value above it (times 1 + 1e-9 for rounding) is a numerical
    failure.  linear: in the mean-square stable range (checked by :func:`check_eta_sgd`)
    E[eps_g] decays from its initial value eps_0; a single path fluctuates around the mean by a
    factor that grows like exp(O(alpha eta^2 / N)), so 1e6 eps_0 (floored at 1e-300) marks a
    run that has left the regime the ODE describes.
    """
    P, K, N = J0.shape
    M = B0.shape[1]
    if activation == "erf":
        return np.full(P, 0.5 * (np.sqrt(K) + np.sqrt(M)) ** 2 * (1 + 1e-9))
    u = J0.sum(axis=1) / np.sqrt(K) - B0.sum(axis=1) / np.sqrt(M)  # (P, N): the linear error vector
    eps0 = 0.5 * np.sum(lam * u * u, axis=1) / N
    return 1e6 * np.maximum(eps0, 1e-300)


def sgd_reference_numpy(J0, B, lam, *, eta, erf, n_steps, seed=0):
    """Vectorised numpy one-pass SGD over a batch of paths (benchmark reference only).

    J0: (P, K, N), B: (P, M, N), lam: (N,).  Student and teacher rows share one (P, K+M, N)
    array so that one batched matmul gives all pre-activations; normals from numpy's
    ziggurat generator.  Returns the final J.
    """
    from scipy.special import erf as erf_fn

    rng = as_generator(seed)
    P, K, N = np.shape(J0)
    M = B.shape[1]
    W = np.concatenate([np.asarray(J0, float), np.asarray(B, float)], axis=1)
    J = W[:, :K]  # a view: updating J updates W
    sq = np.sqrt(lam) / np.sqrt(N)  # xi/sqrt(N) in one multiply
    c_out = np.concatenate([-np.full(K, 1 / np.sqrt(K)), np.full(M, 1 / np.sqrt(M))])
    c_gp = np.sqrt(2 / np.pi)
    for _ in range(n_steps):
        xs = rng.standard_normal((P, N)) * sq  # xi / sqrt(N)
        u = np.matmul(W, xs[:, :, None])[:, :, 0]  # (P, K+M) pre-activations
        g = erf_fn(u * (1 / np.sqrt(2))) if erf else u
        err = g @ c_out  # y - f
        gp = c_gp * np.exp(-0.5 * u[:, :K] ** 2) if erf else 1.0
        delta = (eta / np.sqrt(K)) * gp * err[:, None]  # eta/sqrt(N) folded into xs
        J += delta[:, :, None] * xs[:, None, :]
    return np.array(J)
