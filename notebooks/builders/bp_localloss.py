"""Builds notebooks/bp_localloss.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py bp_localloss``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("bp_localloss") + [
        ("md", r"""## A toy proxy of the BP-modified local loss

Deep linear network $d = 6 \to 2 \to 2 \to 4$, each hidden block with a trainable linear probe and local loss
$\tfrac12|P_h z_h - y|^2$, global loss $\tfrac12 (z_L - y)^\top M (z_L - y)$. The update of block $h$ is
$u_h = g^{loc}_h(B) + \alpha\,(g^{BP}_h - g^{loc}_h)(B')$, the offset refreshed every $K$ steps. At a fixed network
with $K = 1$: bias $(1-\alpha)(G^{loc} - G^{BP})$ and $\mathrm{tr\,Cov}\,u = V_{loc}/B + \alpha^2 V_{off}/B'$."""),
        ("code", """import numpy as np
from theorylab.toys import local_loss as T
from theorylab.validations.bp_localloss import task
tk = task(True, 0)
W, P = T.init_network(tk, 0.5, 1, seed=1)
for a in (0.0, 0.5, 1.0, 2.0):
    m = T.update_moments(tk, W, P, a, 8, 8)
    print(f"alpha = {a}: |bias| = {m['bias_norm'][0]:.4f}, tr Cov = {m['trace_cov'][0]:.4f}")"""),
        ("md", r"""## Bias and variance against $\alpha$ (Monte Carlo against the derived laws)"""),
        ("code", """from theorylab.validations.bp_localloss import fig_bias_variance
def show(draws=1000):
    fig, table = fig_bias_variance(draws=draws, seed=0)
    return table[["alpha", "proj", "bias_pred", "trace", "trace_pred"]]"""),
        explore_cell("show(draws)", {"draws": (1000, "IntSlider(value=1000, min=200, max=20000)")}),
        ("md", r"""## Training: excess global loss at $\alpha = 0$ and $\alpha = 1$ ($K = 1$), $M \neq I$ and the $M = I$ control"""),
        ("code", """for weighted in (True, False):
    tk = task(weighted, 0)
    ex = {a: T.train_local(tk, a, 1, eta=0.03, steps=200, batch=32, batch_prime=32, replicates=2, seed=0)["excess"].mean()
          for a in (0.0, 1.0)}
    print("M != I" if weighted else "M = I ", {a: round(v, 4) for a, v in ex.items()})"""),
    ]


if __name__ == "__main__":
    print(write_notebook("bp_localloss", cells()))
