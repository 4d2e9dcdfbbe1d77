"""Issue 30, defect 6: no hang and no runaway work.  The rational sampler of theorylab.tv returns
for every valid size (it redrew forever when the cuts nearly filled their range); sizes beyond the
budgets are refused before anything is allocated (markov.run_pair in time, relu.random_nary_network
and scaling.simulate_sgd in memory); long chunked calls report progress."""

from __future__ import annotations

import contextlib
import signal
import time
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats


@contextlib.contextmanager
def returns_within(seconds):
    """Fail (instead of hanging the test run) if the body takes longer than ``seconds``."""
    def _alarm(signum, frame):
        raise TimeoutError(f"did not return within {seconds} s")

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _rows_ok(D):
    for comp in D.exact_marginals:
        for row in comp:
            assert sum(row) == 1 and min(row) >= 0  # conditioning_pair's point masses have zeros


@pytest.mark.parametrize("call", ["conditioning_pair(7, seed=0)", "random_mixture(60, 3, 2)",
                                  "random_product(1, 90, exact=True)", "conditioning_pair(10, seed=1, denom=101)"])
def test_the_rational_sampler_returns_when_the_cuts_nearly_fill_their_range(call):
    import theorylab.tv as tv

    with returns_within(20):
        out = eval(f"tv.{call}")  # noqa: S307 - a literal from the parametrisation
    for D in out if isinstance(out, tuple) else (out,):
        _rows_ok(D)
        assert sum(D.exact_weights) == 1 and min(D.exact_weights) > 0
    if call.startswith("random_product"):  # 89 distinct cuts out of 96: every entry a positive multiple of 1/97
        row = out.exact_marginals[0][0]
        assert len(row) == 90 and all((97 * x).denominator == 1 for x in row)


def test_the_direct_sampler_is_uniform_over_the_subsets():
    # 11 distinct cuts out of 12 (acceptance 6e-4: the direct path): which cut is left out is uniform
    from theorylab.core.seeding import as_generator
    from theorylab.tv.distributions import _random_rational_simplices

    rows = _random_rational_simplices(as_generator(0), 6000, 12, 13)
    left_out = []
    for row in rows:
        cuts = set(np.cumsum([int(13 * x) for x in row])[:-1].tolist())
        assert len(cuts) == 11 and all(x == Fraction(int(13 * x), 13) for x in row)
        left_out.append(next(c for c in range(1, 13) if c not in cuts))
    counts = np.bincount(left_out, minlength=13)[1:]
    assert stats.chisquare(counts).pvalue > 1e-4, counts


def test_markov_refuses_a_run_beyond_its_time_budget_before_allocating():
    import theorylab.markov as M

    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"n_chains.*work budget|n must be") as info:
        M.run_pair(gamma=0.01, n=10**9, n_chains=8)
    assert time.perf_counter() - t0 < 1.0
    assert "n" in str(info.value)
    # a single chain runs on one core: 4e9 steps fit the total budget but not one core's share
    with pytest.raises(ValueError, match=r"one chain runs on one core.*n_burn=2000000000, n=2000000000"):
        M.run_pair(gamma=0.01, n=2 * 10**9, n_chains=1)


def test_long_chunked_calls_report_progress(capsys, monkeypatch):
    import functools

    import theorylab.markov as M
    from theorylab.core import interrupt
    from theorylab.core.context import using_run

    monkeypatch.setattr(interrupt, "PROGRESS_EVERY_S", 0.0)
    # kernel calls of 2e5 chain-steps instead of ~2e7, so that the test is short: 5 chains of 1e5 steps (1-d
    # problem: the steps are split, 40000 per call, three calls)
    monkeypatch.setattr(interrupt, "chunks", functools.partial(interrupt.chunks, target=2e5, at_least=1))
    kw = dict(gamma=0.01, n=50_000, seed=0)
    ref = M.run_pair("quadratic", n_chains=5, **kw)
    err = capsys.readouterr().err
    assert "run_pair steps: 1/3 chunks" in err and "2/3 chunks" in err and "s left" in err
    events = []
    with using_run(progress=lambda event, **info: events.append((event, info))):
        again = M.run_pair("quadratic", n_chains=5, **kw)
    assert [(e, i["done"], i["total"], i["desc"]) for e, i in events] == [
        ("sweep_point", 1, 3, "run_pair steps"), ("sweep_point", 2, 3, "run_pair steps")]
    assert np.array_equal(ref.rr, again.rr)
    monkeypatch.undo()  # one kernel call for all chains gives the same numbers as the chunks
    assert np.array_equal(ref.rr, M.run_pair("quadratic", n_chains=5, **kw).rr)


def test_relu_random_network_refuses_a_huge_input_before_allocating():
    import theorylab.relu as R

    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"n=1000000000"):
        R.random_nary_network(10**9, [3])
    assert time.perf_counter() - t0 < 1.0


def test_scaling_refuses_order_parameters_beyond_the_memory_budget():
    from theorylab.scaling.model import simulate_sgd

    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"K=104911.*order parameters"):
        simulate_sgd(K=104911)
    assert time.perf_counter() - t0 < 1.0
