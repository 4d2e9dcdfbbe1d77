"""Issue 14 for cpwl_decomp: a converted claim stores one cache entry per sweep point, and a rerun after a
SIGKILL mid-claim (claim entry and some points lost) recomputes exactly the missing points."""


def test_nn_convex_network_stores_its_sweep_points_and_recomputes_only_missing_ones(tmp_path, monkeypatch):
    import theorylab.validations.cpwl_decomp as V
    from theorylab.core import Cache
    from theorylab.core.checks import REGISTRY, apply_overrides, run_claim

    c = REGISTRY.claims["cpwl_decomp:nn_convex_network"]
    small = dict(cases=((1, 3, 2), (1, 4, 1)))          # three networks on R^1, one sweep point each
    store = Cache(tmp_path / "cache")
    params, _ = apply_overrides(c, c.params("ci"), small)
    claim_key = store.key("claim", c.paper.id, c.id, "ci", 5, params, module=c.func.__module__)
    calls = []
    real = V.check_networks
    monkeypatch.setattr(V, "check_networks", lambda cases, seed: calls.append(cases) or real(cases, seed))

    first = run_claim(c, "ci", 5, cache=store, overrides=small)
    assert first.verdict == "reproduced" and len(calls) == 3
    points = [p for p in sorted(store.root.rglob("*.pkl")) if p != store.path(claim_key)]
    assert store.path(claim_key).exists() and len(points) == 3

    store.path(claim_key).unlink()
    lost = points[1:2]
    kept = {p: p.stat().st_mtime_ns for p in points if p not in lost}
    for p in lost:
        p.unlink()
    calls.clear()
    again = run_claim(c, "ci", 5, cache=store, overrides=small)
    assert len(calls) == len(lost)
    assert {p: p.stat().st_mtime_ns for p in kept} == kept      # served, not rewritten
    assert (again.verdict, again.measured) == (first.verdict, first.measured)
    assert again.data.equals(first.data)
