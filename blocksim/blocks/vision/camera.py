"""The camera block: world points seen by a central perspective camera at a moving pose."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import NO_STATE
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain
from blocksim.robotics.camera import CentralCamera
from blocksim.robotics.camera._args import points3

from ._params import as_input, checked, intrinsics, packed
from .kernels import (
    camera_flat_kernel,
    camera_kernel,
    camera_points_flat_kernel,
    camera_points_kernel,
)

_X = NO_STATE  # read-only, as the generated code passes it


def _world_points(P: Any, name: str) -> np.ndarray:
    return points3(P, name)[0]


class Camera(Block):
    """Central perspective camera (RTB roblocks *camera*, bdsim/MVTB *CAMERA*).

    Projects world points into the image of a camera whose pose is the input:
    ``(X, Y, Z) = R^T (P - t)`` in the camera frame for the pose ``T = [[R, t], [0, 1]]``, then
    ``u = f X / (rho_u Z) + u0``, ``v = f Y / (rho_v Z) + v0``; the camera's z axis is the
    optical axis, u points right and v down (see :mod:`blocksim.robotics.camera.central`).

    Parameters
    ----------
    P : array_like (3, N) or None
        World points [m], one per column (a single point may be (3,)). None (default): the
        points are the second input ``points`` instead.
    f : float
        Focal length [m]. Default 0.008.
    rho : float or (2,) array_like
        Pixel size [m/pixel], one value or ``(rho_u, rho_v)``. Default 10e-6.
    pp : (2,) array_like or None
        Principal point ``(u0, v0)`` [pixel]; None (default): the image centre.
    resolution : (2,) array_like of int
        Image size (width, height) [pixels]. Default (1024, 1024).
    flat : bool
        Output ``uv`` flattened to (2N,) ``[u0, v0, u1, v1, ...]`` (the row order of the image
        Jacobian) instead of (2, N) columns. Default False.

    Inputs
    ------
    pose : ndarray (4, 4)
        Pose of the camera in the world (SE(3)).
    points : ndarray (3, N)
        World points [m]; only when ``P`` is None.

    Outputs
    -------
    uv : ndarray (2, N), or (2N,) with ``flat=True``
        Image coordinates [pixel]. A point not in front of the camera (Z <= 0) gives NaN,
        which the engine reports as a non-finite signal; points outside the image are
        returned as computed.
    depth : ndarray (N,)
        Depth Z of each point in the camera frame [m] (the depth input of
        :class:`ImageJacobian` and :class:`IBVS`).
    """

    outputs = ("uv", "depth")

    def __init__(self, P: Any = None, f: float = 0.008, rho: float | Any = 10e-6,
                 pp: Any = None, resolution: Any = (1024, 1024), flat: bool = False) -> None:
        super().__init__()
        cam = intrinsics("Camera", f, rho, pp, resolution)
        if not isinstance(flat, (bool, np.bool_)):
            raise BlockParameterError(f"Camera: parameter 'flat' must be True or False, got "
                                      f"{plain(flat)}")
        self._flat = bool(flat)
        self._cam = packed(cam)
        pose = Port("pose", shape=(4, 4), doc="camera pose in the world")
        if P is None:
            self._P = None
            self.set_ports(inputs=(pose, Port("points", unit="m", doc="world points (3, N)")),
                           outputs=(Port("uv", unit="pixel"), Port("depth", unit="m")))
            self._kernel = camera_points_flat_kernel if self._flat else camera_points_kernel
            self._kparams: tuple[Any, ...] = self._cam
        else:
            Pm = checked("Camera", "P", P, _world_points)
            n = Pm.shape[1]
            self._P = Pm
            uv_shape = (2 * n,) if self._flat else (2, n)
            self.set_ports(inputs=(pose,),
                           outputs=(Port("uv", shape=uv_shape, unit="pixel"),
                                    Port("depth", shape=(n,), unit="m")))
            self._kernel = camera_flat_kernel if self._flat else camera_kernel
            self._kparams = (Pm, *self._cam)

    @classmethod
    def from_camera(cls, camera: CentralCamera, P: Any = None, flat: bool = False) -> Camera:
        """A Camera block with the intrinsics of ``camera`` (its pose is the block's input)."""
        return cls(P=P, f=camera.f, rho=camera.rho.tolist(), pp=camera.pp.tolist(),
                   resolution=list(camera.resolution), flat=flat)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        if self._P is None:
            return self._kernel(t, _X, as_input(u[0]), as_input(u[1]), self._kparams)
        return self._kernel(t, _X, as_input(u[0]), self._kparams)

    def kernels(self) -> Kernels:
        """``camera_kernel`` / ``camera_flat_kernel`` with params ``(P, fu, fv, u0, v0)``, or
        ``camera_points_kernel`` / ``camera_points_flat_kernel`` with ``(fu, fv, u0, v0)``
        when the points are an input. The interpreted block calls the same kernels."""
        return Kernels(params=self._kparams, output=self._kernel)
