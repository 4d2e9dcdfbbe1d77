"""Builds notebooks/adaptive_sde.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python -m theorylab.sde._build_notebook``)."""

from theorylab.core.notebooks import write_notebook

CELLS = [
    ("md", r"""# adaptive_sde — adaptive methods through the lens of SDEs

Compagnoni, Liu, Islamov, Proske, Orvieto, Lucchi, ICLR 2025 (arXiv:2411.15958). The discrete optimizers
(SGD, SignSGD, RMSpropW, AdamW) on a quadratic with injected noise, beside their SDEs, and the stationary
losses the paper predicts: linear in $\sigma$ for SignSGD, quadratic for SGD. `THEORYLAB_SCALE=ci` keeps it tiny."""),
    ("code", """import os
import numpy as np
from theorylab.sde import Quadratic, run_optimizer, run_sde, signsgd_stationary_loss, sgd_stationary_loss
from theorylab.core.plotting import pyplot
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
P, STEPS = (100, 400) if CI else (1000, 4000)
q = Quadratic.diagonal([1.0, 2.0])"""),
    ("md", """## Optimizer vs SDE: mean loss trajectories"""),
    ("code", """def compare(optimizer="signsgd", sigma=1.0, eta=0.01):
    opt = run_optimizer(optimizer, q, 1.0, eta=eta, sigma=sigma, n_steps=STEPS, n_paths=P, seed=1)
    sde = run_sde(optimizer, q, 1.0, eta=eta, sigma=sigma, n_steps=STEPS, n_paths=P, seed=2)
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.semilogy(opt.t, opt.mean(), label=f"{optimizer} (discrete)")
    ax.semilogy(sde.t, sde.mean(), "--", label="SDE")
    ax.set_xlabel("t = k eta"); ax.set_ylabel("E f"); ax.legend(); plt.show()

try:
    import ipywidgets as widgets
    widgets.interact(compare, optimizer=["signsgd", "sgd", "rmspropw", "adamw"],
                     sigma=widgets.FloatLogSlider(value=1.0, base=10, min=-1, max=1),
                     eta=widgets.FloatLogSlider(value=0.01, base=10, min=-3, max=-1))
except ImportError:
    compare()"""),
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


if __name__ == "__main__":
    print(write_notebook("adaptive_sde", CELLS))
