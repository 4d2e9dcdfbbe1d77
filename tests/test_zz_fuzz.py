"""Runs last (file name): by then the papers' tests have compiled and cached the numba kernels, so the
CPU watchdog times the calls, not a cold compile in a forked child.

Fuzz every public callable of theorylab with bad input (issue 14, "A fuzz test in the suite").

Callables are discovered from ``__all__`` of theorylab.core and of every subpackage found by
``pkgutil`` (a new paper's subpackage is covered without editing this file; a subpackage without
``__all__`` fails loudly).  For each callable, hypothesis (derandomized, a bounded number of
examples) keeps most parameters at their defaults -- required ones get a plausible baseline from
their name/annotation, objects from a factory of the same package -- and perturbs one or two with a
mix of good-looking and bad values: wrong types, NaN/inf, 0, negatives, huge sizes (10**9, 2**63),
empty and ragged arrays, bools, numeric strings.  Each call must either

* raise ``ValueError``/``TypeError`` whose message names an argument of the callable (the
  perturbed one, or for a relation between arguments -- shapes, ``N`` vs ``L`` -- the other
  side; for the validators, the ``name`` they were given), or raise
  :class:`~theorylab.core.SimulationDiverged`; or
* return within ``CALL_TIMEOUT_S`` seconds of CPU time (numba compilation not counted; at most
  ``WALL_FACTOR`` times that in wall time) a result whose numeric content (floats, arrays,
  DataFrames, dicts/tuples/dataclasses of them) is finite.

Calls run in forked children of fresh server interpreters (two, one per core, started by this
module), so a call that never returns (a jitted loop ignores signals) is killed without taking
pytest down, and a huge allocation hits an address-space limit (MemoryError, reported as a
failure) instead of the machine.  A call's timeout counts CPU time, so that a machine loaded by
other jobs does not turn slow calls into timeouts.  Each test id is
the callable's dotted name, so ``-k sde`` selects a subpackage.

Callables that still fail are listed in KNOWN_FAILURES with ``xfail(strict=True)``: once fixed,
the test XPASSes, fails, and the entry must be removed.  Run ``python tests/test_zz_fuzz.py
--report FILE`` for a per-subpackage summary of what fails.
"""

from __future__ import annotations

import dataclasses
import fractions
import importlib
import inspect
import json
import os
import pkgutil
import re
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

CALL_TIMEOUT_S = 8.0        # per call: CPU seconds, numba compilation excluded (a hang detector; 2 s failed on a
                            # fresh clone, where cold numba caches cost CPU the compile events do not cover)
SETUP_FACTOR = 8            # the baseline probe is the first call: it loads or compiles the kernels
WALL_FACTOR = 10            # ... and at most this many times as many wall seconds
SMALL_SIZE = 16             # baseline for size parameters whose default is larger (keeps kernels tiny)
CALLABLE_BUDGET_S = 30.0    # wall-clock cap for all examples of one callable (kills the child)
MAX_EXAMPLES = 12           # hypothesis examples per callable (plus one baseline call)
MAX_RESTARTS = 3            # after a timeout/crash the child restarts without that parameter

# Public names that are not meant for direct users with arbitrary arguments.  Not to hide failures.
ALLOWLIST = {
    # registry decorators and the claim runner: called by the framework at import time of
    # validations/benchmarks with literal arguments, their misuse is caught by the validation tests
    "theorylab.core.claim": "registry decorator",
    "theorylab.core.figure": "registry decorator",
    "theorylab.core.benchmark": "registry decorator",
    "theorylab.core.discover": "imports every validation module (framework entry point)",
    "theorylab.core.run_claim": "framework entry point, takes a registered Claim",
    "theorylab.core.using_run": "context manager of the framework's run context",
    "theorylab.core.RunContext": "the framework's run context record",
    "theorylab.core.Result": "record built by run_claim from a verdict",
    "theorylab.core.SimulationDiverged": "an exception class",
}

# Plain records -- dataclasses without __post_init__ (Moments, Run, FptasResult, ...) -- hold what the
# functions that build them computed and compute nothing themselves; those functions are fuzzed.
# Records a user builds directly are fuzzed anyway:
USER_BUILT_RECORDS = {"theorylab.core.Fraction", "theorylab.core.Identity", "theorylab.core.Paper"}


