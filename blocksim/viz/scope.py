"""Scope and XY plots of recorded signals.

Every function here is pure: it takes arrays and returns a :class:`matplotlib.figure.Figure`
without touching global state (unless ``show=True`` asks for a pyplot-managed figure). matplotlib
is imported inside the functions so that importing this module is cheap.

Shapes: ``t`` is ``(N,)`` [s]; a signal is ``(N,)`` when scalar, ``(N, *shape)`` otherwise, as
returned by ``result["block.port"]``. A vector or matrix signal is drawn as one line per element,
labelled ``"q[0]"``, ``"q[1]"``, ... (``"T[0,1]"`` for a matrix).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: default width of a scope figure [inch]
SCOPE_WIDTH = 8.0
#: height of one scope axes [inch], and the cap on the figure height
SCOPE_AXES_HEIGHT = 2.5
SCOPE_MAX_HEIGHT = 14.0
#: highest resolution a figure is saved at [dots per inch]
MAX_DPI = 1200.0
#: most pixels of a saved figure, width x height x dpi**2 [inch**2 / inch**2]: 40 million
#: (160 MB of RGBA while it is drawn)
MAX_PIXELS = 40_000_000


def check_raster(figsize: Sequence[float], dpi: float, what: str = "figure") -> None:
    """Refuse to draw a figure of ``figsize`` [inch] at ``dpi`` above :data:`MAX_DPI` or
    :data:`MAX_PIXELS`, before any memory is allocated for it.

    Raises
    ------
    ValueError
        Naming the resolution or the pixel count, the limit and how to raise it (set the
        constant in Python: ``blocksim.viz.scope.MAX_DPI`` / ``MAX_PIXELS``).
    """
    w, h = (float(v) for v in figsize)
    d = float(dpi)
    if not (0 < d <= MAX_DPI):
        raise ValueError(f"{what}: dpi = {d:g} is out of range; the resolution may be at most "
                         f"{MAX_DPI:g} dots per inch (blocksim.viz.scope.MAX_DPI)")
    pixels = w * h * d * d
    if not pixels <= MAX_PIXELS:
        raise ValueError(f"{what}: {w:g} x {h:g} inch at {d:g} dpi is {pixels:.3g} pixels; a "
                         f"figure may have at most {MAX_PIXELS:.3g} (blocksim.viz.scope."
                         f"MAX_PIXELS): lower dpi or figsize")


#: most elements of one signal given a legend (more: the axis label gives the count)
LEGEND_MAX = 24


def element_labels(label: str, shape: tuple[int, ...]) -> list[str]:
    """Return the label of each element of a signal of the given (per-sample) shape.

    ``()`` gives ``[label]``; ``(3,)`` gives ``["q[0]", "q[1]", "q[2]"]``; ``(2, 2)`` gives
    ``["T[0,0]", "T[0,1]", "T[1,0]", "T[1,1]"]`` (C order, as ``reshape(N, -1)`` flattens).
    """
    if shape == ():
        return [label]
    return [f"{label}[{','.join(str(i) for i in idx)}]" for idx in np.ndindex(*shape)]


def new_figure(figsize: tuple[float, float] | None = None, show: bool = False) -> Figure:
    """Create an empty figure with a constrained layout.

    With ``show=False`` the figure is a bare :class:`matplotlib.figure.Figure` (rendered by Agg,
    not registered with pyplot, garbage-collected with its last reference). With ``show=True``
    it is created by :func:`matplotlib.pyplot.figure` so that the GUI backend can display it.
    """
    if show:
        import matplotlib.pyplot as plt

        return plt.figure(figsize=figsize, layout="constrained")
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained")


def show_figure(fig: Figure) -> None:
    """Display ``fig`` without blocking (a no-op under a non-interactive backend such as Agg)."""
    import matplotlib.pyplot as plt

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*non-interactive.*", category=UserWarning)
        plt.show(block=False)
        if fig.canvas is not None:
            fig.canvas.draw_idle()


def save_figure(fig: Figure, file: str | os.PathLike[str], dpi: float | None = None) -> Path:
    """Save ``fig`` to ``file`` (format from the suffix: .png, .pdf, .svg, ...); return the path.

    The parent directory must exist (``FileNotFoundError`` otherwise); a figure over
    :data:`MAX_DPI` or :data:`MAX_PIXELS` is refused before it is drawn (``ValueError``,
    :func:`check_raster`).
    """
    path = Path(file)
    check_raster(fig.get_size_inches(), dpi if dpi is not None else fig.dpi, path.name)
    fig.savefig(path, dpi=dpi if dpi is not None else "figure")
    return path


def _as_signal(t: np.ndarray, values: Any, what: str) -> np.ndarray:
    """Check that ``values`` has one sample per time point; return it as ``(N, n)`` floats."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 0 or arr.shape[0] != t.shape[0]:
        raise ValueError(f"{what}: expected {t.shape[0]} samples (one per time point, shape "
                         f"(N,) or (N, ...)), found shape {arr.shape}")
    return arr.reshape(arr.shape[0], int(np.prod(arr.shape[1:])))


