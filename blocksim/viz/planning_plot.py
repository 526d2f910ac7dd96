"""Plots of occupancy grids, planners and paths (RTB's ``Navigation.plot`` and friends).

:func:`plot_planner` draws any planner of :mod:`blocksim.robotics.planning` on its map: the
distance map of :class:`DXform` / :class:`Dstar` as intensity, the roadmap of :class:`PRM`, the
arcs of a :class:`Lattice`, the tree of an :class:`RRT`, the m-line and hit points of
:class:`Bug2`, and a path (N, 2) or (N, 3) on top. :func:`plot_drive` is the figure the
planning blocks put in ``result.figures`` after a run: the map, the planned path, the path the
vehicle drove and the goal. Functions return a
:class:`matplotlib.figure.Figure` made without pyplot (headless) unless ``show=True``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..robotics.planning import (
    PRM,
    RRT,
    Bug2,
    Dstar,
    DXform,
    Lattice,
    OccupancyGrid,
)
from ..robotics.planning.occgrid import as_grid
from ..robotics.planning.rrt import drive

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_drive", "plot_map", "plot_path", "plot_planner"]


def _axes(ax: Axes | None, show: bool, figsize=(7.0, 5.5)) -> tuple[Figure, Axes]:
    if ax is not None:
        return ax.figure, ax
    if show:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=figsize)
    else:
        from matplotlib.figure import Figure

        fig = Figure(figsize=figsize)
    return fig, fig.add_subplot(1, 1, 1)


def plot_map(
    occgrid: Any,
    ax: Axes | None = None,
    distance: np.ndarray | None = None,
    inflated: OccupancyGrid | None = None,
    show: bool = False,
) -> Figure:
    """Draw an occupancy grid: obstacles dark red, free space white, or ``distance`` (ny, nx)
    as grey intensity (NaN/inf drawn as obstacles); ``inflated`` obstacles in light red."""
    og = as_grid(occgrid, "plot_map")
    fig, ax = _axes(ax, show)
    ext = og.extent
    rgb = np.ones((*og.shape, 3))
    if distance is not None:
        d = np.asarray(distance, dtype=float)
        if d.shape != og.shape:
            raise ValueError(f"plot_map: distance must have shape {og.shape}, got {d.shape}")
        fin = np.isfinite(d)
        top = d[fin].max() if fin.any() else 1.0
        g = np.where(fin, 0.25 + 0.75 * d / (top or 1.0), 1.0)
        rgb = np.repeat(g[..., None], 3, axis=2)
    if inflated is not None:
        rgb[inflated.occ & ~og.occ] = (1.0, 0.75, 0.75)
    rgb[og.occ] = (0.55, 0.0, 0.0)
    ax.imshow(rgb, origin="lower", extent=ext, interpolation="nearest")
    ax.set_xlim(ext[0], ext[1])
    ax.set_ylim(ext[2], ext[3])
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    return fig


def plot_path(
    path: Any, ax: Axes, color: str = "tab:green", label: str | None = "path", arrows: int = 0
) -> None:
    """Draw an (N, 2) or (N, 3) path with start (circle) and goal (star); ``arrows`` > 0 draws
    that many heading arrows for pose paths."""
    p = np.asarray(path, dtype=float)
    if p.ndim != 2 or p.shape[1] not in (2, 3) or len(p) == 0:
        raise ValueError(f"plot_path: path must be (N, 2) or (N, 3), got shape {p.shape}")
    ax.plot(p[:, 0], p[:, 1], "-", color=color, lw=2, label=label)
    ax.plot(p[0, 0], p[0, 1], "o", color=color, ms=8, mfc="white")
    ax.plot(p[-1, 0], p[-1, 1], "*", color=color, ms=14)
    if arrows and p.shape[1] == 3:
        idx = np.linspace(0, len(p) - 1, min(arrows, len(p))).astype(int)
        ax.quiver(
            p[idx, 0],
            p[idx, 1],
            np.cos(p[idx, 2]),
            np.sin(p[idx, 2]),
            color=color,
            angles="xy",
            scale_units="xy",
            scale=3.0,
            width=0.004,
        )


def _lattice(lp: Lattice, ax: Axes) -> None:
    segs = [lp.edge_poses(u, v, 8)[:, :2] for u, v in lp.graph.edges]
    if segs:
        from matplotlib.collections import LineCollection

        ax.add_collection(LineCollection(segs, colors="0.6", linewidths=0.4))
    nodes = lp.poses(list(lp.graph.nodes))
    ax.plot(nodes[:, 0], nodes[:, 1], ".", color="tab:blue", ms=2)
    if lp.vpath:
        d = lp.densify(n=12)
        ax.plot(d[:, 0], d[:, 1], "-", color="tab:red", lw=2.5, label="lattice path")


def _rrt(rrt: RRT, ax: Axes) -> None:
    from matplotlib.collections import LineCollection

    segs = []
    nsteps = getattr(rrt, "_nsteps", 1)
    for k in range(1, len(rrt.vertices)):
        v, g = rrt.edges[k]
        segs.append(drive(rrt.vertices[rrt.parent[k]], v, g, rrt.L, rrt.dt, nsteps)[:, :2])
    ax.add_collection(LineCollection(segs, colors="0.55", linewidths=0.5))
    ax.plot(rrt.vertices[:, 0], rrt.vertices[:, 1], ".", color="tab:blue", ms=2)
    ax.plot(*rrt.vertices[0, :2], "s", color="k", ms=7, label="root (goal)")


def _prm(prm: PRM, ax: Axes) -> None:
    from matplotlib.collections import LineCollection

    v = prm.vertices
    segs = [(v[a], v[b]) for a, b in prm.graph.edges]
    ax.add_collection(LineCollection(segs, colors="0.7", linewidths=0.3))
    ax.plot(v[:, 0], v[:, 1], ".", color="tab:blue", ms=3)


def _bug2(bug: Bug2, ax: Axes) -> None:
    a, b, c = bug.mline
    x0, x1, y0, y1 = bug.occgrid.extent
    cs = bug.occgrid.cellsize
    if abs(b) > abs(a):
        xs = np.array([x0, x1])
        ys = bug.occgrid.origin[1] - (a * (xs - bug.occgrid.origin[0]) / cs + c) / b * cs
    else:
        ys = np.array([y0, y1])
        xs = bug.occgrid.origin[0] - (b * (ys - bug.occgrid.origin[1]) / cs + c) / a * cs
    ax.plot(xs, ys, "k--", lw=1, label="m-line")
    if bug.hits:
        h = np.asarray(bug.hits)
        ax.plot(h[:, 0], h[:, 1], "x", color="tab:orange", ms=10, mew=2, label="hit points")


def plot_planner(
    planner: Any,
    path: Any = None,
    ax: Axes | None = None,
    show: bool = False,
    filename: str | Path | None = None,
    title: str | None = None,
) -> Figure:
    """Draw a planner on its map (see the module docstring) and an optional ``path``.

    Parameters
    ----------
    planner : DXform, Dstar, PRM, Lattice, RRT or Bug2
    path : (N, 2) or (N, 3) array, optional
    ax : matplotlib Axes, optional
        Draw into these axes instead of a new figure.
    filename : str or Path, optional
        Save the figure there (PNG, PDF, ... by suffix).
    """
    fig, ax = _axes(ax, show)
    occ = getattr(planner, "occgrid", None)
    orig = getattr(planner, "occgrid_orig", occ)
    if isinstance(planner, DXform):
        dist = planner.distancemap
        plot_map(orig, ax, distance=dist, inflated=occ)
    elif isinstance(planner, Dstar):
        plot_map(orig, ax, distance=planner.distancemap_get(), inflated=occ)
    elif isinstance(planner, (PRM, Bug2)):
        plot_map(orig, ax, inflated=occ)
    elif isinstance(planner, (Lattice, RRT)):
        if occ is not None:
            plot_map(occ, ax)
        else:
            ax.set_aspect("equal")
            ax.set_xlabel("x [m]")
            ax.set_ylabel("y [m]")
    else:
        raise TypeError(
            f"plot_planner: expected a planner from blocksim.robotics.planning, got "
            f"{type(planner).__name__}"
        )
    if isinstance(planner, PRM):
        _prm(planner, ax)
    elif isinstance(planner, Lattice):
        _lattice(planner, ax)
    elif isinstance(planner, RRT):
        _rrt(planner, ax)
    elif isinstance(planner, Bug2):
        _bug2(planner, ax)
    if path is not None:
        plot_path(path, ax, arrows=12)
    if isinstance(planner, (Lattice, RRT)) and occ is None:
        ax.autoscale_view()
    ax.set_title(title or type(planner).__name__)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", fontsize=8)
    if filename is not None:
        fig.savefig(Path(filename), dpi=100)
    return fig


def plot_drive(
    occgrid: Any = None,
    planned: Any = None,
    driven: Any = None,
    goal: Any = None,
    inflated: OccupancyGrid | None = None,
    distance: np.ndarray | None = None,
    obstacles: Any = (),
    title: str | None = None,
    figsize: tuple[float, float] = (7.0, 5.5),
    show: bool = False,
) -> Figure:
    """The figure of a planning diagram's run: map, planned path, driven path and goal.

    Parameters
    ----------
    occgrid : OccupancyGrid or array_like, optional
        The map (obstacles dark red); without one, only the paths are drawn.
    planned : (N, 2) or (N, 3) array or list of them, optional
        Planned path(s) [m], dashed (a list: the plans in turn, the last one darkest).
    driven : (M, 2) or (M, 3) array, optional
        The vehicle's recorded path [m], a solid line with its start (circle).
    goal : (2,) or (3,) array, optional
        Goal point or pose [m], a star (with a heading arrow for a pose).
    inflated : OccupancyGrid, optional
        The inflated map (light red where inflation added obstacles).
    distance : ndarray (ny, nx), optional
        Distance field drawn as grey intensity.
    obstacles : sequence of (t, xmin, ymin, xmax, ymax)
        Obstacles that appeared during the run [s, m], outlined and labelled with their time.
    title : str, optional
    figsize : (float, float)
        Figure size [inch].
    show : bool
        Make the figure through pyplot (to display it).
    """
    fig, ax = _axes(None, show, figsize)
    if occgrid is not None:
        plot_map(occgrid, ax, distance=distance, inflated=inflated)
    else:
        ax.set_aspect("equal")
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m]")
        ax.grid(True, alpha=0.3)
    from matplotlib.patches import Rectangle

    for k, row in enumerate(np.asarray(obstacles, dtype=float).reshape(-1, 5)):
        t, x1, y1, x2, y2 = row
        ax.add_patch(Rectangle((min(x1, x2), min(y1, y2)), abs(x2 - x1), abs(y2 - y1),
                               fill=False, hatch="//", ec="tab:orange", lw=1.5,
                               label="obstacle (appears)" if k == 0 else None))
        ax.annotate(f"t = {t:g} s", (max(x1, x2), max(y1, y2)), fontsize=8,
                    color="tab:orange", xytext=(2, 2), textcoords="offset points")
    plans = planned
    if plans is not None and not (isinstance(plans, (list, tuple)) and len(plans)
                                  and np.ndim(plans[0]) == 2):
        plans = [plans]
    for k, p in enumerate(plans or []):
        p = np.asarray(p, dtype=float)
        if p.ndim != 2 or len(p) == 0:
            continue
        last = k == len(plans) - 1
        ax.plot(p[:, 0], p[:, 1], "--", color="tab:blue", lw=1.8 if last else 1.0,
                alpha=1.0 if last else 0.5, zorder=4,
                label=("planned path" if len(plans) == 1 else f"plan {k + 1}"))
    if driven is not None:
        d = np.asarray(driven, dtype=float)
        if d.ndim == 2 and len(d):
            ax.plot(d[:, 0], d[:, 1], "-", color="tab:green", lw=2, label="driven path")
            ax.plot(d[0, 0], d[0, 1], "o", color="tab:green", ms=8, mfc="white",
                    label="start")
            ax.plot(d[-1, 0], d[-1, 1], "s", color="tab:green", ms=6, label="end")
    if goal is not None:
        g = np.asarray(goal, dtype=float).reshape(-1)
        ax.plot(g[0], g[1], "*", color="gold", mec="k", ms=16, label="goal", zorder=5)
        if g.size >= 3:
            ax.annotate("", xy=(g[0] + 0.6 * np.cos(g[2]), g[1] + 0.6 * np.sin(g[2])),
                        xytext=(g[0], g[1]), arrowprops={"arrowstyle": "->", "color": "k"})
    if occgrid is None:
        ax.autoscale_view()
    if title:
        ax.set_title(title)
    ax.legend(loc="best", fontsize=8, framealpha=0.8)
    return fig
