"""N-rotor rigid-body dynamics with blade flapping (RTB 9.10 ``nrotor_dynamics``, Pounds 2007).

State ``x`` (12,), the order used everywhere in blocksim's multirotor code:

====  ==========================  ===========================================================
idx   symbol                      meaning
====  ==========================  ===========================================================
0-2   ``p = (x, y, z)``           position of the CoG in {W} [m], z down (altitude ``-z``)
3-5   ``(roll, pitch, yaw)``      attitude angles [rad]: ``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)``
6-8   ``v``                       velocity of the CoG in {W} [m/s]
9-11  ``w = (p, q, r)``           angular velocity in {B} [rad/s]
====  ==========================  ===========================================================

``R`` (:func:`rpy_to_rotation_nb`) maps body to world coordinates. In the project's
:func:`~blocksim.robotics.spatial.rpy2r` terms ``R = rpy2r([yaw, pitch, roll], order="zyx")``;
in the Python Robotics Toolbox's ``rpy2r([roll, pitch, yaw], order="zyx")``. **Upstream**
(RTB 9.10 and RTB-Python ``MultiRotor``) stores the same angles in the reverse order
``(yaw, pitch, roll)`` while its plot block reads ``(roll, pitch, yaw)``; reverse ``x[3:6]``
to convert.

Equations (:func:`nrotor_deriv_nb`), for rotor speeds ``omega`` (N,) [rad/s] (signed, see
:mod:`blocksim.robotics.aerial.model`) and a constant wind ``u_w`` in {W} [m/s]:

* per rotor, the hub's velocity relative to the air in {B}: ``V_i = R^T (v - u_w) + w x D_i``;
  advance ratio ``mu = |V_i,xy| / (|omega_i| r)``, normal inflow ``lc = V_i,z / (|omega_i| r)``;
  longitudinal flapping in the direction of ``V_i,xy``,
  ``beta = ((8/3 theta0 + 2 theta1) mu - 2 lc mu) / (1 - mu^2 / 2)``, rotated into the body
  axes and with the gyroscopic lag: ``a1s = beta cos j - 16 q / (gamma |omega_i|)``,
  ``b1s = -beta sin j - 16 p / (gamma |omega_i|)`` (``j`` the azimuth of ``V_i,xy``);
* thrust ``T_i = b omega_i^2 (-cos b1s sin a1s, sin b1s, -cos a1s cos b1s)`` in {B};
  drag reaction torque ``Q_i = -k omega_i |omega_i| e3``; thrust moment ``D_i x T_i``;
* ``dp/dt = v``; ``d(angles)/dt = W(angles)^-1 w``; ``dv/dt = g e3 + R sum(T_i) / M``;
  ``J dw/dt = sum(D_i x T_i) + sum(Q_i) - w x J w``.

Differences from upstream, deliberately: the thrust moment is ``D_i x T_i`` (upstream writes
``T_i x D_i``, the opposite sign); ``V_i`` uses the body-frame velocity (upstream adds the
world-frame velocity to ``w x D_i``); a rotor at rest (``omega_i = 0``) gives no force instead
of an error; the flapping is optional. Without flapping, or in hover (``v = u_w``, ``w = 0``),
the rotor forces are exactly ``b omega^2`` along ``-z_B``.

Ground contact (the plane ``z = 0``, crash detection upstream by clamping) is an event here:
:func:`ground_crossing_nb` falls through 0 when the vehicle reaches the ground, the impact is
plastic (:func:`ground_impact_nb`: velocities zeroed) and while the vehicle rests on the ground
and its net force presses it down, :func:`nrotor_deriv_nb` returns zero (the ground's reaction
holds it).

All kernels are ``numba.njit(cache=True)``; no LAPACK: the inverse inertia is precomputed.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = [
    "body_velocity_nb",
    "camera_pose_nb",
    "euler_rates_nb",
    "flapping_nb",
    "ground_crossing_nb",
    "ground_impact_nb",
    "nrotor_deriv_nb",
    "pose_nb",
    "rotor_forces_nb",
    "rpy_to_rotation_nb",
]

_njit = numba.njit(cache=True, error_model="numpy")

#: a rotor slower than this [rad/s] produces nothing (and no flapping: mu would divide by 0)
OMEGA_EPS = 1e-9


@_njit
def rpy_to_rotation_nb(roll, pitch, yaw):
    """``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)`` (3, 3), body to world."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    R = np.empty((3, 3))
    R[0, 0] = cy * cp
    R[0, 1] = cy * sp * sr - sy * cr
    R[0, 2] = cy * sp * cr + sy * sr
    R[1, 0] = sy * cp
    R[1, 1] = sy * sp * sr + cy * cr
    R[1, 2] = sy * sp * cr - cy * sr
    R[2, 0] = -sp
    R[2, 1] = cp * sr
    R[2, 2] = cp * cr
    return R


