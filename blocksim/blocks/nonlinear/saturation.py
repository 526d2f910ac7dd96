"""Limiting blocks: :class:`Saturation` and :class:`DeadZone`.

Both are stateless and declare a zero crossing per element and per level, sized by their
``size`` parameter (see :mod:`blocksim.blocks.nonlinear.base` for the rules); their compiled
kernels are in :mod:`blocksim.blocks.nonlinear.kernels`. Scalar signals are Python floats;
arrays are float64 ndarrays.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks.nonlinear.base import _check_size, _LevelCrossings, _real
from blocksim.blocks.nonlinear.kernels import (
    dead_zone_crossings,
    dead_zone_output,
    saturation_crossings,
    saturation_output,
)
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain

__all__ = ["DeadZone", "Saturation"]


# ----------------------------------------------------------------------------- Saturation
class Saturation(_LevelCrossings):
    """Limit the input to a range (Simulink *Saturation*, bdsim *CLIP*).

    Equation, element-wise: ``y = min(max(u, lower), upper)``.

    Parameters
    ----------
    lower, upper : float
        The limits [unit of u], ``lower <= upper``; ``-inf`` / ``inf`` for no limit. They apply
        to every element of a vector input.
    size : int or None
        Number of elements of ``u`` (default 1, a scalar), for the zero crossings; None for no
        zero crossings and any input shape (see the module docstring).

    Inputs
    ------
    u : float or ndarray (any shape; ``size`` elements unless ``size`` is None)
        The signal to limit.

    Outputs
    -------
    y : float or ndarray, the shape of ``u``
        The limited signal, in the unit of ``u``.

    Zero crossings
    --------------
    ``u - upper`` then ``u - lower`` (each of ``size`` elements; an infinite limit has none),
    either direction.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, lower: float = -1.0, upper: float = 1.0,
                 size: int | None = 1) -> None:
        super().__init__()
        lo = _real("Saturation", "lower", lower, finite=False)
        hi = _real("Saturation", "upper", upper, finite=False)
        if lo > hi:
            raise BlockParameterError(
                f"Saturation: parameter 'lower' must be <= 'upper', got lower={plain(lo)}, "
                f"upper={plain(hi)}")
        self._lo = lo
        self._hi = hi
        self._set_crossings(_check_size("Saturation", size),
                            [c for c in (hi, lo) if math.isfinite(c)])

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        v = u[0]
        if type(v) is float:
            if v < self._lo:
                return (self._lo,)
            if v > self._hi:
                return (self._hi,)
            return (v,)
        y = np.clip(v, self._lo, self._hi)
        return (float(y) if np.ndim(y) == 0 else y.astype(float, copy=False),)

    def kernels(self) -> Kernels:
        """Compiled kernels: ``output`` :func:`saturation_output`, ``crossings``
        :func:`saturation_crossings` (when the block has crossings); ``params = (lower, upper,
        size)`` (floats, possibly infinite; ``size`` an int, 0 for None)."""
        return Kernels(params=(self._lo, self._hi, self._zc_size or 0),
                       output=saturation_output,
                       crossings=saturation_crossings if self.crossing_directions else None)


# ----------------------------------------------------------------------------- DeadZone
class DeadZone(_LevelCrossings):
    """Zero output inside a band (Simulink *Dead Zone*).

    Equation, element-wise::

        y = u - start   for u < start
        y = 0           for start <= u <= end
        y = u - end     for u > end

    i.e. ``y = u - min(max(u, start), end)``.

    Parameters
    ----------
    start, end : float
        Lower and upper edges of the dead zone [unit of u], finite, ``start <= end``.
    size : int or None
        Number of elements of ``u`` (default 1, a scalar), for the zero crossings; None for no
        zero crossings and any input shape (see the module docstring).

    Inputs
    ------
    u : float or ndarray (any shape; ``size`` elements unless ``size`` is None)
        The signal.

    Outputs
    -------
    y : float or ndarray, the shape of ``u``
        The signal less the dead zone, in the unit of ``u``.

    Zero crossings
    --------------
    ``u - end`` then ``u - start`` (each of ``size`` elements), either direction.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, start: float = -0.5, end: float = 0.5, size: int | None = 1) -> None:
        super().__init__()
        s = _real("DeadZone", "start", start)
        e = _real("DeadZone", "end", end)
        if s > e:
            raise BlockParameterError(
                f"DeadZone: parameter 'start' must be <= 'end', got start={plain(s)}, "
                f"end={plain(e)}")
        self._start = s
        self._end = e
        self._set_crossings(_check_size("DeadZone", size), (e, s))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        v = u[0]
        if type(v) is float:
            if v < self._start:
                return (v - self._start,)
            if v > self._end:
                return (v - self._end,)
            return (0.0 * v,)  # 0.0, or NaN for a NaN input
        arr = np.asarray(v, dtype=float)
        y = arr - np.clip(arr, self._start, self._end)
        return (float(y) if y.ndim == 0 else y,)

    def kernels(self) -> Kernels:
        """Compiled kernels: ``output`` :func:`dead_zone_output`, ``crossings``
        :func:`dead_zone_crossings` (unless ``size`` is None); ``params = (start, end, size)``
        (``size`` an int, 0 for None)."""
        return Kernels(params=(self._start, self._end, self._zc_size or 0),
                       output=dead_zone_output,
                       crossings=dead_zone_crossings if self.crossing_directions else None)
