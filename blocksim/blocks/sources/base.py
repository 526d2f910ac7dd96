"""What the source blocks share: their conventions and their parameter checks.

Source blocks produce signals that depend on time only (:mod:`blocksim.blocks.sources.signals`,
:mod:`blocksim.blocks.sources.waveform`, :mod:`blocksim.blocks.lookup.tables`). Every source has no
input (except :class:`~blocksim.blocks.lookup.tables.Interpolate` used as a table lookup) and one
output ``y``. A value given as a number gives a scalar signal (a Python ``float``); a value given
as a sequence or array gives a float64 array signal of that shape. Array outputs are read-only:
blocks must never modify their inputs in place.

Time-driven discontinuities (steps, edges, corners, table points) are reported by
:meth:`~blocksim.engine.block.Block.next_breakpoint` so that no solver step straddles them. At a
breakpoint the output is its *right* limit: ``Step(time=1.0).output(1.0, ...)`` is ``after``.

Compiled back-end: every source has :meth:`kernels` (see
:mod:`blocksim.engine.compiled.kernels`); the kernels are the numba functions ``*_kernel`` of
the block's module and compute exactly what the interpreted ``output`` computes (the tests hold
them equal). Breakpoints are still asked of the block in Python, before the run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from blocksim.blocks._shared import _short
from blocksim.engine.errors import BlockParameterError, plain

Value = float | np.ndarray
_TWO_PI = 2.0 * math.pi


# ---------------------------------------------------------------------------- helpers
def _real_array(cls: str, name: str, value: Any) -> np.ndarray:
    """``value`` as a finite float64 array, or BlockParameterError naming block and parameter."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):  # ragged nested sequences
        arr = np.asarray(None)
    if arr.dtype.kind not in "biuf":
        raise BlockParameterError(
            f"{cls}: parameter '{name}' must be a real number or an array of real numbers, "
            f"got {_short(value)}")
    arr = np.array(arr, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise BlockParameterError(
            f"{cls}: parameter '{name}' must be finite, got {_short(value)}")
    return arr


def _freeze(arr: np.ndarray) -> Value:
    """A Python float for a 0-d array, otherwise a read-only float64 array."""
    if arr.ndim == 0:
        return float(arr)
    arr = np.array(arr, dtype=float)  # own, contiguous copy
    arr.setflags(write=False)
    return arr


def _real_value(cls: str, name: str, value: Any) -> Value:
    """A parameter as a Python float (scalar) or a read-only float64 array."""
    return _freeze(_real_array(cls, name, value))


def _real_scalar(cls: str, name: str, value: Any) -> float:
    """A parameter that must be one finite real number."""
    arr = _real_array(cls, name, value)
    if arr.ndim != 0:
        raise BlockParameterError(
            f"{cls}: parameter '{name}' must be a scalar, got an array of shape {arr.shape}")
    return float(arr)


def _common_values(cls: str, **named: Any) -> list[Value]:
    """Parameters that together define one signal: all floats, or arrays of one common shape.

    Scalars are broadcast against arrays so that the output shape never changes during a run.
    """
    arrays = {k: _real_array(cls, k, v) for k, v in named.items()}
    if all(a.ndim == 0 for a in arrays.values()):
        return [float(a) for a in arrays.values()]
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"'{k}' {a.shape}" for k, a in arrays.items())
        raise BlockParameterError(
            f"{cls}: parameters {shapes} must be scalars or arrays of one common shape"
        ) from None
    return [_freeze(np.broadcast_to(a, shape)) for a in arrays.values()]


def _increasing(cls: str, name: str, value: Any, min_len: int) -> np.ndarray:
    """A 1-D, finite, strictly increasing float64 array of at least ``min_len`` points."""
    arr = _real_array(cls, name, value)
    if arr.ndim != 1 or arr.size < min_len:
        raise BlockParameterError(
            f"{cls}: parameter '{name}' must be a 1-D sequence of at least {min_len} "
            f"number{'s' if min_len > 1 else ''}, got shape {arr.shape}")
    if arr.size > 1 and not np.all(np.diff(arr) > 0):
        k = int(np.argmax(np.diff(arr) <= 0))
        raise BlockParameterError(
            f"{cls}: parameter '{name}' must be strictly increasing, but {name}[{k}] = "
            f"{plain(float(arr[k]))} and {name}[{k + 1}] = {plain(float(arr[k + 1]))}")
    return arr


def _rows(arr: np.ndarray) -> list[Value]:
    """The rows of a table as Python floats (1-D table) or read-only arrays (N-D table)."""
    if arr.ndim == 1:
        return [float(v) for v in arr]
    frozen = np.array(arr, dtype=float)
    frozen.setflags(write=False)
    return list(frozen)


def _first_time_reaching(count: Callable[[float], int], target: int, t: float,
                         guess: float) -> float:
    """The smallest float ``s > t`` with ``count(s) >= target``.

    ``count`` is non-decreasing in its argument and ``count(t) < target``; ``guess`` is an
    estimate of the answer (exact up to a few rounding errors). The result is exact in floating
    point: the block's own arithmetic switches to the new piece at ``s`` and not before, so
    ``output(s)`` is the right limit and ``output(previous float)`` the left limit.
    """
    lo = t
    hi = max(guess, math.nextafter(t, math.inf))
    step = max(abs(hi) * 1e-15, 1e-15)
    while count(hi) < target:  # make sure hi is at or after the switch
        lo = hi
        hi += step
        step *= 2.0
    probe = hi - 8.0 * math.ulp(hi)  # usually brackets the switch within a few ulps
    if lo < probe < hi and count(probe) < target:
        lo = probe
    while math.nextafter(lo, math.inf) < hi:
        mid = lo + 0.5 * (hi - lo)
        if mid <= lo or mid >= hi:
            mid = math.nextafter(lo, math.inf)
        if count(mid) >= target:
            hi = mid
        else:
            lo = mid
    return hi
