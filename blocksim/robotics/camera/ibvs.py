"""The image-based visual servo (IBVS) control law.

``nu = -lam * pinv(J(uv, Z)) @ (uv - uv*)`` with the feature vectors flattened as
``[u0, v0, u1, v1, ...]`` and ``J`` the stacked point-feature image Jacobian
(:func:`.visjac.visjac_p`). ``nu = (v, w)`` is the commanded camera velocity in the camera frame
[m/s, rad/s]. Under this command, with exact depths, the feature error obeys
``d e/dt = J nu = -lam J pinv(J) e``: ``J pinv(J)`` is the identity for three points in general
position and, for N > 3, the projection onto the range of ``J``, which holds the error near a
reachable goal, so the error decays about as ``exp(-lam t)``.
This is RTB's ``IBVS`` class step ``v = lambda * pinv(J) * (p* - p)``, where ``lambda`` is a
gain per step of an Euler loop; here ``lam`` is a rate [1/s].

The pseudo-inverse is :func:`.kernels.pinv_solve_nb` (a Jacobi SVD with MATLAB's ``pinv``
tolerance), so redundant (N > 3) and deficient (N < 3) feature sets both give the
minimum-norm least-squares velocity.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ._args import depths, image_points
from .kernels import ibvs_nb

if TYPE_CHECKING:
    from .central import CentralCamera


def ibvs_law(cam: CentralCamera, uv: Any, uv_star: Any, Z: Any, lam: float) -> np.ndarray:
    """IBVS camera velocity ``-lam * pinv(J) @ (uv - uv_star)``.

    Parameters
    ----------
    cam : CentralCamera
        Intrinsics (its pose is unused).
    uv, uv_star : array_like (2, N) or (2N,)
        Current and desired image points [pixel], columns or flattened
        ``[u0, v0, u1, v1, ...]``.
    Z : float or array_like (N,)
        Depths of the points in the camera frame [m] (estimated or true).
    lam : float
        Gain [1/s], > 0 for convergence.

    Returns
    -------
    ndarray (6,)
        Camera velocity ``(vx, vy, vz, wx, wy, wz)`` [m/s, rad/s] in the camera frame.
    """
    m = image_points(uv, "ibvs_law: uv")
    s = image_points(uv_star, "ibvs_law: uv_star")
    if s.shape != m.shape:
        raise ValueError(f"ibvs_law: uv_star has {s.shape[1]} points, uv has {m.shape[1]}")
    lam = float(lam)
    if not math.isfinite(lam):
        raise ValueError(f"ibvs_law: lam must be finite, got {lam}")
    return ibvs_nb(m, s, depths(Z, m.shape[1], "ibvs_law: Z"), lam, cam.fu, cam.fv, cam.u0,
                   cam.v0)
