"""Source blocks: signals that depend on time only.

Every source has no input (except :class:`Interpolate` used as a table lookup) and one output
``y``. A value given as a number gives a scalar signal (a Python ``float``); a value given as a
sequence or array gives a float64 array signal of that shape. Array outputs are read-only:
blocks must never modify their inputs in place.

Time-driven discontinuities (steps, edges, corners, table points) are reported by
:meth:`~blocksim.engine.block.Block.next_breakpoint` so that no solver step straddles them. At a
breakpoint the output is its *right* limit: ``Step(time=1.0).output(1.0, ...)`` is ``after``.

Compiled back-end: every block here has :meth:`kernels` (see
:mod:`blocksim.engine.compiled.kernels`); the kernels are the numba functions ``*_kernel`` at the
end of this module and compute exactly what the interpreted ``output`` computes (the tests hold
them equal). Breakpoints are still asked of the block in Python, before the run.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Any

import numba
import numpy as np

from blocksim.engine.block import Block
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, suggest

__all__ = [
    "Constant",
    "Interpolate",
    "Piecewise",
    "Ramp",
    "Sine",
    "Step",
    "Time",
    "Waveform",
]

Value = float | np.ndarray
_TWO_PI = 2.0 * math.pi


# ---------------------------------------------------------------------------- helpers
def _short(value: Any) -> str:
    """A repr of ``value`` short enough for an error message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


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
            f"{float(arr[k])!r} and {name}[{k + 1}] = {float(arr[k + 1])!r}")
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


_WAVE_KINDS = ("square", "triangle", "sine")


