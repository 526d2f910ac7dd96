"""Driving laws of car-like vehicles: pose in, ``(speed, steer)`` out (RVC 4.1; the
``sl_drivepoint``, ``sl_driveline``, ``sl_drivepose``, ``sl_pursuit`` and ``sl_braitenberg``
models of RTB 9.10, the RTB 9.10 manual, Appendix B.10).

Pose ``(x, y, theta)`` [m, m, rad]; speed [m/s]; steer angle [rad] (positive left).

* :func:`drive_to_point`: ``v = Kv |p* - p|``, ``gamma = Kh angdiff(atan2(p* - p), theta)``.
* :func:`drive_to_pose` (polar coordinates, Astolfi): ``rho = |p* - p|``,
  ``alpha = angdiff(atan2(p* - p), theta)``, ``beta = angdiff(theta*, theta + alpha)``;
  ``v = Krho rho``, ``omega = Kalpha alpha + Kbeta beta`` (stable for ``Krho > 0``,
  ``Kbeta < 0``, ``Kalpha > Krho``) and ``gamma = atan(omega L / v)`` with the signed speed.
  Driving backwards (``direction = -1``, or ``0`` choosing it when the goal is behind,
  ``|alpha| > pi/2``: :func:`pose_direction`) uses the same law for the reversed heading
  ``theta + pi`` and ``v = -Krho rho``.
* :func:`follow_line` for the line ``a x + b y + c = 0`` travelled in direction ``(b, -a)``:
  ``d = (a x + b y + c) / sqrt(a^2 + b^2)``, ``gamma = -Kd d + Kh angdiff(atan2(-a, b), theta)``.
* :func:`pursuit_error`: distance error ``|p* - p| - d*`` and heading error to a moving
  point (the speed comes from a PI controller on the distance error, the steer from ``Kh``
  times the heading error).
* :func:`braitenberg`: two light sensors ahead of the vehicle, left and right,
  ``v = V (2 - sL - sR)``, ``gamma = K (sL - sR)``: a light seeker that slows where the
  field (peak 1) is strong. :func:`light_field` is the library field
  ``A / (A + (x - xc)^2 + (y - yc)^2)`` (RVC's ``sensorfield``, A = 200).
* :func:`random_path_steer`: RTB ``RandomPath.demand`` steering, ``angdiff(atan2(g - p), theta)``.
* :func:`path_point`: a point of a path (N, k) played at one row every ``dt`` seconds,
  linearly interpolated, held at the last row.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from blocksim.robotics.mobile.kinematics import wrap_angle

__all__ = [
    "braitenberg",
    "drive_to_point",
    "drive_to_pose",
    "follow_line",
    "light_field",
    "path_point",
    "pose_direction",
    "pursuit_error",
    "random_path_steer",
    "sensor_positions",
]


@njit(cache=True)
def drive_to_point(
    x: np.ndarray, gx: float, gy: float, Kv: float, Kh: float
) -> tuple[float, float]:
    """``(speed, steer)`` toward the goal point ``(gx, gy)``."""
    dx = gx - x[0]
    dy = gy - x[1]
    return Kv * math.sqrt(dx * dx + dy * dy), Kh * wrap_angle(math.atan2(dy, dx) - x[2])


@njit(cache=True)
def pose_direction(x: np.ndarray, goal: np.ndarray) -> int:
    """Direction of travel RTB's ``sl_drivepose`` chooses at the start: 1 (forward) when the
    goal is ahead, ``|alpha| <= pi/2`` with ``alpha = angdiff(atan2(p* - p), theta)``, else -1
    (backward)."""
    alpha = wrap_angle(math.atan2(goal[1] - x[1], goal[0] - x[0]) - x[2])
    return 1 if abs(alpha) <= 0.5 * math.pi else -1


@njit(cache=True)
def drive_to_pose(
    x: np.ndarray,
    goal: np.ndarray,
    Krho: float,
    Kalpha: float,
    Kbeta: float,
    L: float,
    direction: int,
    dthresh: float = 0.0,
) -> tuple[float, float]:
    """``(speed, steer)`` of the polar-coordinates controller toward ``goal = (x*, y*, th*)``.

    ``direction`` 1 drives forward, -1 backward (the law for the reversed heading
    ``theta + pi``, speed ``-Krho rho``), 0 chooses from the goal's side now
    (:func:`pose_direction`; a block chooses once and keeps it). The steer is
    ``atan(omega L / v)`` with the *signed* speed ``v``: a bicycle reversing at speed ``v < 0``
    turns at ``v tan(gamma) / L``, so the reversed heading ``theta + pi`` turns at ``omega``.
    Within ``dthresh`` [m] of the goal the vehicle has arrived: ``(0, 0)`` (the law's bearing
    is undefined at the goal: a residual error across the heading, which a steer-limited car
    cannot remove, turns into an overshoot and a loop back).
    """
    dx = goal[0] - x[0]
    dy = goal[1] - x[1]
    rho = math.sqrt(dx * dx + dy * dy)
    bearing = math.atan2(dy, dx)
    sgn = direction
    if sgn == 0:
        sgn = pose_direction(x, goal)
    th = x[2]
    thg = goal[2]
    if sgn < 0:
        th = th + math.pi
        thg = thg + math.pi
    alpha = wrap_angle(bearing - th)
    beta = wrap_angle(thg - th - alpha)
    v = sgn * Krho * rho
    omega = Kalpha * alpha + Kbeta * beta
    if v == 0.0 or rho <= dthresh:
        return 0.0, 0.0
    return v, math.atan(omega * L / v)


@njit(cache=True)
def follow_line(x: np.ndarray, a: float, b: float, c: float, Kd: float, Kh: float) -> float:
    """Steer [rad] that brings the vehicle onto the line ``a x + b y + c = 0``."""
    d = (a * x[0] + b * x[1] + c) / math.sqrt(a * a + b * b)
    return -Kd * d + Kh * wrap_angle(math.atan2(-a, b) - x[2])


@njit(cache=True)
def pursuit_error(x: np.ndarray, px: float, py: float, dstar: float) -> tuple[float, float]:
    """``(|p - x| - dstar, angdiff(atan2(p - x), theta))``: distance error [m] and heading
    error [rad] to the point ``p = (px, py)`` followed at distance ``dstar``."""
    dx = px - x[0]
    dy = py - x[1]
    return math.sqrt(dx * dx + dy * dy) - dstar, wrap_angle(math.atan2(dy, dx) - x[2])


@njit(cache=True)
def light_field(px: float, py: float, xc: float, yc: float, A: float) -> float:
    """Light intensity ``A / (A + (px - xc)^2 + (py - yc)^2)`` (1 at the source)."""
    return A / (A + (px - xc) ** 2 + (py - yc) ** 2)


@njit(cache=True)
def sensor_positions(x: np.ndarray, ahead: float, side: float) -> np.ndarray:
    """World positions (2, 2) of the left (row 0) and right (row 1) sensors, ``ahead`` [m]
    in front of the reference point and ``side`` [m] to each side."""
    c = math.cos(x[2])
    s = math.sin(x[2])
    out = np.empty((2, 2))
    out[0, 0] = x[0] + ahead * c - side * s
    out[0, 1] = x[1] + ahead * s + side * c
    out[1, 0] = x[0] + ahead * c + side * s
    out[1, 1] = x[1] + ahead * s - side * c
    return out


@njit(cache=True)
def braitenberg(sL: float, sR: float, V: float, K: float) -> tuple[float, float]:
    """``(V (2 - sL - sR), K (sL - sR))`` from the left and right sensor readings."""
    return V * (2.0 - sL - sR), K * (sL - sR)


@njit(cache=True)
def random_path_steer(x: np.ndarray, gx: float, gy: float) -> float:
    """Steer toward the waypoint ``(gx, gy)``: ``angdiff(atan2(g - p), theta)``."""
    return wrap_angle(math.atan2(gy - x[1], gx - x[0]) - x[2])


@njit(cache=True)
def path_point(path: np.ndarray, dt: float, t: float) -> np.ndarray:
    """Row of ``path`` (N, k) at time ``t`` [s], one row every ``dt`` [s] from t = 0, linearly
    interpolated; the first row before 0 and the last row after ``(N - 1) dt``."""
    n = path.shape[0]
    s = t / dt
    if s <= 0.0:
        return path[0].copy()
    if s >= n - 1:
        return path[n - 1].copy()
    i = math.floor(s)
    f = s - i
    return (1.0 - f) * path[i] + f * path[i + 1]
