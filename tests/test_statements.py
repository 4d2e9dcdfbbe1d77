"""Claim statements describe the parameters actually run (issue 28, item 5).

A statement may name a scale parameter as a ``{name}`` placeholder (str.format field syntax);
``evaluate`` fills it from the run's parameters (``checks.format_statement``; other braces are set
notation and stay), so the ci and full records each state their own numbers.  A number
written literally in a statement is the same at both scales, so no literal may equal a value of a
parameter that differs between the scales.
"""
import re
import pytest

from theorylab.core.checks import _PLACEHOLDER, discover, evaluate, format_statement
from theorylab.core.evidence import Identity

CLAIMS = discover().claims

_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.]*\w)")
_WORD = re.compile(r"\w+")

# Small integers (|v| <= SMALL) are everywhere in statements (K = 3, rank-1, N = 2): they count as a
# parameter's value only when written as "name = v".
SMALL = 10
# Literal numbers that equal a differing parameter's value by coincidence: (claim key, parameter, value).
COINCIDENCES = {
    ("dap:zo_sgd_sphere_le_gaussian", "n_paths", 100): "kappa = 100 is the condition number",
    ("dap:zo_sgd_sphere_le_gaussian", "d", 100): "kappa = 100 is the condition number",
    ("cs_reg:nonnegative", "N", 12): "the two terms cancel to 12 digits",
    ("gabp:full_rate_apga", "T", 1000): "the slope window WINDOW = (100, 1000) is a constant",
    ("gabp:full_rate_gabp", "T", 1000): "the slope window WINDOW = (100, 1000) is a constant",
    ("gabp:gabp_slope_not_slower_than_apga", "T", 1000): "the slope window WINDOW = (100, 1000) is a constant",
    ("missing_mass:table2_good_turing", "ns", 100): "S = 100 is the support size",
    ("missing_mass:table2_minimal_bias_variance", "ns", 100): "S = 100 is the support size",
    ("rank_attn:full_rank_bound", "d", 16): "beta in {1, 4, 16, 64}",
    ("disk_dp:clipping_trend", "n_runs", 64): "B = 64 is the batch size",
    ("dro_dsgdc:eta_block_smooth", "n_iter", 100): "Delta ladder ends at 100",
    ("dro_dsgdc:x_block_partial_bound", "n_iter", 100): "Delta ladder ends at 100",
    ("dro_dsgdc:x_block_grows_with_grad", "n_iter", 100): "Delta ladder ends at 100",
    ("gabp:dynamic_regret_log2", "window", 100000): "the derived local slope is quoted at T = 1e5",
    ("gameopt:ibr_reaches_equilibrium", "n_instances", 20): "20 uniform observations",
    ("missing_mass:table2_minimal_bias_variance", "rational_n", 100): "n = 100 of Table 2 (ns, same at both scales)",
    ("rank_attn:full_rank_rate", "n", 200): "beta = 200/Delta",
}


def _template_text(statement: str, names) -> str:
    """The statement's literal text: its placeholders (fields naming a parameter) removed."""
    return _PLACEHOLDER.sub(lambda m: " " if m.group(1) in names else m.group(0), statement)


def _atoms(value):
    """The numbers and names a parameter value would be written with."""
    if isinstance(value, (tuple, list)):
        return {a for v in value for a in _atoms(v)}
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, (int, float)):
        return {float(value)}
    if isinstance(value, str):
        return {value}
    return set()


def literal_parameter_values(key: str, statement: str, ci: dict, full: dict) -> list:
    """(parameter, value) pairs of scale-dependent parameters written literally in ``statement``."""
    text = _template_text(statement, set(ci) | set(full))
    numbers = set()
    for tok in _NUMBER.findall(text):
        numbers.add(float(tok))
    words = set(_WORD.findall(text))
    found = []
    for name in sorted(set(ci) & set(full)):
        a, b = _atoms(ci[name]), _atoms(full[name])
        for v in (a ^ b) if a != b else a:    # equal at both scales: still a parameter (--set changes it)
            if isinstance(v, float):
                small = v == int(v) and abs(v) <= SMALL
                hit = (re.search(rf"\b{re.escape(name)}\s*=\s*{int(v) if small else v:g}(?![\w.])", text) is not None
                       if small else v in numbers)
            else:
                hit = v in words
            if hit and (key, name, v) not in COINCIDENCES:
                found.append((name, v))
    return found


@pytest.mark.parametrize("key", sorted(CLAIMS))
def test_statement_formats_at_both_scales(key):
    c = CLAIMS[key]
    for scale in ("ci", "full"):
        params = c.params(scale)
        text = format_statement(c.statement, params)
        assert not any(m.group(1) in params for m in _PLACEHOLDER.finditer(text)), text
        assert literal_parameter_values(key, c.statement, c.params("ci"), c.params("full")) == [], (
            f"{key}: scale-dependent parameter value written literally in the statement; "
            f"use a {{name}} placeholder: {c.statement!r}")


def test_evaluate_fills_placeholders():
    c = CLAIMS["highway_bp:decay_bound"]
    for scale in ("ci", "full"):
        params = c.params(scale)
        r = evaluate(c, Identity(discrepancy=0.0, instances=1), scale=scale, seed=0, params=params, runtime=0.0)
        assert f"L = {params['L']}" in r.statement and "{L}" not in r.statement


def test_literal_detector_catches_the_old_highway_statement():
    """The check fails on the statement highway_bp:decay_bound had (L = 12 written, full runs L = 24)."""
    old = "with ||J_j||_2 <= rho = 0.3 (L = 12 MLP blocks): error / bound <= 1"
    assert ("L", 12.0) in literal_parameter_values("x", old, {"L": 12, "n": 12}, {"L": 24, "n": 16})


def test_format_statement_fills_only_parameters():
    p = dict(L=24, window=(30000, 300000))
    assert format_statement("L = {L}; {+-a}^N, rho^{k+1}, {0, a}, {x}", p) == "L = 24; {+-a}^N, rho^{k+1}, {0, a}, {x}"
    assert format_statement("T in [{window[0]:.0e}, {window[1]:.0e}]", p) == "T in [3e+04, 3e+05]"
    # a --set override of another type never makes the run crash: the field stays, with the value
    assert format_statement("T >= {window[0]:.0e}", dict(window="abc")) == "T >= {window[0]:.0e} (= 'abc')"
    assert format_statement("no braces", p) == "no braces"
