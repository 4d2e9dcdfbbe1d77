"""Multi-objective descent and Tchebycheff scalarisations (issue 20: papers mgda_gs, stch_set).

Modules (import from them directly):

- ``theorylab.multiobjective.mgda``    K-objective generalised-smooth zoo, min-norm point of the convex hull
  of gradients (closed form K = 2, cvxpy reference, fast path), conflict-avoidant distance, MGDA and its
  warm-started and FA variants (mgda_gs)
- ``theorylab.multiobjective.stch``    Tchebycheff, smooth Tchebycheff and (smooth) Tchebycheff-set
  scalarisations with gradients, the STCH-Set test problems and solvers (stch_set)
"""

import importlib

_MODULE_NAMES = ("mgda", "stch")


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
