"""The :class:`Waveform` source (square, triangle or sine wave) and its compiled kernels.

The conventions of every source (signal types, read-only arrays, breakpoints as right limits)
are described in :mod:`blocksim.blocks.sources.base`. The block's ``output`` calls the pure
functions ``_waveform_*`` that its kernels compile.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numba
import numpy as np

from blocksim.blocks._shared import _param, _short
from blocksim.blocks.sources.base import (
    _TWO_PI,
    Value,
    _common_values,
    _first_time_reaching,
    _freeze,
    _real_scalar,
)
from blocksim.engine.block import Block
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain, suggest

__all__ = ["Waveform"]


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
                f"Waveform: parameter 'frequency' must be > 0 Hz, got {plain(frequency)}")
        phi = _real_scalar("Waveform", "phase", phase)
        d = _real_scalar("Waveform", "duty", duty)
        if kind == "square" and not 0.0 < d < 1.0:
            raise BlockParameterError(
                f"Waveform: parameter 'duty' must be strictly between 0 and 1, got {plain(duty)}")
        if kind != "square" and d != 0.5:
            raise BlockParameterError(
                f"Waveform: parameter 'duty' applies to kind='square' only, got duty={plain(duty)} "
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


# ---------------------------------------------------------------------------- kernels
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


waveform_square_kernel = numba.njit(cache=True, error_model="numpy")(_waveform_square)
waveform_triangle_kernel = numba.njit(cache=True, error_model="numpy")(_waveform_triangle)
waveform_sine_kernel = numba.njit(cache=True, error_model="numpy")(_waveform_sine)
