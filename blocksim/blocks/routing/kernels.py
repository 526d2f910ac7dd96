"""Compiled kernels of the routing blocks (:mod:`blocksim.blocks.routing.signal_routing`): mux,
demux, selector, concatenate and reshape."""

from __future__ import annotations

import numba
import numpy as np


# ---------------------------------------------------------------------------- kernels
# The compiled numerics (contract: blocksim.engine.compiled.kernels). Inputs may be floats or
# arrays (numba compiles one version per combination); array outputs are new arrays.
@numba.njit(cache=True)
def _vector(u):
    """A float as an array of one element; an array as it is."""
    if isinstance(u, float):
        a = np.empty(1)
        a[0] = u
        return a
    return u


@numba.njit(cache=True)
def _size(u):
    if isinstance(u, float):
        return 1
    return u.size


@numba.njit(cache=True)
def _not_a_vector():
    # a call, not an inline raise: numba would prune the code after the raise for a matrix
    # input and fail to type the function; this way it compiles and raises when run
    raise ValueError("Mux/Demux: inputs must be scalars or vectors")


@numba.njit(cache=True)
def _put(y, k, u):
    """Write the scalar or vector ``u`` to ``y[k:]``; return the next position."""
    if isinstance(u, float):
        y[k] = u
        return k + 1
    if u.ndim != 1:
        _not_a_vector()
    flat = u.ravel()
    for j in range(flat.size):
        y[k + j] = flat[j]
    return k + flat.size


@numba.njit(cache=True)
def mux1_kernel(t, x, u0, p):
    y = np.empty(_size(u0))
    _put(y, 0, u0)
    return y


@numba.njit(cache=True)
def mux2_kernel(t, x, u0, u1, p):
    y = np.empty(_size(u0) + _size(u1))
    k = _put(y, 0, u0)
    _put(y, k, u1)
    return y


@numba.njit(cache=True)
def mux3_kernel(t, x, u0, u1, u2, p):
    y = np.empty(_size(u0) + _size(u1) + _size(u2))
    k = _put(y, 0, u0)
    k = _put(y, k, u1)
    _put(y, k, u2)
    return y


@numba.njit(cache=True)
def mux4_kernel(t, x, u0, u1, u2, u3, p):
    y = np.empty(_size(u0) + _size(u1) + _size(u2) + _size(u3))
    k = _put(y, 0, u0)
    k = _put(y, k, u1)
    k = _put(y, k, u2)
    _put(y, k, u3)
    return y


@numba.njit(cache=True)
def mux5_kernel(t, x, u0, u1, u2, u3, u4, p):
    y = np.empty(_size(u0) + _size(u1) + _size(u2) + _size(u3) + _size(u4))
    k = _put(y, 0, u0)
    k = _put(y, k, u1)
    k = _put(y, k, u2)
    k = _put(y, k, u3)
    _put(y, k, u4)
    return y


@numba.njit(cache=True)
def mux6_kernel(t, x, u0, u1, u2, u3, u4, u5, p):
    y = np.empty(_size(u0) + _size(u1) + _size(u2) + _size(u3) + _size(u4) + _size(u5))
    k = _put(y, 0, u0)
    k = _put(y, k, u1)
    k = _put(y, k, u2)
    k = _put(y, k, u3)
    k = _put(y, k, u4)
    _put(y, k, u5)
    return y


@numba.njit(cache=True)
def mux7_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, p):
    y = np.empty(_size(u0) + _size(u1) + _size(u2) + _size(u3) + _size(u4) + _size(u5)
                 + _size(u6))
    k = _put(y, 0, u0)
    k = _put(y, k, u1)
    k = _put(y, k, u2)
    k = _put(y, k, u3)
    k = _put(y, k, u4)
    k = _put(y, k, u5)
    _put(y, k, u6)
    return y


@numba.njit(cache=True)
def mux8_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, u7, p):
    y = np.empty(_size(u0) + _size(u1) + _size(u2) + _size(u3) + _size(u4) + _size(u5)
                 + _size(u6) + _size(u7))
    k = _put(y, 0, u0)
    k = _put(y, k, u1)
    k = _put(y, k, u2)
    k = _put(y, k, u3)
    k = _put(y, k, u4)
    k = _put(y, k, u5)
    k = _put(y, k, u6)
    _put(y, k, u7)
    return y


@numba.njit(cache=True)
def mux9_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, u7, u8, p):
    y = np.empty(_size(u0) + _size(u1) + _size(u2) + _size(u3) + _size(u4) + _size(u5)
                 + _size(u6) + _size(u7) + _size(u8))
    k = _put(y, 0, u0)
    k = _put(y, k, u1)
    k = _put(y, k, u2)
    k = _put(y, k, u3)
    k = _put(y, k, u4)
    k = _put(y, k, u5)
    k = _put(y, k, u6)
    k = _put(y, k, u7)
    _put(y, k, u8)
    return y


