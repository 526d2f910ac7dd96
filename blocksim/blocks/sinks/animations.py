"""Animation sinks: :class:`ArmPlot` (a 3-D robot arm) and :class:`ImagePlane` (image points).

Like :class:`~blocksim.blocks.sinks.recorders.Scope` these are *post-run* sinks: inputs, no outputs,
no state. During the run they do nothing at all (so they never stop or restart the integrator,
unlike bdsim's animation, and need no compiled kernels: the compiled back-end runs them after the
run as it does Scope). When the run ends, on every exit path, :meth:`stop` reads the recorded input
signal from ``run.result``, resamples it onto the uniform frame grid ``t[0] + k / fps`` by linear
interpolation in time (:mod:`blocksim.viz.animate`), writes the animation to ``filename`` (``.gif``
through Pillow, ``.mp4`` through ffmpeg) and stores the figure, left at the last frame, in
``run.result.figures[name]``; when the animation was written or shown, the figure keeps it as
``figure.animation`` (a FuncAnimation with the frame ``times``, ``show_frame(k)`` and
``write(filename)``).

Files: the directory of ``filename`` must exist and, for ``.mp4``, ffmpeg must be installed
when the run starts; :meth:`start` checks both, so that a bad path fails before any
simulation time is spent (``BlockParameterError`` naming the block). After a failed or stopped
run the animation shows the partial run (the title says so) and a problem while writing it
only issues a ``RuntimeWarning``, as for the other sinks.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.blocks.sinks.recorders import _check_bool, _check_dpi, _Sink
from blocksim.confine import PathRefused, output_path
from blocksim.engine.block import Port
from blocksim.engine.errors import BlockParameterError

__all__ = ["ArmPlot", "ImagePlane"]

FileArg = str | os.PathLike[str] | None

#: animation file suffixes the sinks can write
ANIMATION_SUFFIXES = (".gif", ".mp4")


def _param_error(cls: str, exc: Exception) -> BlockParameterError:
    return BlockParameterError(f"{cls}: {exc}")


def _check_filename(cls: str, filename: Any) -> Path | None:
    if filename is None:
        return None
    if not isinstance(filename, (str, os.PathLike)) or not str(filename):
        raise BlockParameterError(f"{cls}: parameter 'filename' must be a path ending in .gif "
                                  f"or .mp4, or None, found {filename!r}")
    if Path(filename).suffix.lower() not in ANIMATION_SUFFIXES:
        raise BlockParameterError(f"{cls}: parameter 'filename' must end in .gif (Pillow) or "
                                  f".mp4 (ffmpeg), found {str(filename)!r}")
    try:
        return output_path(filename, "parameter 'filename'")
    except PathRefused as exc:
        raise BlockParameterError(f"{cls}: {exc}") from None


def _check_rate(cls: str, fps: Any, frames: Any) -> tuple[float, int | None]:
    from blocksim.viz.animate import check_fps, check_frames

    try:
        return check_fps(fps), check_frames(frames)
    except ValueError as exc:
        raise _param_error(cls, exc) from None


class _AnimationSink(_Sink):
    """Shared behaviour: writer check in start(), animation in stop()."""

    fps: float
    frames: int | None
    dpi: float | None
    show: bool

    @property
    def filename(self) -> Path | None:
        """Where the animation is written after the run, or None."""
        return self._file

    def start(self, run: Any) -> None:
        """Check the directory of ``filename``, that its writer is available (ffmpeg for
        .mp4) and the input's shape, before any time is spent simulating."""
        super().start(run)
        if self._file is not None:
            from blocksim.viz.animate import AnimationWriterError, check_animation_file

            try:
                check_animation_file(self._file, "parameter 'filename'")
            except AnimationWriterError as exc:
                raise BlockParameterError(f"{self._what}: {exc}") from None
        shape = self._input_shape(run)
        if shape is not None:
            self._check_input_shape(shape)

    def _input_shape(self, run: Any) -> tuple[int, ...] | None:
        """Compiled shape of the (single) input signal, when the run's plan is at hand."""
        plan = getattr(run, "plan", None)
        for e in getattr(plan, "entries", ()):
            if e.block is self:
                return tuple(plan.signal_shapes[e.in_slots[0]])
        return None

    def _check_input_shape(self, shape: tuple[int, ...]) -> None:
        """Raise BlockParameterError when the input cannot be animated (override)."""

    def _note(self, result: Any) -> str | None:
        """Title note for a run that did not complete."""
        status = getattr(result, "status", "success")
        if status == "success":
            return None
        t = np.asarray(result.t)
        return f"(run {status} at t = {t[-1]:g} s)" if t.size else f"(run {status})"

    def stop(self, run: Any) -> None:
        """Animate the recorded input; write ``filename``; store the figure."""
        self._guarded(run, self._finish)

    def _finish(self, result: Any) -> None:
        from blocksim.viz.animate import finish

        anim = self._animation(result)
        fig = anim.figure
        result.figures[self._key(result)] = fig
        if self._file is not None:
            self._write(lambda path: finish(fig, anim, path, self.dpi, False))
            fig.animation = anim  # written: its frames can be shown again (show_frame(k))
        if self.show:
            finish(fig, anim, None, self.dpi, True)

    def _animation(self, result: Any) -> Any:
        raise NotImplementedError


