"""core.plotting: readable_ticks leaves hand-set ticks and colorbars alone and labels short log ranges."""

import numpy as np

from theorylab.core import plotting as P


def _labels(axis, lo, hi):
    return [t.get_text() for t, v in zip(axis.get_ticklabels(), axis.get_ticklocs()) if lo <= v <= hi and t.get_text()]


def test_hand_set_ticks_and_colorbars_are_left_alone():
    plt = P.pyplot()
    fig, ax = plt.subplots()
    im = ax.imshow(np.arange(9.0).reshape(3, 3))
    ax.set_xticks([0, 1, 2], ["a", "b", "c"])
    cb = fig.colorbar(im, ax=ax)
    before = cb.ax.yaxis.get_major_locator()
    for a in fig.get_axes():
        P.readable_ticks(a)
    fig.canvas.draw()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    assert cb.ax.yaxis.get_major_locator() is before
    plt.close(fig)


def test_a_log_axis_under_a_decade_gets_at_least_two_plain_labels():
    plt = P.pyplot()
    fig, ax = plt.subplots()
    ax.loglog([4, 8], [1e-3, 1e-1])
    ax.set_xlim(4, 8)
    P.readable_ticks(ax)
    fig.canvas.draw()
    assert _labels(ax.xaxis, 4, 8) == ["4", "5", "6", "7", "8"]
    assert len(_labels(ax.yaxis, 1e-3, 1e-1)) >= 2
    plt.close(fig)
