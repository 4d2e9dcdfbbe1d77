"""Student-teacher soft committee machine with a power-law data spectrum: set-up and SGD.

Worschech & Rosenow, "Analyzing Neural Scaling Laws in Two-Layer Networks with Power-Law
Data Spectra", ICLR 2025, arXiv:2410.09005, Sec. 2 (set-up).  The input covariance Sigma has
L distinct eigenvalues ``lambda_l = lambda_+ l^-(1+beta)`` (l = 1..L), each of multiplicity
N/L, normalised so that Tr(Sigma)/N = 1 (this normalisation is a spec hypothesis, see
README of the check module; it is the one under which the plateau shortens as L grows).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core import SimulationDiverged, as_generator, check_choice, check_int, check_positive, check_real, spawn_seeds

from . import _kernels as kr

ACTIVATIONS = ("erf", "linear")


def check_sizes(N, L, K=1, M=1):
    """Validate N, L, K, M; L must divide N (every eigenvalue has multiplicity N/L)."""
    N = check_int("N", N, low=1)
    L = check_int("L", L, low=1, high=N)
    K = check_int("K", K, low=1)
    M = check_int("M", M, low=1)
    if N % L:
        raise ValueError(f"L must divide N (each of the L eigenvalues has multiplicity N/L); got N={N}, L={L}")
    return N, L, K, M


def check_beta(beta):
    return check_real("beta", beta, low=0.0, low_open=True)


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
    w = np.arange(1, L + 1, dtype=float) ** -(1.0 + beta)
    return w * (L / w.sum())


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
    sigma_J = check_real("sigma_J", sigma_J, low=0.0)
    teacher = check_choice("teacher", teacher, TEACHERS)
    rng = as_generator(seed)
    B = rng.standard_normal((M, N))
    if teacher == "sign":
        B = np.sign(B)
    J = sigma_J * rng.standard_normal((K, N))
    return J, B


def group_overlaps(J, B, L):
    """Per-eigen-group overlaps q^l = (L/N) J_l J_l^T, r^l = (L/N) J_l B_l^T, t^l = (L/N) B_l B_l^T.

    The hierarchy of the paper, Q^(m) = J Sigma^m J^T / N, is ``(1/L) sum_l lambda_l^m q^l``.
    """
    J = np.asarray(J, float)
    B = np.asarray(B, float)
    K, N = J.shape
    M = B.shape[0]
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
    alphas = np.asarray(alphas, float)
    if alphas.ndim != 1 or alphas.size == 0 or np.any(alphas < 0) or np.any(np.diff(alphas) < 0):
        raise ValueError(f"alphas must be a non-empty, non-decreasing 1-d array of times >= 0; got {alphas!r}")
    return np.round(alphas * N).astype(np.int64)


def check_eta(eta, activation):
    """eta in (0, 2): for the linear network the online dynamics is unstable for eta >= 2 Tr(Sigma)/N = 2."""
    eta = check_positive("eta", eta)
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
        Times alpha = steps/N at which eps_g is recorded (default 60 log-spaced points to 100).
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
    return _run_paths(N=N, Ls=[L] * n_seeds, K=K, M=M, beta=beta, eta=eta, sigma_J=sigma_J, activation=activation,
                      alphas=alphas, n_trained=n_trained, teacher=teacher, seed=seed, return_init=return_init)


def simulate_sgd_over_L(*, N=1024, Ls=(1, 4, 16), K=2, M=2, beta=1.0, eta=0.1, sigma_J=0.01, activation="erf",
                        alphas=None, teacher="gaussian", seed=0, return_init=False):
    """One SGD path per value of L, all run in parallel (Fig. 1 of the paper).

    Same parameters as :func:`simulate_sgd`, with ``Ls`` a sequence of L values (each must
    divide N).  The table's ``seed_index`` p is the path of ``Ls[p]``; a column ``L`` is added.
    """
    N = check_int("N", N, low=1)
    Ls = [check_sizes(N, L, K, M)[1] for L in Ls]
    if not Ls:
        raise ValueError("Ls must hold at least one value of L")
    out = _run_paths(N=N, Ls=Ls, K=K, M=M, beta=beta, eta=eta, sigma_J=sigma_J, activation=activation,
                     alphas=alphas, n_trained=None, teacher=teacher, seed=seed, return_init=return_init)
    table = out[0] if return_init else out
    table["L"] = np.asarray(Ls)[table.seed_index.to_numpy()]
    return out


def _run_paths(*, N, Ls, K, M, beta, eta, sigma_J, activation, alphas, n_trained, teacher, seed, return_init):
    N, _, K, M = check_sizes(N, Ls[0], K, M)
    activation = check_choice("activation", activation, ACTIVATIONS)
    beta = check_beta(beta)
    eta = check_eta(eta, activation)
    n_seeds = len(Ls)
    n_trained = N if n_trained is None else check_int("n_trained", n_trained, low=0, high=N)
    if alphas is None:
        alphas = np.concatenate([[0.0], np.geomspace(1.0 / N, 100.0, 59)])
    rec = _rec_steps(alphas, N)
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
    eps, status = kr.sgd_paths(J0, B0, lam, n_trained, eta, activation == "erf", rec, run_seeds)
    bad = np.flatnonzero(status >= 0)
    if bad.size:
        p = int(bad[0])
        raise SimulationDiverged(f"SGD diverged on path {p} before alpha={rec[status[p]] / N:g} with "
                                 f"N={N}, L={Ls[p]}, K={K}, M={M}, beta={beta}, eta={eta}, activation={activation!r}")
    table = pd.DataFrame({"alpha": np.tile(rec / N, n_seeds), "seed_index": np.repeat(np.arange(n_seeds), rec.size),
                          "eps_g": eps.ravel()})
    if return_init:
        return table, (J0, B0)
    return table


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
