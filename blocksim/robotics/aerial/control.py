"""Flight control laws: position/velocity/altitude loop and attitude loop.

Cascade (all in the frames of :mod:`blocksim.robotics.aerial.dynamics`: {W} z down):

1. **Position loop** (:func:`position_control_nb`): the desired acceleration
   ``a = Kp (c p* - p) + Kd (v* - v) + Ki xi`` (per axis; ``xi`` the integral of ``p* - p``,
   ``c`` the setpoint weight: 1 a plain PID, 0 no proportional kick on a step) is
   produced by the thrust vector ``F = M (a - g e3)``, i.e. a thrust ``T = M |g e3 - a|`` along
   ``-z_B`` with ``z_B = (g e3 - a) / |g e3 - a|``; the tilt of ``z_B`` is limited to
   ``max_tilt`` and its vertical part kept >= ``g / 4`` (no inverted flight). The roll and
   pitch that give this ``z_B`` at the desired yaw are exact:
   ``z' = Rz(yaw)^T z_B = (sin pitch cos roll, -sin roll, cos pitch cos roll)``.
2. **Attitude loop** (:func:`attitude_control_nb`): PD on the angle errors with body-rate
   damping and gyroscopic compensation, ``tau = J (Kp e - Kd w) + w x J w``, the yaw error
   wrapped to (-pi, pi]; in yaw-rate mode the third command is the yaw rate [rad/s] and
   ``tau_z`` is ``J_zz Kd_z (r* - r)``.
3. The mixer (:mod:`blocksim.robotics.aerial.mixer`) turns ``(T, tau)`` into rotor speeds.

Default gains (:data:`POSITION_GAINS`, :data:`ATTITUDE_GAINS`) are tuned for the Toolbox's
quadrotor and work for its hexa- and octo-rotor variants: attitude natural frequency 8 rad/s
(damping 0.8) in roll and pitch, position poles about 1.5 rad/s.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["ATTITUDE_GAINS", "POSITION_GAINS", "attitude_control_nb", "position_control_nb"]

_njit = numba.njit(cache=True, error_model="numpy")

#: (Kp [1/s^2], Kd [1/s], Ki [1/s^3]) per axis x, y, z of the position loop
POSITION_GAINS = {"Kp": (6.75, 6.75, 12.0), "Kd": (4.5, 4.5, 6.0), "Ki": (3.375, 3.375, 8.0)}
#: (Kp [1/s^2], Kd [1/s]) per axis roll, pitch, yaw of the attitude loop
ATTITUDE_GAINS = {"Kp": (64.0, 64.0, 4.0), "Kd": (12.8, 12.8, 4.0)}


@_njit
def position_control_nb(x, p_ref, v_ref, xi, M, g, Kp, Kd, Ki, yaw, max_tilt, weight):
    """Attitude command ``(roll, pitch, yaw)`` (3,) [rad] and thrust ``T`` [N] for the state
    ``x`` (12,), the desired position ``p_ref`` (3,) [m] and velocity ``v_ref`` (3,) [m/s] in
    {W}, the integral ``xi`` (3,) [m s] of the position error, mass ``M`` [kg], gravity ``g``
    [m/s^2], gains (3,) each, desired yaw [rad], tilt limit [rad] and the setpoint weight
    (3,) of the proportional term."""
    a = np.empty(3)
    for i in range(3):
        a[i] = Kp[i] * (weight[i] * p_ref[i] - x[i]) + Kd[i] * (v_ref[i] - x[6 + i]) + Ki[i] * xi[i]
    nx, ny, nz = -a[0], -a[1], g - a[2]
    nz = max(nz, 0.25 * g)
    h = math.sqrt(nx * nx + ny * ny)
    hmax = nz * math.tan(max_tilt)
    if h > hmax:
        nx *= hmax / h
        ny *= hmax / h
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    cy, sy = math.cos(yaw), math.sin(yaw)
    zx = (cy * nx + sy * ny) / nn
    zy = (-sy * nx + cy * ny) / nn
    zz = nz / nn
    cmd = np.empty(3)
    cmd[0] = math.asin(min(1.0, max(-1.0, -zy)))
    cmd[1] = math.atan2(zx, zz)
    cmd[2] = yaw
    return cmd, M * nn


@_njit
def attitude_control_nb(att_ref, x, J, Kp, Kd, yaw_rate):
    """Body torques ``(tau_roll, tau_pitch, tau_yaw)`` [N m] for the attitude command
    ``att_ref`` (3,) ``(roll, pitch, yaw)`` [rad] (``yaw_rate``: the third element is the yaw
    rate [rad/s]) at the state ``x`` (12,), inertia ``J`` (3, 3) [kg m^2], gains (3,)."""
    w = x[9:12]
    e0 = att_ref[0] - x[3]
    e1 = att_ref[1] - x[4]
    a0 = Kp[0] * e0 - Kd[0] * w[0]
    a1 = Kp[1] * e1 - Kd[1] * w[1]
    if yaw_rate:
        a2 = Kd[2] * (att_ref[2] - w[2])
    else:
        e2 = att_ref[2] - x[5]
        e2 = e2 - 2.0 * math.pi * math.floor((e2 + math.pi) / (2.0 * math.pi))
        a2 = Kp[2] * e2 - Kd[2] * w[2]
    Jw0 = J[0, 0] * w[0] + J[0, 1] * w[1] + J[0, 2] * w[2]
    Jw1 = J[1, 0] * w[0] + J[1, 1] * w[1] + J[1, 2] * w[2]
    Jw2 = J[2, 0] * w[0] + J[2, 1] * w[1] + J[2, 2] * w[2]
    t0 = J[0, 0] * a0 + J[0, 1] * a1 + J[0, 2] * a2 + (w[1] * Jw2 - w[2] * Jw1)
    t1 = J[1, 0] * a0 + J[1, 1] * a1 + J[1, 2] * a2 + (w[2] * Jw0 - w[0] * Jw2)
    t2 = J[2, 0] * a0 + J[2, 1] * a1 + J[2, 2] * a2 + (w[0] * Jw1 - w[1] * Jw0)
    return t0, t1, t2
