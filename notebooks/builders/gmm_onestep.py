"""Builds notebooks/gmm_onestep.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py gmm_onestep``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("gmm_onestep") + [
        ("md", r"""## The Hermite equivalent model

For $\sigma = \mathrm{relu}$ and pre-activations of bulk scale $b = (d/\mathrm{tr}\,\bar\Sigma)^{1/2}$,
$\hat\sigma_l(z) = \sum_{j\le l} \frac{\mu_j}{j!} He_j(z/b) + \mu_*\zeta$ with $\mu_j = E[\sigma(bZ)He_j(Z)]$ and
$\mu_*^2 = E\sigma(bZ)^2 - \sum_{j\le l}\mu_j^2/j!$. Closed form: $\mu_0 = b\varphi(0)$, $\mu_1 = b/2$,
$\mu_j = b\varphi(0)He_{j-2}(0)$; odd degrees $\ge 3$ vanish. Gauss–Hermite quadrature converges slowly (the kink)."""),
        ("code", """import numpy as np
from theorylab.highdim import one_step as O
closed, second = O.hermite_coefficients("relu", 6)
for nodes in (100, 400, 1600):
    gh, _ = O.hermite_coefficients("relu", 6, method="quadrature", nodes=nodes)
    print(f"{nodes:5d} nodes: max |Gauss-Hermite - closed form| = {np.abs(gh - closed).max():.1e}")
for l in (1, 2, 4):
    print(f"degree {l}: mu_*^2 = {O.hermite_model('relu', l).mu_star ** 2:.4f} (E relu(Z)^2 = {second})")
print("degree rule l*(beta):", {b: O.degree_rule(b) for b in (0.45, 0.6, 0.74, 0.78)})"""),
        ("md", r"""## Network after one step against the Hermite models (one trial per call)

Two zero-mean components with rank-1 spikes $\theta$, $n = m = k = d$, $\eta = \theta = d^{\beta/2}$, ridge
$\lambda = 10^{-4}$; (train, test) errors of the network and of the Hermite models of degree 1, 2, 4."""),
        ("code", """def show(d=200, beta=0.78, seed=0):
    eta = theta = d ** (beta / 2)
    mix = O.spiked_mixture(d, [theta, theta], seed=seed)
    xi = O.target_direction(mix, seed=seed + 1)
    out = O.one_step_trial(mix, xi, k=d, m=d, eta=eta, seed=seed)
    return {k: tuple(round(v, 5) for v in vals) for k, vals in out.items()}"""),
        explore_cell("show(d, beta)", {"d": (200, "IntSlider(value=200, min=50, max=600, step=50)"),
                                       "beta": (0.78, "FloatSlider(value=0.78, min=0.0, max=0.95, step=0.01)")}),
        ("md", r"""## Errors against $d$ (the figure, ci scale)"""),
        ("code", """from theorylab.validations.gmm_onestep import fig_errors_vs_d
fig, table = fig_errors_vs_d(ds=(100, 200), betas=(0.78,), n_trials=4, seed=0)
table"""),
    ]


if __name__ == "__main__":
    print(write_notebook("gmm_onestep", cells()))