def _per_signal(value: Any, n: int, default: Any, what: str) -> list[Any]:
    """Expand ``value`` (None, a single value or a sequence of n values) into a list of n."""
    if value is None:
        return [default(i) if callable(default) else default for i in range(n)]
    if isinstance(value, (str, bool)) or not isinstance(value, Sequence):
        return [value] * n
    if len(value) != n:
        raise ValueError(f"{what}: expected {n} values (one per signal), found {len(value)}")
    return list(value)


def plot_scope(t: Any, signals: Sequence[Any], labels: Sequence[str] | None = None,
               units: Sequence[str] | str | None = None, *, title: str | None = None,
               grid: bool = True, stairs: bool | Sequence[bool] = False,
               figsize: tuple[float, float] | None = None, show: bool = False,
               fig: Figure | None = None,
               elements: Sequence[Sequence[str] | None] | None = None) -> Figure:
    """Plot signals against time, one axes per signal, stacked with a shared time axis.

    Parameters
    ----------
    t : array_like, shape (N,)
        Times [s].
    signals : sequence of array_like
        Each of shape ``(N,)`` (scalar signal, one line) or ``(N, *shape)`` (one line per
        element, with a legend).
    labels : sequence of str, optional
        Name of each signal, used as the y-axis label and as the stem of the element labels
        (``"q"`` -> ``"q[0]"``). Default ``"u0"``, ``"u1"``, ... (``"u"`` for a single signal).
    units : str or sequence of str, optional
        Unit of each signal (shown as ``"q [rad]"``); one string applies to every signal.
    title : str, optional
        Title above the top axes.
    grid : bool
        Draw grid lines.
    stairs : bool or sequence of bool
        Draw the signal (each signal, if a sequence) as a zero-order-hold staircase, as suits
        discrete-time signals; otherwise points are joined by straight lines.
    figsize : (float, float), optional
        Figure size [inch]; default 8 wide and 2.5 per axes (at most 14 high).
    show : bool
        Create the figure through pyplot (for display); see :func:`new_figure`.
    fig : Figure, optional
        An empty figure to draw into instead of creating one.
    elements : sequence of (sequence of str or None), optional
        Per signal, the names of its elements in the legend (``["x", "y", "z"]`` for a
        position), instead of ``label[0]``, ``label[1]``, ...; None keeps the indices.

    Returns
    -------
    matplotlib.figure.Figure
        ``fig.axes[i]`` plots ``signals[i]``; the bottom axes carries the time label. A legend
        (a signal of several elements) stands outside the axes, on the right, so it never
        covers the curves; a signal of more than :data:`LEGEND_MAX` elements gets none (its
        axis label gives the count).
    """
    tt = np.asarray(t, dtype=float).reshape(-1)
    n = len(signals)
    if n == 0:
        raise ValueError("plot_scope: no signals to plot")
    if labels is None:
        labels = ["u"] if n == 1 else [f"u{i}" for i in range(n)]
    labels = _per_signal(labels, n, "", "plot_scope labels")
    unit_list = _per_signal(units, n, "", "plot_scope units")
    stair_list = _per_signal(stairs, n, False, "plot_scope stairs")
    element_list = list(elements) if elements is not None else [None] * n
    if len(element_list) != n:
        raise ValueError(f"plot_scope elements: one entry per signal ({n}), got "
                         f"{len(element_list)}")
    data = [_as_signal(tt, s, f"plot_scope signal {labels[i]!r}") for i, s in enumerate(signals)]
    shapes = [np.shape(s)[1:] for s in signals]

    if fig is None:
        if figsize is None:
            figsize = (SCOPE_WIDTH, min(1.5 + SCOPE_AXES_HEIGHT * n, SCOPE_MAX_HEIGHT))
        fig = new_figure(figsize, show=show)
    axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]

    for ax, y, shape, label, unit, stair, given in zip(axes, data, shapes, labels, unit_list,
                                                         stair_list, element_list, strict=True):
        names = element_labels(label, tuple(shape))
        if given is not None:
            if len(given) != len(names):
                raise ValueError(f"plot_scope elements of {label!r}: {len(given)} names for "
                                 f"{len(names)} elements")
            names = [str(g) for g in given]
        for j, name in enumerate(names):
            if stair:
                ax.step(tt, y[:, j], where="post", label=name)
            else:
                ax.plot(tt, y[:, j], label=name)
        many = f" ({len(names)} elements)" if len(names) > LEGEND_MAX else ""
        ax.set_ylabel((f"{label} [{unit}]" if unit else label) + many)
        if 1 < len(names) <= LEGEND_MAX:
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
                      ncol=1 + (len(names) - 1) // 12, borderaxespad=0.0)
        if grid:
            ax.grid(True, alpha=0.4)
    if tt.size > 1 and tt[-1] > tt[0]:
        axes[-1].set_xlim(tt[0], tt[-1])
    axes[-1].set_xlabel("t [s]")
    if title:
        axes[0].set_title(title)
    return fig