class Waveform(Block):
    """A periodic square, triangle or sine wave (bdsim *WAVEFORM*).

    With the cycle position ``c(t) = frequency * t + phase / (2*pi)`` and its fractional part
    ``p = c - floor(c)`` in [0, 1):

    * ``"square"``: ``y = bias + amplitude`` for ``p < duty``, ``y = bias - amplitude`` otherwise.
      Rising edges at ``p = 0``, falling edges at ``p = duty``; both are breakpoints and the
      value at an edge is the value after it.
    * ``"triangle"``: a triangle between ``bias - amplitude`` and ``bias + amplitude`` in phase
      with the sine: 0 rising at ``p = 0``, peak at ``p = 1/4``, trough at ``p = 3/4``. The
      corners are breakpoints.
    * ``"sine"``: ``y = bias + amplitude * sin(2*pi*c)``, the same as :class:`Sine`.

    All three kinds have the same zero crossings (for ``duty = 0.5``) and extrema positions.

    Parameters
    ----------
    kind : {"square", "triangle", "sine"}
        The wave shape (default ``"square"``).
    amplitude : float or array_like
        Half the peak-to-peak value [unit of y] (default 1).
    frequency : float
        Frequency [Hz], > 0 (default 1).
    phase : float
        Phase [rad] (default 0): a phase, not a time delay, as in :class:`Sine`; a positive
        phase advances the wave. A delay ``d`` [s] is ``phase = -2*pi*frequency*d``.
    bias : float or array_like
        Constant added to the wave [unit of y] (default 0). ``amplitude`` and ``bias`` are
        scalars or arrays of one common shape.
    duty : float
        Fraction of the period during which the square wave is high, 0 < duty < 1
        (default 0.5). Only for ``kind="square"``; other kinds accept only 0.5.

    Inputs
    ------
    none

    Outputs
    -------
    y : float or ndarray, shape ``()`` or the common shape of ``amplitude`` and ``bias``
        The wave.
    """

    outputs = ("y",)

    def __init__(self, kind: str = "square", amplitude: float | Sequence[float] = 1.0,
                 frequency: float = 1.0, phase: float = 0.0,
                 bias: float | Sequence[float] = 0.0, duty: float = 0.5) -> None:
        super().__init__()
        if kind not in _WAVE_KINDS:
            raise BlockParameterError(
                f"Waveform: parameter 'kind' must be one of {', '.join(map(repr, _WAVE_KINDS))}"
                f", got {_short(kind)}{suggest(str(kind), _WAVE_KINDS)}")
        self._kind = kind
        a, b = _common_values("Waveform", amplitude=amplitude, bias=bias)
        f = _real_scalar("Waveform", "frequency", frequency)
        if not f > 0:
            raise BlockParameterError(
                f"Waveform: parameter 'frequency' must be > 0 Hz, got {frequency!r}")
        phi = _real_scalar("Waveform", "phase", phase)
        d = _real_scalar("Waveform", "duty", duty)
        if kind == "square" and not 0.0 < d < 1.0:
            raise BlockParameterError(
                f"Waveform: parameter 'duty' must be strictly between 0 and 1, got {duty!r}")
        if kind != "square" and d != 0.5:
            raise BlockParameterError(
                f"Waveform: parameter 'duty' applies to kind='square' only, got duty={duty!r} "
                f"with kind={kind!r}")
        self._f = f
        self._duty = d
        # square: cycle position c = f*t + phase/(2*pi), edges at c = k and c = k + duty.
        self._c0 = phi / _TWO_PI
        # triangle: corner coordinate q = 2*c - 1/2, peaks at even q, troughs at odd q.
        self._f2 = 2.0 * f
        self._q0 = 2.0 * self._c0 - 0.5
        # the output is _waveform_<kind>(t, x, self._p), the pure function of the kernel
        if kind == "square":
            high, low = _freeze(np.asarray(b + a)), _freeze(np.asarray(b - a))
            self._fn: Callable[..., Value] = _waveform_square
            self._p: tuple[Any, ...] = (f, self._c0, d, high, low)
        elif kind == "triangle":
            self._fn, self._p = _waveform_triangle, (self._f2, self._q0, a, b)
        else:
            self._fn, self._p = _waveform_sine, (_TWO_PI * f, phi, a, b)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Value]:
        return (self._fn(t, x, self._p),)

    def _pieces(self, t: float) -> int:
        """Number of breakpoints (edges or corners) up to time ``t``, from an arbitrary origin.

        Uses exactly the arithmetic of :meth:`output`, so the count changes where the output
        does.
        """
        if self._kind == "square":
            c = self._f * t + self._c0
            k = math.floor(c)
            return 2 * k + (1 if c - k >= self._duty else 0)
        return math.floor(self._f2 * t + self._q0)

    def next_breakpoint(self, t: float) -> float:
        if self._kind == "sine" or math.isinf(t):
            return math.inf
        target = self._pieces(t) + 1
        if self._kind == "square":
            cycle, odd = divmod(target, 2)
            guess = (cycle + (self._duty if odd else 0.0) - self._c0) / self._f
        else:
            guess = (target - self._q0) / self._f2
        return _first_time_reaching(self._pieces, target, t, guess)

    def kernels(self) -> Kernels:
        """By kind (the functions ``output`` calls): ``waveform_square_kernel``, params
        ``(frequency, phase/(2*pi), duty, bias + amplitude, bias - amplitude)``;
        ``waveform_triangle_kernel``, params ``(2*frequency, 2*phase/(2*pi) - 1/2, amplitude,
        bias)``; ``waveform_sine_kernel``, params ``(2*pi*frequency, phase, amplitude,
        bias)``."""
        kernel = {"square": waveform_square_kernel, "triangle": waveform_triangle_kernel,
                  "sine": waveform_sine_kernel}[self._kind]
        return Kernels(params=tuple(_param(v) for v in self._p), output=kernel)


