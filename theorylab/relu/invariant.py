"""The divisibility invariant behind AHM's lower bound, measured on random networks.

For a bias-free network with k hidden layers and N-ary weights, the Newton polytopes of its
last hidden layer's neurons and of its output lie in the k-th SU class; the invariant
(AHM Sec. 4, generalising HHL's parity argument, p = 2, integer weights) says: every face of
dimension d >= p^k has normalized volume divisible by p (v_p >= 1) whenever p does not divide N.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core.seeding import spawn_seeds
from theorylab.core.validate import check_int, check_real

from .bounds import is_prime
from .polytopes import MAX_COORD, face_volumes, newton_polytopes, p_adic_valuation
from .random_nets import check_widths, random_nary_network

#: Most networks of one table (each builds and enumerates its Newton polytopes, ~0.1-10 s).
MAX_NETWORKS = 10**5


def volume_invariant_table(*, n: int, widths, N: int, p: int, n_networks: int, seed=0,
                           max_numerator: int = 1, p_zero: float = 0.0, min_dim: int = 2) -> pd.DataFrame:
    """One row per face (dim >= ``min_dim``) of the polytopes of ``n_networks`` random networks.

    Parameters
    ----------
    n : int
        Input dimension (ambient dimension of the polytopes).
    widths : sequence of int
        Hidden widths; k = len(widths) hidden layers.
    N : int
        Weights are N-ary fractions (N = 1: integers).
    p : int
        A prime; the invariant is predicted for p not dividing N, faces of dim >= p^k.
    n_networks : int
    seed : int

    Returns
    -------
    DataFrame with columns network, polytope, dim, volume (str), v_p, threshold, above, divisible.
    """
    n = check_int("n", n, low=1)
    N = check_int("N", N, low=1, high=MAX_COORD)
    p = check_int("p", p, low=2, high=MAX_COORD)
    if not is_prime(p):
        raise ValueError(f"p must be a prime; got {p}")
    n_networks = check_int("n_networks", n_networks, low=1, high=MAX_NETWORKS)
    widths = check_widths(widths, min_layers=1)
    max_numerator = check_int("max_numerator", max_numerator, low=1, high=MAX_COORD)
    p_zero = check_real("p_zero", p_zero, low=0.0, high=1.0, high_open=True)
    min_dim = check_int("min_dim", min_dim, low=0, high=n)
    k = len(widths)
    threshold = p ** k
    rows = []
    for i, s in enumerate(spawn_seeds(seed, n_networks)):
        net = random_nary_network(n, widths, N=N, seed=int(s), max_numerator=max_numerator, p_zero=p_zero)
        outs, layers = newton_polytopes(net, keep_layers=True)
        polys = {f"h{j}_{t}": P for j, pair in enumerate(layers[-1]) for t, P in zip("GH", pair)}
        polys.update({"out_P": outs[0][0], "out_Q": outs[0][1]})
        for name, P in polys.items():
            for d, vol in face_volumes(P, min_dim):
                v = p_adic_valuation(vol, p)
                rows.append({"network": i, "polytope": name, "dim": d, "volume": str(vol),
                             "v_p": float(v), "threshold": threshold, "above": d >= threshold,
                             "divisible": v >= 1})
    return pd.DataFrame(rows, columns=["network", "polytope", "dim", "volume", "v_p", "threshold", "above",
                                       "divisible"])