def plot_xy(x: Any, y: Any, *, xlabel: str = "x", ylabel: str = "y", title: str | None = None,
            grid: bool = True, equal: bool = False, figsize: tuple[float, float] | None = None,
            show: bool = False, fig: Figure | None = None, marks: Any = None,
            line: Any = None) -> Figure:
    """Plot ``y`` against ``x`` (an XY graph): one line through the points in time order.

    Parameters
    ----------
    x, y : array_like, shape (N,)
        The two coordinates, one sample per recorded time point.
    xlabel, ylabel : str
        Axis labels (include the unit, e.g. ``"x [m]"``).
    title : str, optional
        Axes title.
    grid : bool
        Draw grid lines.
    equal : bool
        Use the same scale on both axes (for paths in the plane).
    figsize : (float, float), optional
        Figure size [inch]; default (6, 5).
    show : bool
        Create the figure through pyplot (for display).
    fig : Figure, optional
        An empty figure to draw into instead of creating one.
    marks : array_like, shape (K, 2) or (K, 3), optional
        Fixed points to mark (a goal, waypoints) in the units of x and y; a third column is
        a heading [rad], drawn as an arrow.
    line : (a, b, c), optional
        A reference line ``a x + b y + c = 0`` drawn across the axes (dashed).

    Returns
    -------
    matplotlib.figure.Figure
        With one axes holding the path (its start marked ``o``), the marks (``x``) and the
        line.
    """
    xx = np.asarray(x, dtype=float).reshape(-1)
    yy = np.asarray(y, dtype=float).reshape(-1)
    if xx.shape != yy.shape:
        raise ValueError(f"plot_xy: x and y must have the same number of samples, found "
                         f"{xx.size} and {yy.size}")
    if fig is None:
        fig = new_figure(figsize or (6.0, 5.0), show=show)
    ax = fig.subplots()
    ax.plot(xx, yy, label=f"{ylabel} vs {xlabel}")
    if xx.size:
        ax.plot(xx[:1], yy[:1], "o", color="C0", label="start")
    if marks is not None:
        m = np.asarray(marks, dtype=float).reshape(-1, np.shape(marks)[-1])
        ax.plot(m[:, 0], m[:, 1], "x", color="C3", markersize=10, mew=2, label="goal")
        if m.shape[1] >= 3:
            span = max(np.ptp(np.r_[xx, m[:, 0]]), np.ptp(np.r_[yy, m[:, 1]]), 1e-9)
            for px, py, th in m[:, :3]:
                tip = (px + 0.1 * span * np.cos(th), py + 0.1 * span * np.sin(th))
                ax.annotate("", xy=tip, xytext=(px, py), annotation_clip=False,
                            arrowprops={"arrowstyle": "-|>", "color": "C3", "lw": 1.5})
                ax.update_datalim([tip])
            ax.autoscale_view()
    if line is not None:
        a, b, c = (float(v) for v in line)
        lo, hi = (np.min(xx), np.max(xx)) if xx.size else (0.0, 1.0)
        ylo, yhi = (np.min(yy), np.max(yy)) if yy.size else (0.0, 1.0)
        if abs(b) > abs(a):  # y = -(a x + c) / b
            gx = np.array([lo, hi])
            ax.plot(gx, -(a * gx + c) / b, "--", color="0.4", label="line")
        elif a != 0:  # x = -(b y + c) / a
            gy = np.array([ylo, yhi])
            ax.plot(-(b * gy + c) / a, gy, "--", color="0.4", label="line")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if equal:
        ax.set_aspect("equal", adjustable="datalim")
    if grid:
        ax.grid(True, alpha=0.4)
    if title:
        ax.set_title(title)
    return fig
