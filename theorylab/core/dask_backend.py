"""Running claims and their sweep points on a dask cluster (``pip install theorylab[dask]``).

Start a cluster and point theorylab at it::

    dask scheduler --port 8786 &            # prints tcp://HOST:8786
    dask worker tcp://HOST:8786 --nworkers 2 --nthreads 1 &
    theorylab check rr_sgd --scheduler tcp://HOST:8786

:func:`connect` opens a client or fails within ``timeout`` seconds with a
:class:`ConnectionError` naming the address.  :func:`run_claims` sends the claims
(:func:`theorylab.core.checks.run_claim`) to the cluster as tasks, one per stream (the claims of
one paper naming one ``stream=`` run one after the other in one task, so the experiment they
share is computed once, then served from that worker's memo: as separate tasks they started
together and each computed it), and returns the results in the order of the input.  Inside that
task the claims' :func:`~theorylab.core.sweep.sweep` calls submit their points to the same cluster
via ``distributed.worker_client`` (the task secedes from its worker's thread pool while it waits,
so its worker slot runs points meanwhile; points are prioritised by their recorded times, see
:mod:`theorylab.core.sweep`).  Seeds depend on (root seed, paper, claim, point) only, so the results
are identical to a serial run with the same seed.

Ctrl-C (or SIGTERM) at the client cancels the claims not yet started and sets a
``distributed.Event`` that the running claims' sweeps read after each point: they cancel their
outstanding points and stop, so an interrupted run does not keep the workers busy.

Caching happens where the work runs: the claim's task reads and writes the claim entry and the
points' entries in ``cache`` on the worker's file system (shared with the client for a local
cluster or a shared home folder; a remote worker without it caches on its own disk).
"""

from __future__ import annotations

import pickle
import uuid

#: Seconds :func:`connect` waits for a scheduler before giving up.
CONNECT_TIMEOUT = 5

_CLIENTS: dict = {}


def _distributed():
    try:
        import distributed
    except ImportError as exc:
        raise ImportError("the dask executor needs dask.distributed: pip install 'theorylab[dask]'") from exc
    return distributed


def connect(address, timeout=CONNECT_TIMEOUT):
    """A ``distributed.Client`` connected to the scheduler at ``address`` (e.g. ``"tcp://host:8786"``).

    A ``Client`` is returned as is.  Raises :class:`ValueError` for a malformed address and
    :class:`ConnectionError` naming the address when no scheduler answers within ``timeout``
    seconds.  The client is not made dask's default; close it when done.
    """
    distributed = _distributed()
    if isinstance(address, distributed.Client):
        return address
    if not isinstance(address, str):
        raise TypeError(f"scheduler must be a dask scheduler address such as 'tcp://127.0.0.1:8786' "
                        f"or a distributed.Client; got {address!r} of type {type(address).__name__}")
    if not address.strip():
        raise ValueError(f"scheduler must be a dask scheduler address such as 'tcp://127.0.0.1:8786' "
                         f"or a distributed.Client; got {address!r}")
    from .validate import check_real

    timeout = check_real("timeout", timeout, low=0.0, low_open=True)
    address = address.strip()
    _probe(distributed, address, timeout)
    try:
        return distributed.Client(address, timeout=timeout, set_as_default=False)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"scheduler address {address!r} is not a valid dask address ({exc}); "
                         f"expected e.g. 'tcp://127.0.0.1:8786'") from None
    except Exception as exc:  # noqa: BLE001 - OSError("Timed out trying to connect ..."), or a peer speaking garbage
        raise ConnectionError(f"no dask scheduler answered at {address!r} within {timeout:g} s "
                              f"({type(exc).__name__}: {exc}); {_START}") from None


_START = "start one with `dask scheduler` and workers with `dask worker ADDRESS`"


def _probe(distributed, address, timeout):
    """Fail at once on a refused/unroutable TCP address (before a Client retries until its timeout)."""
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, loc = parse_address(address)
        from distributed.comm.registry import get_backend

        get_backend(scheme)  # ValueError naming the known schemes
        if scheme not in ("tcp", "tls"):
            return
        host, port = parse_host_port(loc)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"scheduler address {address!r} is not a valid dask address ({exc}); "
                         f"expected e.g. 'tcp://127.0.0.1:8786'") from None
    if not 0 < int(port) < 65536:
        raise ValueError(f"scheduler address {address!r} has port {port}, outside 1..65535")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ConnectionError(f"no dask scheduler answered at {address!r} ({type(exc).__name__}: {exc}); "
                              f"{_START}") from None


