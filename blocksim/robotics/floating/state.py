"""Numba kernels on the state vector of a floating-base robot, in blocksim's block conventions.

State ``x`` (length ``13 + 2 nq``)::

    [r0 (3), quat (4), q (nq), v0 (3), omega0 (3), qd (nq)]

``r0`` the base centre of mass (world, m), ``quat = [s, vx, vy, vz]`` the base orientation
(base frame to world; normalised when read), ``q`` joint coordinates, ``v0`` the velocity of the
base centre of mass and ``omega0`` the base angular velocity (both world frame: RTB's
``(v, omega)`` order), ``qd`` joint rates. Base wrenches are ``[f; n]`` (world frame, at the
base centre of mass: RTB's order). Inside, the kernels of :mod:`.kernels` use SPART's
``[omega; v]`` / ``[n; f]``; the swap happens here only.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import forward_dynamics, kinematics
from .kernels_jac import center_of_mass, point_jacobian

__all__ = ["ee_jacobian", "ee_pose", "quat_to_rot", "rot_to_quat", "state_derivative"]


@njit(cache=True)
def quat_to_rot(qv):
    """Rotation matrix (3, 3) of a quaternion ``[s, vx, vy, vz]`` (normalised first)."""
    nrm = np.sqrt(qv[0] ** 2 + qv[1] ** 2 + qv[2] ** 2 + qv[3] ** 2)
    s, x, y, z = qv[0] / nrm, qv[1] / nrm, qv[2] / nrm, qv[3] / nrm
    xx, yy, zz = x * x, y * y, z * z
    return np.array([[1 - 2 * (yy + zz), 2 * (x * y - s * z), 2 * (x * z + s * y)],
                     [2 * (x * y + s * z), 1 - 2 * (xx + zz), 2 * (y * z - s * x)],
                     [2 * (x * z - s * y), 2 * (y * z + s * x), 1 - 2 * (xx + yy)]])  # fmt: skip


def rot_to_quat(R) -> np.ndarray:
    """Quaternion ``[s, vx, vy, vz]`` (s >= 0) of a rotation matrix."""
    from scipy.spatial.transform import Rotation

    x, y, z, s = Rotation.from_matrix(np.asarray(R, dtype=float)).as_quat()
    out = np.array([s, x, y, z])
    return -out if s < 0 else out


@njit(cache=True)
def split_state(x, nq):
    """(r0, R0, q, t0 = [omega; v] (SPART order), qd) of a state vector."""
    r0 = x[0:3].copy()
    R0 = quat_to_rot(x[3:7])
    q = x[7 : 7 + nq].copy()
    o = 7 + nq
    t0 = np.empty(6)
    t0[:3] = x[o + 3 : o + 6]
    t0[3:] = x[o : o + 3]
    qd = x[o + 6 : o + 6 + nq].copy()
    return r0, R0, q, t0, qd


@njit(cache=True)
def state_derivative(mdl, x, taum, wrench0, gravity, fixed):
    """dx/dt of the state for joint forces ``taum`` (nq,) and the base wrench ``wrench0``
    ``[f; n]`` (6,, world, at the base com); ``fixed`` holds the base (its rates stay 0)."""
    n = int(mdl[0])
    nq = int(mdl[1])
    r0, R0, q, t0, qd = split_state(x, nq)
    tau0 = np.empty(6)
    tau0[:3] = wrench0[3:]
    tau0[3:] = wrench0[:3]
    wF = np.zeros((n + 1, 6))
    if fixed:
        t0[:] = 0.0
    t0dot, qdd = forward_dynamics(mdl, R0, r0, t0, q, qd, tau0, taum, wF, gravity, fixed)
    dx = np.empty(x.shape[0])
    o = 7 + nq
    w = t0[:3]
    s, v1, v2, v3 = x[3], x[4], x[5], x[6]
    # quat' = 0.5 [0, w] (x) quat, with w in the world frame
    dx[3] = 0.5 * (-w[0] * v1 - w[1] * v2 - w[2] * v3)
    dx[4] = 0.5 * (w[0] * s + w[1] * v3 - w[2] * v2)
    dx[5] = 0.5 * (w[1] * s + w[2] * v1 - w[0] * v3)
    dx[6] = 0.5 * (w[2] * s + w[0] * v2 - w[1] * v1)
    dx[0:3] = t0[3:]
    dx[7:o] = qd
    dx[o : o + 3] = t0dot[3:]
    dx[o + 3 : o + 6] = t0dot[:3]
    dx[o + 6 : o + 6 + nq] = qdd
    return dx


@njit(cache=True)
def base_pose(mdl, R0, r0):
    """Pose (4, 4) of the base link frame for base orientation R0 and com position r0."""
    T = np.eye(4)
    T[:3, :3] = R0
    for a in range(3):
        T[a, 3] = r0[a] - (R0[a, 0] * mdl[3] + R0[a, 1] * mdl[4] + R0[a, 2] * mdl[5])
    return T


@njit(cache=True)
def ee_pose(mdl, R0, r0, q, link, tool):
    """Pose (4, 4) of ``tool`` (4, 4) on body index ``link`` (0 = base) in the world frame."""
    RL, pL, _rC, _rJ, _e = kinematics(mdl, R0, r0, q)
    T = np.eye(4)
    T[:3, :3] = RL[link]
    T[:3, 3] = pL[link]
    return T @ tool


@njit(cache=True)
def ee_jacobian(mdl, R0, r0, q, link, tool):
    """Base-inclusive Jacobian (6, 6+nq) of the tool point, RTB order: rows ``(v; omega)`` of
    the tool origin, columns ``(v0, omega0)`` of the base com then ``qd`` (all world frame)."""
    RL, pL, rC, rJ, e = kinematics(mdl, R0, r0, q)
    rp = np.empty(3)
    for a in range(3):
        rp[a] = pL[link, a] + (RL[link, a, 0] * tool[0, 3] + RL[link, a, 1] * tool[1, 3]
                               + RL[link, a, 2] * tool[2, 3])  # fmt: skip
    Js = point_jacobian(mdl, rC, rJ, e, link, rp)
    nq = int(mdl[1])
    J = np.empty((6, 6 + nq))
    # swap rows [omega; v] -> [v; omega] and base columns [omega0, v0] -> [v0, omega0]
    for a in range(3):
        for c in range(6 + nq):
            J[a, c] = Js[3 + a, c]
            J[3 + a, c] = Js[a, c]
    for a in range(6):
        w0, v0 = J[a, 0:3].copy(), J[a, 3:6].copy()
        J[a, 0:3] = v0
        J[a, 3:6] = w0
    return J


@njit(cache=True)
def system_com(mdl, R0, r0, q):
    """Centre of mass of the whole system (3,), world frame."""
    _RL, _pL, rC, _rJ, _e = kinematics(mdl, R0, r0, q)
    return center_of_mass(mdl, rC)
