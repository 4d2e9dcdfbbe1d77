"""Small, labelled toy proxies of mostly empirical papers (issue 35): each module checks the mathematics a paper
stands on exactly and its mechanism on a toy where the effect is measurable; every claim built on them says
"toy proxy".

Modules (import from them directly or from here):

- ``theorylab.toys.local_loss``  deep linear networks on Gaussian regression with per-block local probe losses,
  exact BP gradients, the lazily refreshed BP offset scaled by alpha (paper bp_localloss)
"""

from .local_loss import (LinearTask, batch_gradients, global_loss, global_minimum, init_network, linear_task,
                         population_gradients, sample_updates, train_local, update_moments)

__all__ = ["LinearTask", "batch_gradients", "global_loss", "global_minimum", "init_network", "linear_task",
           "population_gradients", "sample_updates", "train_local", "update_moments"]
