"""Odometry motion model of RTB's ``Vehicle`` (RTB 9.10 ``Vehicle.f``, ``Fx``, ``Fv``).

The odometry of one sample interval is ``odo = (d, dtheta)``: the distance travelled [m]
(signed, negative when reversing) and the heading change [rad]. The motion model moves the
vehicle by turning first and then translating along the new heading::

    thp = theta + dtheta + w1
    f(x, odo, w) = (x + (d + w0) cos thp,  y + (d + w0) sin thp,  theta + dtheta + w1)

with the odometry noise ``w = (w0, w1)`` (covariance ``V``, 2x2). The Jacobians are
``Fx = df/dx`` (3x3) and ``Fv = df/dw`` (3x2) at ``w = 0``.

Differences from upstream ``Vehicle.m`` (the RTB 9.10 manual, Appendix B.2), all deliberate:

* upstream ``f`` adds ``w0`` twice (``dd = odo1 + w1`` then ``dd + w1``); here once;
* upstream ``update`` moves along the *old* heading; here the true motion is exactly ``f``
  with the true odometry, so the filter's model is the simulator's (consistency tests hold);
* upstream ``step`` adds ``randn * V`` (V itself, not its square root); here the noise is
  ``chol(V) n`` with ``n`` standard normal, so that its covariance is ``V``;
* the distance is signed (``v dt``), upstream ``norm(dxy)`` loses the sign when reversing;
* the heading change is ``v dt tan(gamma) / L`` (upstream: ``v dt gamma / L``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from blocksim.robotics.mobile.kinematics import wrap_angle

__all__ = ["odo_Fv", "odo_Fx", "odo_f", "odometry", "vehicle_control"]


@njit(cache=True)
def vehicle_control(speed: float, steer: float, vmax: float, stlim: float) -> tuple[float, float]:
    """``(speed, steer)`` clipped to ``[-vmax, vmax]`` [m/s] and ``[-stlim, stlim]`` [rad]
    (``Vehicle.control``)."""
    return min(vmax, max(-vmax, speed)), min(stlim, max(-stlim, steer))


@njit(cache=True)
def odometry(speed: float, steer: float, L: float, dt: float) -> tuple[float, float]:
    """True odometry ``(d, dtheta)`` of one interval ``dt`` [s] at speed [m/s] and steer [rad]
    of a bicycle of wheelbase ``L`` [m]: ``(v dt, v dt tan(steer) / L)``."""
    d = speed * dt
    return d, d * math.tan(steer) / L


@njit(cache=True)
def odo_f(x: np.ndarray, d: float, dth: float, w0: float, w1: float) -> np.ndarray:
    """Next pose (3,) from pose ``x`` (3,), odometry ``(d, dth)`` and noise ``(w0, w1)``;
    heading wrapped to [-pi, pi)."""
    th = x[2] + dth + w1
    dd = d + w0
    out = np.empty(3)
    out[0] = x[0] + dd * math.cos(th)
    out[1] = x[1] + dd * math.sin(th)
    out[2] = wrap_angle(th)
    return out


@njit(cache=True)
def odo_Fx(x: np.ndarray, d: float, dth: float) -> np.ndarray:
    """``df/dx`` (3, 3) at zero noise."""
    th = x[2] + dth
    J = np.eye(3)
    J[0, 2] = -d * math.sin(th)
    J[1, 2] = d * math.cos(th)
    return J


@njit(cache=True)
def odo_Fv(x: np.ndarray, d: float, dth: float) -> np.ndarray:
    """``df/dw`` (3, 2) at zero noise."""
    th = x[2] + dth
    J = np.zeros((3, 2))
    J[0, 0] = math.cos(th)
    J[1, 0] = math.sin(th)
    J[0, 1] = -d * math.sin(th)
    J[1, 1] = d * math.cos(th)
    J[2, 1] = 1.0
    return J
