"""Nonlinear blocks: limits, dead zone, quantizer, sign, min/max, switch, relay, backlash and
rate limiter.

Zero crossings of the stateless blocks
--------------------------------------
:class:`Saturation`, :class:`DeadZone`, :class:`Quantizer`, :class:`Sign` and :class:`Switch`
are stateless but switch (or kink) where their input crosses a level. They declare zero
crossings, so that the solver locates those instants and ends a major step there (Simulink's
zero-crossing detection); they need no ``on_event``, their output is a function of the input
alone. The number of crossings must be fixed when the block is built, before the input's shape
is known, so these blocks take a ``size`` parameter: the number of elements of the input (of
the ``control`` input for :class:`Switch`), default 1, a scalar. They provide one crossing per
element and per level, level by level (every element for the first level, then for the next).
``size=None`` declares no crossings: the block then accepts any input shape, and the switching
instants fall wherever the solver's steps happen to land. With an integer ``size``, an input
with another number of elements makes ``zero_crossings`` raise a ``ValueError`` that names the
block, the sizes and the fix.
:class:`MinMax` (continuous output, kinks only) declares no crossings.

Blocks with modes or memory
---------------------------
:class:`Relay` keeps its on/off mode as the discrete state of an ``EVENT``-clocked block,
changed only by ``on_event`` at located crossings: the switching instants are exact to the
engine's event tolerance. :class:`RateLimiter` and :class:`Backlash` are discrete (exact
Simulink difference equations) when given a ``clock``, continuous ODE approximations with a
small time constant ``tau`` otherwise; see their notes.

Scalar signals are Python floats; arrays are float64 ndarrays.

Compiled kernels
----------------
Every block provides ``kernels()`` (see :mod:`blocksim.engine.compiled.kernels`): module-level
``numba.njit(cache=True)`` functions of ``(t, x, u0, ..., params)`` for its outputs, states,
zero crossings and events. Their numerics are small pure scalar functions registered with
:func:`numba.extending.register_jitable` (:func:`_clip`, :func:`_dead_zone`, :func:`_quantize`,
...). :func:`_clip` is also called by the interpreted methods; the others restate the
interpreted methods' inline scalar expressions, which stay inline because a Python call costs
15-30 % of those methods' time (measured): the tests check kernels and methods bitwise equal.
The stateless kernels take a float or an array of any shape (``isinstance`` on the argument's
type picks the branch when numba compiles).

Array signals: the interpreted methods keep their numpy expressions (far faster in Python than
a loop); the kernels loop over the elements with the scalar functions or, where numpy's
semantics differ from them, with helpers that have numpy's (:func:`_np_extreme`,
:func:`_np_min_max`: of two equal operands such as -0.0 and 0.0, numpy's ``minimum`` and
``maximum`` return the second, whereas ``clip`` keeps the value, as :func:`_clip`; numpy's
``sign(-0.0)`` is 0.0). Kernels and interpreted methods thus agree bitwise on scalars and
arrays, NaN payloads aside. One exception: ``MinMax`` of a single array input may differ in the
sign of a zero result (numpy's vectorised reduction does not fix which of -0.0 and 0.0 it
returns). Loops also compile several times faster than numba's ufunc broadcasting (``np.where``
alone takes seconds), hence two restrictions of the compiled ``Switch`` and ``MinMax``: with an
array control (``Switch``), or inputs of one number of dimensions (``MinMax``), the array
inputs must have one shape (``ValueError`` otherwise; floats are always accepted). ``MinMax``
inputs of different numbers of dimensions broadcast like numpy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import overload, register_jitable

from blocksim.engine.block import Block
from blocksim.engine.clock import EVENT, Clock, as_clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, suggest

__all__ = [
    "Backlash",
    "DeadZone",
    "MinMax",
    "Quantizer",
    "RateLimiter",
    "Relay",
    "Saturation",
    "Sign",
    "Switch",
]

_INF = math.inf


# ----------------------------------------------------------------------------- helpers
def _short(value: Any) -> str:
    """A repr of ``value`` short enough for an error message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


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


# ----------------------------------------------------------------------------- numerics
# Scalar functions of the kernels (``register_jitable``: plain Python when called from Python).
# _clip is shared with the interpreted methods; the others are the interpreted methods' inline
# expressions (kept inline there for speed; tested bitwise equal). The kernels' array paths loop
# over the elements, with the numpy-semantics helpers further down where the interpreted array
# path is a numpy expression that differs from the scalar one.
@register_jitable
def _clip(v: float, lo: float, hi: float) -> float:
    """``min(max(v, lo), hi)`` for floats; NaN passes through."""
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@register_jitable
def _dead_zone(v: float, start: float, end: float) -> float:
    """``u - start`` below the band, ``u - end`` above it, 0.0 inside (NaN for NaN)."""
    if v < start:
        return v - start
    if v > end:
        return v - end
    return 0.0 * v  # 0.0, or NaN for a NaN input


@register_jitable
def _quantize(v: float, q: float) -> float:
    """``q * round(v / q)``, halves away from zero, no ``-0.0``; NaN and inf pass through.

    Element by element bitwise equal to the interpreted numpy path (but for NaN payloads).
    """
    a = abs(v / q)
    if not a < _INF:  # NaN or inf: nothing to round
        return v
    r = a - a % 1.0  # floor(a), exactly (a >= 0; numba's math.floor returns an int64)
    if a - r >= 0.5:
        r += 1.0
    return math.copysign(r, v) * q + 0.0  # + 0.0: no -0.0


@register_jitable
def _quantizer_crossing(v: float, q: float) -> float:
    """The Quantizer's crossing function ``(-1)**floor(a) * (f - 1/2)``, ``a = |v / q|``,
    ``f = a - floor(a)``; NaN for a non-finite ``a`` (no crossing). Element by element equal
    to the interpreted numpy path."""
    a = abs(v / q)
    if not a < _INF:
        return v - v  # NaN: no crossing
    r = a - a % 1.0  # floor(a), exactly
    f = a - r
    return f - 0.5 if r % 2.0 == 0.0 else 0.5 - f


@register_jitable
def _sign(v: float) -> float:
    """1.0, -1.0 or 0.0 (NaN for NaN; ``-0.0`` for ``-0.0``)."""
    return 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0 * v)


@register_jitable
def _extreme2(y: float, v: float, big: bool) -> float:
    """``min(y, v)`` (``max`` if ``big``) of two floats; NaN wins, ``y`` wins a tie (the loop
    of :meth:`MinMax.output`)."""
    # comparisons with NaN are False: the third branch propagates it
    if v < y:
        if not big:
            return v
    elif v > y:
        if big:
            return v
    elif v != v:
        return v
    return y


