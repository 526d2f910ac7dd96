"""Single-joint servo numerics: a motor with a gearbox and a PI velocity loop, and a joint
with a compliant transmission.

The equations of the Robotics Toolbox's *vloop*, *vloop_ff* and *vloop_voltage* blocks
(roblocks, Robotics Toolbox 9.10) and of its ``sl_flex`` model, as pure
``numba.njit`` functions of floats (no allocation), used by the joint servo blocks
(:mod:`blocksim.blocks.arm.servo`) in both back-ends.

Motor side, SI units: motor angle [rad], rate ``qd`` [rad/s], current ``i`` [A], voltage [V],
torque [N m], inertia ``J`` [kg m^2], viscous friction ``B`` [N m s/rad], torque constant
``Km`` [N m/A] (equal to the back-EMF constant [V s/rad]).

* Current-driven motor (*vloop*): ``tau = sat(Km c, tau_max)``, ``J qd' = tau - tau_d - B qd``
  with the current demand ``c`` [A] and the disturbance torque ``tau_d`` [N m].
* Voltage-driven motor (*vloop_voltage*): the amplifier gives ``v = sat(Ka c, v_max)``;
  ``Lm i' = v - Rm i - Km qd``, ``J qd' = Km i - tau_d - B qd``.
* PI velocity controller: ``e = qd* - qd``, ``c = Kv e + Ki I + Kff tau_ff`` with ``I`` the
  integral of ``e`` [rad] (forward Euler at the sample period when discrete).
* Flexible joint (*sl_flex*): motor inertia ``Jm`` and link inertia ``Jl`` joined by a spring
  ``k`` [N m/rad] and a damper ``c`` [N m s/rad]::

      Jm qm'' = tau - k (qm - ql) - c (qm' - ql') - Bm qm'
      Jl ql'' = k (qm - ql) + c (qm' - ql') - Bl ql' - tau_l

  Under the motor-side PD law ``tau = Kp (q* - qm) - Kd qm'`` without damping the two
  resonant frequencies are the roots of ``Jm Jl w^4 - (Jm k + Jl (Kp + k)) w^2 + Kp k = 0``
  (:func:`flex_pd_frequencies`).
"""

from __future__ import annotations

import math

from numba import njit

__all__ = [
    "flex_accel",
    "flex_free_frequency",
    "flex_pd_frequencies",
    "motor_accel",
    "motor_torque",
    "pi_demand",
    "saturate",
    "voltage_motor_deriv",
]


@njit(cache=True)
def saturate(v, limit):
    """``v`` clipped to ``[-limit, limit]`` (``limit`` may be ``inf``)."""
    if v > limit:
        return limit
    if v < -limit:
        return -limit
    return v


@njit(cache=True)
def motor_torque(c, Km, tau_max):
    """Motor torque [N m] of the current demand ``c`` [A]: ``sat(Km c, tau_max)``."""
    return saturate(Km * c, tau_max)


@njit(cache=True)
def motor_accel(qd, tau, tau_d, J, B):
    """Motor acceleration [rad/s^2]: ``(tau - tau_d - B qd) / J``."""
    return (tau - tau_d - B * qd) / J


@njit(cache=True)
def voltage_motor_deriv(i, qd, c, tau_d, J, B, Km, Rm, Lm, Ka, v_max):
    """``(di/dt [A/s], dqd/dt [rad/s^2])`` of the voltage-driven motor for the demand ``c``
    (amplifier input) and the disturbance torque ``tau_d`` [N m]."""
    v = saturate(Ka * c, v_max)
    return (v - Rm * i - Km * qd) / Lm, (Km * i - tau_d - B * qd) / J


@njit(cache=True)
def pi_demand(e, integral, tau_ff, Kv, Ki, Kff):
    """PI demand with feedforward: ``Kv e + Ki integral + Kff tau_ff``."""
    return Kv * e + Ki * integral + Kff * tau_ff


@njit(cache=True)
def flex_accel(qm, ql, qdm, qdl, tau, tau_l, Jm, Jl, k, c, Bm, Bl):
    """``(qm'', ql'')`` [rad/s^2] of the flexible joint (module docstring) for the motor
    torque ``tau`` and the load torque ``tau_l`` [N m]."""
    tw = k * (qm - ql) + c * (qdm - qdl)  # torque transmitted to the link
    return (tau - tw - Bm * qdm) / Jm, (tw - Bl * qdl - tau_l) / Jl


def flex_free_frequency(Jm: float, Jl: float, k: float) -> float:
    """Resonance [rad/s] of the undamped flexible joint without control: ``sqrt(k (Jm + Jl) /
    (Jm Jl))`` (the other mode is the rigid-body motion, frequency 0)."""
    return math.sqrt(k * (Jm + Jl) / (Jm * Jl))


def flex_pd_frequencies(Jm: float, Jl: float, k: float, Kp: float) -> tuple[float, float]:
    """The two natural frequencies [rad/s] (low, high) of the undamped flexible joint under the
    motor-side position gain ``Kp`` [N m/rad]: the roots of ``Jm Jl w^4 - (Jm k + Jl (Kp + k))
    w^2 + Kp k = 0``."""
    a = Jm * Jl
    b = Jm * k + Jl * (Kp + k)
    disc = math.sqrt(b * b - 4.0 * a * Kp * k)
    lo = 2.0 * Kp * k / (b + disc)  # the small root without cancellation
    hi = (b + disc) / (2.0 * a)
    return math.sqrt(lo), math.sqrt(hi)
