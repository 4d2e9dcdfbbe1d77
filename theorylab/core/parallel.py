"""Threads over blocks of independent paths, for serial ``nogil`` kernels (one helper for every package).

A kernel that loops over independent paths (runs, chains, games), path m drawing only from its own
stream seeded by ``seeds[m]``, is parallelised here by calling the serial kernel on contiguous blocks of
paths from a thread pool, not by a ``prange`` inside the kernel: a cold compile of the parallel, multi-
function version of the stp kernel took ~14 s on the shared 2-core CI machine (15 s is a paper's whole CI
share), a few seconds for the serial one.  The kernel must be ``@njit(nogil=True)`` so the threads run
at once.  Numbers never depend on the split: a path depends only on its seed, whatever block runs it.

    def block(s):                                   # s: a slice of the paths
        K.run_paths(*args, seeds[s], out[s])        # writes its rows of `out` in place
    map_blocks(block, n_paths, work=n_paths * n_steps)
"""

from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor

#: Work (in a kernel's own units: steps x dimension, draws, ...) below which a thread is not worth
#: starting; each thread gets at least this much.
MIN_WORK_PER_THREAD = 10**7


def thread_count(n: int, work: float, *, min_work: float = MIN_WORK_PER_THREAD, parallel: bool = True) -> int:
    """Threads for ``n`` paths carrying ``work`` in total: at most numba's thread count and ``n``, and
    at least ``min_work`` work per thread; 1 when ``parallel`` is false."""
    import numba

    if not parallel or n <= 1:
        return 1
    return int(max(1, min(numba.get_num_threads(), n, work // min_work)))


def blocks(n: int, threads: int) -> list[slice]:
    """``threads`` contiguous slices covering range(n), sizes differing by at most one (the first
    ``n % threads`` one longer, as ``numpy.array_split``); empty slices are dropped."""
    q, r = divmod(n, threads)
    out, lo = [], 0
    for j in range(threads):
        hi = lo + q + (j < r)
        if hi > lo:
            out.append(slice(lo, hi))
        lo = hi
    return out


def map_blocks(block, n: int, *, work: float, min_work: float = MIN_WORK_PER_THREAD, parallel: bool = True,
               threads: int | None = None) -> list:
    """``[block(s) for s in blocks]`` over contiguous slices ``s`` of range(n), on threads.

    ``threads`` defaults to :func:`thread_count` ``(n, work, min_work=..., parallel=...)``; with one
    thread ``block(slice(0, n))`` runs in the caller's thread.  Results come back in block order; an
    exception in a block is raised here.
    """
    if threads is None:
        threads = thread_count(n, work, min_work=min_work, parallel=parallel)
    parts = blocks(n, threads)
    if len(parts) <= 1:
        return [block(slice(0, n))]
    with ThreadPoolExecutor(len(parts)) as pool:
        return list(pool.map(block, parts))


#: BLAS threads inside a run (:func:`theorylab.core.context.using_run`).
RUN_BLAS_THREADS = 1


@contextlib.contextmanager
def blas_threads(n: int = RUN_BLAS_THREADS):
    """Limit the BLAS/LAPACK thread pools (OpenBLAS, MKL, BLIS, via threadpoolctl) to ``n`` in the body.

    theorylab parallelises over paths, points and workers, never inside a linear-algebra call; its dense
    solves are small (tens to hundreds of rows), where a threaded BLAS only adds synchronisation, and on a
    loaded 2-core machine a small threaded triangular solve measured ~400x slower than a serial one
    (gameopt).  Every claim and every dask point runs inside this limit (``using_run`` enters it).
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=n, user_api="blas"):
        yield
