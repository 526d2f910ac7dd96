"""The emulated CoppeliaSim's ``sim`` functions on object poses: position, orientation (Euler
angles, CoppeliaSim's ``Rx Ry Rz``), matrix (3x4, row by row) and pose (position and
quaternion ``qx qy qz qw``), each relative to the world (``-1``) or to another object.

A setter takes ``(handle, value, relative_to=-1)`` or, as before CoppeliaSim 4.6,
``(handle, relative_to, value)``; setting an object's pose carries everything below it along.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from blocksim.hardware.coppeliasim_arguments import SimError, is_int, is_number
from blocksim.hardware.coppeliasim_scene import Scene, euler_xyz, rot_xyz

__all__ = ["PoseFunctions", "quaternion", "rotation"]


def quaternion(R: np.ndarray) -> list[float]:
    """The unit quaternion ``[qx, qy, qz, qw]`` (``qw >= 0``) of rotation matrix ``R``."""
    t = float(np.trace(R))
    if t > 0.0:
        s = 2.0 * math.sqrt(1.0 + t)
        q = [(R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s, s / 4]
    else:
        i = int(np.argmax(np.diag(R)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * math.sqrt(max(0.0, 1.0 + R[i, i] - R[j, j] - R[k, k]))
        q = [0.0, 0.0, 0.0, (R[k, j] - R[j, k]) / s]
        q[i], q[j], q[k] = s / 4, (R[j, i] + R[i, j]) / s, (R[k, i] + R[i, k]) / s
    sign = -1.0 if q[3] < 0 else 1.0
    return [sign * float(x) for x in q]


def rotation(q: np.ndarray) -> np.ndarray:
    """The rotation matrix of quaternion ``[qx, qy, qz, qw]`` (normalised first)."""
    n = float(np.linalg.norm(q))
    if not n > 1e-12:
        raise SimError("a quaternion of norm 0 is not a rotation")
    x, y, z, w = (float(v) / n for v in q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def _vec(v: Any, n: int, what: str) -> np.ndarray:
    ok = isinstance(v, list) and len(v) == n
    if not (ok and all(is_number(x) and abs(x) < 1e300 for x in v)):
        raise SimError(f"{what}: a table of {n} numbers expected")
    return np.array(v, dtype=float)


class PoseFunctions:
    """The pose functions (a base of :class:`~.coppeliasim_emulator.CoppeliaSimEmulator`,
    which holds ``scene``)."""

    scene: Scene

    def _pose_args(self, a: Any, b: Any, n: int, what: str) -> tuple[int, np.ndarray]:
        """(relative_to, value) of a setter called as (h, value, rel) or (h, rel, value)."""
        if is_int(a):  # the old order: the value comes last
            return int(a), _vec(b, n, what)
        if b is not None and not is_int(b):
            raise SimError(f"{what}: argument 3 is not an integer")
        return (-1 if b is None else int(b)), _vec(a, n, what)

    def _relative(self, h: int, rel: int) -> np.ndarray:
        self.scene.get(h)
        return np.linalg.inv(self.scene.world(rel)) @ self.scene.world(h)

    def _set_relative(self, h: int, rel: int, T: np.ndarray) -> None:
        self.scene.set_world(h, self.scene.world(rel) @ T)

    def sim_getObjectPosition(self, h: int, rel: int = -1) -> list[float]:
        return [float(x) for x in self._relative(h, rel)[:3, 3]]

    def sim_setObjectPosition(self, h: int, a: Any, b: Any = None) -> None:
        rel, p = self._pose_args(a, b, 3, "sim.setObjectPosition")
        T = self._relative(h, rel)
        T[:3, 3] = p
        self._set_relative(h, rel, T)

    def sim_getObjectOrientation(self, h: int, rel: int = -1) -> list[float]:
        return euler_xyz(self._relative(h, rel)[:3, :3])

    def sim_setObjectOrientation(self, h: int, a: Any, b: Any = None) -> None:
        rel, e = self._pose_args(a, b, 3, "sim.setObjectOrientation")
        T = self._relative(h, rel)
        T[:3, :3] = rot_xyz(*e)
        self._set_relative(h, rel, T)

    def sim_getObjectMatrix(self, h: int, rel: int = -1) -> list[float]:
        return [float(x) for x in self._relative(h, rel)[:3, :].reshape(-1)]

    def sim_setObjectMatrix(self, h: int, a: Any, b: Any = None) -> None:
        rel, m = self._pose_args(a, b, 12, "sim.setObjectMatrix")
        T = np.eye(4)
        T[:3, :] = m.reshape(3, 4)
        self._set_relative(h, rel, T)

    def sim_getObjectPose(self, h: int, rel: int = -1) -> list[float]:
        """``[x, y, z, qx, qy, qz, qw]`` of ``h`` relative to ``rel``."""
        T = self._relative(h, rel)
        return [float(x) for x in T[:3, 3]] + quaternion(T[:3, :3])

    def sim_setObjectPose(self, h: int, a: Any, b: Any = None) -> None:
        rel, v = self._pose_args(a, b, 7, "sim.setObjectPose")
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = rotation(v[3:]), v[:3]
        self._set_relative(h, rel, T)
