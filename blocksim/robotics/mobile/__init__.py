"""Mobile robots: vehicle kinematics, odometry, drivers, landmark maps and sensors, EKF and
particle-filter estimation (RTB 9.10 ``Vehicle``, ``RandomPath``, ``Map``,
``RangeBearingSensor``, ``EKF``, ``ParticleFilter``; seed 000 sections 2.7-2.12).

Pure numerics: numpy arrays in and out, hot paths compiled with numba. Nothing here imports
:mod:`blocksim.engine`, :mod:`blocksim.blocks` or plotting.
"""

from blocksim.robotics.mobile.kinematics import (
    PIONEER_PARAMS,
    bicycle_deriv,
    bicycle_radius,
    bicycle_step,
    diffsteer_speeds,
    pioneer_deriv,
    rate_limit_deriv,
    unicycle_deriv,
    unicycle_step,
    wrap_angle,
)

__all__ = [
    "PIONEER_PARAMS",
    "bicycle_deriv",
    "bicycle_radius",
    "bicycle_step",
    "diffsteer_speeds",
    "pioneer_deriv",
    "rate_limit_deriv",
    "unicycle_deriv",
    "unicycle_step",
    "wrap_angle",
]
