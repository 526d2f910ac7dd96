"""Numba kernels of the central perspective camera: projection, depth, image Jacobian, IBVS.

All kernels are ``@njit(cache=True, error_model="numpy")`` and take C-contiguous float64 arrays
and Python floats; the Python-facing functions of this package convert their arguments and call
these kernels, and so do the vision blocks, so the numerics exist once. No kernel calls LAPACK
or BLAS (numba's ``np.linalg`` costs seconds of first compilation): products are loops and the
pseudo-inverse is the one-sided Jacobi SVD of :mod:`blocksim.robotics.linalg`
(:func:`pinv_solve_nb`).

Conventions (Robotics Toolbox / Machine Vision Toolbox)
-------------------------------------------------------
* Points are columns: world points ``P`` (3, N) [m], image points ``uv`` (2, N) [pixel].
* ``T`` (4, 4) is the pose of the camera in the world; the camera's z axis is the optical axis,
  x to the right of the image (u increasing), y down (v increasing).
* Intrinsics ``fu = f / rho_u``, ``fv = f / rho_v`` (focal length in pixels) and the principal
  point ``(u0, v0)`` [pixel]: ``u = fu X / Z + u0``, ``v = fv Y / Z + v0`` for a point
  ``(X, Y, Z)`` in the camera frame.
* Flattened image points ``(2N,)`` interleave the coordinates, ``[u0, v0, u1, v1, ...]``
  (MATLAB's ``uv(:)``), which is the row order of the image Jacobian (2N, 6).
* Camera velocity ``nu = (v, w)`` (6,): translational [m/s] then angular [rad/s] velocity of the
  camera, in the camera frame; ``d(uv)/dt = J @ nu``.
"""

from __future__ import annotations

import numba
import numpy as np

from blocksim.robotics.linalg import pinv_solve

#: numpy's error model: a division by zero (a point at zero depth) gives inf or NaN, which the
#: engine reports as a non-finite signal, instead of raising ZeroDivisionError
_njit = numba.njit(cache=True, error_model="numpy")

@_njit
def camera_points_nb(P, T):
    """World points ``P`` (3, N) expressed in the frame of a camera at pose ``T`` (4, 4).

    ``Pc = R^T (P - t)`` for ``T = [[R, t], [0, 1]]`` (a rigid transform); returns (3, N).
    """
    n = P.shape[1]
    Pc = np.empty((3, n))
    for i in range(n):
        dx = P[0, i] - T[0, 3]
        dy = P[1, i] - T[1, 3]
        dz = P[2, i] - T[2, 3]
        for r in range(3):
            Pc[r, i] = T[0, r] * dx + T[1, r] * dy + T[2, r] * dz
    return Pc


@_njit
def depth_nb(P, T):
    """Depth ``Z`` (N,) [m] of world points ``P`` (3, N) along the optical axis of a camera at
    pose ``T`` (4, 4): the z coordinate in the camera frame (negative behind the camera)."""
    n = P.shape[1]
    Z = np.empty(n)
    for i in range(n):
        Z[i] = (T[0, 2] * (P[0, i] - T[0, 3]) + T[1, 2] * (P[1, i] - T[1, 3])
                + T[2, 2] * (P[2, i] - T[2, 3]))
    return Z


@_njit
def project_nb(P, T, fu, fv, u0, v0):
    """Image points ``uv`` (2, N) [pixel] of world points ``P`` (3, N) seen by a camera at pose
    ``T`` (4, 4) with intrinsics ``fu, fv, u0, v0``; NaN for points not in front (``Z <= 0``)."""
    Pc = camera_points_nb(P, T)
    n = P.shape[1]
    uv = np.empty((2, n))
    for i in range(n):
        Z = Pc[2, i]
        if Z > 0.0:
            uv[0, i] = fu * Pc[0, i] / Z + u0
            uv[1, i] = fv * Pc[1, i] / Z + v0
        else:
            uv[0, i] = np.nan
            uv[1, i] = np.nan
    return uv


