"""lancbio — Yang, Gao, Yuan (ICLR 2025), "LancBiO: Dynamic Lanczos-aided Bilevel Optimization via Krylov
Subspace", arXiv:2404.03331; code github.com/UCAS-YanYang/LancBiO (Code/SyntheticProblem/solvers/LancBiO.py,
main.py).

Checks:
* ``hypergradient_matches_fd`` [derived]: grad phi = grad_x f - grad^2_xy g [grad^2_yy g]^{-1} grad_y f (for the
  quadratic lower level g = y^T H y / 2 - y^T B x this is grad_x f + B^T H^{-1} grad_y f, a plus) equals central
  finite differences of phi(x) = f(x, y*(x)), on a quadratic and a logistic hyperparameter-tuning instance.
* ``lanczos_step_equals_cg`` [derived]: on a frozen problem (x fixed, y = y*(x), no restart), j steps of LancBiO's
  inner Lanczos recursion give the j-th CG iterate for H Delta v = b - H v_bar, to 1e-8 relative, j <= 30.
* ``lanczos_meets_cg_bound`` [derived, Saad Thm 6.29]: the same iterates meet the CG error bound.
* ``hvp_count_matches_restart_rule`` [code]: LancBiO spends exactly K + (number of restarts) HVPs; for fixed m >= 2
  that is K + floor((K - 1) / m) + 1, for m = 1 it is 2K; with the code's dynamic m, K + the restarts of the rule.
* ``summed_gradnorm_bounded`` / ``final_gradnorm_small`` [derived from the paper's O(1/K) rate]: on a well-posed
  instance S_K = sum_{k<K} |grad phi(x_k)|^2 stops growing (S_2K / S_K - 1 <= 1e-3) and |grad phi(x_2K)|^2 is small.
The O(1/K) rate of the mean (1/K) S_K, read as a log-log slope, is not asserted: its slope depends on the step and
the conditioning; an O(1/K) bound on the running mean says only that S_K stays bounded.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorylab.core import Bound, Identity, Paper, claim, experiment, figure
from theorylab.core.plotting import subplots
from theorylab.core.seeding import child_seed, spawn_seeds
from theorylab.krylov import bilevel as B
from theorylab.krylov import lanczos as L

PAPER = Paper(
    id="lancbio",
    title="LancBiO: Dynamic Lanczos-aided Bilevel Optimization via Krylov Subspace",
    authors="Yan Yang, Bin Gao, Ya-xiang Yuan",
    arxiv="2404.03331",
)

CODE = "UCAS-YanYang/LancBiO Code/SyntheticProblem/solvers/LancBiO.py"
#: The code's subspace schedule (main.py): m0 = 1, dim_inc = 1.1 every dim_fre = 20 steps, dim_max = 80.
DYNAMIC = dict(m0=1, dim_inc=1.1, dim_fre=20, dim_max=80)
#: Finite-difference step and the stated margin on max|grad - FD| / max|grad|: central differences err by
#: h^2 |phi'''| / 6 + eps |phi| / h (about 1e-9 relative at h = 1e-4 on the logistic instance, falling as h^2 from
#: 1e-5 at h = 1e-2; exact up to rounding for the quadratic phi); a sign error in the B^T H^{-1} term errs by O(1)
#: (exactly 2 on the logistic instance, where grad_x f = 0).
FD_STEP, FD_MARGIN = 1e-4, 1e-6
#: Lanczos = CG margin (relative, j <= 30; plain Lanczos parts from CG in floating point near j ~ 40-90).
CG_MATCH_MARGIN = 1e-8
#: The well-posed instance of the outer-rate checks: B = I, f = |y - c|^2 / 2 + mu_x |x|^2 / 2.
OUTER = dict(n=200, kappa=30.0, mu_x=0.1, T=10, theta=1 / 30, lam=0.5)
SUM_MARGIN, FINAL_MARGIN = 1e-3, 1e-6


def fd_gradient(problem, x, h):
    """Central differences of phi along each coordinate."""
    E = np.eye(x.size)
    return np.array([(problem.phi(x + h * e) - problem.phi(x - h * e)) / (2 * h) for e in E])


@claim(PAPER, "hypergradient_matches_fd", source="derived", ref="Sec. 2 (implicit hypergradient)",
       citation="paper Sec. 2 states grad phi = grad_x f - grad^2_xy g [grad^2_yy g]^{-1} grad_y f; the quadratic-case "
                "sign (a plus: grad^2_xy g = -B^T) is derived; instances ours",
       statement="the exact hypergradient equals central finite differences (h = 1e-4) of phi(x) = f(x, y*(x)) to "
                 "max|grad - FD| / max|grad| <= 1e-6, at {points} random x on each of: a quadratic bilevel problem "
                 "(g = y^T H y / 2 - y^T B x, n = 30, dx = 10, B Gaussian, kappa = 100, f = |y - c|^2 / 2 + "
                 "0.1 |x|^2 / 2) and a logistic hyperparameter-tuning problem (d = 20, 200 + 200 samples, "
                 "g = training loss + sum_j exp(x_j) y_j^2 / 2, f = validation loss)",
       scales={"ci": dict(points=2), "full": dict(points=8)})
def hypergradient_matches_fd(*, points, seed):
    """[derived] Differentiate grad_y g(x, y*(x)) = 0: grad^2_yx g + grad^2_yy g Dy* = 0, so
    Dy*^T = -grad^2_xy g [grad^2_yy g]^{-1} and grad phi = grad_x f + Dy*^T grad_y f.  For g = y^T H y / 2 - y^T B x,
    grad^2_xy g = -B^T, so grad phi = grad_x f + B^T H^{-1} grad_y f."""
    probs = {"quadratic": B.quadratic_bilevel(30, kappa=100.0, coupling="gaussian", dx=10,
                                              seed=child_seed(seed, "quad")),
             "logistic": B.logistic_hyperparameter(200, 200, 20, seed=child_seed(seed, "logistic"))}
    rows = []
    for name, P in probs.items():
        for i, s in enumerate(spawn_seeds(child_seed(seed, "x", name), points)):
            x = np.random.default_rng(int(s)).standard_normal(P.dx)
            if name == "logistic":
                x = x - 2.0                                         # weight decays exp(x) around 0.1
            g, fd = P.hypergradient(x), fd_gradient(P, x, FD_STEP)
            rows.append(dict(problem=name, point=i, grad_norm=float(np.linalg.norm(g)),
                             rel_err=float(np.abs(g - fd).max() / np.abs(g).max())))
    t = pd.DataFrame(rows)
    return Identity(discrepancy=float(t.rel_err.max()), instances=len(t), atol=FD_MARGIN,
                    what="max|grad phi - FD| / max|grad phi|", data=t,
                    note="largest relative error per problem: " + ", ".join(
                        f"{k}: {v:.2e}" for k, v in t.groupby("problem").rel_err.max().items()))


@experiment(PAPER)
def frozen_lanczos(kappas: tuple, instances: int, steps: int, seed: int) -> pd.DataFrame:
    """LancBiO's inner recursion on a frozen problem (T = 0 inner steps, lam = 0, y = y*(x), m0 > steps so the only
    restart is at k = 1), one run per j = 1..steps, against CG from 0 on H Delta v = b - H v_bar."""
    rows = []
    for kappa in kappas:
        for i, s in enumerate(spawn_seeds(child_seed(seed, "frozen", kappa), instances)):
            P = B.quadratic_bilevel(200, kappa=kappa, seed=int(s))
            x = np.random.default_rng(child_seed(int(s), "x")).standard_normal(P.dx)
            v0 = np.random.default_rng(child_seed(int(s), "v")).standard_normal(P.dy)
            y = P.y_star(x)
            r = P.grad_y_f(x, y) - P.H @ v0
            exact = np.linalg.solve(P.H, r)
            cg = L.cg_iterates(P.H, r, steps)
            e0 = float(np.sqrt(exact @ P.H @ exact))
            for j in range(1, steps + 1):
                run = B.lancbio(P, j, T=0, lam=0.0, m0=steps + 1, dim_inc=1.0, dim_max=steps + 1, x0=x, y0=y, v0=v0,
                                track=False)
                dv, e = run.v - v0, exact - (run.v - v0)
                rows.append(dict(kappa=kappa, instance=i, j=j, kappa_H=P.kappa,
                                 rel_diff=float(np.linalg.norm(dv - cg[j - 1]) / np.linalg.norm(cg[j - 1])),
                                 err_H=float(np.sqrt(e @ P.H @ e)) / e0,
                                 bound=float(L.cg_error_bound(P.kappa, j)[0])))
    return pd.DataFrame(rows)


FROZEN = {"ci": dict(kappas=(100.0, 1000.0), instances=1, steps=30),
          "full": dict(kappas=(100.0, 1000.0), instances=4, steps=30)}


@claim(PAPER, "lanczos_step_equals_cg", source="derived", ref=f"Sec. 3; {CODE}",
       citation=f"[code] {CODE} (the inner recursion, read line by line); Lanczos-Galerkin = CG in exact arithmetic "
                "(Saad, Iterative Methods for Sparse Linear Systems, Sec. 6.7.1); margin ours",
       statement="on a frozen quadratic problem (n = 200, kappa(H) in {kappas}, x fixed, y = y*(x), no restart, "
                 "{instances} instances per kappa), j steps of LancBiO's Lanczos recursion give Delta v_j with "
                 "|Delta v_j - Delta v_CG,j| <= 1e-8 |Delta v_CG,j| for every j <= {steps} (CG from 0 on "
                 "H Delta v = b - H v_bar)",
       scales=FROZEN)
def lanczos_step_equals_cg(*, kappas, instances, steps, seed):
    t = frozen_lanczos(tuple(kappas), instances, steps, seed)
    return Identity(discrepancy=float(t.rel_diff.max()), instances=len(t), atol=CG_MATCH_MARGIN,
                    what="|Delta v_j - Delta v_CG,j| / |Delta v_CG,j|", data=t,
                    note="largest relative difference per kappa: " + ", ".join(
                        f"{k:g}: {v:.2e}" for k, v in t.groupby("kappa").rel_diff.max().items()))


@claim(PAPER, "lanczos_meets_cg_bound", source="derived", ref="Saad Thm 6.29 (CG error bound)",
       citation="the CG bound |e_j|_H <= 2 ((sqrt kappa - 1) / (sqrt kappa + 1))^j |e_0|_H (Saad, Iterative Methods "
                "for Sparse Linear Systems, Thm 6.29), applied to LancBiO's inner iterates; the application is ours",
       statement="on the frozen problem of lanczos_step_equals_cg (kappa in {kappas}, {instances} instances), "
                 "LancBiO's Delta v_j meets |e_j|_H <= 2 ((sqrt kappa - 1) / (sqrt kappa + 1))^j |e_0|_H for all "
                 "j <= {steps}; measured: max over j of |e_j|_H / bound (<= 1)",
       scales=FROZEN)
def lanczos_meets_cg_bound(*, kappas, instances, steps, seed):
    t = frozen_lanczos(tuple(kappas), instances, steps, seed)
    ratio = t.err_H / t.bound
    return Bound(value=float(ratio.max()), bound=1.0, side="<=", data=t.assign(ratio=ratio),
                 note=f"error / bound at j = {steps}: " + ", ".join(
                     f"kappa {k:g}: {v:.3g}" for k, v in t[t.j == steps].assign(r=ratio).groupby("kappa").r.max().items()))


def predicted_hvps(K, m0, dim_inc, dim_fre, dim_max):
    """K + the number of restarts of the code's rule, replayed here (for fixed m the closed forms K +
    floor((K - 1) / m) + 1, or 2K for m = 1, are also asserted in the tests)."""
    m, restarts = m0, 0
    for k in range(1, K + 1):
        if k % dim_fre == dim_fre - 1:
            m = min(int(np.ceil(np.float32(m) * np.float32(dim_inc))), dim_max)
        restarts += int(m == 1 or k % m == 1)
    return K + restarts


@claim(PAPER, "hvp_count_matches_restart_rule", source="code", ref=CODE,
       citation=f"[code] {CODE}: one HVP per outer step (u = H q - beta q_prev) plus one at each restart (w = H v_bar), "
                "restart when k % m == 1 or m == 1; the dynamic schedule of Code/SyntheticProblem/main.py",
       statement="over K = {K} outer steps LancBiO spends exactly K + (number of restarts) Hessian-vector products: "
                 "K + floor((K - 1) / m) + 1 for fixed m in {fixed_m} (m >= 2), 2K for m = 1, and K + the restarts "
                 "of the code's rule for its dynamic m (m0 = 1, x1.1 every 20 steps, at most 80); counted on the "
                 "quadratic problem (n = 200, kappa = 100)",
       scales={"ci": dict(K=300, fixed_m=(1, 2, 7, 25)), "full": dict(K=1000, fixed_m=(1, 2, 3, 7, 10, 25, 60))})
def hvp_count_matches_restart_rule(*, K, fixed_m, seed):
    P = B.quadratic_bilevel(200, kappa=100.0, seed=child_seed(seed, "hvp"))
    cases = [(f"fixed m = {m}", dict(m0=m, dim_inc=1.0, dim_fre=20, dim_max=max(m, 1)),
              2 * K if m == 1 else K + (K - 1) // m + 1) for m in fixed_m]
    cases.append(("dynamic (code)", DYNAMIC, predicted_hvps(K, **DYNAMIC)))
    rows = []
    for name, sched, want in cases:
        run = B.lancbio(P, K, T=1, theta=0.01, lam=0.1, track=False, seed=child_seed(seed, "run", name), **sched)
        rows.append(dict(case=name, hvps=run.hvps, predicted=want, restarts=len(run.restarts),
                         hvps_per_step=run.hvps / K))
    t = pd.DataFrame(rows)
    return Identity(discrepancy=float((t.hvps - t.predicted).abs().max()), instances=len(t), atol=0.0,
                    what="HVPs counted - K - restarts of the rule", data=t,
                    note="HVPs per outer step: " + ", ".join(f"{r.case}: {r.hvps_per_step:.3f}" for r in t.itertuples()))


@experiment(PAPER)
def outer_runs(K: int, seeds: int, seed: int) -> pd.DataFrame:
    """LancBiO (the code's dynamic m) for 2K outer steps on the OUTER instance, x0, y0, v0 ~ N(0, I) per seed."""
    P = B.quadratic_bilevel(OUTER["n"], kappa=OUTER["kappa"], mu_x=OUTER["mu_x"], seed=child_seed(seed, "outer"))
    rows = []
    for r, s in enumerate(spawn_seeds(child_seed(seed, "starts"), seeds)):
        run = B.lancbio(P, 2 * K, T=OUTER["T"], theta=OUTER["theta"], lam=OUTER["lam"], seed=int(s), **DYNAMIC)
        S = run.summed_grad_norm2
        rows.append(dict(seed=r, S_K=float(S[K - 1]), S_2K=float(S[2 * K - 1]),
                         growth=float(S[2 * K - 1] / S[K - 1] - 1.0), g0=float(run.grad_norm2[0]),
                         g_final=float(run.grad_norm2[-1]), g_max=float(run.grad_norm2.max()), hvps=run.hvps))
    return pd.DataFrame(rows)


OUTER_STATEMENT = ("LancBiO as the authors' code (dynamic m: m0 = 1, x1.1 every 20 steps, at most 80) on a well-posed "
                   "quadratic instance (n = dx = 200, B = I, kappa(H) = 30, f = |y - c|^2 / 2 + 0.1 |x|^2 / 2; T = 10 "
                   "inner steps theta = 1/30, outer step lam = 0.5), {seeds} random starts, 2K = 2 x {K} outer steps")
OUTER_SCALES = {"ci": dict(K=150, seeds=2), "full": dict(K=250, seeds=10)}


@claim(PAPER, "summed_gradnorm_bounded", source="derived", ref="abstract / main theorem (O(1/K) hypergradient rate)",
       citation="the paper's rate (1/K) sum_k |grad phi(x_k)|^2 = O(1/K) (abstract); reading it as 'S_K bounded' and the "
                "instance are ours (the theorem's step sizes were not read)",
       statement=OUTER_STATEMENT + ": S_2K / S_K - 1 <= 1e-3 for every start, with S_K = sum_{k<K} |grad phi(x_k)|^2 "
                                   "(exact hypergradient)",
       scales=OUTER_SCALES)
def summed_gradnorm_bounded(*, K, seeds, seed):
    """[derived] (1/K) S_K <= C / K for all K is the same as S_K <= C: the summed squared hypergradient norm stays
    bounded, so it stops growing; a method with a biased hypergradient (or the wrong sign) converges to a point
    with grad phi != 0 and S grows linearly (S_2K / S_K - 1 near 1)."""
    t = outer_runs(K, seeds, seed)
    return Bound(value=float(t.growth.max()), bound=SUM_MARGIN, side="<=", data=t,
                 note=f"S_2K / S_K - 1 from {t.growth.min():.2e} to {t.growth.max():.2e}; largest transient "
                      f"|grad phi|^2 {t.g_max.max():.3g}")


@claim(PAPER, "final_gradnorm_small", source="derived", ref="abstract / main theorem (convergence to a stationary point)",
       citation="the paper's convergence to stationarity; the margin and instance are ours",
       statement=OUTER_STATEMENT + ": |grad phi(x_2K)|^2 <= 1e-6 |grad phi(x_0)|^2 for every start",
       scales=OUTER_SCALES)
def final_gradnorm_small(*, K, seeds, seed):
    t = outer_runs(K, seeds, seed)
    rel = t.g_final / t.g0
    return Bound(value=float(rel.max()), bound=FINAL_MARGIN, side="<=", data=t.assign(relative=rel),
                 note=f"|grad phi(x_2K)|^2 / |grad phi(x_0)|^2 from {rel.min():.2e} to {rel.max():.2e}; "
                      f"HVPs per step {t.hvps.iloc[0] / (2 * K):.3f}")


@figure(PAPER, "krylov_error_and_outer",
        caption="Left: H-norm error |e_j|_H / |e_0|_H of the hypergradient system's solution after j Krylov steps on a "
                "frozen quadratic problem (n = 200, kappa = 1000): LancBiO's recursion as the authors' code (no "
                "reorthogonalisation, solid), the same with full reorthogonalisation (dash-dot), conjugate gradients "
                "(dotted markers); theory line: the CG bound 2 ((sqrt kappa - 1) / (sqrt kappa + 1))^j (dashed). "
                "Right: exact |grad phi(x_k)|^2 along LancBiO (code's dynamic m), AmIGO-CG (5 warm-started CG steps) "
                "and a 10-term Neumann series (eta = 1/30) on the instance of summed_gradnorm_bounded (one start); "
                "log scale, no shading (deterministic runs); the csv's hvps column counts Hessian-vector products (0 for the bound)",
        scales={"ci": dict(steps=40, K=100), "full": dict(steps=150, K=400)})
def fig_krylov_error_and_outer(*, steps, K, seed):
    P = B.quadratic_bilevel(200, kappa=1000.0, seed=child_seed(seed, "fig"))
    x = np.random.default_rng(child_seed(seed, "fig", "x")).standard_normal(P.dx)
    v0 = np.random.default_rng(child_seed(seed, "fig", "v")).standard_normal(P.dy)
    y = P.y_star(x)
    r = P.grad_y_f(x, y) - P.H @ v0
    exact = np.linalg.solve(P.H, r)
    e0 = float(np.sqrt(exact @ P.H @ exact))
    hnorm = lambda s: float(np.sqrt((exact - s) @ P.H @ (exact - s))) / e0
    cg = L.cg_iterates(P.H, r, steps)
    rows = []
    js = np.unique(np.linspace(1, steps, 30).round().astype(int))
    for j in js:
        for reorth in ("none", "full"):
            run = B.lancbio(P, int(j), T=0, lam=0.0, m0=steps + 1, dim_inc=1.0, dim_max=steps + 1, x0=x, y0=y,
                            v0=v0, reorth=reorth, track=False)
            rows.append(dict(panel="krylov", j=int(j), method=f"lancbio_{reorth}", value=hnorm(run.v - v0),
                             hvps=run.hvps))
        rows.append(dict(panel="krylov", j=int(j), method="cg", value=hnorm(cg[j - 1]), hvps=int(j)))
        rows.append(dict(panel="krylov", j=int(j), method="cg_bound", value=float(L.cg_error_bound(P.kappa, j)[0]),
                         hvps=0))
    Po = B.quadratic_bilevel(OUTER["n"], kappa=OUTER["kappa"], mu_x=OUTER["mu_x"], seed=child_seed(seed, "outer"))
    common = dict(T=OUTER["T"], theta=OUTER["theta"], lam=OUTER["lam"], seed=child_seed(seed, "fig", "start"))
    runs = {"lancbio": B.lancbio(Po, K, **DYNAMIC, **common), "cg": B.cg_bilevel(Po, K, cg_steps=5, **common),
            "neumann": B.neumann_bilevel(Po, K, neumann_steps=10, eta=OUTER["theta"], **common)}
    for name, run in runs.items():
        rows += [dict(panel="outer", j=k, method=name, value=float(g), hvps=run.hvps)
                 for k, g in enumerate(run.grad_norm2)]
    t = pd.DataFrame(rows).drop_duplicates(["panel", "j", "method"])
    fig, ax = subplots(1, 2, width=9.0)
    a = ax[0, 0]
    style = {"lancbio_none": "-", "lancbio_full": "-.", "cg": ":o", "cg_bound": "--"}
    for m, st in style.items():
        s = t[(t.panel == "krylov") & (t.method == m)].sort_values("j")
        a.semilogy(s.j, s.value, st, ms=3, label=m)
    a.set_xlabel("Krylov dimension j")
    a.set_ylabel(r"$\|e_j\|_H / \|e_0\|_H$")
    a.legend(fontsize=7)
    b = ax[0, 1]
    for name in runs:
        s = t[(t.panel == "outer") & (t.method == name)]
        b.semilogy(s.j, s.value, label=f"{name} ({runs[name].hvps} HVPs)")
    b.set_xlabel("outer step k")
    b.set_ylabel(r"$\|\nabla\varphi(x_k)\|^2$")
    b.legend(fontsize=7)
    return fig, t
