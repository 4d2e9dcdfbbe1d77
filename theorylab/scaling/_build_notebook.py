"""Builds notebooks/scaling_ode.ipynb with nbformat (run from the repository root)."""
import nbformat as nbf
nb = nbf.v4.new_notebook()
nb.cells = [
 nbf.v4.new_markdown_cell("# scaling_ode: two-layer networks with power-law spectra\nWorschech & Rosenow, ICLR 2025 (arXiv:2410.09005). ODE vs one-pass SGD for the erf committee machine, and the linear power law."),
 nbf.v4.new_code_cell("""import os
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from theorylab.scaling import integrate_ode, simulate_sgd, linear_eps, linear_power_law, plateau_height
SCALE = os.environ.get("THEORYLAB_SCALE", "full")
N, ALPHA_MAX = (64, 50.0) if SCALE == "ci" else (1024, 3000.0)"""),
 nbf.v4.new_code_cell("""def show(L=8, eta=0.1):
    al = np.geomspace(1.0, ALPHA_MAX, 40)
    ode = integrate_ode(L=L, K=2, M=2, eta=eta, N=N, alphas=al)
    sgd = simulate_sgd(N=N, L=L, K=2, M=2, eta=eta, alphas=al, n_seeds=1, seed=1)
    plt.figure(figsize=(5, 3.5))
    plt.loglog(ode.alpha, ode.eps_g, label="ODE")
    plt.loglog(sgd.alpha, sgd.eps_g, ".", label="SGD")
    plt.axhline(plateau_height(K=2, M=2), ls=":", color="k", label="plateau (eta->0)")
    plt.xlabel("alpha"); plt.ylabel("eps_g"); plt.legend(); plt.show()

try:
    import ipywidgets as w
    w.interact(show, L=w.SelectionSlider(options=[1, 2, 4, 8, 16]), eta=w.FloatSlider(value=0.1, min=0.02, max=0.5, step=0.02))
except ImportError:
    show(L=8, eta=0.1)"""),
 nbf.v4.new_code_cell("""al = np.geomspace(0.1, 1e3, 50)
plt.figure(figsize=(5, 3.5))
for beta in (0.5, 1.0, 2.0):
    plt.loglog(al, linear_eps(al, L=N, beta=beta, eta=0.1), label=f"exact, beta={beta}")
    plt.loglog(al, linear_power_law(al, L=N, beta=beta, eta=0.1), ":", color="k")
plt.xlabel("alpha"); plt.ylabel("eps_g"); plt.legend(); plt.show()"""),
]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nbf.write(nb, "notebooks/scaling_ode.ipynb")