@register_jitable
def _switch_mask(c: Any, th: float, crit: int) -> Any:
    """``c >= th``, ``c > th`` or ``c != th`` (criterion 0, 1, 2), for a float or an array."""
    return c >= th if crit == 0 else (c > th if crit == 1 else c != th)


@register_jitable
def _relay_output(mode: float, on: float, off: float) -> float:
    """``on`` when the mode is on (> 0.5), else ``off``."""
    return on if mode > 0.5 else off


@register_jitable
def _rate_step(yp: float, v: float, dlo: float, dhi: float) -> float:
    """Discrete rate limiter: ``y[k-1] + clip(u[k] - y[k-1], dlo, dhi)``."""
    return yp + _clip(v - yp, dlo, dhi)


@register_jitable
def _rate_deriv(y: float, v: float, tau: float, falling: float, rising: float) -> float:
    """Continuous rate limiter: ``clip((u - y) / tau, falling, rising)``."""
    return _clip((v - y) / tau, falling, rising)


# numpy's semantics, element by element, for the kernels' array paths
@register_jitable
def _np_extreme(a: float, b: float, big: bool) -> float:
    """``numpy.maximum(a, b)`` (``big``) or ``numpy.minimum(a, b)`` of two floats: a NaN
    wins, and of two equal operands (-0.0 and 0.0) the second."""
    if a != a:
        return a
    if b != b:
        return b
    if big:
        return a if a > b else b
    return a if a < b else b


@register_jitable
def _np_min_max(v: float, lo: float, hi: float) -> float:
    """``numpy.minimum(numpy.maximum(v, lo), hi)`` of floats (on ties the bound, unlike
    ``numpy.clip`` and :func:`_clip`, which keep ``v``)."""
    return _np_extreme(_np_extreme(v, lo, True), hi, False)


# helpers of the kernels (compiled code only)
#
# A kernel branches on ``isinstance(u, float)``; numba drops the branch that does not apply,
# but only after typing it, which compiles every function called there for the other type
# (the scalar functions are valid numba code for arrays too: that would double the compile
# time). So the float branch reads ``_scalar(u)`` and the array branch ``_array(u)``: these
# identities are typed only for floats (arrays), and the dead branch fails typing at once.
def _scalar(u: float) -> float:
    """``u``; compiled for a float only."""
    return u


@overload(_scalar)
def _scalar_compiled(u):  # type: ignore[no-untyped-def]
    if isinstance(u, types.Float):
        return lambda u: u
    return None


def _array(u: np.ndarray) -> np.ndarray:
    """``u``; compiled for an array only."""
    return u


@overload(_array)
def _array_compiled(u):  # type: ignore[no-untyped-def]
    if isinstance(u, types.Array):
        return lambda u: u
    return None


@register_jitable
def _map_buffers(u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A new float64 array ``y`` of the shape of ``u``, ``y`` flat (a view) and ``u`` flat."""
    a = _array(u)
    y = np.empty(a.shape)
    return y, y.reshape(-1), np.ravel(a)


@register_jitable
def _flat_or_float(v: Any) -> Any:
    """A float unchanged, an array flattened."""
    if isinstance(v, float):
        return _scalar(v)
    return np.ravel(_array(v))


@register_jitable
def _element(v: Any, i: int) -> float:
    """A float, or element ``i`` of a flat array."""
    if isinstance(v, float):
        return _scalar(v)
    return _array(v)[i]


@register_jitable
def _float_or_shaped(v: Any, shape: Any) -> bool:
    """``v`` is a float or an array of shape ``shape``."""
    if isinstance(v, float):
        return True
    return _array(v).shape == shape


@register_jitable
def _crossing_elements(u: Any, size: int) -> np.ndarray:
    """The input of a block with per-element zero crossings, flat, checked against ``size``."""
    if isinstance(u, float):
        v = np.full(1, _scalar(u))
    else:
        v = np.ravel(_array(u))
    if v.size != size:
        raise ValueError("the input's number of elements differs from the block's 'size' (its "
                         "zero crossings are per element): build the block with size = the "
                         "number of elements, or size=None for no zero crossings")
    return v


@register_jitable
def _level_crossings(u: Any, first: float, second: float, nlevels: int,
                     size: int) -> np.ndarray:
    """``u - first``, then ``u - second`` if ``nlevels == 2``, each over the ``size`` elements
    of ``u``: shape ``(nlevels * size,)``, level by level (as
    :meth:`_LevelCrossings.zero_crossings`)."""
    v = _crossing_elements(u, size)
    g = np.empty(nlevels * size)
    for i in range(size):
        g[i] = v[i] - first
        if nlevels == 2:
            g[size + i] = v[i] - second
    return g


@register_jitable
def _kernel_scalar_input(u: Any) -> float:
    """The input of a block with a scalar state: a float (or a 1-element array)."""
    if isinstance(u, float):
        return _scalar(u)
    a = np.ravel(_array(u))
    if a.size != 1:
        raise ValueError("input 'u' must be a scalar: the state is a scalar (the shape of x0)")
    return a[0]


@register_jitable
def _kernel_vector_input(u: Any, n: int) -> np.ndarray:
    """The input of a block with ``n`` states, as a flat array of ``n`` elements."""
    if isinstance(u, float):
        a = np.full(1, _scalar(u))
    else:
        a = np.ravel(_array(u))
    if a.size != n:
        raise ValueError("input 'u' must have as many elements as the state (the shape of x0)")
    return a


# MinMax of several inputs (compiled code only: Python stubs and their overloads), the
# interpreted MinMax.output's numerics
def _compiled_only(*args: Any) -> Any:
    raise NotImplementedError("compiled code only (a numba overload)")


def _fold_numpy(acc: Any, rest: tuple[Any, ...], big: bool) -> Any:
    """``numpy.maximum`` (``big``) or ``minimum`` of ``acc`` and ``rest``, left to right."""
    return _compiled_only()


@overload(_fold_numpy)
def _fold_numpy_compiled(acc, rest, big):  # type: ignore[no-untyped-def]
    """Compiled with broadcasting; numba's ``minimum``/``maximum`` return the *first* of two
    equal operands, numpy's the second: the operands are swapped."""
    if len(rest) == 0:
        return lambda acc, rest, big: acc

    def impl(acc, rest, big):  # type: ignore[no-untyped-def]
        v = rest[0]
        return _fold_numpy(np.maximum(v, acc) if big else np.minimum(v, acc), rest[1:], big)

    return impl


def _all_shaped(values: tuple[Any, ...], shape: tuple[int, ...]) -> bool:
    """Every value is a float or an array of shape ``shape``."""
    return _compiled_only()


@overload(_all_shaped)
def _all_shaped_compiled(values, shape):  # type: ignore[no-untyped-def]
    if len(values) == 0:
        return lambda values, shape: True
    return lambda values, shape: (_float_or_shaped(values[0], shape)
                                  and _all_shaped(values[1:], shape))


def _fold_into(y: np.ndarray, rest: tuple[Any, ...], big: bool) -> None:
    """``y[i] = extreme(y[i], v[i])`` for each ``v`` of ``rest`` (floats or flat arrays of
    ``y``'s size), numpy's semantics."""
    return _compiled_only()


@overload(_fold_into)
def _fold_into_compiled(y, rest, big):  # type: ignore[no-untyped-def]
    if len(rest) == 0:
        return lambda y, rest, big: None

    def impl(y, rest, big):  # type: ignore[no-untyped-def]
        v = _flat_or_float(rest[0])
        for i in range(y.size):
            y[i] = _np_extreme(y[i], _element(v, i), big)
        _fold_into(y, rest[1:], big)

    return impl


def _extreme(values: tuple[Any, ...], big: bool) -> Any:
    """The element-wise min (max if ``big``) of two or more floats or arrays, as
    :meth:`MinMax.output`: all floats, a float by :func:`_extreme2` (a NaN wins); otherwise
    ``numpy.minimum`` or ``maximum`` from left to right."""
    return _compiled_only()


@overload(_extreme)
def _extreme_compiled(values, big):  # type: ignore[no-untyped-def]
    """Compiled :func:`_extreme`, by the input types: all floats, :func:`_extreme2`; arrays of
    one type, a loop over their elements; floats and arrays of one number of dimensions, the
    same loop unrolled over the inputs (the arrays must have one shape, else ``ValueError``);
    other mixes, numba's broadcasting ufuncs (slow to compile)."""
    tys = tuple(values)
    if all(isinstance(ty, types.Float) for ty in tys):
        def floats(values, big):  # type: ignore[no-untyped-def]
            y = values[0]
            for v in values[1:]:
                y = _extreme2(y, v, big)
            return y

        return floats
    if isinstance(values, types.UniTuple):  # arrays of one type (ndim and layout)
        def arrays(values, big):  # type: ignore[no-untyped-def]
            shape = values[0].shape
            for v in values:
                if v.shape != shape:
                    raise ValueError(_MINMAX_SHAPES)
            y = np.ravel(values[0]).copy()
            for v in values[1:]:
                a = np.ravel(v)
                for i in range(y.size):
                    y[i] = _np_extreme(y[i], a[i], big)
            return y.reshape(shape)

        return arrays
    arrays = [j for j, ty in enumerate(tys) if isinstance(ty, types.Array)]
    if all(isinstance(ty, (types.Float, types.Array)) for ty in tys) \
            and len({tys[j].ndim for j in arrays}) == 1:
        first = arrays[0]

        def mixed(values, big):  # type: ignore[no-untyped-def]
            shape = values[first].shape
            if not _all_shaped(values, shape):
                raise ValueError(_MINMAX_SHAPES)
            y = np.empty(shape)
            flat = y.reshape(-1)
            v0 = _flat_or_float(values[0])
            for i in range(flat.size):
                flat[i] = _element(v0, i)
            _fold_into(flat, values[1:], big)
            return y

        return mixed
    return lambda values, big: _fold_numpy(values[0], values[1:], big)


_MINMAX_SHAPES = ("MinMax: the compiled kernel needs the array inputs of one number of "
                  "dimensions to have one shape")


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
                f"Saturation: parameter 'lower' must be <= 'upper', got lower={lo!r}, "
                f"upper={hi!r}")
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


