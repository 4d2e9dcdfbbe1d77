"""Builds notebooks/disk_dp.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py disk_dp``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("disk_dp") + [
        ("md", r"""## DiSK: a simplified Kalman filter on the privatised gradient

With $c = (1-\kappa)/(\kappa\gamma)$ each sample contributes $\mathrm{clip}_C\big(c\,\nabla f(x_t + \gamma(x_t -
x_{t-1});\xi) + (1-c)\nabla f(x_t;\xi)\big)$, DP-SGD's noise $w_t \sim N(0, \sigma^2C^2/B^2 I)$ is added, and
$g_t = (1-\kappa)g_{t-1} + \kappa\,\tilde g_{t+1/2}$. On a quadratic with one shared Hessian and no clipping the
error $e_t = g_t - \nabla f(x_t)$ is exactly the AR(1) filter $e_t = (1-\kappa)e_{t-1} + \kappa\nu_t$, so its
stationary power is $\kappa/(2-\kappa)$ of DP-SGD's; $\|\nabla f\|^2$ falls by less, as the closed-loop
Lyapunov equation says. `THEORYLAB_SCALE=ci` keeps every cell tiny."""),
        ("code", """import os
import numpy as np
from theorylab.stochastic import disk as D
from theorylab.core.plotting import pyplot
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
P = D.make_quadratic(d=50, n=1000, seed=20250)
for kappa, gamma in ((0.7, 0.5), (0.9, 1.0), (0.7, 0.0)):
    tr = D.trace_disk(P, kappa=kappa, gamma=gamma, n_steps=100 if CI else 2000)
    r, _ = D.filter_residual(P, tr)
    print(f"kappa={kappa}, gamma={gamma}: max |AR(1) residual| = {np.abs(r).max():.2e}, clipped = {tr.clipped}")"""),
        ("md", "## Error power and gradient norm against DP-SGD"),
        ("code", """def compare(kappa=0.7, gamma=0.5, eta=1.0, sigma=1.0):
    kw = dict(eta=eta, C=100.0, sigma=sigma, B=64, n_steps=600 if CI else 5000, record_every=50,
              n_runs=2 if CI else 8, seed=1)
    disk, dp = D.run_disk(P, kappa=kappa, gamma=gamma, **kw), D.run_disk(P, kappa=1.0, **kw)
    keep = disk.steps >= 500
    q = D.noise_variance(P, sigma=sigma, C=100.0, B=64)
    print("error power ratio:", disk.err2[:, keep].mean() / dp.err2[:, keep].mean(),
          " kappa/(2-kappa):", D.error_variance_factor(kappa))
    print("||grad f||^2 ratio:", disk.grad2[:, keep].mean() / dp.grad2[:, keep].mean(),
          " Lyapunov:", D.gradnorm_ratio(P, kappa=kappa, eta=eta, sigma=sigma))
    lam = np.geomspace(0.05, 1, 50)
    ratios = D.lyapunov_gradnorm(lam, q, eta=eta, kappa=kappa) / D.lyapunov_gradnorm(lam, q, eta=eta, kappa=1.0)
    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    ax.semilogx(eta * lam, ratios, label="Lyapunov ratio per eigenvalue")
    ax.axhline(D.error_variance_factor(kappa), color="k", ls="--", label="kappa/(2-kappa)")
    ax.set_xlabel("eta lambda"); ax.legend(); plt.show()"""),
        explore_cell("compare(kappa, gamma, eta, sigma)", {
            "kappa": (0.7, "FloatSlider(value=0.7, min=0.05, max=1.0, step=0.05)"),
            "gamma": (0.5, "FloatSlider(value=0.5, min=0.0, max=2.0, step=0.05)"),
            "eta": (1.0, "FloatSlider(value=1.0, min=0.05, max=1.95, step=0.05)"),
            "sigma": (1.0, "FloatSlider(value=1.0, min=0.0, max=4.0, step=0.25)")}),
        ("code", """from theorylab.validations.disk_dp import fig_error
fig, table = fig_error(n_runs=2, n_steps=300 if CI else 2000, seed=1)
table.head()"""),
    ]


if __name__ == "__main__":
    print(write_notebook("disk_dp", cells()))
