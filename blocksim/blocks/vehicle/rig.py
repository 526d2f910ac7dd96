"""The EKF test rig of RVC chapter 6 added to a diagram and wired: vehicle, driver, sensor, EKF.

:func:`add_ekf_rig` is to the estimator examples what
:func:`~blocksim.blocks.quadrotor.add_flight_stack` is to the multirotor ones: one place that
builds the set-up of RTB's ``EKF`` demonstrations (a :class:`Vehicle` driven through random
waypoints by :class:`RandomPath`, a :class:`RangeBearingSensor` reading a seeded landmark map,
an :class:`EKF` in one of its four modes), and :func:`add_pose_scope` the scope of the true
pose against the estimate.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from blocksim.blocks.sinks import Scope
from blocksim.blocks.vehicle.drivers import RandomPath
from blocksim.blocks.vehicle.estimators import EKF, MODES, RangeBearingSensor
from blocksim.blocks.vehicle.plot import EstimationPlot
from blocksim.blocks.vehicle.vehicles import Vehicle
from blocksim.engine.block import Block
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import BlockParameterError

__all__ = ["EKFRig", "add_ekf_rig", "add_estimation_plot", "add_pose_scope"]


class EKFRig(NamedTuple):
    """The blocks :func:`add_ekf_rig` added (``sensor`` is None for dead reckoning)."""

    vehicle: Block
    driver: Block
    ekf: Block
    sensor: Block | None


def add_ekf_rig(
    d: Diagram,
    mode: str,
    V: Any,
    W: Any,
    P0: Any,
    landmarks: int = 20,
    seed: int = 0,
    dim: float = 10.0,
    sensor_range: Any = None,
) -> EKFRig:
    """Add the blocks ``veh``, ``driver``, ``ekf`` and (but for dead reckoning) ``sensor`` to
    ``d``, in that order, and wire them::

        veh.pose -> driver.pose;  driver.v -> veh.speed;  driver.gamma -> veh.steer
        veh.pose -> sensor.pose;  sensor.z, .k, .valid -> ekf.z, .k, .valid
        veh.odo -> ekf.odo  (veh.pose -> ekf.pose when mapping)

    Parameters
    ----------
    d : Diagram
        Where the blocks are added.
    mode : str
        The :class:`EKF` mode: ``"dead_reckoning"``, ``"localisation"``, ``"mapping"`` or
        ``"slam"``.
    V : array_like (2,) or (2, 2)
        Odometry covariance [m^2, rad^2] of the vehicle, assumed by the filter too.
    W : array_like (2,) or (2, 2)
        Range-bearing covariance [m^2, rad^2] of the sensor, assumed by the filter too.
    P0 : array_like (3,) or (3, 3)
        Initial pose covariance of the filter [m^2, m^2, rad^2].
    landmarks : int
        Number of landmarks of the seeded map (``map_seed`` 0), shared by sensor and filter.
    seed : int
        Seeds: the vehicle's odometry noise ``seed``, the driver's waypoints ``seed + 1``, the
        sensor's noise ``seed + 2``.
    dim : float
        Half-size [m] of the square the driver's waypoints are drawn in.
    sensor_range : float or (float, float), optional
        The sensor's ``range``: max range or ``[min, max]`` [m] (default unlimited).

    Returns
    -------
    EKFRig
        The blocks added.
    """
    if mode not in MODES:
        raise BlockParameterError(f"add_ekf_rig: parameter 'mode' must be one of {MODES}, "
                                  f"got {mode!r}")  # fmt: skip
    veh = d.add(Vehicle(V=V, seed=seed), name="veh")
    driver = d.add(RandomPath(dim=dim, seed=seed + 1), name="driver")
    ekf = d.add(
        EKF(mode=mode, V_est=V, P0=P0, W_est=W, landmarks=landmarks, map_seed=0), name="ekf"
    )
    d.connect("veh.pose", "driver.pose")
    d.connect("driver.v", "veh.speed")
    d.connect("driver.gamma", "veh.steer")
    sensor = None
    if mode != "dead_reckoning":
        sensor = d.add(
            RangeBearingSensor(
                landmarks=landmarks, map_seed=0, W=W, range=sensor_range, seed=seed + 2
            ),
            name="sensor",
        )
        d.connect("veh.pose", "sensor.pose")
        for port in ("z", "k", "valid"):
            d.connect(f"sensor.{port}", f"ekf.{port}")
    d.connect("veh.pose" if mode == "mapping" else "veh.odo", f"ekf.{ekf.inputs[0].name}")
    return EKFRig(veh, driver, ekf, sensor)


def add_pose_scope(
    d: Diagram,
    title: str,
    estimate: Any = "ekf.x",
    label: str = "estimated pose",
    units: str = "m, m, rad",
    file: str | Path | None = None,
    show: bool = False,
) -> Block:
    """Add the scope ``scope`` of ``veh.pose`` (its first input) against ``estimate`` (a port
    reference or ``"block.port"``; its second input), drawn as stairs (discrete signals).

    Parameters
    ----------
    d : Diagram
        Where the scope is added (it must hold ``veh``).
    title, label, units : str
        The plot's title, the estimate's legend label and units.
    estimate : str or port reference
        The signal drawn against the true pose.
    file : str or Path, optional
        Where the figure is saved after the run.
    show : bool
        Show the figure.
    """
    scope = d.add(
        Scope(
            2,
            labels=["true pose", label],
            units=["m, m, rad", units],
            title=title,
            file=file,
            show=show,
            stairs=True,
            elements=[["x", "y", "θ"], ["x", "y", "θ"] if units == "m, m, rad" else None],
        ),
        name="scope",
    )
    d.connect("veh.pose", "scope.u0")
    d.connect(estimate, "scope.u1")
    return scope


def add_estimation_plot(
    d: Diagram,
    title: str,
    landmarks: Any = None,
    file: str | Path | None = None,
    show: bool = False,
    estimator: str = "ekf",
    covariance: str = "P",
) -> Block:
    """Add the figure ``estimate`` (:class:`EstimationPlot`: the map, the true and estimated
    paths with 3-sigma ellipses, the error inside its 3-sigma bounds) of ``veh.pose`` against
    ``<estimator>.x`` and its covariance ``<estimator>.<covariance>`` (a particle filter's
    ``std`` works too).

    Parameters
    ----------
    d : Diagram
        Where the figure is added (it must hold ``veh`` and the estimator).
    title : str
        The figure's title.
    landmarks : array_like, shape (M, 2), optional
        The true landmark positions [m] to draw (none for dead reckoning).
    file : str or Path, optional
        Where the figure is saved after the run.
    show : bool
        Show the figure.
    estimator, covariance : str
        The estimator block's name and the output that holds its uncertainty.
    """
    plot = d.add(EstimationPlot(landmarks, title=title, file=file, show=show), name="estimate")
    d.connect("veh.pose", "estimate.pose")
    d.connect(f"{estimator}.x", "estimate.x")
    d.connect(f"{estimator}.{covariance}", "estimate.P")
    return plot
