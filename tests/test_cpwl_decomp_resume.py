"""Issue 14 for cpwl_decomp: a converted claim stores one cache entry per sweep point, and a rerun after a
SIGKILL mid-claim (claim entry and some points lost) recomputes exactly the missing points."""


def test_nn_convex_network_stores_its_sweep_points_and_recomputes_only_missing_ones(monkeypatch,
                                                                                     rerun_after_losing_points):
    import theorylab.validations.cpwl_decomp as V
    from theorylab.core.checks import REGISTRY

    calls = []
    real = V.check_networks
    monkeypatch.setattr(V, "check_networks", lambda cases, seed: calls.append(cases) or real(cases, seed))
    small = dict(cases=((1, 3, 2), (1, 4, 1)))          # three networks on R^1, one sweep point each
    first, again, first_calls = rerun_after_losing_points(REGISTRY.claims["cpwl_decomp:nn_convex_network"], 5,
                                                          calls, slice(1, 2), overrides=small)
    assert len(first_calls) == 3
    assert again.data.equals(first.data)
