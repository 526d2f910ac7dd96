"""The multirotor animation sink (post-run, like :class:`~blocksim.blocks.sinks.Scope`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from blocksim.blocks.sinks.animations import (
    FileArg,
    _AnimationSink,
    _check_filename,
    _check_rate,
    _param_error,
)
from blocksim.blocks.sinks.recorders import _check_bool, _check_dpi
from blocksim.engine.block import Port
from blocksim.engine.errors import BlockParameterError

from ._params import ModelArg, model_of, shown

__all__ = ["MultiRotorPlot"]


class MultiRotorPlot(_AnimationSink):
    """Animate a multirotor in 3-D along its recorded state (roblocks *Quadrotor plot*,
    bdsim *MULTIROTORPLOT*).

    The airframe with N arms and N rotor discs coloured by spin, its shadow and its path, drawn
    after the run from the recorded ``x`` resampled onto frames every ``1 / fps`` s
    (:func:`blocksim.viz.multirotor_plot.animate_multirotor`); altitude up. During the run the
    block does nothing (no outputs, no state, no kernels needed).

    Parameters
    ----------
    model : str, dict or MultirotorModel
        The vehicle drawn (as :class:`MultiRotor`); default ``"quadrotor"``.
    filename : str or os.PathLike or None
        Animation file, ``.gif`` or ``.mp4`` (ffmpeg); its directory must exist when the run
        starts. Default ``"multirotor.gif"``. None: no file (the figure keeps the last frame).
    fps : float
        Frames per second of simulated time and of playback. Default 25.
    frames : int, optional
        Number of frames over the run instead.
    trail, shadow : bool
        Draw the path flown and the shadow. Default True.
    scale : float
        Enlarge the airframe (for long flights). Default 1.
    workspace : (6,) array_like, optional
        Display limits [m] (x, -y, altitude); default the flown box.
    view : (float, float)
        Elevation and azimuth [deg].
    title : str, optional
        Title text before the time.
    figsize : (float, float)
        Figure size [inch].
    dpi : float
        Resolution of the file [dots per inch]. Default 80.
    show : bool
        Display after the run through pyplot (non-blocking).

    Inputs
    ------
    x : ndarray (12,)
        The vehicle state (:class:`MultiRotor`'s ``x``).

    Outputs
    -------
    None.
    """

    def __init__(
        self,
        model: ModelArg = "quadrotor",
        filename: FileArg = "multirotor.gif",
        *,
        fps: float = 25.0,
        frames: int | None = None,
        trail: bool = True,
        shadow: bool = True,
        scale: float = 1.0,
        workspace: Sequence[float] | None = None,
        view: Sequence[float] = (25.0, -60.0),
        title: str | None = None,
        figsize: Sequence[float] = (5.0, 5.0),
        dpi: float | None = 80.0,
        show: bool = False,
    ):
        from blocksim.viz.animate import check_figsize
        from blocksim.viz.multirotor_plot import _workspace

        cls = type(self).__name__
        self.model = model_of(cls, model)
        self._file = _check_filename(cls, filename)
        self.fps, self.frames = _check_rate(cls, fps, frames)
        self.trail = _check_bool(cls, "trail", trail)
        self.shadow = _check_bool(cls, "shadow", shadow)
        if (
            isinstance(scale, bool)
            or not isinstance(scale, (int, float))
            or not math.isfinite(scale)
            or scale <= 0
        ):
            raise BlockParameterError(
                f"{cls}: parameter 'scale' must be a positive number, got {shown(scale)}"
            )
        self.scale = float(scale)
        try:
            if workspace is not None:
                _workspace(None, workspace, 0.0)  # type: ignore[arg-type]
            self.workspace = None if workspace is None else tuple(float(v) for v in workspace)
            self.view = (float(view[0]), float(view[1]))
            self.figsize = check_figsize(figsize)
        except (TypeError, ValueError, IndexError) as exc:
            raise _param_error(cls, exc) from None
        self.title = title
        self.dpi = _check_dpi(cls, dpi)
        self.show = _check_bool(cls, "show", show)
        self.set_ports(inputs=(Port("x", shape=(12,), doc="vehicle state"),))

    def _check_input_shape(self, shape: tuple[int, ...]) -> None:
        if shape != (12,):
            raise BlockParameterError(
                f"{self._what}: input 'x' must be the 12-element multirotor state, found "
                f"shape {shape}; feed it the 'x' output of a MultiRotor block"
            )

    def _animation(self, result: Any) -> Any:
        from blocksim.viz.multirotor_plot import build_multirotor_animation

        return build_multirotor_animation(
            self.model,
            result.t,
            self._signal(result, "x"),
            fps=self.fps,
            frames=self.frames,
            trail=self.trail,
            shadow=self.shadow,
            scale=self.scale,
            workspace=self.workspace,
            view=self.view,
            title=self.title,
            note=self._note(result),
            figsize=self.figsize,
            show=self.show,
        )
