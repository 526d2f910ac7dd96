"""Numba kernels of the continuous blocks (compiled back-end) and the pure functions that the
interpreted blocks share with them. Argument order ``(t, x, u..., params)``; see
:mod:`blocksim.engine.compiled.kernels`. The PID kernels are in
:mod:`blocksim.blocks.continuous.pid`.

Scalar kernels return floats / tuples of floats and index ``x[0], x[1]`` directly, so they
never allocate; array kernels allocate their result only. Choices that change types or control
flow (scalar vs array, limited or not, companion vs dense, order) select a kernel in the block's
``kernels()``; numbers are ``params``, so a parameter sweep reuses the code. ``params`` layouts
are documented in each block's ``kernels()``.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from blocksim.blocks._shared import _clip

#: largest order with unrolled pure-Python kernels
MAX_FAST_ORDER = 4

_njit = numba.njit(cache=True)


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
# SISO, n <= MAX_FAST_ORDER: params = (d, c_0 .. c_{n-1}, <state coefficients>) all floats,
# the state coefficients being the first row a_0 .. a_{n-1} of a companion A (B = e_0) or the
# rows of a dense A followed by b_0 .. b_{n-1}. SISO, larger n: (d, c, a) or (d, c, A, b) with
# arrays. Static gain (n = 0): (d,). Multi-input or multi-output: (A, B, C, D) 2-D arrays.
@_njit
def lti_output_zero(t, x, u, p):
    """y = 0 (a zero static gain; never reads u)."""
    return 0.0


@_njit
def lti_output_gain(t, x, u, p):
    """y = d u; params (d,)."""
    return p[0] * u


@_njit
def lti_output_strict_1(t, x, u, p):
    return p[1] * x[0]


@_njit
def lti_output_strict_2(t, x, u, p):
    return p[1] * x[0] + p[2] * x[1]


@_njit
def lti_output_strict_3(t, x, u, p):
    return p[1] * x[0] + p[2] * x[1] + p[3] * x[2]


@_njit
def lti_output_strict_4(t, x, u, p):
    return p[1] * x[0] + p[2] * x[1] + p[3] * x[2] + p[4] * x[3]


@_njit
def lti_output_ft_1(t, x, u, p):
    return p[1] * x[0] + p[0] * u


@_njit
def lti_output_ft_2(t, x, u, p):
    return p[1] * x[0] + p[2] * x[1] + p[0] * u


@_njit
def lti_output_ft_3(t, x, u, p):
    return p[1] * x[0] + p[2] * x[1] + p[3] * x[2] + p[0] * u


@_njit
def lti_output_ft_4(t, x, u, p):
    return p[1] * x[0] + p[2] * x[1] + p[3] * x[2] + p[4] * x[3] + p[0] * u


@_njit
def lti_output_strict_n(t, x, u, p):
    """y = c . x; params (d, c, ...) with c an array."""
    c = p[1]
    y = 0.0
    for j in range(c.size):
        y += c[j] * x[j]
    return y


@_njit
def lti_output_ft_n(t, x, u, p):
    """y = c . x + d u; params (d, c, ...) with c an array."""
    c = p[1]
    y = 0.0
    for j in range(c.size):
        y += c[j] * x[j]
    return y + p[0] * u


@_njit
def lti_state_companion_2(t, x, u, p):
    _, _, _, a0, a1 = p
    x0 = x[0]
    return (a0 * x0 + a1 * x[1] + u, x0)


@_njit
def lti_state_companion_3(t, x, u, p):
    _, _, _, _, a0, a1, a2 = p
    x0 = x[0]
    x1 = x[1]
    return (a0 * x0 + a1 * x1 + a2 * x[2] + u, x0, x1)


@_njit
def lti_state_companion_4(t, x, u, p):
    _, _, _, _, _, a0, a1, a2, a3 = p
    x0 = x[0]
    x1 = x[1]
    x2 = x[2]
    return (a0 * x0 + a1 * x1 + a2 * x2 + a3 * x[3] + u, x0, x1, x2)


@_njit
def lti_state_dense_1(t, x, u, p):
    _, _, a00, b0 = p
    return (a00 * x[0] + b0 * u,)


@_njit
def lti_state_dense_2(t, x, u, p):
    _, _, _, a00, a01, a10, a11, b0, b1 = p
    x0 = x[0]
    x1 = x[1]
    return (a00 * x0 + a01 * x1 + b0 * u, a10 * x0 + a11 * x1 + b1 * u)


@_njit
def lti_state_dense_3(t, x, u, p):
    (_, _, _, _, a00, a01, a02, a10, a11, a12, a20, a21, a22, b0, b1, b2) = p
    x0 = x[0]
    x1 = x[1]
    x2 = x[2]
    return (a00 * x0 + a01 * x1 + a02 * x2 + b0 * u,
            a10 * x0 + a11 * x1 + a12 * x2 + b1 * u,
            a20 * x0 + a21 * x1 + a22 * x2 + b2 * u)


@_njit
def lti_state_dense_4(t, x, u, p):
    (_, _, _, _, _, a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23,
     a30, a31, a32, a33, b0, b1, b2, b3) = p
    x0 = x[0]
    x1 = x[1]
    x2 = x[2]
    x3 = x[3]
    return (a00 * x0 + a01 * x1 + a02 * x2 + a03 * x3 + b0 * u,
            a10 * x0 + a11 * x1 + a12 * x2 + a13 * x3 + b1 * u,
            a20 * x0 + a21 * x1 + a22 * x2 + a23 * x3 + b2 * u,
            a30 * x0 + a31 * x1 + a32 * x2 + a33 * x3 + b3 * u)


@_njit
def lti_state_companion_n(t, x, u, p):
    """A x + e_0 u for a companion A with first row a; params (d, c, a) arrays."""
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


@_njit
def lti_state_dense_n(t, x, u, p):
    """A x + b u; params (d, c, A, b) arrays."""
    A = p[2]
    b = p[3]
    n = b.size
    dx = np.empty(n)
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += A[i, j] * x[j]
        dx[i] = s + b[i] * u
    return dx


@_njit
def lti_state_si(t, x, u, p):
    """A x + B u, scalar u (m = 1); params (A, B, C, D)."""
    A = p[0]
    B = p[1]
    n = A.shape[0]
    dx = np.empty(n)
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += A[i, j] * x[j]
        dx[i] = s + B[i, 0] * u
    return dx


@_njit
def lti_state_mi(t, x, u, p):
    """A x + B u, vector u (m > 1); params (A, B, C, D)."""
    A = p[0]
    B = p[1]
    n, m = B.shape
    dx = np.empty(n)
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += A[i, j] * x[j]
        r = 0.0
        for k in range(m):
            r += B[i, k] * u[k]
        dx[i] = s + r
    return dx


@_njit
def lti_output_so_strict(t, x, u, p):
    """y = C x, p = 1 (float); params (A, B, C, D)."""
    C = p[2]
    y = 0.0
    for j in range(C.shape[1]):
        y += C[0, j] * x[j]
    return y


@_njit
def lti_output_so_ft_si(t, x, u, p):
    """y = C x + D u, p = 1, m = 1; params (A, B, C, D)."""
    C = p[2]
    y = 0.0
    for j in range(C.shape[1]):
        y += C[0, j] * x[j]
    return y + p[3][0, 0] * u


@_njit
def lti_output_so_ft_mi(t, x, u, p):
    """y = C x + D u, p = 1, m > 1; params (A, B, C, D)."""
    C = p[2]
    D = p[3]
    y = 0.0
    for j in range(C.shape[1]):
        y += C[0, j] * x[j]
    r = 0.0
    for k in range(D.shape[1]):
        r += D[0, k] * u[k]
    return y + r


@_njit
def lti_output_mo_strict(t, x, u, p):
    """y = C x, p > 1 (array); params (A, B, C, D)."""
    C = p[2]
    q, n = C.shape
    y = np.empty(q)
    for i in range(q):
        s = 0.0
        for j in range(n):
            s += C[i, j] * x[j]
        y[i] = s
    return y


@_njit
def lti_output_mo_ft_si(t, x, u, p):
    """y = C x + D u, p > 1, m = 1; params (A, B, C, D)."""
    C = p[2]
    D = p[3]
    q, n = C.shape
    y = np.empty(q)
    for i in range(q):
        s = 0.0
        for j in range(n):
            s += C[i, j] * x[j]
        y[i] = s + D[i, 0] * u
    return y


@_njit
def lti_output_mo_ft_mi(t, x, u, p):
    """y = C x + D u, p > 1, m > 1; params (A, B, C, D)."""
    C = p[2]
    D = p[3]
    q, n = C.shape
    m = D.shape[1]
    y = np.empty(q)
    for i in range(q):
        s = 0.0
        for j in range(n):
            s += C[i, j] * x[j]
        r = 0.0
        for k in range(m):
            r += D[i, k] * u[k]
        y[i] = s + r
    return y


_LTI_OUTPUT_STRICT = (None, lti_output_strict_1, lti_output_strict_2, lti_output_strict_3,
                      lti_output_strict_4)
_LTI_OUTPUT_FT = (None, lti_output_ft_1, lti_output_ft_2, lti_output_ft_3, lti_output_ft_4)
_LTI_STATE_COMPANION = (None, None, lti_state_companion_2, lti_state_companion_3,
                        lti_state_companion_4)
_LTI_STATE_DENSE = (None, lti_state_dense_1, lti_state_dense_2, lti_state_dense_3,
                    lti_state_dense_4)


def _is_companion(A: np.ndarray, b: np.ndarray) -> bool:
    """True for a controller canonical (companion) pair: subdiagonal ones below row 0, B = e0."""
    n = A.shape[0]
    return bool(n > 1 and np.array_equal(A[1:], np.eye(n, k=-1)[1:])
                and np.array_equal(b, np.eye(n)[:, 0]))


def _lti_kernels(A: np.ndarray, B: np.ndarray, C: np.ndarray,
                 D: np.ndarray) -> tuple[tuple[Any, ...], Any, Any]:
    """``(params, output kernel, state kernel)`` of x' (or x[k+1]) = A x + B u, y = C x + D u.

    The state kernel returns ``A x + B u`` (the continuous ``deriv`` or the discrete
    ``update``); it is None for a static gain (n = 0). SISO systems of order <= 4 get unrolled
    kernels over float params, larger ones loops over arrays; a strictly proper system's output
    kernel never reads u. See the layouts above.
    """
    n, m = B.shape
    q = C.shape[0]
    has_d = bool(np.any(D != 0.0))
    if m == 1 and q == 1:
        d = float(D[0, 0])
        b = B[:, 0]
        if n == 0:
            return (d,), (lti_output_gain if has_d else lti_output_zero), None
        companion = _is_companion(A, b)
        if n <= MAX_FAST_ORDER:
            head = (d, *C[0].tolist())
            out = (_LTI_OUTPUT_FT if has_d else _LTI_OUTPUT_STRICT)[n]
            if companion:
                return (*head, *A[0].tolist()), out, _LTI_STATE_COMPANION[n]
            return (*head, *A.ravel().tolist(), *b.tolist()), out, _LTI_STATE_DENSE[n]
        out = lti_output_ft_n if has_d else lti_output_strict_n
        if companion:
            return (d, _carray(C[0]), _carray(A[0])), out, lti_state_companion_n
        return (d, _carray(C[0]), _carray(A), _carray(b)), out, lti_state_dense_n
    params = (_carray(A), _carray(B), _carray(C), _carray(D))
    state = lti_state_si if m == 1 else lti_state_mi
    if q == 1:
        out = (lti_output_so_strict if not has_d
               else lti_output_so_ft_si if m == 1 else lti_output_so_ft_mi)
    else:
        out = (lti_output_mo_strict if not has_d
               else lti_output_mo_ft_si if m == 1 else lti_output_mo_ft_mi)
    return params, out, state


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
