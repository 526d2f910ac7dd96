"""Elementary sources: :class:`Constant`, :class:`Time`, :class:`Step`, :class:`Ramp` and
:class:`Sine`, and their compiled kernels.

The conventions of every source (signal types, read-only arrays, breakpoints as right limits)
are described in :mod:`blocksim.blocks.sources.base`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from blocksim.blocks._shared import _param, _short
from blocksim.blocks.sources.base import (
    _TWO_PI,
    Value,
    _common_values,
    _real_scalar,
    _real_value,
)
from blocksim.engine.block import Block
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError

__all__ = ["Constant", "Ramp", "Sine", "Step", "Time"]


# ---------------------------------------------------------------------------- blocks
class Constant(Block):
    """A constant signal.

    Equation: ``y(t) = value``.

    Parameters
    ----------
    value : float or array_like
        The output value, in the unit of the signal it stands for. A number gives a scalar
        signal; a sequence or array gives an array signal of the same shape.

    Inputs
    ------
    none

    Outputs
    -------
    y : float or ndarray, shape ``()`` or ``np.shape(value)``
        The constant (a read-only array for array values).
    """

    outputs = ("y",)
    sample_time = "constant"

    def __init__(self, value: float | Sequence[float] | np.ndarray) -> None:
        super().__init__()
        self._y = (_real_value("Constant", "value", value),)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Value]:
        return self._y

    def kernels(self) -> Kernels:
        """``constant_kernel``, params ``(value,)``."""
        return Kernels(params=(_param(self._y[0]),), output=constant_kernel)


class Time(Block):
    """The simulation time as a signal (Simulink *Clock*, bdsim *TIME*).

    Equation: ``y(t) = t``.

    Parameters
    ----------
    none

    Inputs
    ------
    none

    Outputs
    -------
    y : float [s]
        The current simulation time.
    """

    outputs = ("y",)

    def __init__(self) -> None:
        super().__init__()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (float(t),)

    def kernels(self) -> Kernels:
        """``time_kernel``, params ``()``."""
        return Kernels(params=(), output=time_kernel)


class Step(Block):
    """A step from ``before`` to ``after`` at time ``time``.

    Equation: ``y(t) = before`` for ``t < time``, ``y(t) = after`` for ``t >= time``.

    Parameters
    ----------
    time : float
        Step time [s]; a breakpoint of the run.
    before : float or array_like
        Value before the step (default 0).
    after : float or array_like
        Value from the step time on (default 1). ``before`` and ``after`` are scalars or arrays
        of one common shape; a scalar is broadcast to the other's shape.

    Inputs
    ------
    none

    Outputs
    -------
    y : float or ndarray, shape ``()`` or the common shape of ``before`` and ``after``
        The step signal, ``after`` at ``t == time`` (right limit).
    """

    outputs = ("y",)

    def __init__(self, time: float = 1.0, before: float | Sequence[float] = 0.0,
                 after: float | Sequence[float] = 1.0) -> None:
        super().__init__()
        self._time = _real_scalar("Step", "time", time)
        b, a = _common_values("Step", before=before, after=after)
        self._before = (b,)
        self._after = (a,)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Value]:
        return self._after if t >= self._time else self._before

    def next_breakpoint(self, t: float) -> float:
        return self._time if t < self._time else math.inf

    def kernels(self) -> Kernels:
        """``step_kernel``, params ``(time, before, after)``."""
        return Kernels(params=(self._time, _param(self._before[0]), _param(self._after[0])),
                       output=step_kernel)


class Ramp(Block):
    """A ramp of slope ``slope`` starting at time ``start`` from the value ``initial``.

    Equation: ``y(t) = initial + slope * max(0, t - start)``.

    Parameters
    ----------
    start : float
        Time at which the ramp starts [s]; a breakpoint of the run (the slope changes there).
    slope : float or array_like
        Rate of change [unit of y / s] (default 1).
    initial : float or array_like
        Value up to the start time (default 0). ``slope`` and ``initial`` are scalars or arrays
        of one common shape; a scalar is broadcast to the other's shape.

    Inputs
    ------
    none

    Outputs
    -------
    y : float or ndarray, shape ``()`` or the common shape of ``slope`` and ``initial``
        The ramp signal.
    """

    outputs = ("y",)

    def __init__(self, start: float = 0.0, slope: float | Sequence[float] = 1.0,
                 initial: float | Sequence[float] = 0.0) -> None:
        super().__init__()
        self._start = _real_scalar("Ramp", "start", start)
        slope_value, initial_value = _common_values("Ramp", slope=slope, initial=initial)
        self._p = (self._start, slope_value, initial_value)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Value]:
        return (_ramp(t, x, self._p),)

    def next_breakpoint(self, t: float) -> float:
        return self._start if t < self._start else math.inf

    def kernels(self) -> Kernels:
        """``ramp_kernel`` (the function ``output`` calls), params ``(start, slope, initial)``."""
        return Kernels(params=tuple(_param(v) for v in self._p), output=ramp_kernel)


class Sine(Block):
    """A sinusoid.

    Equation: ``y(t) = amplitude * sin(2*pi*frequency*t + phase) + bias``.

    Parameters
    ----------
    amplitude : float or array_like
        Peak amplitude [unit of y] (default 1).
    frequency : float or array_like
        Frequency [Hz], >= 0 (default 1).
    phase : float or array_like
        Phase at t = 0 [rad] (default 0); a positive phase advances the wave.
    bias : float or array_like
        Constant added to the sinusoid [unit of y] (default 0).

        The four parameters are scalars or arrays of one common shape (a scalar is broadcast).

    Inputs
    ------
    none

    Outputs
    -------
    y : float or ndarray, shape ``()`` or the common shape of the parameters
        The sinusoid. It is smooth: the block has no breakpoints.
    """

    outputs = ("y",)

    def __init__(self, amplitude: float | Sequence[float] = 1.0,
                 frequency: float | Sequence[float] = 1.0,
                 phase: float | Sequence[float] = 0.0,
                 bias: float | Sequence[float] = 0.0) -> None:
        super().__init__()
        a, f, p, b = _common_values("Sine", amplitude=amplitude, frequency=frequency,
                                    phase=phase, bias=bias)
        if np.any(np.asarray(f) < 0):
            raise BlockParameterError(
                f"Sine: parameter 'frequency' must be >= 0 Hz, got {_short(frequency)}")
        self._a = a
        self._w = _TWO_PI * f
        self._p = p
        self._b = b
        self._scalar = isinstance(a, float)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Value]:
        if self._scalar:
            return (self._a * math.sin(self._w * t + self._p) + self._b,)
        return (self._a * np.sin(self._w * t + self._p) + self._b,)

    def kernels(self) -> Kernels:
        """``sine_kernel``, params ``(amplitude, 2*pi*frequency, phase, bias)``."""
        return Kernels(params=tuple(_param(v) for v in (self._a, self._w, self._p, self._b)),
                       output=sine_kernel)


# ---------------------------------------------------------------------------- kernels
# The compiled numerics (contract: blocksim.engine.compiled.kernels). Ramp and Waveform call
# the pure functions ``_ramp``/``_waveform_*`` that their kernels compile; the other blocks keep
# faster pure-Python paths (prebuilt tuples, bisect on lists, math.sin on floats) that do the
# same operations in the same order, and the tests hold them equal to the kernels.
@numba.njit(cache=True, error_model="numpy")
def constant_kernel(t, x, p):
    return p[0]


@numba.njit(cache=True, error_model="numpy")
def time_kernel(t, x, p):
    return float(t)


@numba.njit(cache=True, error_model="numpy")
def step_kernel(t, x, p):
    return p[2] if t >= p[0] else p[1]


def _ramp(t, x, p):
    start, slope, initial = p
    if t <= start:
        return initial
    return initial + slope * (t - start)


ramp_kernel = numba.njit(cache=True, error_model="numpy")(_ramp)


@numba.njit(cache=True, error_model="numpy")
def sine_kernel(t, x, p):
    a, w, phase, b = p
    return a * np.sin(w * t + phase) + b
