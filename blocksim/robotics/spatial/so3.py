"""SO(3): elementary rotations, skew-symmetric matrices, normalisation (Robotics Toolbox names).

Rotation matrices are (3, 3) float64 arrays that map coordinates in the rotated frame to
coordinates in the reference frame (``p_ref = R @ p_rot``). Angles are in radians unless
``unit="deg"`` is given.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._args import batch, farray, to_rad, vector
from .kernels import skew_nb, vex_nb


def rotx(theta: float, unit: str = "rad") -> np.ndarray:
    """Rotation (3, 3) of ``theta`` about the x axis.

    Parameters
    ----------
    theta : float
        Angle [rad, or deg with ``unit="deg"``].
    unit : {"rad", "deg"}
    """
    t = to_rad(theta, unit)
    c, s = np.cos(t), np.sin(t)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def roty(theta: float, unit: str = "rad") -> np.ndarray:
    """Rotation (3, 3) of ``theta`` about the y axis (see :func:`rotx`)."""
    t = to_rad(theta, unit)
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rotz(theta: float, unit: str = "rad") -> np.ndarray:
    """Rotation (3, 3) of ``theta`` about the z axis (see :func:`rotx`)."""
    t = to_rad(theta, unit)
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def skew(v: Any) -> np.ndarray:
    """Skew-symmetric matrix of a 3-vector (so(3)) or of a scalar (so(2)).

    Parameters
    ----------
    v : array_like, 3 elements, or scalar / 1 element
        ``(vx, vy, vz)`` gives ``[[0, -vz, vy], [vz, 0, -vx], [-vy, vx, 0]]`` (3, 3), so that
        ``skew(v) @ x == cross(v, x)``; a scalar ``w`` gives ``[[0, -w], [w, 0]]`` (2, 2).
    """
    a = farray(v)
    if a.size == 1:
        w = float(a.reshape(()))
        return np.array([[0.0, -w], [w, 0.0]])
    return skew_nb(vector(a, 3, "skew"))


def vex(S: Any) -> np.ndarray:
    """Vector of a skew-symmetric matrix, the inverse of :func:`skew`.

    Parameters
    ----------
    S : array_like, (3, 3) or (2, 2)
        Not checked for skew symmetry: each component is the mean of its two antisymmetric
        entries, e.g. ``vx = 0.5 (S[2, 1] - S[1, 2])`` (RTB).

    Returns
    -------
    ndarray, (3,) for a (3, 3) input, (1,) for a (2, 2) input.
    """
    m = farray(S)
    if m.shape == (2, 2):
        return np.array([0.5 * (m[1, 0] - m[0, 1])])
    if m.shape != (3, 3):
        raise ValueError(f"vex: expected shape (3, 3) or (2, 2), got {m.shape}")
    return vex_nb(m)


def _unit_cols(n: np.ndarray, o: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Stack (..., 3) vectors as unit columns ``[n o a]`` (..., 3, 3)."""
    cols = [x / np.linalg.norm(x, axis=-1, keepdims=True) for x in (n, o, a)]
    return np.stack(cols, axis=-1)


def trnorm(T: Any) -> np.ndarray:
    """Orthonormalise a rotation (3, 3) or the rotation part of a transform (4, 4).

    RTB's algorithm: with ``R = [n o a]`` (columns), ``n = o x a``, then ``o = a x n``, and the
    three columns are made unit length. The direction of ``a`` (the z axis) is unchanged. The
    translation of a transform is passed unchanged and its bottom row set to ``[0, 0, 0, 1]``.
    Stacks ``(K, 3, 3)`` / ``(K, 4, 4)`` are normalised plane by plane.
    """
    m = farray(T)
    if m.shape[-2:] not in ((3, 3), (4, 4)) or m.ndim not in (2, 3):
        raise ValueError(f"trnorm: expected (3, 3), (4, 4) or a stack of them, got {m.shape}")
    R = m[..., :3, :3]
    o, a = R[..., :, 1], R[..., :, 2]
    n = np.cross(o, a)
    o = np.cross(a, n)
    Rn = _unit_cols(n, o, a)
    if m.shape[-1] == 3:
        return Rn
    out = m.copy()
    out[..., :3, :3] = Rn
    out[..., 3, :] = (0.0, 0.0, 0.0, 1.0)
    return out


def oa2r(o: Any, a: Any) -> np.ndarray:
    """Rotation (3, 3) from orientation and approach vectors (Paul 1981).

    Parameters
    ----------
    o, a : array_like, (3,)
        Directions of the new frame's y axis (orientation) and z axis (approach); they need not
        be unit or exactly orthogonal but must not be parallel. ``R = [n o a]`` with
        ``n = o x a`` and ``o`` re-orthogonalised as ``a x n``; ``a`` keeps its direction.
    """
    ov, av = vector(o, 3, "oa2r: o"), vector(a, 3, "oa2r: a")
    n = np.cross(ov, av)
    if np.linalg.norm(n) <= 1e-12 * np.linalg.norm(ov) * np.linalg.norm(av):
        raise ValueError("oa2r: o and a are parallel (or zero); no frame is defined")
    return _unit_cols(n, np.cross(av, n), av)


def isrot(R: Any, check: bool = False, tol: float = 1e-9) -> bool:
    """True if ``R`` is (3, 3); with ``check=True`` also ``R^T R = I`` and ``det R = 1``."""
    m = np.asarray(R)
    if m.shape != (3, 3):
        return False
    if not check:
        return True
    m = m.astype(float)
    return bool(np.allclose(m.T @ m, np.eye(3), atol=tol) and abs(np.linalg.det(m) - 1) < tol)


def rotation_stack(R: Any, name: str) -> tuple[np.ndarray, bool]:
    """Rotation parts (K, 3, 3) of one or K rotations or transforms, and whether it was one."""
    m = farray(R)
    if m.shape[-2:] == (4, 4):
        m = m[..., :3, :3]
    return batch(np.ascontiguousarray(m), (3, 3), name)
