"""Kernels of a test block whose deriv returns one value for two states (module level, as
compiled kernels must be)."""

from numba import njit


@njit(cache=True)
def two_output(t, x, params):
    return x[0]


@njit(cache=True)
def two_deriv_short(t, x, params):
    return (1.0,)


@njit(cache=True)
def raising_output(t, x, params):
    if t >= params[0]:
        raise ValueError("Fragile: the input left its range", t)
    return x[0]


@njit(cache=True)
def raising_deriv(t, x, params):
    return (1.0,)
