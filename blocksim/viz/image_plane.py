"""Feature points moving in a camera's image plane, animated over a recorded run.

After MVTB's ``IMAGEPLANE`` block / ``CentralCamera.plot``: the axes are the image, ``u``
[pixel] to the right from 0 to the width, ``v`` [pixel] *down* from 0 to the height (the
image convention of :mod:`blocksim.robotics.camera.central`), with equal scales. Each frame
shows the current points as dots, optionally the desired points ``uv_star`` as crosses and
the path of each point so far (its trail).

Points outside the image: a point is drawn only when it is *visible*, ``0 <= u < width`` and
``0 <= v < height`` (as ``CentralCamera.visible``), and finite; the others are left out of the
frame (their entries in the ``"points"`` line are NaN) and the title counts them
(``"2 points outside the image"``). Trails are drawn whole and clipped at the image border.

Image points come as (2, N) arrays, one column ``(u, v)`` per point, or flattened (2N,) as
``[u0, v0, u1, v1, ...]`` (the ``flat=True`` output of the Camera block); recorded, they are
(T, 2, N) or (T, 2N).

Artists carry a ``gid``: ``"points"``, ``"targets"``, ``"trail"`` (one line per point).
:func:`animate_image_plane` is the function API;
:class:`~blocksim.blocks.sinks.animations.ImagePlane` the post-run sink block.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from blocksim._messages import plain
from blocksim.viz.animate import (
    DEFAULT_DPI,
    DEFAULT_FPS,
    animation_figure,
    check_animation_file,
    check_figsize,
    check_fps,
    check_frames,
    finish,
    format_time,
    frame_times,
    make_animation,
    resample,
    samples_before,
    trail_points,
)

if TYPE_CHECKING:
    from matplotlib.animation import FuncAnimation
    from matplotlib.artist import Artist


# ---------------------------------------------------------------------------- shapes
def check_resolution(resolution: Any) -> tuple[int, int]:
    """``(width, height)`` [pixels] as two positive ints, or ValueError."""
    try:
        vals = [float(v) for v in np.asarray(resolution, dtype=float).reshape(-1)]
    except (TypeError, ValueError):
        vals = []
    if len(vals) != 2 or not all(math.isfinite(v) and v > 0 and v == int(v) for v in vals):
        raise ValueError(f"resolution must be two positive integers (width, height) "
                         f"[pixels], got {plain(resolution)}")
    return int(vals[0]), int(vals[1])


def uv_columns(uv: Any, what: str = "uv") -> np.ndarray:
    """One set of image points as (2, N) columns, from (2, N), (2,) or flat (2N,)
    ``[u0, v0, u1, v1, ...]``."""
    a = np.asarray(uv, dtype=float)
    if a.ndim == 2 and a.shape[0] == 2:
        return a
    if a.ndim == 1 and a.size % 2 == 0 and a.size > 0:
        return a.reshape(-1, 2).T
    raise ValueError(f"{what} must have shape (2, N) or (2N,) (flat [u0, v0, u1, v1, ...]), "
                     f"found {a.shape}")


def uv_series(uv: Any, nt: int, what: str = "uv") -> np.ndarray:
    """Recorded image points as (T, 2, N), from (T, 2, N) or flat (T, 2N)."""
    a = np.asarray(uv, dtype=float)
    if a.ndim == 3 and a.shape[0] == nt and a.shape[1] == 2:
        return a
    if a.ndim == 2 and a.shape[0] == nt and a.shape[1] % 2 == 0 and a.shape[1] > 0:
        return a.reshape(nt, -1, 2).transpose(0, 2, 1)
    raise ValueError(f"{what} must have shape (T, 2, N) or (T, 2N) with T = {nt} recorded "
                     f"times, found {a.shape}")


def visible(uv: np.ndarray, resolution: tuple[int, int]) -> np.ndarray:
    """Which columns of ``uv`` (2, N) are in the image: finite, ``0 <= u < width`` and
    ``0 <= v < height``; bool (N,)."""
    u, v = uv[0], uv[1]
    with np.errstate(invalid="ignore"):
        return (np.isfinite(u) & np.isfinite(v) & (u >= 0) & (u < resolution[0])
                & (v >= 0) & (v < resolution[1]))


# ---------------------------------------------------------------------------- options
@dataclass(frozen=True, eq=False)
class ImageStyle:
    """Validated drawing options of the image plane (see :func:`animate_image_plane`)."""

    resolution: tuple[int, int] = (1024, 1024)
    uv_star: np.ndarray | None = None
    trail: bool = True
    grid: bool = True
    title: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "resolution", check_resolution(self.resolution))
        if self.uv_star is not None:
            star = uv_columns(self.uv_star, "uv_star")
            if not np.all(np.isfinite(star)):
                raise ValueError("uv_star must be finite [pixel]")
            object.__setattr__(self, "uv_star", star)
        for name in ("trail", "grid"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {plain(getattr(self, name))}")
        if self.title is not None and not isinstance(self.title, str):
            raise ValueError(f"title must be a str or None, got {plain(self.title)}")


# ---------------------------------------------------------------------------- the artists
class ImagePlanePlotter:
    """The artists of the image plane on a 2-D axes; :meth:`draw` moves the points.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes; set to the image ``[0, width] x [height, 0]`` (v down), equal scales.
    npoints : int
        Number of feature points N.
    style : ImageStyle, optional
        Drawing options.

    Attributes
    ----------
    points : Line2D
        The visible points (NaN for the others), data shape (N,).
    targets : Line2D or None
        ``uv_star`` as crosses.
    trails : list of Line2D
        One path per point (empty when ``trail`` is off).
    """

    def __init__(self, ax: Any, npoints: int, style: ImageStyle | None = None):
        self.ax = ax
        self.style = style = style or ImageStyle()
        self.n = int(npoints)
        w, h = style.resolution
        if style.uv_star is not None and style.uv_star.shape[1] != self.n:
            raise ValueError(f"uv_star has {style.uv_star.shape[1]} points but the image has "
                             f"{self.n}; give one target per feature point")
        ax.set_xlim(0, w)
        ax.set_ylim(h, 0)  # v grows downwards
        ax.set_aspect("equal")
        ax.set_xlabel("u [pixel]")
        ax.set_ylabel("v [pixel]")
        if style.grid:
            ax.grid(True, alpha=0.4)
        self.trails = ([ax.plot([], [], linewidth=1, color="tab:blue", alpha=0.6,
                                gid="trail")[0] for _ in range(self.n)]
                       if style.trail else [])
        self.targets = None
        if style.uv_star is not None:
            s = style.uv_star
            self.targets = ax.plot(s[0], s[1], linestyle="none", marker="x", markersize=9,
                                   markeredgewidth=2, color="tab:red", gid="targets")[0]
        self.points = ax.plot(np.full(self.n, np.nan), np.full(self.n, np.nan),
                              linestyle="none", marker="o", markersize=7, color="tab:blue",
                              markeredgecolor="k", gid="points")[0]
        self.title = ax.set_title("")

    def draw(self, uv: Any, t: float | None = None, trail: np.ndarray | None = None,
             note: str | None = None) -> list[Artist]:
        """Show the points ``uv`` (2, N) [pixel] at time ``t`` [s]; ``trail`` (m, 2, N) is
        each point's path so far. Returns the changed artists."""
        cols = uv_columns(uv)
        if cols.shape[1] != self.n:
            raise ValueError(f"uv has {cols.shape[1]} points, expected {self.n}")
        seen = visible(cols, self.style.resolution)
        self.points.set_data(np.where(seen, cols[0], np.nan), np.where(seen, cols[1], np.nan))
        changed: list[Artist] = [self.points, self.title]
        if self.trails and trail is not None:
            tr = np.asarray(trail, dtype=float)
            for i, line in enumerate(self.trails):
                line.set_data(tr[:, 0, i], tr[:, 1, i])
            changed.extend(self.trails)
        hidden = self.n - int(seen.sum())
        outside = (f"{hidden} point{'s' if hidden != 1 else ''} outside the image"
                   if hidden else None)
        parts = [p for p in (self.style.title, note, format_time(t) if t is not None else None,
                             outside) if p]
        self.title.set_text("   ".join(parts))
        return changed


