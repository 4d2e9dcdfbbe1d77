"""Builds notebooks/flops.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py flops``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("flops") + [
        ("md", r"""## The instance and its noise levels

Logistic regression, $d = 50$, $B = 64$, input norms log-spaced over 10x, 10% flipped labels, evaluated at
$\theta = 4\theta_{true}$. A Gaussian forward-gradient query of sample $i$ is $(g_i\cdot u)u$ with per-query
total variance $\sigma_i^2 = (d+1)\|g_i\|^2$. `THEORYLAB_SCALE=ci` keeps every cell tiny."""),
        ("code", """import os
import numpy as np
from theorylab.zeroth import allocation as A
from theorylab.core.plotting import pyplot
plt = pyplot()

def spearman(a, b):
    # rank correlation (no ties here)
    return float(np.corrcoef(np.argsort(np.argsort(a)), np.argsort(np.argsort(b)))[0, 1])

CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
R = 300 if CI else 4000
b = A.logistic_batch(d=50, B=64, norm_ratio=10.0, flip=0.1, theta_norm=4.0, seed=0)
s = b.sigma()
print(f"sigma in [{s.min():.3g}, {s.max():.3g}], Spearman(loss, sigma) = {spearman(b.losses, s):.2f}")
print(f"(mean sigma)^2 / mean(sigma^2) = {A.neyman_ratio(s):.4f}")"""),
        ("md", r"""## Allocations of $N = 8B$ queries

Uniform, Neyman ($n_i \propto \sigma_i$, rounded, at least one query each) and one draw of each released
policy (allocator.py of the authors' repository) against the loss of each sample."""),
        ("code", """N = 8 * b.B
order = np.argsort(b.losses)
fig, ax = plt.subplots(figsize=(6, 3.5))
for name in A.ALLOCATORS:
    n = A.draw_allocations(name, b, N, 1, seed=3)[0]
    ax.plot(b.losses[order], n[order], ".-", label=name)
ax.set_xscale("log"); ax.set_xlabel("per-sample loss"); ax.set_ylabel("queries n_i"); ax.legend(); plt.show()"""),
        ("md", r"""## Variance: exact formula against Monte Carlo

Exact $\operatorname{tr}\operatorname{Var}$ given the allocation (per-sample weighting: $(1/B^2)\sum_{n_i>0}\sigma_i^2/n_i$,
a sample without queries contributing a bias $-g_i/B$) against `simulate_batch_gradient`. The `weighting`
switch gives the authors' trainer (`per_query`: every query weighs $1/N$), where allocating more queries to a
sample also weighs its gradient more."""),
        ("code", """def compare(weighting="per_sample", theta_norm=4.0):
    bb = A.logistic_batch(theta_norm=theta_norm, seed=0)
    ss = bb.sigma()
    vu = A.allocation_variance(ss, A.uniform_allocation(bb.B, N))[0]
    print(f"theta_norm = {theta_norm:.3g}: Spearman(loss, sigma) = {spearman(bb.losses, ss):.2f}")
    print("allocator   MSE/Var_unif exact   Monte Carlo (95% CI)   bias^2/Var_unif   zero-query share")
    for name in A.ALLOCATORS:
        n = A.draw_allocations(name, bb, N, R, seed=5)
        bias_sq = np.sum(A.allocation_bias(bb.G, n, weighting) ** 2, axis=1)
        exact = (A.allocation_variance(ss, n, weighting) + bias_sq).mean() / vu
        mc = A.simulate_batch_gradient(bb.G, n, weighting=weighting, seed=6).err_sq / vu
        half = 1.96 * mc.std() / np.sqrt(mc.size)
        print(f"{name:10s} {exact:12.3f} {mc.mean():14.3f} ± {half:.3f} {bias_sq.mean() / vu:16.3f} {(n == 0).mean():12.3f}")"""),
        explore_cell("compare(weighting, theta_norm)", {
            "weighting": ("per_sample", "Dropdown(options=['per_sample', 'per_query'])"),
            "theta_norm": (4.0, "FloatLogSlider(value=4.0, base=10, min=-1, max=1)")}),
        ("md", r"""## The authors' trainer step

`trainer_a.py` repeats each sample $n_i$ times, shuffles the $N$ copies into $S = N/B$ mini-batches and spends one
direction per mini-batch on the mini-batch mean loss. Its exact moments (`trainer_moments`) against Monte Carlo
(`simulate_trainer_step`): here a larger $n_i$ weighs $g_i$ more instead of averaging its noise."""),
        ("code", """v0, b0 = A.trainer_moments(b.G, A.uniform_allocation(b.B, N))
ref = v0[0] + b0[0]
for name in A.ALLOCATORS:
    n = A.draw_allocations(name, b, N, R, seed=7)
    var, bias_sq = A.trainer_moments(b.G, n)
    mc = A.simulate_trainer_step(b.G, n, seed=8).err_sq / ref
    print(f"{name:10s} exact MSE/uniform {(var + bias_sq).mean() / ref:7.3f}   Monte Carlo {mc.mean():7.3f} "
          f"± {1.96 * mc.std() / np.sqrt(mc.size):.3f}   bias^2 {bias_sq.mean() / ref:.3f}")"""),
        ("md", r"""## MSE vs budget (the paper's figure `variance_vs_budget` at full scale)"""),
        ("code", """from theorylab.validations.flops import fig_variance_vs_budget
fig, table = fig_variance_vs_budget(per_samples=(8,) if CI else (1, 2, 4, 8, 16, 32), reps=20 if CI else 1000,
                                      draws=100 if CI else 5000, seed=1)
table[["allocator", "budget", "mse_exact", "mse_mc", "theory_uniform", "theory_neyman"]]"""),
    ]


if __name__ == "__main__":
    print(write_notebook("flops", cells()))