@_njit
def euler_rates_nb(roll, pitch, p, q, r):
    """Rates (3,) of ``(roll, pitch, yaw)`` [rad/s] for the body angular velocity
    ``(p, q, r)`` [rad/s] (singular at ``pitch = +-pi/2``)."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp = math.cos(pitch)
    a = q * sr + r * cr
    out = np.empty(3)
    out[0] = p + a * math.sin(pitch) / cp
    out[1] = q * cr - r * sr
    out[2] = a / cp
    return out


@_njit
def flapping_nb(V, w, omega, r, gamma, theta0, theta1):
    """Flapping angles ``(a1s, b1s)`` [rad] of a rotor turning at ``omega`` [rad/s] whose hub
    moves at ``V`` (3,) relative to the air in {B}, on a body turning at ``w`` (3,) [rad/s]."""
    wr = abs(omega) * r
    mu = math.sqrt(V[0] * V[0] + V[1] * V[1]) / wr
    lc = V[2] / wr
    beta = ((8.0 / 3.0 * theta0 + 2.0 * theta1) * mu - 2.0 * lc * mu) / (1.0 - mu * mu / 2.0)
    j = math.atan2(V[1], V[0])
    lag = 16.0 / gamma / abs(omega)
    return beta * math.cos(j) - lag * w[1], -beta * math.sin(j) - lag * w[0]


@_njit
def rotor_forces_nb(x, omega, D, b, k, r, gamma, theta0, theta1, wind, flapping):
    """Total rotor force (3,) [N] and torque (3,) [N m] on the body, in {B}, and the flapping
    angles ``a1s``, ``b1s`` (N,) [rad], for the state ``x`` (12,) and rotor speeds ``omega``
    (N,) [rad/s]."""
    R = rpy_to_rotation_nb(x[3], x[4], x[5])
    w = x[9:12]
    vb = np.zeros(3)
    for i in range(3):
        vb[i] = R[0, i] * (x[6] - wind[0]) + R[1, i] * (x[7] - wind[1]) + R[2, i] * (x[8] - wind[2])
    n = omega.shape[0]
    F = np.zeros(3)
    tau = np.zeros(3)
    a1s = np.zeros(n)
    b1s = np.zeros(n)
    V = np.empty(3)
    for i in range(n):
        wi = omega[i]
        if abs(wi) <= OMEGA_EPS:
            continue
        dx, dy, dz = D[0, i], D[1, i], D[2, i]
        a = 0.0
        c = 0.0
        if flapping:
            V[0] = vb[0] + w[1] * dz - w[2] * dy
            V[1] = vb[1] + w[2] * dx - w[0] * dz
            V[2] = vb[2] + w[0] * dy - w[1] * dx
            a, c = flapping_nb(V, w, wi, r, gamma, theta0, theta1)
            a1s[i] = a
            b1s[i] = c
        T = b * wi * wi
        fx = -T * math.cos(c) * math.sin(a)
        fy = T * math.sin(c)
        fz = -T * math.cos(a) * math.cos(c)
        F[0] += fx
        F[1] += fy
        F[2] += fz
        tau[0] += dy * fz - dz * fy
        tau[1] += dz * fx - dx * fz
        tau[2] += dx * fy - dy * fx - k * wi * abs(wi)
    return F, tau, a1s, b1s


@_njit
def nrotor_deriv_nb(
    x, omega, M, g, J, Jinv, D, b, k, r, gamma, theta0, theta1, wind, flapping, ground
):
    """State derivative (12,) of the N-rotor (module docstring); ``ground`` enables the rest
    on the ground plane ``z = 0``."""
    F, tau, _, _ = rotor_forces_nb(x, omega, D, b, k, r, gamma, theta0, theta1, wind, flapping)
    R = rpy_to_rotation_nb(x[3], x[4], x[5])
    dx = np.empty(12)
    for i in range(3):
        dx[i] = x[6 + i]
        dx[6 + i] = (R[i, 0] * F[0] + R[i, 1] * F[1] + R[i, 2] * F[2]) / M
    dx[8] += g
    if (
        ground
        and x[2] >= 0.0
        and dx[8] >= 0.0
        and x[6] == 0.0
        and x[7] == 0.0
        and x[8] == 0.0
        and x[9] == 0.0
        and x[10] == 0.0
        and x[11] == 0.0
    ):
        return np.zeros(12)  # resting on the ground, pressed onto it
    er = euler_rates_nb(x[3], x[4], x[9], x[10], x[11])
    dx[3] = er[0]
    dx[4] = er[1]
    dx[5] = er[2]
    w = x[9:12]
    Jw = np.empty(3)
    for i in range(3):
        Jw[i] = J[i, 0] * w[0] + J[i, 1] * w[1] + J[i, 2] * w[2]
    m0 = tau[0] - (w[1] * Jw[2] - w[2] * Jw[1])
    m1 = tau[1] - (w[2] * Jw[0] - w[0] * Jw[2])
    m2 = tau[2] - (w[0] * Jw[1] - w[1] * Jw[0])
    for i in range(3):
        dx[9 + i] = Jinv[i, 0] * m0 + Jinv[i, 1] * m1 + Jinv[i, 2] * m2
    return dx


@_njit
def body_velocity_nb(x):
    """Velocity of the CoG in {B} (3,) [m/s]: ``R^T v``."""
    R = rpy_to_rotation_nb(x[3], x[4], x[5])
    vb = np.empty(3)
    for i in range(3):
        vb[i] = R[0, i] * x[6] + R[1, i] * x[7] + R[2, i] * x[8]
    return vb


@_njit
def pose_nb(x):
    """Homogeneous pose (4, 4) of {B} in {W}: ``[[R, p], [0, 1]]``."""
    R = rpy_to_rotation_nb(x[3], x[4], x[5])
    T = np.zeros((4, 4))
    for i in range(3):
        for j in range(3):
            T[i, j] = R[i, j]
        T[i, 3] = x[i]
    T[3, 3] = 1.0
    return T


@_njit
def ground_crossing_nb(x):
    """Height above the ground plane ``-z`` [m]: falls through 0 at touchdown."""
    return -x[2]


@_njit
def ground_impact_nb(x):
    """State after a plastic touchdown: on the ground (``z = 0``), velocities zeroed."""
    out = x.copy()
    out[2] = 0.0
    for i in range(6, 12):
        out[i] = 0.0
    return out


@_njit
def camera_pose_nb(x, mount, gimbal):
    """Pose (4, 4) in {W} of a camera fixed to the body at ``mount`` (4, 4) (its pose in
    {B}); with ``gimbal`` the body's roll and pitch are removed first (a stabilised camera:
    the body pose becomes ``[Rz(yaw), p]``)."""
    if gimbal:
        R = rpy_to_rotation_nb(0.0, 0.0, x[5])
    else:
        R = rpy_to_rotation_nb(x[3], x[4], x[5])
    T = np.zeros((4, 4))
    for i in range(3):
        for j in range(4):
            T[i, j] = R[i, 0] * mount[0, j] + R[i, 1] * mount[1, j] + R[i, 2] * mount[2, j]
        T[i, 3] += x[i]
    T[3, 3] = 1.0
    return T
