"""Table-driven sources: :class:`Piecewise` (a piecewise-constant signal of time) and
:class:`Interpolate` (a 1-D lookup table of an input or of time), and their compiled kernels.

The conventions of every source (signal types, read-only arrays, breakpoints as right limits)
are described in :mod:`blocksim.blocks.sources.base`. The interpreted blocks bisect Python lists;
the kernels do the same comparisons on arrays (:func:`_bisect_right`).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from blocksim.blocks._shared import _param, _short
from blocksim.blocks.sources.base import Value, _freeze, _increasing, _real_array, _rows
from blocksim.engine.block import Block
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, suggest

__all__ = ["Interpolate", "Piecewise"]


def _table(owner: str, xname: str, x: Any, min_points: int, yname: str, y: Any,
           entries: str) -> tuple[np.ndarray, np.ndarray]:
    """The breakpoints ``x`` (increasing, at least ``min_points``) and the values ``y`` with
    ``entries`` (one row per breakpoint), checked."""
    xx = _increasing(owner, xname, x, min_points)
    yy = _real_array(owner, yname, y)
    if yy.ndim == 0 or yy.shape[0] != xx.size:
        raise BlockParameterError(
            f"{owner}: parameter '{yname}' must have {entries} "
            f"({xx.size}), got {'a scalar' if yy.ndim == 0 else f'shape {yy.shape}'}")
    return xx, yy


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
        tt, vv = _table("Piecewise", "times", times, 1, "values", values, "one entry per time")
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
        xx, yy = _table("Interpolate", "x", x, 2, "y", y, "one entry (row) per x point")
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
@numba.njit(cache=True, error_model="numpy")
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


@numba.njit(cache=True, error_model="numpy")
def piecewise_kernel(t, x, p):
    times, table = p
    return table[_bisect_right(times, t)]


@numba.njit(cache=True, error_model="numpy")
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


@numba.njit(cache=True, error_model="numpy")
def _index_lookup(s, table, offset, last):
    """The row index of ``s`` for the kinds previous, next and nearest."""
    i = _bisect_right(table, s) + offset
    return 0 if i < 0 else (last if i > last else i)


@numba.njit(cache=True, error_model="numpy")
def interpolate_linear_time_kernel(t, x, p):
    return _linear_lookup(float(t), p[0], p[1], p[2])


@numba.njit(cache=True, error_model="numpy")
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


@numba.njit(cache=True, error_model="numpy")
def interpolate_index_time_kernel(t, x, p):
    table, ya, offset, last = p
    return ya[_index_lookup(float(t), table, offset, last)]


@numba.njit(cache=True, error_model="numpy")
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
