"""Ctrl-C / SIGTERM during the real long kernels of every field package (issue 30, defect 1).

Each case runs one package's public call, at a size that keeps its kernel busy for a few seconds,
as a claim under ``run_claim`` in a subprocess (three at a time), and sends the signal 0.15 s after
the call started.  The run must exit 130 (SIGINT) or 143 (SIGTERM), print no traceback, not cache
the claim (finished sweep points may be), and the next claim must never start.  A toy kernel returning a float did not show the defect: numba's
wrapper calls back into Python to box every *array* a kernel returns, and a signal handled there
crashed the process (SIGSEGV) or surfaced as a ``SystemError``.  tests/conftest.py runs it after the
papers' tests, so that the kernels are compiled (numba's on-disk cache) before it runs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

# package: (setup, call with {S}, size warm-up, size of the interrupted call); sizes give ~1-3 s of kernel
CASES = {
    "markov": ("import theorylab.markov as M",
               "M.run_pair('cos', gamma=0.05, n={S}, n_chains=4, seed=0)", 1000, 1_500_000),
    "sde": ("from theorylab.sde.engine import coupled_terminal",
            "coupled_terminal('ou', 1.0, t_end=1.0, n_fine=2**11, factors=np.array([8, 4, 2, 1]), n_paths={S}, "
            "seed=0, theta=1.0, mu=0.0, sigma=1.0)", 10, 20_000),
    "scaling": ("from theorylab.scaling.model import simulate_sgd",
                "simulate_sgd(N=256, K=2, M=2, alphas=np.array([0.0, float({S})]), n_seeds=2, seed=0)", 1, 500),
    "missing_mass": ("import theorylab.missing_mass as MM; p = MM.make_distribution('zipf', 200, seed=0)",
                     "MM.monte_carlo_mse(MM.good_turing(200), p, 200, reps={S}, seed=0)", 10, 50_000),
    "cpwl": ("import theorylab.cpwl as C; fan = C.random_planar_fan(12, seed=1); "
             "D = C.DecompositionPolyhedron(C.CPWLFunction.from_ray_values(fan, C.random_ray_values(fan, seed=1))); "
             "V = D.vertices_lp(20)", "D.piece_counts(V * max(1, {S} // len(V)))", 300, 6000),
    "relu": ("import theorylab.relu as R; net = R.random_nary_network(3, [8, 8], seed=0)",
             "net.evaluate(np.random.default_rng(0).integers(-50, 50, size=({S}, 3)))", 10, 80_000),
    "tv": ("import theorylab.tv as T; P = T.random_product(8, 4, seed=0); Q = T.random_product(8, 4, seed=1)",
           "T.coupling_g_samples(P, Q, {S}, seed=0)", 10, 2_000_000),
    "zeroth": ("import theorylab.zeroth as Z; o = Z.quadratic(np.linspace(1, 2, 50))",
               "Z.estimator_trials(o, np.ones(50), b=10, trials={S}, seed=0, parallel=True)", 2, 10_000),
    "stochastic": ("from theorylab.stochastic.nsgdm import run_methods",
                   "run_methods('quadratic', T={S}, n_runs=16, seed=0)", 10, 150_000),
    "exact": ("import theorylab.exact as E; pr = E.recovery_problems('binary', 20, N=100, n_trials={S}, seed=0)",
              "E.recover('bin', pr, starts=10, max_iter=10000, seed=0)", 1, 200),
    "multiobjective": ("from theorylab.multiobjective.mgda import run_mgda, quadratic_mo_problem; "
                       "pb = quadratic_mo_problem(K=3, d=10)", "run_mgda(pb, T={S})", 10, 500_000),
    "games": ("import warnings; warnings.simplefilter('ignore'); import theorylab.games as G; "
              "A = G.random_payoff_games(50, 8, seed=0)", "G.run_dynamics(A, T={S}, seed=0)", 10, 20_000),
    "finite_sum": ("import theorylab.finite_sum as F; d = F.vertical_regression(4000)",
                   "F.laser_sgd(d, 0.5, 0.01, {S}, record_every=100, seed=0)", 100, 600_000),
    "gp": ("import theorylab.gp.priors as P; X = np.random.default_rng(0).random(({S}, 2))",
           "P.sample_gp_prior(X, lengthscale=0.3, n_samples=4, seed=0)", 10, 2000),
    "krylov": ("import theorylab.krylov as KR; pb = KR.quadratic_bilevel(200, kappa=30.0)",
               "KR.lancbio(pb, {S}, T=10, theta=1 / 30, lam=0.5)", 10, 5000),
    "toys": ("import theorylab.toys as TY; task = TY.preference_task(vocab=50, horizon=20, n_pairs=2000)",
             "TY.train_gd(task, gamma=0.98, n_steps={S})", 2, 5000),
}

SCRIPT = """
import sys

import numpy as np

from theorylab.core import Cache, Estimate, Paper
from theorylab.core.checks import Claim, run_claim
from theorylab.core.interrupt import Interrupted, handling_signals

SETUP, CALL, WARM, S = {setup!r}, {call!r}, {warm}, {size}


