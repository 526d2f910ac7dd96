"""Numba kernels of the continuous blocks (compiled back-end) and the pure functions that the
interpreted blocks share with them. Argument order ``(t, x, u..., params)``; see
:mod:`blocksim.engine.compiled.kernels`. The PID kernels are in
:mod:`blocksim.blocks.continuous.pid`.

Scalar kernels return floats / tuples of floats and index ``x[0], x[1]`` directly, so they
never allocate; array kernels allocate their result only. Choices that change types or control
flow (scalar vs array, limited or not) select a kernel in the block's ``kernels()``; the linear
systems have one kernel pair per block kind for every order, unrolled over the order that numba
reads from the params' type (see the section below). Numbers are ``params``, so a parameter
sweep reuses the code. ``params`` layouts are documented in each block's ``kernels()``.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
from numba import types
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import overload

from blocksim.blocks._shared import _clip, _compiled_only

_njit = numba.njit(cache=True, error_model="numpy")


def _carray(a: Any) -> np.ndarray:
    """A fresh C-contiguous float64 copy of ``a`` (a kernel parameter)."""
    return np.array(a, dtype=np.float64, order="C", copy=True)


# -- Integrator
@_njit
def integrator_output_scalar(t, x, u, p):
    """y = x; params ()."""
    return x[0]


@_njit
def integrator_deriv_scalar(t, x, u, p):
    """dx = u; params ()."""
    return (u,)


@_njit
def integrator_output_scalar_limited(t, x, u, p):
    """y = clip(x, lower, upper); params (lower, upper)."""
    lo, hi = p
    return _clip(x[0], lo, hi)


@_njit
def integrator_deriv_scalar_limited(t, x, u, p):
    """dx = u, or 0 at a limit that u pushes beyond; params (lower, upper)."""
    lo, hi = p
    xi = x[0]
    if (u > 0.0 and xi >= hi) or (u < 0.0 and xi <= lo):
        return (0.0,)
    return (u,)


@_njit
def integrator_output_array(t, x, u, p):
    """y = clip(x, lower, upper) in the signal shape; params (lower, upper) arrays of the signal
    shape (+-inf without limits)."""
    lo = p[0].ravel()
    hi = p[1].ravel()
    n = x.size
    y = np.empty(n)
    for i in range(n):
        y[i] = _clip(x[i], lo[i], hi[i])
    return y.reshape(p[0].shape)


@_njit
def integrator_deriv_array(t, x, u, p):
    """dx = u flattened (a view of ``u`` when it is contiguous: the caller copies it)."""
    return u.ravel()


@_njit
def integrator_deriv_array_limited(t, x, u, p):
    """dx = u, 0 where a limit is reached and u pushes beyond; params (lower, upper) arrays."""
    lo = p[0].ravel()
    hi = p[1].ravel()
    v = u.ravel()
    n = v.size
    dx = np.empty(n)
    for i in range(n):
        vi = v[i]
        xi = x[i]
        if (vi > 0.0 and xi >= hi[i]) or (vi < 0.0 and xi <= lo[i]):
            dx[i] = 0.0
        else:
            dx[i] = vi
    return dx


# -- linear systems x' = A x + B u (or x[k+1] = ...), y = C x + D u
#
# One kernel pair per block kind, for every order: ``tf_output``/``tf_state`` for a
# TransferFunction (controller canonical form: companion A, B = e_0) and ``ss_output``/
# ``ss_state`` for a StateSpace; the discrete blocks use the same kernels (``update`` being
# ``A x + B u``). The order comes from the params' numba *type*:
#
# * few coefficients (at most MAX_FLOAT_PARAMS floats, single input and output): the params are
#   floats, so numba types them as a UniTuple whose length gives the order n at compile time;
#   the overloads below unroll over it and return a tuple built with ``tuple_setitem``, which
#   allocates nothing. TransferFunction ``(d, c_0 .. c_{n-1}, a_0 .. a_{n-1})`` (a: first row
#   of A; n = 0 is a static gain ``(d,)``), StateSpace ``(d, c_0 .. c_{n-1}, A row-major ..,
#   b_0 .. b_{n-1})``.
# * larger systems: float64 arrays, loops, and array results. TransferFunction ``(d, c, a)``,
#   StateSpace ``(A, B, C, D)`` with B (n, m), D (q, m) and C a row (n,) when the output is a
#   float (q = 1), (q, n) otherwise; a float input u means m = 1.
#
# Sums run in index order, ``c . x`` then ``+ d u`` (as the interpreted pure-Python paths). A term
# of D that is zero is skipped, so a strictly proper system's output never reads u (the engine
# may call it before u is known).

#: largest number of float coefficients passed as floats (unrolled kernels, tuple results)
MAX_FLOAT_PARAMS = 32


def _floats(p: Any) -> bool:
    """Typing helper: ``p`` is a tuple of floats only (the unrolled layouts)."""
    return isinstance(p, types.BaseTuple) and all(isinstance(ty, types.Float) for ty in p.types)


def _tf_y(x: Any, u: Any, p: Any) -> Any:
    """y = c . x + d u of a TransferFunction (compiled only)."""
    return _compiled_only()


@overload(_tf_y, inline="always")
def _tf_y_compiled(x, u, p):  # type: ignore[no-untyped-def]
    if _floats(p):
        n = (len(p.types) - 1) // 2

        def unrolled(x, u, p):  # type: ignore[no-untyped-def]
            y = 0.0
            for j in range(n):
                y += p[1 + j] * x[j]
            if p[0] != 0.0:
                y = y + p[0] * u
            return y
        return unrolled

    def loops(x, u, p):  # type: ignore[no-untyped-def]
        d = p[0]
        c = p[1]
        y = 0.0
        for j in range(c.size):
            y += c[j] * x[j]
        if d != 0.0:
            y = y + d * u
        return y
    return loops


def _tf_dx(x: Any, u: Any, p: Any) -> Any:
    """A x + e_0 u for a companion A with first row a (compiled only)."""
    return _compiled_only()


@overload(_tf_dx, inline="always")
def _tf_dx_compiled(x, u, p):  # type: ignore[no-untyped-def]
    if _floats(p):
        n = (len(p.types) - 1) // 2
        lo, hi = 1 + n, 1 + 2 * n

        def unrolled(x, u, p):  # type: ignore[no-untyped-def]
            s = 0.0
            for j in range(n):
                s += p[lo + j] * x[j]
            dx = p[lo:hi]  # a UniTuple of n floats, overwritten
            dx = tuple_setitem(dx, 0, s + u)
            for i in range(1, n):
                dx = tuple_setitem(dx, i, x[i - 1])
            return dx
        return unrolled

    def loops(x, u, p):  # type: ignore[no-untyped-def]
        a = p[2]
        n = a.size
        dx = np.empty(n)
        s = 0.0
        for j in range(n):
            s += a[j] * x[j]
        dx[0] = s + u
        for i in range(1, n):
            dx[i] = x[i - 1]
        return dx
    return loops


def _times_u(M: Any, i: int, u: Any) -> float:
    """Row i of M times u (a float: m = 1, or an array), skipping zero terms (compiled only)."""
    return _compiled_only()


@overload(_times_u, inline="always")
def _times_u_compiled(M, i, u):  # type: ignore[no-untyped-def]
    if isinstance(u, types.Float):
        return lambda M, i, u: M[i, 0] * u if M[i, 0] != 0.0 else 0.0

    def row(M, i, u):  # type: ignore[no-untyped-def]
        r = 0.0
        for k in range(M.shape[1]):
            if M[i, k] != 0.0:
                r += M[i, k] * u[k]
        return r
    return row


def _ss_y(x: Any, u: Any, p: Any) -> Any:
    """y = C x + D u of a StateSpace (compiled only)."""
    return _compiled_only()


@overload(_ss_y, inline="always")
def _ss_y_compiled(x, u, p):  # type: ignore[no-untyped-def]
    if _floats(p):
        n = math.isqrt(len(p.types)) - 1

        def unrolled(x, u, p):  # type: ignore[no-untyped-def]
            y = 0.0
            for j in range(n):
                y += p[1 + j] * x[j]
            if p[0] != 0.0:
                y = y + p[0] * u
            return y
        return unrolled
    if p.types[2].ndim == 1:  # one output: a float

        def row(x, u, p):  # type: ignore[no-untyped-def]
            c = p[2]
            y = 0.0
            for j in range(c.size):
                y += c[j] * x[j]
            return y + _times_u(p[3], 0, u)
        return row

    def rows(x, u, p):  # type: ignore[no-untyped-def]
        C = p[2]
        D = p[3]
        q, n = C.shape
        y = np.empty(q)
        for i in range(q):
            s = 0.0
            for j in range(n):
                s += C[i, j] * x[j]
            y[i] = s + _times_u(D, i, u)
        return y
    return rows


def _ss_dx(x: Any, u: Any, p: Any) -> Any:
    """A x + B u of a StateSpace (compiled only)."""
    return _compiled_only()


@overload(_ss_dx, inline="always")
def _ss_dx_compiled(x, u, p):  # type: ignore[no-untyped-def]
    if _floats(p):
        n = math.isqrt(len(p.types)) - 1
        a0, b0 = 1 + n, 1 + n + n * n  # constants: the slice below must be static

        def unrolled(x, u, p):  # type: ignore[no-untyped-def]
            dx = p[1:a0]  # a UniTuple of n floats, overwritten
            for i in range(n):
                s = 0.0
                for j in range(n):
                    s += p[a0 + i * n + j] * x[j]
                dx = tuple_setitem(dx, i, s + p[b0 + i] * u)
            return dx
        return unrolled

    def loops(x, u, p):  # type: ignore[no-untyped-def]
        A = p[0]
        B = p[1]
        n = A.shape[0]
        dx = np.empty(n)
        for i in range(n):
            s = 0.0
            for j in range(n):
                s += A[i, j] * x[j]
            dx[i] = s + _times_u(B, i, u)
        return dx
    return loops


@_njit
def tf_output(t, x, u, p):
    """TransferFunction y = c . x + d u (u read only when d != 0); params above."""
    return _tf_y(x, u, p)


@_njit
def tf_state(t, x, u, p):
    """TransferFunction A x + e_0 u: the derivative, or the next state of the discrete block."""
    return _tf_dx(x, u, p)


@_njit
def ss_output(t, x, u, p):
    """StateSpace y = C x + D u (zero terms of D skipped); params above."""
    return _ss_y(x, u, p)


@_njit
def ss_state(t, x, u, p):
    """StateSpace A x + B u: the derivative, or the next state of the discrete block."""
    return _ss_dx(x, u, p)


LtiKernels = tuple[tuple[Any, ...], Any, Any]


def _is_companion(A: np.ndarray, b: np.ndarray) -> bool:
    """True for a controller canonical (companion) pair: subdiagonal ones below row 0, B = e0."""
    n = A.shape[0]
    return n == 0 or bool(np.array_equal(A[1:], np.eye(n, k=-1)[1:])
                          and np.array_equal(b, np.eye(n)[:, 0]))


def tf_kernels(A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray) -> LtiKernels:
    """``(params, output kernel, state kernel)`` of a transfer function's realisation.

    Parameters
    ----------
    A, B, C, D : ndarray
        The controller canonical form of :func:`scipy.signal.tf2ss`: A (n, n) companion
        (first row a, ones below the diagonal), B = e_0 (n, 1), C (1, n), D (1, 1).

    Returns
    -------
    tuple
        The params (layouts above), ``tf_output`` and ``tf_state`` (None for n = 0).
    """
    n = A.shape[0]
    if B.shape != (n, 1) or C.shape != (1, n) or D.shape != (1, 1) or not _is_companion(A, B[:, 0]):
        raise ValueError("tf_kernels: not a single-input single-output controller canonical form")
    d = float(D[0, 0])
    if 1 + 2 * n <= MAX_FLOAT_PARAMS:
        params: tuple[Any, ...] = (d, *C[0].tolist(), *(A[0].tolist() if n else ()))
    else:
        params = (d, _carray(C[0]), _carray(A[0]))
    return params, tf_output, (tf_state if n else None)


def ss_kernels(A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray) -> LtiKernels:
    """``(params, output kernel, state kernel)`` of x' (or x[k+1]) = A x + B u, y = C x + D u.

    Parameters
    ----------
    A, B, C, D : ndarray
        2-D matrices of shapes (n, n), (n, m), (q, n), (q, m), n >= 1.

    Returns
    -------
    tuple
        The params (layouts above), ``ss_output`` and ``ss_state``.
    """
    n, m = B.shape
    q = C.shape[0]
    if m == 1 and q == 1 and (n + 1) ** 2 <= MAX_FLOAT_PARAMS:
        params: tuple[Any, ...] = (float(D[0, 0]), *C[0].tolist(), *A.ravel().tolist(),
                                   *B[:, 0].tolist())
    else:
        params = (_carray(A), _carray(B), _carray(C[0] if q == 1 else C), _carray(D))
    return params, ss_output, ss_state


# -- Derivative (and DiscreteDerivative's output): y = g (u - z) with g = params[0]
@_njit
def derivative_output_scalar(t, x, u, p):
    """y = g (u - z); params (g, ...)."""
    return p[0] * (u - x[0])


@_njit
def derivative_deriv_scalar(t, x, u, p):
    """dz = N (u - z); params (N,)."""
    return (p[0] * (u - x[0]),)


@_njit
def derivative_array(t, x, u, p):
    """g (u - z) element-wise, 1-D: the vector output and derivative; params (g, ...)."""
    g = p[0]
    n = x.size
    y = np.empty(n)
    for i in range(n):
        y[i] = g * (u[i] - x[i])
    return y
