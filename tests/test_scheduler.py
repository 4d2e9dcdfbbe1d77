"""A dask scheduler on the command line (was part of the issue-14 audit).

* ``$THEORYLAB_DASK_SCHEDULER`` or ``--scheduler`` naming a dead address fails fast, naming it, for
  ``check``, ``figures``, ``calibrate`` and ``report``: never a silent local run.
* Calibration on a cluster gives the local numbers.
"""

import time

import pandas as pd
import pytest

from theorylab import cli

FAST = "rr_sgd:rr_leading_level"  # its cos sweep has 8 points at ci scale (i_max = 7)


@pytest.fixture
def out(tmp_path, monkeypatch):
    monkeypatch.setenv("THEORYLAB_OUT", str(tmp_path / "out"))
    return tmp_path / "out"


def test_the_scheduler_from_the_environment_fails_fast_naming_it(out, capsys, monkeypatch):
    monkeypatch.setenv("THEORYLAB_DASK_SCHEDULER", "tcp://127.0.0.1:1")
    t0 = time.monotonic()
    assert cli.main(["check", FAST, "--no-progress", "--no-record"]) == 2
    assert time.monotonic() - t0 < 15 and "tcp://127.0.0.1:1" in capsys.readouterr().err


def test_figures_calibrate_and_report_with_a_dead_scheduler_do_not_silently_run_locally(out, capsys, tmp_path,
                                                                                          monkeypatch):
    dead = ["--scheduler", "tcp://127.0.0.1:1"]
    assert cli.main(["figures", "rr_sgd:rescaled_error", "--scale", "ci", "--no-progress", *dead]) == 2
    assert "scheduler" in capsys.readouterr().err.lower()
    assert cli.main(["calibrate", "highway_bp", "--seeds", "2", "--no-progress", *dead]) == 2
    assert "tcp://127.0.0.1:1" in capsys.readouterr().err
    monkeypatch.setenv("THEORYLAB_ROOT", str(tmp_path))  # no committed record: report must run the claims
    assert cli.main(["report", "highway_bp", "--no-progress", "--no-cache", *dead]) == 2
    assert "tcp://127.0.0.1:1" in capsys.readouterr().err


def test_calibration_on_a_cluster_equals_the_local_one():
    distributed = pytest.importorskip("distributed")
    from theorylab.core.calibrate import calibrate_paper

    local, _ = calibrate_paper("highway_bp", [1, 2], claims=["exact_last_k_layers"])
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as lc, distributed.Client(lc) as client:
        on_dask, runs = calibrate_paper("highway_bp", [1, 2], claims=["exact_last_k_layers"], scheduler=client)
        ran = [str(t[0]) for t in lc.scheduler.transition_log if str(t[0]).startswith("claim-highway_bp")]
    assert ran and len(runs) == 2
    pd.testing.assert_frame_equal(local, on_dask)
