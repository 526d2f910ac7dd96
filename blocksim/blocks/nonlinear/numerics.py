"""Numerics of the nonlinear blocks' compiled kernels: small pure scalar functions and the
helpers the kernels compile.

The scalar functions are registered with :func:`numba.extending.register_jitable` (plain Python
when called from Python): :func:`~blocksim.blocks._shared._clip` is also called by the
interpreted methods; the others (:func:`_dead_zone`, :func:`_quantize`, ...) restate the
interpreted methods' inline scalar expressions, which stay inline because a Python call costs
15-30 % of those methods' time (measured): the tests check kernels and methods bitwise equal.

Array signals: the kernels loop over the elements with the scalar functions or, where numpy's
semantics differ from them, with helpers that have numpy's (:func:`_np_extreme`,
:func:`_np_min_max`); see :mod:`blocksim.blocks.nonlinear.kernels`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from blocksim.blocks._shared import _array, _clip, _compiled_only, _element, _scalar

_INF = math.inf


# ----------------------------------------------------------------------------- numerics
# Scalar functions of the kernels (``register_jitable``: plain Python when called from Python).
# _clip is shared with the interpreted methods; the others are the interpreted methods' inline
# expressions (kept inline there for speed; tested bitwise equal). The kernels' array paths loop
# over the elements, with the numpy-semantics helpers further down where the interpreted array
# path is a numpy expression that differs from the scalar one.
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


# helpers of the kernels (compiled code only); _scalar and _array are in _shared
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
