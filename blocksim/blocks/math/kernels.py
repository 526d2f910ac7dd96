"""Compiled kernels of the arithmetic blocks (:mod:`blocksim.blocks.math.arithmetic`): gains, sums,
element-wise and matrix products, with loop-based matrix products and inverses.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
from numba import types
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import overload, register_jitable

from blocksim.blocks._shared import _array, _compiled_only, _scalar, unrolled


# ---------------------------------------------------------------------------- kernels
# The compiled numerics (contract: blocksim.engine.compiled.kernels): the same operations in
# the same order as the interpreted ``output``. The kernels of blocks with several inputs are
# variadic (``*args``); each input may be a float or an array (numba compiles one version per
# combination of argument types).
@numba.njit(cache=True, error_model="numpy")
def gain_kernel(t, x, u, p):
    return p[0] * u


@numba.njit(cache=True, error_model="numpy")
def _matmul(a, b):
    """``a @ b`` for vectors and matrices (numpy's rules for 1-D and 2-D operands).

    Loops rather than numba's ``@``: numba's calls BLAS and takes ~1 s to compile per
    signature (``inv`` ~2 s, ``solve`` ~10 s), while for the small matrices of block diagrams
    loops run as fast. The sums run in index order; numpy's BLAS may round differently.
    """
    n = a.shape[a.ndim - 1]
    if b.shape[0] != n:
        raise ValueError("matrix product: the operands' shapes do not match")
    if a.ndim == 1:
        if b.ndim == 1:
            s = 0.0
            for k in range(n):
                s += a[k] * b[k]
            return s
        y = np.zeros(b.shape[1])
        for k in range(n):
            for j in range(b.shape[1]):
                y[j] += a[k] * b[k, j]
        return y
    if b.ndim == 1:
        y = np.zeros(a.shape[0])
        for i in range(a.shape[0]):
            s = 0.0
            for k in range(n):
                s += a[i, k] * b[k]
            y[i] = s
        return y
    y = np.zeros((a.shape[0], b.shape[1]))
    for i in range(a.shape[0]):
        for k in range(n):
            for j in range(b.shape[1]):
                y[i, j] += a[i, k] * b[k, j]
    return y


@numba.njit(cache=True, error_model="numpy")
def _inv(a):
    """The inverse of the square matrix ``a``: Gauss-Jordan elimination with partial pivoting
    (numpy's LAPACK inverse to rounding); LinAlgError when ``a`` is singular."""
    n = a.shape[0]
    if a.ndim != 2 or a.shape[1] != n:
        raise np.linalg.LinAlgError("matrix division: the divisor must be a square matrix")
    m = a.copy()
    y = np.eye(n)
    for c in range(n):
        p = c
        big = abs(m[c, c])
        for r in range(c + 1, n):
            if abs(m[r, c]) > big:
                p = r
                big = abs(m[r, c])
        if not big > 0.0:
            raise np.linalg.LinAlgError("matrix division: singular matrix")
        if p != c:
            for j in range(n):
                m[c, j], m[p, j] = m[p, j], m[c, j]
                y[c, j], y[p, j] = y[p, j], y[c, j]
        d = m[c, c]
        for j in range(n):
            m[c, j] /= d
            y[c, j] /= d
        for r in range(n):
            f = m[r, c]
            if r != c and f != 0.0:
                for j in range(n):
                    m[r, j] -= f * m[c, j]
                    y[r, j] -= f * y[c, j]
    return y


@numba.njit(cache=True, error_model="numpy")
def gain_matrix_kernel(t, x, u, p):
    if isinstance(u, float):
        return p[0] * u
    return _matmul(p[0], u)


@numba.njit(cache=True, error_model="numpy")
def gain_matrix_right_kernel(t, x, u, p):
    if isinstance(u, float):
        return p[0] * u
    return _matmul(u, p[0])


@numba.njit(cache=True, error_model="numpy")
def _matrix_first(v, op):
    """The first operand of a matrix product: ``v``, or its (matrix) inverse for ``'/'``."""
    if isinstance(op, float):  # '*'
        return v
    if isinstance(v, float):
        return 1.0 / v
    return _inv(v)


@numba.njit(cache=True, error_model="numpy")
def _matrix_times(y, v, op):
    """``y @ v`` (``'*'``, op a float) or ``y @ inv(v)`` (``'/'``, op an int); element-wise
    with a scalar operand."""
    if isinstance(op, float):  # '*'
        if isinstance(y, float) or isinstance(v, float):
            return y * v
        return _matmul(y, v)
    if isinstance(v, float):
        return y / v
    if isinstance(y, float):
        return y * _inv(v)
    # the interpreted block solves a linear system instead: equal to rounding
    return _matmul(y, _inv(v))


# -- Sum and element-wise Product: one variadic kernel each, args = (u0, ..., u_{n-1}, params)
# with params one int operator code per input. The operators apply from left to right as in the
# interpreted blocks; only the operators' codes are run-time values, so one compiled version
# serves every sign/operator pattern of one arity and input types.
ADD, SUB, MUL, DIV = 0, 1, 2, 3


@register_jitable
def _ieee_div(a: float, b: float) -> float:
    """``a / b`` with IEEE semantics (numpy's for arrays): +-inf or NaN for ``b == 0``."""
    if b == 0.0:
        if a != a or a == 0.0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


@register_jitable
def _unary(v: float, op: int) -> float:
    """The first operand: ``v``, ``-v`` (SUB) or ``1 / v`` (DIV; ZeroDivisionError for 0.0, as
    Python's float division in the interpreted block)."""
    if op == SUB:
        return -v
    if op == DIV:
        return 1.0 / v
    return v


@register_jitable
def _binary(y: float, v: float, op: int) -> float:
    """``y + v``, ``y - v``, ``y * v`` or ``y / v`` (ZeroDivisionError for 0.0)."""
    if op == ADD:
        return y + v
    if op == SUB:
        return y - v
    if op == MUL:
        return y * v
    return y / v


@register_jitable
def _unary_ieee(v: float, op: int) -> float:
    """:func:`_unary` of an array element (numpy's division: inf or NaN)."""
    if op == SUB:
        return -v
    if op == DIV:
        return _ieee_div(1.0, v)
    return v


@register_jitable
def _binary_ieee(y: float, v: float, op: int) -> float:
    """:func:`_binary` of array elements (numpy's division: inf or NaN)."""
    if op == ADD:
        return y + v
    if op == SUB:
        return y - v
    if op == MUL:
        return y * v
    return _ieee_div(y, v)


def _shape_of(values: tuple[Any, ...]) -> tuple[int, ...]:
    """The broadcast shape of floats and arrays (numpy's rules; ValueError when they do not
    broadcast)."""
    return _compiled_only()


@overload(_shape_of)
def _shape_of_compiled(values):  # type: ignore[no-untyped-def]
    arrays = [i for i, ty in enumerate(values) if isinstance(ty, types.Array)]
    widest = max(arrays, key=lambda i: values[i].ndim)
    if len(arrays) == 1:
        return lambda values: values[widest].shape
    return lambda values: _merge_shapes(values[widest].shape, values)


def _merge_shapes(shape: tuple[int, ...], values: tuple[Any, ...]) -> tuple[int, ...]:
    """``shape`` broadcast with the shape of each array of ``values``."""
    return _compiled_only()


@overload(_merge_shapes)
def _merge_shapes_compiled(shape, values):  # type: ignore[no-untyped-def]
    lines = [f"shape = _merge_shape(shape, values[{i}].shape)" for i, ty in enumerate(values)
             if isinstance(ty, types.Array)]
    return unrolled("merge_shapes", "shape, values", [*lines, "return shape"],
                    {"_merge_shape": _merge_shape})


@register_jitable
def _merge_shape(shape: Any, other: Any) -> Any:
    """``shape`` (at least as many dimensions as ``other``) broadcast with ``other``."""
    off = len(shape) - len(other)
    out = shape
    for k in range(len(other)):
        a = shape[off + k]
        b = other[k]
        if a == 1:
            out = tuple_setitem(out, off + k, b)
        elif b != 1 and b != a:
            raise ValueError("operands could not be broadcast together")
    return out


@register_jitable
def _source_index(shape: Any, src: Any) -> np.ndarray:
    """For each element of an array of ``shape`` (C order), the flat index of the element of
    an array of shape ``src`` that broadcasts onto it."""
    n = 1
    for d in shape:
        n *= d
    off = len(shape) - len(src)
    index = np.zeros(n, dtype=np.int64)
    for i in range(n):
        rest = i
        j = 0
        stride = 1
        for k in range(len(shape) - 1, off - 1, -1):
            d = shape[k]
            pos = rest % d
            rest //= d
            m = src[k - off]
            if m != 1:
                j += pos * stride
            stride *= m
        index[i] = j
    return index


def _flat(a: np.ndarray) -> np.ndarray:
    """``a`` as a flat array: ``a`` itself when 1-D (no reshape: numba's calls a C helper,
    some 30 ns), else ``np.ravel(a)``."""
    return _compiled_only()


@overload(_flat)
def _flat_compiled(a):  # type: ignore[no-untyped-def]
    if isinstance(a, types.Array) and a.ndim == 1:
        return lambda a: a
    return lambda a: np.ravel(a)


@register_jitable
def _apply_first(flat: np.ndarray, shape: Any, v: Any, op: int) -> None:
    """``flat[i] = op(v[i])`` (the first operand), ``v`` broadcast to ``shape``. An operand of
    the result's shape (the usual case) is read in place: no index, no allocation."""
    if isinstance(v, float):
        s = _scalar(v)
        for i in range(flat.size):
            flat[i] = _unary_ieee(s, op)
        return
    a = _array(v)
    src = _flat(a)
    if a.shape == shape:
        for i in range(flat.size):
            flat[i] = _unary_ieee(src[i], op)
        return
    index = _source_index(shape, a.shape)
    for i in range(flat.size):
        flat[i] = _unary_ieee(src[index[i]], op)


@register_jitable
def _apply_next(flat: np.ndarray, shape: Any, v: Any, op: int) -> None:
    """``flat[i] = flat[i] op v[i]``, ``v`` broadcast to ``shape`` (read in place when it has
    the result's shape)."""
    if isinstance(v, float):
        s = _scalar(v)
        for i in range(flat.size):
            flat[i] = _binary_ieee(flat[i], s, op)
        return
    a = _array(v)
    src = _flat(a)
    if a.shape == shape:
        for i in range(flat.size):
            flat[i] = _binary_ieee(flat[i], src[i], op)
        return
    index = _source_index(shape, a.shape)
    for i in range(flat.size):
        flat[i] = _binary_ieee(flat[i], src[index[i]], op)


def _apply_rest(flat: np.ndarray, shape: Any, values: tuple[Any, ...], ops: Any) -> None:
    """:func:`_apply_next` for each of ``values`` in order (a float or an array each)."""
    return _compiled_only()


@overload(_apply_rest)
def _apply_rest_compiled(flat, shape, values, ops):  # type: ignore[no-untyped-def]
    if len(values) == 0:
        return lambda flat, shape, values, ops: None
    if isinstance(values, types.UniTuple):
        def same(flat, shape, values, ops):  # type: ignore[no-untyped-def]
            for k in range(len(values)):
                _apply_next(flat, shape, values[k], ops[k])

        return same

    return unrolled("apply_rest", "flat, shape, values, ops",
                    [f"_apply_next(flat, shape, values[{i}], ops[{i}])"
                     for i in range(len(values))], {"_apply_next": _apply_next})


def _fold(values: tuple[Any, ...], ops: tuple[int, ...]) -> Any:
    """``op_0(u0) op_1 u1 op_2 u2 ...`` from left to right, element-wise: a float for floats,
    else a new float64 array of the inputs' broadcast shape (loops, no numpy ufuncs)."""
    return _compiled_only()


@overload(_fold)
def _fold_compiled(values, ops):  # type: ignore[no-untyped-def]
    if all(isinstance(ty, types.Float) for ty in values):
        def floats(values, ops):  # type: ignore[no-untyped-def]
            y = _unary(values[0], ops[0])
            for k in range(1, len(values)):
                y = _binary(y, values[k], ops[k])
            return y

        return floats

    def arrays(values, ops):  # type: ignore[no-untyped-def]
        shape = _shape_of(values)
        y = np.empty(shape)
        flat = _flat(y)
        _apply_first(flat, shape, values[0], ops[0])
        _apply_rest(flat, shape, values[1:], ops[1:])
        return y

    return arrays


@numba.njit(cache=True, error_model="numpy")
def sum_kernel(t, x, *args):
    """:class:`Sum`: ``args = (u0, ..., u_{n-1}, params)``, params one code per input, ADD or
    SUB. ``(+-)u0 +- u1 +- ...`` left to right, bitwise the interpreted sum."""
    return _fold(args[:-1], args[-1])


@numba.njit(cache=True, error_model="numpy")
def product_kernel(t, x, *args):
    """Element-wise :class:`Product`: ``args = (u0, ..., u_{n-1}, params)``, params one code per
    input, MUL or DIV. Division by zero gives inf or NaN as numpy's (the kernels use numpy's
    error model; the loop reports the non-finite signal naming the block)."""
    return _fold(args[:-1], args[-1])


# -- matrix Product: the operand types change along the chain (matrix @ vector is a vector),
# so the chain unrolls over the inputs at compile time
def _matrix_chain(y: Any, values: tuple[Any, ...], ops: tuple[Any, ...]) -> Any:
    """``y`` times (or divided by) each of ``values`` in turn, by :func:`_matrix_times`."""
    return _compiled_only()


@overload(_matrix_chain)
def _matrix_chain_compiled(y, values, ops):  # type: ignore[no-untyped-def]
    # one name per product: the type changes along the chain
    lines = [f"y{i + 1} = _matrix_times(y{i}, values[{i}], ops[{i}])" for i in range(len(values))]
    return unrolled("matrix_chain", "y, values, ops", ["y0 = y", *lines, f"return y{len(values)}"],
                    {"_matrix_times": _matrix_times})


@numba.njit(cache=True, error_model="numpy")
def matrix_product_kernel(t, x, *args):
    """Matrix :class:`Product`: ``args = (u0, ..., u_{n-1}, params)``, params one per input,
    ``1.0`` (a float) for ``'*'`` and ``-1`` (an int) for ``'/'``: the operator is told by the
    parameter's *type*, so numba compiles only the operation valid for each operand's shape."""
    params = args[-1]
    return _matrix_chain(_matrix_first(args[0], params[0]), args[1:-1], params[1:])
