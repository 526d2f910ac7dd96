"""Blocks for mobile robots: vehicles, drivers, landmark sensor, estimators, path source.

Numerics in :mod:`blocksim.robotics.mobile`; every block has compiled kernels except where its
docstring says otherwise (a user Python field in ``Braitenberg``). :func:`add_ekf_rig` adds
the EKF set-up of RVC chapter 6 (vehicle, driver, sensor, filter) to a diagram.
"""

from blocksim.blocks.vehicle.drivers import (
    Braitenberg,
    BraitenbergField,
    DriveToPoint,
    DriveToPose,
    FollowLine,
    PathSource,
    PurePursuit,
    RandomPath,
)
from blocksim.blocks.vehicle.estimators import EKF, ParticleFilter, RangeBearingSensor
from blocksim.blocks.vehicle.plot import EstimationPlot, VehiclePlot
from blocksim.blocks.vehicle.rig import EKFRig, add_ekf_rig, add_estimation_plot, add_pose_scope
from blocksim.blocks.vehicle.vehicles import Bicycle, DiffSteer, PioneerDynamics, Unicycle, Vehicle

__all__ = [
    "EKF",
    "Bicycle",
    "Braitenberg",
    "BraitenbergField",
    "DiffSteer",
    "DriveToPoint",
    "DriveToPose",
    "EKFRig",
    "EstimationPlot",
    "FollowLine",
    "ParticleFilter",
    "PathSource",
    "PioneerDynamics",
    "PurePursuit",
    "RandomPath",
    "RangeBearingSensor",
    "Unicycle",
    "Vehicle",
    "VehiclePlot",
    "add_ekf_rig",
    "add_estimation_plot",
    "add_pose_scope",
]
