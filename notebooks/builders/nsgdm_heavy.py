"""Builds notebooks/nsgdm_heavy.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py nsgdm_heavy``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("nsgdm_heavy") + [
        ("md", r"""## Batched NSGDM under heavy-tailed noise

$m_t = \beta m_{t-1} + (1-\beta) g_t$, $x_{t+1} = x_t - \eta\, m_t/\|m_t\|$, with gradient noise of tail index
$\nu$ (finite $p$-th moment for $p<\nu$). Derived schedules: $1-\beta = T^{-a}$, $\eta = \eta_0 T^{-b}$ with
$a = p/(3p-2)$, $b = (2p-1)/(3p-2)$ (known $p$, rate $T^{(1-p)/(3p-2)}$) or $a = 1/2$, $b = 3/4$ (unknown $p$,
rate $T^{(1-p)/(2p)}$). `THEORYLAB_SCALE=ci` keeps every cell tiny."""),
        ("code", """import os
import numpy as np
from theorylab.stochastic import nsgdm as S, noise as N
from theorylab.core import fit_loglog
from theorylab.core.plotting import pyplot
plt = pyplot()
CI = os.environ.get("THEORYLAB_SCALE", "full") == "ci"
x = N.sample_noise("pareto", 10**4 if CI else 10**6, nu=1.5, seed=1)
print("Pareto nu = 1.5: E|xi|^0.5 sampled", np.mean(np.abs(x) ** 0.5), "exact", N.abs_moment("pareto", 0.5, 1.5))
for p in (1.3, 1.5, 2.0):
    print(f"p = {p}: exponents (a, b) = {S.schedule_exponents('known_p', p)}, "
          f"rate known p {S.predicted_rate('known_p', p):.4f}, unknown p {S.predicted_rate('unknown_p', p):.4f}")"""),
        ("md", "## Rate against T"),
        ("code", """def rate(p=1.5, nu=1.8, kind="known_p", beta_off=False):
    Ts = np.array([200, 800, 3200]) if CI else np.array([1000, 4000, 16000, 64000])
    eta0 = S.balanced_eta0("quadratic", 10)
    Y = []
    for T in Ts:
        eta, beta = S.schedule(int(T), kind, p, eta0=eta0)
        Y.append(S.run_methods("quadratic", int(T), eta=eta, beta=0.0 if beta_off else beta, law="student_t",
                               nu=nu, n_runs=8 if CI else 32, seed=2).avg_grad_norm)
    fit = fit_loglog(Ts, samples=np.array(Y).T)
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.loglog(Ts, fit.y, "o-", label=f"measured, slope {fit}")
    ax.loglog(Ts, fit.y[0] * (Ts / Ts[0]) ** S.predicted_rate(kind, p), "k--", label="predicted slope")
    ax.set_xlabel("T"); ax.legend(fontsize=7); plt.show()"""),
        explore_cell("rate(p, nu, kind, beta_off)", {
            "p": (1.5, "FloatSlider(value=1.5, min=1.1, max=2.0, step=0.1)"),
            "nu": (1.8, "FloatSlider(value=1.8, min=1.2, max=4.0, step=0.1)"),
            "kind": ("known_p", "Dropdown(options=['known_p', 'unknown_p'])"),
            "beta_off": (False, "Checkbox(value=False)")}),
        ("md", r"""## The EMA of heavy-tailed noise

With $\eta = 0$ the momentum error is an EMA of the noise; its scale behaves as $(1-\beta)^{1-1/\nu}$ only
asymptotically. The exact finite-$(1-\beta)$ value (characteristic function) shows the bias."""),
        ("code", """omb = np.geomspace(2e-2, 1e-1, 3) if CI else np.geomspace(1e-3, 1e-1, 5)
sim = [S.ema_error("student_t", 1.8, o, q=0.5, n=5000 if CI else 100000, n_runs=8, seed=3).mean() ** 2 for o in omb]
exact = [S.ema_moment_exact(1.8, o) ** 2 for o in omb]
print("simulated (E|m|^0.5)^2:", np.round(sim, 4)); print("exact:                 ", np.round(exact, 4))
print("exact slope", np.polyfit(np.log(omb), np.log(exact), 1)[0], "asymptotic", 1 - 1 / 1.8)"""),
        ("code", """from theorylab.validations.nsgdm_heavy import rate_vs_T
if not CI:                     # the published figure's code at a smaller scale (skipped headless at ci)
    fig, table = rate_vs_T(Ts=(1000, 4000, 16000), n_runs=16, seed=1)
    print(table.head())"""),
    ]


if __name__ == "__main__":
    print(write_notebook("nsgdm_heavy", cells()))
