"""Plotting of recorded signals: pure functions, arrays in, matplotlib Figure out.

matplotlib is imported lazily, inside the functions, so that ``import blocksim`` stays fast and
works without a display. Figures are created with the object-oriented API
(:class:`matplotlib.figure.Figure`, rendered by Agg) unless ``show=True`` is asked for, in which
case they are created through :mod:`matplotlib.pyplot` so that the GUI backend can display them.
"""

from blocksim.viz.scope import (
    element_labels,
    new_figure,
    plot_scope,
    plot_xy,
    save_figure,
    show_figure,
)

__all__ = ["element_labels", "new_figure", "plot_scope", "plot_xy", "save_figure", "show_figure"]
