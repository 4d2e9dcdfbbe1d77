"""Exact identities of networks, symmetric ILPs and regularisers (issue 19: papers
highway_bp, gnn_ilp_sym, cs_reg, rank_attn). Float64 to 1e-12, or exact rationals via core.exact.

Modules (import from them directly):

- ``theorylab.exact.highway``          residual networks, per-layer Jacobians, BP and Highway-BP (highway_bp)
- ``theorylab.exact.ilp_orbits``       bipartite ILP graphs, a random-weight GNN, orbits, Orbit/Orbit+ (gnn_ilp_sym)
- ``theorylab.exact.cs_regularizers``  Cauchy-Schwarz regularisers and the recovery protocol (cs_reg)
- ``theorylab.exact.attention``        softmax attention of a given rank and the nearest-neighbour target (rank_attn)
"""

import importlib

_MODULE_NAMES = ("highway", "ilp_orbits", "cs_regularizers", "attention")


def _load():
    mods = []
    for name in _MODULE_NAMES:
        try:
            mods.append(importlib.import_module(f"{__name__}.{name}"))
        except ModuleNotFoundError as exc:       # a module not yet written
            if exc.name != f"{__name__}.{name}":
                raise
    return mods


def _public_api(modules):
    """Every module's ``__all__``, re-exported here; a name two modules define differently stays
    module-qualified."""
    owners = {}
    for module in modules:
        for name in getattr(module, "__all__", ()):
            owners.setdefault(name, []).append(getattr(module, name))
    return {name: objs[0] for name, objs in owners.items() if all(o is objs[0] for o in objs)}


_MODULES = _load()
globals().update({m.__name__.rsplit(".", 1)[1]: m for m in _MODULES})
globals().update(_public_api(_MODULES))
__all__ = sorted(_public_api(_MODULES))