# ---------------------------------------------------------------------------- ArmPlot
class ArmPlot(_AnimationSink):
    """Animate a serial-link arm along its recorded joint coordinates (RTB/bdsim ARMPLOT).

    A 3-D stick figure joining the link-frame origins, joints as markers, with optional base
    pedestal, floor, shadow, link frames and tool-tip trail, in fixed axes sized from the
    robot's reach; each frame's title gives the time. Drawn after the run from the recorded
    ``q`` resampled onto frames every ``1 / fps`` s (:func:`blocksim.viz.arm_plot.animate_arm`).

    Parameters
    ----------
    robot : SerialLink
        The arm, n joints.
    filename : str or os.PathLike or None
        Animation file written after the run, ``.gif`` or ``.mp4`` (needs ffmpeg); the
        directory must exist when the run starts. Default ``"arm.gif"`` (in the working
        directory). None: no file (the figure still holds the last frame).
    fps : float
        Frames per second of simulated time and of playback. Default 25.
    frames : int, optional
        Number of frames over the run instead (playback at ``fps``).
    show_frames : bool
        Draw each link frame's x, y, z axes (red, green, blue).
    base, shadow, floor, trail : bool
        Draw the base pedestal, the shadow on the floor, the floor, the tool-tip path.
    workspace : (6,) array_like, optional
        Axis limits ``[xmin, xmax, ymin, ymax, zmin, zmax]`` [m]; default from the reach.
    floorlevel : float, optional
        Floor height [m]; default the bottom of the workspace.
    frame_length : float, optional
        Length of the drawn frame axes [m].
    view : (float, float)
        Elevation and azimuth [deg].
    title : str, optional
        Title text before the time; default the robot's name.
    figsize : (float, float)
        Figure size [inch].
    dpi : float
        Resolution of the file [dots per inch]. Default 80.
    show : bool
        Display the animation through pyplot after the run (non-blocking); the animation is
        kept alive as ``result.figures[name].animation``.

    Inputs
    ------
    q : ndarray (n,)
        Joint coordinates [rad for revolute, m for prismatic joints].

    Outputs
    -------
    None.

    Notes
    -----
    No equation and no state: the engine records ``q`` and the block draws the frames in
    :meth:`stop`.
    """

    def __init__(self, robot: Any, filename: FileArg = "arm.gif", *, fps: float = 25.0,
                 frames: int | None = None, show_frames: bool = False, base: bool = True,
                 shadow: bool = True, floor: bool = True, trail: bool = False,
                 workspace: Sequence[float] | None = None, floorlevel: float | None = None,
                 frame_length: float | None = None,
                 view: Sequence[float] = (30.0, -60.0), title: str | None = None,
                 figsize: Sequence[float] = (5.0, 5.0), dpi: float | None = 80.0,
                 show: bool = False):
        from blocksim.robotics.arm.serial_link import SerialLink
        from blocksim.viz.animate import check_figsize
        from blocksim.viz.arm_plot import ArmStyle, arm_workspace

        cls = type(self).__name__
        if not isinstance(robot, SerialLink) or robot.n < 1:
            raise BlockParameterError(f"{cls}: parameter 'robot' must be a SerialLink with at "
                                      f"least one joint, found {type(robot).__name__}")
        self.robot = robot
        self._file = _check_filename(cls, filename)
        self.fps, self.frames = _check_rate(cls, fps, frames)
        try:
            self.style = ArmStyle(
                show_frames=show_frames, base=base, shadow=shadow, floor=floor, trail=trail,
                workspace=None if workspace is None else tuple(workspace),
                floorlevel=floorlevel, frame_length=frame_length, view=tuple(view),
                title=title)
            if workspace is None and "P" in robot.config:
                arm_workspace(robot)  # prismatic joints need finite limits (or a workspace)
            self.figsize = check_figsize(figsize)
        except (TypeError, ValueError) as exc:
            raise _param_error(cls, exc) from None
        self.dpi = _check_dpi(cls, dpi)
        self.show = _check_bool(cls, "show", show)
        self.set_ports(inputs=(Port("q", shape=(robot.n,), doc="joint coordinates "
                                    "[rad or m]"),))

    def _check_input_shape(self, shape: tuple[int, ...]) -> None:
        n = self.robot.n
        if shape != (n,):
            raise BlockParameterError(
                f"{self._what}: input 'q' must have shape ({n},), one coordinate per joint of "
                f"{self.robot.name!r}, found {shape}; feed it the robot's joint vector")

    def _animation(self, result: Any) -> Any:
        from blocksim.viz.arm_plot import build_arm_animation

        return build_arm_animation(self.robot, result.t, self._signal(result, "q"), self.style,
                                   fps=self.fps, frames=self.frames, note=self._note(result),
                                   figsize=self.figsize, show=self.show)


