"""Trajectories: RTB point-to-point and multi-segment generators, Modern Robotics chapter 9.

Modules
-------
profiles
    Single-time numba kernels of the quintic and trapezoidal profiles (``quintic_at``,
    ``trapezoidal_at`` and their multi-axis / sampled forms): the one implementation used by
    every generator and usable by trajectory source blocks.
scalar
    RTB ``tpoly`` and ``lspb`` (with ``lspb_speed``: RTB's default speed and its errors).
joint
    RTB ``jtraj`` and ``mtraj``.
multisegment
    RTB ``mstraj``.
time_scaling
    MR ``cubic_time_scaling``, ``quintic_time_scaling``, ``joint_trajectory``.
cartesian
    RTB ``ctraj``; MR ``screw_trajectory`` and ``cartesian_trajectory``.
"""

from .cartesian import cartesian_trajectory, ctraj, screw_trajectory
from .joint import jtraj, mtraj
from .multisegment import mstraj
from .profiles import (
    quintic_at,
    quintic_axes_at,
    quintic_sampled,
    trapezoidal_at,
    trapezoidal_axes_at,
    trapezoidal_sampled,
)
from .scalar import lspb, lspb_speed, tpoly
from .time_scaling import (
    cubic_time_scaling,
    joint_trajectory,
    path_parameters,
    quintic_time_scaling,
)

__all__ = [
    "cartesian_trajectory",
    "ctraj",
    "cubic_time_scaling",
    "joint_trajectory",
    "jtraj",
    "lspb",
    "lspb_speed",
    "mstraj",
    "mtraj",
    "path_parameters",
    "quintic_at",
    "quintic_axes_at",
    "quintic_sampled",
    "quintic_time_scaling",
    "screw_trajectory",
    "tpoly",
    "trapezoidal_at",
    "trapezoidal_axes_at",
    "trapezoidal_sampled",
]
