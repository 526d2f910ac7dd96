"""SE(2) and SO(2): planar rotations and poses (RTB ``rot2``, ``trot2``, ``transl2``, ``se2``,
``se3``) and their inverses (``tr2xyt``, ``rot2angle``, ``transl2(T)``).

An SE(2) pose is ``[[c, -s, x], [s, c, y], [0, 0, 1]]`` (3, 3): position ``(x, y)`` [m] and
heading ``theta`` [rad] measured counter-clockwise from the x axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._args import farray, from_rad, to_rad


def rot2(theta: float, unit: str = "rad") -> np.ndarray:
    """SO(2) rotation (2, 2) of ``theta`` [rad, or deg with ``unit="deg"``]."""
    t = to_rad(theta, unit)
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s], [s, c]])


def trot2(theta: float, unit: str = "rad") -> np.ndarray:
    """SE(2) transform (3, 3): rotation of ``theta``, zero translation."""
    T = np.eye(3)
    T[:2, :2] = rot2(theta, unit)
    return T


def transl2(*args: Any) -> np.ndarray:
    """Create an SE(2) translation, or extract the translation of an SE(2) transform.

    ``transl2(x, y)`` or ``transl2(p)`` with ``p`` (2,) -> (3, 3); ``p`` (M, 2) -> (M, 3, 3).
    ``transl2(T)`` with ``T`` (3, 3) -> (2,); ``T`` (M, 3, 3) -> (M, 2).
    """
    if len(args) == 2:
        p = np.array(args, dtype=float)
    elif len(args) == 1:
        p = farray(args[0])
        if p.ndim in (2, 3) and p.shape[-2:] == (3, 3):
            return p[..., :2, 2].copy()
        if p.size == 2:
            p = p.reshape(2)
        elif not (p.ndim == 2 and p.shape[1] == 2):
            raise ValueError(f"transl2: expected (2,), (M, 2), (3, 3) or (M, 3, 3), "
                             f"got {p.shape}")
    else:
        raise TypeError(f"transl2 takes 1 or 2 arguments, got {len(args)}")
    T = np.zeros((*p.shape[:-1], 3, 3))
    T[..., :, :] = np.eye(3)
    T[..., :2, 2] = p
    return T


def se2(*args: Any, unit: str = "rad") -> np.ndarray:
    """SE(2) pose (3, 3) from position and heading.

    ``se2(x, y, theta)``, ``se2([x, y])`` (zero heading), ``se2([x, y], theta)`` or
    ``se2([x, y, theta])``; ``theta`` in rad (deg with ``unit="deg"``), x, y in m.
    """
    if len(args) == 3:
        x, y, th = (float(a) for a in args)
    elif len(args) == 2:
        xy = farray(args[0]).reshape(-1)
        if xy.size != 2:
            raise ValueError(f"se2(xy, theta): xy must have 2 elements, got {xy.size}")
        (x, y), th = xy, float(args[1])
    elif len(args) == 1:
        a = farray(args[0]).reshape(-1)
        if a.size == 2:
            (x, y), th = a, 0.0
        elif a.size == 3:
            x, y, th = a
        else:
            raise ValueError(f"se2: expected 2 or 3 elements, got {a.size}")
    else:
        raise TypeError(f"se2 takes 1 to 3 arguments, got {len(args)}")
    T = trot2(th, unit)
    T[:2, 2] = (x, y)
    return T


def rot2angle(R: Any, unit: str = "rad") -> float:
    """Heading angle in (-pi, pi] of an SO(2) rotation (2, 2) or SE(2) transform (3, 3)."""
    m = farray(R)
    if m.shape not in ((2, 2), (3, 3)):
        raise ValueError(f"rot2angle: expected (2, 2) or (3, 3), got {m.shape}")
    return from_rad(float(np.arctan2(m[1, 0], m[0, 0])), unit)


def tr2xyt(T: Any, unit: str = "rad") -> np.ndarray:
    """``[x, y, theta]`` (3,) of an SE(2) pose (3, 3), the inverse of :func:`se2`."""
    m = farray(T)
    if m.shape != (3, 3):
        raise ValueError(f"tr2xyt: expected an SE(2) transform (3, 3), got {m.shape}")
    return np.array([m[0, 2], m[1, 2], rot2angle(m, unit)])


def se3(T2: Any) -> np.ndarray:
    """Lift an SE(2) pose (3, 3) to SE(3) (4, 4): same x, y translation and rotation about z."""
    m = farray(T2)
    if m.shape != (3, 3):
        raise ValueError(f"se3: expected an SE(2) transform (3, 3), got {m.shape}")
    T = np.eye(4)
    T[:2, :2] = m[:2, :2]
    T[:2, 3] = m[:2, 2]
    return T