def is_record(obj):
    return inspect.isclass(obj) and dataclasses.is_dataclass(obj) and not hasattr(obj, "__post_init__")


# callable id -> what still fails, to be fixed by the subpackage's owner; strict xfail, so a fixed
# callable XPASSes and fails until its entry is removed.  Regenerate with
# ``python tests/test_zz_fuzz.py --report FILE`` (prints this dict and writes the details to FILE).
KNOWN_FAILURES: dict[str, str] = {
}


# --------------------------------------------------------------------------------------------
# discovery
# --------------------------------------------------------------------------------------------

def subpackages():
    import theorylab

    names = ["theorylab.core"]
    names += sorted(f"theorylab.{m.name}" for m in pkgutil.iter_modules(theorylab.__path__)
                    if m.ispkg and m.name != "core")
    return names


def discover_callables():
    """``(ids, missing)``: dotted ids of public callables, and subpackages without ``__all__``."""
    ids, missing = [], []
    for pkg in subpackages():
        mod = importlib.import_module(pkg)
        names = getattr(mod, "__all__", None)
        if names is None:
            missing.append(pkg)
            continue
        for name in names:
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or not callable(obj):
                continue
            ids.append(f"{pkg}.{name}")
    return ids, missing


def resolve(callable_id):
    pkg, name = callable_id.rsplit(".", 1)
    return getattr(importlib.import_module(pkg), name)


# --------------------------------------------------------------------------------------------
# values: baselines for required parameters, and perturbations
# --------------------------------------------------------------------------------------------

SIZE_NAMES = re.compile(r"^(n|N|m|k|d|K|L|M|S|q|w|p_int|reps|repeat|width|depth|instances|trials|successes|"
                        r"n_.*|.*_size|max_.*|min_.*|num_.*|.*_steps|steps|ngen|block|window|tournament|"
                        r"record_every|factors?|levels?)$")
REAL_NAMES = re.compile(r"^(gamma|eta|sigma.*|beta.*|lam|mu|theta|eps|delta|h|t|t_end|t0|dt|kappa|f0|nu|height|"
                        r"value|bound|discrepancy|threshold|predicted|slope|intercept|stderr|rtol|atol|tol|"
                        r"x0|y0|c|b|box|size|fraction|level|.*_scale|.*_tol|p_.*|density)$")
CALLABLE_NAMES = re.compile(r"^(fn|func|statistic|drift|diffusion|test_fn|tv_oracle|progress|callback)$")
MATRIX_NAMES = re.compile(r"^([A-Z]|[A-Z]_.*|Sigma.*|samples|weights|normals|cells|marginals)$")


def _fuzz_fn(*args, **kwargs):
    """A harmless callable for parameters that take one (sweep/bootstrap statistic/benchmarks)."""
    if args and isinstance(args[0], np.ndarray):
        return float(np.mean(args[0]))
    return {"value": 1.0}


def bad_values():
    return [
        "abc", "0.5", None, [], {}, [[1.0], [1.0, 2.0]], True, False,
        float("nan"), float("inf"), -float("inf"), 0, -1, -2.5, 10**9, 2**63, 1e300,
        np.array([]), np.array([np.nan, 1.0, 2.0]), np.array([[1.0, 2.0], [3.0, 4.0]]),
        np.array([1.0, 2.0, 3.0]), (1, 2), object(),
    ]


def good_values(kind, default):
    pool = {
        "size": [1, 2, 3, 5],
        "int": [1, 2, 3],
        "seed": [0, 1, 12345],
        "real": [0.1, 0.5, 1.0, 2.0],
        "vector": [np.array([0.2, 0.3, 0.5]), [0.5, 0.5], np.array([1.0, 2.0, 3.0, 4.0])],
        "matrix": [np.array([[1.0, 0.2], [0.2, 1.0]]), np.array([[0.5, 0.5], [0.25, 0.75]])],
        "str": ["a", "gaussian"],
        "bool": [True, False],
        "callable": [_fuzz_fn],
    }.get(kind, [])
    if default is not inspect.Parameter.empty and not callable(default):
        pool = [default] + pool
    return pool


