"""Builds notebooks/mgda_gs.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py mgda_gs``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("mgda_gs") + [
        ("md", r"""## The min-norm (conflict-avoidant) direction

For gradients $G = [\nabla F_1, \dots, \nabla F_K]$ the CA direction is $d^* = G w^*$ with
$w^* = \arg\min_{w \in \Delta_K} \|G w\|$; $\|G w^*\|$ measures Pareto stationarity and $\|G w - G w^*\|$ is the
CA distance of weights $w$. Three solvers: the exact active set (jitted), FISTA projected gradient, and
cvxpy's QP as the reference; for $K = 2$ a closed form. `THEORYLAB_SCALE=ci` keeps every cell tiny."""),
        ("code", """import os
import numpy as np
from theorylab.multiobjective import mgda as M
from theorylab.core.plotting import pyplot
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
P = M.logcosh_exp_problem(K=3, d=10, seed=0)
G = M.jacobian(P, P.x0)
for method in ("active_set", "pgd") + (() if CI else ("cvxpy",)):    # cvxpy's import is slow: full scale only
    w = M.min_norm_weights(G, method)
    print(f"{method:10s} w* = {np.round(w, 6)}  ||G w*|| = {np.linalg.norm(G @ w):.8f}")
print("K = 2 closed form:", M.min_norm_weights(G[:, :2], "closed_form"), M.min_norm_weights(G[:, :2]))
print("(L0, L1) per objective [derived]:", M.smoothness_constants(P))"""),
        ("md", r"""## MGDA, MGDA-FA and the warm start

$w_{t+1} = \Pi_\Delta(w_t - \beta(G_t^\top G_t w_t + \rho w_t))$, $x_{t+1} = x_t - \alpha G_t w_{t+1}$ (the
spec's regularised form). MGDA-FA replaces $G_t^\top G_t w_t$ by the previous step's decrease
$(F(x_{t-1}) - F(x_t))/\alpha$ (errata reading: the spec's $(F(x_t) - F(x_{t+1}))/\alpha$ would need $x_{t+1}$,
which depends on the new weights). Step sizes: $\alpha = 1/(2\ell(2G_0))$, $\beta = \beta_{\max} T^{-1/2}$
[derived]."""),
        ("code", """def ca_plot(T=1000, rho=1e-4, n_inner=10, seed=0):
    P = M.logcosh_exp_problem(K=3, d=10, seed=seed)
    st = M.theorem_step_sizes(P, T)
    runs = {"MGDA": M.run_mgda(P, T=T), "MGDA-FA": M.run_mgda(P, T=T, variant="fa"),
            f"warm start rho={rho:g} N={n_inner}": M.run_mgda(P, T=T, variant="warm_start", rho=rho,
                                                             n_inner=n_inner, beta=0.5 * st["beta_max"])}
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    for k, r in runs.items():
        ax[0].semilogy(np.maximum(r.ca_dir, 1e-16), label=k)
        ax[1].semilogy(np.maximum(r.ps, 1e-16), label=k)
    ax[0].set_ylabel("CA distance"); ax[1].set_ylabel("||G w*||")
    for a in ax:
        a.set_xlabel("iteration"); a.legend(fontsize=7)
    plt.show()

ca_plot(T=300 if CI else 2000)"""),
        explore_cell("ca_plot(T, rho, n_inner, seed)", {
            "T": (1000, "IntSlider(value=1000, min=100, max=10000, step=100)"),
            "rho": (1e-4, "FloatLogSlider(value=1e-4, min=-6, max=-1)"),
            "n_inner": (10, "IntSlider(value=10, min=1, max=200)"),
            "seed": (0, "IntSlider(value=0, min=0, max=20)")}),
        ("md", r"""## Average CA distance against the horizon (Theorem 1: $O(T^{-1/2})$)

Each horizon $T$ is a separate run with the theorem's $\beta = \beta_{\max} T^{-1/2}$. On the spec's instances
$x_t$ converges and the CA distance vanishes with it (faster than the theorem); started far out (every tanh
saturated, constant gradients) only the weights move, and the theorem's order is attained."""),
        ("code", """Ts = [128, 256, 512] if CI else [256, 512, 1024, 2048, 4096, 8192]
fig, ax = plt.subplots(figsize=(5, 3.6))
for label, kw in (("spec instance", {}), ("far field", dict(exp_weight=0.0, start_scale=1e5))):
    avg = np.exp(np.mean([[np.log(M.run_mgda(M.logcosh_exp_problem(seed=s, **kw), T=T).ca.mean()) for T in Ts]
                          for s in range(3 if CI else 20)], axis=0))
    slope = np.polyfit(np.log(Ts), np.log(avg), 1)[0]
    ax.loglog(Ts, avg, "o-", label=f"{label} (slope {slope:.2f})")
    ax.loglog(Ts, avg[0] * (np.array(Ts) / Ts[0]) ** -0.5, "k--", lw=1)
ax.set_xlabel("T"); ax.set_ylabel("average CA distance (geometric mean)"); ax.legend(); plt.show()"""),
        ("md", r"""## The FA identity on quadratics

On $F_i = \tfrac12 (x - c_i)^\top H_i (x - c_i)$ the previous-step decrease is exactly
$G^\top G w - \tfrac{\alpha}{2}[(Gw)^\top H_i (Gw)]_i$ [derived]."""),
        ("code", """Q = M.quadratic_mo_problem(K=3, d=10, seed=0)
r = M.run_mgda(Q, T=50, variant="fa")
gap = max(np.abs(r.q[t] - M.fa_quadratic_prediction(Q, r.x[t - 1], r.w[t], r.alpha)).max() for t in range(1, 50))
print("max |qhat - prediction| =", gap)"""),
    ]


if __name__ == "__main__":
    print(write_notebook("mgda_gs", cells()))
