"""Builds notebooks/missing_mass.ipynb with nbformat: ``python notebooks/build.py missing_mass``."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook

CELLS = [
    ("md", "## What is computed\n\nExact moments of missing-mass "
           "estimators built from frequencies of frequencies, and the distribution-free evolutionary search. "
           "`THEORYLAB_SCALE=ci` keeps everything tiny."),
    ("code", "import os\nimport numpy as np\nfrom theorylab.missing_mass import (make_distribution, sample, "
             "frequencies_of_frequencies, good_turing, minimal_bias, exact_moments, monte_carlo_mse, search_run)\n"
             "CI = os.environ.get('THEORYLAB_SCALE', 'full') == 'ci'\nS, n = (50, 50) if CI else (100, 100)"),
    ("md", "## A sample and its frequencies of frequencies"),
    ("code", "p = make_distribution('zipfhalf', S)\nx = sample(p, n, seed=1)\nphi = frequencies_of_frequencies(x)\n"
             "print('Phi_1..Phi_5 =', phi[1:6], ' Good-Turing =', good_turing(n)(x))"),
    ("md", "## Exact bias, variance and MSE: Good–Turing vs the minimal-bias estimator"),
    ("code", "for est in (good_turing(n), minimal_bias(n)):\n    mo = exact_moments(est, p, n)\n"
             "    print(f'{est.name:>13}: bias {mo.bias:+.3e}  var {mo.var:.4e}  MSE {mo.mse:.4e}')\n"
             "mc = monte_carlo_mse(good_turing(n), p, n, reps=2000 if CI else 50000, seed=0)\n"
             "print(f'Monte Carlo GT MSE {mc[\"mse\"]:.4e} +- {mc[\"mse_se\"]:.1e}')"),
    ("md", "## One distribution-free search run, judged under the true p"),
    ("code", "def run(distribution='uniform', max_gen=100 if CI else 1000, seed=0):\n"
             "    r = search_run(distribution, S, n, seed=seed, max_gen=max_gen)\n"
             "    print(f\"{distribution}: GT MSE {r['gt_mse']:.5e}, evolved {r['evo_mse']:.5e}, ratio {r['ratio']:.4f}, \"\n"
             "          f\"{r['generations']} generations, {r['seconds']:.1f} s\")\n"
             "    print(r['formula'][:300])\n\nrun()"),
    ("md", "## Explore: an evolved estimator judged on every distribution (a row of Figure 3)\n"
           "One distribution-free search from a sample of the chosen distribution, then the exact MSE of the "
           "evolved estimator relative to Good–Turing's under each of the six distributions (below 1: better than "
           "Good–Turing). Sliders need ipywidgets (`pip install theorylab[notebook]`); headless the cell draws once "
           "at the defaults."),
    ("code", "from theorylab.missing_mass import DISTRIBUTIONS\n"
             "from theorylab.core.plotting import pyplot, subplots, theory_line\n"
             "plt = pyplot()\n\n"
             "def explore(distribution='zipf', S=50, n=50, max_gen=100, seed=0):\n"
             "    r = search_run(distribution, S, n, seed=seed, max_gen=max_gen)\n"
             "    ratios = []\n"
             "    for d in DISTRIBUTIONS:\n"
             "        p_d = make_distribution(d, S, seed=seed)\n"
             "        ratios.append(exact_moments(r['_estimator'], p_d, n).mse / exact_moments(good_turing(n), p_d, n).mse)\n"
             "    fig, ax = subplots(1, 1, width=5.0, height=3.3)\n"
             "    ax = ax[0, 0]\n"
             "    x = np.arange(len(DISTRIBUTIONS), dtype=float)\n"
             "    ax.plot(x, ratios, 'o', label=f'evolved on {distribution}')\n"
             "    theory_line(ax, x, np.ones(x.size), label='Good–Turing (ratio 1)')\n"
             "    ax.set_xticks(x, DISTRIBUTIONS)\n"
             "    ax.set_xlabel('evaluated on'); ax.set_ylabel('exact MSE / Good–Turing MSE')\n"
             "    ax.set_title(f\"$S$ = {S}, $n$ = {n}, {r['generations']} generations, {r['n_terms']} terms\")\n"
             "    ax.legend(fontsize=8)\n"
             "    plt.show()"),
    explore_cell("explore(distribution, S, n, max_gen, seed)", {
        "distribution": ("zipf", "Dropdown(options=['uniform', 'half', 'zipf', 'zipfhalf', 'diri', 'dirihalf'])"),
        "S": (50, "IntSlider(value=50, min=10, max=400, step=10)"),
        "n": (50, "IntSlider(value=50, min=10, max=400, step=10)"),
        "max_gen": (100, "IntSlider(value=100, min=100, max=2000, step=100)"),
        "seed": (0, "IntSlider(value=0, min=0, max=20)")}),
]


def cells():
    """The notebook's cells: the paper and its claims (from the registry), then the exploration."""
    return header_cells("missing_mass") + CELLS


def build(path=None):
    return write_notebook("missing_mass", cells(), path)


if __name__ == "__main__":
    print(build())
