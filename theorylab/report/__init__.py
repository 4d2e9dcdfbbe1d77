"""Reports of the recorded results beyond the Markdown ledger: the static HTML site
(:func:`theorylab.report.html.write_site`, ``theorylab report --html``)."""

from .html import write_site

__all__ = ["write_site"]
