"""VehiclePlot: the animation sink of planar vehicles (RTB ``Vehicle.plot``/``plot_vehicle``);
EstimationPlot: the figure of an estimator's run (RTB ``EKF.plot_map``/``plot_error``).

Post-run sinks like :class:`~blocksim.blocks.sinks.animations.ArmPlot`: nothing happens
during the run; after it (on every exit path) the recorded inputs are drawn, headless: by
:func:`blocksim.viz.vehicle_plot.build_vehicle_animation` and written to ``filename``
(``.gif`` through Pillow, ``.mp4`` through ffmpeg), or by
:func:`blocksim.viz.estimation_plot.plot_estimation` and stored in ``result.figures`` (so
``blocksim run --plot`` saves it) and, when given, saved to ``file``.
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
from blocksim.blocks.sinks.recorders import (
    FIGURE_SUFFIXES,
    _check_bool,
    _check_dpi,
    _check_figsize,
    _check_file,
    _check_optional_str,
    _check_raster,
    _Sink,
)
from blocksim.blocks.vehicle._checks import landmarks as check_landmarks
from blocksim.blocks.vehicle._checks import positive
from blocksim.engine.block import Port
from blocksim.engine.errors import BlockParameterError

__all__ = ["EstimationPlot", "VehiclePlot"]


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


class EstimationPlot(_Sink):
    """The figure of a vehicle state estimator's run: the map (true landmarks, estimated
    landmarks with their ellipses, true and estimated paths, pose ellipses) and the pose error
    in x, y, theta against time inside its ``±nsigma`` bounds (RTB ``EKF.plot_map``,
    ``plot_xy``, ``plot_ellipse``, ``plot_error``).

    The figure (:func:`blocksim.viz.estimation_plot.plot_estimation`) is stored in
    ``result.figures`` under the block's name after the run (``blocksim run --plot`` saves
    it), also after a failed run (the partial run, the title noting where it ended).

    Parameters
    ----------
    landmarks : int, array_like (M, 2) or None
        The true landmarks to draw (a count is a random map as in
        :class:`~blocksim.blocks.vehicle.RangeBearingSensor`, with ``dim`` and ``map_seed``).
    dim, map_seed : float, int
        Of a random map.
    nsigma : float
        Bounds and ellipses at ``nsigma`` standard deviations (default 3).
    every : int
        A pose ellipse on the map every ``every`` samples (default 50; 0: none).
    title : str, optional
        Figure title.
    file : str or os.PathLike, optional
        Save the figure there after the run (.png, .pdf, .svg, ...).
    show : bool
        Display the figure after the run.
    figsize : (float, float), optional
        Figure size [inch].
    dpi : float, optional
        Resolution of the saved file.

    Inputs
    ------
    pose : ndarray (3,)
        The true pose (x, y, theta) [m, m, rad].
    x : ndarray (n,)
        The estimate, as the :class:`~blocksim.blocks.vehicle.EKF` outputs it: a pose (n = 3),
        a SLAM state (3 + 2M) or a map (2M, mapping: no pose error then).
    P : ndarray (n, n) or (n,)
        Its covariance (``EKF.P``) or standard deviations (``ParticleFilter.std``).

    Outputs
    -------
    None.
    """

    inputs = (
        Port("pose", doc="true pose (x, y, theta) [m, m, rad]"),
        Port("x", doc="estimate: pose, SLAM state or map"),
        Port("P", doc="covariance (n, n) or standard deviations (n,)"),
    )

    def __init__(
        self,
        landmarks: Any = None,
        *,
        dim: float = 10.0,
        map_seed: int = 0,
        nsigma: float = 3.0,
        every: int = 50,
        title: str | None = None,
        file: Any = None,
        show: bool = False,
        figsize: Sequence[float] | None = None,
        dpi: float | None = None,
    ) -> None:
        super().__init__()
        cls = type(self).__name__
        self.landmarks = (
            None if landmarks is None else check_landmarks(cls, landmarks, dim, int(map_seed))
        )
        self.nsigma = positive(cls, "nsigma", nsigma)
        if isinstance(every, bool) or not isinstance(every, (int, np.integer)) or every < 0:
            raise BlockParameterError(
                f"{cls}: parameter 'every' must be an int >= 0 (samples), found {every!r}")
        self.every = int(every)
        self.title = _check_optional_str(cls, "title", title)
        self._file = _check_file(cls, file, FIGURE_SUFFIXES, "figure")
        self.show = _check_bool(cls, "show", show)
        self.figsize = _check_figsize(cls, figsize)
        self.dpi = _check_dpi(cls, dpi)
        _check_raster(cls, self.figsize, self.dpi)

    @property
    def file(self) -> Any:
        """Where the figure is saved after the run, or None."""
        return self._file

    def start(self, run: Any) -> None:
        """Check the directory of ``file`` and the inputs' shapes, before the run."""
        super().start(run)
        plan = getattr(run, "plan", None)
        for e in getattr(plan, "entries", ()):
            if e.block is self and all(slot >= 0 for slot in e.in_slots):
                self._check_shapes(*(tuple(plan.signal_shapes[s]) for s in e.in_slots))

    def _check_shapes(self, pose: tuple[int, ...], x: tuple[int, ...],
                      P: tuple[int, ...]) -> None:  # fmt: skip
        n = x[0] if len(x) == 1 else -1
        if pose != (3,) or n < 2 or P not in ((n, n), (n,)):
            raise BlockParameterError(
                f"{self._what}: inputs must be 'pose' (3,), 'x' (n,) with n = 3, 3 + 2M or 2M "
                f"and 'P' (n, n) or (n,), found {pose}, {x} and {P}")

    def stop(self, run: Any) -> None:
        """Draw the recorded inputs into ``run.result.figures[name]``; save and show it."""
        self._guarded(run, self._finish)

    def _finish(self, result: Any) -> None:
        import functools

        from blocksim.viz.estimation_plot import plot_estimation

        if np.asarray(result.t).size == 0:  # refused before the run: nothing to draw
            return
        pose, x, P = (self._signal(result, p) for p in ("pose", "x", "P"))
        self._check_shapes(pose.shape[1:], x.shape[1:], P.shape[1:])
        draw = functools.partial(plot_estimation, result.t, pose, x, P, self.landmarks,
                                 nsigma=self.nsigma, every=self.every,
                                 title=self._title(self.title, result), figsize=self.figsize,
                                 show=self.show)  # fmt: skip
        self._store(result, draw, self.show, self.dpi)
