"""Argument checking and conversion shared by the Python-facing spatial functions.

Every public spatial function accepts lists, tuples, scalars and arrays; these helpers turn them
into C-contiguous float64 arrays (the only layout the numba kernels are compiled for) and raise
a ``ValueError`` that says what shape was expected and what was found.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_UNITS = ("rad", "deg")


def farray(a: Any) -> np.ndarray:
    """``a`` as a writeable C-contiguous float64 array (no copy when it already is one).

    Writeable matters: numba compiles a read-only array as a separate type (another signature).
    """
    m = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
    return m if m.flags.writeable else m.copy()


def vector(a: Any, n: int, name: str) -> np.ndarray:
    """``a`` as a float64 array of shape ``(n,)`` (accepts any array of ``n`` elements)."""
    v = farray(a)
    if v.size != n:
        raise ValueError(f"{name}: expected {n} elements, got an array of shape {v.shape}")
    return v.reshape(n)


def matrix(a: Any, shape: tuple[int, int], name: str) -> np.ndarray:
    """``a`` as a float64 array of exactly ``shape``."""
    m = farray(a)
    if m.shape != shape:
        raise ValueError(f"{name}: expected shape {shape}, got {m.shape}")
    return m


def rot3(a: Any, name: str) -> np.ndarray:
    """The rotation part (3, 3) of an SO(3) matrix or an SE(3) transform, C-contiguous."""
    m = farray(a)
    if m.shape == (4, 4):
        return np.ascontiguousarray(m[:3, :3])
    if m.shape != (3, 3):
        raise ValueError(f"{name}: expected a rotation (3, 3) or a transform (4, 4), "
                         f"got shape {m.shape}")
    return m


def check_unit(unit: str) -> None:
    """Raise unless ``unit`` is ``"rad"`` or ``"deg"``."""
    if unit not in _UNITS:
        raise ValueError(f"unit must be 'rad' or 'deg', got {unit!r}")


def to_rad(a: Any, unit: str) -> Any:
    """Angle(s) ``a`` given in ``unit`` converted to radians (float or float64 array)."""
    check_unit(unit)
    x = np.asarray(a, dtype=np.float64)
    if unit == "deg":
        x = np.deg2rad(x)
    return float(x) if x.ndim == 0 else x


def from_rad(a: Any, unit: str) -> Any:
    """Angle(s) ``a`` in radians converted to ``unit`` (float stays float)."""
    check_unit(unit)
    if unit == "deg":
        return float(np.rad2deg(a)) if np.ndim(a) == 0 else np.rad2deg(a)
    return a


def batch(a: Any, tail: tuple[int, ...], name: str) -> tuple[np.ndarray, bool]:
    """``a`` reshaped to ``(K, *tail)`` and whether it was a single item.

    Accepts one item of shape ``tail`` or a stack of shape ``(K, *tail)``.
    """
    m = farray(a)
    if m.shape == tail:
        return m.reshape((1, *tail)), True
    if m.ndim == len(tail) + 1 and m.shape[1:] == tail:
        return m, False
    raise ValueError(f"{name}: expected shape {tail} or (K, {', '.join(map(str, tail))}), "
                     f"got {m.shape}")