# ---------------------------------------------------------------------------- function API
def animate_image_plane(t: Any, uv: Any, resolution: Sequence[int] = (1024, 1024),
                        filename: str | os.PathLike[str] | None = None, *,
                        fps: float = DEFAULT_FPS, frames: int | None = None,
                        uv_star: Any = None, trail: bool = True, grid: bool = True,
                        title: str | None = None, note: str | None = None,
                        figsize: Sequence[float] | None = None, dpi: float | None = None,
                        show: bool = False) -> FuncAnimation | Path:
    """Animate feature points moving in the image plane.

    Frames are at the uniform times of :func:`~blocksim.viz.animate.frame_times`, the points
    linearly interpolated in time between the recorded samples.

    Parameters
    ----------
    t : array_like, shape (T,)
        Recorded times [s], non-decreasing.
    uv : array_like, shape (T, 2, N) or (T, 2N)
        Image coordinates [pixel] of N points at those times (flat rows ``[u0, v0, u1, ...]``).
    resolution : (int, int)
        Image size (width, height) [pixels]: the axes limits.
    filename : str or os.PathLike, optional
        Write the animation there (``.gif`` or ``.mp4``) and return the path; otherwise
        return the animation.
    fps : float
        Frames per second (of simulated time and of playback). Default 25.
    frames : int, optional
        Number of frames instead of one per ``1 / fps`` s.
    uv_star : array_like (2, N) or (2N,), optional
        Desired image points [pixel], drawn as crosses.
    trail : bool
        Draw each point's path so far (through the recorded samples), clipped at the border.
    grid : bool
        Draw grid lines.
    title, note : str, optional
        Text before the time stamp in each frame's title.
    figsize : (float, float), optional
        Figure size [inch]; default 5 inches wide, the height from the image aspect ratio.
    dpi : float, optional
        Resolution of the file [dots per inch], default 80.
    show : bool
        Create the figure through pyplot and display the animation (non-blocking).

    Returns
    -------
    matplotlib.animation.FuncAnimation or pathlib.Path
        The animation (with ``times``, ``fps`` and ``show_frame(k)``), or the written file.
    """
    style = ImageStyle(resolution=resolution, uv_star=uv_star, trail=trail, grid=grid,
                       title=title)
    if filename is not None:
        check_animation_file(filename)  # before any drawing
    anim = build_image_plane_animation(t, uv, style, fps=fps, frames=frames, note=note,
                                       figsize=figsize, show=show)
    return finish(anim.figure, anim, filename, dpi if dpi is not None else DEFAULT_DPI, show)


