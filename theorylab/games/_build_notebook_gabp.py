"""Builds notebooks/gabp.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python -m theorylab.games._build_notebook_gabp``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("gabp") + [
        ("md", r"""## GABP, APGA and optimistic GA on a random payoff game

Player $x$ maximises $x^\top A y$, player $y$ minimises it, both on simplices; $V(x,y) = (Ay, -A^\top x)$.
GABP (Algorithm 1) perturbs the gradient towards the anchor $\hat\sigma^k = (k\sigma^k + \sigma^1)/(k+1)$:
$\pi^{t+1} = \mathrm{Proj}(\pi^t + \eta[\hat V(\pi^t) - \mu(\pi^t - \hat\sigma^k)])$, with $\sigma^{k+1} = \pi^{t+1}$
every $T_\sigma$ steps; APGA uses $\sigma^k$ itself. The gap is $\max_i (Ay)_i - \min_j (A^\top x)_j$.
`THEORYLAB_SCALE=ci` keeps every cell tiny."""),
        ("code", """import os, warnings
import numpy as np
from theorylab.games import matrix_games as M
from theorylab.core.plotting import pyplot
plt = pyplot()
warnings.simplefilter("ignore", RuntimeWarning)      # Figure 1's eta = 0.05 lies above Theorem 4.1's range
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
A = M.random_payoff_games(20 if CI else 50, 2 if CI else 20, seed=0)
L = M.lipschitz_constant(A[0])
print("L = ||A||_2 of game 0:", round(L, 3), "| Theorem 4.1's eta range: (0, %.4f)" % (1 / (L + 1) ** 2))
p = M.theorem41_parameters(L, 1.0, 1000)
print("Theorem 4.1's T_sigma (c = 1): real", round(p["T_sigma_real"], 2), "-> rounded up", p["T_sigma"])"""),
        ("code", """def curves(T=100 if CI else 1000, T_sigma=10, mu=1.0, eta=0.05):
    rec = np.unique(np.geomspace(1, T + 1, 30).astype(int))
    fig, ax = plt.subplots(figsize=(5.4, 3.8))
    for m, ts in (("gabp", T_sigma), ("apga", 2 * T_sigma), ("oga", T_sigma)):
        r = M.run_dynamics(A, m, eta=eta, mu=mu, T_sigma=ts, T=T, record=rec)
        ax.loglog(rec, r.gap.mean(0), label=m.upper())
    ax.loglog(rec[5:], r.gap.mean(0)[5] * rec[5] / rec[5:], "k:", label="1/t")
    ax.set_xlabel("t"); ax.set_ylabel("GAP"); ax.legend(); plt.show()"""),
        explore_cell("curves(T_sigma=T_sigma, mu=mu, eta=eta)", {
            "T_sigma": (10, "IntSlider(value=10, min=1, max=200)"),
            "mu": (1.0, "FloatLogSlider(value=1.0, base=10, min=-2, max=1)"),
            "eta": (0.05, "FloatLogSlider(value=0.05, base=10, min=-3, max=-0.5)")}),
        ("md", r"""## Theorem 4.1's bound along a run, and Lemma 2.2

With $\eta = \mu/(2(L+\mu)^2)$ and the theorem's $T_\sigma$ (rounded up), the gap stays far below
$17cD^2(6\ln(3(T+1))/\ln(1+\eta\mu) + 1)(\mu + (1+\eta L)/\eta)/(t-1)$, and $\mathrm{GAP} \le D\, r^{tan}$."""),
        ("code", """A10 = M.random_payoff_games(10, 1, seed=1)[0]
L10, T = M.lipschitz_constant(A10), 200 if CI else 2000
p = M.theorem41_parameters(L10, 1.0, T)
r = M.run_dynamics(A10, "gabp", eta=p["eta"], mu=1.0, T_sigma=p["T_sigma"], T=T)
bg, br = M.theorem41_bound(r.t[1:], L=L10, mu=1.0, T=T)
print("max GAP/bound:", (r.gap[0, 1:] / bg).max(), " max GAP/(D r^tan):", (r.gap / (2 * r.residual)).max())"""),
        ("code", """from theorylab.validations.gabp import gap_vs_t
fig, table = gap_vs_t(n_games=2 if CI else 20, T_full=100 if CI else 1000, T_noisy=100 if CI else 10000,
                     d=10 if CI else 50, seed=1)
table.head()"""),
    ]


if __name__ == "__main__":
    print(write_notebook("gabp", cells()))
