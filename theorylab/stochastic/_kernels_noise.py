"""Jitted draws of the gradient-noise laws of theorylab.stochastic.noise (no input checking here).

Each draw takes a xoshiro256** state of theorylab.core.rng and returns one real number of unit scale:

* LAW_GAUSSIAN: N(0, 1) (ziggurat of core.rng);
* LAW_STUDENT_T: Student-t with ``nu`` degrees of freedom by Bailey's polar method (R. W. Bailey,
  "Polar generation of random variates with the t-distribution", Math. Comp. 62 (1994) 779-781):
  (U, V) uniform on the unit disc, W = U^2 + V^2, T = U sqrt(nu (W^(-2/nu) - 1) / W);
* LAW_PARETO: symmetric Pareto of the second kind (Lomax) with tail index ``nu``: |X| = U^(-1/nu) - 1,
  so P(|X| > x) = (1 + x)^(-nu), and a fair random sign.
"""

import numpy as np
from numba import njit

from ..core.rng import normal, seed_state, uniform

LAW_GAUSSIAN = 0
LAW_STUDENT_T = 1
LAW_PARETO = 2


@njit(cache=True)
def student_t(state, nu):
    """Bailey's polar Student-t(nu) variate."""
    while True:
        u = 2.0 * uniform(state) - 1.0          # never exactly 0 (uniform is an odd multiple of 2^-53)
        v = 2.0 * uniform(state) - 1.0
        w = u * u + v * v
        if w < 1.0:
            return u * np.sqrt(nu * (np.exp((-2.0 / nu) * np.log(w)) - 1.0) / w)


@njit(cache=True)
def pareto(state, nu):
    """Symmetric Lomax variate: P(|X| > x) = (1 + x)^(-nu); one uniform gives the sign and the modulus."""
    u = uniform(state)
    if u < 0.5:
        return -((2.0 * u) ** (-1.0 / nu) - 1.0)
    return (2.0 * u - 1.0) ** (-1.0 / nu) - 1.0


@njit(cache=True)
def draw(state, law, nu):
    """One unit-scale draw of ``law``."""
    if law == LAW_STUDENT_T:
        return student_t(state, nu)
    if law == LAW_PARETO:
        return pareto(state, nu)
    return normal(state)


@njit(cache=True, nogil=True)
def fill(law, nu, seeds, out):
    """out[r, :] = unit-scale draws of ``law`` from the state seeded by seeds[r]."""
    state = np.empty(4, dtype=np.uint64)
    for r in range(seeds.shape[0]):
        seed_state(seeds[r], state)
        for i in range(out.shape[1]):
            out[r, i] = draw(state, law, nu)