class Piecewise(Block):
    """A piecewise-constant signal (bdsim *PIECEWISE*).

    Equation: ``y(t) = values[i]`` for ``times[i] <= t < times[i+1]``, ``values[-1]`` from
    ``times[-1]`` on, and 0 (zeros of the values' shape) before ``times[0]``.

    Parameters
    ----------
    times : sequence of float
        Switching times [s], strictly increasing, at least one. Every time is a breakpoint of
        the run, including ``times[0]`` (the signal jumps from 0 to ``values[0]`` there;
        use ``times[0] = 0`` to start with ``values[0]``).
    values : sequence of float, or array_like of shape (len(times), ...)
        ``values[i]`` holds from ``times[i]``: numbers for a scalar signal, or one row per time
        for an array signal.

    Inputs
    ------
    none

    Outputs
    -------
    y : float or ndarray, shape ``()`` or ``np.shape(values)[1:]``
        The current value, ``values[i]`` at ``t == times[i]`` (right limit).
    """

    outputs = ("y",)

    def __init__(self, times: Sequence[float] | np.ndarray,
                 values: Sequence[Any] | np.ndarray) -> None:
        super().__init__()
        tt = _increasing("Piecewise", "times", times, 1)
        vv = _real_array("Piecewise", "values", values)
        if vv.ndim == 0 or vv.shape[0] != tt.size:
            raise BlockParameterError(
                f"Piecewise: parameter 'values' must have one entry per time "
                f"({tt.size}), got {'a scalar' if vv.ndim == 0 else f'shape {vv.shape}'}")
        self._times = [float(v) for v in tt]
        zero = 0.0 if vv.ndim == 1 else _freeze(np.zeros(vv.shape[1:]))
        self._outs = [(zero,)] + [(v,) for v in _rows(vv)]

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Value]:
        return self._outs[bisect_right(self._times, t)]

    def next_breakpoint(self, t: float) -> float:
        i = bisect_right(self._times, t)
        return self._times[i] if i < len(self._times) else math.inf

    def kernels(self) -> Kernels:
        """``piecewise_kernel``, params ``(times, table)``: ``table[0]`` is the zero before
        ``times[0]``, ``table[i + 1] = values[i]``."""
        table = np.stack([np.asarray(out[0], dtype=float) for out in self._outs])
        return Kernels(params=(_param(self._times), _param(table)), output=piecewise_kernel)


_INTERP_KINDS = ("linear", "previous", "next", "nearest")