def _annotation_name(param):
    ann = param.annotation
    if ann is inspect.Parameter.empty:
        return ""
    text = ann if isinstance(ann, str) else getattr(ann, "__name__", str(ann))
    return text.replace("np.", "").replace("'", "").split("|")[0].strip()


def kind_of(param):
    name, ann, default = param.name, _annotation_name(param), param.default
    if name == "seed":
        return "seed"
    if CALLABLE_NAMES.match(name):
        return "callable"
    if isinstance(default, bool) or ann == "bool":
        return "bool"
    if ann == "int" or (isinstance(default, int) and SIZE_NAMES.match(name)):
        return "size"
    if isinstance(default, int) or (ann == "" and default is inspect.Parameter.empty and SIZE_NAMES.match(name)):
        return "size" if SIZE_NAMES.match(name) else "int"
    if ann == "float" or isinstance(default, float) or REAL_NAMES.match(name):
        return "real"
    if ann == "str" or isinstance(default, str):
        return "str"
    if ann and ann[0].isupper() and ann not in ("Callable",):
        return "object:" + ann
    if MATRIX_NAMES.match(name) or ann == "ndarray" and name[:1].isupper():
        return "matrix"
    return "vector"


class Factories:
    """Instances of theorylab classes for parameters annotated with one, built from the package."""

    def __init__(self, packages):
        self.classes, self.makers = {}, {}
        for pkg in packages:
            mod = importlib.import_module(pkg)
            for name in getattr(mod, "__all__", ()):
                obj = getattr(mod, name)
                if inspect.isclass(obj):
                    self.classes.setdefault(name, obj)
                elif callable(obj) and not inspect.ismodule(obj):
                    try:
                        ret = inspect.signature(obj).return_annotation
                    except (TypeError, ValueError):
                        continue
                    ret = ret if isinstance(ret, str) else getattr(ret, "__name__", "")
                    if ret:
                        self.makers.setdefault(ret.replace("'", ""), []).append(obj)
        self.cache = {}

    def make(self, cls_name, depth=0):
        if cls_name in self.cache:
            return self.cache[cls_name]
        cls = self.classes.get(cls_name)
        candidates = list(self.makers.get(cls_name, [])) + ([cls] if cls is not None else [])
        candidates.sort(key=lambda f: len(required_params(f)))
        result = None
        for maker in candidates:
            if depth > 2:
                break
            try:
                args, kwargs = build_call(maker, baseline(maker, self, depth + 1), {})
                out = maker(*args, **kwargs)
            except Exception:
                continue
            if cls is None or isinstance(out, cls):
                result = out
                break
        self.cache[cls_name] = result
        return result


def parameters(fn):
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return []