def build_image_plane_animation(t: Any, uv: Any, style: ImageStyle | None = None, *,
                                fps: float = DEFAULT_FPS, frames: int | None = None,
                                note: str | None = None, figsize: Sequence[float] | None = None,
                                show: bool = False) -> FuncAnimation:
    """The animation of :func:`animate_image_plane` with validated ``style``, neither written
    nor shown; its figure shows the last frame. ``show`` makes the figure through pyplot."""
    style = style or ImageStyle()
    tt = np.asarray(t, dtype=float).reshape(-1)
    series = uv_series(uv, tt.size)
    rate = check_fps(fps)
    times = frame_times(tt, rate, check_frames(frames))
    uvf = resample(tt, series, times)
    before = samples_before(tt, times)
    size = default_figsize(style.resolution) if figsize is None else check_figsize(figsize)
    fig = animation_figure(size, show=show)
    ax = fig.add_axes((0.16, 0.1, 0.8, 0.8))
    plotter = ImagePlanePlotter(ax, series.shape[2], style)

    def draw(k: int) -> list[Artist]:
        path = trail_points(series, uvf[k], int(before[k])) if style.trail else None
        return plotter.draw(uvf[k], float(times[k]), path, note)

    draw(len(times) - 1)
    return make_animation(fig, draw, times, rate)


def default_figsize(resolution: tuple[int, int]) -> tuple[float, float]:
    """5 inches wide, the height following the image's aspect ratio (plus room for labels)."""
    w, h = resolution
    return (5.0, max(2.0, min(10.0, 5.0 * h / w)) + 0.6)
