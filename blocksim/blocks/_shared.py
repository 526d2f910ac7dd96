"""Small helpers shared by the block modules.

Short reprs for error messages, integer checks, numbered port names and kernel parameters; and
two scalar functions, :func:`_clip` and :func:`_sign`, used by interpreted methods and compiled
kernels alike (registered with :func:`numba.extending.register_jitable`: plain Python when
called from Python, compiled inline when called from a kernel).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba.extending import register_jitable


def _short(value: Any) -> str:
    """A repr of ``value`` short enough for an error message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _numbered(prefix: str, n: int, single: str) -> list[str]:
    """Port names: ``single`` for one port, ``prefix0, prefix1, ...`` otherwise."""
    return [single] if n == 1 else [f"{prefix}{i}" for i in range(n)]


def _param(value: Any) -> Any:
    """A kernel parameter: a Python float, or a writable C-contiguous float64 copy."""
    if isinstance(value, float):
        return value
    return np.array(value, dtype=np.float64, order="C")


@register_jitable
def _clip(v: float, lo: float, hi: float) -> float:
    """``min(max(v, lo), hi)`` for floats; NaN passes through."""
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@register_jitable
def _sign(v: float) -> float:
    """1.0, -1.0 or 0.0 (NaN for NaN; ``-0.0`` for ``-0.0``)."""
    return 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0 * v)
