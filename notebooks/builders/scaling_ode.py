"""Builds notebooks/scaling_ode.ipynb: ``python notebooks/build.py scaling_ode`` (from the repository root)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook

CELLS = [
    ("md", "## The model\n\nOne-pass SGD of the soft committee machine "
           "against the order-parameter ODEs (erf), the linear closed forms (power law -beta/(1+beta), "
           "trainable-parameter law) and the symmetric plateau. `THEORYLAB_SCALE=ci` keeps every cell small."),
    ("code", "import os\n"
             "import numpy as np\n"
             "from theorylab.core.plotting import pyplot, subplots, sym, theory_line\n"
             "plt = pyplot()\n"
             "from theorylab.scaling import (group_overlaps, integrate_ode, simulate_sgd_over_L, linear_eps,\n"
             "                               linear_power_law, power_law_window, plateau_height,\n"
             "                               trainable_final_error, trainable_power_law)\n"
             "CI = os.environ.get('THEORYLAB_SCALE', 'full') == 'ci'\n"
             "N, ALPHA_MAX, LS = (64, 50.0, (1, 16)) if CI else (1024, 3000.0, (1, 4, 16, 64))"),
    ("md", "## Fig. 1: the plateau shortens as L grows (erf, K = M = 2, eta = 0.1, sigma_J = 0.01)\n"
           "One SGD path per L (run in parallel) and the ODE started from that path's own initial overlaps."),
    ("code", "al = np.geomspace(1.0, ALPHA_MAX, 40)\n"
             "tab, (J0, B0) = simulate_sgd_over_L(N=N, Ls=LS, alphas=al, seed=1, return_init=True)\n"
             "fig, ax = subplots(1, 1, width=5.0, height=3.5)\n"
             "ax = ax[0, 0]\n"
             "for p, L in enumerate(LS):\n"
             "    ode = integrate_ode(L=L, overlaps=group_overlaps(J0[p], B0[p], L), alphas=al)\n"
             "    line, = ax.loglog(ode.alpha, ode.eps_g, label=f'$L$ = {L}')\n"
             "    ax.loglog(al, tab[tab.seed_index == p].eps_g, '.', color=line.get_color())\n"
             "theory_line(ax, al, np.full(al.size, plateau_height(K=2, M=2, eta=0.1)), label='plateau fixed point')\n"
             "ax.set_xlabel(sym('alpha')); ax.set_ylabel(r'$\\varepsilon_g$')\n"
             "ax.legend(fontsize=8, title='lines: ODE, dots: SGD', title_fontsize=7); plt.show()"),
    ("md", "## Explore: one SGD path against the ODE from its own initial overlaps\n"
           "The generalisation error $\\varepsilon_g$ of one SGD run (dots) and of the order-parameter ODE started "
           "from that run's initial overlaps (line), for $L$ groups of the power-law spectrum (exponent "
           "$\\beta$), learning rate $\\eta$ and input dimension $N$; the dashed line is the symmetric plateau's "
           "fixed point. Sliders need ipywidgets (`pip install theorylab[notebook]`); headless the cell draws "
           "once at the defaults."),
    ("code", "def explore(L=16, eta=0.1, beta=1.0, N=64, alpha_max=50.0, activation='erf', seed=1):\n"
             "    al = np.geomspace(1.0, alpha_max, 40)\n"
             "    tab, (J0, B0) = simulate_sgd_over_L(N=N, Ls=(L,), eta=eta, beta=beta, activation=activation,\n"
             "                                        alphas=al, seed=seed, return_init=True)\n"
             "    ode = integrate_ode(L=L, eta=eta, beta=beta, activation=activation,\n"
             "                        overlaps=group_overlaps(J0[0], B0[0], L), alphas=al)\n"
             "    fig, ax = subplots(1, 1, width=5.0, height=3.5)\n"
             "    ax = ax[0, 0]\n"
             "    line, = ax.loglog(ode.alpha, ode.eps_g, label='ODE')\n"
             "    ax.loglog(al, tab.eps_g, '.', color=line.get_color(), label='SGD, one run')\n"
             "    if activation == 'erf':\n"
             "        theory_line(ax, al, np.full(al.size, plateau_height(K=2, M=2, eta=eta)), label='plateau fixed point')\n"
             "    ax.set_xlabel(sym('alpha')); ax.set_ylabel(r'$\\varepsilon_g$')\n"
             "    ax.set_title(f\"{activation}, $L$ = {L}, {sym('eta')} = {eta:.3g}, {sym('beta')} = {beta:.3g}, $N$ = {N}\")\n"
             "    ax.legend(fontsize=8)\n"
             "    plt.show()"),
    explore_cell("explore(L, eta, beta, N, alpha_max, activation, seed)", {
        "L": (16, "IntSlider(value=16, min=1, max=64)"),
        "eta": (0.1, "FloatLogSlider(value=0.1, base=10, min=-2, max=0)"),
        "beta": (1.0, "FloatSlider(value=1.0, min=0.25, max=3.0, step=0.25)"),
        "N": (64, "IntSlider(value=64, min=64, max=1024, step=64)"),
        "alpha_max": (50.0, "FloatLogSlider(value=50.0, base=10, min=1, max=4)"),
        "activation": ("erf", "Dropdown(options=['erf', 'linear'])"),
        "seed": (1, "IntSlider(value=1, min=0, max=20)")}),
    ("md", "## Linear activation: the power law and its window [1/(2 eta lambda_1), 1/(2 eta lambda_L)]"),
    ("code", "al = np.geomspace(0.1, 1e3, 50)\n"
             "fig, ax = subplots(1, 1, width=5.0, height=3.5)\n"
             "ax = ax[0, 0]\n"
             "for beta in (0.5, 1.0, 2.0):\n"
             "    ax.loglog(al, linear_eps(al, L=N, beta=beta, eta=0.1), label=f\"exact ODE, {sym('beta')} = {beta}\")\n"
             "    theory_line(ax, al, linear_power_law(al, L=N, beta=beta, eta=0.1), label='power law',\n"
             "                slope=round(-beta / (1 + beta), 2))\n"
             "    print(beta, 'window', power_law_window(L=N, beta=beta, eta=0.1))\n"
             "ax.set_xlabel(sym('alpha')); ax.set_ylabel(r'$\\varepsilon_g$'); ax.legend(fontsize=7); plt.show()"),
    ("md", "## Plateau escape scale vs M (K = M, L = 8): growth rate of the specialisation mode\n"
           "eta / rate in the small-learning-rate limit (an L x L block of the plateau's Jacobian); its local "
           "exponent in M rises towards 2 (the reviewers' M^2)."),
    ("code", "from theorylab.scaling import plateau_specialization_rate\n"
             "Ms = np.array([4, 8, 16, 32])\n"
             "inv = np.array([1 / plateau_specialization_rate(L=8, K=M, M=M, small_eta=True) for M in Ms])\n"
             "print('eta/rate', inv.round(1), 'local exponents', (np.diff(np.log(inv)) / np.log(2)).round(3))"),
    ("md", "## Trainable-parameter law (Sec. 4.3): final error vs N_l, slope -beta"),
    ("code", "n_l = np.array([4, 8, 16, 32])\n"
             "print(np.c_[n_l, trainable_final_error(n_l, N=N, beta=1.0, eta=0.5), trainable_power_law(n_l, beta=1.0)])"),
]


def cells():
    """The notebook's cells: the paper and its claims (from the registry), then the exploration."""
    return header_cells("scaling_ode") + CELLS


if __name__ == "__main__":
    print(write_notebook("scaling_ode", cells()))
