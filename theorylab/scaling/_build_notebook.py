"""Builds notebooks/scaling_ode.ipynb: ``python -m theorylab.scaling._build_notebook`` (from the repository root)."""

from theorylab.core.notebooks import write_notebook

CELLS = [
    ("md", "# scaling_ode: two-layer networks with power-law data spectra\n\n"
           "Worschech & Rosenow, ICLR 2025 (arXiv:2410.09005). One-pass SGD of the soft committee machine "
           "against the order-parameter ODEs (erf), the linear closed forms (power law -beta/(1+beta), "
           "trainable-parameter law) and the symmetric plateau. `THEORYLAB_SCALE=ci` keeps every cell small."),
    ("code", "import os\n"
             "import numpy as np\n"
             "import matplotlib\n"
             "matplotlib.use('Agg')\n"
             "import matplotlib.pyplot as plt\n"
             "from theorylab.scaling import (group_overlaps, integrate_ode, simulate_sgd_over_L, linear_eps,\n"
             "                               linear_power_law, power_law_window, plateau_height,\n"
             "                               trainable_final_error, trainable_power_law)\n"
             "CI = os.environ.get('THEORYLAB_SCALE', 'full') == 'ci'\n"
             "N, ALPHA_MAX, LS = (64, 50.0, (1, 16)) if CI else (1024, 3000.0, (1, 4, 16, 64))"),
    ("md", "## Fig. 1: the plateau shortens as L grows (erf, K = M = 2, eta = 0.1, sigma_J = 0.01)\n"
           "One SGD path per L (run in parallel) and the ODE started from that path's own initial overlaps."),
    ("code", "al = np.geomspace(1.0, ALPHA_MAX, 40)\n"
             "tab, (J0, B0) = simulate_sgd_over_L(N=N, Ls=LS, alphas=al, seed=1, return_init=True)\n"
             "plt.figure(figsize=(5, 3.5))\n"
             "for p, L in enumerate(LS):\n"
             "    ode = integrate_ode(L=L, overlaps=group_overlaps(J0[p], B0[p], L), alphas=al)\n"
             "    line, = plt.loglog(ode.alpha, ode.eps_g, label=f'L={L}')\n"
             "    plt.loglog(al, tab[tab.seed_index == p].eps_g, '.', color=line.get_color())\n"
             "plt.axhline(plateau_height(K=2, M=2, eta=0.1), ls=':', color='k', label='plateau fixed point')\n"
             "plt.xlabel('alpha'); plt.ylabel('eps_g'); plt.legend(fontsize=8); plt.show()"),
    ("md", "## Linear activation: the power law and its window [1/(2 eta lambda_1), 1/(2 eta lambda_L)]"),
    ("code", "al = np.geomspace(0.1, 1e3, 50)\n"
             "plt.figure(figsize=(5, 3.5))\n"
             "for beta in (0.5, 1.0, 2.0):\n"
             "    plt.loglog(al, linear_eps(al, L=N, beta=beta, eta=0.1), label=f'exact, beta={beta}')\n"
             "    plt.loglog(al, linear_power_law(al, L=N, beta=beta, eta=0.1), ':', color='k')\n"
             "    print(beta, 'window', power_law_window(L=N, beta=beta, eta=0.1))\n"
             "plt.xlabel('alpha'); plt.ylabel('eps_g'); plt.legend(); plt.show()"),
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

if __name__ == "__main__":
    print(write_notebook("scaling_ode", CELLS))
