"""Quaternions as plain 4-arrays ``[s, vx, vy, vz]`` (scalar first, Hamilton product).

A unit quaternion ``[cos(theta/2), u sin(theta/2)]`` is the rotation of ``theta`` about the
unit axis ``u``; ``q`` and ``-q`` are the same rotation. ``q_rotate(q, v) == q2r(q) @ v`` and
``q2r(q_mul(a, b)) == q2r(a) @ q2r(b)``. :class:`~.unitquaternion.UnitQuaternion` wraps these
functions in a value class.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._args import farray, rot3, vector
from .kernels import q2r_nb, q_mul_nb, r2q_nb


def _q(q: Any, name: str = "q") -> np.ndarray:
    return vector(q, 4, name)


def q_mul(q1: Any, q2: Any) -> np.ndarray:
    """Hamilton product ``q1 * q2`` (4,).

    As rotations it composes like matrices: ``q2r(q_mul(q1, q2)) == q2r(q1) @ q2r(q2)``.
    """
    return q_mul_nb(_q(q1, "q1"), _q(q2, "q2"))


def q_conj(q: Any) -> np.ndarray:
    """Conjugate ``[s, -v]`` (4,); the inverse rotation for a unit quaternion."""
    a = _q(q).copy()
    a[1:] = -a[1:]
    return a


def q_norm(q: Any) -> float:
    """Euclidean norm of the 4-vector (1 for a unit quaternion)."""
    return float(np.linalg.norm(_q(q)))


def q_unit(q: Any) -> np.ndarray:
    """``q / |q|`` (4,); raises ``ValueError`` for the zero quaternion."""
    a = _q(q)
    n = np.linalg.norm(a)
    if n == 0.0:
        raise ValueError("q_unit: the zero quaternion has no direction")
    return a / n


def q_inv(q: Any) -> np.ndarray:
    """Multiplicative inverse ``conj(q) / |q|^2`` (4,): ``q_mul(q, q_inv(q)) == [1, 0, 0, 0]``."""
    a = _q(q)
    n2 = float(a @ a)
    if n2 == 0.0:
        raise ValueError("q_inv: the zero quaternion has no inverse")
    return q_conj(a) / n2


def q_rotate(q: Any, v: Any) -> np.ndarray:
    """Rotate vector(s) ``v`` (3,) or (N, 3) by the unit quaternion ``q``: ``R(q) @ v``.

    Equal to the vector part of ``q * [0, v] * conj(q)``; ``q`` is normalised first.
    """
    R = q2r(q)
    p = farray(v)
    if p.shape == (3,):
        return R @ p
    if p.ndim == 2 and p.shape[1] == 3:
        return p @ R.T
    raise ValueError(f"q_rotate: expected v of shape (3,) or (N, 3), got {p.shape}")


def q_slerp(q0: Any, q1: Any, s: Any, shortest: bool = False) -> np.ndarray:
    """Spherical linear interpolation between unit quaternions (Shoemake 1985).

    Parameters
    ----------
    q0, q1 : array_like, (4,)
        End points (normalised first); ``s = 0`` gives ``q0`` and ``s = 1`` gives ``q1``.
    s : float or array_like (N,)
        Interpolation parameter, clipped to [0, 1] (RTB).
    shortest : bool
        If the quaternions are more than 90 degrees apart on the 4-sphere (``q0 . q1 < 0``),
        interpolate to ``-q1`` instead: the same end rotation reached along the shorter
        rotation (angle <= pi). Without it the path follows the great arc to ``q1`` as given.

    Returns
    -------
    ndarray, (4,) for scalar ``s``, (N, 4) for an array. Along the path the rotation angle from
    ``q0`` grows linearly with ``s``. Antipodal end points (``q1 = -q0``: the same rotation)
    give a constant result.
    """
    a, b = q_unit(q0), q_unit(q1)
    ss = np.clip(np.asarray(s, dtype=float), 0.0, 1.0)
    d = float(a @ b)
    if (shortest and d < 0.0) or np.linalg.norm(a + b) < 1e-12:
        b, d = -b, -d
    # half the chord-angle formula: robust near 0 and pi (acos(d) is not)
    om = 2.0 * np.arctan2(np.linalg.norm(a - b), np.linalg.norm(a + b))
    sv = ss.reshape(-1, 1)
    if np.sin(om) < 1e-12:
        out = (1.0 - sv) * a + sv * b
        out /= np.linalg.norm(out, axis=1, keepdims=True)
    else:
        out = (np.sin((1.0 - sv) * om) * a + np.sin(sv * om) * b) / np.sin(om)
    return out[0] if ss.ndim == 0 else out


def q_dot(q: Any, omega: Any) -> np.ndarray:
    """Time derivative (4,) of the attitude quaternion ``q`` of a frame rotating at ``omega``.

    ``omega`` (3,) [rad/s] is the angular velocity expressed in the **reference (world)**
    frame (RTB ``Quaternion.dot``): ``qdot = 0.5 [0, omega] * q``, i.e.
    ``0.5 [-v . omega, s omega - v x omega]``.
    """
    w = np.concatenate(([0.0], vector(omega, 3, "q_dot: omega")))
    return 0.5 * q_mul_nb(w, _q(q))


def r2q(R: Any) -> np.ndarray:
    """Unit quaternion (4,) ``[s, v]`` with ``s >= 0`` of a rotation (3, 3) or transform (4, 4).

    Shepperd's method (pivot on the largest of ``4s^2, 4vx^2, 4vy^2, 4vz^2``): accurate for
    every rotation, including angles near pi.
    """
    return r2q_nb(rot3(R, "r2q"))


def q2r(q: Any) -> np.ndarray:
    """Rotation (3, 3) of a quaternion ``[s, vx, vy, vz]`` (normalised first)."""
    a = _q(q, "q2r")
    if not np.any(a):
        raise ValueError("q2r: the zero quaternion is not a rotation")
    return q2r_nb(a)
