"""Numba kernels of the spatial maths used in hot paths (arm, camera and vehicle kernels).

All kernels are ``@njit(cache=True)`` and take C-contiguous float64 arrays (and Python bools);
call them with exactly those types so that each compiles once. The Python-facing functions in
this package convert their arguments and call these kernels, so the numerics exist once.

Conventions
-----------
* Rotation vector ``w`` (3,): axis times angle, rad; ``exp([w])`` is a rotation by ``|w|`` about
  ``w / |w|`` (right-handed).
* Twist ``xi`` (6,): ``(v, w)``, **translation first**, Robotics Toolbox order (Modern
  Robotics uses ``(w, v)``; :mod:`blocksim.robotics.mr` swaps). Its se(3) matrix is
  ``[[skew(w), v], [0, 0]]``.
* Quaternion ``q`` (4,): ``[s, vx, vy, vz]``, scalar first, Hamilton product; the rotation by
  ``theta`` about unit ``u`` is ``[cos(theta/2), u sin(theta/2)]``.
"""

from __future__ import annotations

import math

import numba
import numpy as np

_njit = numba.njit(cache=True)

#: below this angle (rad) the exp/log coefficients use their Taylor series
_SMALL = 1e-2


@_njit
def skew_nb(w):
    """so(3) matrix (3, 3) of a 3-vector: ``skew(w) @ x == cross(w, x)``."""
    S = np.zeros((3, 3))
    S[0, 1] = -w[2]
    S[0, 2] = w[1]
    S[1, 0] = w[2]
    S[1, 2] = -w[0]
    S[2, 0] = -w[1]
    S[2, 1] = w[0]
    return S


@_njit
def vex_nb(S):
    """3-vector of a (3, 3) matrix's skew part: mean of each antisymmetric pair (RTB vex)."""
    w = np.empty(3)
    w[0] = 0.5 * (S[2, 1] - S[1, 2])
    w[1] = 0.5 * (S[0, 2] - S[2, 0])
    w[2] = 0.5 * (S[1, 0] - S[0, 1])
    return w


@_njit
def _rodrigues(w, a, b):
    """``I + a W + b W^2`` (3, 3) for ``W = skew(w)``, written out (no BLAS call)."""
    x, y, z = w[0], w[1], w[2]
    M = np.empty((3, 3))
    M[0, 0] = 1.0 - b * (y * y + z * z)
    M[1, 1] = 1.0 - b * (x * x + z * z)
    M[2, 2] = 1.0 - b * (x * x + y * y)
    M[0, 1] = -a * z + b * x * y
    M[1, 0] = a * z + b * x * y
    M[0, 2] = a * y + b * x * z
    M[2, 0] = -a * y + b * x * z
    M[1, 2] = -a * x + b * y * z
    M[2, 1] = a * x + b * y * z
    return M


@_njit
def _exp_coeffs(theta):
    """``(sin t / t, (1 - cos t) / t^2, (t - sin t) / t^3)`` without cancellation."""
    if theta < _SMALL:
        t2 = theta * theta
        a = 1.0 - t2 / 6.0 + t2 * t2 / 120.0
        b = 0.5 - t2 / 24.0 + t2 * t2 / 720.0
        c = 1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0
        return a, b, c
    h = math.sin(0.5 * theta) / (0.5 * theta)
    return math.sin(theta) / theta, 0.5 * h * h, (theta - math.sin(theta)) / theta ** 3


@_njit
def so3_exp_nb(w):
    """Rotation matrix (3, 3) ``exp(skew(w))`` of a rotation vector ``w`` (3,) [rad] (Rodrigues)."""
    theta = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
    a, b, _ = _exp_coeffs(theta)
    return _rodrigues(w, a, b)


