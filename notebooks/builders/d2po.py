"""Builds notebooks/d2po.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py d2po``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("d2po") + [
        ("md", r"""## A toy proxy, not a reproduction

D2PO replaces the sequence log-ratio of DPO by $\sum_t \gamma^{c_t}\,m_t \log\frac{\pi_\theta(y_t\mid y_{<t},x)}{\pi_{\mathrm{ref}}(y_t\mid y_{<t},x)}$
($c_t$ the running count of response tokens, $m_t$ the response mask). The paper's results are LLM benchmarks; here the loss is
checked exactly and the mechanism on a tabular toy: $V = 8$ tokens, $T = 20$ positions, a position-wise softmax policy, Bradley–Terry
pairs from the uniform reference and a true reward $\sum_t c_t u(y_t)$."""),
        ("code", """import numpy as np
from theorylab.toys import temporal_decay as D
mask = np.array([[0, 0, 1, 1, 1, 0]], float)    # two prompt tokens, three response tokens, one pad
print(D.token_weights(mask, 0.98))"""),
        ("md", r"""## At convergence $\gamma$ is only a per-position temperature

The log-normalisers cancel between $y_w$ and $y_l$, so the loss depends on $\phi_t = \beta\gamma^t\theta_t$ only: the
minimiser has $\beta\gamma^t\theta_t$ independent of $\gamma$."""),
        ("code", """task = D.preference_task(n_pairs=1500, seed=0)
t = np.arange(1, 21)[:, None]
phi1 = 0.1 * D.train_to_convergence(task, gamma=1.0)
phi = 0.1 * 0.9 ** t * D.train_to_convergence(task, gamma=0.9)
print(f"max |phi(0.9) - phi(1)| / max |phi(1)| = {np.abs(phi - phi1).max() / np.abs(phi1).max():.1e}")"""),
        ("md", r"""## After a fixed GD budget, $\gamma < 1$ helps a front-loaded reward (toy trend)"""),
        ("code", """from theorylab.validations.d2po import fig_reward_vs_gamma
def show(seeds=2):
    fig, table = fig_reward_vs_gamma(gammas=(0.8, 0.9, 0.95, 0.98, 1.0), seeds=seeds, seed=0)
    return table.pivot_table(index="gamma", columns=["profile", "where"], values="diff")"""),
        explore_cell("show(seeds)", {"seeds": (2, "IntSlider(value=2, min=2, max=40)")}),
    ]


if __name__ == "__main__":
    print(write_notebook("d2po", cells()))