class Interpolate(Block):
    """A 1-D lookup table (Simulink *1-D Lookup Table*, bdsim *INTERPOLATE*).

    Equation: ``y = f(u)`` (or ``y = f(t)`` with ``time=True``) where ``f`` interpolates the
    points ``(x[i], y[i])``:

    * ``"linear"``: ``f(s) = y[i] + (y[i+1] - y[i]) * (s - x[i]) / (x[i+1] - x[i])`` for
      ``x[i] <= s <= x[i+1]``;
    * ``"previous"``: ``f(s) = y[i]`` for ``x[i] <= s < x[i+1]`` (zero-order hold);
    * ``"next"``: ``f(s) = y[i+1]`` for ``x[i] <= s < x[i+1]``;
    * ``"nearest"``: the ``y`` of the nearest ``x``; at a midpoint, the upper one.

    Outside the table the output is clamped to the end values: ``f(s) = y[0]`` for
    ``s < x[0]`` and ``f(s) = y[-1]`` for ``s > x[-1]`` (no extrapolation). Every jump is
    right-continuous (the value at a jump is the value after it).

    Parameters
    ----------
    x : sequence of float, shape (n,)
        Abscissae, strictly increasing, n >= 2; in the unit of ``u`` (or [s] with
        ``time=True``).
    y : array_like, shape (n,) or (n, ...)
        Ordinates: ``y[i]`` is the output at ``x[i]``. A 1-D ``y`` gives a scalar output; an
        N-D ``y`` (one row per point) gives an array output of shape ``y.shape[1:]``.
    time : bool
        If True the block has no input and interpolates at the simulation time ``t``; the table
        points ``x`` (the midpoints for ``"nearest"``) are then breakpoints of the run.
        Default False.
    kind : {"linear", "previous", "next", "nearest"}
        Interpolation method (default ``"linear"``).

    Inputs
    ------
    u : float, or ndarray of any shape when ``y`` is 1-D
        The lookup abscissa (absent when ``time=True``). An array input with a 1-D table is
        looked up element-wise (output of the same shape as ``u``).

    Outputs
    -------
    y : float or ndarray, shape ``()``, ``y.shape[1:]`` or ``u.shape``
        The interpolated value.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, x: Sequence[float] | np.ndarray, y: Sequence[Any] | np.ndarray,
                 time: bool = False, kind: str = "linear") -> None:
        super().__init__()
        xx = _increasing("Interpolate", "x", x, 2)
        yy = _real_array("Interpolate", "y", y)
        if yy.ndim == 0 or yy.shape[0] != xx.size:
            raise BlockParameterError(
                f"Interpolate: parameter 'y' must have one entry (row) per x point "
                f"({xx.size}), got {'a scalar' if yy.ndim == 0 else f'shape {yy.shape}'}")
        if kind not in _INTERP_KINDS:
            raise BlockParameterError(
                f"Interpolate: parameter 'kind' must be one of "
                f"{', '.join(map(repr, _INTERP_KINDS))}, got {_short(kind)}"
                f"{suggest(str(kind), _INTERP_KINDS)}")
        if not isinstance(time, (bool, np.bool_)):
            raise BlockParameterError(
                f"Interpolate: parameter 'time' must be True or False, got {_short(time)}")
        self._time = bool(time)
        if self._time:
            self.set_ports(inputs=())
        self._kind = kind
        self._xa = xx
        self._ya = np.array(yy)
        self._ya.setflags(write=False)
        self._x = [float(v) for v in xx]
        self._rows = _rows(yy)
        self._y_first = self._rows[0]
        self._y_last = self._rows[-1]
        self._x_first = self._x[0]
        self._x_last = self._x[-1]
        dy = np.diff(yy, axis=0) / np.diff(xx).reshape((-1,) + (1,) * (yy.ndim - 1))
        self._slopes = _rows(dy)
        if kind == "nearest":
            mid = 0.5 * (xx[:-1] + xx[1:])
            self._table = [float(v) for v in mid]
            self._offset = 0
        else:
            self._table = self._x
            self._offset = -1 if kind == "previous" else 0
        self._tablea = np.asarray(self._table)
        self._last = len(self._rows) - 1

    def _lookup(self, s: float) -> Value:
        if self._kind == "linear":
            if s <= self._x_first:
                return self._y_first
            if s >= self._x_last:
                return self._y_last
            i = bisect_right(self._x, s) - 1
            return self._rows[i] + self._slopes[i] * (s - self._x[i])
        i = bisect_right(self._table, s) + self._offset
        return self._rows[0 if i < 0 else (self._last if i > self._last else i)]

    def _lookup_array(self, s: np.ndarray) -> np.ndarray:
        if self._ya.ndim != 1:
            raise ValueError(
                f"Interpolate: an array input (shape {np.shape(s)}) needs a 1-D table y, "
                f"but y has shape {self._ya.shape}; use a scalar input")
        if self._kind == "linear":
            return np.interp(s, self._xa, self._ya)
        i = np.searchsorted(self._tablea, s, side="right") + self._offset
        return self._ya[np.clip(i, 0, self._last)]

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Value]:
        if self._time:
            return (self._lookup(float(t)),)
        s = u[0]
        if type(s) is float:
            return (self._lookup(s),)
        if isinstance(s, np.ndarray) and s.ndim > 0:
            return (self._lookup_array(s),)
        return (self._lookup(float(s)),)

    def next_breakpoint(self, t: float) -> float:
        if not self._time:
            return math.inf
        i = bisect_right(self._table, t)
        return self._table[i] if i < len(self._table) else math.inf

    def kernels(self) -> Kernels:
        """``kind="linear"``: ``interpolate_linear_kernel`` (input ``u``) or
        ``interpolate_linear_time_kernel`` (``time=True``), params ``(x, y, slopes)`` with
        ``slopes[i] = (y[i+1] - y[i]) / (x[i+1] - x[i])``. Other kinds:
        ``interpolate_index_kernel`` / ``interpolate_index_time_kernel``, params
        ``(table, y, offset, last)``: the row is ``y[clip(searchsorted(table, s, "right") +
        offset, 0, last)]`` with ``table`` the midpoints of ``x`` for ``"nearest"``, else ``x``.

        An array input needs a 1-D ``y`` (looked up element-wise). A NaN input gives NaN (the
        interpreted block raises).
        """
        if self._kind == "linear":
            params: tuple[Any, ...] = (_param(self._xa), _param(self._ya),
                                       _param(np.stack([np.asarray(v) for v in self._slopes])))
            out = interpolate_linear_time_kernel if self._time else interpolate_linear_kernel
        else:
            params = (_param(self._tablea), _param(self._ya), self._offset, self._last)
            out = interpolate_index_time_kernel if self._time else interpolate_index_kernel
        return Kernels(params=params, output=out)


# ---------------------------------------------------------------------------- kernels
# The compiled numerics (contract: blocksim.engine.compiled.kernels). Ramp and Waveform call
# the pure functions ``_ramp``/``_waveform_*`` that their kernels compile; the other blocks keep
# faster pure-Python paths (prebuilt tuples, bisect on lists, math.sin on floats) that do the
# same operations in the same order, and the tests hold them equal to the kernels.
def _param(value: Any) -> Any:
    """A kernel parameter: a Python float, or a writable C-contiguous float64 copy."""
    if isinstance(value, float):
        return value
    return np.array(value, dtype=np.float64, order="C")


@numba.njit(cache=True)
def constant_kernel(t, x, p):
    return p[0]


@numba.njit(cache=True)
def time_kernel(t, x, p):
    return float(t)


@numba.njit(cache=True)
def step_kernel(t, x, p):
    return p[2] if t >= p[0] else p[1]


def _ramp(t, x, p):
    start, slope, initial = p
    if t <= start:
        return initial
    return initial + slope * (t - start)


ramp_kernel = numba.njit(cache=True)(_ramp)


@numba.njit(cache=True)
def sine_kernel(t, x, p):
    a, w, phase, b = p
    return a * np.sin(w * t + phase) + b


def _waveform_square(t, x, p):
    f, c0, duty, high, low = p
    c = f * t + c0
    if c - math.floor(c) < duty:
        return high
    return low


def _waveform_triangle(t, x, p):
    f2, q0, a, b = p
    q = f2 * t + q0
    n = math.floor(q)
    ph = q - n
    return b + a * (2.0 * ph - 1.0 if n & 1 else 1.0 - 2.0 * ph)


def _waveform_sine(t, x, p):
    w, phase, a, b = p
    return b + a * math.sin(w * t + phase)


waveform_square_kernel = numba.njit(cache=True)(_waveform_square)
waveform_triangle_kernel = numba.njit(cache=True)(_waveform_triangle)
waveform_sine_kernel = numba.njit(cache=True)(_waveform_sine)


@numba.njit(cache=True)
def _bisect_right(a, s):
    """Python's ``bisect.bisect_right(a, s)`` (the same comparisons, so NaN goes last)."""
    lo = 0
    hi = a.size
    while lo < hi:
        mid = (lo + hi) // 2
        if s < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@numba.njit(cache=True)
