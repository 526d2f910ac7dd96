"""3-D stick figure of a serial-link arm, animated over a recorded joint trajectory.

After RTB's ``SerialLink.plot``: a polyline joins the origins of the link frames (base, then
link frames 1..n, all in the world frame [m]), the joints are markers, and optionally the
shadow of the stick figure on the floor, a floor patch, the base pedestal (a vertical line from
the floor up to the base frame), short RGB axes of every link frame (x red, y green, z blue),
and the path of the tool tip. The axis limits are fixed for the whole animation, from the
robot's reach, so the arm moves in a still scene.

The artists carry a ``gid`` so that they can be found in a figure: ``"links"`` (the stick
figure: its data are the origins of ``robot.fkine(q, all=True)``, shape (n + 1) points),
``"tool"`` (last frame to the tool tip, only for a tool with a translation), ``"joints"``
(origin of each joint axis, the z axis of ``T_{i-1} A_i``), ``"shadow"``, ``"floor"``,
``"base"``, ``"frame-x"``, ``"frame-y"``, ``"frame-z"`` (one segment per frame, separated by
NaN), ``"trail"``.

:func:`animate_arm` is the function API; :class:`~blocksim.blocks.sinks.animations.ArmPlot` is the
post-run sink block that calls it on the recorded joint signal.
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

    from blocksim.robotics.arm.serial_link import SerialLink

#: colours of the x, y and z axes of the link frames
FRAME_COLORS = ("tab:red", "tab:green", "tab:blue")


# ---------------------------------------------------------------------------- geometry
def _check_robot(robot: Any) -> SerialLink:
    from blocksim.robotics.arm.serial_link import SerialLink

    if not isinstance(robot, SerialLink):
        raise ValueError(f"robot must be a SerialLink (e.g. blocksim.robotics.models.puma560()),"
                         f" got {type(robot).__name__}")
    if robot.n < 1:
        raise ValueError(f"robot {plain(robot.name)} has no joints")
    return robot


def arm_reach(robot: SerialLink, q: Any = None) -> float:
    """An upper bound on the distance of any link frame or the tool tip from the base [m].

    The sum of the translations of the fixed transforms ``A_i``, ``B_i`` and the tool, plus
    for each prismatic joint its largest extension ``|q_i + offset_i|``: over the trajectory
    ``q`` (shape (N, n)) if given, else over its finite joint limits.

    Raises
    ------
    ValueError
        A prismatic joint without finite limits and no trajectory to bound it.
    """
    arr = robot.arrays
    reach = float(np.linalg.norm(arr.A[:, :3, 3], axis=1).sum()
                  + np.linalg.norm(arr.B[:, :3, 3], axis=1).sum()
                  + np.linalg.norm(arr.tool[:3, 3]))
    qq = None if q is None else np.asarray(q, dtype=float).reshape(-1, robot.n)
    for i in np.flatnonzero(arr.sigma == 1):
        if qq is not None and qq.shape[0] > 0:
            ext = np.abs(qq[:, i] + arr.offset[i])
        else:
            ext = np.abs(arr.qlim[i] + arr.offset[i])
        if not np.all(np.isfinite(ext)):
            raise ValueError(f"robot {plain(robot.name)}: prismatic joint {i} has no finite limits "
                             f"(qlim) to bound the workspace; give qlim or a workspace")
        reach += float(ext.max())
    return reach if reach > 0 else 1.0


def arm_workspace(robot: SerialLink, q: Any = None) -> np.ndarray:
    """Axis limits ``[xmin, xmax, ymin, ymax, zmin, zmax]`` [m]: a cube of half-side
    :func:`arm_reach` centred on the base origin (RTB's default workspace)."""
    r = arm_reach(robot, q)
    c = robot.base[:3, 3]
    return np.array([c[0] - r, c[0] + r, c[1] - r, c[1] + r, c[2] - r, c[2] + r])


def joint_origins(robot: SerialLink, frames: np.ndarray) -> np.ndarray:
    """Origin of each joint axis (the frame ``T_{i-1} A_i``), shape (n, 3) [m], from the
    ``fkine(q, all=True)`` frames ``(n + 1, 4, 4)``."""
    A = robot.arrays.A
    return np.einsum("ijk,ik->ij", frames[:-1, :3, :], A[:, :, 3])


# ---------------------------------------------------------------------------- options
@dataclass(frozen=True)
class ArmStyle:
    """Validated drawing options of an arm (see :func:`animate_arm` for their meaning)."""

    show_frames: bool = False
    base: bool = True
    shadow: bool = True
    floor: bool = True
    trail: bool = False
    workspace: tuple[float, ...] | None = None
    floorlevel: float | None = None
    frame_length: float | None = None
    view: tuple[float, float] = (30.0, -60.0)
    title: str | None = None
    color: str = "tab:blue"

    def __post_init__(self) -> None:
        for name in ("show_frames", "base", "shadow", "floor", "trail"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {plain(getattr(self, name))}")
        if self.workspace is not None:
            w = _floats(self.workspace, 6, "workspace", "[xmin, xmax, ymin, ymax, zmin, zmax]")
            if not (w[0] < w[1] and w[2] < w[3] and w[4] < w[5]):
                raise ValueError(f"workspace must have min < max on each axis, got {w}")
            object.__setattr__(self, "workspace", w)
        for name in ("floorlevel", "frame_length"):
            v = getattr(self, name)
            if v is not None:
                v = _floats([v], 1, name, "a number [m]")[0]
                if name == "frame_length" and not v > 0:
                    raise ValueError(f"frame_length must be positive [m], got {v}")
                object.__setattr__(self, name, v)
        object.__setattr__(self, "view", _floats(self.view, 2, "view",
                                                 "(elevation, azimuth) [deg]"))
        if self.title is not None and not isinstance(self.title, str):
            raise ValueError(f"title must be a str or None, got {plain(self.title)}")
        if not isinstance(self.color, str):
            raise ValueError(f"color must be a matplotlib colour name, got {plain(self.color)}")


def _floats(value: Any, n: int, name: str, expected: str) -> tuple[float, ...]:
    try:
        out = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {expected}, got {plain(value)}") from None
    if len(out) != n or not all(math.isfinite(v) for v in out):
        raise ValueError(f"{name} must be {expected} ({n} finite numbers), got {plain(value)}")
    return out


# ---------------------------------------------------------------------------- the artists
class ArmPlotter:
    """The artists of one arm on a 3-D axes; :meth:`draw` moves them to a configuration.

    Parameters
    ----------
    robot : SerialLink
        The arm.
    ax : mpl_toolkits.mplot3d.axes3d.Axes3D
        The axes to draw on; its limits are fixed to the workspace.
    style : ArmStyle, optional
        Drawing options.
    q_range : array_like (N, n), optional
        Joint trajectory used to bound prismatic joints in the default workspace.

    Attributes
    ----------
    links, tool, joints, shadow, base_line, trail : Line3D or None
        The artists (None when switched off or not applicable).
    frame_axes : tuple of 3 Line3D, or ()
        x, y and z axes of frames 0..n.
    workspace : ndarray (6,)
        Axis limits [m]; ``floorlevel`` the floor height [m].
    """

    def __init__(self, robot: SerialLink, ax: Any, style: ArmStyle | None = None,
                 q_range: Any = None):
        self.robot = _check_robot(robot)
        self.ax = ax
        self.style = style = style or ArmStyle()
        ws = (np.array(style.workspace) if style.workspace is not None
              else arm_workspace(robot, q_range))
        self.workspace = ws
        self.floorlevel = style.floorlevel if style.floorlevel is not None else float(ws[4])
        size = float(max(ws[1] - ws[0], ws[3] - ws[2], ws[5] - ws[4]))
        self.frame_length = style.frame_length or 0.15 * size / 2.0
        tool = robot.tool
        self._tool = tool if np.any(tool[:3, 3] != 0.0) else None
        self._setup_axes()
        self._make_artists()

    def _setup_axes(self) -> None:
        ax, ws = self.ax, self.workspace
        ax.computed_zorder = False  # fixed drawing order: floor, shadow, arm, frames
        ax.set_xlim(ws[0], ws[1])
        ax.set_ylim(ws[2], ws[3])
        ax.set_zlim(min(ws[4], self.floorlevel), ws[5])
        ax.set_box_aspect((ws[1] - ws[0], ws[3] - ws[2], ws[5] - min(ws[4], self.floorlevel)))
        from matplotlib.ticker import MaxNLocator

        for axis, label in zip((ax.xaxis, ax.yaxis, ax.zaxis), "xyz"):
            axis.set_major_locator(MaxNLocator(4))  # few ticks: each one costs render time
            axis.set_label_text(f"{label} [m]", fontsize="small")
        ax.tick_params(labelsize="x-small")
        ax.view_init(elev=self.style.view[0], azim=self.style.view[1])

    def _make_artists(self) -> None:
        ax, st, z0, ws = self.ax, self.style, self.floorlevel, self.workspace
        nan3 = ([np.nan], [np.nan], [np.nan])
        if st.floor:
            from mpl_toolkits.mplot3d.art3d import Poly3DCollection

            corners = [[(ws[0], ws[2], z0), (ws[1], ws[2], z0), (ws[1], ws[3], z0),
                        (ws[0], ws[3], z0)]]
            floor = Poly3DCollection(corners, facecolor=(0.85, 0.9, 0.85, 0.6),
                                     edgecolor=(0.6, 0.7, 0.6), zorder=0)
            floor.set_gid("floor")
            ax.add_collection3d(floor)
        self.shadow = (ax.plot(*nan3, color="0.55", linewidth=4, solid_capstyle="round",
                               zorder=1, gid="shadow")[0] if st.shadow else None)
        self.base_line = None
        if st.base:
            b = self.robot.base[:3, 3]
            self.base_line = ax.plot([b[0], b[0]], [b[1], b[1]], [z0, b[2]], color="k",
                                     linewidth=3, zorder=2, gid="base")[0]
        self.trail = (ax.plot(*nan3, color="tab:purple", linewidth=1, zorder=2,
                              gid="trail")[0] if st.trail else None)
        self.links = ax.plot(*nan3, color=st.color, linewidth=3, zorder=3, gid="links")[0]
        self.tool = (ax.plot(*nan3, color=st.color, linewidth=2, linestyle="--", zorder=3,
                             gid="tool")[0] if self._tool is not None else None)
        self.joints = ax.plot(*nan3, linestyle="none", marker="o", markersize=6,
                              color="tab:red", markeredgecolor="k", zorder=4,
                              gid="joints")[0]
        self.frame_axes: tuple[Any, ...] = ()
        if st.show_frames:
            self.frame_axes = tuple(
                ax.plot(*nan3, color=c, linewidth=1.5, zorder=5, gid=f"frame-{a}")[0]
                for c, a in zip(FRAME_COLORS, "xyz"))
        self.title = ax.set_title("")

    def tool_tip(self, frames: np.ndarray) -> np.ndarray:
        """Tool-tip position (3,) [m] from the ``fkine(all=True)`` frames (n + 1, 4, 4)."""
        last = frames[-1]
        return last[:3, 3] if self._tool is None else (last @ self._tool)[:3, 3]

    def draw(self, q: Any, t: float | None = None, trail: np.ndarray | None = None,
             note: str | None = None) -> list[Artist]:
        """Move the arm to ``q`` (n,) [rad or m]; ``t`` [s] goes in the title, ``trail``
        (m, 3) [m] is the tool-tip path so far. Returns the changed artists."""
        frames = self.robot.fkine(np.ascontiguousarray(q, dtype=float), all=True)
        P = frames[:, :3, 3]
        changed: list[Artist] = [self.links, self.joints, self.title]
        self.links.set_data_3d(P[:, 0], P[:, 1], P[:, 2])
        J = joint_origins(self.robot, frames)
        self.joints.set_data_3d(J[:, 0], J[:, 1], J[:, 2])
        path = P
        if self.tool is not None:
            tip = self.tool_tip(frames)
            self.tool.set_data_3d([P[-1, 0], tip[0]], [P[-1, 1], tip[1]], [P[-1, 2], tip[2]])
            path = np.vstack([P, tip])
            changed.append(self.tool)
        if self.shadow is not None:
            self.shadow.set_data_3d(path[:, 0], path[:, 1], np.full(len(path), self.floorlevel))
            changed.append(self.shadow)
        if self.frame_axes:
            L = self.frame_length
            for k, line in enumerate(self.frame_axes):
                seg = np.full((len(frames), 3, 3), np.nan)
                seg[:, 0] = P
                seg[:, 1] = P + L * frames[:, :3, k]
                seg = seg.reshape(-1, 3)
                line.set_data_3d(seg[:, 0], seg[:, 1], seg[:, 2])
            changed.extend(self.frame_axes)
        if self.trail is not None and trail is not None and len(trail):
            tr = np.asarray(trail, dtype=float).reshape(-1, 3)
            self.trail.set_data_3d(tr[:, 0], tr[:, 1], tr[:, 2])
            changed.append(self.trail)
        parts = [p for p in (self.style.title if self.style.title is not None
                             else self.robot.name, note,
                             format_time(t) if t is not None else None) if p]
        self.title.set_text("   ".join(parts))
        return changed


# ---------------------------------------------------------------------------- function API
def _trajectory(robot: SerialLink, t: Any, q: Any) -> tuple[np.ndarray, np.ndarray]:
    tt = np.asarray(t, dtype=float).reshape(-1)
    qq = np.asarray(q, dtype=float)
    if qq.ndim == 1 and tt.size == 1:
        qq = qq.reshape(1, -1)
    if qq.ndim != 2 or qq.shape != (tt.size, robot.n):
        raise ValueError(f"q must have shape (N, n) = ({tt.size}, {robot.n}): one row of "
                         f"{robot.n} joint coordinates per recorded time, found {qq.shape}")
    if not np.all(np.isfinite(qq)):
        raise ValueError("q contains non-finite values; cannot draw the arm")
    return tt, qq


def animate_arm(robot: SerialLink, t: Any, q: Any,
                filename: str | os.PathLike[str] | None = None, *, fps: float = DEFAULT_FPS,
                frames: int | None = None, show_frames: bool = False, base: bool = True,
                shadow: bool = True, floor: bool = True, trail: bool = False,
                workspace: Sequence[float] | None = None, floorlevel: float | None = None,
                frame_length: float | None = None, view: Sequence[float] = (30.0, -60.0),
                title: str | None = None, note: str | None = None,
                figsize: Sequence[float] = (5.0, 5.0), dpi: float | None = None,
                show: bool = False) -> FuncAnimation | Path:
    """Animate a serial-link arm along a recorded joint trajectory.

    Frames are at the uniform times of :func:`~blocksim.viz.animate.frame_times` (``t[0] +
    k / fps``, or ``frames`` evenly spaced times), the joint coordinates linearly interpolated
    between the recorded samples.

    Parameters
    ----------
    robot : SerialLink
        The arm (its base and tool are drawn).
    t : array_like, shape (N,)
        Recorded times [s], non-decreasing.
    q : array_like, shape (N, n)
        Joint coordinates at those times [rad for revolute, m for prismatic joints].
    filename : str or os.PathLike, optional
        Write the animation there (``.gif`` with Pillow, ``.mp4`` with ffmpeg) and return the
        path; otherwise return the animation.
    fps : float
        Frames per second (of simulated time and of playback). Default 25.
    frames : int, optional
        Number of frames instead of one per ``1 / fps`` s.
    show_frames : bool
        Draw the x (red), y (green), z (blue) axes of frames 0..n, ``frame_length`` long.
    base, shadow, floor, trail : bool
        Draw the base pedestal, the shadow on the floor, the floor, the tool-tip path.
    workspace : (6,) array_like, optional
        Axis limits ``[xmin, xmax, ymin, ymax, zmin, zmax]`` [m]; default a cube of half-side
        :func:`arm_reach` around the base origin.
    floorlevel : float, optional
        Height of the floor [m]; default the bottom of the workspace.
    frame_length : float, optional
        Length of the frame axes [m]; default 15 % of the workspace half-size.
    view : (float, float)
        Elevation and azimuth of the view [deg] (matplotlib's ``view_init``).
    title : str, optional
        Text before the time stamp in each frame's title; default the robot's name.
    note : str, optional
        Extra text in the title (e.g. that the run failed).
    figsize : (float, float)
        Figure size [inch].
    dpi : float, optional
        Resolution of the file [dots per inch], default 80.
    show : bool
        Create the figure through pyplot and display the animation (non-blocking).

    Returns
    -------
    matplotlib.animation.FuncAnimation or pathlib.Path
        The animation (with ``figure``, ``times``, ``fps``, ``show_frame(k)`` and
        ``write(filename)``), or the written file.
    """
    style = ArmStyle(show_frames=show_frames, base=base, shadow=shadow, floor=floor,
                     trail=trail, workspace=None if workspace is None else tuple(workspace),
                     floorlevel=floorlevel, frame_length=frame_length, view=tuple(view),
                     title=title)
    if filename is not None:
        check_animation_file(filename)  # before any drawing
    anim = build_arm_animation(robot, t, q, style, fps=fps, frames=frames, note=note,
                               figsize=figsize, show=show)
    return finish(anim.figure, anim, filename, dpi if dpi is not None else DEFAULT_DPI, show)


def build_arm_animation(robot: SerialLink, t: Any, q: Any, style: ArmStyle | None = None, *,
                        fps: float = DEFAULT_FPS, frames: int | None = None,
                        note: str | None = None, figsize: Sequence[float] = (5.0, 5.0),
                        show: bool = False) -> FuncAnimation:
    """The animation of :func:`animate_arm` with validated ``style``, neither written nor
    shown; its figure shows the last frame. ``show`` makes the figure through pyplot."""
    robot = _check_robot(robot)
    style = style or ArmStyle()
    tt, qq = _trajectory(robot, t, q)
    rate = check_fps(fps)
    times = frame_times(tt, rate, check_frames(frames))
    qf = resample(tt, qq, times)
    fig = animation_figure(check_figsize(figsize), show=show)
    ax = fig.add_axes((0.04, 0.04, 0.88, 0.88), projection="3d")
    plotter = ArmPlotter(robot, ax, style, q_range=qq)
    tips = before = None
    if style.trail:
        all_frames = robot.fkine(qq, all=True).reshape(tt.size, robot.n + 1, 4, 4)
        tips = np.array([plotter.tool_tip(f) for f in all_frames])
        before = samples_before(tt, times)

    def draw(k: int) -> list[Artist]:
        path = None
        if tips is not None and before is not None:
            fk = robot.fkine(qf[k], all=True)
            path = trail_points(tips, plotter.tool_tip(fk), int(before[k]))
        return plotter.draw(qf[k], float(times[k]), path, note)

    draw(len(times) - 1)
    return make_animation(fig, draw, times, rate)

