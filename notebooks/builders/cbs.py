"""Builds notebooks/cbs.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py cbs``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("cbs") + [
        ("md", r"""## One-pass SGD with EWA: the exact risk against the stochastic runs

On $y = \langle w^*, x\rangle + \sigma\xi$, $x \sim N(0, H)$, $H = \mathrm{diag}(\lambda_i)$, the diagonal second moments of
minibatch SGD close (Isserlis): $m_i' = m_i(1 - 2\eta\lambda_i + \eta^2(1 + 1/B)\lambda_i^2) + \eta^2\lambda_i(\sum_j\lambda_j m_j +
\sigma^2)/B$, and so do those of the exponentially averaged iterate."""),
        ("code", """import numpy as np
from theorylab.highdim import critical_batch as C
lam, w2 = C.power_law_problem(50)
rec = np.array([0, 10, 50, 200])
exact = C.risk_curve(lam, w2, noise=0.1, B=4, eta=2.0, gamma=0.05, n_steps=200, record=rec)
sims = C.simulate_sgd(lam, np.sqrt(w2), noise=0.1, B=4, eta=2.0, gamma=0.05, n_steps=200, record=rec, n_seeds=400)
print(np.c_[rec, exact, sims.mean(0), sims.std(0) / np.sqrt(400)])"""),
        ("md", r"""## Steps to the target loss against batch size; the critical batch size

The target is the loss $B = 1$ reaches with $N$ samples; $S(B)$ is tuned over learning rates per batch; the CBS is the
largest $B$ with $B\,S(B)/S(1) \le 1.2$ (continuous crossing)."""),
        ("code", """from theorylab.validations.cbs import fig_steps_vs_batch
def show(d=150, n_max=8000):
    budgets = tuple(int(n_max / 2 ** k) for k in (3, 2, 1, 0))
    fig, table = fig_steps_vs_batch(d=d, budgets=budgets, n_eta=12, max_log2=10, seed=0)
    return table.groupby("N")[["cbs", "eta1", "d_eff"]].first()"""),
        explore_cell("show(d, n_max)", {"d": (150, "IntSlider(value=150, min=50, max=600)"),
                                        "n_max": (8000, "IntSlider(value=8000, min=2000, max=32000)")}),
        ("md", r"""## Random features with muP-style output scaling

$f(x) = \langle v, Sx\rangle / m$ reduces exactly to the same recursion in the eigenbasis of $S H S^\top / m$, with the
approximation error added to the noise."""),
        ("code", """lam, w2 = C.power_law_problem(768)
for m in (16, 64, 96):
    l_s, v2, noise_s = C.random_feature_problem(lam, w2, width=m, seed=0)
    print(m, l_s[:3].round(4), round(noise_s, 4))"""),
    ]


if __name__ == "__main__":
    print(write_notebook("cbs", cells()))
