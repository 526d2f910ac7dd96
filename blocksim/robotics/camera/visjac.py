"""Image Jacobian of point features (RTB/MVTB ``CentralCamera.visjac_p``).

For a point at normalised image coordinates ``x = (u - u0)/fu``, ``y = (v - v0)/fv`` and depth
``Z`` [m], the rate of its image coordinates is ``d(u, v)/dt = J @ nu`` with the camera velocity
``nu = (v, w)`` (6,) [m/s, rad/s] expressed in the camera frame and

``J = [[fu, 0], [0, fv]] @ [[-1/Z, 0, x/Z, x y, -(1 + x^2), y],
                           [0, -1/Z, y/Z, 1 + y^2, -x y, -x]]``.

For N points the (2, 6) blocks are stacked: rows ``2i`` and ``2i + 1`` belong to point i, so the
rows follow the flattened feature vector ``[u0, v0, u1, v1, ...]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._args import depths, image_points
from .kernels import visjac_p_nb

if TYPE_CHECKING:
    from .central import CentralCamera


def visjac_p(cam: CentralCamera, uv: Any, Z: Any) -> np.ndarray:
    """Image Jacobian (2N, 6) of N point features.

    Parameters
    ----------
    cam : CentralCamera
        Supplies the intrinsics (focal length in pixels, principal point); its pose is unused.
    uv : array_like (2, N) or (2N,)
        Image points [pixel], columns or flattened ``[u0, v0, u1, v1, ...]``.
    Z : float or array_like (N,)
        Depth of each point in the camera frame [m] (one value for all points, or one each).

    Returns
    -------
    ndarray (2N, 6)
        ``d(uv)/dt = J @ (v, w)``, camera velocity in the camera frame; columns 0-2 in
        pixel/m, 3-5 in pixel/rad.
    """
    m = image_points(uv, "visjac_p: uv")
    return visjac_p_nb(m, depths(Z, m.shape[1], "visjac_p: Z"), cam.fu, cam.fv, cam.u0, cam.v0)
