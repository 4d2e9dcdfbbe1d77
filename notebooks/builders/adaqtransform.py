"""Builds notebooks/adaqtransform.ipynb with theorylab.core.notebooks.write_notebook
(run from the repository root: ``python notebooks/build.py adaqtransform``)."""

from theorylab.core.notebooks import explore_cell, header_cells, write_notebook


def cells():
    return header_cells("adaqtransform") + [
        ("md", r"""## A toy proxy: one quantised linear layer and its per-channel transformation

Not a reproduction of the paper's ImageNet/LLM tables. A random layer $y = xW^\top + b$ is quantised to
$\hat y_j = s_x s_{w,j}\,(x_{\rm int}\cdot w_{{\rm int},j}) + b_j$ (signed $b$-bit grids, nearest or AdaRound-like
rounding); the transformation $\tilde y_j = \xi_j \hat y_j + \eta_j$ is fitted per channel by least squares on a
calibration set and judged on held-out inputs. Folding it into the layer, $s_{w,j} \leftarrow \xi_j s_{w,j}$,
$b_j \leftarrow \xi_j b_j + \eta_j$, leaves the integer weights and the output unchanged."""),
        ("code", """import numpy as np
from theorylab.toys import ptq_transform as T
layer = T.random_layer(128, 128, seed=0)
Xc, Xh = T.layer_inputs(512, 128, seed=1), T.layer_inputs(4096, 128, seed=2)
for rounding in T.ROUNDINGS:
    q = T.quantize_layer(layer, Xc, w_bits=2, a_bits=2, rounding=rounding, w_step="absmax")
    xi, eta = T.fit_transform(T.quant_forward(q, Xc), T.float_forward(layer, Xc))
    y, yq = T.float_forward(layer, Xh), T.quant_forward(q, Xh)
    yt = T.apply_transform(yq, xi, eta)
    m0, m1 = T.channel_mse(y, yq), T.channel_mse(y, yt)
    fold = np.abs(T.quant_forward(T.fold_transform(q, xi, eta), Xh) - yt).max() / np.abs(yt).max()
    print(f"{rounding:8s}: held-out ratio {m1.sum() / m0.sum():.3f}, worst channel {np.max(m1 / m0):.3f}, "
          f"xi in [{xi.min():.2f}, {xi.max():.2f}], fold error {fold:.1e}")"""),
        ("md", r"""## Held-out error with and without the transformation against the bit width"""),
        ("code", """from theorylab.validations.adaqtransform import fig_error_vs_bits
def show(d=64, replicates=3):
    fig, table = fig_error_vs_bits(d=d, n_calib=4 * d, n_heldout=16 * d, bits=(2, 3, 4, 6, 8),
                                   replicates=replicates, seed=0)
    return table"""),
        explore_cell("show(d, replicates)", {"d": (64, "IntSlider(value=64, min=16, max=256, step=16)"),
                                             "replicates": (3, "IntSlider(value=3, min=2, max=10)")}),
    ]


if __name__ == "__main__":
    print(write_notebook("adaqtransform", cells()))
