"""Argument checking and conversion shared by the camera functions.

Every helper returns writeable C-contiguous float64 arrays (the only layout the numba kernels
are compiled for) and raises a ``ValueError`` that names the argument, the expected shape and
what was found.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from blocksim.robotics.spatial import ishomog

#: tolerance of the rigid-transform check of camera poses (max |R^T R - I|)
POSE_TOL = 1e-6


def pose_matrix(T: Any, name: str) -> np.ndarray:
    """``T`` as a writeable C-contiguous float64 (4, 4) rigid transform (checked)."""
    m = np.array(T, dtype=np.float64, order="C")
    if m.shape != (4, 4):
        raise ValueError(f"{name}: expected a rigid transform (4, 4), got shape {m.shape}")
    if not np.all(np.isfinite(m)) or not ishomog(m, check=True, tol=POSE_TOL):
        raise ValueError(f"{name}: expected a rigid transform (4, 4) (an SE(3) matrix: "
                         f"orthonormal rotation, bottom row [0, 0, 0, 1]), got {m.tolist()}")
    return m


def points3(P: Any, name: str) -> tuple[np.ndarray, bool]:
    """World points as a writeable C-contiguous (3, N) float64 array, and whether a single
    point (3,) was given."""
    m = np.array(P, dtype=np.float64, order="C")
    if m.shape == (3,):
        return m.reshape(3, 1), True
    if m.ndim != 2 or m.shape[0] != 3:
        raise ValueError(f"{name}: expected world points as columns, shape (3, N) or (3,), "
                         f"got {m.shape}")
    return m, False


def image_points(uv: Any, name: str) -> np.ndarray:
    """Image points as a writeable C-contiguous (2, N) float64 array.

    Accepts columns (2, N) or a flattened vector (2N,) ``[u0, v0, u1, v1, ...]`` (for one
    point both are ``(u, v)``).
    """
    m = np.array(uv, dtype=np.float64)
    if m.ndim == 2 and m.shape[0] == 2 and m.shape[1] > 0:
        return np.ascontiguousarray(m)
    if m.ndim == 1 and m.size % 2 == 0 and m.size > 0:
        return np.ascontiguousarray(m.reshape(-1, 2).T)
    raise ValueError(f"{name}: expected image points as columns (2, N) or flattened (2N,) "
                     f"[u0, v0, u1, v1, ...], got shape {m.shape}")


def depths(Z: Any, n: int, name: str) -> np.ndarray:
    """Depths as a (n,) float64 array from a scalar (the same for every point) or n values."""
    z = np.array(Z, dtype=np.float64).reshape(-1)
    if z.size == 1:
        z = np.full(n, z[0])
    if z.size != n:
        raise ValueError(f"{name}: expected one depth or {n} depths (one per point) [m], got "
                         f"{z.size} values")
    return z
