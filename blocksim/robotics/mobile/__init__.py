"""Mobile robots: vehicle kinematics, odometry, drivers, landmark maps and sensors, EKF and
particle-filter estimation (RTB 9.10 ``Vehicle``, ``RandomPath``, ``Map``,
``RangeBearingSensor``, ``EKF``, ``ParticleFilter``; the RTB 9.10 manual, sections 2.7-2.12).

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
from blocksim.robotics.mobile.drivers import (
    braitenberg,
    drive_to_point,
    drive_to_pose,
    follow_line,
    light_field,
    path_point,
    pursuit_error,
    random_path_steer,
    sensor_positions,
)
from blocksim.robotics.mobile.ekf import EKF, EKFRecord, ParticleFilter
from blocksim.robotics.mobile.ekf_core import (
    ekf_augment,
    ekf_insert,
    ekf_predict,
    ekf_update,
    nees,
)
from blocksim.robotics.mobile.odometry import (
    odo_f,
    odo_Fv,
    odo_Fx,
    odometry,
    vehicle_control,
)
from blocksim.robotics.mobile.pf_core import (
    pf_estimate,
    pf_predict,
    pf_resample_systematic,
    pf_weights,
)
from blocksim.robotics.mobile.rangebearing import (
    rb_g,
    rb_Gx,
    rb_Gz,
    rb_h,
    rb_Hx,
    rb_Hxf,
    rb_reading,
    rb_visible,
)
from blocksim.robotics.mobile.sensors import LandmarkMap, RangeBearingSensor
from blocksim.robotics.mobile.vehicle import RandomPath, Vehicle

__all__ += [
    "EKF",
    "EKFRecord",
    "LandmarkMap",
    "ParticleFilter",
    "RandomPath",
    "RangeBearingSensor",
    "Vehicle",
    "braitenberg",
    "drive_to_point",
    "drive_to_pose",
    "ekf_augment",
    "ekf_insert",
    "ekf_predict",
    "ekf_update",
    "follow_line",
    "light_field",
    "nees",
    "odo_Fv",
    "odo_Fx",
    "odo_f",
    "odometry",
    "path_point",
    "pf_estimate",
    "pf_predict",
    "pf_resample_systematic",
    "pf_weights",
    "pursuit_error",
    "random_path_steer",
    "rb_Gx",
    "rb_Gz",
    "rb_Hx",
    "rb_Hxf",
    "rb_g",
    "rb_h",
    "rb_reading",
    "rb_visible",
    "sensor_positions",
    "vehicle_control",
]