@numba.njit(cache=True)
def mux10_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, p):
    y = np.empty(_size(u0) + _size(u1) + _size(u2) + _size(u3) + _size(u4) + _size(u5)
                 + _size(u6) + _size(u7) + _size(u8) + _size(u9))
    k = _put(y, 0, u0)
    k = _put(y, k, u1)
    k = _put(y, k, u2)
    k = _put(y, k, u3)
    k = _put(y, k, u4)
    k = _put(y, k, u5)
    k = _put(y, k, u6)
    k = _put(y, k, u7)
    k = _put(y, k, u8)
    _put(y, k, u9)
    return y


@numba.njit(cache=True)
def mux11_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, p):
    y = np.empty(_size(u0) + _size(u1) + _size(u2) + _size(u3) + _size(u4) + _size(u5)
                 + _size(u6) + _size(u7) + _size(u8) + _size(u9) + _size(u10))
    k = _put(y, 0, u0)
    k = _put(y, k, u1)
    k = _put(y, k, u2)
    k = _put(y, k, u3)
    k = _put(y, k, u4)
    k = _put(y, k, u5)
    k = _put(y, k, u6)
    k = _put(y, k, u7)
    k = _put(y, k, u8)
    k = _put(y, k, u9)
    _put(y, k, u10)
    return y


@numba.njit(cache=True)
def mux12_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, u11, p):
    y = np.empty(_size(u0) + _size(u1) + _size(u2) + _size(u3) + _size(u4) + _size(u5)
                 + _size(u6) + _size(u7) + _size(u8) + _size(u9) + _size(u10) + _size(u11))
    k = _put(y, 0, u0)
    k = _put(y, k, u1)
    k = _put(y, k, u2)
    k = _put(y, k, u3)
    k = _put(y, k, u4)
    k = _put(y, k, u5)
    k = _put(y, k, u6)
    k = _put(y, k, u7)
    k = _put(y, k, u8)
    k = _put(y, k, u9)
    k = _put(y, k, u10)
    _put(y, k, u11)
    return y


_MUX_KERNELS = (
    mux1_kernel, mux2_kernel, mux3_kernel, mux4_kernel, mux5_kernel, mux6_kernel, mux7_kernel,
    mux8_kernel, mux9_kernel, mux10_kernel, mux11_kernel, mux12_kernel,
)


@numba.njit(cache=True)
def _demux_input(u, size):
    a = _vector(u)
    if a.ndim != 1:
        _not_a_vector()
    if a.size != size:
        raise ValueError("Demux: the input's size does not match the output widths "
                         "(Demux(nout=n) compiled splits n elements into n scalars)")
    return a.ravel()


@numba.njit(cache=True)
def _part(a, b):
    """``a[b]`` (a float) for an int ``b``, a copy of ``a[b[0]:b[1]]`` for ``b = [start, stop]``
    (a float array)."""
    if isinstance(b, int):
        return a[b]
    return a[int(b[0]):int(b[1])].copy()


@numba.njit(cache=True)
def demux1_kernel(t, x, u, p):
    a = _demux_input(u, p[0])
    return _part(a, p[1])


@numba.njit(cache=True)
def demux2_kernel(t, x, u, p):
    a = _demux_input(u, p[0])
    return _part(a, p[1]), _part(a, p[2])


@numba.njit(cache=True)
def demux3_kernel(t, x, u, p):
    a = _demux_input(u, p[0])
    return _part(a, p[1]), _part(a, p[2]), _part(a, p[3])


@numba.njit(cache=True)
def demux4_kernel(t, x, u, p):
    a = _demux_input(u, p[0])
    return _part(a, p[1]), _part(a, p[2]), _part(a, p[3]), _part(a, p[4])


@numba.njit(cache=True)
def demux5_kernel(t, x, u, p):
    a = _demux_input(u, p[0])
    return _part(a, p[1]), _part(a, p[2]), _part(a, p[3]), _part(a, p[4]), _part(a, p[5])


@numba.njit(cache=True)
def demux6_kernel(t, x, u, p):
    a = _demux_input(u, p[0])
    return (_part(a, p[1]), _part(a, p[2]), _part(a, p[3]), _part(a, p[4]),
            _part(a, p[5]), _part(a, p[6]))


@numba.njit(cache=True)
def demux7_kernel(t, x, u, p):
    a = _demux_input(u, p[0])
    return (_part(a, p[1]), _part(a, p[2]), _part(a, p[3]), _part(a, p[4]),
            _part(a, p[5]), _part(a, p[6]), _part(a, p[7]))


@numba.njit(cache=True)
def demux8_kernel(t, x, u, p):
    a = _demux_input(u, p[0])
    return (_part(a, p[1]), _part(a, p[2]), _part(a, p[3]), _part(a, p[4]),
            _part(a, p[5]), _part(a, p[6]), _part(a, p[7]), _part(a, p[8]))


@numba.njit(cache=True)
def demux9_kernel(t, x, u, p):
    a = _demux_input(u, p[0])
    return (_part(a, p[1]), _part(a, p[2]), _part(a, p[3]), _part(a, p[4]),
            _part(a, p[5]), _part(a, p[6]), _part(a, p[7]), _part(a, p[8]),
            _part(a, p[9]))


