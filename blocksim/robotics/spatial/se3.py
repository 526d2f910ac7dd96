"""SE(3): homogeneous transforms, translations, se(3) matrices, differential motion (RTB names).

A homogeneous transform ``T`` (4, 4) is ``[[R, t], [0, 0, 0, 1]]``: the pose of a frame in a
reference frame, mapping homogeneous coordinates ``p_ref = T @ p``. Lengths in metres, angles
in radians unless ``unit="deg"``. Stacks of transforms have a leading axis, ``(K, 4, 4)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._args import farray, vector
from .kernels import skew_nb
from .so3 import oa2r, rotx, roty, rotz, vex


def r2t(R: Any) -> np.ndarray:
    """Transform with rotation ``R`` and zero translation.

    ``R`` (3, 3) gives (4, 4) (SE(3)); ``R`` (2, 2) gives (3, 3) (SE(2)); stacks
    ``(K, n, n)`` give ``(K, n+1, n+1)``.
    """
    m = farray(R)
    n = m.shape[-1]
    if m.ndim not in (2, 3) or m.shape[-2:] not in ((2, 2), (3, 3)):
        raise ValueError(f"r2t: expected (3, 3), (2, 2) or a stack of them, got {m.shape}")
    T = np.zeros((*m.shape[:-2], n + 1, n + 1))
    T[..., :n, :n] = m
    T[..., n, n] = 1.0
    return T


def t2r(T: Any) -> np.ndarray:
    """Rotation part of a transform: (4, 4) -> (3, 3), (3, 3) SE(2) -> (2, 2); stacks too.

    The input is not checked for validity (RTB).
    """
    m = farray(T)
    if m.ndim not in (2, 3) or m.shape[-2:] not in ((3, 3), (4, 4)):
        raise ValueError(f"t2r: expected (4, 4), (3, 3) or a stack of them, got {m.shape}")
    n = m.shape[-1] - 1
    return m[..., :n, :n].copy()


def rt2tr(R: Any, t: Any) -> np.ndarray:
    """Transform from rotation ``R`` (n, n) and translation ``t`` (n,), n = 2 or 3.

    Stacks: ``R`` (K, n, n) with ``t`` (K, n) give (K, n+1, n+1). Not checked for validity.
    """
    T = r2t(R)
    n = T.shape[-1] - 1
    tv = farray(t)
    expected = (*T.shape[:-2], n)
    if tv.shape != expected and not (T.ndim == 2 and tv.size == n):
        raise ValueError(f"rt2tr: translation must have shape {expected}, got {tv.shape}")
    T[..., :n, n] = tv.reshape(expected)
    return T


def tr2rt(T: Any) -> tuple[np.ndarray, np.ndarray]:
    """Split a transform (n+1, n+1) (or a stack) into rotation (n, n) and translation (n,)."""
    m = farray(T)
    R = t2r(m)
    n = R.shape[-1]
    return R, m[..., :n, n].copy()


def _trot(R: np.ndarray) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = R
    return T


def trotx(theta: float, unit: str = "rad") -> np.ndarray:
    """Transform (4, 4): rotation of ``theta`` about x, zero translation."""
    return _trot(rotx(theta, unit))


def troty(theta: float, unit: str = "rad") -> np.ndarray:
    """Transform (4, 4): rotation of ``theta`` about y, zero translation."""
    return _trot(roty(theta, unit))


def trotz(theta: float, unit: str = "rad") -> np.ndarray:
    """Transform (4, 4): rotation of ``theta`` about z, zero translation."""
    return _trot(rotz(theta, unit))


def oa2tr(o: Any, a: Any) -> np.ndarray:
    """Transform (4, 4) with the rotation :func:`~.so3.oa2r` ``(o, a)`` and zero translation."""
    return _trot(oa2r(o, a))


def transl(*args: Any) -> np.ndarray:
    """Create a pure translation, or extract the translation of a transform (RTB ``transl``).

    ``transl(x, y, z)`` or ``transl(p)`` with ``p`` (3,)
        -> (4, 4) translation by ``p`` [m]; ``p`` (M, 3) -> (M, 4, 4).
    ``transl(T)`` with ``T`` (4, 4)
        -> its translation (3,); ``T`` (M, 4, 4) -> (M, 3).
    """
    if len(args) == 3:
        p = vector(args, 3, "transl")
    elif len(args) == 1:
        p = farray(args[0])
        if p.ndim in (2, 3) and p.shape[-2:] == (4, 4):
            return p[..., :3, 3].copy()
        if p.size == 3:
            p = p.reshape(3)
        elif not (p.ndim == 2 and p.shape[1] == 3):
            raise ValueError(f"transl: expected (3,), (M, 3), (4, 4) or (M, 4, 4), got {p.shape}")
    else:
        raise TypeError(f"transl takes 1 or 3 arguments, got {len(args)}")
    T = np.zeros((*p.shape[:-1], 4, 4))
    T[..., :, :] = np.eye(4)
    T[..., :3, 3] = p
    return T


def ishomog(T: Any, check: bool = False, tol: float = 1e-9) -> bool:
    """True if ``T`` is (4, 4); with ``check=True`` also a valid rotation and bottom row."""
    m = np.asarray(T)
    if m.shape != (4, 4):
        return False
    if not check:
        return True
    m = m.astype(float)
    R = m[:3, :3]
    return bool(np.allclose(R.T @ R, np.eye(3), atol=tol) and abs(np.linalg.det(R) - 1) < tol
                and np.allclose(m[3], (0, 0, 0, 1), atol=tol))


def skewa(s: Any) -> np.ndarray:
    """Augmented skew-symmetric matrix (Lie algebra element) of a twist, RTB order.

    Parameters
    ----------
    s : array_like
        6 elements ``(vx, vy, vz, wx, wy, wz)`` -> se(3) ``[[skew(w), v], [0, 0]]`` (4, 4);
        3 elements ``(vx, vy, w)`` -> se(2) ``[[skew(w), v], [0, 0]]`` (3, 3).
        Translation first (Robotics Toolbox); Modern Robotics' ``VecTose3`` takes ``(w, v)``.
    """
    a = farray(s).reshape(-1)
    if a.size == 6:
        S = np.zeros((4, 4))
        S[:3, :3] = skew_nb(np.ascontiguousarray(a[3:]))
        S[:3, 3] = a[:3]
        return S
    if a.size == 3:
        return np.array([[0.0, -a[2], a[0]], [a[2], 0.0, a[1]], [0.0, 0.0, 0.0]])
    raise ValueError(f"skewa: expected 6 (se(3)) or 3 (se(2)) elements, got {a.size}")


def vexa(S: Any) -> np.ndarray:
    """Twist of an augmented skew-symmetric matrix, the inverse of :func:`skewa`.

    (4, 4) -> ``(v, w)`` (6,); (3, 3) -> ``(vx, vy, w)`` (3,). The skew part is averaged as in
    :func:`~.so3.vex`; the bottom row is ignored.
    """
    m = farray(S)
    if m.shape == (4, 4):
        return np.concatenate((m[:3, 3], vex(m[:3, :3])))
    if m.shape == (3, 3):
        return np.array([m[0, 2], m[1, 2], 0.5 * (m[1, 0] - m[0, 1])])
    raise ValueError(f"vexa: expected shape (4, 4) or (3, 3), got {m.shape}")


def delta2tr(d: Any) -> np.ndarray:
    """Transform (4, 4) of a differential motion ``d = (dx, dy, dz, dRx, dRy, dRz)`` (6,).

    First order, as RTB: ``T = I + [[skew(dR), dt], [0, 0]]``. The rotation part is
    orthonormal only to first order in ``|dR|``; apply :func:`~.so3.trnorm` if needed.
    """
    dv = vector(d, 6, "delta2tr")
    T = np.eye(4)
    T[:3, :3] += skew_nb(np.ascontiguousarray(dv[3:]))
    T[:3, 3] = dv[:3]
    return T


def tr2delta(T0: Any, T1: Any | None = None) -> np.ndarray:
    """Differential motion (6,) ``(dx, dy, dz, dRx, dRy, dRz)`` from pose ``T0`` to ``T1``.

    ``tr2delta(T0, T1) = (t1 - t0, vex(R1 R0^T - I))``: the translation and the small rotation
    both expressed in the **world** (reference) frame, an approximation to the average spatial
    velocity times the time taken, valid for ``T0 ~ T1`` (RTB). ``tr2delta(T)`` is the motion
    from the identity, the exact inverse of :func:`delta2tr`.
    """
    A = np.asarray(T0, dtype=float)
    if T1 is None:
        A, B = np.eye(4), A
    else:
        B = np.asarray(T1, dtype=float)
    if A.shape != (4, 4) or B.shape != (4, 4):
        raise ValueError(f"tr2delta: expected (4, 4) transforms, got {A.shape} and {B.shape}")
    dR = B[:3, :3] @ A[:3, :3].T - np.eye(3)
    return np.concatenate((B[:3, 3] - A[:3, 3], vex(dR)))
