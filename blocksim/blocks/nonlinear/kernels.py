"""Compiled kernels of the nonlinear blocks.

Every nonlinear block provides ``kernels()`` (see :mod:`blocksim.engine.compiled.kernels`):
these module-level ``numba.njit(cache=True, error_model="numpy")`` functions of
``(t, x, u0, ..., params)`` for its
outputs, states, zero crossings and events. Their numerics are the small pure scalar functions
of :mod:`blocksim.blocks.nonlinear.numerics`. The stateless kernels take a float or an array of
any shape (``isinstance`` on the argument's type picks the branch when numba compiles).

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

from typing import Any

import numpy as np
from numba import njit
from numba.extending import register_jitable

from blocksim.blocks._shared import _clip, _sign
from blocksim.blocks.nonlinear.numerics import (
    _INF,
    _array,
    _crossing_elements,
    _dead_zone,
    _element,
    _extreme,
    _flat_or_float,
    _float_or_shaped,
    _kernel_scalar_input,
    _kernel_vector_input,
    _level_crossings,
    _map_buffers,
    _np_extreme,
    _np_min_max,
    _quantize,
    _quantizer_crossing,
    _rate_deriv,
    _rate_step,
    _relay_output,
    _scalar,
    _switch_mask,
)


# -- Saturation
@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def saturation_crossings(t, x, u, params):
    """Crossings kernel of :class:`Saturation`: ``u - upper`` then ``u - lower`` (finite limits
    only), each over the ``size`` elements of ``u``, a float64 array."""
    lo = params[0]
    hi = params[1]
    if hi < _INF:
        return _level_crossings(u, hi, lo, 2 if lo > -_INF else 1, params[2])
    return _level_crossings(u, lo, lo, 1, params[2])


# -- DeadZone
@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def dead_zone_crossings(t, x, u, params):
    """Crossings kernel of :class:`DeadZone`: ``u - end`` then ``u - start`` over the ``size``
    elements of ``u``, a float64 array."""
    return _level_crossings(u, params[1], params[0], 2, params[2])


# -- Quantizer
@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def quantizer_crossings(t, x, u, params):
    """Crossings kernel of :class:`Quantizer`: the triangle wave of each of the ``size``
    elements of ``u``, a float64 array; ``params = (interval, size)``."""
    v = _crossing_elements(u, params[1])
    g = np.empty(v.size)
    for i in range(v.size):
        g[i] = _quantizer_crossing(v[i], params[0])
    return g


# -- Sign
@njit(cache=True, error_model="numpy")
def sign_output(t, x, u, params):
    """Kernel of :class:`Sign`: the sign of ``u`` (float or array)."""
    if isinstance(u, float):
        return _sign(_scalar(u))
    y, yf, uf = _map_buffers(u)
    for i in range(uf.size):
        yf[i] = _sign(uf[i]) + 0.0  # + 0.0: numpy's sign(-0.0) is 0.0
    return y


@njit(cache=True, error_model="numpy")
def sign_crossings(t, x, u, params):
    """Crossings kernel of :class:`Sign`: ``u - 0.0`` over the ``size`` elements of ``u``."""
    return _level_crossings(u, 0.0, 0.0, 1, params[0])


# -- MinMax
@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def minmax_output(t, x, *args):
    """Kernel of :class:`MinMax` with ``nin >= 2`` inputs: ``args = (u0, u1, ..., params)``,
    ``params = (is_max,)``; the element-wise min (max) of the inputs (floats or broadcastable
    arrays), a float when every input is a float."""
    return _extreme(args[:-1], args[-1][0])


# -- Switch
@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def switch_crossings(t, x, u_true, control, u_false, params):
    """Crossings kernel of :class:`Switch`: ``control - threshold`` over the ``size`` elements
    of ``control``, a float64 array."""
    return _level_crossings(control, params[0], params[0], 1, params[2])


# -- Relay
@njit(cache=True, error_model="numpy")
def relay_output(t, x, u, params):
    """Kernel of :class:`Relay`: ``on_value`` or ``off_value`` from the mode ``x[0]``;
    ``params = (on_value, off_value, on_point, off_point)``."""
    return _relay_output(x[0], params[0], params[1])


@njit(cache=True, error_model="numpy")
def relay_update(t, x, u, params):
    """Kernel of :class:`Relay`: the mode unchanged, ``(x[0],)``."""
    return (x[0],)


@njit(cache=True, error_model="numpy")
def relay_crossings(t, x, u, params):
    """Crossings kernel of :class:`Relay`: ``(u - on_point, u - off_point)``."""
    v = _kernel_scalar_input(u)
    return (v - params[2], v - params[3])


@njit(cache=True, error_model="numpy")
def relay_on_event(t, x, u, params, which):
    """Event kernel of :class:`Relay`: crossing 0 turns it on, 1 off: the new mode,
    ``(1.0,)`` or ``(0.0,)``, or the mode unchanged."""
    on = x[0] > 0.5
    if which == 0 and not on:
        return (1.0,)
    if which == 1 and on:
        return (0.0,)
    return (x[0],)


# -- Backlash
@register_jitable
def _backlash_scalar(z: float, u: Any, h: float) -> float:
    """The output of a scalar backlash, as :meth:`Backlash._target`: ``_clip`` for a float
    input, numpy's ``minimum(maximum(...))`` for a 1-element array."""
    if isinstance(u, float):
        v = _scalar(u)
        return _clip(z, v - h, v + h)
    a = _kernel_vector_input(u, 1)
    return _np_min_max(z, a[0] - h, a[0] + h)


