"""Parameter checks of the nonlinear blocks, and :class:`_LevelCrossings`, the base of the
stateless nonlinear blocks that switch where an input crosses levels.

Zero crossings of the stateless blocks
--------------------------------------
:class:`~blocksim.blocks.nonlinear.saturation.Saturation`,
:class:`~blocksim.blocks.nonlinear.saturation.DeadZone`,
:class:`~blocksim.blocks.nonlinear.quantize.Quantizer`,
:class:`~blocksim.blocks.nonlinear.switching.Sign` and
:class:`~blocksim.blocks.nonlinear.switching.Switch` are stateless but switch (or kink) where their
input crosses a level. They declare zero crossings, so that the solver locates those instants and
ends a major step there (Simulink's zero-crossing detection); they need no ``on_event``, their
output is a function of the input alone. The number of crossings must be fixed when the block is
built, before the input's shape is known, so these blocks take a ``size`` parameter: the number of
elements of the input (of the ``control`` input for ``Switch``), default 1, a scalar. They provide
one crossing per element and per level, level by level (every element for the first level, then for
the next). ``size=None`` declares no crossings: the block then accepts any input shape, and the
switching instants fall wherever the solver's steps happen to land. With an integer ``size``, an
input with another number of elements makes ``zero_crossings`` raise a ``ValueError`` that names the
block, the sizes and the fix. :class:`~blocksim.blocks.nonlinear.switching.MinMax` (continuous
output, kinks only) declares no crossings.

Scalar signals are Python floats; arrays are float64 ndarrays.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import _is_int, _short
from blocksim.engine.block import Block
from blocksim.engine.errors import BlockParameterError


# ----------------------------------------------------------------------------- helpers
def _real(cls: str, name: str, value: Any, *, finite: bool = True) -> float:
    """``float(value)`` for a real scalar parameter; +-inf allowed unless ``finite``."""
    if isinstance(value, (bool, np.bool_, str, bytes)):
        ok = False
    else:
        try:
            v = float(value)
            ok = not math.isnan(v) and (math.isfinite(v) or not finite)
        except (TypeError, ValueError):
            ok = False
    if not ok:
        what = "a finite real number" if finite else "a real number or +-inf (not NaN)"
        raise BlockParameterError(
            f"{cls}: parameter '{name}' must be {what}, got {_short(value)}")
    return v


def _positive(cls: str, name: str, value: Any) -> float:
    v = _real(cls, name, value)
    if not v > 0.0:
        raise BlockParameterError(f"{cls}: parameter '{name}' must be > 0, got {_short(value)}")
    return v


def _check_size(cls: str, size: Any) -> int | None:
    if size is None:
        return None
    if not _is_int(size) or size < 1:
        raise BlockParameterError(
            f"{cls}: parameter 'size' must be None or an integer >= 1 (the number of elements "
            f"of the input, for its zero crossings), got {_short(size)}")
    return int(size)


def _initial(cls: str, x0: Any) -> tuple[np.ndarray, bool]:
    """``x0`` as a non-empty finite flat float64 array, and whether it was a scalar."""
    try:
        arr = np.array(x0, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or isinstance(x0, (bool, str)) or arr.ndim > 1 or arr.size == 0 \
            or not np.all(np.isfinite(arr)):
        raise BlockParameterError(
            f"{cls}: parameter 'x0' must be a finite real number or a non-empty 1-D array of "
            f"them, got {_short(x0)}")
    return arr.reshape(-1), arr.ndim == 0


def _state_names(scalar: bool, n: int, name: str) -> tuple[str, ...]:
    return (name,) if scalar else tuple(f"{name}{i}" for i in range(n))


def _flat_input(cls: str, v: Any, n: int) -> np.ndarray:
    """The input ``v`` as a flat float64 array of the state's ``n`` elements, or raise."""
    arr = np.ravel(np.asarray(v, dtype=float))
    if arr.size != n:
        raise ValueError(
            f"{cls}: input 'u' has {arr.size} element(s) but the state has {n} (set by the "
            f"shape of x0); give x0 the shape of the input")
    return arr


class _LevelCrossings(Block):
    """Base of the stateless blocks whose output switches where one input crosses levels.

    Subclasses call :meth:`_set_crossings` in their constructor; the crossings are
    ``u[port] - level`` for each level, element by element (see the module docstring).
    """

    _zc_port = 0
    _zc_levels: tuple[float, ...] = ()
    _zc_size: int | None = None

    def _set_crossings(self, size: int | None, levels: Sequence[float]) -> None:
        self._zc_size = size
        self._zc_levels = tuple(levels)
        n = 0 if size is None else size * len(self._zc_levels)
        self.crossing_directions = (0,) * n

    def _zc_elements(self, v: Any) -> Any:
        """The input ``v`` as a float (size 1) or flat array of ``size`` elements, or raise."""
        size = self._zc_size
        if type(v) is float and size == 1:
            return v
        arr = np.asarray(v, dtype=float).reshape(-1)
        if arr.size != size:
            port = self.inputs[self._zc_port].name  # type: ignore[union-attr]
            cls = type(self).__name__
            raise ValueError(
                f"{cls}: input '{port}' has {arr.size} element(s), but the block was built with "
                f"size={size}: its zero crossings are per element; build it with "
                f"size={arr.size}, or size=None for no zero crossings")
        return arr

    def zero_crossings(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Sequence[float]:
        """``u - level`` for each level (and element); empty when ``size`` is None."""
        if self._zc_size is None:
            return ()
        v = self._zc_elements(u[self._zc_port])
        levels = self._zc_levels
        if type(v) is float:
            if len(levels) == 2:
                return (v - levels[0], v - levels[1])
            return tuple(v - c for c in levels)
        if len(levels) == 1:
            return v - levels[0]
        return np.concatenate([v - c for c in levels])
