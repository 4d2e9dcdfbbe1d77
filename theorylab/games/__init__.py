"""Monotone games and last-iterate learning dynamics (issue 20: paper gabp; gameopt's game layer
may join later).

Modules (import from them directly):

- ``theorylab.games.matrix_games``  random zero-sum matrix games on simplices, the hard concave-convex game,
  gap function and tangent residual, projected gradient ascent, APGA, GABP (Algorithm 1), optimistic GA (gabp)
"""

import importlib

_MODULE_NAMES = ("matrix_games",)


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