@_njit
def uv_columns_nb(uv):
    """Image points as a C-contiguous (2, N) array from either layout: (2, N) columns, or the
    flattened (2N,) vector ``[u0, v0, u1, v1, ...]``."""
    flat = np.ascontiguousarray(uv).reshape(-1)
    n = flat.size // 2
    out = np.empty((2, n))
    if uv.ndim == 1:
        for i in range(n):
            out[0, i] = flat[2 * i]
            out[1, i] = flat[2 * i + 1]
    else:
        for i in range(n):
            out[0, i] = flat[i]
            out[1, i] = flat[n + i]
    return out


@_njit
def flatten_uv_nb(uv):
    """(2, N) image points as the flattened (2N,) vector ``[u0, v0, u1, v1, ...]``."""
    n = uv.shape[1]
    out = np.empty(2 * n)
    for i in range(n):
        out[2 * i] = uv[0, i]
        out[2 * i + 1] = uv[1, i]
    return out


@_njit
def visjac_p_nb(uv, Z, fu, fv, u0, v0):
    """Image Jacobian (2N, 6) of point features ``uv`` (2, N) [pixel] at depths ``Z`` (N,) [m].

    Rows ``2i, 2i+1`` belong to point i: with ``x = (u - u0)/fu``, ``y = (v - v0)/fv``,

    ``[fu (-1/Z, 0, x/Z, x y, -(1 + x^2), y); fv (0, -1/Z, y/Z, 1 + y^2, -x y, -x)]``,

    so that ``d(uv)/dt = J @ (v, w)`` for the camera velocity in the camera frame (RTB
    ``CentralCamera.visjac_p``). Units: pixel/m in columns 0-2, pixel/rad in columns 3-5.
    """
    n = uv.shape[1]
    if Z.size != n:
        raise ValueError("visjac_p: expected one depth per image point")
    J = np.empty((2 * n, 6))
    for i in range(n):
        x = (uv[0, i] - u0) / fu
        y = (uv[1, i] - v0) / fv
        iz = 1.0 / Z[i]
        r = 2 * i
        J[r, 0] = -fu * iz
        J[r, 1] = 0.0
        J[r, 2] = fu * x * iz
        J[r, 3] = fu * x * y
        J[r, 4] = -fu * (1.0 + x * x)
        J[r, 5] = fu * y
        J[r + 1, 0] = 0.0
        J[r + 1, 1] = -fv * iz
        J[r + 1, 2] = fv * y * iz
        J[r + 1, 3] = fv * (1.0 + y * y)
        J[r + 1, 4] = -fv * x * y
        J[r + 1, 5] = -fv * x
    return J


#: ``pinv(A) @ b`` by the robotics core's Jacobi SVD (one implementation for arms and cameras)
pinv_solve_nb = pinv_solve


@_njit
def ibvs_nb(uv, uv_star, Z, lam, fu, fv, u0, v0):
    """IBVS camera velocity (6,): ``-lam * pinv(J(uv, Z)) @ (uv - uv_star)`` flattened.

    ``uv`` and ``uv_star`` (2, N) [pixel], ``Z`` (N,) [m], ``lam`` [1/s]; returns ``(v, w)``
    [m/s, rad/s] in the camera frame. With an exact ``Z`` and ``J`` of full column rank the
    feature error obeys ``d e/dt = -lam e`` to first order.
    """
    n = uv.shape[1]
    if uv_star.shape[1] != n:
        raise ValueError("ibvs: the image points and their targets uv_star differ in number")
    J = visjac_p_nb(uv, Z, fu, fv, u0, v0)
    e = np.empty(2 * n)
    for i in range(n):
        e[2 * i] = uv[0, i] - uv_star[0, i]
        e[2 * i + 1] = uv[1, i] - uv_star[1, i]
    nu = pinv_solve_nb(J, e)
    for k in range(6):
        nu[k] = -lam * nu[k]
    return nu