# ---------------------------------------------------------------------------- ImagePlane
class ImagePlane(_AnimationSink):
    """Animate feature points moving in a camera image (MVTB/bdsim IMAGEPLANE).

    The axes are the image: u [pixel] right from 0 to the width, v [pixel] down from 0 to the
    height. Each frame shows the points visible in the image (``0 <= u < width``,
    ``0 <= v < height``) as dots; points outside are not drawn and the title counts them.
    Optionally the desired points ``uv_star`` as crosses and each point's path so far (clipped
    at the border). Drawn after the run from the recorded ``uv`` resampled onto frames every
    ``1 / fps`` s (:func:`blocksim.viz.image_plane.animate_image_plane`).

    Parameters
    ----------
    resolution : (int, int)
        Image size (width, height) [pixels]. Default (1024, 1024).
    filename : str or os.PathLike or None
        Animation file written after the run, ``.gif`` or ``.mp4`` (needs ffmpeg); the
        directory must exist when the run starts. Default ``"imageplane.gif"``. None: no file.
    uv_star : array_like (2, N) or (2N,), optional
        Desired image points [pixel], drawn as crosses.
    fps : float
        Frames per second of simulated time and of playback. Default 25.
    frames : int, optional
        Number of frames over the run instead.
    trail : bool
        Draw each point's path so far. Default True.
    grid : bool
        Draw grid lines.
    title : str, optional
        Title text before the time.
    figsize : (float, float), optional
        Figure size [inch]; default 5 wide, the height from the image's aspect ratio.
    dpi : float
        Resolution of the file [dots per inch]. Default 80.
    show : bool
        Display the animation through pyplot after the run (non-blocking).

    Inputs
    ------
    uv : ndarray (2, N) or (2N,)
        Image coordinates [pixel] of N points: columns ``(u, v)``, or flat
        ``[u0, v0, u1, v1, ...]`` (the Camera block's ``flat=True`` output).

    Outputs
    -------
    None.
    """

    def __init__(self, resolution: Sequence[int] = (1024, 1024),
                 filename: FileArg = "imageplane.gif", *, uv_star: Any = None,
                 fps: float = 25.0, frames: int | None = None, trail: bool = True,
                 grid: bool = True, title: str | None = None,
                 figsize: Sequence[float] | None = None, dpi: float | None = 80.0,
                 show: bool = False):
        from blocksim.viz.animate import check_figsize
        from blocksim.viz.image_plane import ImageStyle

        cls = type(self).__name__
        self._file = _check_filename(cls, filename)
        self.fps, self.frames = _check_rate(cls, fps, frames)
        try:
            self.style = ImageStyle(resolution=resolution, uv_star=uv_star, trail=trail,
                                    grid=grid, title=title)
            self.figsize = None if figsize is None else check_figsize(figsize)
        except (TypeError, ValueError) as exc:
            raise _param_error(cls, exc) from None
        self.dpi = _check_dpi(cls, dpi)
        self.show = _check_bool(cls, "show", show)
        self.set_ports(inputs=(Port("uv", unit="pixel", doc="image points (2, N) or (2N,)"),))

    @classmethod
    def from_camera(cls, camera: Any, filename: FileArg = "imageplane.gif",
                    **options: Any) -> ImagePlane:
        """An ImagePlane with the resolution of ``camera`` (a CentralCamera)."""
        return cls(resolution=list(camera.resolution), filename=filename, **options)

    def _check_input_shape(self, shape: tuple[int, ...]) -> None:
        if len(shape) == 2 and shape[0] == 2:
            n = shape[1]
        elif len(shape) == 1 and shape[0] % 2 == 0 and shape[0] > 0:
            n = shape[0] // 2
        else:
            raise BlockParameterError(
                f"{self._what}: input 'uv' must have shape (2, N) or (2N,) (image points "
                f"[pixel]), found {shape}; feed it the 'uv' output of a Camera block")
        star = self.style.uv_star
        if star is not None and star.shape[1] != n:
            raise BlockParameterError(
                f"{self._what}: parameter 'uv_star' has {star.shape[1]} points but input "
                f"'uv' carries {n} (shape {shape}); give one target per feature point")

    def _animation(self, result: Any) -> Any:
        from blocksim.viz.image_plane import build_image_plane_animation

        return build_image_plane_animation(result.t, self._signal(result, "uv"), self.style,
                                           fps=self.fps, frames=self.frames,
                                           note=self._note(result), figsize=self.figsize,
                                           show=self.show)
