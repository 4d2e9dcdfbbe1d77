"""Derivative-free optimisation: function-value oracles, two-point gradient estimators with
pluggable perturbation laws, query allocators, Stochastic Three Points, and perturbed gradient
descent with an inexact oracle (issue 17: papers dap, stp, flops, quantum_sosp).

Modules (import from them directly):

- ``theorylab.zeroth.oracles``    test-function zoo, value noise, query counter
- ``theorylab.zeroth.estimators`` two-point / forward-difference estimators, perturbation laws (dap)
- ``theorylab.zeroth.stp``        Stochastic Three Points (stp)
- ``theorylab.zeroth.allocation`` query budgets and allocators (flops)
- ``theorylab.zeroth.saddle``     perturbed gradient descent with an inexact oracle (quantum_sosp)
"""

from . import allocation, estimators, oracles, saddle, stp

_MODULES = (oracles, estimators, stp, allocation, saddle)


def _public_api():
    """Every module's ``__all__``, re-exported here; a name two modules define differently
    (``LAWS``, ``NOISES``) stays module-qualified (``estimators.LAWS``, ``allocation.LAWS``)."""
    owners = {}
    for module in _MODULES:
        for name in module.__all__:
            owners.setdefault(name, []).append(getattr(module, name))
    return {name: objs[0] for name, objs in owners.items() if all(o is objs[0] for o in objs)}


globals().update(_public_api())
__all__ = sorted(_public_api())
