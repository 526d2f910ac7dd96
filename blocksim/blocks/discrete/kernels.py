"""Compiled kernels of the discrete-time blocks.

Every discrete block's ``kernels()`` returns the numba kernels of the compiled back-end
(:mod:`blocksim.engine.compiled.kernels`): the module-level ``sample_output``, ``delay_*``,
``dintegrator_*``, ``dpid_*`` and ``dderivative_*`` functions below, and the linear-system and
derivative kernels of :mod:`blocksim.blocks.continuous.kernels` (``update`` being their
``A x + B u``). The interpreted :class:`~blocksim.blocks.discrete.pid.DiscretePID` calls the
kernels' own pure-Python functions (``dpid_output.py_func``, ``dpid_update.py_func``); the
other blocks keep their pure-Python paths, tested equal to the kernels.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba.extending import overload

from blocksim.blocks._shared import _clip
from blocksim.blocks.discrete.base import _as_signal

_njit = numba.njit(cache=True, error_model="numpy")


# ====================================================================== compiled kernels
# numba kernels for the compiled back-end (contract: blocksim.engine.compiled.kernels); the
# conventions are those of blocksim.blocks.continuous.kernels: scalar kernels return floats or
# tuples and never allocate, choices that change types or control flow select a kernel in the
# block's ``kernels()``, numbers travel in ``params`` (layouts in each ``kernels()`` docstring).
def _copy_signal(u: Any) -> Any:
    """A scalar signal as it is, an array signal copied (overloaded for numba below)."""
    return u if type(u) is float else _as_signal(u)


@overload(_copy_signal)
def _copy_signal_overload(u):  # no annotations: numba compares this signature with the lambdas'
    if isinstance(u, numba.types.Array):
        return lambda u: u.copy()
    return lambda u: u


# -- ZOH, RateTransition(delay=False); params ()
@_njit
def sample_output(t, x, u, p):
    """y = u (an array input copied); any signal type (numba compiles one version per type)."""
    return _copy_signal(u)


# -- delays: UnitDelay, RateTransition(delay=True); params () or (rows, cols) for a matrix
@_njit
def delay_output_scalar(t, x, u, p):
    """y = x (never reads u)."""
    return x[0]


@_njit
def delay_output_vector(t, x, u, p):
    """y = x, a copy (never reads u)."""
    return x.copy()


@_njit
def delay_output_matrix(t, x, u, p):
    """y = x, a copy reshaped to (rows, cols) = params (never reads u)."""
    return x.copy().reshape((p[0], p[1]))


@_njit
def delay_update_scalar(t, x, u, p):
    """x[k+1] = u[k]."""
    return (u,)


@_njit
def delay_update_array(t, x, u, p):
    """x[k+1] = u[k] flattened (a view of ``u`` when it is contiguous: the caller copies it)."""
    return u.ravel()


# -- DiscreteIntegrator: y = sat(x + a u), x' = sat(y + b u); params (a, b, lower, upper),
# floats for a scalar state, lower/upper float64 arrays of the signal shape otherwise. The
# saturation is exact with infinite limits and a = 0 (forward Euler) skips u, so one kernel
# pair serves every method and limit: these run once per hit, and a sweep never recompiles.
@_njit
def dintegrator_output_scalar(t, x, u, p):
    """y = sat(x + a u); y = x, never reading u, when a = 0 (the state is within the limits)."""
    a, _, lo, hi = p
    if a == 0.0:
        return x[0]
    return _clip(x[0] + a * u, lo, hi)


@_njit
def dintegrator_update_scalar(t, x, u, p):
    """x' = sat(sat(x + a u) + b u)."""
    a, b, lo, hi = p
    y = _clip(x[0] + a * u, lo, hi)
    return (_clip(y + b * u, lo, hi),)


@_njit
def dintegrator_output_array(t, x, u, p):
    """y = sat(x + a u) in the signal shape; y = sat(x), never reading u, when a = 0."""
    a = p[0]
    lo = p[2].ravel()
    hi = p[3].ravel()
    n = x.size
    y = np.empty(n)
    if a == 0.0:
        for i in range(n):
            y[i] = _clip(x[i], lo[i], hi[i])
    else:
        v = u.ravel()
        for i in range(n):
            y[i] = _clip(x[i] + a * v[i], lo[i], hi[i])
    return y.reshape(p[2].shape)


@_njit
def dintegrator_update_array(t, x, u, p):
    """x' = sat(sat(x + a u) + b u), flat."""
    a = p[0]
    b = p[1]
    lo = p[2].ravel()
    hi = p[3].ravel()
    v = u.ravel()
    n = x.size
    xn = np.empty(n)
    for i in range(n):
        y = _clip(x[i] + a * v[i], lo[i], hi[i])
        xn[i] = _clip(y + b * v[i], lo[i], hi[i])
    return xn


# -- DiscretePID; params (Kp, Ki, Kd, h = T + 1/N, T, lower, upper, filtered). The
# interpreted DiscretePID calls the pure-Python functions (``.py_func``) with x as a list.
@_njit
def dpid_output(t, x, e, p):
    """y = sat(Kp e + Ki x_i + Kd (e - z) / h)."""
    Kp, Ki, Kd, h, _, lower, upper, _ = p
    v = Kp * e + Ki * x[0] + Kd * ((e - x[1]) / h)
    if v > upper:
        return upper
    if v < lower:
        return lower
    return v


@_njit
def dpid_update(t, x, e, p):
    """(x_i + T e unless clamped, z + T d with a filter or e without)."""
    Kp, Ki, Kd, h, T, lower, upper, filtered = p
    xi = x[0]
    z = x[1]
    d = (e - z) / h
    v = Kp * e + Ki * xi + Kd * d
    z_next = z + T * d if filtered else float(e)
    if (v > upper and Ki * e > 0.0) or (v < lower and Ki * e < 0.0):
        return (xi, z_next)
    return (xi + T * e, z_next)


_dpid_output_py = dpid_output.py_func
_dpid_update_py = dpid_update.py_func


# -- DiscreteDerivative: output derivative_output_scalar / derivative_array (continuous
# kernels); params (g = K / h, r = T / h)
@_njit
def dderivative_update_scalar(t, x, u, p):
    """z' = z + r (u - z)."""
    z = x[0]
    return (z + p[1] * (u - z),)


@_njit
def dderivative_update_array(t, x, u, p):
    """z' = z + r (u - z), element-wise."""
    r = p[1]
    n = x.size
    zn = np.empty(n)
    for i in range(n):
        zn[i] = x[i] + r * (u[i] - x[i])
    return zn
