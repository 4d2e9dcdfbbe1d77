"""Builds notebooks/tv_distance.ipynb with nbformat: ``python notebooks/build.py tv_distance``."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("tv_distance") + [
        ("md", r"""## What this notebook does

$d_{TV}(P,Q) = \max_S (P(S)-Q(S)) = \tfrac12\sum_x |P(x)-Q(x)|$. Exact TV needs all $q^n$ points; the paper's
point is that *deciding* $d_{TV}=0$ for mixtures of products is polynomial, while estimating TV between Ising
models is hard. This notebook pokes at both sides with `theorylab.tv`. `THEORYLAB_SCALE=ci` keeps every cell tiny."""),
        ("code", """import os
from fractions import Fraction
import numpy as np
import pandas as pd
import theorylab.tv as tv
from theorylab.core import child_seed
from theorylab.core.plotting import pyplot
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
REPS = 20 if CI else 200"""),
        ("md", r"""## The same law written two ways
A random joint pmf on $[q]^2$, conditioned on $x_1$ (P) and on $x_2$ (Q): structurally different mixtures
of products, equal as distributions. A $10^{-9}$ move of mass in one marginal is caught with a witness point."""),
        ("code", """P, Q = tv.conditioning_pair(4, seed=1)
print("components:", P.k, Q.k, " exact TV:", tv.tv_exact_rational(P, Q))
print(tv.equivalent(P, Q, method="exact"))
R = tv.perturb(Q, size=Fraction(1, 10**9), seed=2)
res = tv.equivalent(P, R, method="modular")
print("witness x =", res.witness, " P(x) - R(x) =", res.difference, "=", float(res.difference))"""),
        ("md", r"""## Polynomial test vs exponential enumeration
Time of the modular test and of exact enumeration as $n$ grows (random 2-component mixtures, $q=2$)."""),
        ("code", """from theorylab.core import best_time
rows = []
for n in ([6, 10, 14] if CI else [6, 10, 14, 18, 22]):
    P = tv.random_mixture(2, n, 2, seed=child_seed(0, "P", n)); Q = tv.random_mixture(2, n, 2, seed=child_seed(0, "Q", n))
    rows.append(dict(n=n, test_s=best_time(tv.equivalent, P, Q, method="modular"),
                     enumeration_s=best_time(tv.tv_exact, P, Q)))
df = pd.DataFrame(rows); print(df)
ax = df.plot(x="n", y=["test_s", "enumeration_s"], logy=True, marker="o"); ax.set_ylabel("seconds");"""),
        ("md", r"""## Explore: the coupling estimator against its contract (the figure `estimator_error`, left panel)
For products, $Z = 1-\prod_i(1-d_i)$, $Z/n \le d_{TV} \le Z$ and $d_{TV} = Z\,E_\pi[g]$. The estimator averages
$g$ over $N$ draws; its $(\varepsilon, \delta)$ contract needs $N = 3\ln(2/\delta)/(\varepsilon^2\mu_{lb})$ draws.
Below: the relative error over `reps` runs against $N$ for one product pair on $\{0,1\}^n$
($Q = (1-c)P + cR$, `closeness` $c$), the contract $\varepsilon(N)$ as theory, and the FPTAS for $Q$ uniform.
Sliders need the `notebook` extra (ipywidgets); headless the cell draws once."""),
        ("code", """from theorylab.core.plotting import subplots
from theorylab.tv.experiments import coupling_error_curve, product_pair
from theorylab.validations.tv_distance import coupling_error_panel


def explore(n=10, closeness=0.1, eps=0.2, delta=0.1, reps=REPS, seed=0):
    cur = coupling_error_curve([30, 100, 300, 1000, 3000], reps, n=n, closeness=closeness, delta=delta, seed=seed)
    fig, axes = subplots(1, 1, width=4.8)
    summary = coupling_error_panel(axes[0, 0], cur)
    P, Q = product_pair(n, 2, closeness=closeness, seed=[seed, 0])   # the pair coupling_error_curve draws
    lo, hi = tv.coupling_bounds(P, Q)
    f = tv.fptas_uniform(P, eps=eps)
    exact_u = tv.tv_exact(P, tv.uniform(n, 2))
    print(f"TV = {cur.tv.iloc[0]:.5f} in [Z/n, Z] = [{lo:.4f}, {hi:.4f}]; the contract needs "
          f"N = {tv.coupling_samples_needed(P, Q, eps, delta)} draws for eps = {eps}")
    print(f"FPTAS vs uniform: {f.value:.6f} vs exact {exact_u:.6f} (rel. error {abs(f.value / exact_u - 1):.2e} <= {eps})")
    return summary"""),
        explore_cell("explore(n, closeness, eps, delta, reps)", {
            "n": (10, "IntSlider(value=10, min=2, max=16)"),
            "closeness": (0.1, "FloatLogSlider(value=0.1, base=10, min=-2, max=0)"),
            "eps": (0.2, "FloatSlider(value=0.2, min=0.05, max=0.5, step=0.05)"),
            "delta": (0.1, "FloatSlider(value=0.1, min=0.01, max=0.3, step=0.01)"),
            "reps": (20, "IntSlider(value=20, min=5, max=400)")}),
        ("md", r"""## Ising: a field change turns TV into a marginal difference
$Q = P$ with $h_v \to h_v+\delta$ gives $d_{TV}(P,Q) = |Q(x_v=+1)-P(x_v=+1)|$; chaining such queries over
pinned models recovers $\log Z$ (partition function $\to$ marginals $\to$ TV)."""),
        ("code", """m = tv.random_ising(8 if CI else 14, beta=1.0, seed=4)
for delta in (0.1, 0.7, 3.0, -1.0):
    Qm = tv.field_change(m, 2, delta)
    print(f"delta={delta:+.1f}: TV = {tv.ising_tv(m, Qm):.12f}  |marginal gap| = "
          f"{abs(tv.marginal_plus(Qm, 2) - tv.marginal_plus(m, 2)):.12f}")
print("log Z:", tv.log_partition(m), " from TV queries:", tv.log_partition_from_tv(m))"""),
    ]


def build(path=None):
    return write_notebook("tv_distance", cells(), path)


if __name__ == "__main__":
    print(build())