def required_params(fn):
    return [p for p in parameters(fn) if p.default is inspect.Parameter.empty
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def baseline_value(param, factories, depth=0):
    kind = kind_of(param)
    if kind.startswith("object:"):
        return factories.make(kind.split(":", 1)[1], depth) if factories is not None else None
    if param.name == "name":
        return "arg"
    return {
        "seed": 0, "size": 2, "int": 2, "real": 0.5, "bool": False, "str": "a", "callable": _fuzz_fn,
        "vector": np.array([0.2, 0.3, 0.5]), "matrix": np.array([[1.0, 0.2], [0.2, 1.0]]),
    }[kind]


def baseline(fn, factories, depth=0):
    """Invented values for the required parameters (and one sample for ``*args``)."""
    values = {}
    for p in parameters(fn):
        if p.kind is p.VAR_POSITIONAL:
            values[p.name] = (np.array([0.2, 0.3, 0.5]),)
        elif p.default is inspect.Parameter.empty and p.kind is not p.VAR_KEYWORD:
            values[p.name] = baseline_value(p, factories, depth)
    return values


def build_call(fn, base, perturbed):
    """``(args, kwargs)`` from baseline and perturbed values; parameters before ``*args`` positional."""
    params = parameters(fn)
    values = {**base, **perturbed}
    has_var = any(p.kind is p.VAR_POSITIONAL for p in params)
    args, kwargs = [], {}
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            args.extend(values.get(p.name, ()))
        elif p.kind is p.VAR_KEYWORD:
            continue
        elif p.name in values:
            if p.kind is p.POSITIONAL_ONLY or (has_var and p.kind is p.POSITIONAL_OR_KEYWORD):
                args.append(values[p.name])
            else:
                kwargs[p.name] = values[p.name]
        elif has_var and p.kind is p.POSITIONAL_OR_KEYWORD:
            args.append(p.default)
    return args, kwargs


def short(value):
    if isinstance(value, np.ndarray):
        text = f"array({np.array2string(value, threshold=6, precision=3)}, shape={value.shape})"
    elif callable(value) and not isinstance(value, type):
        text = getattr(value, "__name__", type(value).__name__)
    else:
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


# --------------------------------------------------------------------------------------------
# judging one outcome
# --------------------------------------------------------------------------------------------

def nonfinite_path(obj, path="result", depth=0, seen=None):
    """Where ``obj`` holds a NaN/inf number (``None`` if nowhere we look)."""
    import pandas as pd

    seen = set() if seen is None else seen
    if depth > 5 or id(obj) in seen:
        return None
    if isinstance(obj, (bool, np.bool_, int, np.integer, str, bytes, fractions.Fraction)) or obj is None:
        return None
    if isinstance(obj, (float, np.floating, complex, np.complexfloating)):
        return None if np.isfinite(obj) else f"{path} = {obj!r}"
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fc":
            if not np.all(np.isfinite(obj)):
                return f"{path}: non-finite entries in array of shape {obj.shape}"
        elif obj.dtype.kind == "O":
            for i, item in enumerate(obj.flat[:200]):
                where = nonfinite_path(item, f"{path}.flat[{i}]", depth + 1, seen)
                if where:
                    return where
        return None
    if isinstance(obj, pd.DataFrame):
        num = obj.select_dtypes(include=[np.number])
        if not np.all(np.isfinite(num.to_numpy(dtype=float))):
            cols = [c for c in num.columns if not np.all(np.isfinite(num[c].to_numpy(dtype=float)))]
            return f"{path}: non-finite values in column(s) {cols}"
        return None
    if isinstance(obj, pd.Series):
        return nonfinite_path(obj.to_numpy(), path, depth, seen) if obj.dtype.kind in "fc" else None
    if isinstance(obj, dict):
        items = list(obj.items())[:200]
        for k, v in items:
            where = nonfinite_path(v, f"{path}[{k!r}]", depth + 1, seen)
            if where:
                return where
        return None
    if isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj[:200]):
            where = nonfinite_path(v, f"{path}[{i}]", depth + 1, seen)
            if where:
                return where
        return None
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            where = nonfinite_path(getattr(obj, f.name, None), f"{path}.{f.name}", depth + 1, seen)
            if where:
                return where
        return None
    if type(obj).__module__.startswith("theorylab") and hasattr(obj, "__dict__"):
        for k, v in list(vars(obj).items())[:50]:
            where = nonfinite_path(v, f"{path}.{k}", depth + 1, seen)
            if where:
                return where
    return None


def names_argument(message, names):
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", message) for n in names if n)


def judge(fn, outcome, perturbed, name_value):
    """``None`` if the outcome is acceptable, else a short description of what went wrong."""
    from theorylab.core import SimulationDiverged

    kind, value = outcome
    if kind == "return":
        where = nonfinite_path(value)
        return None if where is None else f"returned non-finite: {where}"
    exc = value
    msg = f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
    if isinstance(exc, SimulationDiverged):
        return None
    if type(exc).__name__ in ("TypingError", "NumbaError") or not isinstance(exc, (ValueError, TypeError)):
        return f"raised {msg}"
    names = [p.name for p in parameters(fn)] + ([name_value] if isinstance(name_value, str) else [])
    if names_argument(str(exc), names):
        return None
    return f"error names no argument (perturbed: {', '.join(perturbed) or 'none'}): {msg}"


# --------------------------------------------------------------------------------------------
# the child process: runs the examples of one callable, reporting each call to the server
# --------------------------------------------------------------------------------------------