@_njit
def r2q_nb(R):
    """Unit quaternion (4,) ``[s, v]`` with ``s >= 0`` of a rotation matrix (3, 3), Shepperd.

    Uses the largest of ``4s^2, 4vx^2, 4vy^2, 4vz^2`` as pivot, so it is accurate for every
    rotation including angles near pi; the result is normalised.
    """
    q = np.empty(4)
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    if tr >= R[0, 0] and tr >= R[1, 1] and tr >= R[2, 2]:
        k = 2.0 * math.sqrt(max(1.0 + tr, 0.0))
        q[0] = 0.25 * k
        q[1] = (R[2, 1] - R[1, 2]) / k
        q[2] = (R[0, 2] - R[2, 0]) / k
        q[3] = (R[1, 0] - R[0, 1]) / k
    elif R[0, 0] >= R[1, 1] and R[0, 0] >= R[2, 2]:
        k = 2.0 * math.sqrt(max(1.0 + R[0, 0] - R[1, 1] - R[2, 2], 0.0))
        q[0] = (R[2, 1] - R[1, 2]) / k
        q[1] = 0.25 * k
        q[2] = (R[0, 1] + R[1, 0]) / k
        q[3] = (R[0, 2] + R[2, 0]) / k
    elif R[1, 1] >= R[2, 2]:
        k = 2.0 * math.sqrt(max(1.0 + R[1, 1] - R[0, 0] - R[2, 2], 0.0))
        q[0] = (R[0, 2] - R[2, 0]) / k
        q[1] = (R[0, 1] + R[1, 0]) / k
        q[2] = 0.25 * k
        q[3] = (R[1, 2] + R[2, 1]) / k
    else:
        k = 2.0 * math.sqrt(max(1.0 + R[2, 2] - R[0, 0] - R[1, 1], 0.0))
        q[0] = (R[1, 0] - R[0, 1]) / k
        q[1] = (R[0, 2] + R[2, 0]) / k
        q[2] = (R[1, 2] + R[2, 1]) / k
        q[3] = 0.25 * k
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if q[0] < 0.0:
        n = -n
    return q / n


@_njit
def q2r_nb(q):
    """Rotation matrix (3, 3) of a quaternion (4,) ``[s, v]``; a non-unit q is normalised."""
    s, x, y, z = q[0], q[1], q[2], q[3]
    k = 2.0 / (s * s + x * x + y * y + z * z)
    R = np.empty((3, 3))
    R[0, 0] = 1.0 - k * (y * y + z * z)
    R[0, 1] = k * (x * y - s * z)
    R[0, 2] = k * (x * z + s * y)
    R[1, 0] = k * (x * y + s * z)
    R[1, 1] = 1.0 - k * (x * x + z * z)
    R[1, 2] = k * (y * z - s * x)
    R[2, 0] = k * (x * z - s * y)
    R[2, 1] = k * (y * z + s * x)
    R[2, 2] = 1.0 - k * (x * x + y * y)
    return R


@_njit
def q_mul_nb(a, b):
    """Hamilton product ``a * b`` of two quaternions (4,)."""
    r = np.empty(4)
    r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3]
    r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2]
    r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1]
    r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]
    return r


@_njit
def so3_log_nb(R):
    """Rotation vector (3,) [rad] of a rotation matrix (3, 3); angle in [0, pi].

    Computed through the Shepperd quaternion, ``theta = 2 atan2(|v|, s)``, so it is accurate
    at angles near 0 and near pi (where ``(R - R^T)`` carries no information). At exactly pi
    the axis sign is that of the quaternion's vector part (either is a valid logarithm).
    """
    q = r2q_nb(R)
    n = math.sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if n < 1e-12:
        f = 2.0 / q[0]
    else:
        f = 2.0 * math.atan2(n, q[0]) / n
    w = np.empty(3)
    w[0] = f * q[1]
    w[1] = f * q[2]
    w[2] = f * q[3]
    return w


@_njit
def se3_exp_nb(xi):
    """Homogeneous transform (4, 4) ``exp([xi])`` of a twist ``xi = (v, w)`` (6,).

    ``R = exp(skew(w))``, ``t = (I + b W + c W^2) v`` with ``W = skew(w)``,
    ``b = (1 - cos t)/t^2``, ``c = (t - sin t)/t^3``, ``t = |w|``.
    """
    w = np.empty(3)
    w[0], w[1], w[2] = xi[3], xi[4], xi[5]
    theta = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
    a, b, c = _exp_coeffs(theta)
    R = _rodrigues(w, a, b)
    V = _rodrigues(w, b, c)
    T = np.zeros((4, 4))
    for i in range(3):
        for j in range(3):
            T[i, j] = R[i, j]
        T[i, 3] = V[i, 0] * xi[0] + V[i, 1] * xi[1] + V[i, 2] * xi[2]
    T[3, 3] = 1.0
    return T


