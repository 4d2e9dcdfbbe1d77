"""Builds notebooks/rr_sgd.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py rr_sgd``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("rr_sgd") + [
        ("md", r"""## The estimator

Two constant-step SGD chains (steps $\gamma$ and $2\gamma$) share one noise sequence; each is averaged
over the last $n$ of $2n$ iterations and $\bar\theta^{RR}_n = 2\bar\theta^{(\gamma)}_n - \bar\theta^{(2\gamma)}_n$.
The error is $-H^{-1}\bar\varepsilon_n + O(n^{-3/4})$ for $\gamma \propto n^{-1/2}$, and the first-order bias
$\gamma\Delta$ of Polyak–Ruppert averaging cancels. `THEORYLAB_SCALE=ci` keeps every cell small."""),
        ("code", """import os
import numpy as np
import pandas as pd
from theorylab.markov import run_pair, softplus_problem, cos_problem, logistic_problem
from theorylab.core.plotting import errorbar_ci, pyplot, subplots, sym, theory_line
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
M = 100 if CI else 400"""),
        ("md", r"""## Bias: PR keeps $\gamma\Delta$, RR removes it
On $f(x) = x^2/2 + 2\,\mathrm{softplus}(3x)$ the theory gives $\Delta = -f'''\sigma^2/(4H^2)$."""),
        ("code", """p = softplus_problem()
rows = []
for gamma in ([0.1, 0.05] if CI else [0.1, 0.05, 0.025, 0.0125]):
    out = run_pair(p, gamma=gamma, n=int(2000 / gamma), n_burn=int(20 / gamma), n_chains=M, seed=1)
    pr = out.pr_gamma[:, 0] - p.theta_star[0] - out.leading_pr[:, 0]   # control variate: mean-zero leading term removed
    rr = out.rr[:, 0] - p.theta_star[0] - out.leading[:, 0]
    rows.append({"gamma": gamma, "PR bias / gamma": pr.mean() / gamma, "RR bias": rr.mean(), "Delta": p.Delta[0]})
pd.DataFrame(rows)"""),
        ("md", r"""## Explore: error of PR and RR as $n$ grows at a fixed step
Mean absolute error over chains (±1 s.e.) of Polyak–Ruppert averaging at step $\gamma$ and of the
Richardson–Romberg combination, against the PR bias level $\gamma|\Delta|$. Move the sliders (needs
`pip install theorylab[notebook]` for ipywidgets); without them the cell draws once at the defaults."""),
        ("code", """def explore(gamma=0.05, log2_n=10, problem="softplus", coupling="shared", n_chains=50):
    prob = {"softplus": softplus_problem(), "cos": cos_problem()}[problem]
    ns = 2 ** np.arange(6, log2_n + 1)
    rows = []
    for n in ns:
        out = run_pair(prob, gamma=gamma, n=int(n), n_chains=n_chains, coupling=coupling, seed=2)
        for name, est in (("PR", out.pr_gamma), ("RR", out.rr)):
            e = np.abs(est - out.theta_star)[:, 0]
            rows.append(dict(n=int(n), estimator=name, mean=e.mean(), se=e.std(ddof=1) / np.sqrt(e.size)))
    t = pd.DataFrame(rows)
    fig, ax = subplots(1, 1, width=5.0)
    ax = ax[0, 0]
    for k, (name, sub) in enumerate(t.groupby("estimator")):
        errorbar_ci(ax, sub.n.to_numpy(float), sub["mean"].to_numpy(), yerr=sub.se.to_numpy(), level=None,
                    fmt="os"[k], color=f"C{k}", label=f"{name}, step {sym('gamma')}" if name == "PR" else "Richardson-Romberg")
    if prob.Delta[0] != 0:
        theory_line(ax, ns.astype(float), np.full(ns.size, abs(gamma * prob.Delta[0])),
                    label=f"PR bias {sym('gamma')}$|\\\\Delta|$")
    ax.set_xscale("log"); ax.set_yscale("log")
    ax.set_xlabel("$n$ (averaged iterates)"); ax.set_ylabel(r"$E|\\bar\\theta_n - \\theta^*|$")
    ax.set_title(f"{problem}, {sym('gamma')} = {gamma:.3g}, {coupling} noise")
    ax.legend()
    plt.show()"""),
        explore_cell("explore(gamma, log2_n, problem, coupling, n_chains)", {
            "gamma": (0.05, "FloatLogSlider(value=0.05, base=10, min=-2.5, max=-1)"),
            "log2_n": (10, "IntSlider(value=10, min=8, max=16)"),
            "problem": ("softplus", "Dropdown(options=['softplus', 'cos'])"),
            "coupling": ("shared", "Dropdown(options=['shared', 'independent'])"),
            "n_chains": (50, "IntSlider(value=50, min=20, max=400, step=20)")}),
        ("md", r"""## Minimax covariance in $d=5$
$n\,E\|\bar\theta^{RR}_n-\theta^*\|^2 \to \mathrm{Tr}\,H^{-1}\Sigma_\varepsilon H^{-1}$ with shared noise; about 5 times that with independent noise."""),
        ("code", """q = logistic_problem()
n = 4000 if CI else 32000
for coupling in ("shared", "independent"):
    out = run_pair(q, gamma=0.5 / np.sqrt(n), n=n, n_chains=M, coupling=coupling, seed=3)
    mse = n * np.mean(np.sum((out.rr - out.theta_star) ** 2, axis=1))
    print(f"{coupling:>11}: n E|err|^2 = {mse:.3f}   Tr Sigma_inf = {np.trace(q.Sigma_inf):.3f}")"""),
    ]


if __name__ == "__main__":
    print(write_notebook("rr_sgd", cells()))