@njit(cache=True)
def saturation_output(t, x, u, params):
    """Kernel of :class:`Saturation`: ``u`` (float or array) limited to ``[lower, upper]``,
    ``params = (lower, upper, size)``."""
    lo = params[0]
    hi = params[1]
    if isinstance(u, float):
        return _clip(_scalar(u), lo, hi)
    y, yf, uf = _map_buffers(u)
    for i in range(uf.size):
        yf[i] = _clip(uf[i], lo, hi)  # numpy's clip keeps u on ties, as _clip
    return y


@njit(cache=True)
def saturation_crossings(t, x, u, params):
    """Crossings kernel of :class:`Saturation`: ``u - upper`` then ``u - lower`` (finite limits
    only), each over the ``size`` elements of ``u``, a float64 array."""
    lo = params[0]
    hi = params[1]
    if hi < _INF:
        return _level_crossings(u, hi, lo, 2 if lo > -_INF else 1, params[2])
    return _level_crossings(u, lo, lo, 1, params[2])


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
                f"DeadZone: parameter 'start' must be <= 'end', got start={s!r}, end={e!r}")
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


@njit(cache=True)
def dead_zone_output(t, x, u, params):
    """Kernel of :class:`DeadZone`: ``u`` (float or array) less the band ``[start, end]``,
    ``params = (start, end, size)``."""
    start = params[0]
    end = params[1]
    if isinstance(u, float):
        return _dead_zone(_scalar(u), start, end)
    y, yf, uf = _map_buffers(u)
    for i in range(uf.size):
        v = uf[i]
        yf[i] = v - _clip(v, start, end)  # the interpreted array path, u - clip(u, ...)
    return y


@njit(cache=True)
def dead_zone_crossings(t, x, u, params):
    """Crossings kernel of :class:`DeadZone`: ``u - end`` then ``u - start`` over the ``size``
    elements of ``u``, a float64 array."""
    return _level_crossings(u, params[1], params[0], 2, params[2])


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


@njit(cache=True)
def quantizer_output(t, x, u, params):
    """Kernel of :class:`Quantizer`: ``u`` (float or array) rounded to a multiple of
    ``params = (interval, size)``."""
    q = params[0]
    if isinstance(u, float):
        return _quantize(_scalar(u), q)
    y, yf, uf = _map_buffers(u)
    for i in range(uf.size):
        yf[i] = _quantize(uf[i], q)
    return y


@njit(cache=True)
def quantizer_crossings(t, x, u, params):
    """Crossings kernel of :class:`Quantizer`: the triangle wave of each of the ``size``
    elements of ``u``, a float64 array; ``params = (interval, size)``."""
    v = _crossing_elements(u, params[1])
    g = np.empty(v.size)
    for i in range(v.size):
        g[i] = _quantizer_crossing(v[i], params[0])
    return g


