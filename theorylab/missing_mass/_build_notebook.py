"""Builds notebooks/missing_mass.ipynb with nbformat: ``python -m theorylab.missing_mass._build_notebook``."""

from theorylab.core.notebooks import write_notebook

CELLS = [
    ("md", "# missing_mass — how much is unseen\n\nLee & Böhme (ICLR 2025). Exact moments of missing-mass "
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
    ("code", "try:\n    import ipywidgets as w\n    w.interact(run, distribution=w.Dropdown(options=['uniform', 'half', "
             "'zipf', 'zipfhalf', 'diri', 'dirihalf']), max_gen=w.IntSlider(100, 100, 2000, 100), "
             "seed=w.IntSlider(0, 0, 20))\nexcept ImportError:\n    run('zipf')"),
]


def build(path=None):
    return write_notebook("missing_mass", CELLS, path)


if __name__ == "__main__":
    print(build())
