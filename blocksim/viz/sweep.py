"""Plots of parameter sweeps: a cost over a two-parameter grid as a heat map.

Pure like :mod:`blocksim.viz.scope`: arrays in, a :class:`matplotlib.figure.Figure` out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from blocksim.viz.scope import new_figure, show_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def plot_grid_cost(
    x: Sequence[float],
    y: Sequence[float],
    cost: Any,
    *,
    xlabel: str = "x",
    ylabel: str = "y",
    cost_label: str = "cost",
    title: str | None = None,
    log: bool = False,
    show: bool = False,
) -> Figure:
    """A heat map of ``cost[i, j]`` at ``(x[i], y[j])`` with the grid's minimum marked.

    Parameters
    ----------
    x, y : sequence of float, lengths nx and ny
        The grid's axes (e.g. the values of ``pid.Kp`` and ``pid.Kd``), increasing.
    cost : array_like, shape (nx, ny)
        The cost of each grid point (NaN, e.g. a failed member, is left blank), as
        ``batch["..."].reshape(nx, ny)`` of a :func:`~blocksim.engine.batch.grid` over
        ``{x_name: x, y_name: y}``.
    xlabel, ylabel, cost_label, title : str
        Axis, colour-bar and figure titles.
    log : bool
        Colour by ``log10(cost)`` (costs must be > 0).
    show : bool
        Display the figure (pyplot-managed) instead of a bare Agg figure.

    Raises
    ------
    ValueError
        ``cost`` is not of shape (len(x), len(y)), or ``log`` with a cost <= 0.
    """
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    c = np.asarray(cost, dtype=float)
    if c.shape != (xs.size, ys.size):
        raise ValueError(
            f"plot_grid_cost: cost has shape {c.shape}; expected (len(x), len(y)) = "
            f"({xs.size}, {ys.size})"
        )
    if log and np.any(c[np.isfinite(c)] <= 0):
        raise ValueError("plot_grid_cost: log=True needs costs > 0")
    shown = np.log10(c) if log else c
    fig = new_figure((6.4, 4.8), show)
    ax = fig.add_subplot()
    mesh = ax.pcolormesh(_edges(xs), _edges(ys), shown.T, shading="flat", cmap="viridis")
    fig.colorbar(mesh, ax=ax, label=f"log10 {cost_label}" if log else cost_label)
    if np.isfinite(c).any():
        i, j = np.unravel_index(np.nanargmin(c), c.shape)
        ax.plot(xs[i], ys[j], marker="*", color="white", markersize=14, markeredgecolor="k")
        ax.annotate(
            f"min {c[i, j]:.4g}",
            (xs[i], ys[j]),
            textcoords="offset points",
            xytext=(8, 8),
            color="white",
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if show:
        show_figure(fig)
    return fig


def _edges(v: np.ndarray) -> np.ndarray:
    """Cell edges around grid values (midpoints, the ends extended by half a cell)."""
    if v.size == 1:
        return np.array([v[0] - 0.5, v[0] + 0.5])
    mid = (v[1:] + v[:-1]) / 2
    return np.concatenate([[2 * v[0] - mid[0]], mid, [2 * v[-1] - mid[-1]]])


def plot_curves(
    x: Any,
    curves: dict[str, Any],
    *,
    band: tuple[float, float] | None = None,
    band_label: str = "band",
    xlabel: str = "x",
    ylabel: str = "y",
    title: str | None = None,
    log: bool = False,
    marker: str = "",
    show: bool = False,
) -> Figure:
    """Curves over a common axis, e.g. a Monte-Carlo average over time or a sweep's cost
    against its parameter, with an optional horizontal band (a confidence interval).

    Parameters
    ----------
    x : array_like (n,)
        The common abscissa.
    curves : dict
        Label -> values (n,).
    band : (float, float), optional
        Lower and upper edge of a shaded band, with a line at its middle.
    band_label, xlabel, ylabel, title : str
        Legend entry of the band; axis and figure titles.
    log : bool
        Logarithmic y axis (values must be > 0).
    marker : str
        Matplotlib marker of the points ("" for lines only).
    show : bool
        Display the figure (pyplot-managed) instead of a bare Agg figure.
    """
    xs = np.asarray(x, dtype=float)
    for label, y in curves.items():
        if np.shape(y) != xs.shape:
            raise ValueError(f"plot_curves: curve {label!r} has shape {np.shape(y)}; "
                             f"expected {xs.shape} (that of x)")  # fmt: skip
    fig = new_figure((7.0, 4.2), show)
    ax = fig.add_subplot()
    if band is not None:
        ax.axhspan(band[0], band[1], color="tab:green", alpha=0.25, label=band_label)
        ax.axhline(0.5 * (band[0] + band[1]), color="tab:green", lw=0.8)
    for label, y in curves.items():
        ax.plot(xs, np.asarray(y, dtype=float), lw=1.2, marker=marker, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="best")
    if show:
        show_figure(fig)
    return fig