def child_main(callable_id, skip, max_examples, out_fd):
    import hypothesis
    from hypothesis import HealthCheck, Phase, settings, strategies as st

    out = os.fdopen(out_fd, "w", buffering=1)

    def emit(**event):
        out.write(json.dumps(event) + "\n")
        out.flush()

    try:
        import numba.core.event as nev

        class CompileClock(nev.Listener):
            def on_start(self, event):
                emit(ev="compile+")

            def on_end(self, event):
                emit(ev="compile-")

        nev.install_listener("numba:compile", CompileClock())
    except Exception:  # pragma: no cover - numba without the event API: compile time counts
        pass

    fn = resolve(callable_id)
    params = [p for p in parameters(fn) if p.kind is not p.VAR_KEYWORD and not p.name.startswith("_")]
    emit(ev="start", call="(setup: baseline arguments)", params=["__setup__"])
    factories = Factories(subpackages())
    base = baseline(fn, factories)
    shrunk = {p.name: SMALL_SIZE for p in params if kind_of(p) == "size" and isinstance(p.default, int)
              and not isinstance(p.default, bool) and p.default > SMALL_SIZE}
    emit(ev="end")
    # Probe the baseline: smaller sizes than the defaults keep the calls fast (dropped if refused); an
    # optional argument the call says it needs ("needs y or samples") gets a plausible value.
    probe = {**base, **shrunk}
    emit(ev="start", call="(setup: probing the baseline arguments)", params=["__setup__"])
    for _ in range(4):
        args, kwargs = build_call(fn, probe, {})
        try:
            fn(*args, **kwargs)
        except (ValueError, TypeError) as exc:
            needed = [p for p in params if p.name not in probe and p.default is None
                      and p.kind is not p.VAR_POSITIONAL and names_argument(str(exc), [p.name])]
            if needed:
                probe[needed[0].name] = baseline_value(needed[0], factories)
                continue
            if shrunk and any(k in probe for k in shrunk):
                probe = {k: v for k, v in probe.items() if k not in shrunk}
                continue
            break
        except BaseException:  # noqa: B902 - judged in the baseline call below
            break
        base = probe
        break
    emit(ev="end")
    invented = [p.name for p in params if p.name in base and p.kind is not p.VAR_POSITIONAL]

    def call(perturbed):
        args, kwargs = build_call(fn, base, perturbed)
        shown = {**{k: base[k] for k in invented}, **perturbed}
        desc = f"{callable_id.rsplit('.', 1)[1]}({', '.join(f'{k}={short(v)}' for k, v in shown.items())})"
        emit(ev="start", call=desc, params=sorted(perturbed) or ["__baseline__"])
        try:
            outcome = ("return", fn(*args, **kwargs))
        except BaseException as exc:  # noqa: B902 - SystemExit/KeyboardInterrupt from a library are bugs too
            outcome = ("raise", exc)
        name_value = perturbed.get("name", base.get("name"))
        problem = judge(fn, outcome, perturbed, name_value)
        emit(ev="end")
        if problem:
            emit(ev="fail", call=desc, params=sorted(perturbed), what=problem)

    if "__baseline__" not in skip:
        call({})

    names = [p.name for p in params if p.name not in skip]
    if names:
        strategies = {}
        for p in params:
            pool = good_values(kind_of(p), p.default) + bad_values()
            if p.kind is p.VAR_POSITIONAL:
                pool = [(v,) for v in pool] + [()]
            strategies[p.name] = st.sampled_from(pool)

        @settings(max_examples=max_examples, deadline=None, derandomize=True, database=None,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck), verbosity=hypothesis.Verbosity.quiet)
        @hypothesis.given(st.data())
        def run(data):
            k = data.draw(st.integers(1, min(2, len(names))))
            chosen = data.draw(st.lists(st.sampled_from(names), min_size=k, max_size=k, unique=True))
            call({p: data.draw(strategies[p]) for p in chosen})

        run()
    emit(ev="done")


# --------------------------------------------------------------------------------------------
# the server: a fresh interpreter that forks one child per callable and enforces the timeouts
# --------------------------------------------------------------------------------------------

