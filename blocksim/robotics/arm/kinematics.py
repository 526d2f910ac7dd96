"""Forward kinematics and Jacobians of a serial-link arm as numba kernels.

The kernels work on one flat float64 vector ``kin`` packed from the fields of
:class:`~.layout.ArmArrays` by :func:`pack_kinematics` (numba's dispatch costs about 0.2 µs per
array argument, so one packed vector instead of six arrays keeps a call near 1 µs).
:class:`~.serial_link.SerialLink` caches it as ``robot.kin``. Layout, for ``n`` joints::

    kin[0]                          n
    kin[1 : 1+n]                    sigma (0 revolute, 1 prismatic)
    kin[1+n : 1+2n]                 offset
    kin[1+2n+24i : 13+2n+24i]       A[i], top 3x4 block, row-major (the last row is [0, 0, 0, 1])
    kin[13+2n+24i : 25+2n+24i]      B[i], likewise
    kin[1+26n : 13+26n]             base
    kin[13+26n : 25+26n]            tool

Frames (see :mod:`~.layout`): ``T_i = T_{i-1} A[i] J(sigma_i, q_i + offset_i) B[i]``,
``T_0 = base``, end effector ``T_n tool``. The axis of joint ``i`` is the z axis of
``T_{i-1} A[i]``.

Jacobians follow the Robotics Toolbox: rows ``[v; omega]`` (translational velocity of the
end-effector origin, then angular velocity). ``jacobian(kin, q, False)`` is RTB's ``jacob0``
(world-frame components), ``jacobian(kin, q, True)`` RTB's ``jacobe`` (end-effector frame); one
kernel serves both to keep the first-compile cost down.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import ArmArrays
from .world_frame import is_dh_chain, jacob0_into

__all__ = ["fkine", "fkine_all", "fkine_traj", "jacob_dot", "jacobian", "kin_size",
           "pack_kinematics"]


def kin_size(n: int) -> int:
    """Length of the packed kinematics vector of an ``n``-joint arm."""
    return 25 + 26 * n


def pack_kinematics(arrays: ArmArrays) -> np.ndarray:
    """Pack the kinematic fields of ``arrays`` into the flat vector the kernels take.

    Returns
    -------
    kin : float64 array, shape (25 + 26 n,)
    """
    n = arrays.n
    kin = np.empty(kin_size(n))
    kin[0] = n
    kin[1:1 + n] = arrays.sigma
    kin[1 + n:1 + 2 * n] = arrays.offset
    links = kin[1 + 2 * n:1 + 26 * n].reshape(n, 2, 12)
    links[:, 0] = arrays.A[:, :3, :].reshape(n, 12)
    links[:, 1] = arrays.B[:, :3, :].reshape(n, 12)
    kin[1 + 26 * n:13 + 26 * n] = np.asarray(arrays.base)[:3, :].ravel()
    kin[13 + 26 * n:] = np.asarray(arrays.tool)[:3, :].ravel()
    return kin


# Poses are carried as rows of 12: the top 3x4 block of the 4x4 transform, row-major.

@njit(cache=True)
def _mul_rows(W, src, dst, kin, k):
    """W[dst] = W[src] @ M, M the packed 3x4 transform at kin[k:k+12]."""
    s0, s1, s2, s3 = W[src, 0], W[src, 1], W[src, 2], W[src, 3]
    s4, s5, s6, s7 = W[src, 4], W[src, 5], W[src, 6], W[src, 7]
    s8, s9, s10, s11 = W[src, 8], W[src, 9], W[src, 10], W[src, 11]
    m0, m1, m2, m3 = kin[k], kin[k + 1], kin[k + 2], kin[k + 3]
    m4, m5, m6, m7 = kin[k + 4], kin[k + 5], kin[k + 6], kin[k + 7]
    m8, m9, m10, m11 = kin[k + 8], kin[k + 9], kin[k + 10], kin[k + 11]
    W[dst, 0] = s0 * m0 + s1 * m4 + s2 * m8
    W[dst, 1] = s0 * m1 + s1 * m5 + s2 * m9
    W[dst, 2] = s0 * m2 + s1 * m6 + s2 * m10
    W[dst, 3] = s0 * m3 + s1 * m7 + s2 * m11 + s3
    W[dst, 4] = s4 * m0 + s5 * m4 + s6 * m8
    W[dst, 5] = s4 * m1 + s5 * m5 + s6 * m9
    W[dst, 6] = s4 * m2 + s5 * m6 + s6 * m10
    W[dst, 7] = s4 * m3 + s5 * m7 + s6 * m11 + s7
    W[dst, 8] = s8 * m0 + s9 * m4 + s10 * m8
    W[dst, 9] = s8 * m1 + s9 * m5 + s10 * m9
    W[dst, 10] = s8 * m2 + s9 * m6 + s10 * m10
    W[dst, 11] = s8 * m3 + s9 * m7 + s10 * m11 + s11

@njit(cache=True)
def _chain(kin, q, W):
    """Walk the chain for joint coordinates ``q`` and fill ``W`` (2n + 3, 12).

    ``W[2i]`` is link frame ``i`` (``W[0]`` the base), ``W[2i + 1]`` the axis frame of joint
    ``i + 1`` (``T_i @ A[i+1]``, z = joint axis), ``W[2n + 1]`` the end effector and
    ``W[2n + 2]`` scratch. Returns n.
    """
    n = int(kin[0])
    if q.shape[0] != n:
        raise ValueError("kinematics: q must have one element per joint (robot.n)")
    base = 1 + 26 * n
    tmp = 2 * n + 2
    for c in range(12):
        W[0, c] = kin[base + c]
    for i in range(n):
        k = 1 + 2 * n + 24 * i
        ax = 2 * i + 1
        _mul_rows(W, 2 * i, ax, kin, k)
        v = q[i] + kin[1 + n + i]
        if kin[1 + i] == 0.0:
            c = np.cos(v)
            s = np.sin(v)
            for r in range(0, 12, 4):
                W[tmp, r] = c * W[ax, r] + s * W[ax, r + 1]
                W[tmp, r + 1] = c * W[ax, r + 1] - s * W[ax, r]
                W[tmp, r + 2] = W[ax, r + 2]
                W[tmp, r + 3] = W[ax, r + 3]
        else:
            for r in range(0, 12, 4):
                W[tmp, r] = W[ax, r]
                W[tmp, r + 1] = W[ax, r + 1]
                W[tmp, r + 2] = W[ax, r + 2]
                W[tmp, r + 3] = W[ax, r + 3] + v * W[ax, r + 2]
        _mul_rows(W, tmp, 2 * i + 2, kin, k + 12)
    _mul_rows(W, 2 * n, 2 * n + 1, kin, 13 + 26 * n)
    return n


@njit(cache=True)
def _to4x4(row, out):
    for r in range(3):
        for c in range(4):
            out[r, c] = row[4 * r + c]
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


@njit(cache=True)
def fkine(kin, q):
    """End-effector pose ``base @ ... @ tool`` in the world frame, (4, 4).

    Parameters
    ----------
    kin : float64 array, packed by :func:`pack_kinematics`
    q : float64 array, shape (n,)
        Joint coordinates (rad or m); offsets are added here.
    """
    W = np.empty((2 * int(kin[0]) + 3, 12))
    n = _chain(kin, q, W)
    out = np.empty((4, 4))
    _to4x4(W[2 * n + 1], out)
    return out


@njit(cache=True)
def fkine_traj(kin, qs):
    """End-effector poses for each row of ``qs`` (m, n): (m, 4, 4)."""
    n = int(kin[0])
    W = np.empty((2 * n + 3, 12))
    out = np.empty((qs.shape[0], 4, 4))
    for j in range(qs.shape[0]):
        _chain(kin, qs[j], W)
        _to4x4(W[2 * n + 1], out[j])
    return out


@njit(cache=True)
def fkine_all(kin, q):
    """Poses of frames 0..n in the world frame, (n + 1, 4, 4).

    ``out[0]`` is the base, ``out[i]`` the link frame ``i`` (without the tool); the end effector
    is ``out[n] @ tool``.
    """
    W = np.empty((2 * int(kin[0]) + 3, 12))
    n = _chain(kin, q, W)
    out = np.empty((n + 1, 4, 4))
    for i in range(n + 1):
        _to4x4(W[2 * i], out[i])
    return out


@njit(cache=True)
def jacobian(kin, q, ee):
    """Geometric Jacobian, (6, n), rows ``[v; omega]``: ``[v; omega] = J @ qd``.

    ``v`` is the velocity of the end-effector (tool) origin and ``omega`` the angular velocity.

    Parameters
    ----------
    kin : float64 array, packed by :func:`pack_kinematics`
    q : float64 array, shape (n,)
    ee : bool
        False: world-frame components (RTB ``jacob0``); True: end-effector-frame components
        (RTB ``jacobe``/``jacobn``), equal to ``blkdiag(R.T, R.T) @ jacob0`` with ``R`` the
        end-effector rotation.
    """
    n = int(kin[0])
    J = np.empty((6, n))
    jacob0_into(kin, q, J, is_dh_chain(kin))
    if ee:
        W = np.empty((2 * n + 3, 12))
        _chain(kin, q, W)
        T = W[2 * n + 1]
        for i in range(n):
            for h in range(0, 6, 3):
                x, y, z = J[h, i], J[h + 1, i], J[h + 2, i]
                J[h, i] = T[0] * x + T[4] * y + T[8] * z
                J[h + 1, i] = T[1] * x + T[5] * y + T[9] * z
                J[h + 2, i] = T[2] * x + T[6] * y + T[10] * z
    return J


@njit(cache=True)
def jacob_dot(kin, q, qd):
    """``Jdot(q, qd) @ qd`` in the world frame, (6,) (RTB ``jacob_dot``).

    The end-effector acceleration is ``[a; alpha] = jacob0(q) @ qdd + jacob_dot(q, qd)``.

    Parameters
    ----------
    q, qd : float64 arrays, shape (n,)
        Joint coordinates (rad or m) and velocities (rad/s or m/s).
    """
    n = int(kin[0])
    W = np.empty((2 * n + 3, 12))
    _chain(kin, q, W)
    if qd.shape[0] != n:
        raise ValueError("jacob_dot: qd must have one element per joint (robot.n)")
    # V[i, 0:3]: velocity of the point o_i (axis origin, i < n; the end effector for i = n);
    # V[i, 3:6]: angular velocity of the link carrying axis i (moved by joints 0..i-1)
    V = np.zeros((n + 1, 6))
    for i in range(n + 1):
        o = W[2 * i + 1]
        for j in range(i):
            a = W[2 * j + 1]
            zx, zy, zz = a[2], a[6], a[10]
            if kin[1 + j] == 0.0:
                dx, dy, dz = o[3] - a[3], o[7] - a[7], o[11] - a[11]
                V[i, 0] += qd[j] * (zy * dz - zz * dy)
                V[i, 1] += qd[j] * (zz * dx - zx * dz)
                V[i, 2] += qd[j] * (zx * dy - zy * dx)
                V[i, 3] += qd[j] * zx
                V[i, 4] += qd[j] * zy
                V[i, 5] += qd[j] * zz
            else:
                V[i, 0] += qd[j] * zx
                V[i, 1] += qd[j] * zy
                V[i, 2] += qd[j] * zz
    p = W[2 * n + 1]
    out = np.zeros(6)
    for i in range(n):
        a = W[2 * i + 1]
        zx, zy, zz = a[2], a[6], a[10]
        wx, wy, wz = V[i, 3], V[i, 4], V[i, 5]
        # zdot = omega x z
        ex = wy * zz - wz * zy
        ey = wz * zx - wx * zz
        ez = wx * zy - wy * zx
        if kin[1 + i] == 0.0:
            # d/dt [z x (p - o)] = zdot x (p - o) + z x (pdot - odot); d/dt z = zdot
            dx, dy, dz = p[3] - a[3], p[7] - a[7], p[11] - a[11]
            ux, uy, uz = V[n, 0] - V[i, 0], V[n, 1] - V[i, 1], V[n, 2] - V[i, 2]
            out[0] += qd[i] * (ey * dz - ez * dy + zy * uz - zz * uy)
            out[1] += qd[i] * (ez * dx - ex * dz + zz * ux - zx * uz)
            out[2] += qd[i] * (ex * dy - ey * dx + zx * uy - zy * ux)
            out[3] += qd[i] * ex
            out[4] += qd[i] * ey
            out[5] += qd[i] * ez
        else:
            out[0] += qd[i] * ex
            out[1] += qd[i] * ey
            out[2] += qd[i] * ez
    return out
