"""Compiled kernels of the floating-base blocks (thin wrappers of
:mod:`blocksim.robotics.floating.state`; params ``(mdl, gravity, fixed, link, tool)`` with
``tool`` flattened (16,))."""

from __future__ import annotations

import numpy as np
from numba import njit

from blocksim.robotics.floating.state import (
    base_pose,
    ee_jacobian,
    ee_pose,
    quat_to_rot,
    state_derivative,
    system_com,
)


@njit(cache=True, error_model="numpy")
def fb_output_kernel(t, x, tau, wrench, p):
    """``(q, qd, base pose (4, 4), base twist [v0; omega0] (6,))`` from the state."""
    mdl = p[0]
    nq = int(mdl[1])
    R0 = quat_to_rot(x[3:7])
    o = 7 + nq
    twist = x[o : o + 6].copy()
    if p[2]:
        twist[:] = 0.0
    return x[7:o].copy(), x[o + 6 : o + 6 + nq].copy(), base_pose(mdl, R0, x[0:3].copy()), twist


@njit(cache=True, error_model="numpy")
def fb_deriv_kernel(t, x, tau, wrench, p):
    """dx/dt of the floating-base state (:func:`state_derivative`)."""
    return state_derivative(p[0], x, tau, wrench, p[1], p[2])


@njit(cache=True, error_model="numpy")
def _base_from_pose(mdl, T):
    R0 = T[:3, :3].copy()
    r0 = np.empty(3)
    for a in range(3):
        r0[a] = T[a, 3] + R0[a, 0] * mdl[3] + R0[a, 1] * mdl[4] + R0[a, 2] * mdl[5]
    return R0, r0


@njit(cache=True, error_model="numpy")
def fb_kinematics_kernel(t, x, base, q, p):
    """``(T_ee (4, 4), com (3,))`` for the base link pose and q."""
    mdl = p[0]
    R0, r0 = _base_from_pose(mdl, base)
    tool = p[4].reshape(4, 4)
    return ee_pose(mdl, R0, r0, q, p[3], tool), system_com(mdl, R0, r0, q)


@njit(cache=True, error_model="numpy")
def fb_jacobian_kernel(t, x, base, q, p):
    """Base-inclusive tool-point Jacobian (6, 6+nq), or a part of it (p[2]: 0 all, 1 base
    columns, 2 joint columns)."""
    mdl = p[0]
    R0, r0 = _base_from_pose(mdl, base)
    J = ee_jacobian(mdl, R0, r0, q, p[3], p[4].reshape(4, 4))
    if p[2] == 1:
        return np.ascontiguousarray(J[:, :6])
    if p[2] == 2:
        return np.ascontiguousarray(J[:, 6:])
    return J
