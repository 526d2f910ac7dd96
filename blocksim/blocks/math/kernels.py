"""Compiled kernels of the arithmetic blocks (:mod:`blocksim.blocks.math.arithmetic`): gains, sums,
element-wise and matrix products, with loop-based matrix products and inverses.
"""

from __future__ import annotations

import numba
import numpy as np


# ---------------------------------------------------------------------------- kernels
# The compiled numerics (contract: blocksim.engine.compiled.kernels): the same operations in
# the same order as the interpreted ``output``. Blocks with n inputs use the kernel of arity n;
# each input may be a float or an array (numba compiles one version per combination).
@numba.njit(cache=True)
def gain_kernel(t, x, u, p):
    return p[0] * u


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def gain_matrix_kernel(t, x, u, p):
    if isinstance(u, float):
        return p[0] * u
    return _matmul(p[0], u)


@numba.njit(cache=True)
def gain_matrix_right_kernel(t, x, u, p):
    if isinstance(u, float):
        return p[0] * u
    return _matmul(u, p[0])


@numba.njit(cache=True)
def _matrix_first(v, op):
    """The first operand of a matrix product: ``v``, or its (matrix) inverse for ``'/'``."""
    if isinstance(op, float):  # '*'
        return v
    if isinstance(v, float):
        return 1.0 / v
    return _inv(v)


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def sum1_kernel(t, x, u0, p):
    return p[0] * u0


@numba.njit(cache=True)
def sum2_kernel(t, x, u0, u1, p):
    return p[0] * u0 + p[1] * u1


@numba.njit(cache=True)
def sum3_kernel(t, x, u0, u1, u2, p):
    return p[0] * u0 + p[1] * u1 + p[2] * u2


@numba.njit(cache=True)
def sum4_kernel(t, x, u0, u1, u2, u3, p):
    return p[0] * u0 + p[1] * u1 + p[2] * u2 + p[3] * u3


@numba.njit(cache=True)
def sum5_kernel(t, x, u0, u1, u2, u3, u4, p):
    return p[0] * u0 + p[1] * u1 + p[2] * u2 + p[3] * u3 + p[4] * u4


@numba.njit(cache=True)
def sum6_kernel(t, x, u0, u1, u2, u3, u4, u5, p):
    return p[0] * u0 + p[1] * u1 + p[2] * u2 + p[3] * u3 + p[4] * u4 + p[5] * u5


@numba.njit(cache=True)
def sum7_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, p):
    return p[0] * u0 + p[1] * u1 + p[2] * u2 + p[3] * u3 + p[4] * u4 + p[5] * u5 + p[6] * u6


@numba.njit(cache=True)
def sum8_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, u7, p):
    return (p[0] * u0 + p[1] * u1 + p[2] * u2 + p[3] * u3
            + p[4] * u4 + p[5] * u5 + p[6] * u6 + p[7] * u7)


_SUM_KERNELS = (
    sum1_kernel, sum2_kernel, sum3_kernel, sum4_kernel, sum5_kernel, sum6_kernel, sum7_kernel,
    sum8_kernel,
)


@numba.njit(cache=True)
def product1_kernel(t, x, u0, p):
    return u0 if p[0] else 1.0 / u0


@numba.njit(cache=True)
def product2_kernel(t, x, u0, u1, p):
    y = u0 if p[0] else 1.0 / u0
    return y * u1 if p[1] else y / u1


@numba.njit(cache=True)
def product3_kernel(t, x, u0, u1, u2, p):
    y = u0 if p[0] else 1.0 / u0
    y = y * u1 if p[1] else y / u1
    return y * u2 if p[2] else y / u2


@numba.njit(cache=True)
def product4_kernel(t, x, u0, u1, u2, u3, p):
    y = u0 if p[0] else 1.0 / u0
    y = y * u1 if p[1] else y / u1
    y = y * u2 if p[2] else y / u2
    return y * u3 if p[3] else y / u3


@numba.njit(cache=True)
def product5_kernel(t, x, u0, u1, u2, u3, u4, p):
    y = u0 if p[0] else 1.0 / u0
    y = y * u1 if p[1] else y / u1
    y = y * u2 if p[2] else y / u2
    y = y * u3 if p[3] else y / u3
    return y * u4 if p[4] else y / u4