def piecewise_kernel(t, x, p):
    times, table = p
    return table[_bisect_right(times, t)]


@numba.njit(cache=True)
def _linear_lookup(s, xa, ya, slopes):
    """The linear table lookup at one abscissa ``s`` (a row of ``ya`` or a float)."""
    n = xa.size
    if s <= xa[0]:
        return ya[0]
    if s >= xa[n - 1]:
        return ya[n - 1]
    i = _bisect_right(xa, s) - 1
    if i > n - 2:  # only for a NaN s: the result is NaN
        i = n - 2
    return ya[i] + slopes[i] * (s - xa[i])


@numba.njit(cache=True)
def _index_lookup(s, table, offset, last):
    """The row index of ``s`` for the kinds previous, next and nearest."""
    i = _bisect_right(table, s) + offset
    return 0 if i < 0 else (last if i > last else i)


@numba.njit(cache=True)
def interpolate_linear_time_kernel(t, x, p):
    return _linear_lookup(float(t), p[0], p[1], p[2])


@numba.njit(cache=True)
def interpolate_linear_kernel(t, x, u, p):
    xa, ya, slopes = p
    if isinstance(u, float):
        return _linear_lookup(u, xa, ya, slopes)
    out = np.empty(u.shape)
    flat = out.reshape(-1)
    src = u.ravel()
    for k in range(src.size):
        flat[k] = _linear_lookup(src[k], xa, ya, slopes)
    return out


@numba.njit(cache=True)
def interpolate_index_time_kernel(t, x, p):
    table, ya, offset, last = p
    return ya[_index_lookup(float(t), table, offset, last)]


@numba.njit(cache=True)
def interpolate_index_kernel(t, x, u, p):
    table, ya, offset, last = p
    if isinstance(u, float):
        return ya[_index_lookup(u, table, offset, last)]
    out = np.empty(u.shape)
    flat = out.reshape(-1)
    src = u.ravel()
    for k in range(src.size):
        flat[k] = ya[_index_lookup(src[k], table, offset, last)]
    return out
