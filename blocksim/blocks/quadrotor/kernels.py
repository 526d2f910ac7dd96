"""Compiled kernels of the multirotor blocks (:mod:`blocksim.blocks.quadrotor`).

Module-level ``numba.njit(cache=True)`` functions with the contract of
:mod:`blocksim.engine.compiled.kernels`, ``(t, x, u0, ..., params)``, over the numerics of
:mod:`blocksim.robotics.aerial`; the interpreted blocks call these same kernels, so both
back-ends compute the same numbers.
"""

from __future__ import annotations

import numba
import numpy as np

from blocksim.robotics.aerial.control import attitude_control_nb, position_control_nb
from blocksim.robotics.aerial.dynamics import (
    body_velocity_nb,
    camera_pose_nb,
    ground_impact_nb,
    nrotor_deriv_nb,
    pose_nb,
)
from blocksim.robotics.aerial.mixer import mix_nb

_njit = numba.njit(cache=True, error_model="numpy")


@_njit
def multirotor_output(t, x, omega, p):
    """``(x (12,), T (4, 4), R (3, 3), vb (3,), p (3,), rpy (3,))`` of the state; params as
    :func:`multirotor_deriv`."""
    T = pose_nb(x)
    return (
        x.copy(),
        T,
        np.ascontiguousarray(T[:3, :3]),
        body_velocity_nb(x),
        x[0:3].copy(),
        x[3:6].copy(),
    )


@_njit
def multirotor_deriv(t, x, omega, p):
    """State derivative (12,); params ``(M, g, J, Jinv, D, b, k, r, gamma, theta0, theta1,
    wind, flapping, ground)``."""
    return nrotor_deriv_nb(
        x,
        np.ascontiguousarray(omega),
        p[0],
        p[1],
        p[2],
        p[3],
        p[4],
        p[5],
        p[6],
        p[7],
        p[8],
        p[9],
        p[10],
        p[11],
        p[12],
        p[13],
    )


@_njit
def multirotor_crossings(t, x, omega, p):
    """Height above the ground ``-z`` [m] (falls through 0 at touchdown)."""
    return (-x[2],)


@_njit
def multirotor_on_event(t, x, omega, p, which):
    """Plastic touchdown: ``z = 0``, velocities zeroed."""
    return ground_impact_nb(x)


@_njit
def mixer_output(t, x, tau_roll, tau_pitch, tau_yaw, thrust, p):
    """``(omega (N,), saturated)``; params ``(Ainv (N, 4), spin (N,), wmin, wmax)``."""
    return mix_nb(thrust, tau_roll, tau_pitch, tau_yaw, p[0], p[1], p[2], p[3])


@_njit
def attitude_output(t, x, att, state, p):
    """``(tau_roll, tau_pitch, tau_yaw)``; params ``(J (3, 3), Kp (3,), Kd (3,),
    yaw_rate)``."""
    return attitude_control_nb(
        np.ascontiguousarray(att), np.ascontiguousarray(state), p[0], p[1], p[2], p[3]
    )


@_njit
def position_output(t, x, state, p_ref, p):
    """``(att (3,), T)`` without a velocity reference; params ``(M, g, Kp, Kd, Ki, yaw,
    max_tilt, weight, p0)``."""
    return position_control_nb(
        np.ascontiguousarray(state),
        np.ascontiguousarray(p_ref),
        np.zeros(3),
        x,
        p[0],
        p[1],
        p[2],
        p[3],
        p[4],
        p[5],
        p[6],
        p[7],
        p[8],
    )


@_njit
def position_vref_output(t, x, state, p_ref, v_ref, p):
    """``(att (3,), T)`` with a velocity reference input."""
    return position_control_nb(
        np.ascontiguousarray(state),
        np.ascontiguousarray(p_ref),
        np.ascontiguousarray(v_ref),
        x,
        p[0],
        p[1],
        p[2],
        p[3],
        p[4],
        p[5],
        p[6],
        p[7],
        p[8],
    )


@_njit
def position_deriv(t, x, state, p_ref, p):
    """Integral of the position error: ``d xi/dt = p_ref - p``."""
    return (p_ref[0] - state[0], p_ref[1] - state[1], p_ref[2] - state[2])


@_njit
def position_vref_deriv(t, x, state, p_ref, v_ref, p):
    """As :func:`position_deriv` (the velocity reference does not enter)."""
    return (p_ref[0] - state[0], p_ref[1] - state[1], p_ref[2] - state[2])


@_njit
def camera_mount_output(t, x, state, p):
    """Camera pose (4, 4); params ``(mount (4, 4), gimbal)``."""
    return camera_pose_nb(np.ascontiguousarray(state), p[0], p[1])
