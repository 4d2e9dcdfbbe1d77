"""Builds notebooks/dre_lp.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py dre_lp``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("dre_lp") + [
        ("md", r"""## The Gaussian pair and its ratio moments

$P = N(0, I_d)$, $Q = N(\mu, I_d)$: $r = q/p = \exp(\mu^\top x - \|\mu\|^2/2)$, $\mathrm{KL}(Q\|P) = \|\mu\|^2/2$ and
$E_P[r^p] = \exp(p(p-1)\mathrm{KL})$, so $\|r\|_{L_p(P)} = e^{(p-1)\mathrm{KL}}$: the factor of the paper's lower bound."""),
        ("code", """import numpy as np
from theorylab.highdim import density_ratio as D
for kl in (0.125, 0.5, 2.0):
    pair = D.gaussian_pair(3, kl)
    print(f"KL = {kl}: " + ", ".join(f"E r^{p} = {D.ratio_moment(pair, p):.4g} (quadrature {D.ratio_moment_quadrature(pair, p):.4g})"
                                     for p in (1, 2, 3)))"""),
        ("md", r"""## Exact error against Monte Carlo

The exact $L_p(P)$ error of a log-linear $\hat r$ (quadrature after an exponential tilt) and its Monte Carlo estimate
under $P$; at large $p\,\mathrm{KL}$ the Monte Carlo is heavy-tailed and underestimates."""),
        ("code", """pair = D.gaussian_pair(3, 1.0)
est = D.fit_log_linear(pair.sample("p", 2000, 1), pair.sample("q", 2000, 2), "kl")
for p in (1, 2, 3):
    mc = D.lp_error_mc(pair, est, p, n=50_000, seed=3)
    print(f"p = {p}: exact {D.lp_error(pair, est, p):.4f}, Monte Carlo {mc['lp']:.4f}")"""),
        ("md", r"""## $L_p$ error against KL for the KL and logistic losses (seed means, exact errors)"""),
        ("code", """from theorylab.validations.dre_lp import fig_lp_error_vs_kl
def show(seeds=4):
    fig, table = fig_lp_error_vs_kl(kls=(0.125, 0.5, 1.125, 2.0), ns=(5000,), seeds=seeds, seed=0)
    return table.pivot_table(index="kl", columns=["p", "loss"], values="mean")"""),
        explore_cell("show(seeds)", {"seeds": (4, "IntSlider(value=4, min=4, max=48)")}),
    ]


if __name__ == "__main__":
    print(write_notebook("dre_lp", cells()))
