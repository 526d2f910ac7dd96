"""3-D animation of a multirotor flight from its recorded state (RTB roblocks *Quadrotor
plot*, bdsim *MULTIROTORPLOT*).

The vehicle is drawn from the 12-state ``x`` of :class:`~blocksim.blocks.quadrotor.MultiRotor`
(position, ``(roll, pitch, yaw)`` with ``R = Rz(yaw) Ry(pitch) Rx(roll)``, world z down): an
arm from the centre of gravity to each of the N rotor hubs and each rotor as a disc of the
rotor radius, coloured by spin direction (clockwise seen from above red, anticlockwise blue;
rotor 0, the front, drawn thicker), a shadow on the ground and the path flown so far.

Display axes: the world's x, ``-y`` and ``-z`` (altitude up), a right-handed frame, so the
picture is the vehicle seen the right way up. Frames are at the uniform times of
:func:`~blocksim.viz.animate.frame_times` with the state interpolated linearly between the
recorded samples; ``.gif`` through Pillow and ``.mp4`` through ffmpeg, headless.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from blocksim.robotics.aerial.dynamics import rpy_to_rotation_nb
from blocksim.robotics.aerial.model import MultirotorModel, model_by_name, shown
from blocksim.viz.animate import (
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
    trail_points,
)

if TYPE_CHECKING:
    from matplotlib.animation import FuncAnimation
    from matplotlib.artist import Artist

__all__ = ["animate_multirotor", "build_multirotor_animation", "multirotor_outline"]

#: display coordinates of a world point: (x, -y, -z), altitude up
_FLIP = np.array([1.0, -1.0, -1.0])
_SEGMENTS = 24  # polygon sides of a rotor disc
_COLOURS = {1.0: "tab:red", -1.0: "tab:blue"}


def multirotor_outline(
    model: MultirotorModel, x: Any, scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """World coordinates of the hubs (N, 3) and of the rotor discs (N, S + 1, 3) [m] of the
    vehicle at state ``x`` (12,); ``scale`` enlarges the airframe about its centre."""
    x = np.asarray(x, dtype=float).reshape(12)
    R = rpy_to_rotation_nb(x[3], x[4], x[5])
    D = model.D * scale
    hubs = (R @ D).T + x[:3]
    a = np.linspace(0.0, 2.0 * math.pi, _SEGMENTS + 1)
    ring = np.stack((np.cos(a), np.sin(a), np.zeros_like(a))) * model.r * scale  # (3, S+1)
    discs = np.stack([(R @ (D[:, [i]] + ring)).T + x[:3] for i in range(model.nrotors)])
    return hubs, discs


def _workspace(p: np.ndarray, workspace: Sequence[float] | None, margin: float) -> np.ndarray:
    """Axis limits (6,) in display coordinates: given, or the flown box plus ``margin``, with
    equal spans so the vehicle is not distorted; the ground (altitude 0) always in view."""
    if workspace is not None:
        w = np.asarray(workspace, dtype=float).reshape(-1)
        if w.size != 6 or not np.all(np.isfinite(w)) or np.any(w[1::2] <= w[::2]):
            raise ValueError(
                f"workspace must be [xmin, xmax, ymin, ymax, zmin, zmax] with "
                f"min < max [m], got {shown(workspace)}"
            )
        return w
    disp = p * _FLIP
    lo = np.minimum(disp.min(axis=0), [np.inf, np.inf, 0.0]) - margin
    hi = disp.max(axis=0) + margin
    lo[2] = min(0.0, lo[2] + margin)
    half = 0.5 * float(np.max(hi - lo))
    mid = 0.5 * (lo + hi)
    out = np.empty(6)
    out[::2] = mid - half
    out[1::2] = mid + half
    if out[4] > 0.0 or lo[2] == 0.0:
        out[5] -= out[4]
        out[4] = 0.0
    return out


def build_multirotor_animation(
    model: Any,
    t: Any,
    x: Any,
    *,
    fps: float = DEFAULT_FPS,
    frames: int | None = None,
    trail: bool = True,
    shadow: bool = True,
    scale: float = 1.0,
    workspace: Sequence[float] | None = None,
    view: Sequence[float] = (25.0, -60.0),
    title: str | None = None,
    note: str | None = None,
    figsize: Sequence[float] = (5.0, 5.0),
    show: bool = False,
) -> FuncAnimation:
    """The animation of :func:`animate_multirotor`, neither written nor shown; its figure
    shows the last frame."""
    m = model_by_name(model, "model")
    tt = np.asarray(t, dtype=float).reshape(-1)
    xx = np.asarray(x, dtype=float)
    if xx.ndim != 2 or xx.shape != (tt.size, 12):
        raise ValueError(
            f"x must have shape ({tt.size}, 12): one 12-state per recorded time, got {xx.shape}"
        )
    if not (isinstance(scale, (int, float)) and math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive number, got {shown(scale)}")
    rate = check_fps(fps)
    times = frame_times(tt, rate, check_frames(frames))
    xf = resample(tt, xx, times)
    lim = _workspace(xx[:, :3], workspace, (m.d + m.r) * scale * 1.2)
    fig = animation_figure(check_figsize(figsize), show=show)
    ax = fig.add_axes((0.02, 0.02, 0.9, 0.88), projection="3d")
    ax.set_xlim(lim[0], lim[1])
    ax.set_ylim(lim[2], lim[3])
    ax.set_zlim(lim[4], lim[5])
    ax.set_xlabel("x [m]")
    ax.set_ylabel("-y [m]")
    ax.set_zlabel("altitude [m]")
    ax.view_init(elev=float(view[0]), azim=float(view[1]))
    arms = [ax.plot([], [], [], color="k", lw=2.5 if i == 0 else 1.5)[0] for i in range(m.nrotors)]
    discs = [ax.plot([], [], [], color=_COLOURS[float(s)], lw=1.5)[0] for s in m.spin]
    path = ax.plot([], [], [], color="tab:green", lw=1.0)[0]
    ground = ax.plot([], [], [], color="0.6", lw=1.0)[0]
    before = samples_before(tt, times)
    label = title if title is not None else f"{m.name} ({m.nrotors} rotors)"

    def draw(k: int) -> list[Artist]:
        state = xf[k]
        hubs, rings = multirotor_outline(m, state, scale)
        c = state[:3] * _FLIP
        for i in range(m.nrotors):
            h = hubs[i] * _FLIP
            arms[i].set_data_3d([c[0], h[0]], [c[1], h[1]], [c[2], h[2]])
            d = rings[i] * _FLIP
            discs[i].set_data_3d(d[:, 0], d[:, 1], d[:, 2])
        if trail:
            p = trail_points(xx[:, :3], state[:3], int(before[k])) * _FLIP
            path.set_data_3d(p[:, 0], p[:, 1], p[:, 2])
        if shadow:
            s = hubs * _FLIP
            order = np.r_[np.arange(m.nrotors), 0]
            ground.set_data_3d(s[order, 0], s[order, 1], np.zeros(order.size))
        text = f"{label}  {format_time(float(times[k]))}"
        ax.set_title(text if note is None else f"{text} {note}", fontsize=9)
        return [*arms, *discs, path, ground]

    draw(len(times) - 1)
    return make_animation(fig, draw, times, rate)


def animate_multirotor(
    model: Any,
    t: Any,
    x: Any,
    filename: str | os.PathLike[str] | None = None,
    *,
    fps: float = DEFAULT_FPS,
    frames: int | None = None,
    trail: bool = True,
    shadow: bool = True,
    scale: float = 1.0,
    workspace: Sequence[float] | None = None,
    view: Sequence[float] = (25.0, -60.0),
    title: str | None = None,
    figsize: Sequence[float] = (5.0, 5.0),
    dpi: float | None = None,
    show: bool = False,
) -> FuncAnimation | Path:
    """Animate a multirotor along its recorded state.

    Parameters
    ----------
    model : str, dict or MultirotorModel
        The vehicle (:func:`~blocksim.robotics.aerial.model_by_name`): its rotor count,
        geometry, spins and rotor radius.
    t : array_like, shape (K,)
        Recorded times [s], non-decreasing.
    x : array_like, shape (K, 12)
        Recorded states (:class:`~blocksim.blocks.quadrotor.MultiRotor`'s ``x``).
    filename : str or os.PathLike, optional
        Write the animation there (``.gif`` or ``.mp4``) and return the path.
    fps : float
        Frames per second of simulated time and of playback. Default 25.
    frames : int, optional
        Number of frames over the run instead.
    trail, shadow : bool
        Draw the path flown so far; the outline of the hubs projected on the ground.
    scale : float
        Enlarge the airframe about its centre (RTB's ``scale``) for long flights. Default 1.
    workspace : (6,) array_like, optional
        Display limits ``[xmin, xmax, -ymax, -ymin, zmin, zmax]`` [m] (altitude up); default
        the flown box with a margin, the ground in view.
    view : (float, float)
        Elevation and azimuth [deg].
    title : str, optional
        Title text before the time; default the model's name and rotor count.
    figsize : (float, float)
        Figure size [inch].
    dpi : float, optional
        Resolution of the file [dots per inch], default 80.
    show : bool
        Display through pyplot (non-blocking).

    Returns
    -------
    FuncAnimation or pathlib.Path
        The animation (``figure``, ``times``, ``show_frame(k)``, ``write(filename)``) or the
        written file.
    """
    anim = build_multirotor_animation(
        model,
        t,
        x,
        fps=fps,
        frames=frames,
        trail=trail,
        shadow=shadow,
        scale=scale,
        workspace=workspace,
        view=view,
        title=title,
        figsize=figsize,
        show=show,
    )
    return finish(anim.figure, anim, filename, dpi, show)
