"""Builds notebooks/trajmap.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py trajmap``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("trajmap") + [
        ("md", r"""## Heavy ball on a quadratic: every root has modulus $\sqrt\beta$

On $f = \frac12\sum_j\lambda_j\theta_j^2$ with $\theta_{-1} = \theta_0$, each coordinate's update obeys
$\Delta_{t+1} = (1+\beta-\eta\lambda)\Delta_t - \beta\Delta_{t-1}$. With complex roots $\sqrt\beta e^{\pm i\omega}$,
$\cos\omega = (1+\beta-\eta\lambda)/(2\sqrt\beta)$, the update is
$\Delta_t = -\eta\lambda\theta_0\,\beta^{t/2}\sin((t+1)\omega)/\sin\omega$: no mode dominates, so the cosine between
consecutive updates keeps oscillating, and coordinate $j$ changes sign at the rate $\omega_j/\pi$."""),
        ("code", """import numpy as np
from theorylab.krylov import trajectories as TR
lams = np.logspace(-2, 0, 50)
theta0 = np.random.default_rng(0).standard_normal(50)
omega = TR.root_angles(lams, eta=1.0, beta=0.9)
d_sim = np.diff(TR.heavy_ball(lams, theta0, steps=2001), axis=0)[:2000]
d_exact = TR.heavy_ball_exact_updates(lams, theta0, steps=2000)
env = 0.9 ** (np.arange(2000) / 2)[:, None] * np.abs(d_exact[0]).max()
print("max relative difference simulated vs exact:", (np.abs(d_sim - d_exact) / env).max())
print("sign changes - floor(T omega / pi):", np.abs(TR.sign_changes(d_sim) - np.floor(2000 * omega / np.pi)).max())"""),
        ("code", """from theorylab.validations.trajmap import fig_consecutive_cosine
def show(steps=2000):
    fig, table = fig_consecutive_cosine(steps=steps, seed=0)
    return table.describe()"""),
        explore_cell("show(steps)", {"steps": (2000, "IntSlider(value=2000, min=500, max=8000)")}),
        ("md", r"""## The trajectory map of the iterates"""),
        ("code", """C, mds = TR.trajectory_map(TR.heavy_ball(lams, theta0, steps=300)[::10])
print(f"mean directional similarity of every 10th iterate: {mds:.3f}")"""),
    ]


if __name__ == "__main__":
    print(write_notebook("trajmap", cells()))
