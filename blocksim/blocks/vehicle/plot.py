"""VehiclePlot: the animation sink of planar vehicles (RTB ``Vehicle.plot``/``plot_vehicle``).

A post-run sink like :class:`~blocksim.blocks.sinks.animations.ArmPlot`: nothing happens
during the run; after it (on every exit path) the recorded inputs are drawn by
:func:`blocksim.viz.vehicle_plot.build_vehicle_animation` and written to ``filename``
(``.gif`` through Pillow, ``.mp4`` through ffmpeg), headless.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks.sinks.animations import (
    FileArg,
    _AnimationSink,
    _check_filename,
    _check_rate,
    _param_error,
)
from blocksim.blocks.sinks.recorders import _check_bool, _check_dpi
from blocksim.blocks.vehicle._checks import landmarks as check_landmarks
from blocksim.blocks.vehicle._checks import positive
from blocksim.engine.block import Port
from blocksim.engine.errors import BlockParameterError

__all__ = ["VehiclePlot"]


class VehiclePlot(_AnimationSink):
    """Animate a planar vehicle: car or triangle, trail, landmarks, sensor rays, covariance
    ellipses, particles.

    Parameters
    ----------
    filename : str or os.PathLike or None
        ``.gif`` or ``.mp4`` written after the run (default ``"vehicle.gif"``); None: none.
    shape : {"car", "triangle"}
        Drawing of the vehicle (default ``"car"``).
    size : float
        Its length [m] (default 1).
    landmarks : int, array_like (M, 2) or None
        Landmarks to draw (a count is drawn like :class:`LandmarkMap` with ``dim`` and
        ``map_seed``).
    dim, map_seed : float, int
        Of a random map.
    covariance : bool
        Add the input ``P`` (n, n): the pose's ellipse (first 2x2 block); when ``slam`` also
        the landmarks' ellipses about the estimates in ``pose`` (3 + 2M).
    slam : bool
        ``pose`` is a SLAM state (3 + 2M) and ``P`` its covariance.
    rays : bool
        Add inputs ``k`` and ``valid`` (a range-bearing sensor's): a ray to the landmark seen.
    particles : bool
        Add the input ``particles`` (np, 3).
    nsigma : float
        Ellipses at ``nsigma`` standard deviations (default 3).
    trail : bool
        Draw the path (default True).
    workspace : (4,) array_like or None
        ``(xmin, xmax, ymin, ymax)`` [m].
    fps : float
        Frames per second (default 10).
    frames : int or None
        Number of frames instead.
    title : str or None
    figsize : (float, float)
    dpi : float
    show : bool
        Display through pyplot after the run.

    Inputs
    ------
    pose : ndarray (3,) or (3 + 2M,)
        Pose (and SLAM landmark estimates).
    P, k, valid, particles :
        As enabled above.

    Outputs
    -------
    None.
    """

    def __init__(
        self,
        filename: FileArg = "vehicle.gif",
        *,
        shape: str = "car",
        size: float = 1.0,
        landmarks: Any = None,
        dim: float = 10.0,
        map_seed: int = 0,
        covariance: bool = False,
        slam: bool = False,
        rays: bool = False,
        particles: bool = False,
        nsigma: float = 3.0,
        trail: bool = True,
        workspace: Sequence[float] | None = None,
        fps: float = 10.0,
        frames: int | None = None,
        title: str | None = None,
        figsize: Sequence[float] = (5.0, 5.0),
        dpi: float | None = 80.0,
        show: bool = False,
    ) -> None:
        from blocksim.viz.animate import check_figsize
        from blocksim.viz.vehicle_plot import VehicleStyle

        cls = type(self).__name__
        self._file = _check_filename(cls, filename)
        self.fps, self.frames = _check_rate(cls, fps, frames)
        try:
            self.style = VehicleStyle(
                shape=shape,
                size=positive(cls, "size", size),
                trail=bool(trail),
                workspace=None if workspace is None else tuple(float(v) for v in workspace),
                nsigma=positive(cls, "nsigma", nsigma),
                title=title,
            )
            self.figsize = check_figsize(figsize)
        except (TypeError, ValueError) as exc:
            raise _param_error(cls, exc) from None
        self.landmarks = (
            None if landmarks is None else check_landmarks(cls, landmarks, dim, int(map_seed))
        )
        if rays and self.landmarks is None:
            raise BlockParameterError(f"{cls}: parameter 'rays' needs the 'landmarks'")
        self.dpi = _check_dpi(cls, dpi)
        self.show = _check_bool(cls, "show", show)
        self.covariance, self.slam = bool(covariance), bool(slam)
        self.rays, self.particles = bool(rays), bool(particles)
        ins = [Port("pose", doc="pose (x, y, theta) [m, m, rad] (+ SLAM landmarks)")]
        if self.covariance:
            ins.append(Port("P", doc="covariance"))
        if self.rays:
            ins += [Port("k", doc="landmark seen"), Port("valid", doc="1 when seen")]
        if self.particles:
            ins.append(Port("particles", doc="particles (np, 3)"))
        self.set_ports(inputs=ins)

    def _check_input_shape(self, shape: tuple[int, ...]) -> None:
        if len(shape) != 1 or shape[0] < 3 or (not self.slam and shape[0] != 3):
            raise BlockParameterError(
                f"{self._what}: input 'pose' must have shape (3,) (or (3 + 2M,) with slam=True), "
                f"found {shape}"
            )

    def _animation(self, result: Any) -> Any:
        from blocksim.viz.vehicle_plot import build_vehicle_animation

        names = [p.name for p in self.inputs]
        sig = {n: np.asarray(self._signal(result, n)) for n in names}
        rays = (np.zeros((len(result.t), 2)), sig["k"], sig["valid"]) if self.rays else None
        return build_vehicle_animation(
            result.t,
            sig["pose"],
            self.style,
            landmarks=self.landmarks,
            P=sig.get("P"),
            landmark_P=self.slam,
            particles=sig.get("particles"),
            rays=rays,
            fps=self.fps,
            frames=self.frames,
            note=self._note(result),
            figsize=self.figsize,
            show=self.show,
        )
