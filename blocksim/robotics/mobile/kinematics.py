"""Kinematics of planar wheeled vehicles: bicycle (car-like), unicycle, differential steer.

Pure, numba-compiled functions over floats and (3,) float64 arrays; poses are
``(x, y, theta)`` in the world frame [m, m, rad], ``theta`` the heading from the world x-axis.

Bicycle (car-like, rear-axle reference point, wheelbase ``L`` [m], speed ``v`` [m/s] and
steered-wheel angle ``gamma`` [rad]; RVC eq. 4.2, roblocks' *Bicycle* block)::

    dx/dt = v cos(theta),  dy/dt = v sin(theta),  dtheta/dt = v tan(gamma) / L

For constant ``v`` and ``gamma`` the path is a circle of radius ``L / tan(gamma)``;
:func:`bicycle_step` integrates it exactly over a step ``dt`` (an arc), :func:`bicycle_deriv`
is the continuous right-hand side. RTB's ``Vehicle`` class (RTB 9.10 ``Vehicle.m``, the
manual's Appendix B.2) updates the heading by ``v dt gamma / L`` (no tangent, equal to first
order in ``gamma``); this package uses ``tan(gamma)`` everywhere, as roblocks' block does.

Unicycle (speed ``v``, turn rate ``omega`` [rad/s])::

    dx/dt = v cos(theta),  dy/dt = v sin(theta),  dtheta/dt = omega

Differential steer (wheel speeds ``vl``, ``vr`` [m/s], half axle width ``a`` [m]):
``v = (vr + vl) / 2``, ``omega = (vr - vl) / (2 a)``, then the unicycle.

Pioneer 3-DX dynamics (Martins et al. 2008; roblocks' *DiffSteer Kine+Dyn* block) for the
actual speed ``u`` and turn rate ``w`` driven by the references ``u_ref``, ``w_ref`` with the
identified parameters ``p = (p1, ..., p6)``::

    du/dt = (p3 / p1) w^2 - (p4 / p1) u + u_ref / p1
    dw/dt = -(p5 / p2) u w - (p6 / p2) w + w_ref / p2
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = [
    "PIONEER_PARAMS",
    "bicycle_deriv",
    "bicycle_radius",
    "bicycle_step",
    "diffsteer_speeds",
    "pioneer_deriv",
    "rate_limit_deriv",
    "unicycle_deriv",
    "unicycle_step",
    "wrap_angle",
]

#: identified dynamic parameters of a Pioneer 3-DX (roblocks DiffSteer Kine+Dyn mask default)
PIONEER_PARAMS = (0.2604, 0.2509, -0.000499, 0.9965, 0.00263, 1.0768)

_TURN_EPS = 1e-9  # |omega dt| below which an arc is integrated as its series (straight line)


@njit(cache=True)
def wrap_angle(a: float) -> float:
    """Angle ``a`` [rad] wrapped to [-pi, pi)."""
    return (a + math.pi) % (2.0 * math.pi) - math.pi


@njit(cache=True)
def bicycle_deriv(x: np.ndarray, v: float, gamma: float, L: float) -> np.ndarray:
    """Continuous bicycle kinematics: ``dx/dt`` (3,) of the pose ``x = (x, y, theta)``.

    Parameters
    ----------
    x : ndarray (3,)
        Pose [m, m, rad] of the rear-axle centre.
    v : float
        Speed [m/s] (negative: reversing).
    gamma : float
        Steered-wheel angle [rad], positive to the left.
    L : float
        Wheelbase [m], > 0.

    Returns
    -------
    ndarray (3,)
        ``(v cos theta, v sin theta, v tan(gamma) / L)`` [m/s, m/s, rad/s].
    """
    out = np.empty(3)
    out[0] = v * math.cos(x[2])
    out[1] = v * math.sin(x[2])
    out[2] = v * math.tan(gamma) / L
    return out


@njit(cache=True)
def unicycle_step(x: np.ndarray, v: float, omega: float, dt: float) -> np.ndarray:
    """Exact pose after ``dt`` [s] at constant speed ``v`` [m/s] and turn rate ``omega``
    [rad/s] (an arc of radius ``v / omega``, a segment when ``omega = 0``).

    Parameters
    ----------
    x : ndarray (3,)
        Pose ``(x, y, theta)`` [m, m, rad] at the start.
    v, omega, dt : float

    Returns
    -------
    ndarray (3,)
        The pose at the end; the heading is not wrapped (continuous along the path).
    """
    th = x[2]
    dth = omega * dt
    out = np.empty(3)
    if abs(dth) < _TURN_EPS:
        # chord of a (nearly) straight arc: heading at the middle of the step
        mid = th + 0.5 * dth
        out[0] = x[0] + v * dt * math.cos(mid)
        out[1] = x[1] + v * dt * math.sin(mid)
    else:
        r = v / omega
        out[0] = x[0] + r * (math.sin(th + dth) - math.sin(th))
        out[1] = x[1] - r * (math.cos(th + dth) - math.cos(th))
    out[2] = th + dth
    return out


@njit(cache=True)
def bicycle_step(x: np.ndarray, v: float, gamma: float, L: float, dt: float) -> np.ndarray:
    """Exact bicycle pose after ``dt`` [s] at constant speed and steer (next state).

    The solution of :func:`bicycle_deriv` over one step: an arc of turn rate
    ``v tan(gamma) / L`` (see :func:`unicycle_step`). This is the motion primitive of a
    kinodynamic planner: ``x_next = bicycle_step(x, v, gamma, L, dt)``.

    Parameters
    ----------
    x : ndarray (3,)
        Pose ``(x, y, theta)`` [m, m, rad].
    v : float
        Speed [m/s].
    gamma : float
        Steer angle [rad], |gamma| < pi/2.
    L : float
        Wheelbase [m].
    dt : float
        Duration [s].

    Returns
    -------
    ndarray (3,)
        The next pose (heading not wrapped).
    """
    return unicycle_step(x, v, v * math.tan(gamma) / L, dt)


@njit(cache=True)
def bicycle_radius(gamma: float, L: float) -> float:
    """Turning radius ``L / tan(gamma)`` [m] (signed, positive turning left; inf if 0)."""
    t = math.tan(gamma)
    if t == 0.0:
        return math.inf
    return L / t


@njit(cache=True)
def unicycle_deriv(x: np.ndarray, v: float, omega: float) -> np.ndarray:
    """Continuous unicycle kinematics ``(v cos theta, v sin theta, omega)`` (3,)."""
    out = np.empty(3)
    out[0] = v * math.cos(x[2])
    out[1] = v * math.sin(x[2])
    out[2] = omega
    return out


@njit(cache=True)
def diffsteer_speeds(vl: float, vr: float, a: float) -> tuple[float, float]:
    """Speed ``v`` [m/s] and turn rate ``omega`` [rad/s] of a differential-steer vehicle from
    its left and right wheel speeds [m/s] and half axle width ``a`` [m]."""
    return 0.5 * (vr + vl), (vr - vl) / (2.0 * a)


@njit(cache=True)
def pioneer_deriv(
    u: float,
    w: float,
    u_ref: float,
    w_ref: float,
    p1: float,
    p2: float,
    p3: float,
    p4: float,
    p5: float,
    p6: float,
) -> tuple[float, float]:
    """Pioneer 3-DX dynamics (Martins et al. 2008): ``(du/dt, dw/dt)`` [m/s^2, rad/s^2] of the
    speed ``u`` [m/s] and turn rate ``w`` [rad/s] for the references ``u_ref``, ``w_ref``.

    Steady state for constant references: ``p4 u = u_ref + p3 w^2``,
    ``(p6 + p5 u) w = w_ref``.
    """
    du = (p3 * w * w - p4 * u + u_ref) / p1
    dw = (-p5 * u * w - p6 * w + w_ref) / p2
    return du, dw


@njit(cache=True)
def rate_limit_deriv(y: float, target: float, tau: float, rate: float) -> float:
    """First-order tracking ``(target - y) / tau`` clipped to ``[-rate, rate]`` (units/s).

    The continuous approximation of a rate limiter used for the acceleration limits of the
    vehicle blocks (as ``RateLimiter`` without a clock): ``y`` follows ``target`` with time
    constant ``tau`` [s] but never faster than ``rate``.
    """
    d = (target - y) / tau
    if d > rate:
        return rate
    if d < -rate:
        return -rate
    return d
