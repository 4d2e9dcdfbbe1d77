"""Builds notebooks/adaptive_sde.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py adaptive_sde``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook

CELLS = [
    ("md", r"""## The setting

The discrete optimizers
(SGD, SignSGD, RMSpropW, AdamW) on a quadratic with injected noise, beside their SDEs, and the stationary
losses the paper predicts: linear in $\sigma$ for SignSGD, quadratic for SGD. `THEORYLAB_SCALE=ci` keeps it tiny."""),
    ("code", """import os
import numpy as np
from theorylab.sde import Quadratic, run_optimizer, run_sde, signsgd_stationary_loss, sgd_stationary_loss
from theorylab.core.plotting import pyplot, subplots, sym, theory_line
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
P, STEPS = (100, 400) if CI else (1000, 4000)
q = Quadratic.diagonal([1.0, 2.0])"""),
    ("md", r"""## Explore: optimizer vs SDE, mean loss trajectories
Mean loss over paths of the discrete optimizer (solid) and of Euler–Maruyama on its SDE (dashed), shaded 95% CI,
on $f(x) = (x_1^2 + 2x_2^2)/2$ from $x_0 = (1, 1)$, with the stationary loss the paper predicts (SignSGD, SGD).
Sliders need ipywidgets (`pip install theorylab[notebook]`); headless the cell draws once at the defaults."""),
    ("code", """def compare(optimizer="signsgd", sigma=1.0, eta=0.01, n_paths=100, t_end=4.0):
    n_steps = int(round(t_end / eta))
    fig, ax = subplots(1, 1, width=5.0, height=3.5)
    ax = ax[0, 0]
    for kind, runner, ls, seed in (("discrete", run_optimizer, "-", 1), ("SDE", run_sde, "--", 2)):
        run = runner(optimizer, q, 1.0, eta=eta, sigma=sigma, n_steps=n_steps, n_paths=n_paths,
                     record_every=max(1, n_steps // 200), seed=seed)
        m, se = run.mean(), run.se()
        line, = ax.plot(run.t, m, ls, label=f"{optimizer} ({kind})")
        ax.fill_between(run.t, m - 1.96 * se, m + 1.96 * se, color=line.get_color(), alpha=0.2)
    stationary = {"signsgd": signsgd_stationary_loss, "sgd": sgd_stationary_loss}.get(optimizer)
    if stationary is not None:
        level = float(np.sum(stationary(np.full(2, sigma), eta=eta)))
        theory_line(ax, np.array([0.0, t_end]), np.array([level, level]), label="stationary loss (closed form)")
    ax.set_yscale("log")
    ax.set_xlabel(r"$t = k\\eta$"); ax.set_ylabel(r"$E\\,f$")
    ax.set_title(f"{sym('sigma')} = {sigma:.3g}, {sym('eta')} = {eta:.3g}")
    ax.legend(fontsize=7, title="shaded: 95% CI", title_fontsize=7)
    plt.show()"""),
    explore_cell("compare(optimizer, sigma, eta, n_paths, t_end)", {
        "optimizer": ("signsgd", "Dropdown(options=['signsgd', 'sgd', 'rmspropw', 'adamw'])"),
        "sigma": (1.0, "FloatLogSlider(value=1.0, base=10, min=-1, max=1)"),
        "eta": (0.01, "FloatLogSlider(value=0.01, base=10, min=-3, max=-1)"),
        "n_paths": (100, "IntSlider(value=100, min=20, max=2000, step=20)"),
        "t_end": (4.0, "FloatSlider(value=4.0, min=1.0, max=20.0, step=1.0)")}),
    ("md", r"""## Stationary loss vs $\sigma$ (closed forms of the paper, as coded in `theorylab.sde.theory`)"""),
    ("code", """sigmas = np.geomspace(0.1, 10, 5)
print("sigma   SignSGD   SGD")
for s in sigmas:
    print(f"{s:6.2f} {float(np.sum(signsgd_stationary_loss(s, eta=0.01))):9.4g} {float(np.sum(sgd_stationary_loss(s, eta=0.01))):9.4g}")"""),
    ("md", """## The small MLP regression (numpy): SignSGD and its SDE on shared noise

A one-hidden-layer tanh MLP on teacher data, full-batch gradient plus injected Gaussian noise (the paper's §4 protocol). `run_mlp_coupled` drives SignSGD and Euler–Maruyama of its SDE (dt = eta/4) with the same Gaussian numbers, so their mean-loss gap is the SDE's weak error (O(eta), claim `weak_order_signsgd_mlp`)."""),
    ("code", """from theorylab.sde import MLPRegression, run_mlp_coupled
mlp = MLPRegression.teacher(n=32, p=2, m=4, seed=0)
w0 = mlp.init(seed=1)
fig, ax = plt.subplots(figsize=(5, 3.5))
for eta in (1 / 16, 1 / 64):
    opt, sde = run_mlp_coupled("signsgd", mlp, w0, eta=eta, sigma=0.05, n_steps=int(1 / eta), n_paths=50 if CI else 500,
                               record_every=max(1, int(1 / eta) // 16), seed=3)
    line, = ax.semilogy(opt.t, opt.mean(), label=f"SignSGD, eta={eta:g}")
    ax.semilogy(sde.t, sde.mean(), "--", color=line.get_color(), label=f"SDE, eta={eta:g}")
ax.set_xlabel("t = k eta"); ax.set_ylabel("E f (MLP)"); ax.legend(fontsize=7); plt.show()"""),
]


def cells():
    """The notebook's cells: the paper and its claims (from the registry), then the exploration."""
    return header_cells("adaptive_sde") + CELLS


if __name__ == "__main__":
    print(write_notebook("adaptive_sde", cells()))
