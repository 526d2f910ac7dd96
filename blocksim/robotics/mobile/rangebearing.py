"""Range-bearing observation model of point landmarks (RTB 9.10 ``RangeBearingSensor``).

With the vehicle pose ``xv = (x, y, theta)``, a landmark at ``xf = (xf, yf)``,
``dx = xf - x``, ``dy = yf - y`` and ``r = sqrt(dx^2 + dy^2)``::

    h(xv, xf) = (r, wrap(atan2(dy, dx) - theta))             range [m], bearing [rad]
    Hx  = dh/dxv = [[-dx/r, -dy/r, 0], [dy/r^2, -dx/r^2, -1]]        (2, 3)
    Hxf = dh/dxf = [[dx/r, dy/r], [-dy/r^2, dx/r^2]]                 (2, 2)
    Hw  = dh/dw  = I (additive noise)                                 (2, 2)
    g(xv, z) = (x + r cos(theta + b), y + r sin(theta + b))   landmark from z = (r, b)
    Gx = dg/dxv = [[1, 0, -r sin(theta + b)], [0, 1, r cos(theta + b)]]   (2, 3)
    Gz = dg/dz  = [[cos(theta + b), -r sin(theta + b)], [sin(theta + b), r cos(theta + b)]]

The bearing is relative to the vehicle heading, positive to the left, wrapped to [-pi, pi)
(upstream leaves it unwrapped and always adds noise to ``h``; here ``h`` is noise-free and the
noise is added by :func:`rb_reading`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from blocksim.robotics.mobile.kinematics import wrap_angle

__all__ = ["rb_Gx", "rb_Gz", "rb_Hx", "rb_Hxf", "rb_g", "rb_h", "rb_reading", "rb_visible"]


@njit(cache=True)
def rb_h(xv: np.ndarray, xf: np.ndarray) -> np.ndarray:
    """Noise-free observation ``(range, bearing)`` (2,) of landmark ``xf`` (2,) from ``xv``."""
    dx = xf[0] - xv[0]
    dy = xf[1] - xv[1]
    z = np.empty(2)
    z[0] = math.sqrt(dx * dx + dy * dy)
    z[1] = wrap_angle(math.atan2(dy, dx) - xv[2])
    return z


@njit(cache=True)
def rb_Hx(xv: np.ndarray, xf: np.ndarray) -> np.ndarray:
    """``dh/dxv`` (2, 3)."""
    dx = xf[0] - xv[0]
    dy = xf[1] - xv[1]
    r2 = dx * dx + dy * dy
    r = math.sqrt(r2)
    J = np.zeros((2, 3))
    J[0, 0] = -dx / r
    J[0, 1] = -dy / r
    J[1, 0] = dy / r2
    J[1, 1] = -dx / r2
    J[1, 2] = -1.0
    return J


@njit(cache=True)
def rb_Hxf(xv: np.ndarray, xf: np.ndarray) -> np.ndarray:
    """``dh/dxf`` (2, 2)."""
    dx = xf[0] - xv[0]
    dy = xf[1] - xv[1]
    r2 = dx * dx + dy * dy
    r = math.sqrt(r2)
    J = np.empty((2, 2))
    J[0, 0] = dx / r
    J[0, 1] = dy / r
    J[1, 0] = -dy / r2
    J[1, 1] = dx / r2
    return J


@njit(cache=True)
def rb_g(xv: np.ndarray, z: np.ndarray) -> np.ndarray:
    """World position (2,) of the landmark seen at ``z = (range, bearing)`` from ``xv``."""
    a = xv[2] + z[1]
    p = np.empty(2)
    p[0] = xv[0] + z[0] * math.cos(a)
    p[1] = xv[1] + z[0] * math.sin(a)
    return p


@njit(cache=True)
def rb_Gx(xv: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``dg/dxv`` (2, 3)."""
    a = xv[2] + z[1]
    J = np.zeros((2, 3))
    J[0, 0] = 1.0
    J[1, 1] = 1.0
    J[0, 2] = -z[0] * math.sin(a)
    J[1, 2] = z[0] * math.cos(a)
    return J


@njit(cache=True)
def rb_Gz(xv: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``dg/dz`` (2, 2)."""
    a = xv[2] + z[1]
    J = np.empty((2, 2))
    J[0, 0] = math.cos(a)
    J[0, 1] = -z[0] * math.sin(a)
    J[1, 0] = math.sin(a)
    J[1, 1] = z[0] * math.cos(a)
    return J


@njit(cache=True)
def rb_visible(
    xv: np.ndarray, xf: np.ndarray, rmin: float, rmax: float, amin: float, amax: float
) -> bool:
    """Whether landmark ``xf`` is within the range ``[rmin, rmax]`` [m] and the bearing
    window ``[amin, amax]`` [rad] of a sensor at ``xv``."""
    z = rb_h(xv, xf)
    return rmin <= z[0] <= rmax and amin <= z[1] <= amax


@njit(cache=True)
def rb_reading(
    xv: np.ndarray,
    landmarks: np.ndarray,
    sW: np.ndarray,
    rmin: float,
    rmax: float,
    amin: float,
    amax: float,
    pick: float,
    n0: float,
    n1: float,
) -> tuple[np.ndarray, int]:
    """One noisy reading of a randomly chosen visible landmark.

    Parameters
    ----------
    xv : ndarray (3,)
        True vehicle pose.
    landmarks : ndarray (N, 2)
        Landmark positions [m].
    sW : ndarray (2, 2)
        Lower Cholesky factor of the measurement covariance W.
    rmin, rmax, amin, amax : float
        Range [m] and bearing [rad] limits.
    pick : float
        Uniform sample in [0, 1) choosing among the visible landmarks.
    n0, n1 : float
        Standard normal samples of the noise.

    Returns
    -------
    z : ndarray (2,)
        ``h(xv, landmark) + sW @ (n0, n1)`` (bearing wrapped); zeros when nothing is visible.
    k : int
        Index of the landmark observed, -1 when none is visible.
    """
    n = landmarks.shape[0]
    nvis = 0
    for i in range(n):
        if rb_visible(xv, landmarks[i], rmin, rmax, amin, amax):
            nvis += 1
    z = np.zeros(2)
    if nvis == 0:
        return z, -1
    target = min(int(pick * nvis), nvis - 1)
    k = -1
    c = 0
    for i in range(n):
        if rb_visible(xv, landmarks[i], rmin, rmax, amin, amax):
            if c == target:
                k = i
                break
            c += 1
    z = rb_h(xv, landmarks[k])
    z[0] += sW[0, 0] * n0
    z[1] = wrap_angle(z[1] + sW[1, 0] * n0 + sW[1, 1] * n1)
    return z, k