# ----------------------------------------------------------------------------- Sign
class Sign(_LevelCrossings):
    """The sign of the input (Simulink *Sign*).

    Equation, element-wise: ``y = 1`` for ``u > 0``, ``-1`` for ``u < 0``, ``0`` for ``u = 0``
    (NaN for NaN).

    Parameters
    ----------
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
        -1.0, 0.0 or 1.0 (dimensionless).

    Zero crossings
    --------------
    ``u`` itself (each of ``size`` elements), either direction.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, size: int | None = 1) -> None:
        super().__init__()
        self._set_crossings(_check_size("Sign", size), (0.0,))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        v = u[0]
        if type(v) is float:
            return (1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0 * v),)
        y = np.sign(np.asarray(v, dtype=float))
        return (float(y) if y.ndim == 0 else y,)

    def kernels(self) -> Kernels:
        """Compiled kernels: ``output`` :func:`sign_output`, ``crossings``
        :func:`sign_crossings` (unless ``size`` is None); ``params = (size,)`` (an int, 0 for
        None)."""
        return Kernels(params=(self._zc_size or 0,), output=sign_output,
                       crossings=sign_crossings if self.crossing_directions else None)


@njit(cache=True)
def sign_output(t, x, u, params):
    """Kernel of :class:`Sign`: the sign of ``u`` (float or array)."""
    if isinstance(u, float):
        return _sign(_scalar(u))
    y, yf, uf = _map_buffers(u)
    for i in range(uf.size):
        yf[i] = _sign(uf[i]) + 0.0  # + 0.0: numpy's sign(-0.0) is 0.0
    return y


@njit(cache=True)
def sign_crossings(t, x, u, params):
    """Crossings kernel of :class:`Sign`: ``u - 0.0`` over the ``size`` elements of ``u``."""
    return _level_crossings(u, 0.0, 0.0, 1, params[0])


# ----------------------------------------------------------------------------- MinMax
_MINMAX_FUNCS = ("min", "max")


class MinMax(Block):
    """Minimum or maximum of the inputs, or of a vector's elements (Simulink *MinMax*).

    Equations:

    * ``nin >= 2``: ``y = min(u0, u1, ...)`` (or max) element-wise, with numpy broadcasting;
    * ``nin == 1``: ``y = min_i u[i]`` (or max) over the elements of the single input.

    A NaN input gives a NaN output. The output is continuous (it only has kinks), so the block
    declares no zero crossings.

    Parameters
    ----------
    func : {"min", "max"}
        Which extreme (default ``"min"``).
    nin : int
        Number of inputs, >= 1 (default 2).

    Inputs
    ------
    u0, u1, ... : float or ndarray (broadcastable shapes)
        ``nin`` inputs, all in one unit; with ``nin == 1`` the single input is named ``u`` and
        may have any shape.

    Outputs
    -------
    y : float or ndarray
        The broadcast shape of the inputs for ``nin >= 2``; a float for ``nin == 1``.
    """

    outputs = ("y",)

    def __init__(self, func: str = "min", nin: int = 2) -> None:
        super().__init__()
        if not isinstance(func, str) or func not in _MINMAX_FUNCS:
            raise BlockParameterError(
                f"MinMax: parameter 'func' must be 'min' or 'max', got {_short(func)}"
                f"{suggest(str(func), _MINMAX_FUNCS)}")
        if not _is_int(nin) or nin < 1:
            raise BlockParameterError(
                f"MinMax: parameter 'nin' must be an integer >= 1, got {_short(nin)}")
        self._max = func == "max"
        self._nin = int(nin)
        self._ufunc = np.maximum if self._max else np.minimum
        self._reduce = np.max if self._max else np.min
        self.set_ports(inputs=["u"] if nin == 1 else [f"u{i}" for i in range(nin)])

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        if self._nin == 1:
            v = u[0]
            if type(v) is float:
                return (v,)
            return (float(self._reduce(v)),)
        if all(type(v) is float for v in u):
            y = u[0]
            big = self._max
            for v in u[1:]:
                # comparisons with NaN are False: the third branch propagates it
                if v < y:
                    if not big:
                        y = v
                elif v > y:
                    if big:
                        y = v
                elif v != v:
                    y = v
            return (y,)
        y = u[0]
        for v in u[1:]:
            y = self._ufunc(y, v)
        y = np.asarray(y, dtype=float)
        return (float(y) if y.ndim == 0 else y,)

    def kernels(self) -> Kernels:
        """Compiled kernels: ``output`` :func:`minmax_reduce_output` (``nin == 1``) or
        :func:`minmax_output` (any ``nin >= 2``: it takes ``*args``); ``params = (is_max,)``,
        a bool."""
        out = minmax_reduce_output if self._nin == 1 else minmax_output
        return Kernels(params=(self._max,), output=out)


@njit(cache=True)
def minmax_reduce_output(t, x, u, params):
    """Kernel of :class:`MinMax` with one input: min (max if ``params = (is_max,)``) of the
    elements of ``u`` (float or array), a float."""
    if isinstance(u, float):
        return _scalar(u)
    a = np.ravel(_array(u))
    big = params[0]
    y = a[0]
    for i in range(1, a.size):
        y = _np_extreme(y, a[i], big)
    return y


@njit(cache=True)
def minmax_output(t, x, *args):
    """Kernel of :class:`MinMax` with ``nin >= 2`` inputs: ``args = (u0, u1, ..., params)``,
    ``params = (is_max,)``; the element-wise min (max) of the inputs (floats or broadcastable
    arrays), a float when every input is a float."""
    return _extreme(args[:-1], args[-1][0])


# ----------------------------------------------------------------------------- Switch
_CRITERIA = (">=", ">", "!=")


class Switch(_LevelCrossings):
    """Pass one of two inputs depending on a control input (Simulink *Switch*).

    Equation: ``y = u_true if control <criterion> threshold else u_false``, where the
    criterion is ``>=`` (default), ``>`` or ``!=``. The ports keep Simulink's order: the input
    passed when the criterion holds (Simulink's u1), the control (u2), the input passed
    otherwise (u3); by index they are ``block[0]``, ``block[1]``, ``block[2]``.

    A scalar control selects a whole input; a vector control selects element by element
    (``numpy.where``, broadcasting ``u_true`` and ``u_false`` to its shape).

    Parameters
    ----------
    threshold : float
        The level the control is compared with [unit of control], finite (default 0).
    criterion : {">=", ">", "!="}
        The comparison (default ``">="``). ``"!="`` with ``threshold=0`` is Simulink's
        ``u2 ~= 0``.
    size : int or None
        Number of elements of ``control`` (default 1, a scalar), for the zero crossings; None
        for no zero crossings (see the module docstring).

    Inputs
    ------
    u_true : float or ndarray
        Passed where the criterion holds.
    control : float or ndarray
        The control signal.
    u_false : float or ndarray, the shape of ``u_true``
        Passed where it does not.

    Outputs
    -------
    y : float or ndarray
        The selected input: the shape of ``u_true`` (and ``u_false``, which must agree, since a
        signal's shape is fixed for a run) for a scalar control, else the broadcast shape of
        the three inputs.

    Zero crossings
    --------------
    ``control - threshold`` (each of ``size`` elements), either direction.
    """

    inputs = ("u_true", "control", "u_false")
    outputs = ("y",)
    _zc_port = 1

    def __init__(self, threshold: float = 0.0, criterion: str = ">=",
                 size: int | None = 1) -> None:
        super().__init__()
        self._th = _real("Switch", "threshold", threshold)
        if not isinstance(criterion, str) or criterion not in _CRITERIA:
            raise BlockParameterError(
                f"Switch: parameter 'criterion' must be one of "
                f"{', '.join(map(repr, _CRITERIA))}, got {_short(criterion)}"
                f"{suggest(str(criterion), _CRITERIA)}")
        self._crit = _CRITERIA.index(criterion)
        self._set_crossings(_check_size("Switch", size), (self._th,))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        a, c, b = u
        th = self._th
        crit = self._crit
        if type(c) is float:
            cond = c >= th if crit == 0 else (c > th if crit == 1 else c != th)
            if type(a) is not float or type(b) is not float:
                sa, sb = np.shape(a), np.shape(b)
                if sa != sb:
                    raise ValueError(
                        f"Switch: inputs 'u_true' (shape {sa}) and 'u_false' (shape {sb}) must "
                        f"have the same shape, the output's shape being fixed for a run")
                y = np.asarray(a if cond else b, dtype=float)  # no copy of a float64 array
                return (float(y) if y.ndim == 0 else y,)
            return (a if cond else b,)
        carr = np.asarray(c, dtype=float)
        mask = carr >= th if crit == 0 else (carr > th if crit == 1 else carr != th)
        y = np.where(mask, a, b).astype(float, copy=False)
        return (float(y) if y.ndim == 0 else y,)

    def kernels(self) -> Kernels:
        """Compiled kernels: ``output`` :func:`switch_output`, ``crossings``
        :func:`switch_crossings` (unless ``size`` is None); ``params = (threshold, criterion,
        size)`` with ``criterion`` 0 (``>=``), 1 (``>``) or 2 (``!=``) and ``size`` (0 for
        None) ints."""
        return Kernels(params=(self._th, self._crit, self._zc_size or 0), output=switch_output,
                       crossings=switch_crossings if self.crossing_directions else None)


@njit(cache=True)
def switch_output(t, x, u_true, control, u_false, params):
    """Kernel of :class:`Switch`, ``params = (threshold, criterion, size)``: ``u_true`` where
    ``control`` meets the criterion, else ``u_false``.

    A float control selects a whole input (``u_true`` and ``u_false`` then have one type: both
    floats or both arrays of one shape). An array control selects element by element, like
    ``np.where``, but without its general broadcasting (which is slow to compile): each of
    ``u_true`` and ``u_false`` must be a float or an array of the control's shape, else
    ``ValueError``.
    """
    th = params[0]
    crit = params[1]
    if isinstance(control, float):
        return u_true if _switch_mask(_scalar(control), th, crit) else u_false
    shape = _array(control).shape
    if not (_float_or_shaped(u_true, shape) and _float_or_shaped(u_false, shape)):
        raise ValueError("Switch: with an array control, the compiled kernel needs u_true and "
                         "u_false to be floats or arrays of the control's shape")
    y = np.empty(shape)
    flat = y.reshape(-1)
    c = np.ravel(_array(control))
    a = _flat_or_float(u_true)
    b = _flat_or_float(u_false)
    for i in range(c.size):
        flat[i] = _element(a, i) if _switch_mask(c[i], th, crit) else _element(b, i)
    return y


@njit(cache=True)
def switch_crossings(t, x, u_true, control, u_false, params):
    """Crossings kernel of :class:`Switch`: ``control - threshold`` over the ``size`` elements
    of ``control``, a float64 array."""
    return _level_crossings(control, params[0], params[0], 1, params[2])


# ----------------------------------------------------------------------------- Relay
class Relay(Block):
    """Relay with hysteresis (Simulink *Relay*).

    The relay has a mode, on or off. It turns on when ``u`` rises through ``on_point`` and off
    when ``u`` falls through ``off_point``; between the two points it keeps its mode::

        y = on_value if mode == on else off_value

    The mode starts as ``x0`` and changes only at those crossings, located in time by the
    engine (to its event tolerance). It is **not** made consistent with the input at t = 0:
    with ``x0=0`` and ``u(0) > on_point`` the relay stays off until ``u`` falls below
    ``on_point`` and rises through it again. Choose ``x0`` to match the initial input.

    Parameters
    ----------
    on_point : float
        Level [unit of u] whose upward crossing turns the relay on; finite.
    off_point : float
        Level [unit of u] whose downward crossing turns it off; finite, ``<= on_point``
        (equal points: a comparator without hysteresis).
    on_value, off_value : float
        Outputs when on and off [unit of y]; finite (defaults 1 and 0).
    x0 : {0, 1}
        Initial mode: 0 (or False) off, 1 (or True) on (default 0).

    Inputs
    ------
    u : float
        The signal, a scalar.

    Outputs
    -------
    y : float
        ``on_value`` or ``off_value``. No feedthrough: the output depends on the mode only
        (the input acts through the events).

    States
    ------
    mode : shape (1,), 0.0 (off) or 1.0 (on)
        A discrete mode: ``clock`` is ``EVENT``, the state changes only in ``on_event``.

    Zero crossings
    --------------
    0: ``u - on_point``, rising (turns on); 1: ``u - off_point``, falling (turns off).
    """

    inputs = ("u",)
    outputs = ("y",)
    feedthrough = False

    def __init__(self, on_point: float = 0.0, off_point: float = 0.0, on_value: float = 1.0,
                 off_value: float = 0.0, x0: int | bool = 0) -> None:
        super().__init__()
        on = _real("Relay", "on_point", on_point)
        off = _real("Relay", "off_point", off_point)
        if off > on:
            raise BlockParameterError(
                f"Relay: parameter 'off_point' must be <= 'on_point' (hysteresis band "
                f"[off_point, on_point]), got on_point={on!r}, off_point={off!r}")
        self._on_point = on
        self._off_point = off
        self._on = _real("Relay", "on_value", on_value)
        self._off = _real("Relay", "off_value", off_value)
        if not isinstance(x0, (bool, int, float, np.bool_, np.integer, np.floating)) \
                or x0 not in (0, 1):
            raise BlockParameterError(
                f"Relay: parameter 'x0' (initial mode) must be 0 (off) or 1 (on), "
                f"got {_short(x0)}")
        self.clock = EVENT
        self.crossing_directions = (1, -1)
        self.set_state([1.0 if x0 else 0.0], ("mode",))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (self._on if x[0] > 0.5 else self._off,)

    def kernels(self) -> Kernels:
        """Compiled kernels: ``output`` :func:`relay_output` (from the mode state),
        ``update`` :func:`relay_update` (the mode unchanged), ``crossings``
        :func:`relay_crossings`, ``on_event`` :func:`relay_on_event`; ``params = (on_value,
        off_value, on_point, off_point)``."""
        return Kernels(params=(self._on, self._off, self._on_point, self._off_point),
                       output=relay_output, update=relay_update, crossings=relay_crossings,
                       on_event=relay_on_event)

    def zero_crossings(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Sequence[float]:
        """``(u - on_point, u - off_point)``."""
        v = u[0]
        if type(v) is not float:
            if np.size(v) != 1:
                raise ValueError(f"Relay: input 'u' must be a scalar, got shape {np.shape(v)}")
            v = float(np.reshape(v, -1)[0])
        return (v - self._on_point, v - self._off_point)

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """The mode unchanged: an ``EVENT`` block's state changes only in ``on_event``."""
        return x.copy()

    def on_event(self, t: float, x: np.ndarray, u: Sequence[Any], which: int) -> Any:
        """Crossing 0 turns the relay on, crossing 1 off; None when the mode is unchanged."""
        on = x[0] > 0.5
        if which == 0 and not on:
            return np.array([1.0])
        if which == 1 and on:
            return np.array([0.0])
        return None


@njit(cache=True)
def relay_output(t, x, u, params):
    """Kernel of :class:`Relay`: ``on_value`` or ``off_value`` from the mode ``x[0]``;
    ``params = (on_value, off_value, on_point, off_point)``."""
    return _relay_output(x[0], params[0], params[1])


@njit(cache=True)
def relay_update(t, x, u, params):
    """Kernel of :class:`Relay`: the mode unchanged, ``(x[0],)``."""
    return (x[0],)


@njit(cache=True)
def relay_crossings(t, x, u, params):
    """Crossings kernel of :class:`Relay`: ``(u - on_point, u - off_point)``."""
    v = _kernel_scalar_input(u)
    return (v - params[2], v - params[3])


@njit(cache=True)
def relay_on_event(t, x, u, params, which):
    """Event kernel of :class:`Relay`: crossing 0 turns it on, 1 off: the new mode,
    ``(1.0,)`` or ``(0.0,)``, or the mode unchanged."""
    on = x[0] > 0.5
    if which == 0 and not on:
        return (1.0,)
    if which == 1 and on:
        return (0.0,)
    return (x[0],)


# ----------------------------------------------------------------------------- Backlash
class Backlash(Block):
    """Backlash (play) between a driving and a driven part (Simulink *Backlash*).

    The output (driven position) ``y`` stays put while the input (driving position) ``u``
    moves inside the band ``[y - width/2, y + width/2]``; when ``u`` pushes against an edge the
    output is carried along::

        y = u - width/2   while u pushes up against the upper edge (engaged up)
        y = u + width/2   while u pushes down against the lower edge (engaged down)
        y held            otherwise (disengaged)

    i.e. ``y = min(max(y_prev, u - width/2), u + width/2)`` with ``y_prev`` the output just
    before.

    Discrete (``clock`` given): exactly Simulink's discrete backlash, at the hits t_k::

        y[k] = min(max(y[k-1], u[k] - width/2), u[k] + width/2),   y[-1] = x0

    held between hits; the state is y[k-1].

    Continuous (``clock=None``): the held position is a continuous state ``z`` that follows
    the output with a small time constant ``tau``::

        y = min(max(z, u - width/2), u + width/2)      (direct feedthrough from u)
        dz/dt = (y - z) / tau

    While disengaged ``y = z`` and dz/dt = 0: the output is held exactly. While engaged the
    output is exactly ``u -+ width/2``, and ``z`` trails it by about ``tau * |du/dt|``. The
    engagement instants are therefore exact; the only error is at a reversal, where ``z`` has
    not quite caught up with the peak: the held value is off by about ``0.7 * tau * |du/dt|``
    (``du/dt`` just before the reversal; for a smooth input, which turns with du/dt -> 0, the
    error is of order ``tau**2 * |d2u/dt2|``). Exact disengagement at the extremum of ``u``
    cannot be expressed with the block contract (it depends on the history of ``u``, not on
    ``(t, x, u)``), hence this formulation. While engaged the state equation has the fast
    eigenvalue ``-1/tau``: explicit solvers then take steps of the order of ``tau``; with a
    fixed-step solver use ``dt <= tau`` (``"euler"`` with ``dt = tau`` tracks exactly).

    Parameters
    ----------
    width : float
        Width of the dead band [unit of u], finite, >= 0.
    x0 : float or array_like
        Initial output [unit of u] (default 0); its shape sets the signal shape: a scalar
        gives a float signal, an array of shape ``(n,)`` a vector. If ``u(0)`` puts ``x0``
        outside the band, the output starts engaged.
    tau : float
        Tracking time constant of the continuous variant [s], > 0 (default 1e-3); unused with
        a clock.
    clock : Clock, float or (float, float), optional
        Sample clock (or its period [s], or (period, offset)) of the discrete variant.

    Inputs
    ------
    u : float or ndarray, the shape of ``x0``
        Driving position.

    Outputs
    -------
    y : float or ndarray, the shape of ``x0``
        Driven position, in the unit of ``u``. Direct feedthrough from ``u``.

    States
    ------
    z : shape ``(n,)``, the unit of u
        Continuous: the tracked held position; discrete: the previous output y[k-1]. Named
        ``"z"`` (scalar) or ``"z0", "z1", ...``.

    Zero crossings
    --------------
    Continuous variant only: ``u - width/2 - z`` then ``u + width/2 - z`` (each of ``n``
    elements), either direction: the kinks of the output at engagement and disengagement.
    """

    inputs = ("u",)
    outputs = ("y",)
    feedthrough = True

    def __init__(self, width: float = 1.0, x0: Any = 0.0, tau: float = 1e-3,
                 clock: Clock | float | tuple[float, float] | None = None) -> None:
        super().__init__()
        w = _real("Backlash", "width", width)
        if w < 0.0:
            raise BlockParameterError(
                f"Backlash: parameter 'width' must be >= 0, got {_short(width)}")
        self._half = 0.5 * w
        self._tau = _positive("Backlash", "tau", tau)
        x0a, scalar = _initial("Backlash", x0)
        self._scalar = scalar
        self.clock = as_clock(clock, "Backlash")
        self.set_state(x0a, _state_names(scalar, x0a.size, "z"))
        if self.clock is None:
            self.crossing_directions = (0,) * (2 * x0a.size)

    def _target(self, x: np.ndarray, v: Any) -> Any:
        """The output ``min(max(z, u - width/2), u + width/2)``."""
        h = self._half
        if self._scalar and type(v) is float:
            return _clip(x.item(), v - h, v + h)
        a = _flat_input("Backlash", v, x.size)
        y = np.minimum(np.maximum(x, a - h), a + h)
        return float(y[0]) if self._scalar else y

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        return (self._target(x, u[0]),)

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """dz/dt = (y - z) / tau."""
        y = self._target(x, u[0])
        if type(y) is float:
            return ((y - x.item()) / self._tau,)
        return (y - x) / self._tau

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """z[k+1] = y[k]."""
        y = self._target(x, u[0])
        return (y,) if type(y) is float else y

    def zero_crossings(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Sequence[float]:
        """``(u - width/2 - z, u + width/2 - z)`` (continuous variant; none when discrete)."""
        if self.clock is not None:
            return ()
        v = u[0]
        h = self._half
        if self._scalar and type(v) is float:
            z = x.item()
            return (v - h - z, v + h - z)
        d = _flat_input("Backlash", v, x.size) - x
        return np.concatenate([d - h, d + h])

    def kernels(self) -> Kernels:
        """Compiled kernels, ``params = (width / 2, tau)``.

        Scalar ``x0``: ``output`` :func:`backlash_output`, then ``deriv``
        :func:`backlash_deriv` and ``crossings`` :func:`backlash_crossings` (continuous) or
        ``update`` :func:`backlash_update` (clocked). Vector ``x0``:
        :func:`backlash_vector_output`, then :func:`backlash_vector_deriv` and
        :func:`backlash_vector_crossings`, or :func:`backlash_vector_output` again as
        ``update`` (z[k+1] = y[k]).
        """
        params = (self._half, self._tau)
        if self.clock is not None:
            if self._scalar:
                return Kernels(params=params, output=backlash_output, update=backlash_update)
            return Kernels(params=params, output=backlash_vector_output,
                           update=backlash_vector_output)
        if self._scalar:
            return Kernels(params=params, output=backlash_output, deriv=backlash_deriv,
                           crossings=backlash_crossings)
        return Kernels(params=params, output=backlash_vector_output,
                       deriv=backlash_vector_deriv, crossings=backlash_vector_crossings)


@register_jitable
def _backlash_scalar(z: float, u: Any, h: float) -> float:
    """The output of a scalar backlash, as :meth:`Backlash._target`: ``_clip`` for a float
    input, numpy's ``minimum(maximum(...))`` for a 1-element array."""
    if isinstance(u, float):
        v = _scalar(u)
        return _clip(z, v - h, v + h)
    a = _kernel_vector_input(u, 1)
    return _np_min_max(z, a[0] - h, a[0] + h)


@njit(cache=True)
def backlash_output(t, x, u, params):
    """Kernel of :class:`Backlash`, scalar: ``min(max(z, u - h), u + h)``, ``params = (h,
    tau)``, ``h = width / 2``."""
    return _backlash_scalar(x[0], u, params[0])


@njit(cache=True)
def backlash_deriv(t, x, u, params):
    """Kernel of the continuous :class:`Backlash`, scalar: ``((y - z) / tau,)``."""
    return ((_backlash_scalar(x[0], u, params[0]) - x[0]) / params[1],)


@njit(cache=True)
def backlash_update(t, x, u, params):
    """Kernel of the clocked :class:`Backlash`, scalar: ``(y[k],)``."""
    return (_backlash_scalar(x[0], u, params[0]),)


@njit(cache=True)
def backlash_crossings(t, x, u, params):
    """Crossings kernel of the continuous :class:`Backlash`, scalar: ``(u - h - z, u + h -
    z)``."""
    h = params[0]
    z = x[0]
    if isinstance(u, float):
        v = _scalar(u)
        return (v - h - z, v + h - z)
    d = _kernel_vector_input(u, 1)[0] - z  # as the interpreted array path
    return (d - h, d + h)


@njit(cache=True)
def backlash_vector_output(t, x, u, params):
    """Kernel of :class:`Backlash`, vector state of ``n``: the output, shape ``(n,)`` (also the
    clocked variant's ``update``)."""
    a = _kernel_vector_input(u, x.size)
    h = params[0]
    y = np.empty(x.size)
    for i in range(x.size):
        y[i] = _np_min_max(x[i], a[i] - h, a[i] + h)  # as the interpreted numpy path
    return y


@njit(cache=True)
def backlash_vector_deriv(t, x, u, params):
    """Kernel of the continuous :class:`Backlash`, vector: ``(y - z) / tau``, shape ``(n,)``."""
    a = _kernel_vector_input(u, x.size)
    h = params[0]
    tau = params[1]
    d = np.empty(x.size)
    for i in range(x.size):
        d[i] = (_np_min_max(x[i], a[i] - h, a[i] + h) - x[i]) / tau
    return d


@njit(cache=True)
def backlash_vector_crossings(t, x, u, params):
    """Crossings kernel of the continuous :class:`Backlash`, vector of ``n``: ``u - z - h``
    then ``u - z + h``, shape ``(2 n,)``."""
    a = _kernel_vector_input(u, x.size)
    h = params[0]
    n = x.size
    g = np.empty(2 * n)
    for i in range(n):
        d = a[i] - x[i]
        g[i] = d - h
        g[n + i] = d + h
    return g


# ----------------------------------------------------------------------------- RateLimiter
class RateLimiter(Block):
    """Limit the rate of change of a signal (Simulink *Rate Limiter*).

    Discrete (``clock`` given, period ``T``): exactly Simulink's difference equation, at the
    hits t_k::

        y[k] = y[k-1] + min(max(u[k] - y[k-1], falling * T), rising * T),   y[-1] = x0

    held between hits (direct feedthrough from ``u`` inside a hit); the state is y[k-1].

    Continuous (``clock=None``): an ODE approximation of Simulink's continuous rate limiter,
    the output being a continuous state::

        dy/dt = min(max((u - y) / tau, falling), rising),   y(0) = x0

    When the slope of ``u`` is within the limits, ``y`` follows ``u`` as a first-order lag of
    time constant ``tau`` (behind a ramp of slope ``s``: a constant lag ``tau * s``); when the
    input moves faster, ``y`` moves at the limiting rate exactly, and it ends an approach with
    an exponential tail of time constant ``tau``. Simulink's continuous block instead passes
    ``u`` through when it is slow enough; the two agree to within that lag. No feedthrough.
    The fast eigenvalue ``-1/tau`` makes explicit solvers take steps of the order of ``tau``
    while tracking; with a fixed-step solver use ``dt <= tau``.

    Parameters
    ----------
    rising : float
        Largest rate of increase [unit of u / s], >= 0; ``inf`` for no limit.
    falling : float
        Largest rate of decrease as a negative rate [unit of u / s], <= 0; ``-inf`` for no
        limit.
    x0 : float or array_like
        Initial output [unit of u] (default 0): y(0) (continuous) or y[-1] (discrete). Its
        shape sets the signal shape (scalar: float signal; ``(n,)``: vector).
    tau : float
        Tracking time constant of the continuous variant [s], > 0 (default 1e-3); unused with
        a clock.
    clock : Clock, float or (float, float), optional
        Sample clock (or its period [s], or (period, offset)) of the discrete variant.

    Inputs
    ------
    u : float or ndarray, the shape of ``x0``
        The signal.

    Outputs
    -------
    y : float or ndarray, the shape of ``x0``
        The rate-limited signal.

    States
    ------
    y : shape ``(n,)``, the unit of u
        The output (continuous) or the previous output y[k-1] (discrete); named ``"y"``
        (scalar) or ``"y0", "y1", ...``.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, rising: float = 1.0, falling: float = -1.0, x0: Any = 0.0,
                 tau: float = 1e-3,
                 clock: Clock | float | tuple[float, float] | None = None) -> None:
        super().__init__()
        r = _real("RateLimiter", "rising", rising, finite=False)
        f = _real("RateLimiter", "falling", falling, finite=False)
        if r < 0.0:
            raise BlockParameterError(
                f"RateLimiter: parameter 'rising' must be >= 0 (a rate of increase), "
                f"got {_short(rising)}")
        if f > 0.0:
            raise BlockParameterError(
                f"RateLimiter: parameter 'falling' must be <= 0 (a rate of decrease is "
                f"negative, e.g. falling=-{f:g}), got {_short(falling)}")
        self._rising = r
        self._falling = f
        self._tau = _positive("RateLimiter", "tau", tau)
        x0a, scalar = _initial("RateLimiter", x0)
        self._scalar = scalar
        self.clock = as_clock(clock, "RateLimiter")
        self.set_state(x0a, _state_names(scalar, x0a.size, "y"))
        if self.clock is not None:
            period = self.clock.period
            self._dlo = f * period  # inf * T stays inf
            self._dhi = r * period
            self.feedthrough = True  # type: ignore[misc]
        else:
            self.feedthrough = False  # type: ignore[misc]

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        if self.clock is None:
            return (x.item(),) if self._scalar else (x.copy(),)
        return (self._step(x, u[0]),)

    def _step(self, x: np.ndarray, v: Any) -> Any:
        """y[k] from y[k-1] = x and u[k] = v."""
        if self._scalar and type(v) is float:
            yp = x.item()
            return yp + _clip(v - yp, self._dlo, self._dhi)
        y = x + np.clip(_flat_input("RateLimiter", v, x.size) - x, self._dlo, self._dhi)
        return float(y[0]) if self._scalar else y

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """y[k] becomes the state."""
        y = self._step(x, u[0])
        return (y,) if type(y) is float else y

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """dy/dt = clip((u - y) / tau, falling, rising)."""
        v = u[0]
        if self._scalar and type(v) is float:
            return (_clip((v - x.item()) / self._tau, self._falling, self._rising),)
        return np.clip((_flat_input("RateLimiter", v, x.size) - x) / self._tau, self._falling,
                       self._rising)

    def kernels(self) -> Kernels:
        """Compiled kernels.

        Clocked, ``params = (falling * T, rising * T)`` (``T`` the period): ``output``
        :func:`rate_limiter_output` and ``update`` :func:`rate_limiter_update` (scalar
        ``x0``), or :func:`rate_limiter_vector_output` for both (vector ``x0``).

        Continuous, ``params = (falling, rising, tau)``: ``output`` :func:`state_output`
        (scalar) or :func:`state_vector_output` (the state), ``deriv``
        :func:`rate_limiter_deriv` or :func:`rate_limiter_vector_deriv`.
        """
        if self.clock is not None:
            params = (self._dlo, self._dhi)
            if self._scalar:
                return Kernels(params=params, output=rate_limiter_output,
                               update=rate_limiter_update)
            return Kernels(params=params, output=rate_limiter_vector_output,
                           update=rate_limiter_vector_output)
        params = (self._falling, self._rising, self._tau)
        if self._scalar:
            return Kernels(params=params, output=state_output, deriv=rate_limiter_deriv)
        return Kernels(params=params, output=state_vector_output,
                       deriv=rate_limiter_vector_deriv)


@njit(cache=True)
def rate_limiter_output(t, x, u, params):
    """Kernel of the clocked :class:`RateLimiter`, scalar: ``y[k]``, ``params = (dlo,
    dhi)`` = ``(falling * T, rising * T)``."""
    return _rate_step(x[0], _kernel_scalar_input(u), params[0], params[1])


@njit(cache=True)
def rate_limiter_update(t, x, u, params):
    """Kernel of the clocked :class:`RateLimiter`, scalar: ``(y[k],)``."""
    return (_rate_step(x[0], _kernel_scalar_input(u), params[0], params[1]),)


@njit(cache=True)
def rate_limiter_vector_output(t, x, u, params):
    """Kernel of the clocked :class:`RateLimiter`, vector state of ``n``: ``y[k]``, shape
    ``(n,)`` (also its ``update``)."""
    a = _kernel_vector_input(u, x.size)
    dlo = params[0]
    dhi = params[1]
    y = np.empty(x.size)
    for i in range(x.size):
        y[i] = _rate_step(x[i], a[i], dlo, dhi)  # numpy's clip keeps ties, as _clip
    return y


@njit(cache=True)
def rate_limiter_deriv(t, x, u, params):
    """Kernel of the continuous :class:`RateLimiter`, scalar: ``(dy/dt,)``, ``params =
    (falling, rising, tau)``."""
    return (_rate_deriv(x[0], _kernel_scalar_input(u), params[2], params[0], params[1]),)


@njit(cache=True)
def rate_limiter_vector_deriv(t, x, u, params):
    """Kernel of the continuous :class:`RateLimiter`, vector: ``dy/dt``, shape ``(n,)``."""
    a = _kernel_vector_input(u, x.size)
    falling = params[0]
    rising = params[1]
    tau = params[2]
    d = np.empty(x.size)
    for i in range(x.size):
        d[i] = _rate_deriv(x[i], a[i], tau, falling, rising)
    return d


@njit(cache=True)
def state_output(t, x, *args):
    """Kernel: the output is the scalar state, ``x[0]`` (any inputs and params)."""
    return x[0]


@njit(cache=True)
def state_vector_output(t, x, *args):
    """Kernel: the output is the state, a copy of shape ``(n,)`` (any inputs and params)."""
    return x.copy()
