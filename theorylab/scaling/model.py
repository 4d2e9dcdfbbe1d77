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


def init_weights(N, K, M, *, sigma_J=0.01, seed=0):
    """Random initial student J (K, N) with entries N(0, sigma_J^2) and teacher B (M, N) with N(0, 1)."""
    N = check_int("N", N, low=1)
    K = check_int("K", K, low=1)
    M = check_int("M", M, low=1)
    sigma_J = check_real("sigma_J", sigma_J, low=0.0)
    rng = as_generator(seed)
    B = rng.standard_normal((M, N))
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


def simulate_sgd(*, N=1024, L=8, K=2, M=2, beta=1.0, eta=0.1, sigma_J=0.01, activation="erf",
                 alphas=None, n_seeds=1, n_trained=None, seed=0, return_init=False):
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
    activation = check_choice("activation", activation, ACTIVATIONS)
    beta = check_beta(beta)
    eta = check_eta(eta, activation)
    n_seeds = check_int("n_seeds", n_seeds, low=1)
    n_trained = N if n_trained is None else check_int("n_trained", n_trained, low=0, high=N)
    if alphas is None:
        alphas = np.concatenate([[0.0], np.geomspace(1.0 / N, 100.0, 59)])
    rec = _rec_steps(alphas, N)
    lam = spectrum(N, L, beta)
    seeds = spawn_seeds(seed, 2 * n_seeds)
    J0 = np.empty((n_seeds, K, N))
    B0 = np.empty((n_seeds, M, N))
    for p in range(n_seeds):
        J0[p], B0[p] = init_weights(N, K, M, sigma_J=sigma_J, seed=int(seeds[2 * p]))
    run_seeds = (seeds[1::2] & np.uint64(0xFFFFFFFF)).astype(np.int64)
    eps, status = kr.sgd_paths(J0, B0, np.tile(lam, (n_seeds, 1)), n_trained, eta, activation == "erf",
                               rec, run_seeds)
    bad = np.flatnonzero(status >= 0)
    if bad.size:
        p = int(bad[0])
        raise SimulationDiverged(f"SGD diverged on path {p} before alpha={rec[status[p]] / N:g} with "
                                 f"N={N}, L={L}, K={K}, M={M}, beta={beta}, eta={eta}, activation={activation!r}")
    table = pd.DataFrame({"alpha": np.tile(rec / N, n_seeds), "seed_index": np.repeat(np.arange(n_seeds), rec.size),
                          "eps_g": eps.ravel()})
    if return_init:
        return table, (J0, B0)
    return table


def sgd_reference_numpy(J0, B, lam, *, eta, erf, n_steps, seed=0):
    """Vectorised numpy one-pass SGD over a batch of paths (benchmark reference only).

    J0: (P, K, N), B: (P, M, N), lam: (N,).  Returns the final J.
    """
    rng = as_generator(seed)
    J = np.array(J0, float)
    P, K, N = J.shape
    M = B.shape[1]
    sq = np.sqrt(lam)
    for _ in range(n_steps):
        xi = rng.standard_normal((P, N)) * sq
        x = np.einsum("pkn,pn->pk", J, xi) / np.sqrt(N)
        yp = np.einsum("pmn,pn->pm", B, xi) / np.sqrt(N)
        if erf:
            from scipy.special import erf as _erf
            f = _erf(x / np.sqrt(2)).sum(1) / np.sqrt(K)
            y = _erf(yp / np.sqrt(2)).sum(1) / np.sqrt(M)
            gp = np.sqrt(2 / np.pi) * np.exp(-0.5 * x * x)
        else:
            f, y, gp = x.sum(1) / np.sqrt(K), yp.sum(1) / np.sqrt(M), 1.0
        delta = eta / np.sqrt(N) * gp * ((y - f) / np.sqrt(K))[:, None]
        J += delta[:, :, None] * xi[:, None, :]
    return J