def client_for(scheduler):
    """A running client for ``scheduler`` (a Client, or an address: connected once per process)."""
    distributed = _distributed()
    if isinstance(scheduler, distributed.Client):
        return scheduler
    client = _CLIENTS.get(scheduler)
    if client is None or client.status not in ("running", "connecting"):
        client = _CLIENTS[scheduler] = connect(scheduler, timeout=CONNECT_TIMEOUT)
    return client


def _stop_hook(stop):
    """A run progress hook for a claim on a worker: after each sweep point it asks the cluster
    whether the client set the ``distributed.Event`` named ``stop`` (Ctrl-C or SIGTERM at the
    client) and, if so, raises :class:`~theorylab.core.interrupt.Interrupted`, which cancels the
    claim's outstanding points and ends the claim's task."""
    import signal

    from .interrupt import Interrupted

    event = _distributed().Event(stop)

    def hook(kind, **info):
        if event.is_set():
            raise Interrupted(signal.SIGINT)

    return hook


def _claim_task(c, scale, seed, cache, force, stop=None, memo=True, run_id=None, point_times=None):
    """One claim, run inside a task on a worker; its sweeps submit points to the same cluster.

    ``memo``/``run_id`` carry the client's run settings to the worker (a long-lived worker's
    in-process memo is neither read nor written under ``--no-cache``; see core.experiment);
    ``point_times``: the folder of recorded point times (see core.sweep), or None."""
    from .checks import run_claim
    from .context import using_run

    with using_run(executor="dask", scheduler=None, progress=_stop_hook(stop) if stop else None,
                   memo=memo, run_id=run_id, point_times=point_times):
        result = run_claim(c, scale, seed, cache=cache, force=force)
    exc = getattr(result, "exception", None)
    if exc is not None:  # an error row travels back; its exception only if it pickles
        try:
            pickle.dumps(exc)
        except Exception:  # noqa: BLE001
            result.exception = RuntimeError(f"{type(exc).__name__}: {exc}")
    return result


def _stream_task(claims, scale, seed, cache, force, stop=None, memo=True, run_id=None, point_times=None):
    """The claims of one stream, one after the other in one task (their shared experiment once)."""
    return [_claim_task(c, scale, seed, cache, force, stop, memo, run_id, point_times) for c in claims]


def stream_groups(claims) -> list[list[int]]:
    """Indices of ``claims`` grouped by (paper, stream), in order of first appearance; a claim without a
    stream is a group of its own."""
    groups: dict = {}
    for i, c in enumerate(claims):
        stream = getattr(c, "stream", "")
        groups.setdefault((c.paper.id, stream) if stream else ("", i), []).append(i)
    return list(groups.values())


def run_claims(claims, scale, seed, client, cache=None, force=False, memo=True, run_id=None,
               point_times=None) -> list:
    """Run ``claims`` on the cluster of ``client`` (a Client or an address); Results in input order.

    The claims of one stream are one task (:func:`stream_groups`), all tasks submitted at once, so
    independent streams run in parallel on the workers; ``cache``/``force`` as in
    :func:`theorylab.core.checks.run_claim`, applied on the worker, with ``memo``, ``run_id`` and
    ``point_times`` as in :class:`~theorylab.core.context.RunContext` (default: the client's run).
    A claim that raises becomes an ``error`` Result as in a local run.
    """
    from .context import current_run

    client = client_for(client)
    claims = list(claims)
    batch = uuid.uuid4().hex
    stop = f"theorylab-stop-{batch}"
    ctx = current_run()
    memo = memo and ctx.memo
    run_id = run_id or ctx.run_id or (batch if force or ctx.force else None)
    point_times = point_times if point_times is not None else ctx.point_times
    groups = stream_groups(claims)
    futures = [client.submit(_stream_task, [claims[i] for i in g], scale, seed, cache, force or ctx.force, stop, memo,
                             run_id, point_times, pure=False, key=f"claim-{claims[g[0]].key}-{g[0]}-{batch}")
               for g in groups]
    try:
        gathered = client.gather(futures)
        results = [None] * len(claims)
        for g, rs in zip(groups, gathered):
            for i, r in zip(g, rs):
                results[i] = r
        return results
    except BaseException:
        # a task already running on a worker cannot be killed: tell its sweeps to stop after the
        # point in flight (see _stop_hook), then cancel what has not started
        _distributed().Event(stop, client=client).set()
        client.cancel(futures)
        raise
