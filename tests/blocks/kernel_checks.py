"""Shared checks of the kernel tests: a kernel's output against the block's interpreted output.

Every check calls ``k.output(t, x, *u, k.params)`` and ``block.output(t, x, u)`` and requires the
same kind of value (float for a scalar, float64 array of the same shape otherwise) and the same
numbers: bit for bit, except where numba and numpy call different libraries (array
transcendental functions, BLAS/LAPACK), compared to a tolerance.

Numba compiles each kernel once per argument types, so the cases reuse a few input types
(floats, ``V`` of shape (3,), ``M`` of shape (2, 3), ``A`` of shape (3, 3)) to keep the cold-cache
run short.
"""

from __future__ import annotations

import sys

import numpy as np

from blocksim.engine.compiled.kernels import Kernels

X = np.zeros(0)
V = np.array([0.5, -2.0, 3.25])
W = np.array([1.5, 0.25, -4.0])
M = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.5]])
A = np.array([[2.0, 0.5, -1.0], [0.25, 3.0, 0.5], [1.0, -0.5, 4.0]])
B = np.array([[1.0, 2.0, 0.0], [-1.0, 0.5, 3.0], [0.5, 0.0, 2.5]])
TIMES = (-0.5, 0.0, 0.3, 0.75, 1.0, 1.2, 2.0, 2.5, 3.0, 7.3)


def check_params(params: tuple) -> None:
    """The contract: a flat tuple of floats, ints, bools and C-contiguous float64 arrays."""
    assert isinstance(params, tuple)
    for p in params:
        if isinstance(p, np.ndarray):
            assert p.dtype == np.float64 and p.flags.c_contiguous and p.flags.writeable, params
        else:
            assert type(p) in (float, int, bool), params


def check_module_level(fn: object) -> None:
    """The generated module imports kernels by module and attribute name."""
    module = sys.modules[fn.py_func.__module__]  # type: ignore[attr-defined]
    assert any(v is fn for v in vars(module).values()), fn


def kernel_output(block, t: float, u: tuple = ()):
    k = block.kernels()
    assert isinstance(k, Kernels)
    check_params(k.params)
    check_module_level(k.output)
    assert k.deriv is None and k.update is None
    return k.output(t, X, *u, k.params)


def assert_same(actual, expected, tol: float = 0.0) -> None:
    """Same kind (float or float64 array), same shape, same values (exactly when tol is 0)."""
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e, tol)
        return
    if isinstance(expected, (float, np.floating)):
        assert isinstance(actual, float), (actual, expected)
    else:
        assert isinstance(actual, np.ndarray) and actual.dtype == np.float64, actual
        assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if tol:
        np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(actual, expected)


def check(block, u: tuple = (), times: tuple = (0.3,), tol: float = 0.0) -> None:
    for t in times:
        expected = block.output(t, X, u)
        assert_same(kernel_output(block, t, u), expected[0] if len(expected) == 1 else expected,
                    tol)


def check_python(block, u: tuple, tol: float = 0.0) -> None:
    """The kernel's Python function (uncompiled, so cheap to test for every arity)."""
    k = block.kernels()
    expected = block.output(0.0, X, u)
    assert_same(k.output.py_func(0.0, X, *u, k.params),
                expected[0] if len(expected) == 1 else expected, tol)


def assert_bitwise(kernel_value, interpreted, *, zero_sign: bool = True) -> None:
    """``kernel_value`` has the interpreted value's type and shape and equal bits (NaN: any
    NaN; ``zero_sign=False``: -0.0 == 0.0)."""
    if type(interpreted) is float:
        assert type(kernel_value) is float, (kernel_value, interpreted)
    else:
        assert isinstance(kernel_value, np.ndarray), (kernel_value, interpreted)
        assert kernel_value.dtype == np.float64
        assert kernel_value.shape == np.shape(interpreted)
    k = np.asarray(kernel_value, dtype=float)
    i = np.asarray(interpreted, dtype=float)
    np.testing.assert_array_equal(k, i)  # values, NaN == NaN, -0.0 == 0.0
    if zero_sign:
        both_nan = np.isnan(k) & np.isnan(i)
        np.testing.assert_array_equal(np.where(both_nan, 0.0, np.signbit(k)),
                                      np.where(both_nan, 0.0, np.signbit(i)))


def assert_sequence(kernel_value, interpreted, nx: int) -> None:
    """A deriv/update result: ``nx`` floats (tuple or 1-D array), bitwise equal."""
    k = np.asarray(kernel_value, dtype=float)
    i = np.asarray(interpreted, dtype=float)
    assert k.shape == (nx,) and i.shape == (nx,)
    assert_bitwise(k, i)