@_njit
def se3_log_nb(T):
    """Twist ``(v, w)`` (6,) with ``exp([xi]) == T`` for a transform (4, 4); ``|w|`` in [0, pi].

    ``v = (I - W/2 + d W^2) t`` with ``d = (1 - (t/2) cot(t/2)) / t^2`` (series for small t).
    """
    R = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            R[i, j] = T[i, j]
    w = so3_log_nb(R)
    theta = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
    if theta < _SMALL:
        t2 = theta * theta
        d = 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0
    else:
        h = 0.5 * theta
        d = (1.0 - h * math.cos(h) / math.sin(h)) / (theta * theta)
    Vi = _rodrigues(w, -0.5, d)
    xi = np.empty(6)
    for i in range(3):
        xi[i] = Vi[i, 0] * T[0, 3] + Vi[i, 1] * T[1, 3] + Vi[i, 2] * T[2, 3]
        xi[3 + i] = w[i]
    return xi


@_njit
def rpy2r_nb(rpy, zyx):
    """Rotation (3, 3) of three angles (3,) [rad] about fixed-order moving axes.

    ``zyx=False``: ``R = Rx(rpy[0]) Ry(rpy[1]) Rz(rpy[2])``;
    ``zyx=True``:  ``R = Rz(rpy[0]) Ry(rpy[1]) Rx(rpy[2])`` (RTB 9.10 ``'zyx'``).
    """
    c0, s0 = math.cos(rpy[0]), math.sin(rpy[0])
    c1, s1 = math.cos(rpy[1]), math.sin(rpy[1])
    c2, s2 = math.cos(rpy[2]), math.sin(rpy[2])
    R = np.empty((3, 3))
    if not zyx:
        R[0, 0] = c1 * c2
        R[0, 1] = -c1 * s2
        R[0, 2] = s1
        R[1, 0] = c0 * s2 + s0 * s1 * c2
        R[1, 1] = c0 * c2 - s0 * s1 * s2
        R[1, 2] = -s0 * c1
        R[2, 0] = s0 * s2 - c0 * s1 * c2
        R[2, 1] = s0 * c2 + c0 * s1 * s2
        R[2, 2] = c0 * c1
    else:
        R[0, 0] = c0 * c1
        R[0, 1] = c0 * s1 * s2 - s0 * c2
        R[0, 2] = c0 * s1 * c2 + s0 * s2
        R[1, 0] = s0 * c1
        R[1, 1] = s0 * s1 * s2 + c0 * c2
        R[1, 2] = s0 * s1 * c2 - c0 * s2
        R[2, 0] = -s1
        R[2, 1] = c1 * s2
        R[2, 2] = c1 * c2
    return R


#: |cos(middle angle)| below which tr2rpy_nb treats the rotation as gimbal-locked
GIMBAL_TOL = 1e-12


@_njit
def tr2rpy_nb(R, zyx):
    """Angles (3,) [rad] with ``rpy2r_nb(angles, zyx) == R`` for a rotation (3, 3).

    The middle angle is in [-pi/2, pi/2], the others in (-pi, pi]. The first angle comes from
    the entries scaled by cos(middle); the other two are computed after undoing the first
    rotation, from entries of unit size, so the result reproduces R to rounding error even
    next to the singularity. At gimbal lock (``|cos(middle)| < GIMBAL_TOL``) the first angle is
    set to 0 and the third carries their combination (RTB's convention).
    """
    a = np.empty(3)
    if not zyx:
        c = math.hypot(R[1, 2], R[2, 2])
        a[0] = 0.0 if c < GIMBAL_TOL else math.atan2(-R[1, 2], R[2, 2])
        s0, c0 = math.sin(a[0]), math.cos(a[0])
        a[1] = math.atan2(R[0, 2], c0 * R[2, 2] - s0 * R[1, 2])
        a[2] = math.atan2(c0 * R[1, 0] + s0 * R[2, 0], c0 * R[1, 1] + s0 * R[2, 1])
    else:
        c = math.hypot(R[0, 0], R[1, 0])
        a[0] = 0.0 if c < GIMBAL_TOL else math.atan2(R[1, 0], R[0, 0])
        s0, c0 = math.sin(a[0]), math.cos(a[0])
        a[1] = math.atan2(-R[2, 0], c0 * R[0, 0] + s0 * R[1, 0])
        a[2] = math.atan2(s0 * R[0, 2] - c0 * R[1, 2], c0 * R[1, 1] - s0 * R[0, 1])
    return a
