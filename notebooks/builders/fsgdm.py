"""Builds notebooks/fsgdm.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py fsgdm``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("fsgdm") + [
        ("md", r"""## FSGDM's momentum as a filter

The optimiser sets $u = s/(s + c\Sigma)$ with $s = \lfloor t/\delta\rfloor\delta$, $\delta = \Sigma // N$, and
$m_t = u\,m_{t-1} + v\,g_t$. Within a stage this is the one-pole filter $H(z) = v/(1 - u z^{-1})$:
$|H(e^{i\omega})|^2 = v^2/(1 - 2u\cos\omega + u^2)$, DC gain $v/(1-u)$, Nyquist gain $v/(1+u)$.
`THEORYLAB_SCALE=ci` keeps every cell tiny."""),
        ("code", """import os
import numpy as np
from theorylab.stochastic import fsgdm as F
from theorylab.core.plotting import pyplot
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
u = F.stage_schedule(117000, 300, 0.033)
ref, u_k, lengths = F.stage_schedule_reference(117000, 300, 0.033)
print("schedule equal to the stage construction:", np.array_equal(u, ref), "| distinct u:", u_k.size,
      "| first/last stage lengths:", lengths[0], lengths[-1], "| u_final:", u[-1])
print("sympy |H|^2 =", F.transfer_power_sympy()[0])"""),
        ("md", "## Periodogram of filtered white noise against $|H|^2$"),
        ("code", """def spectrum(u=0.9, v=1.0):
    x = F.filtered_noise(u, v, n=2**14 if CI else 2**20, n_runs=4, seed=1)
    c, bp, om = F.band_periodogram(x, seglen=4096, n_bands=64)
    H = np.array([F.transfer_power(o, u, v).mean() for o in om])
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    ax.semilogy(c, bp.mean(0), "o", ms=3, label="band periodogram")
    ax.semilogy(c, H, "k-", label="|H|^2 (band mean)")
    ax.set_xlabel("omega"); ax.legend(); plt.show()
    print("max |P/|H|^2 - 1| =", np.max(np.abs(bp.mean(0) / H - 1)), " DC gain:", F.dc_gain(u, v))"""),
        explore_cell("spectrum(u, v)", {
            "u": (0.9, "FloatSlider(value=0.9, min=-0.95, max=0.99, step=0.01)"),
            "v": (1.0, "FloatSlider(value=1.0, min=0.1, max=3.0)")}),
        ("md", r"""## Low-pass (FSGDM) vs high-pass at matched DC gain on the noisy quadratic

The high-pass variant uses a fixed $u<0$ and $v_t = v(1-u)/(1-u_t)$, so its DC gain (effective step) equals
FSGDM's at every step (errata)."""),
        ("code", """lam = np.geomspace(1e-3, 1, 100)
runs = 4 if CI else 64
kw = dict(lr=0.02, noise=0.1, sigma=1170 if CI else 11700, n_stages=3 if CI else 30, n_runs=runs, seed=2)
a = F.run_momentum_quadratic(lam, np.ones(100), method="fsgdm", **kw)
b = F.run_momentum_quadratic(lam, np.ones(100), method="matched", u_fixed=-0.3, **kw)
print("final loss FSGDM:", a[:, -1].mean(), " high-pass (matched DC):", b[:, -1].mean())"""),
        ("code", """from theorylab.validations.fsgdm import fig_filter
fig, table = fig_filter(stages=(1, 300), n=2**13 if CI else 2**20, n_runs=2, seglen=2048 if CI else 4096, seed=1)
table.head()"""),
    ]


if __name__ == "__main__":
    print(write_notebook("fsgdm", cells()))
