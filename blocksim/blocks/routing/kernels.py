"""Compiled kernels of the routing blocks (:mod:`blocksim.blocks.routing.signal_routing`): mux,
demux, selector, concatenate and reshape."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import types
from numba.extending import overload

from blocksim.blocks._shared import _compiled_only, unrolled


# ---------------------------------------------------------------------------- kernels
# The compiled numerics (contract: blocksim.engine.compiled.kernels). Inputs may be floats or
# arrays (numba compiles one version per combination); array outputs are new arrays. The blocks
# with any number of inputs or outputs have one variadic kernel each (``*args``, unrolled over
# the inputs' types at compile time). The code generator copies the routing blocks' inputs by
# their ``Kernels.routes`` where they have them; these kernels serve the others (and tests).
@numba.njit(cache=True, error_model="numpy")
def _vector(u):
    """A float as an array of one element; an array as it is."""
    if isinstance(u, float):
        a = np.empty(1)
        a[0] = u
        return a
    return u


@numba.njit(cache=True, error_model="numpy")
def _size(u):
    if isinstance(u, float):
        return 1
    return u.size


@numba.njit(cache=True, error_model="numpy")
def _not_a_vector():
    # a call, not an inline raise: numba would prune the code after the raise for a matrix
    # input and fail to type the function; this way it compiles and raises when run
    raise ValueError("Mux/Demux: inputs must be scalars or vectors")


@numba.njit(cache=True, error_model="numpy")
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


def _total_size(values: tuple[Any, ...]) -> int:
    """The number of elements of floats and arrays."""
    return _compiled_only()


@overload(_total_size)
def _total_size_compiled(values):  # type: ignore[no-untyped-def]
    if len(values) == 0:
        return lambda values: 0
    if isinstance(values, types.UniTuple):
        def same(values):  # type: ignore[no-untyped-def]
            n = 0
            for k in range(len(values)):
                n += _size(values[k])
            return n

        return same
    return unrolled("total_size", "values",
                    ["return " + " + ".join(f"_size(values[{i}])" for i in range(len(values)))],
                    {"_size": _size})


def _put_all(y: np.ndarray, k: int, values: tuple[Any, ...]) -> int:
    """:func:`_put` each of ``values`` in turn from ``y[k]``; the next position."""
    return _compiled_only()


@overload(_put_all)
def _put_all_compiled(y, k, values):  # type: ignore[no-untyped-def]
    if len(values) == 0:
        return lambda y, k, values: k
    if isinstance(values, types.UniTuple):
        def same(y, k, values):  # type: ignore[no-untyped-def]
            for j in range(len(values)):
                k = _put(y, k, values[j])
            return k

        return same
    return unrolled("put_all", "y, k, values",
                    [*(f"k = _put(y, k, values[{i}])" for i in range(len(values))), "return k"],
                    {"_put": _put})


@numba.njit(cache=True, error_model="numpy")
def mux_kernel(t, x, *args):
    """:class:`Mux`: ``args = (u0, ..., u_{n-1}, params)``, params ``()``; the scalars and
    vectors joined into one new vector."""
    values = args[:-1]
    y = np.empty(_total_size(values))
    _put_all(y, 0, values)
    return y


@numba.njit(cache=True, error_model="numpy")
def _demux_input(u, size):
    a = _vector(u)
    if a.ndim != 1:
        _not_a_vector()
    if a.size != size:
        raise ValueError("Demux: the input's size does not match the output widths "
                         "(Demux(nout=n) compiled splits n elements into n scalars)")
    return a.ravel()


@numba.njit(cache=True, error_model="numpy")
def _part(a, b):
    """``a[b]`` (a float) for an int ``b``, a copy of ``a[b[0]:b[1]]`` for ``b = [start, stop]``
    (a float array)."""
    if isinstance(b, int):
        return a[b]
    return a[int(b[0]):int(b[1])].copy()


def _parts(a: np.ndarray, parts: tuple[Any, ...]) -> Any:
    """The tuple of :func:`_part` of ``a`` for each of ``parts``."""
    return _compiled_only()


@overload(_parts)
def _parts_compiled(a, parts):  # type: ignore[no-untyped-def]
    items = "".join(f"_part(a, parts[{i}]), " for i in range(len(parts)))
    return unrolled("parts", "a, parts", [f"return ({items})"], {"_part": _part})


def _demux_result(a: np.ndarray, parts: tuple[Any, ...]) -> Any:
    """One part as it is (a one-output block), several as a tuple."""
    return _compiled_only()


@overload(_demux_result)
def _demux_result_compiled(a, parts):  # type: ignore[no-untyped-def]
    if len(parts) == 1:
        return lambda a, parts: _part(a, parts[0])
    return lambda a, parts: _parts(a, parts)


@numba.njit(cache=True, error_model="numpy")
def demux_kernel(t, x, u, p):
    """:class:`Demux`, params ``(size, part_0, ..., part_{n-1})`` (see ``Demux.kernels``): the
    parts of the input vector, one per output."""
    a = _demux_input(u, p[0])
    return _demux_result(a, p[1:])


@numba.njit(cache=True, error_model="numpy")
def _own(y):
    """A float as it is, an array as a copy (never a view of an input)."""
    if isinstance(y, float):
        return y
    return y.copy()


@numba.njit(cache=True, error_model="numpy")
def _check_index(i, n):
    if i < -n or i >= n:
        raise IndexError("Selector: index out of range (indices are 0-based)")


@numba.njit(cache=True, error_model="numpy")
def selector_kernel(t, x, u, p):
    v = _vector(u)
    _check_index(p[0], v.shape[0])
    return _own(v[p[0]])


@numba.njit(cache=True, error_model="numpy")
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


@numba.njit(cache=True, error_model="numpy")
def selector_slice_kernel(t, x, u, p):
    return _vector(u)[p[0]:p[1]:p[2]].copy()


def _vectors(values: tuple[Any, ...]) -> tuple[np.ndarray, ...]:
    """Each of ``values`` by :func:`_vector` (a float as an array of one element)."""
    return _compiled_only()


@overload(_vectors)
def _vectors_compiled(values):  # type: ignore[no-untyped-def]
    items = "".join(f"_vector(values[{i}]), " for i in range(len(values)))
    return unrolled("vectors", "values", [f"return ({items})"], {"_vector": _vector})


@numba.njit(cache=True, error_model="numpy")
def concatenate_kernel(t, x, *args):
    """:class:`Concatenate`: ``args = (u0, ..., u_{n-1}, params)``, params ``(axis,)``;
    ``numpy.concatenate`` of the inputs (floats as vectors of one element)."""
    return np.concatenate(_vectors(args[:-1]), args[-1][0])


@numba.njit(cache=True, error_model="numpy")
def reshape_kernel(t, x, u, p):
    if isinstance(u, float):
        return _vector(u).reshape(p)
    return u.flatten().reshape(p)


@numba.njit(cache=True, error_model="numpy")
def reshape_scalar_kernel(t, x, u, p):
    if isinstance(u, float):
        return u
    if u.size != 1:
        raise ValueError("Reshape: only an input of one element has shape ()")
    return u.ravel()[0]
