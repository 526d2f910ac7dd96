"""Visual-servo blocks: the point-feature image Jacobian and the IBVS control law."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import NO_STATE
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain
from blocksim.robotics.camera import CentralCamera
from blocksim.robotics.camera._args import depths, image_points

from ._params import as_input, checked, intrinsics, packed
from .kernels import ibvs_fixed_depth_kernel, ibvs_kernel, image_jacobian_kernel

_X = NO_STATE  # read-only, as the generated code passes it

_UV_DOC = "image points (2, N) or flattened (2N,) [u0, v0, u1, v1, ...]"
_DEPTH_DOC = "depth of the points in the camera frame: a float or (N,)"


class ImageJacobian(Block):
    """Image Jacobian of point features (RTB roblocks *image Jacobian*, MVTB ``visjac_p``,
    bdsim *VISJAC_P*).

    Equation, for point i at normalised coordinates ``x = (u - u0)/fu``, ``y = (v - v0)/fv``
    (``fu = f/rho_u``, ``fv = f/rho_v``) and depth ``Z``, rows ``2i, 2i+1`` of the output:

    ``[fu (-1/Z, 0, x/Z, x y, -(1 + x^2), y); fv (0, -1/Z, y/Z, 1 + y^2, -x y, -x)]``,

    so that ``d(uv)/dt = J @ (v, w)`` for the camera velocity in the camera frame.

    Parameters
    ----------
    f, rho, pp, resolution :
        Camera intrinsics, as :class:`~blocksim.blocks.vision.Camera` (defaults 0.008 m,
        10e-6 m/pixel, image centre, (1024, 1024)).

    Inputs
    ------
    uv : ndarray (2, N) or (2N,)
        Image points [pixel], columns or flattened ``[u0, v0, u1, v1, ...]``.
    depth : float or ndarray (N,)
        Depth of each point in the camera frame [m] (e.g. :class:`Camera`'s ``depth``).

    Outputs
    -------
    jac : ndarray (2N, 6)
        The stacked image Jacobian; columns 0-2 in pixel/m, 3-5 in pixel/rad.
    """

    outputs = ("jac",)

    def __init__(self, f: float = 0.008, rho: float | Any = 10e-6, pp: Any = None,
                 resolution: Any = (1024, 1024)) -> None:
        super().__init__()
        self._kparams = packed(intrinsics("ImageJacobian", f, rho, pp, resolution))
        self.set_ports(inputs=(Port("uv", unit="pixel", doc=_UV_DOC),
                               Port("depth", unit="m", doc=_DEPTH_DOC)),
                       outputs=(Port("jac", doc="image Jacobian (2N, 6)"),))

    @classmethod
    def from_camera(cls, camera: CentralCamera) -> ImageJacobian:
        """An ImageJacobian block with the intrinsics of ``camera``."""
        return cls(f=camera.f, rho=camera.rho.tolist(), pp=camera.pp.tolist(),
                   resolution=list(camera.resolution))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        return (image_jacobian_kernel(t, _X, as_input(u[0]), as_input(u[1]), self._kparams),)

    def kernels(self) -> Kernels:
        """``image_jacobian_kernel``, params ``(fu, fv, u0, v0)``; the interpreted block calls
        the same kernel."""
        return Kernels(params=self._kparams, output=image_jacobian_kernel)


class IBVS(Block):
    """Image-based visual servo control law (RTB roblocks *image Jacobian* + *pinvJac*, the
    step of RTB's ``IBVS`` class).

    Equation: ``nu = -lam * pinv(J(uv, Z)) @ (uv - uv_star)``, the feature vectors flattened as
    ``[u0, v0, u1, v1, ...]`` and ``J`` the stacked image Jacobian of :class:`ImageJacobian`;
    ``pinv`` is the minimum-norm least-squares inverse (Jacobi SVD, MATLAB's tolerance). With
    exact depths the feature error decays about as ``exp(-lam t)`` when the camera moves with
    ``nu``: integrate ``dT/dt = T @ [nu]`` (a body-frame pose integrator) and feed the pose to
    :class:`Camera`.

    Parameters
    ----------
    uv_star : array_like (2, N) or (2N,)
        Desired image points [pixel].
    lam : float
        Gain [1/s], > 0. Default 0.08 (RTB's ``IBVS`` default, there a gain per Euler step).
    Z : float or array_like (N,) or None
        Fixed depths of the points [m] (one for all, or one each); None (default): the depths
        are the second input ``depth``.
    f, rho, pp, resolution :
        Camera intrinsics, as :class:`~blocksim.blocks.vision.Camera`.

    Inputs
    ------
    uv : ndarray (2, N) or (2N,)
        Current image points [pixel], columns or flattened.
    depth : float or ndarray (N,)
        Depths of the points in the camera frame [m]; only when ``Z`` is None.

    Outputs
    -------
    v : ndarray (6,)
        Commanded camera velocity ``(vx, vy, vz, wx, wy, wz)`` [m/s, rad/s] in the camera frame.
    """

    outputs = ("v",)

    def __init__(self, uv_star: Any, lam: float = 0.08, Z: Any = None, f: float = 0.008,
                 rho: float | Any = 10e-6, pp: Any = None,
                 resolution: Any = (1024, 1024)) -> None:
        super().__init__()
        cam = packed(intrinsics("IBVS", f, rho, pp, resolution))
        star = checked("IBVS", "uv_star", uv_star, image_points)
        n = star.shape[1]
        if isinstance(lam, bool) or not isinstance(lam, (int, float, np.integer, np.floating)) \
                or not math.isfinite(lam) or lam <= 0:
            raise BlockParameterError(f"IBVS: parameter 'lam' must be a positive number [1/s], "
                                      f"got {plain(lam)}")
        uv_port = Port("uv", unit="pixel", doc=_UV_DOC)
        out = (Port("v", shape=(6,), doc="camera velocity (v, w) in the camera frame"),)
        self._kparams: tuple[Any, ...] = (star, float(lam), *cam)
        if Z is None:
            self._fixed = False
            self.set_ports(inputs=(uv_port, Port("depth", unit="m", doc=_DEPTH_DOC)),
                           outputs=out)
        else:
            z = checked("IBVS", "Z", Z, depths, n)
            if np.any(z <= 0.0):
                raise BlockParameterError(f"IBVS: parameter 'Z' (depths) must be positive [m], "
                                          f"got {plain(Z)}")
            self._fixed = True
            self._kparams = (*self._kparams, z)
            self.set_ports(inputs=(uv_port,), outputs=out)

    @classmethod
    def from_camera(cls, camera: CentralCamera, uv_star: Any, lam: float = 0.08,
                    Z: Any = None) -> IBVS:
        """An IBVS block with the intrinsics of ``camera``."""
        return cls(uv_star, lam=lam, Z=Z, f=camera.f, rho=camera.rho.tolist(),
                   pp=camera.pp.tolist(), resolution=list(camera.resolution))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        if self._fixed:
            return (ibvs_fixed_depth_kernel(t, _X, as_input(u[0]), self._kparams),)
        return (ibvs_kernel(t, _X, as_input(u[0]), as_input(u[1]), self._kparams),)

    def kernels(self) -> Kernels:
        """``ibvs_kernel`` with params ``(uv_star (2, N), lam, fu, fv, u0, v0)``, or
        ``ibvs_fixed_depth_kernel`` with ``Z`` (N,) appended; the interpreted block calls the
        same kernels."""
        return Kernels(params=self._kparams,
                       output=ibvs_fixed_depth_kernel if self._fixed else ibvs_kernel)
