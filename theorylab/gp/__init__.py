"""Gaussian-process sample paths for Bayesian optimisation (issue 20: papers tsroots, gameopt).

Modules (import from them directly):

- ``theorylab.gp.priors``   GP priors on [0,1]^d and on discrete sets (kernels, lengthscales), exact posteriors,
  pathwise posterior samples (random Fourier features + exact update), UCB / Thompson acquisition
- ``theorylab.gp.tsroots``  the TSRoots candidate set from 1-D roots of separable prior derivatives (tsroots)
- ``theorylab.gp.gameopt``  GameOpt's iterated best response on UCB utilities over combinatorial sets (gameopt)
"""

import importlib

_MODULE_NAMES = ("priors", "tsroots", "gameopt")


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
