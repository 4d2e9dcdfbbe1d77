"""theorylab.core.parallel: the one thread split over paths, and BLAS on one thread inside a run."""

import threading

import numpy as np
import pytest

from theorylab.core import parallel
from theorylab.core.context import using_run


@pytest.mark.parametrize("n, threads", [(1, 1), (7, 2), (8, 3), (2, 5), (100, 4)])
def test_blocks_cover_the_paths_contiguously_like_array_split(n, threads):
    got = parallel.blocks(n, threads)
    want = [b for b in np.array_split(np.arange(n), threads) if b.size]
    assert [list(range(s.start, s.stop)) for s in got] == [list(b) for b in want]


def test_thread_count_rule(monkeypatch):
    import numba

    monkeypatch.setattr(numba, "get_num_threads", lambda: 4)
    assert parallel.thread_count(100, 10**9) == 4                      # capped by numba's threads
    assert parallel.thread_count(3, 10**9) == 3                        # and by the paths
    assert parallel.thread_count(100, 2.5e7) == 2                      # at least min_work per thread
    assert parallel.thread_count(100, 5e6) == 1
    assert parallel.thread_count(100, 10**9, parallel=False) == 1


def test_map_blocks_runs_blocks_on_threads_in_order_and_writes_in_place():
    out = np.zeros(10)
    seen = []

    def block(s):
        seen.append(threading.get_ident())
        out[s] = np.arange(s.start, s.stop) ** 2
        return s.start

    starts = parallel.map_blocks(block, 10, work=0, threads=3)
    assert starts == [0, 4, 7] and np.array_equal(out, np.arange(10) ** 2)
    assert parallel.map_blocks(lambda s: (s.start, s.stop), 10, work=1) == [(0, 10)]  # below min_work: inline


def test_map_blocks_raises_a_blocks_error():
    def block(s):
        if s.start > 0:
            raise ValueError("bad block")

    with pytest.raises(ValueError, match="bad block"):
        parallel.map_blocks(block, 10, work=0, threads=2)


def test_a_run_limits_blas_to_one_thread():
    threadpoolctl = pytest.importorskip("threadpoolctl")

    def blas_threads():
        return [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]

    np.linalg.solve(np.eye(3), np.ones(3))                              # BLAS loaded
    with using_run(claim_key="x:y"):
        assert blas_threads() and set(blas_threads()) == {parallel.RUN_BLAS_THREADS}