def _cpu_seconds(pid):
    """User + system CPU time of process ``pid`` (all its threads), from /proc."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def supervise(pid, fd, deadline_wall):
    """Read the child's events; kill it if one call overruns.  Returns (events, fatal or None).

    A call overruns when it used ``CALL_TIMEOUT_S`` of CPU time (so that a machine loaded by other
    jobs does not turn slow calls into timeouts), or ``WALL_FACTOR`` times that in wall time (a
    call blocked without using CPU), numba compilation excluded from both.
    """
    events, buf, current, compiling = [], b"", None, 0
    used_cpu = used_wall = 0.0
    t_last, cpu_last = time.monotonic(), _cpu_seconds(pid)
    fatal = None
    while True:
        now, cpu = time.monotonic(), _cpu_seconds(pid)
        if current is not None and compiling == 0:
            used_wall += now - t_last
            used_cpu += cpu - cpu_last
        t_last, cpu_last = now, cpu
        limit = CALL_TIMEOUT_S * (SETUP_FACTOR if current is not None and "__setup__" in current["params"] else 1)
        if current is not None and (used_cpu > limit or used_wall > WALL_FACTOR * limit):
            fatal = dict(current, what=f"no return within {limit:g} s of CPU time ({used_wall:.1f} s wall, "
                                       "numba compilation excluded)")
            break
        if now > deadline_wall:
            fatal = dict(current or {"call": "(between calls)", "params": []},
                         what=f"all examples of this callable took over {CALLABLE_BUDGET_S:g} s")
            break
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            _, status = os.waitpid(pid, 0)
            pid = None
            if not any(e.get("ev") == "done" for e in events):
                sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
                fatal = dict(current or {"call": "(outside a call)", "params": []},
                             what=f"process died ({'signal ' + signal.Signals(sig).name if sig else 'exit ' + str(os.WEXITSTATUS(status))})")
            break
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            ev = json.loads(line)
            events.append(ev)
            if ev["ev"] == "start":
                current, used_cpu, used_wall, compiling = {"call": ev["call"], "params": ev["params"]}, 0.0, 0.0, 0
            elif ev["ev"] == "end":
                current = None
            elif ev["ev"] == "compile+":
                compiling += 1
            elif ev["ev"] == "compile-":
                compiling = max(0, compiling - 1)
    if pid is not None:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    os.close(fd)
    return events, fatal


def fuzz_callable(callable_id, max_examples=MAX_EXAMPLES):
    """All failures of one callable as a list of dicts ``{call, params, what}``."""
    failures, skip = [], set()
    deadline = time.monotonic() + CALLABLE_BUDGET_S
    for _ in range(MAX_RESTARTS + 1):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # child
            try:
                os.close(r)
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                os.dup2(devnull, 2)
                _limit_memory()
                child_main(callable_id, skip, max_examples, w)
                code = 0
            except BaseException:
                code = 3
            os._exit(code)
        os.close(w)
        events, fatal = supervise(pid, r, deadline)
        failures += [{k: e[k] for k in ("call", "params", "what")} for e in events if e["ev"] == "fail"]
        if fatal is None:
            break
        failures.append(fatal)
        if "__setup__" in fatal["params"] or "budget" in fatal["what"] or "took over" in fatal["what"]:
            break
        skip |= set(fatal["params"])
    unique = {(f["call"], f["what"]): f for f in failures}  # a restarted child repeats earlier examples
    return list(unique.values())


def _limit_memory(extra_bytes=4 * 2**30):
    """Cap the child's address space at its current size + 4 GiB: huge allocations raise MemoryError."""
    import resource

    with open("/proc/self/statm") as f:
        vm = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (vm + extra_bytes, resource.RLIM_INFINITY))


def _warm_up_hypothesis():
    """Run one trivial hypothesis test, so its one-off set-up (it scans the loaded modules for
    constants) is done once here and inherited by every forked child."""
    import hypothesis
    from hypothesis import Phase, settings, strategies as st

    try:  # our strategies are sampled_from pools: skip hypothesis' scan of local modules for constants
        from hypothesis.internal.conjecture import providers

        providers._get_local_constants = lambda: providers._local_constants
    except (ImportError, AttributeError):  # pragma: no cover - other hypothesis versions
        pass

    @settings(max_examples=2, derandomize=True, database=None, phases=[Phase.generate], deadline=None)
    @hypothesis.given(st.data())
    def trivial(data):
        data.draw(st.integers(1, 2))
        data.draw(st.sampled_from([1, 2]))

    trivial()


