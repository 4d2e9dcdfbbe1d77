"""Stochastic first-order methods under heavy-tailed, affine and private noise (issue 18: papers
nsgdm_heavy, fsgdm, disk_dp, dro_dsgdc).

Modules (import from them directly):

- ``theorylab.stochastic.noise``   gradient-noise laws: Gaussian, Student-t, symmetric Pareto (tail index p),
  affine variance, per-sample clipping + Gaussian privacy noise
- ``theorylab.stochastic.nsgdm``   normalised SGD with momentum under heavy tails (nsgdm_heavy)
- ``theorylab.stochastic.fsgdm``   momentum as a linear filter, FSGDM's stage-wise momentum (fsgdm)
- ``theorylab.stochastic.disk``    DP-SGD and DiSK's Kalman-filtered private gradient (disk_dp)
- ``theorylab.stochastic.dro``     chi-square dual DRO objective and D-SGD-C (dro_dsgdc)
"""

import importlib

_MODULE_NAMES = ("noise", "nsgdm", "fsgdm", "disk", "dro")


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
