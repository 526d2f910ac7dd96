"""Flight control laws: position/velocity/altitude loop and attitude loop.

Cascade (all in the frames of :mod:`blocksim.robotics.aerial.dynamics`: {W} z down):

1. **Position loop** (:func:`position_control_nb`): the desired acceleration
   ``a = Kp (c (p* - p0) - (p - p0)) + Kd (v* - v) + Ki xi`` (per axis; ``xi`` the integral
   of ``p* - p``, ``c`` the setpoint weight: 1 a plain PID, 0 no proportional kick on a step,
   ``p0`` the point the weight is relative to, the initial position) is
   produced by the thrust vector ``F = M (a - g e3)``, i.e. a thrust ``T = M |g e3 - a|`` along
   ``-z_B`` with ``z_B = (g e3 - a) / |g e3 - a|``; the tilt of ``z_B`` is limited to
   ``max_tilt`` and its vertical part kept >= ``g / 4`` (no inverted flight). The roll and
   pitch that give this ``z_B`` at the desired yaw are exact:
   ``z' = Rz(yaw)^T z_B = (sin pitch cos roll, -sin roll, cos pitch cos roll)``.
   At rest at its setpoint (``p = p*``, ``v = v* = 0``) with ``xi = 0`` the command is
   ``a = 0``: level, thrust ``M g`` (the hover trim), whatever ``p*`` is, as long as the
   setpoint weight acts about ``p0``. Weighting the absolute coordinates instead would
   leave ``Kp (c - 1) p*`` at rest, an acceleration of metres per second squared for a
   setpoint metres from the world's origin.
2. **Attitude loop** (:func:`attitude_control_nb`): PD on the angle errors with body-rate
   damping and gyroscopic compensation, ``tau = J (Kp e - Kd w) + w x J w``, the yaw error
   wrapped to (-pi, pi]; in yaw-rate mode the third command is the yaw rate [rad/s] and
   ``tau_z`` is ``J_zz Kd_z (r* - r)``.
3. The mixer (:mod:`blocksim.robotics.aerial.mixer`) turns ``(T, tau)`` into rotor speeds.

Default gains (:data:`POSITION_GAINS`, :data:`ATTITUDE_GAINS`) are tuned for the Toolbox's
quadrotor and work for its hexa- and octo-rotor variants: attitude natural frequency 8 rad/s
(damping 0.8) in roll and pitch; the position loop (a double integrator under PID) has a
triple pole at -1.5 rad/s in x and y (``Kp, Kd, Ki = 3 s^2, 3 s, s^3`` at ``s = 1.5``) and
at -2 rad/s in z.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = [
    "ATTITUDE_GAINS",
    "POSITION_GAINS",
    "attitude_control_nb",
    "hover_integral",
    "position_control_nb",
]

_njit = numba.njit(cache=True, error_model="numpy")

#: (Kp [1/s^2], Kd [1/s], Ki [1/s^3]) per axis x, y, z of the position loop
POSITION_GAINS = {"Kp": (6.75, 6.75, 12.0), "Kd": (4.5, 4.5, 6.0), "Ki": (3.375, 3.375, 8.0)}
#: (Kp [1/s^2], Kd [1/s]) per axis roll, pitch, yaw of the attitude loop
ATTITUDE_GAINS = {"Kp": (64.0, 64.0, 4.0), "Kd": (12.8, 12.8, 4.0)}


def hover_integral(M_vehicle, M, g, Ki):
    """The integral ``xi`` (3,) [m s] that trims the position loop to hover a vehicle of mass
    ``M_vehicle`` [kg] when the controller assumes mass ``M`` [kg] (gravity ``g`` [m/s^2],
    integral gains ``Ki`` (3,) [1/s^3]): at rest at the setpoint the commanded thrust is then
    ``M_vehicle g``, level. Zero when the masses agree.

    From ``T = M (g - a_z)`` at ``a = (0, 0, a_z)``: ``a_z = g (1 - M_vehicle / M)`` and
    ``xi_z = a_z / Ki_z`` (z down: a heavier vehicle needs ``a_z < 0``, more thrust)."""
    Ki = np.asarray(Ki, dtype=np.float64).reshape(3)
    xi = np.zeros(3)
    xi[2] = g * (1.0 - float(M_vehicle) / float(M)) / Ki[2]
    return xi


@_njit
def position_control_nb(x, p_ref, v_ref, xi, M, g, Kp, Kd, Ki, yaw, max_tilt, weight, p0):
    """Attitude command and thrust of the position loop.

    Parameters
    ----------
    x : ndarray (12,)
        The vehicle state.
    p_ref, v_ref : ndarray (3,)
        Desired position [m] and velocity [m/s] in {W} (z down).
    xi : ndarray (3,)
        Integral of the position error ``p_ref - p`` [m s].
    M, g : float
        Mass [kg] and gravity [m/s^2] the controller assumes.
    Kp, Kd, Ki : ndarray (3,)
        Gains per axis [1/s^2], [1/s], [1/s^3].
    yaw : float
        Desired yaw [rad].
    max_tilt : float
        Tilt limit of the thrust vector [rad].
    weight : ndarray (3,)
        Setpoint weight ``c`` of the proportional term.
    p0 : ndarray (3,)
        The point [m] the setpoint weight acts about (the initial position): the proportional
        term is ``Kp (c (p_ref - p0) - (p - p0))``.

    Returns
    -------
    cmd : ndarray (3,)
        Attitude command ``(roll, pitch, yaw)`` [rad].
    T : float
        Total thrust [N].
    """
    a = np.empty(3)
    for i in range(3):
        a[i] = (
            Kp[i] * (weight[i] * (p_ref[i] - p0[i]) - (x[i] - p0[i]))
            + Kd[i] * (v_ref[i] - x[6 + i])
            + Ki[i] * xi[i]
        )
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
