"""Compiled kernels of the joint servo blocks (:mod:`blocksim.blocks.arm.servo`).

Module-level ``numba.njit(cache=True, error_model="numpy")`` functions of ``(t, x, u0, ...,
params)`` (the contract of :mod:`blocksim.engine.compiled.kernels`) over the pure functions of
:mod:`blocksim.robotics.arm.joint_servo`; the interpreted blocks call the same pure functions,
so both back-ends compute the same numbers. Every signal is a float; derivatives and updates are
tuples (no allocation).

Parameters: the motor ``(J, B, Km, tau_max)``; the voltage motor ``(J, B, Km, Rm, Lm, Ka,
v_max)``; the PI controller ``(Kv, Ki, Kff, T)`` (``T`` the sample period, 0 when
continuous); the flexible joint ``(Jm, Jl, k, c, Bm, Bl)``.
"""

from __future__ import annotations

import numba

from blocksim.robotics.arm.joint_servo import (
    flex_accel,
    motor_accel,
    motor_torque,
    pi_demand,
    voltage_motor_deriv,
)

_njit = numba.njit(cache=True, error_model="numpy")


# ------------------------------------------------------------------------ current-driven motor
@_njit
def motor_output(t, x, c, tau_d, p):
    """``(qd, tau)``: the state and ``sat(Km c, tau_max)``."""
    return x[0], motor_torque(c, p[2], p[3])


@_njit
def motor_deriv(t, x, c, tau_d, p):
    """``(qd',)``."""
    return (motor_accel(x[0], motor_torque(c, p[2], p[3]), tau_d, p[0], p[1]),)


# ------------------------------------------------------------------------ voltage-driven motor
@_njit
def voltage_motor_output(t, x, c, tau_d, p):
    """``(qd, tau = Km i)`` from the state ``(i, qd)``."""
    return x[1], p[2] * x[0]


@_njit
def voltage_motor_deriv_kernel(t, x, c, tau_d, p):
    """``(i', qd')``."""
    return voltage_motor_deriv(x[0], x[1], c, tau_d, p[0], p[1], p[2], p[3], p[4], p[5], p[6])


# ------------------------------------------------------------------------ PI velocity control
@_njit
def pi_output(t, x, qd_star, qd, p):
    """``(c, e, Ki I)`` with ``e = qd* - qd``."""
    e = qd_star - qd
    return pi_demand(e, x[0], 0.0, p[0], p[1], p[2]), e, p[1] * x[0]


@_njit
def pi_ff_output(t, x, qd_star, qd, tau_ff, p):
    """``(c, e, Ki I)`` with the feedforward term ``Kff tau_ff`` in ``c``."""
    e = qd_star - qd
    return pi_demand(e, x[0], tau_ff, p[0], p[1], p[2]), e, p[1] * x[0]


@_njit
def pi_update(t, x, qd_star, qd, p):
    """Forward-Euler integral: ``(I + T e,)``."""
    return (x[0] + p[3] * (qd_star - qd),)


@_njit
def pi_ff_update(t, x, qd_star, qd, tau_ff, p):
    """:func:`pi_update` of the controller with feedforward."""
    return (x[0] + p[3] * (qd_star - qd),)


@_njit
def pi_deriv(t, x, qd_star, qd, p):
    """Continuous integral: ``(e,)``."""
    return (qd_star - qd,)


@_njit
def pi_ff_deriv(t, x, qd_star, qd, tau_ff, p):
    """:func:`pi_deriv` of the controller with feedforward."""
    return (qd_star - qd,)


# ------------------------------------------------------------------------ flexible joint
@_njit
def flex_output(t, x, tau, tau_l, p):
    """``(qm, ql, qdm, qdl)``: the state."""
    return x[0], x[1], x[2], x[3]


@_njit
def flex_deriv(t, x, tau, tau_l, p):
    """``(qm', ql', qm'', ql'')``."""
    am, al = flex_accel(x[0], x[1], x[2], x[3], tau, tau_l, p[0], p[1], p[2], p[3], p[4], p[5])
    return x[2], x[3], am, al