def long_call(*, n, seed):
    exec(SETUP.replace("{{S}}", str(n)), globals())
    print("START", flush=True)
    exec(CALL.replace("{{S}}", str(n)), globals())
    print("CALL FINISHED", flush=True)
    return Estimate(value=0.0, ci=(-1.0, 1.0), predicted=0.0)


def after(*, n, seed):
    print("SECOND CLAIM STARTED", flush=True)
    return Estimate(value=0.0, ci=(-1.0, 1.0), predicted=0.0)


if __name__ == "__main__":
    exec(SETUP.replace("{{S}}", str(WARM)), globals())
    exec(CALL.replace("{{S}}", str(WARM)), globals())  # compiled (or loaded from numba's cache) before the run
    paper = Paper(id="sig_kernels", title="t", authors="a")
    claims = [Claim(paper, "long", "s", "c", long_call, {{"ci": {{"n": S}}}}),
              Claim(paper, "after", "s", "c", after, {{"ci": {{"n": 1}}}})]
    try:
        with handling_signals():
            rows = [run_claim(c, "ci", 0, cache=Cache(sys.argv[1])) for c in claims]
    except Interrupted as exc:
        c = claims[0]
        key = Cache(sys.argv[1]).key("claim", paper.id, c.id, "ci", 0, c.params("ci"), module=c.func.__module__)
        print("INTERRUPTED", exc.signum, "CLAIM CACHED", Cache(sys.argv[1]).get(key) is not None, flush=True)
        sys.exit(exc.exit_code)
    print("ROWS", [(r.claim, r.verdict, r.measured) for r in rows], flush=True)
"""


def _interrupt(package, tmp_path):
    """Run the package's case, signal it 0.15 s into the call; a list of what went wrong (empty: clean)."""
    setup, call, warm, size = CASES[package]
    signum = signal.SIGINT if sorted(CASES).index(package) % 2 == 0 else signal.SIGTERM
    folder = tmp_path / package
    folder.mkdir()
    script = folder / "long_kernel.py"
    script.write_text(textwrap.dedent(SCRIPT.format(setup=setup, call=call, warm=warm, size=size)))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["NUMBA_NUM_THREADS"] = str(min(2, os.cpu_count() or 1))  # the worker threads of parallel kernels run too
    proc = subprocess.Popen([sys.executable, str(script), str(folder / "cache")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    if line.strip() != "START":
        out, err = proc.communicate(timeout=120)
        return [f"{package}: the call never started: {line}{out} {err[-2000:]}"]
    time.sleep(0.15)
    if proc.poll() is not None:
        return [f"{package}: the call finished before the signal: make it longer"]
    proc.send_signal(signum)
    t_sig = time.monotonic()
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        return [f"{package}: the run did not stop within 60 s of the signal"]
    waited = time.monotonic() - t_sig
    problems = []
    if proc.returncode != 128 + signum:
        problems.append(f"{package}: exit code {proc.returncode}, expected {128 + signum}")
    if f"INTERRUPTED {int(signum)} CLAIM CACHED False" not in out:
        problems.append(f"{package}: not interrupted cleanly, or the claim was cached: {out!r}")
    if "SECOND CLAIM STARTED" in out or "ROWS" in out:
        problems.append(f"{package}: the run went on after the signal")
    if "Traceback" in err or "SystemError" in err:
        problems.append(f"{package}: {err[-2000:]}")
    # finished sweep points may be cached (a rerun resumes from them), the interrupted claim may not
    print(f"{package}: {signal.Signals(signum).name} -> exit {proc.returncode}, {waited:.2f} s after the signal")
    return [p + f"\n{err[-2000:]}" for p in problems]


def test_a_signal_during_each_packages_long_kernel_stops_the_run_cleanly(tmp_path):
    # three at a time: the subprocesses' start-up (imports, numba's cache) overlaps with the others' kernels
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(3) as pool:
        problems = [p for ps in pool.map(lambda pkg: _interrupt(pkg, tmp_path), sorted(CASES)) for p in ps]
    assert not problems, "\n\n".join(problems)


def test_a_signal_deferred_in_numba_frames_is_raised_when_the_body_ends(monkeypatch):
    # as if every frame the handler ran in were numba's (a compiled call's callback): it only records and
    # re-sends; the body runs to its end (or fails), and handling_signals raises Interrupted there
    from theorylab.core import interrupt

    monkeypatch.setattr(interrupt, "_in_numba", lambda frame: True)
    finished = []
    with pytest.raises(interrupt.Interrupted) as info:
        with interrupt.handling_signals():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.2)  # re-sent every 5 ms meanwhile, deferred each time
            finished.append(True)
    assert finished and info.value.exit_code == 143
    with pytest.raises(interrupt.Interrupted) as info:
        with interrupt.handling_signals():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            raise SystemError("<CPUDispatcher(kernel)> returned a result with an exception set")
    assert info.value.exit_code == 130 and isinstance(info.value.__cause__, SystemError)
    assert interrupt.requested() is None  # forgotten on exit: later work is not stopped
