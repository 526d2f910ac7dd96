"""The :class:`Quantizer` block: rounding to a multiple of an interval.

Stateless, with one zero crossing per element at the jumps, sized by its ``size`` parameter
(see :mod:`blocksim.blocks.nonlinear.base` for the rules); its compiled kernels are in
:mod:`blocksim.blocks.nonlinear.kernels`. Scalar signals are Python floats; arrays are float64
ndarrays.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks.nonlinear.base import _check_size, _LevelCrossings, _positive
from blocksim.blocks.nonlinear.kernels import quantizer_crossings, quantizer_output
from blocksim.blocks.nonlinear.numerics import _INF
from blocksim.engine.compiled.kernels import Kernels

__all__ = ["Quantizer"]


# ----------------------------------------------------------------------------- Quantizer
class Quantizer(_LevelCrossings):
    """Round the input to the nearest multiple of an interval (Simulink *Quantizer*).

    Equation, element-wise: ``y = interval * round(u / interval)``, halves rounded away from
    zero (as MATLAB's ``round``): with ``interval = 1``, 0.5 -> 1 and -2.5 -> -3.

    Parameters
    ----------
    interval : float
        Quantization interval [unit of u], finite, > 0.
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
        The quantized signal, a multiple of ``interval``.

    Zero crossings
    --------------
    One per element, either direction: with ``a = |u / interval|`` and its fractional part
    ``f = a - floor(a)``, ``g = (-1)**floor(a) * (f - 1/2)``, a continuous triangle wave of
    ``u`` that is zero exactly at the jumps ``|u| = (k + 1/2) * interval``, and whose sign flips
    exactly where the rounding does (``f >= 1/2``, the same floating-point test as the output).
    A solver step over which ``u`` crosses two jumps shows no sign change, so that pair of
    jumps is not located (the output stays right); bound ``max_step`` if every level change
    must fall on a major step.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, interval: float = 1.0, size: int | None = 1) -> None:
        super().__init__()
        self._q = _positive("Quantizer", "interval", interval)
        self._set_crossings(_check_size("Quantizer", size), (0.0,))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        v = u[0]
        q = self._q
        if type(v) is float:
            a = abs(v / q)
            if not a < _INF:  # NaN or inf: nothing to round
                return (v,)
            r = float(math.floor(a))
            if a - r >= 0.5:
                r += 1.0
            return (math.copysign(r, v) * q + 0.0,)  # + 0.0: no -0.0
        w = np.asarray(v, dtype=float) / q
        a = np.abs(w)
        r = np.floor(a)
        r += a - r >= 0.5
        y = np.copysign(r, w) * q + 0.0  # + 0.0: no -0.0
        return (float(y) if y.ndim == 0 else y,)

    def kernels(self) -> Kernels:
        """Compiled kernels: ``output`` :func:`quantizer_output`, ``crossings``
        :func:`quantizer_crossings` (unless ``size`` is None); ``params = (interval, size)``
        (``size`` an int, 0 for None)."""
        return Kernels(params=(self._q, self._zc_size or 0), output=quantizer_output,
                       crossings=quantizer_crossings if self.crossing_directions else None)

    def zero_crossings(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Sequence[float]:
        """The triangle wave ``(-1)**floor(a) * (f - 1/2)``, zero at every jump."""
        if self._zc_size is None:
            return ()
        v = self._zc_elements(u[0])
        if type(v) is float:
            a = abs(v / self._q)
            if not a < _INF:
                return (v - v,)  # NaN: no crossing
            r = math.floor(a)
            f = a - r
            return (f - 0.5 if r % 2 == 0 else 0.5 - f,)
        a = np.abs(v / self._q)
        r = np.floor(a)
        f = a - r
        return np.where(r % 2.0 == 0.0, f - 0.5, 0.5 - f)
