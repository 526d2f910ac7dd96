"""Animation of a planar vehicle's recorded run: the vehicle (car outline or RTB's narrow
triangle, point first), its trail, landmarks, sensor rays, covariance ellipses and particles.

:func:`animate_vehicle` is the function API (writes ``.gif``/``.mp4`` headless, see
:mod:`blocksim.viz.animate`); :func:`build_vehicle_animation` returns the animation;
:class:`~blocksim.blocks.vehicle.VehiclePlot` is the sink block that calls it after a run.
Frames are at ``t[0] + k / fps``; poses are interpolated linearly between recorded samples
(discrete signals are held: a discrete run's samples are its hits), the other inputs are taken
from the last recorded sample at or before each frame.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from blocksim.viz.animate import (
    DEFAULT_DPI,
    DEFAULT_FPS,
    animation_figure,
    check_figsize,
    check_fps,
    check_frames,
    finish,
    format_time,
    frame_times,
    make_animation,
    resample,
    samples_before,
)

if TYPE_CHECKING:
    from matplotlib.animation import FuncAnimation

__all__ = ["VehicleStyle", "animate_vehicle", "build_vehicle_animation", "ellipse_points",
           "vehicle_outline"]  # fmt: skip

SHAPES = ("car", "triangle")


@dataclass(frozen=True)
class VehicleStyle:
    """How a vehicle is drawn.

    Attributes
    ----------
    shape : {"car", "triangle"}
        A car outline (body and front marker) or RTB's narrow triangle, point first.
    size : float
        Length of the drawn vehicle [m].
    color : str
        Colour of the vehicle and its trail.
    trail : bool
        Draw the path travelled so far.
    workspace : (4,) tuple or None
        Axis limits ``(xmin, xmax, ymin, ymax)`` [m]; default from the path and landmarks.
    nsigma : float
        Covariance ellipses at ``nsigma`` standard deviations (default 3).
    title : str or None
        Title text before the time.
    """

    shape: str = "car"
    size: float = 1.0
    color: str = "tab:blue"
    trail: bool = True
    workspace: tuple[float, float, float, float] | None = None
    nsigma: float = 3.0
    title: str | None = None

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ValueError(f"shape must be one of {SHAPES}, got {self.shape!r}")
        if not (isinstance(self.size, (int, float)) and self.size > 0):
            raise ValueError(f"size must be a length > 0 [m], got {self.size!r}")
        if not self.nsigma > 0:
            raise ValueError(f"nsigma must be > 0, got {self.nsigma!r}")
        if self.workspace is not None and len(self.workspace) != 4:
            raise ValueError("workspace must be (xmin, xmax, ymin, ymax)")


def vehicle_outline(pose: Sequence[float], shape: str = "car", size: float = 1.0) -> np.ndarray:
    """Closed polygon (M, 2) [m] of the vehicle drawn at ``pose = (x, y, theta)``."""
    if shape == "triangle":
        local = np.array([[size, 0.0], [0.0, 0.2 * size], [0.0, -0.2 * size], [size, 0.0]])
        local[:, 0] -= 0.5 * size
    else:
        w = 0.25 * size
        local = np.array([[-0.5 * size, -w], [0.35 * size, -w], [0.5 * size, 0.0],
                          [0.35 * size, w], [-0.5 * size, w], [-0.5 * size, -w]])  # fmt: skip
    c, s = math.cos(pose[2]), math.sin(pose[2])
    R = np.array([[c, -s], [s, c]])
    return local @ R.T + np.asarray(pose[:2], dtype=float)


def ellipse_points(P: np.ndarray, centre: Sequence[float], nsigma: float = 3.0,
                   n: int = 48) -> np.ndarray:  # fmt: skip
    """Points (n, 2) of the ``nsigma`` ellipse of the 2x2 covariance ``P`` about ``centre``."""
    w, V = np.linalg.eigh(0.5 * (P + P.T))
    a = np.linspace(0.0, 2.0 * math.pi, n)
    circle = np.stack((np.cos(a), np.sin(a)))
    return (V @ (nsigma * np.sqrt(np.clip(w, 0.0, None))[:, None] * circle)).T + centre


def _held(t: np.ndarray, y: np.ndarray | None, times: np.ndarray) -> np.ndarray | None:
    if y is None:
        return None
    idx = np.clip(samples_before(t, times) - 1, 0, len(t) - 1)
    return y[idx]


def build_vehicle_animation(
    t: Any,
    pose: Any,
    style: VehicleStyle | None = None,
    *,
    landmarks: Any = None,
    P: Any = None,
    landmark_P: bool = False,
    particles: Any = None,
    rays: Any = None,
    fps: float = DEFAULT_FPS,
    frames: int | None = None,
    note: str | None = None,
    figsize: Sequence[float] = (5.0, 5.0),
    show: bool = False,
) -> FuncAnimation:
    """The animation of a recorded vehicle run, neither written nor shown.

    Parameters
    ----------
    t : array_like (N,)
        Recorded times [s].
    pose : array_like (N, 3) or (N, 3 + 2M)
        Poses ``(x, y, theta)`` (and SLAM landmark estimates with ``landmark_P``).
    style : VehicleStyle, optional
    landmarks : array_like (M, 2), optional
        Landmarks, drawn as black diamonds.
    P : array_like (N, n, n), optional
        Covariances: the ellipse of the first 2x2 block is drawn about the pose.
    landmark_P : bool
        ``P`` is a SLAM covariance (``n = 3 + 2M``) and ``pose`` the SLAM state (N, 3 + 2M):
        each landmark seen so far (non-zero variance) is drawn with its ellipse about its
        estimate.
    particles : array_like (N, np, 3), optional
        Particle clouds, drawn as dots.
    rays : tuple (z (N, 2), k (N,), valid (N,)), optional
        Sensor readings: a line from the vehicle to landmark ``k`` where valid.
    fps, frames, note, figsize, show :
        As for the arm animation.

    Returns
    -------
    FuncAnimation
        With ``figure``, ``times``, ``show_frame(k)`` and ``write(filename)``.
    """
    style = style or VehicleStyle()
    tt = np.asarray(t, dtype=float).reshape(-1)
    full = np.asarray(pose, dtype=float)
    if full.ndim != 2 or full.shape[0] != tt.size or full.shape[1] < 3:
        raise ValueError(f"pose must have shape ({tt.size}, 3), got {full.shape}")
    xy = full[:, :3]
    lm = None if landmarks is None else np.asarray(landmarks, dtype=float).reshape(-1, 2)
    rate = check_fps(fps)
    times = frame_times(tt, rate, check_frames(frames))
    pf = resample(tt, xy, times) if tt.size > 1 else np.repeat(xy, len(times), axis=0)
    Ph = _held(tt, None if P is None else np.asarray(P, dtype=float), times)
    est = _held(tt, full, times) if landmark_P else None
    parts = _held(tt, None if particles is None else np.asarray(particles, dtype=float), times)
    ray = None
    if rays is not None and lm is not None:
        ray = tuple(_held(tt, np.asarray(r, dtype=float), times) for r in rays)
    before = samples_before(tt, times)

    fig = animation_figure(check_figsize(figsize), show=show)
    ax = fig.add_axes((0.12, 0.1, 0.84, 0.8))
    pts = [xy[:, :2]] + ([lm] if lm is not None else [])
    allp = np.concatenate(pts)
    if style.workspace is not None:
        xmin, xmax, ymin, ymax = style.workspace
    else:
        pad = style.size + 0.5
        xmin, ymin = allp.min(axis=0) - pad
        xmax, ymax = allp.max(axis=0) + pad
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(ymin, ymax)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.grid(True, alpha=0.3)
    if lm is not None:
        ax.plot(lm[:, 0], lm[:, 1], "kd", ms=5, label="landmarks")
    (body,) = ax.plot([], [], "-", color=style.color, lw=1.5)
    (trail,) = ax.plot([], [], "-", color=style.color, lw=0.8, alpha=0.6)
    (ell,) = ax.plot([], [], "-", color="tab:green", lw=1.0)
    (lm_ell,) = ax.plot([], [], "-", color="tab:orange", lw=0.8)
    (ray_line,) = ax.plot([], [], "r-", lw=0.8)
    (cloud,) = ax.plot([], [], ".", color="tab:gray", ms=1.5)
    title = ax.set_title("")

    def draw(k: int) -> list[Any]:
        p = pf[k]
        body.set_data(*vehicle_outline(p, style.shape, style.size).T)
        if style.trail:
            n = int(before[k])
            path = np.vstack((xy[:n, :2], p[None, :2]))
            trail.set_data(path[:, 0], path[:, 1])
        if Ph is not None:
            ell.set_data(*ellipse_points(Ph[k][:2, :2], p[:2], style.nsigma).T)
            if est is not None:
                segs = []
                nv = 3
                for j in range(nv, Ph[k].shape[0] - 1, 2):
                    if Ph[k][j, j] > 0:
                        e = ellipse_points(Ph[k][j : j + 2, j : j + 2], est[k][j : j + 2],
                                           style.nsigma, 24)  # fmt: skip
                        segs.append(np.vstack((e, [np.nan, np.nan])))
                if segs:
                    lm_ell.set_data(*np.vstack(segs).T)
        if ray is not None and ray[2][k] > 0.5:
            target = lm[int(ray[1][k])]
            ray_line.set_data([p[0], target[0]], [p[1], target[1]])
        elif ray is not None:
            ray_line.set_data([], [])
        if parts is not None:
            cloud.set_data(parts[k][:, 0], parts[k][:, 1])
        head = style.title or "Vehicle"
        title.set_text(f"{head}  t = {format_time(float(times[k]))}" + (f" {note}" if note else ""))
        return [body, trail, ell, lm_ell, ray_line, cloud, title]

    draw(len(times) - 1)
    return make_animation(fig, draw, times, rate)


def animate_vehicle(
    t: Any,
    pose: Any,
    filename: str | os.PathLike[str] | None = None,
    style: VehicleStyle | None = None,
    *,
    dpi: float | None = None,
    show: bool = False,
    **kwargs: Any,
) -> Any:
    """Animate a vehicle run (see :func:`build_vehicle_animation` for the arguments); write
    ``filename`` (``.gif`` or ``.mp4``) when given (returns its path), else return the
    animation."""
    anim = build_vehicle_animation(t, pose, style, show=show, **kwargs)
    return finish(anim.figure, anim, filename, dpi if dpi is not None else DEFAULT_DPI, show)
