"""Builds notebooks/dro_dsgdc.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py dro_dsgdc``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("dro_dsgdc") + [
        ("md", r"""## The chi-square dual and its two blocks

$L(x,\eta) = \lambda\,\mathrm{mean}_i\,\psi^*((\ell_i(x)-\eta)/\lambda) + \eta$ with $\psi^*(u) = (u+1)_+^2/2 - 1/2$.
With $w_i = (u_i + 1)_+$: $\partial_\eta L = 1 - \mathrm{mean}\,w_i$ and $\partial^2_{\eta\eta} L = \mathrm{mean}\,1[u_i>-1]/\lambda
\le 1/\lambda$ (the $\eta$ block is standard smooth), while
$\|\nabla^2_{xx} L\| \le G^2/\lambda + L(1 - \partial_\eta L)$ grows with $\mathrm{mean}\,\psi^{*\prime}$ (the partial
structure). The loss is a one-neuron tanh network, $\ell = (\tanh(a\cdot x) - b)^2/2$.
`THEORYLAB_SCALE=ci` keeps every cell tiny."""),
        ("code", """import os
import numpy as np
from theorylab.stochastic import dro as D
from theorylab.core.plotting import pyplot
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
A, b = D.make_instance(500 if CI else 2000, 20, seed=0)
G, Ls = D.loss_constants(A, b)
print("per-sample Lipschitz G =", round(G, 3), " smoothness L =", round(Ls, 3))
x = np.zeros(20)
for eta in (0.0, -10.0, -100.0):
    L, gx, ge, H, hee = D.dual_objective(A, b, x, eta, lam=1.0, loss="tanh")
    print(f"eta = {eta:7.1f}: ||grad_x L|| = {np.linalg.norm(gx):8.3f}  ||hess_xx L|| = {np.linalg.norm(H, 2):8.3f}"
          f"  d2_eta L = {hee:.3f}  bound G^2 + L (1 - d_eta L) = {G**2 + Ls * (1 - ge):.1f}")"""),
        ("md", "## D-SGD-C and the SPIDER variant: gradient complexity against $\\epsilon$"),
        ("code", """def complexity(eps=0.1, runs=4):
    out = {}
    for m, fn in (("dsgdc", D.dsgdc), ("dspider", D.dspider)):
        tr = fn(A, b, **D.theorem_parameters(eps, m), n_iter=int(100 / eps**2), eps_stop=eps, n_runs=runs, seed=1)
        out[m] = D.gradient_complexity(tr)
        print(m, "evaluations until (1/T) sum ||grad L|| <= eps:", out[m].mean(), "+-", out[m].std())
    return out"""),
        explore_cell("complexity(eps, runs)", {
            "eps": (0.2, "FloatLogSlider(value=0.2, base=10, min=-1.6, max=-0.7)"),
            "runs": (2, "IntSlider(value=2, min=2, max=16)")}),
        ("md", r"""## The x block against the gradient, along D-SGD-C iterates and an $\eta$-ladder below them"""),
        ("code", """tr = D.dsgdc(A, b, **D.theorem_parameters(0.05), n_iter=40 if CI else 200, record_every=10, n_runs=2, seed=1)
deltas = np.r_[0.0, np.geomspace(0.1, 100, 7)]
xs = np.repeat(tr.x.reshape(-1, 20), deltas.size, axis=0)
etas = (tr.eta.reshape(-1, 1) - deltas[None, :]).ravel()
bd = D.block_derivatives(A, b, xs, etas, lam=1.0, loss="tanh")
fig, ax = plt.subplots(figsize=(5.2, 3.6))
ax.loglog(bd["grad_x"], bd["hess_xx"], ".", ms=3)
ax.set_xlabel("||grad_x L||"); ax.set_ylabel("||hess_xx L||"); plt.show()
print("corr(log hess, log grad):", np.corrcoef(np.log(bd["grad_x"]), np.log(bd["hess_xx"]))[0, 1],
      "| max lam d2_eta L:", bd["d2_eta"].max())"""),
    ]


if __name__ == "__main__":
    print(write_notebook("dro_dsgdc", cells()))
