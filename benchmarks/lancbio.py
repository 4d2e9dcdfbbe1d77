"""lancbio benchmark: LancBiO's dynamic Lanczos hypergradient (one HVP per outer step plus one per restart,
theorylab.krylov.lancbio with the code's subspace schedule) against a fresh conjugate-gradient solve per outer step
(theorylab.krylov.cg_bilevel with warm_start=False and 20 CG steps), same quadratic instance (n = 200, kappa = 30,
B = I), same inner loop and outer step, same process, hypergradient tracking off.  ratio = CG time / LancBiO time;
the HVP counts and the final exact |grad phi|^2 of both are reported beside it."""

from theorylab.core import benchmark, best_time
from theorylab.krylov import bilevel as B


@benchmark("lancbio", "dynamic_lanczos_vs_fresh_cg")
def bench_dynamic_lanczos(*, quick=False):
    """K = 1000 (quick: 200) outer steps."""
    from theorylab.validations.lancbio import DYNAMIC, OUTER

    P = B.quadratic_bilevel(OUTER["n"], kappa=OUTER["kappa"], mu_x=OUTER["mu_x"], seed=0)
    K = 200 if quick else 1000
    common = dict(T=OUTER["T"], theta=OUTER["theta"], lam=OUTER["lam"], track=False, seed=1)
    t_lanc = best_time(B.lancbio, P, K, repeat=3, **DYNAMIC, **common)
    t_cg = best_time(B.cg_bilevel, P, K, repeat=3, cg_steps=20, warm_start=False, **common)
    lanc = B.lancbio(P, K, **DYNAMIC, **common)
    cg = B.cg_bilevel(P, K, cg_steps=20, warm_start=False, **common)
    return {"ratio": t_cg / t_lanc, "lancbio_s": t_lanc, "cg_s": t_cg, "K": K,
            "lancbio_hvps": lanc.hvps, "cg_hvps": cg.hvps,
            "lancbio_final_grad2": float((P.hypergradient(lanc.x) ** 2).sum()),
            "cg_final_grad2": float((P.hypergradient(cg.x) ** 2).sum())}
