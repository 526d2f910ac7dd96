"""Compiled kernels of the vision blocks (:mod:`blocksim.blocks.vision`).

Every kernel follows the contract of :mod:`blocksim.engine.compiled.kernels`: a module-level
``numba.njit(cache=True, error_model="numpy")`` function of ``(t, x, u0, ..., params)``. The
numerics are the camera
kernels of :mod:`blocksim.robotics.camera.kernels` (``project_nb``, ``depth_nb``,
``visjac_p_nb``, ``ibvs_nb``); the interpreted blocks call these same kernels, so both back-ends
compute the same numbers.

Signals: the camera pose is (4, 4); world points (3, N); image points (2, N) columns or the
flattened (2N,) ``[u0, v0, u1, v1, ...]`` (both accepted as inputs, see ``uv_columns_nb``);
a depth input is a float (the same for every point) or (N,).

Parameters (intrinsics) ``fu, fv`` focal length in pixels, ``u0, v0`` principal point [pixel].
"""

from __future__ import annotations

import numba
import numpy as np

from blocksim.robotics.camera.kernels import (
    depth_nb,
    flatten_uv_nb,
    ibvs_nb,
    project_nb,
    uv_columns_nb,
    visjac_p_nb,
)

_njit = numba.njit(cache=True, error_model="numpy")


@_njit
def camera_kernel(t, x, pose, p):
    """Camera with constant points; params ``(P (3, N), fu, fv, u0, v0)``; returns
    ``(uv (2, N), depth (N,))``."""
    T = np.ascontiguousarray(pose)
    return project_nb(p[0], T, p[1], p[2], p[3], p[4]), depth_nb(p[0], T)


@_njit
def camera_flat_kernel(t, x, pose, p):
    """As :func:`camera_kernel` with ``uv`` flattened to (2N,)."""
    uv, z = camera_kernel(t, x, pose, p)
    return flatten_uv_nb(uv), z


@_njit
def camera_points_kernel(t, x, pose, points, p):
    """Camera with the points as an input (3, N); params ``(fu, fv, u0, v0)``; returns
    ``(uv (2, N), depth (N,))``."""
    T = np.ascontiguousarray(pose)
    P = np.ascontiguousarray(points)
    return project_nb(P, T, p[0], p[1], p[2], p[3]), depth_nb(P, T)


@_njit
def camera_points_flat_kernel(t, x, pose, points, p):
    """As :func:`camera_points_kernel` with ``uv`` flattened to (2N,)."""
    uv, z = camera_points_kernel(t, x, pose, points, p)
    return flatten_uv_nb(uv), z


@_njit
def image_jacobian_kernel(t, x, uv, depth, p):
    """Image Jacobian (2N, 6) of ``uv`` at ``depth``; params ``(fu, fv, u0, v0)``."""
    m = uv_columns_nb(uv)
    Z = np.ones(m.shape[1]) * depth
    return visjac_p_nb(m, Z, p[0], p[1], p[2], p[3])


@_njit
def ibvs_kernel(t, x, uv, depth, p):
    """IBVS velocity (6,) with the depth as an input; params
    ``(uv_star (2, N), lam, fu, fv, u0, v0)``."""
    m = uv_columns_nb(uv)
    Z = np.ones(m.shape[1]) * depth
    return ibvs_nb(m, p[0], Z, p[1], p[2], p[3], p[4], p[5])


@_njit
def ibvs_fixed_depth_kernel(t, x, uv, p):
    """IBVS velocity (6,) with constant depths; params
    ``(uv_star (2, N), lam, fu, fv, u0, v0, Z (N,))``."""
    return ibvs_nb(uv_columns_nb(uv), p[0], p[6], p[1], p[2], p[3], p[4], p[5])
