"""``UnitQuaternion``: a small immutable value class over the quaternion functions.

RTB's ``Quaternion`` operators on unit quaternions: ``q1 * q2`` (Hamilton product, composes
like rotation matrices), ``q * v`` (rotate a 3-vector or an (N, 3) array of them), ``q1 / q2``
(``q1 * q2.inv()``), ``q ** n`` (integer power), ``==`` (same rotation: ``q`` and ``-q`` are
equal). Conversions: :meth:`from_R`, :meth:`from_angvec`, :meth:`from_rpy`, :meth:`from_eul`
and the properties :attr:`R`, :attr:`T`, :attr:`vec`, methods :meth:`angvec`, :meth:`rpy`,
:meth:`eul`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .euler import angvec2r, eul2r, rpy2r, tr2angvec, tr2eul, tr2rpy
from .quaternion import q2r, q_conj, q_dot, q_mul, q_rotate, q_slerp, q_unit, r2q

#: two unit quaternions are the same rotation when ``|q1 . q2| >= 1 - EQ_TOL``
EQ_TOL = 1e-12


class UnitQuaternion:
    """A rotation as a unit quaternion ``s <vx, vy, vz>``.

    Parameters
    ----------
    q : array_like, (4,), optional
        ``[s, vx, vy, vz]``, normalised on construction; default the identity ``[1, 0, 0, 0]``.
    """

    __slots__ = ("_q",)
    __array_ufunc__ = None  # ``ndarray * q`` must not broadcast over the quaternion
    __hash__ = None  # equality is approximate (same rotation), so no hash

    def __init__(self, q: Any = (1.0, 0.0, 0.0, 0.0)) -> None:
        self._q = q_unit(q)
        self._q.setflags(write=False)

    # -- construction
    @classmethod
    def from_R(cls, R: Any) -> UnitQuaternion:
        """From a rotation (3, 3) or the rotation part of a transform (4, 4)."""
        return cls(r2q(R))

    @classmethod
    def from_angvec(cls, theta: float, v: Any, unit: str = "rad") -> UnitQuaternion:
        """Rotation of ``theta`` about the direction ``v`` (3,)."""
        return cls(r2q(angvec2r(theta, v, unit)))

    @classmethod
    def from_rpy(cls, rpy: Any, unit: str = "rad", order: str = "xyz") -> UnitQuaternion:
        """From roll-pitch-yaw angles (3,) (see :func:`~.euler.rpy2r`)."""
        return cls(r2q(rpy2r(rpy, unit=unit, order=order)))

    @classmethod
    def from_eul(cls, eul: Any, unit: str = "rad") -> UnitQuaternion:
        """From ZYZ Euler angles (3,) (see :func:`~.euler.eul2r`)."""
        return cls(r2q(eul2r(eul, unit=unit)))

    # -- values
    @property
    def s(self) -> float:
        """Scalar part."""
        return float(self._q[0])

    @property
    def v(self) -> np.ndarray:
        """Vector part (3,)."""
        return self._q[1:].copy()

    @property
    def vec(self) -> np.ndarray:
        """``[s, vx, vy, vz]`` (4,) (RTB ``double``)."""
        return self._q.copy()

    @property
    def R(self) -> np.ndarray:
        """Rotation matrix (3, 3)."""
        return q2r(self._q)

    @property
    def T(self) -> np.ndarray:
        """Homogeneous transform (4, 4) with zero translation."""
        T = np.eye(4)
        T[:3, :3] = q2r(self._q)
        return T

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.array(self._q, dtype=dtype)

    def angvec(self, unit: str = "rad") -> tuple[float, np.ndarray]:
        """Rotation angle in [0, pi] and unit axis (3,) (zero axis for the identity)."""
        return tr2angvec(self.R, unit)

    def rpy(self, unit: str = "rad", order: str = "xyz") -> np.ndarray:
        """Roll-pitch-yaw angles (3,) (see :func:`~.euler.tr2rpy`)."""
        return tr2rpy(self.R, unit=unit, order=order)

    def eul(self, unit: str = "rad", flip: bool = False) -> np.ndarray:
        """ZYZ Euler angles (3,) (see :func:`~.euler.tr2eul`)."""
        return tr2eul(self.R, unit=unit, flip=flip)

    # -- algebra
    def inv(self) -> UnitQuaternion:
        """Inverse rotation (the conjugate)."""
        return UnitQuaternion(q_conj(self._q))

    conj = inv

    def norm(self) -> float:
        """Norm of the 4-vector (1 up to rounding)."""
        return float(np.linalg.norm(self._q))

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, UnitQuaternion):
            return UnitQuaternion(q_mul(self._q, other._q))
        try:
            p = np.asarray(other, dtype=float)
        except (TypeError, ValueError):
            return NotImplemented
        if p.shape == (3,) or (p.ndim == 2 and p.shape[1] == 3):
            return q_rotate(self._q, p)
        if p.ndim == 0:
            raise TypeError("a UnitQuaternion times a scalar is not a unit quaternion; "
                            "use q.vec * s for the 4-vector")
        return NotImplemented

    def __truediv__(self, other: Any) -> UnitQuaternion:
        if not isinstance(other, UnitQuaternion):
            return NotImplemented
        return self * other.inv()

    def __pow__(self, n: int) -> UnitQuaternion:
        if not isinstance(n, (int, np.integer)):
            raise TypeError(f"UnitQuaternion ** n needs an integer n, got {type(n).__name__}")
        base = self if n >= 0 else self.inv()
        out = UnitQuaternion()
        for _ in range(abs(int(n))):
            out = out * base
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UnitQuaternion):
            return NotImplemented
        return bool(abs(float(self._q @ other._q)) >= 1.0 - EQ_TOL)

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    # -- interpolation and rates
    def interp(self, other: UnitQuaternion, s: Any,
               shortest: bool = False) -> UnitQuaternion | list[UnitQuaternion]:
        """Slerp from ``self`` (s = 0) to ``other`` (s = 1), s clipped to [0, 1].

        An array ``s`` gives a list of quaternions. See :func:`~.quaternion.q_slerp`.
        """
        out = q_slerp(self._q, other._q, s, shortest)
        if out.ndim == 1:
            return UnitQuaternion(out)
        return [UnitQuaternion(row) for row in out]

    def scale(self, s: Any, shortest: bool = False) -> UnitQuaternion | list[UnitQuaternion]:
        """Slerp from the identity (s = 0) to ``self`` (s = 1)."""
        return UnitQuaternion().interp(self, s, shortest)

    def dot(self, omega: Any) -> np.ndarray:
        """Quaternion rate (4,) for angular velocity ``omega`` (3,) [rad/s] in the world frame."""
        return q_dot(self._q, omega)

    def __repr__(self) -> str:
        s, x, y, z = self._q
        return f"UnitQuaternion({s:.6g} < {x:.6g}, {y:.6g}, {z:.6g} >)"
