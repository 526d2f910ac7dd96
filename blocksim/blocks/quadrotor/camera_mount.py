"""A camera carried by a multirotor: its pose in the world from the vehicle's state."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import NO_STATE
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError

from . import kernels as qk
from ._params import as_input, flag, shown

__all__ = ["CameraMount"]

_X = NO_STATE  # read-only, as the generated code passes it


class CameraMount(Block):
    """Pose of a camera fixed to a multirotor (for :class:`~blocksim.blocks.vision.Camera`).

    Equation: ``T_cam = [[R_B, p], [0, 1]] @ mount`` with ``p`` the vehicle's position and
    ``R_B = Rz(yaw) Ry(pitch) Rx(roll)`` its attitude; with ``gimbal=True`` the camera is
    stabilised, ``R_B = Rz(yaw)`` (roll and pitch removed, as the de-rotated "virtual camera"
    of image-based visual servoing for multirotors).

    With the default ``mount`` (identity) the camera's optical axis is the body z axis, which
    points **down** (world z down), the image u axis along the body x (forward) and v along
    the body y (right): a downward-looking camera at the centre of gravity.

    Parameters
    ----------
    mount : array_like (4, 4)
        Pose of the camera in the body frame (SE(3)). Default identity.
    gimbal : bool
        Stabilise the camera in roll and pitch. Default True.

    Inputs
    ------
    x : ndarray (12,)
        The vehicle state (:class:`MultiRotor`'s ``x``).

    Outputs
    -------
    pose : ndarray (4, 4)
        Pose of the camera in the world.
    """

    def __init__(self, mount: Any = None, gimbal: bool = True) -> None:
        super().__init__()
        owner = "CameraMount"
        try:
            M = np.eye(4) if mount is None else np.array(mount, dtype=np.float64)
        except (TypeError, ValueError):
            M = np.zeros(0)
        ok = M.shape == (4, 4) and np.all(np.isfinite(M))
        if ok:
            R = M[:3, :3]
            ok = bool(
                np.allclose(R.T @ R, np.eye(3), atol=1e-9)
                and np.isclose(np.linalg.det(R), 1.0)
                and np.allclose(M[3], [0, 0, 0, 1])
            )
        if not ok:
            raise BlockParameterError(
                f"{owner}: parameter 'mount' must be a 4x4 rigid-body "
                f"transform (camera pose in the body frame), got {shown(mount)}"
            )
        self.set_ports(
            inputs=(Port("x", shape=(12,), doc="vehicle state"),),
            outputs=(Port("pose", shape=(4, 4), doc="camera pose in the world"),),
        )
        self._kp = (np.ascontiguousarray(M), flag(owner, "gimbal", gimbal))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (qk.camera_mount_output(t, _X, as_input(u[0]), self._kp),)

    def kernels(self) -> Kernels:
        """``camera_mount_output``, params ``(mount (4, 4), gimbal)``."""
        return Kernels(self._kp, output=qk.camera_mount_output)
