"""theorylab: checks the theory of ICLR 2025 optimization and learning-theory papers by simulation.

Subpackages hold the simulators (one per field, e.g. :mod:`theorylab.markov`);
:mod:`theorylab.core` holds the shared check framework.  The papers' claims live in the
top-level ``validations`` package, one module per paper id.
"""

__version__ = "0.1.0"


def results(paper=None, scale=None, *, source="user", root=None):
    """Recorded check results as a typed pandas DataFrame: by default your own runs (the records
    ``theorylab check`` writes under ``$THEORYLAB_OUT`` or ``<cache>/out``); ``source="committed"``
    for the checkout's ``results/``; ``root=`` for another folder.  See :mod:`theorylab.core.results`."""
    from .core.results import results as _results

    return _results(paper, scale, source=source, root=root)