@njit(cache=True, error_model="numpy")
def backlash_output(t, x, u, params):
    """Kernel of :class:`Backlash`, scalar: ``min(max(z, u - h), u + h)``, ``params = (h,
    tau)``, ``h = width / 2``."""
    return _backlash_scalar(x[0], u, params[0])


@njit(cache=True, error_model="numpy")
def backlash_deriv(t, x, u, params):
    """Kernel of the continuous :class:`Backlash`, scalar: ``((y - z) / tau,)``."""
    return ((_backlash_scalar(x[0], u, params[0]) - x[0]) / params[1],)


@njit(cache=True, error_model="numpy")
def backlash_update(t, x, u, params):
    """Kernel of the clocked :class:`Backlash`, scalar: ``(y[k],)``."""
    return (_backlash_scalar(x[0], u, params[0]),)


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def backlash_vector_output(t, x, u, params):
    """Kernel of :class:`Backlash`, vector state of ``n``: the output, shape ``(n,)`` (also the
    clocked variant's ``update``)."""
    a = _kernel_vector_input(u, x.size)
    h = params[0]
    y = np.empty(x.size)
    for i in range(x.size):
        y[i] = _np_min_max(x[i], a[i] - h, a[i] + h)  # as the interpreted numpy path
    return y


@njit(cache=True, error_model="numpy")
def backlash_vector_deriv(t, x, u, params):
    """Kernel of the continuous :class:`Backlash`, vector: ``(y - z) / tau``, shape ``(n,)``."""
    a = _kernel_vector_input(u, x.size)
    h = params[0]
    tau = params[1]
    d = np.empty(x.size)
    for i in range(x.size):
        d[i] = (_np_min_max(x[i], a[i] - h, a[i] + h) - x[i]) / tau
    return d


@njit(cache=True, error_model="numpy")
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


# -- RateLimiter
@njit(cache=True, error_model="numpy")
def rate_limiter_output(t, x, u, params):
    """Kernel of the clocked :class:`RateLimiter`, scalar: ``y[k]``, ``params = (dlo,
    dhi)`` = ``(falling * T, rising * T)``."""
    return _rate_step(x[0], _kernel_scalar_input(u), params[0], params[1])


@njit(cache=True, error_model="numpy")
def rate_limiter_update(t, x, u, params):
    """Kernel of the clocked :class:`RateLimiter`, scalar: ``(y[k],)``."""
    return (_rate_step(x[0], _kernel_scalar_input(u), params[0], params[1]),)


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def rate_limiter_deriv(t, x, u, params):
    """Kernel of the continuous :class:`RateLimiter`, scalar: ``(dy/dt,)``, ``params =
    (falling, rising, tau)``."""
    return (_rate_deriv(x[0], _kernel_scalar_input(u), params[2], params[0], params[1]),)


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def state_output(t, x, *args):
    """Kernel: the output is the scalar state, ``x[0]`` (any inputs and params)."""
    return x[0]


@njit(cache=True, error_model="numpy")
def state_vector_output(t, x, *args):
    """Kernel: the output is the state, a copy of shape ``(n,)`` (any inputs and params)."""
    return x.copy()