def _warm_up_numba():
    """Compile one trivial (serial, uncached) function, so that numba's code generator is set up
    once here rather than in every child; no threading layer is started (fork stays safe)."""
    import numba

    numba.njit(lambda x: x + 1)(1)


def serve():
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # stray prints of the library go to stderr, not into the protocol
    os.environ.setdefault("MPLBACKEND", "Agg")
    for pkg in subpackages():  # import once; the children inherit it
        importlib.import_module(pkg)
    _warm_up_numba()
    _warm_up_hypothesis()
    import gc

    gc.collect()
    gc.freeze()  # the children's garbage collections then do not touch (and copy) the inherited heap
    proto.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        req = json.loads(line)
        t0 = time.monotonic()
        failures = fuzz_callable(req["id"], req["max_examples"])
        proto.write(json.dumps({"id": req["id"], "failures": failures, "seconds": time.monotonic() - t0}) + "\n")


SECONDS = {}  # callable id -> seconds its examples took in the server (for the report)


class Server:
    """One server process; requests are queued on its stdin and answered in order."""

    def __init__(self, workdir):
        env = dict(os.environ, MPLBACKEND="Agg", THEORYLAB_CACHE=str(workdir / "cache"))
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve"], cwd=workdir, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.ready = False
        self.done = {}

    def submit(self, callable_id, max_examples=MAX_EXAMPLES):
        self.proc.stdin.write(json.dumps({"id": callable_id, "max_examples": max_examples}) + "\n")
        self.proc.stdin.flush()

    def result(self, callable_id):
        while callable_id not in self.done:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"fuzz server died before answering for {callable_id}")
            msg = json.loads(line)
            if msg.get("ready"):
                continue
            self.done[msg["id"]] = msg["failures"]
            SECONDS[msg["id"]] = msg.get("seconds", float("nan"))
        return self.done.pop(callable_id)

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Pool:
    """``n`` servers working through the callables side by side (one per core); all ids are
    submitted up front, each test then collects its own result."""

    def __init__(self, workdir, n=2):
        self.servers = [Server(workdir) for _ in range(n)]
        self.owner, self.next = {}, 0

    def submit(self, callable_ids):
        for cid in callable_ids:
            if cid not in self.owner:
                self.owner[cid] = self.servers[self.next % len(self.servers)]
                self.next += 1
                self.owner[cid].submit(cid)

    def fuzz(self, callable_id):
        self.submit([callable_id])
        return self.owner.pop(callable_id).result(callable_id)

    def close(self):
        for s in self.servers:
            s.close()


def format_failures(callable_id, failures):
    lines = [f"{callable_id}: {len(failures)} failing call(s)"]
    for f in failures[:8]:
        lines.append(f"  {f['call']}  [{', '.join(f['params'])}]  -> {f['what']}")
    if len(failures) > 8:
        lines.append(f"  ... and {len(failures) - 8} more")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# the tests
# --------------------------------------------------------------------------------------------

CALLABLE_IDS, MISSING_ALL = discover_callables()


def _params():
    out = []
    for cid in CALLABLE_IDS:
        if cid in ALLOWLIST or (cid not in USER_BUILT_RECORDS and is_record(resolve(cid))):
            continue
        marks = [pytest.mark.xfail(strict=True, reason=f"fuzz: {KNOWN_FAILURES[cid]}")] if cid in KNOWN_FAILURES else []
        out.append(pytest.param(cid, id=cid, marks=marks))
    return out


@pytest.fixture(scope="module")
def fuzz_server(request, tmp_path_factory):
    pool = Pool(tmp_path_factory.mktemp("fuzz"), n=max(1, min(2, os.cpu_count() or 1)))
    pool.submit([item.callspec.params["callable_id"] for item in request.session.items
                 if getattr(item, "callspec", None) is not None and "callable_id" in item.callspec.params
                 and item.module is request.module])
    yield pool
    pool.close()


@pytest.mark.parametrize("pkg", subpackages())
def test_subpackage_declares_all(pkg):
    assert pkg not in MISSING_ALL, (f"{pkg} has no __all__: declare its public API so that the fuzz test "
                                    "(and users) know what is public")


