"""The pytest plugin: the claims of your registered papers as test items.

Installed with theorylab (entry point ``pytest11``) but active only when asked for::

    pytest -p theorylab                        # every claim of the papers other packages register
    pytest -p theorylab -k my_rate             # the usual -k selection (on "paper:claim")
    pytest -p theorylab --theorylab-scale full
    pytest -p theorylab --theorylab-paper my_rate

or, for every run of a project, ``theorylab = true`` in its ``[tool.pytest.ini_options]``.  With plugin
autoloading off (``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``), name the module: ``-p theorylab.pytest_plugin``.  One
item per claim (``paper:claim``) runs it at the chosen scale with root seed 0 under the verdict
rule of :mod:`theorylab.core.evidence`, with no result cache (a test run recomputes).  Declared
findings are tested both ways, as in theorylab's own suite: a claim declared to reproduce passes
when *reproduced*, one declared not to (``expect_reproduced=False``) passes when still *not
reproduced*.  A failure prints the measured value, the reported and the family-wise interval, the
prediction, the tolerance and the verdict.

The fixture ``broken_claim`` runs the mutation-test protocol (see :class:`BrokenClaim`); it is
available whenever the plugin is loaded.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("theorylab", "theorylab claims as tests")
    group.addoption("--theorylab-scale", choices=("ci", "full"), default=None,
                    help="scale of the collected claims (default ci: seconds per paper)")
    group.addoption("--theorylab-paper", action="append", default=None, metavar="PAPER",
                    help="collect this registered paper's claims only (repeatable; default: every paper "
                         "other packages register)")
    parser.addini("theorylab", type="bool", default=False,
                  help="collect the claims of registered papers as tests (as `-p theorylab` does)")


def _active(config) -> bool:
    # -p theorylab (the entry point's name), or -p theorylab.pytest_plugin where plugin autoloading is off
    asked = bool({"theorylab", "theorylab.pytest_plugin"} & set(getattr(config.option, "plugins", None) or []))
    return bool(asked or config.getini("theorylab") or config.getoption("--theorylab-scale")
                or config.getoption("--theorylab-paper"))


def _selected_claims(config):
    from .core.checks import REGISTRY
    from .core.papers import external_papers, import_external

    wanted = config.getoption("--theorylab-paper")
    ext = external_papers()
    if wanted:
        unknown = [p for p in wanted if p not in ext]
        if unknown:
            have = ", ".join(ext) or "(none: add an entry point in the group theorylab.papers)"
            raise pytest.UsageError(f"--theorylab-paper {', '.join(unknown)}: not a registered paper; registered "
                                    f"by other packages: {have}")
    # only these papers' modules: theorylab's own 38 are not imported
    papers = import_external(wanted or sorted(ext), benchmarks=False)
    return [c for pid in papers for c in REGISTRY.claims_of(pid)]


class ClaimItem(pytest.Item):
    """One claim at one scale, run as a test."""

    def __init__(self, *, claim, scale, **kwargs):
        super().__init__(**kwargs)
        self.claim = claim
        self.scale = scale

    def runtest(self):
        from .core.checks import run_claim

        r = run_claim(self.claim, self.scale, seed=0, cache=None)
        if not r.ok:  # an error row is never ok: its note carries the exception
            raise ClaimFailed(self.claim, r)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ClaimFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.claim.func.__module__.replace(".", "/") + ".py", None, f"claim {self.claim.key} ({self.scale})"


class ClaimFailed(AssertionError):
    """A claim whose verdict is not what its declaration says (its message is the verdict's)."""

    def __init__(self, claim, result):
        super().__init__(failure_message(claim, result))


def _interval(numbers, lo, hi):
    a, b = numbers.get(lo), numbers.get(hi)
    if a is None or b is None or a != a or b != b:
        return "none"
    return f"[{a:.6g}, {b:.6g}]"


def failure_message(claim, r) -> str:
    """What a failing claim item prints: the verdict and the numbers that decided it."""
    n = r.numbers or {}
    level = n.get("level")
    level_text = f"{100 * level:.4g}%" if isinstance(level, float) and level == level else "reported"
    declared = "reproduced" if claim.expect_reproduced else f"not reproduced (declared finding: {claim.why_not})"
    lines = [f"{claim.key} at {r.scale} scale: {r.verdict} ({r.status})",
             f"  statement:  {r.statement}",
             f"  citation:   {r.citation}",
             f"  measured:   {r.measured}",
             f"  {level_text} interval: {_interval(n, 'ci_low', 'ci_high')}; family-wise interval: "
             f"{_interval(n, 'fw_low', 'fw_high')}",
             f"  predicted:  {r.predicted}",
             f"  tolerance:  {r.tolerance}",
             f"  declared:   {declared}",
             f"  seed:       {r.seed} (root 0)"]
    if r.note:  # with stage 2, the note says what the replicate did
        lines.append(f"  note:       {r.note}")
    return "\n".join(lines)


@pytest.hookimpl(tryfirst=True)  # before -k and -m deselect: our items are selected like any other
def pytest_collection_modifyitems(session, config, items):
    if not _active(config):
        return
    scale = config.getoption("--theorylab-scale") or "ci"
    try:
        claims = _selected_claims(config)
    except ValueError as exc:  # a refused entry point (core.papers): say why, do not crash collection
        raise pytest.UsageError(f"theorylab: {exc}") from None
    for c in claims:
        items.append(ClaimItem.from_parent(session, name=c.key, nodeid=c.key, claim=c, scale=scale))


def pytest_report_header(config):
    if _active(config):
        from .core.papers import external_papers

        papers = config.getoption("--theorylab-paper") or list(external_papers())
        return (f"theorylab: claims of {', '.join(papers) or '(no registered paper)'} at scale "
                f"{config.getoption('--theorylab-scale') or 'ci'}")
    return None


class BrokenClaim:
    """The mutation-test protocol: break the simulator, and a claim must catch it.

    ``broken_claim(claim_key, target, replacement, overrides=None)`` patches ``target`` with
    ``replacement`` (``target``: a dotted path ``"pkg.module.attr"`` or an ``(object, "attr")``
    pair; ``None``: no new patch, e.g. after the test patched a dict itself), clears the in-process
    experiment memos, runs ``"paper:claim"`` at ci scale with root seed 0 and no result cache, and
    returns the :class:`~theorylab.core.checks.Result` (assert ``result.status == "unexpected
    failure"``).  ``broken_claim.intact(claim_key, ...)`` runs it the same way without a patch (the
    baseline to assert first; ``cache=`` lets it share a cache).  Patches are undone and memos
    cleared at teardown.
    """

    def __init__(self, monkeypatch):
        self.monkeypatch = monkeypatch

    @staticmethod
    def _claim(claim_key: str):
        from .core.checks import REGISTRY
        from .core.papers import import_paper

        paper = claim_key.partition(":")[0]
        import_paper(paper)  # registers the paper's claims
        try:
            return REGISTRY.claims[claim_key]
        except KeyError:
            raise ValueError(f"claim_key: no claim {claim_key!r}; {paper}'s claims: "
                             f"{', '.join(c.id for c in REGISTRY.claims_of(paper)) or '(none)'}") from None

    def intact(self, claim_key: str, *, overrides=None, cache=None):
        from .core.checks import run_claim
        from .core.experiment import clear_experiments

        c = self._claim(claim_key)
        clear_experiments()
        return run_claim(c, "ci", seed=0, cache=cache, overrides=overrides)

    def __call__(self, claim_key: str, target=None, replacement=None, *, overrides=None):
        if isinstance(target, str):
            self.monkeypatch.setattr(target, replacement)
        elif target is not None:
            obj, name = target
            self.monkeypatch.setattr(obj, name, replacement)
        return self.intact(claim_key, overrides=overrides)

    def close(self):
        from .core.experiment import clear_experiments

        clear_experiments()


@pytest.fixture
def broken_claim(monkeypatch):
    """A :class:`BrokenClaim` bound to this test's monkeypatch."""
    runner = BrokenClaim(monkeypatch)
    yield runner
    runner.close()  # before monkeypatch undoes the patches: nothing runs in between
