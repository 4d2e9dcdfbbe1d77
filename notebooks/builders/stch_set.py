"""Builds notebooks/stch_set.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py stch_set``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("stch_set") + [
        ("md", r"""## Tchebycheff set scalarisations

For K solutions and m objectives, $F_{k,i} = f_i(x^{(k)})$. TCH-Set is $\max_i \min_k F_{k,i}$ (the set's worst
objective); STCH-Set (the authors' code) smooths both operators with the same $\mu$:
$s_i = -\mu\log\sum_k e^{-F_{k,i}/\mu}$, $\;g_\mu = \mu\log\sum_i e^{s_i/\mu}$.
Since $s_i \in [\min_k F_{k,i} - \mu\log K, \min_k F_{k,i}]$ and the outer smooth max adds at most $\mu\log m$,
$-\mu\log K \le g_\mu - \mathrm{TCH\text{-}Set} \le \mu\log m$ [derived]; both ends are attained by extremal
matrices. `THEORYLAB_SCALE=ci` keeps every cell tiny."""),
        ("code", """import os
import numpy as np
from theorylab.multiobjective import stch as S
from theorylab.core.plotting import pyplot
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
rng = np.random.default_rng(0)
F = rng.exponential(size=(5, 128))
for mu in (1.0, 0.1, 0.01):
    print(f"mu={mu}: STCH-Set - TCH-Set = {S.stch_set(F, mu) - S.tch_set(F):+.4f}, sandwich",
          np.round(S.smoothing_bounds(5, 128, mu), 4))
low, high = S.sandwich_extremes(5, 128)
print("extremal matrices (mu = 0.1):", S.stch_set(low, 0.1) - S.tch_set(low), S.stch_set(high, 0.1) - S.tch_set(high))"""),
        ("md", "## Gap against $\\mu$"),
        ("code", """def gap_plot(K=5, m=128):
    mus = np.geomspace(1e-3, 1, 13)
    Fs = [rng.exponential(size=(K, m)) for _ in range(5 if CI else 50)]
    g = np.array([[(S.stch_set(F, mu) - S.tch_set(F)) / mu for F in Fs] for mu in mus])
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    ax.fill_between(mus, g.min(1), g.max(1), alpha=0.3, label="random matrices")
    ax.axhline(np.log(m), ls="--", color="k", label="log m")
    ax.axhline(-np.log(K), ls="--", color="gray", label="-log K")
    ax.set_xscale("log"); ax.set_xlabel("mu"); ax.set_ylabel("(STCH-Set - TCH-Set) / mu"); ax.legend(); plt.show()"""),
        explore_cell("gap_plot(K, m)", {
            "K": (5, "IntSlider(value=5, min=1, max=50)"),
            "m": (128, "IntSlider(value=128, min=2, max=1000)")}),
        ("md", r"""## The code's quadratic instance: six methods

$f_i(x) = (a_i^\top x - b_i)^2$, $n = 10$, $m = 128$, $K = 5$, starts $U[0,1)^{10}$, schedule-free SGD
(lr $10^{-2}$, 100 warm-up steps). Worst $=\max_i\min_k f_i(x^{(k)})$, average $=\mathrm{mean}_i\min_k$."""),
        ("code", """P = S.quadratic_problem(10, 128, seed=0)
X0 = S.initial_solutions(P, 5, "uniform", seed=1)
lam = S.dirichlet_preferences(5, 128, seed=2)
for method in S.METHODS:
    X = S.solve_set(P, 5, method, n_steps=500 if CI else 10000, X0=X0, prefs=lam)
    F = S.evaluate(P, X)
    print(f"{method:9s} worst {S.tch_set(F):.3e}  average {S.som(F):.3e}")"""),
        ("md", r"""## The clustered instance: the initial solutions decide the outcome (errata)

$f_i(x) = \|x - c_i\|^2$ with 5 tight clusters; the optimal TCH-Set value is the largest squared
minimum-enclosing-ball radius (cvxpy). Farthest-point starts reach it; the code's $U[0,1)$ starts and Gaussian
starts leave most solutions with exactly zero gradient."""),
        ("code", """P = S.clustered_problem(seed=0)
opt = S.clustered_optimum(P)["opt"]
for init in S.INITS:
    X = S.solve_set(P, 5, "stch_set", mu=0.01, n_steps=1000 if CI else 10000, init=init, seed=0)
    F = S.evaluate(P, X)
    print(f"{init:9s} worst - OPT = {S.tch_set(F) - opt:.4g}   solutions serving an objective:",
          np.unique(F.argmin(0)).size, " (OPT =", round(opt, 4), ")")"""),
    ]


if __name__ == "__main__":
    print(write_notebook("stch_set", cells()))