def test_registries_are_current():
    stale = sorted(set(ALLOWLIST) - set(CALLABLE_IDS)) + sorted(set(KNOWN_FAILURES) - set(CALLABLE_IDS))
    assert not stale, f"ALLOWLIST/KNOWN_FAILURES name callables that are no longer public: {stale}"


@pytest.mark.parametrize("callable_id", _params())
def test_fuzz(callable_id, fuzz_server):
    failures = fuzz_server.fuzz(callable_id)
    assert not failures, format_failures(callable_id, failures)


# --------------------------------------------------------------------------------------------
# command line: the server, and a markdown report of all failures per subpackage
# --------------------------------------------------------------------------------------------

def write_report(path, ids=None):
    import tempfile
    from pathlib import Path

    ids = ids or [p.values[0] for p in _params()]
    server = Pool(Path(tempfile.mkdtemp(prefix="theorylab-fuzz-")))
    t0 = time.monotonic()
    results = {}
    try:
        server.submit(ids)
        for cid in ids:
            t = time.monotonic()
            results[cid] = (server.fuzz(cid), SECONDS.get(cid, time.monotonic() - t))
            print(f"{time.monotonic() - t0:7.1f}s {cid}: {len(results[cid][0])} failure(s)", file=sys.stderr)
    finally:
        server.close()
    total = time.monotonic() - t0
    lines = [f"# Fuzz failures ({time.strftime('%Y-%m-%d %H:%M')})", "",
             f"{len(ids)} callables, {MAX_EXAMPLES} examples + 1 baseline each, {total:.0f} s wall on 2 servers "
             f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores); "
             f"{sum(1 for f, _ in results.values() if f)} failing.", ""]
    kinds = ("no return", "raised", "error names no argument", "returned non-finite", "process died", "all examples")
    lines += ["| subpackage | callables | failing | " + " | ".join(kinds) + " |",
              "|---|---|---|" + "---|" * len(kinds)]
    for pkg in subpackages():
        rows = [f for cid, (f, _) in results.items() if cid.rsplit(".", 1)[0] == pkg]
        calls = [item["what"] for f in rows for item in f]
        lines.append(f"| {pkg} | {len(rows)} | {sum(1 for f in rows if f)} | "
                     + " | ".join(str(sum(w.startswith(k) for w in calls)) for k in kinds) + " |")
    lines.append("")
    for pkg in subpackages():
        rows = [(cid, f, t) for cid, (f, t) in results.items() if cid.rsplit(".", 1)[0] == pkg]
        bad = [(cid, f, t) for cid, f, t in rows if f]
        lines += [f"## {pkg}: {len(bad)} of {len(rows)} callables fail", ""]
        for cid, f, t in bad:
            lines.append(f"### {cid} ({t:.1f} s)")
            for item in f:
                lines.append(f"- `{item['call']}` [{', '.join(item['params'])}]: {item['what']}")
            lines.append("")
    slow = sorted(((t, cid) for cid, (_, t) in results.items()), reverse=True)[:10]
    lines += ["## Slowest callables", ""] + [f"- {cid}: {t:.1f} s" for t, cid in slow] + [""]
    Path(path).write_text("\n".join(lines))
    print("KNOWN_FAILURES = {")
    for cid, (f, _) in results.items():
        if f:
            print(f"    {cid!r}: {summarize(f)!r},")
    print("}")
    return results


def summarize(failures, limit=3):
    """A one-line reason for KNOWN_FAILURES: the first few distinct (parameters, kind of failure)."""
    seen = []
    for f in failures:
        what = f["what"]
        kind = ("no return in time" if what.startswith("no return") else
                what.split(":")[0].replace("raised ", "") if what.startswith("raised") else
                "error names no argument" if what.startswith("error names") else
                "non-finite result" if what.startswith("returned") else what[:40])
        item = f"{'+'.join(p for p in f['params'] if not p.startswith('__')) or 'defaults'}: {kind}"
        if item not in seen:
            seen.append(item)
    return "; ".join(seen[:limit]) + (f"; +{len(seen) - limit} more" if len(seen) > limit else "")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve()
    elif sys.argv[1:2] == ["--report"]:
        write_report(sys.argv[2], sys.argv[3:] or None)
    else:
        sys.exit("usage: python tests/test_zz_fuzz.py --serve | --report FILE [callable ids]")