@numba.njit(cache=True)
def product6_kernel(t, x, u0, u1, u2, u3, u4, u5, p):
    y = u0 if p[0] else 1.0 / u0
    y = y * u1 if p[1] else y / u1
    y = y * u2 if p[2] else y / u2
    y = y * u3 if p[3] else y / u3
    y = y * u4 if p[4] else y / u4
    return y * u5 if p[5] else y / u5


@numba.njit(cache=True)
def product7_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, p):
    y = u0 if p[0] else 1.0 / u0
    y = y * u1 if p[1] else y / u1
    y = y * u2 if p[2] else y / u2
    y = y * u3 if p[3] else y / u3
    y = y * u4 if p[4] else y / u4
    y = y * u5 if p[5] else y / u5
    return y * u6 if p[6] else y / u6


@numba.njit(cache=True)
def product8_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, u7, p):
    y = u0 if p[0] else 1.0 / u0
    y = y * u1 if p[1] else y / u1
    y = y * u2 if p[2] else y / u2
    y = y * u3 if p[3] else y / u3
    y = y * u4 if p[4] else y / u4
    y = y * u5 if p[5] else y / u5
    y = y * u6 if p[6] else y / u6
    return y * u7 if p[7] else y / u7


@numba.njit(cache=True)
def matrix_product1_kernel(t, x, u0, p):
    return _matrix_first(u0, p[0])


@numba.njit(cache=True)
def matrix_product2_kernel(t, x, u0, u1, p):
    y = _matrix_first(u0, p[0])
    return _matrix_times(y, u1, p[1])


@numba.njit(cache=True)
def matrix_product3_kernel(t, x, u0, u1, u2, p):
    y = _matrix_first(u0, p[0])
    y = _matrix_times(y, u1, p[1])
    return _matrix_times(y, u2, p[2])


@numba.njit(cache=True)
def matrix_product4_kernel(t, x, u0, u1, u2, u3, p):
    y = _matrix_first(u0, p[0])
    y = _matrix_times(y, u1, p[1])
    y = _matrix_times(y, u2, p[2])
    return _matrix_times(y, u3, p[3])


@numba.njit(cache=True)
def matrix_product5_kernel(t, x, u0, u1, u2, u3, u4, p):
    y = _matrix_first(u0, p[0])
    y = _matrix_times(y, u1, p[1])
    y = _matrix_times(y, u2, p[2])
    y = _matrix_times(y, u3, p[3])
    return _matrix_times(y, u4, p[4])


@numba.njit(cache=True)
def matrix_product6_kernel(t, x, u0, u1, u2, u3, u4, u5, p):
    y = _matrix_first(u0, p[0])
    y = _matrix_times(y, u1, p[1])
    y = _matrix_times(y, u2, p[2])
    y = _matrix_times(y, u3, p[3])
    y = _matrix_times(y, u4, p[4])
    return _matrix_times(y, u5, p[5])


@numba.njit(cache=True)
def matrix_product7_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, p):
    y = _matrix_first(u0, p[0])
    y = _matrix_times(y, u1, p[1])
    y = _matrix_times(y, u2, p[2])
    y = _matrix_times(y, u3, p[3])
    y = _matrix_times(y, u4, p[4])
    y = _matrix_times(y, u5, p[5])
    return _matrix_times(y, u6, p[6])


@numba.njit(cache=True)
def matrix_product8_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, u7, p):
    y = _matrix_first(u0, p[0])
    y = _matrix_times(y, u1, p[1])
    y = _matrix_times(y, u2, p[2])
    y = _matrix_times(y, u3, p[3])
    y = _matrix_times(y, u4, p[4])
    y = _matrix_times(y, u5, p[5])
    y = _matrix_times(y, u6, p[6])
    return _matrix_times(y, u7, p[7])


_PRODUCT_KERNELS = (
    product1_kernel, product2_kernel, product3_kernel, product4_kernel, product5_kernel,
    product6_kernel, product7_kernel, product8_kernel,
)
_MATRIX_PRODUCT_KERNELS = (
    matrix_product1_kernel, matrix_product2_kernel, matrix_product3_kernel, matrix_product4_kernel,
    matrix_product5_kernel, matrix_product6_kernel, matrix_product7_kernel, matrix_product8_kernel,
)