@numba.njit(cache=True)
def demux10_kernel(t, x, u, p):
    a = _demux_input(u, p[0])
    return (_part(a, p[1]), _part(a, p[2]), _part(a, p[3]), _part(a, p[4]),
            _part(a, p[5]), _part(a, p[6]), _part(a, p[7]), _part(a, p[8]),
            _part(a, p[9]), _part(a, p[10]))


@numba.njit(cache=True)
def demux11_kernel(t, x, u, p):
    a = _demux_input(u, p[0])
    return (_part(a, p[1]), _part(a, p[2]), _part(a, p[3]), _part(a, p[4]),
            _part(a, p[5]), _part(a, p[6]), _part(a, p[7]), _part(a, p[8]),
            _part(a, p[9]), _part(a, p[10]), _part(a, p[11]))


@numba.njit(cache=True)
def demux12_kernel(t, x, u, p):
    a = _demux_input(u, p[0])
    return (_part(a, p[1]), _part(a, p[2]), _part(a, p[3]), _part(a, p[4]),
            _part(a, p[5]), _part(a, p[6]), _part(a, p[7]), _part(a, p[8]),
            _part(a, p[9]), _part(a, p[10]), _part(a, p[11]), _part(a, p[12]))


_DEMUX_KERNELS = (
    demux1_kernel, demux2_kernel, demux3_kernel, demux4_kernel, demux5_kernel, demux6_kernel,
    demux7_kernel, demux8_kernel, demux9_kernel, demux10_kernel, demux11_kernel, demux12_kernel,
)


@numba.njit(cache=True)
def _own(y):
    """A float as it is, an array as a copy (never a view of an input)."""
    if isinstance(y, float):
        return y
    return y.copy()


@numba.njit(cache=True)
def _check_index(i, n):
    if i < -n or i >= n:
        raise IndexError("Selector: index out of range (indices are 0-based)")


@numba.njit(cache=True)
def selector_kernel(t, x, u, p):
    v = _vector(u)
    _check_index(p[0], v.shape[0])
    return _own(v[p[0]])


@numba.njit(cache=True)
def selector_array_kernel(t, x, u, p):
    v = _vector(u)
    idx = p[0]
    n = v.shape[0]
    rows = np.empty(idx.size, dtype=np.int64)
    for k in range(idx.size):
        i = int(idx[k])
        _check_index(i, n)
        rows[k] = i if i >= 0 else i + n
    return v[rows]  # (advanced indexing copies; a row assignment loop compiles 10x slower)


@numba.njit(cache=True)
def selector_slice_kernel(t, x, u, p):
    return _vector(u)[p[0]:p[1]:p[2]].copy()


@numba.njit(cache=True)
def concatenate1_kernel(t, x, u0, p):
    return np.concatenate((_vector(u0),), p[0])


@numba.njit(cache=True)
def concatenate2_kernel(t, x, u0, u1, p):
    return np.concatenate((_vector(u0), _vector(u1)), p[0])


@numba.njit(cache=True)
def concatenate3_kernel(t, x, u0, u1, u2, p):
    return np.concatenate((_vector(u0), _vector(u1), _vector(u2)), p[0])


@numba.njit(cache=True)
def concatenate4_kernel(t, x, u0, u1, u2, u3, p):
    return np.concatenate((_vector(u0), _vector(u1), _vector(u2), _vector(u3)), p[0])


@numba.njit(cache=True)
def concatenate5_kernel(t, x, u0, u1, u2, u3, u4, p):
    return np.concatenate((_vector(u0), _vector(u1), _vector(u2), _vector(u3), _vector(u4)), p[0])


@numba.njit(cache=True)
def concatenate6_kernel(t, x, u0, u1, u2, u3, u4, u5, p):
    return np.concatenate((_vector(u0), _vector(u1), _vector(u2), _vector(u3),
                           _vector(u4), _vector(u5)), p[0])


@numba.njit(cache=True)
def concatenate7_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, p):
    return np.concatenate((_vector(u0), _vector(u1), _vector(u2), _vector(u3),
                           _vector(u4), _vector(u5), _vector(u6)), p[0])


@numba.njit(cache=True)
def concatenate8_kernel(t, x, u0, u1, u2, u3, u4, u5, u6, u7, p):
    return np.concatenate((_vector(u0), _vector(u1), _vector(u2), _vector(u3),
                           _vector(u4), _vector(u5), _vector(u6), _vector(u7)), p[0])


_CONCATENATE_KERNELS = (
    concatenate1_kernel, concatenate2_kernel, concatenate3_kernel, concatenate4_kernel,
    concatenate5_kernel, concatenate6_kernel, concatenate7_kernel, concatenate8_kernel,
)


@numba.njit(cache=True)
def reshape_kernel(t, x, u, p):
    if isinstance(u, float):
        return _vector(u).reshape(p)
    return u.flatten().reshape(p)


@numba.njit(cache=True)
def reshape_scalar_kernel(t, x, u, p):
    if isinstance(u, float):
        return u
    if u.size != 1:
        raise ValueError("Reshape: only an input of one element has shape ()")
    return u.ravel()[0]
