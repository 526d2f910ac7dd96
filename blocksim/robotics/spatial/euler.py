"""Three-angle and angle-axis representations: roll-pitch-yaw, ZYZ Euler, angle-vector.

Angle meanings (Robotics Toolbox 9.10 conventions):

* **Roll-pitch-yaw**, ``order="xyz"`` (default): ``rpy = [roll, pitch, yaw]`` and
  ``R = Rx(roll) @ Ry(pitch) @ Rz(yaw)``: rotate about x by roll, then about the *new* y by
  pitch, then about the newest z by yaw (equivalently z, y, x about the fixed axes).
* ``order="zyx"`` (RTB's ``'zyx'`` option, Paul's book): the three angles are about z, y, x in
  that order: ``R = Rz(rpy[0]) @ Ry(rpy[1]) @ Rx(rpy[2])``. For a vehicle moving along x
  this is yaw, pitch, roll: **the first element is the rotation about z**. (RTB 10 and the
  Python SMTB reverse the vector in this mode; blocksim keeps the 9.10 meaning in which the
  vector always lists the angles in the order of the axes named by ``order``.)
* **ZYZ Euler** ``eul = [phi, theta, psi]``: ``R = Rz(phi) @ Ry(theta) @ Rz(psi)``.
* **Angle-vector**: rotation of ``theta`` about the direction ``v`` (right-handed).

Each conversion back returns the middle angle in [-pi/2, pi/2] (rpy) or [0, pi] (ZYZ, or
[-pi, 0] with ``flip=True``); at the singularities (pitch = +-pi/2, theta = 0 or pi) the first
angle is set to zero and the third carries their combination.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._args import farray, from_rad, to_rad, vector
from .kernels import r2q_nb, rpy2r_nb, so3_exp_nb, tr2rpy_nb
from .so3 import rotation_stack, roty, rotz

_ORDERS = ("xyz", "zyx")


def _angles3(args: tuple, unit: str, name: str) -> tuple[np.ndarray, bool]:
    """Three angles as (K, 3) radians from ``(a, b, c)`` or one array (3,) / (K, 3)."""
    if len(args) == 3:
        cols = [np.asarray(a, dtype=float).reshape(-1) for a in args]
        if len({c.size for c in cols}) != 1:
            raise ValueError(f"{name}: the three angle arguments must have the same length")
        a = np.stack(cols, axis=-1)
        single = all(np.ndim(x) == 0 for x in args)
    elif len(args) == 1:
        a = farray(args[0])
        single = a.ndim == 1
        if a.shape == (3,):
            a = a.reshape(1, 3)
        elif not (a.ndim == 2 and a.shape[1] == 3):
            raise ValueError(f"{name}: expected 3 angles, (3,) or (K, 3), got shape {a.shape}")
    else:
        raise TypeError(f"{name} takes 1 or 3 angle arguments, got {len(args)}")
    return np.ascontiguousarray(to_rad(a, unit)), single


def _zyx(order: str) -> bool:
    if order not in _ORDERS:
        raise ValueError(f"order must be 'xyz' or 'zyx', got {order!r}")
    return order == "zyx"


def _as_tr(R: np.ndarray) -> np.ndarray:
    T = np.zeros((*R.shape[:-2], 4, 4))
    T[..., :3, :3] = R
    T[..., 3, 3] = 1.0
    return T


def rpy2r(*angles: Any, unit: str = "rad", order: str = "xyz") -> np.ndarray:
    """Rotation from roll-pitch-yaw angles (see the module docstring for their meaning).

    Parameters
    ----------
    *angles : three scalars ``roll, pitch, yaw``, or one array_like (3,) or (K, 3)
        Angles [rad, or deg with ``unit="deg"``]; three equal-length vectors give a stack.
    unit : {"rad", "deg"}
    order : {"xyz", "zyx"}

    Returns
    -------
    ndarray, (3, 3), or (K, 3, 3) for K angle triples.
    """
    a, single = _angles3(angles, unit, "rpy2r")
    zyx = _zyx(order)
    R = np.stack([rpy2r_nb(np.ascontiguousarray(row), zyx) for row in a])
    return R[0] if single else R


def rpy2tr(*angles: Any, unit: str = "rad", order: str = "xyz") -> np.ndarray:
    """As :func:`rpy2r` but a transform (4, 4) (or (K, 4, 4)) with zero translation."""
    return _as_tr(rpy2r(*angles, unit=unit, order=order))


def tr2rpy(T: Any, unit: str = "rad", order: str = "xyz") -> np.ndarray:
    """Roll-pitch-yaw angles (3,) of a rotation (3, 3) or transform (4, 4).

    Stacks (K, 3, 3) / (K, 4, 4) give (K, 3). Inverse of :func:`rpy2r` with the same
    ``order``; the middle angle is in [-pi/2, pi/2]. At gimbal lock the first angle is 0.
    """
    Rs, single = rotation_stack(T, "tr2rpy")
    zyx = _zyx(order)
    out = np.stack([tr2rpy_nb(np.ascontiguousarray(R), zyx) for R in Rs])
    out = from_rad(out, unit)
    return out[0] if single else out


def _eul2r_one(phi: float, theta: float, psi: float) -> np.ndarray:
    return rotz(phi) @ roty(theta) @ rotz(psi)


def eul2r(*angles: Any, unit: str = "rad") -> np.ndarray:
    """Rotation from ZYZ Euler angles ``[phi, theta, psi]``: ``Rz(phi) Ry(theta) Rz(psi)``.

    Same argument forms as :func:`rpy2r`; returns (3, 3) or (K, 3, 3).
    """
    a, single = _angles3(angles, unit, "eul2r")
    R = np.stack([_eul2r_one(*row) for row in a])
    return R[0] if single else R


def eul2tr(*angles: Any, unit: str = "rad") -> np.ndarray:
    """As :func:`eul2r` but a transform (4, 4) (or (K, 4, 4)) with zero translation."""
    return _as_tr(eul2r(*angles, unit=unit))


#: |sin(theta)| below which tr2eul treats the rotation as singular
EUL_SINGULAR_TOL = 1e-12


def _tr2eul_one(R: np.ndarray, flip: bool) -> np.ndarray:
    st = np.hypot(R[0, 2], R[1, 2])
    if st < EUL_SINGULAR_TOL:
        phi = 0.0
        theta = np.arctan2(st, R[2, 2]) * (-1.0 if flip else 1.0)
    else:
        phi = np.arctan2(-R[1, 2], -R[0, 2]) if flip else np.arctan2(R[1, 2], R[0, 2])
        theta = np.arctan2(np.cos(phi) * R[0, 2] + np.sin(phi) * R[1, 2], R[2, 2])
    sp, cp = np.sin(phi), np.cos(phi)
    psi = np.arctan2(-sp * R[0, 0] + cp * R[1, 0], -sp * R[0, 1] + cp * R[1, 1])
    return np.array([phi, theta, psi])


def tr2eul(T: Any, unit: str = "rad", flip: bool = False) -> np.ndarray:
    """ZYZ Euler angles ``[phi, theta, psi]`` (3,) of a rotation (3, 3) or transform (4, 4).

    ``theta`` is in [0, pi]; with ``flip=True`` ``phi`` is chosen in the other half plane
    (quadrant 2 or 3 when the default is in 1 or 4) and ``theta`` is in [-pi, 0]. At the
    singularity ``sin(theta) = 0`` phi is set to 0 and psi carries the sum (theta = 0) or the
    difference (theta = pi). Stacks give (K, 3).
    """
    Rs, single = rotation_stack(T, "tr2eul")
    out = from_rad(np.stack([_tr2eul_one(R, flip) for R in Rs]), unit)
    return out[0] if single else out


def angvec2r(theta: float, v: Any, unit: str = "rad") -> np.ndarray:
    """Rotation (3, 3) of ``theta`` about the direction ``v`` (3,) (need not be unit).

    ``theta = 0`` gives the identity for any ``v``; otherwise ``v`` must be non-zero.
    """
    t = to_rad(theta, unit)
    vv = vector(v, 3, "angvec2r: v")
    n = np.linalg.norm(vv)
    if t == 0.0:
        return np.eye(3)
    if n == 0.0:
        raise ValueError("angvec2r: the rotation axis v is zero")
    return so3_exp_nb(np.ascontiguousarray(vv * (t / n)))


def angvec2tr(theta: float, v: Any, unit: str = "rad") -> np.ndarray:
    """As :func:`angvec2r` but a transform (4, 4) with zero translation."""
    return _as_tr(angvec2r(theta, v, unit))


def tr2angvec(T: Any, unit: str = "rad") -> tuple[Any, np.ndarray]:
    """Angle and unit axis of a rotation (3, 3) or transform (4, 4).

    Returns
    -------
    theta : float
        Rotation angle in [0, pi] [rad, or deg].
    v : ndarray, (3,)
        Unit axis; zero for the identity (no axis is defined).

    Stacks (K, 3, 3) / (K, 4, 4) give ``theta`` (K,) and ``v`` (K, 3). Computed through the
    Shepperd quaternion, so it is accurate near 0 and pi.
    """
    Rs, single = rotation_stack(T, "tr2angvec")
    th = np.empty(len(Rs))
    ax = np.zeros((len(Rs), 3))
    for k, R in enumerate(Rs):
        q = r2q_nb(np.ascontiguousarray(R))
        n = np.linalg.norm(q[1:])
        th[k] = 2.0 * np.arctan2(n, q[0])
        if n > 0.0:
            ax[k] = q[1:] / n
    th = from_rad(th, unit)
    if single:
        return float(th[0]), ax[0]
    return th, ax
