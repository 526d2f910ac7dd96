"""Signal routing blocks: mux, demux, selector, concatenate, reshape and terminator.

All of them are stateless, so each output reads every input at the same instant (the default
feedthrough rule). They move values around without changing them: scalar outputs are Python
floats, array outputs float64 ndarrays that never share memory with the inputs. Index-based
blocks use Python's 0-based indexing (Simulink's are 1-based).

Compiled back-end: every block here has :meth:`kernels` (see
:mod:`blocksim.engine.compiled.kernels`); the kernels are the numba functions ``*_kernel`` of
:mod:`blocksim.blocks.routing.kernels` and give the same values as the interpreted ``output``
(the tests hold them equal). A wrong shape raises in the kernel with a shorter message; the
compile-time dry run of the interpreted blocks reports it first, with names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import _is_int, _numbered, _short
from blocksim.blocks.routing.kernels import (
    concatenate_kernel,
    demux_kernel,
    mux_kernel,
    reshape_kernel,
    reshape_scalar_kernel,
    selector_array_kernel,
    selector_kernel,
    selector_slice_kernel,
)
from blocksim.engine.block import Block
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError

__all__ = [
    "Concatenate",
    "Demux",
    "Index",
    "Mux",
    "Reshape",
    "Selector",
    "Terminator",
]


def _count(cls: str, name: str, value: Any) -> int:
    if not _is_int(value) or value < 1:
        raise BlockParameterError(
            f"{cls}: parameter '{name}' must be an integer >= 1, got {_short(value)}")
    return int(value)


def _as_output(y: np.ndarray) -> Any:
    """A float for a 0-d result, else a float64 array."""
    return float(y) if y.ndim == 0 else y


# ----------------------------------------------------------------------------- Mux
class Mux(Block):
    """Combine scalars and vectors into one vector (Simulink *Mux*, bdsim *MUX*).

    Equation: ``y = [u0..., u1..., ...]``: the elements of the inputs, in port order.

    Parameters
    ----------
    nin : int
        Number of inputs, >= 1 (default 2).

    Inputs
    ------
    u0, u1, ... : float or ndarray of shape ``(n_i,)``
        Scalars or vectors (a single input is named ``u``). Matrices are refused: use
        :class:`Reshape` or :class:`Concatenate`.

    Outputs
    -------
    y : ndarray, shape ``(sum n_i,)``
        The stacked vector (a scalar counts as one element), in the inputs' units.
    """

    outputs = ("y",)

    def __init__(self, nin: int = 2) -> None:
        super().__init__()
        self._nin = _count("Mux", "nin", nin)
        self._names = _numbered("u", self._nin, "u")
        self.set_ports(inputs=self._names)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        if all(type(v) is float for v in u):
            return (np.array(u, dtype=float),)
        parts = []
        for name, v in zip(self._names, u):
            a = np.asarray(v, dtype=float)
            if a.ndim > 1:
                raise ValueError(
                    f"Mux: input '{name}' has shape {a.shape}; Mux stacks scalars and vectors "
                    f"only (flatten it with Reshape(-1), or use Concatenate)")
            parts.append(a.reshape(-1))
        return (np.concatenate(parts),)

    def kernels(self) -> Kernels:
        """``mux_kernel`` (variadic, any number of inputs), params ``()``; routes: the one
        output is every input in turn, whole (flattened)."""
        return Kernels(params=(), output=mux_kernel,
                       routes=(tuple((i, None) for i in range(self._nin)),))


# ----------------------------------------------------------------------------- Demux
class Demux(Block):
    """Split a vector into parts (Simulink *Demux*, bdsim *DEMUX*).

    Parameters
    ----------
    nout : int or sequence of int
        An int ``n`` (default 2): ``n`` outputs of equal width; the input's length must be a
        multiple of ``n`` (an input of ``n`` elements gives ``n`` scalars). A sequence of
        widths ``(w0, w1, ...)``, each >= 1: one output per width, the widths summing to the
        input's length. As in Simulink, a part of width 1 is a scalar.

    Inputs
    ------
    u : ndarray, shape ``(n,)``
        The vector to split (a float counts as a vector of one element).

    Outputs
    -------
    y0, y1, ... : float or ndarray of shape ``(w_i,)``
        Consecutive parts of ``u``, in order (a single output is named ``y``); width-1 parts
        are floats.
    """

    inputs = ("u",)

    def __init__(self, nout: int | Sequence[int] = 2) -> None:
        super().__init__()
        if _is_int(nout):
            n = _count("Demux", "nout", nout)
            self._widths: tuple[int, ...] | None = None
        else:
            ok = isinstance(nout, (Sequence, np.ndarray)) and not isinstance(nout, str) \
                and len(nout) > 0 and all(_is_int(w) and w >= 1 for w in nout)
            if not ok:
                raise BlockParameterError(
                    f"Demux: parameter 'nout' must be an integer >= 1 or a non-empty sequence "
                    f"of widths (integers >= 1), got {_short(nout)}")
            self._widths = tuple(int(w) for w in nout)
            n = len(self._widths)
        self._nout = n
        self.set_ports(outputs=_numbered("y", n, "y"))
        if self._widths is not None:
            self._total = sum(self._widths)
            self._bounds = self._split_bounds(self._widths)

    @staticmethod
    def _split_bounds(widths: Sequence[int]) -> tuple[tuple[int, int], ...]:
        bounds = []
        k = 0
        for w in widths:
            bounds.append((k, k + w))
            k += w
        return tuple(bounds)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        v = u[0]
        if type(v) is float:
            a = np.array([v])
        else:
            a = np.asarray(v, dtype=float)
            if a.ndim > 1:
                raise ValueError(f"Demux: input 'u' must be a vector, got shape {a.shape}")
            a = a.reshape(-1)
        size = a.size
        if self._widths is None:
            n = self._nout
            if size == n:
                return tuple(a.tolist())
            if size % n:
                raise ValueError(
                    f"Demux: input 'u' has {size} element(s), not a multiple of nout={n}; "
                    f"give the output widths instead, e.g. nout=[...] summing to {size}")
            bounds = self._split_bounds([size // n] * n)
        else:
            if size != self._total:
                raise ValueError(
                    f"Demux: input 'u' has {size} element(s) but the widths {list(self._widths)} "
                    f"sum to {self._total}")
            bounds = self._bounds
        return tuple(float(a[i]) if j - i == 1 else a[i:j].copy() for i, j in bounds)

    def kernels(self) -> Kernels:
        """``demux_kernel`` (any number of outputs), params ``(size, part_0, ...,
        part_{n-1})``: the input's size (int) and, per output, its start index (an int) for a
        scalar part or ``[start, stop]`` (a float64 array) for a vector part -- the parameter's
        *type* decides the output's type when numba compiles. Routes: output ``i`` is the
        elements ``start .. stop - 1`` of the input.

        With ``nout`` an int the part widths depend on the input's size, which a block does not
        know before the run: the kernel and the routes split an input of ``nout`` elements into
        ``nout`` scalars (the usual case); the kernel raises ValueError for any other size (and
        the routes then have fewer elements than the outputs); give the widths
        (``nout=[w0, w1, ...]``) to compile a split into vectors.
        """
        n = self._nout
        bounds = tuple((i, i + 1) for i in range(n)) if self._widths is None else self._bounds
        size = n if self._widths is None else self._total
        parts = tuple(i if j - i == 1 else np.array([i, j], dtype=np.float64)
                      for i, j in bounds)
        routes = tuple(((0, tuple(range(i, j))),) for i, j in bounds)
        return Kernels(params=(size, *parts), output=demux_kernel, routes=routes)


# ----------------------------------------------------------------------------- Selector
class Selector(Block):
    """Pick elements of a vector by index (Simulink *Selector*, bdsim *INDEX*).

    Equation: ``y = u[index]`` with numpy indexing, 0-based; negative indices count from the
    end. Alias: ``Index``.

    Parameters
    ----------
    index : int, sequence of int or slice
        An int picks one element (a float output); a non-empty sequence of ints picks those
        elements in that order (repeats allowed); a slice picks a range (``slice(1, None)``:
        all but the first).

    Inputs
    ------
    u : float or ndarray, shape ``(n,)``
        The vector (a float counts as a vector of one element). For a matrix, ``index``
        selects rows.

    Outputs
    -------
    y : float or ndarray
        A float for an int ``index``; an array of shape ``(len(index),)`` for a sequence; the
        sliced range for a slice.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, index: int | Sequence[int] | slice = 0) -> None:
        super().__init__()
        if _is_int(index):
            self._index: Any = int(index)
        elif isinstance(index, slice):
            if not all(p is None or _is_int(p) for p in (index.start, index.stop, index.step)) \
                    or index.step == 0:
                raise BlockParameterError(
                    f"Selector: a slice 'index' needs integer (or None) start, stop and a "
                    f"non-zero step, got {_short(index)}")
            self._index = index
        else:
            ok = isinstance(index, (Sequence, np.ndarray)) and not isinstance(index, str) \
                and len(index) > 0 and all(_is_int(i) for i in index)
            if not ok:
                raise BlockParameterError(
                    f"Selector: parameter 'index' must be an int, a non-empty sequence of ints "
                    f"or a slice, got {_short(index)}")
            self._index = np.array([int(i) for i in index], dtype=np.intp)
        self._scalar_index = _is_int(index)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        v = u[0]
        idx = self._index
        if type(v) is not np.ndarray or v.ndim == 0:
            v = np.atleast_1d(np.asarray(v, dtype=float))
        try:
            y = v[idx]
        except IndexError:
            raise IndexError(
                f"Selector: index {_short(self.params.get('index', idx))} is out of range for "
                f"an input of {v.shape[0]} element(s) (indices are 0-based)") from None
        if self._scalar_index and y.ndim == 0:
            return (float(y),)
        return (np.array(y, dtype=float),)  # a copy: never a view of the input

    def kernels(self) -> Kernels:
        """An int index: ``selector_kernel``, params ``(index,)``. A sequence:
        ``selector_array_kernel``, params ``(indices,)`` (a float64 array of the integer
        indices, as the parameter contract has float arrays only). A slice:
        ``selector_slice_kernel``, params ``(start, stop, step)`` (ints; a None bound becomes
        +-2**62, which Python's slice clamping turns into the same range).

        Routes for an int or a sequence of ints >= 0: those elements of a vector input.
        Negative indices and slices depend on the input's length, which a block does not know
        before the run: no routes (the kernel). The routes describe a vector input; for a
        matrix input (rows picked) they have fewer elements than the output, which the code
        generator must refuse rather than copy."""
        idx = self._index
        if isinstance(idx, int):
            routes = (((0, (idx,)),),) if idx >= 0 else None
            return Kernels(params=(idx,), output=selector_kernel, routes=routes)
        if isinstance(idx, slice):
            step = 1 if idx.step is None else int(idx.step)
            far = 2 ** 62 if step > 0 else -(2 ** 62)
            start = -far if idx.start is None else int(idx.start)
            stop = far if idx.stop is None else int(idx.stop)
            return Kernels(params=(start, stop, step), output=selector_slice_kernel)
        routes = (((0, tuple(int(i) for i in idx)),),) if bool(np.all(idx >= 0)) else None
        return Kernels(params=(np.array(idx, dtype=np.float64),), output=selector_array_kernel,
                       routes=routes)


#: bdsim's name for :class:`Selector`
Index = Selector


# ----------------------------------------------------------------------------- Concatenate
class Concatenate(Block):
    """Join arrays along an axis (Simulink *Vector/Matrix Concatenate*).

    Equation: ``y = numpy.concatenate([u0, u1, ...], axis)``. For ``axis=0`` a scalar input
    counts as a vector of one element, so vectors and scalars concatenate as in :class:`Mux`.

    Parameters
    ----------
    nin : int
        Number of inputs, >= 1 (default 2).
    axis : int
        The axis to join along (default 0; negative counts from the last).

    Inputs
    ------
    u0, u1, ... : float or ndarray
        Arrays with the same number of dimensions whose shapes agree except along ``axis``
        (a single input is named ``u``).

    Outputs
    -------
    y : ndarray
        The joined array.
    """

    outputs = ("y",)

    def __init__(self, nin: int = 2, axis: int = 0) -> None:
        super().__init__()
        self._nin = _count("Concatenate", "nin", nin)
        if not _is_int(axis):
            raise BlockParameterError(
                f"Concatenate: parameter 'axis' must be an integer, got {_short(axis)}")
        self._axis = int(axis)
        self.set_ports(inputs=_numbered("u", self._nin, "u"))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        parts = [np.atleast_1d(np.asarray(v, dtype=float)) for v in u]
        try:
            return (np.concatenate(parts, axis=self._axis),)
        except ValueError as exc:  # numpy's AxisError is a ValueError
            shapes = ", ".join(str(np.shape(v)) for v in u)
            raise ValueError(
                f"Concatenate: cannot join inputs of shapes {shapes} along axis {self._axis}: "
                f"{exc}") from None

    def kernels(self) -> Kernels:
        """``concatenate_kernel`` (variadic, any number of inputs), params ``(axis,)``. For
        ``axis=0`` routes too: joining along the first axis is joining the inputs' elements in
        C order, whatever their shapes (another axis interleaves them by the inputs' shapes,
        which a block does not know before the run: no routes)."""
        routes = (tuple((i, None) for i in range(self._nin)),) if self._axis == 0 else None
        return Kernels(params=(self._axis,), output=concatenate_kernel, routes=routes)


# ----------------------------------------------------------------------------- Reshape
class Reshape(Block):
    """Give a signal another shape with the same elements (Simulink *Reshape*).

    Equation: ``y = numpy.reshape(u, shape)`` (row-major, C order).

    Parameters
    ----------
    shape : int or tuple of int
        The output shape; one entry may be -1 (inferred from the input's size), ``-1`` alone
        flattens. ``()`` turns a one-element input into a float.

    Inputs
    ------
    u : float or ndarray
        The signal, with as many elements as ``shape`` has.

    Outputs
    -------
    y : float or ndarray of shape ``shape``
        The same elements, reshaped.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, shape: int | Sequence[int] = -1) -> None:
        super().__init__()
        dims = (shape,) if _is_int(shape) else shape
        ok = isinstance(dims, (tuple, list)) and all(
            _is_int(d) and (d >= 1 or d == -1) for d in dims) \
            and sum(1 for d in dims if d == -1) <= 1
        if not ok:
            raise BlockParameterError(
                f"Reshape: parameter 'shape' must be an int or a tuple of ints >= 1, with at "
                f"most one -1, got {_short(shape)}")
        self._shape = tuple(int(d) for d in dims)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        a = np.array(u[0], dtype=float)  # a copy: never a view of the input
        try:
            y = a.reshape(self._shape)
        except ValueError:
            raise ValueError(
                f"Reshape: cannot reshape an input of shape {a.shape} ({a.size} elements) to "
                f"{self._shape}") from None
        return (float(y) if y.ndim == 0 else y,)

    def kernels(self) -> Kernels:
        """``reshape_kernel``, params the shape (ints, one may be -1); for ``shape=()``
        ``reshape_scalar_kernel``, params ``()``. Routes: the whole input (C order)."""
        routes = (((0, None),),)
        if not self._shape:
            return Kernels(params=(), output=reshape_scalar_kernel, routes=routes)
        return Kernels(params=self._shape, output=reshape_kernel, routes=routes)


# ----------------------------------------------------------------------------- Terminator
class Terminator(Block):
    """Swallow a signal that is not used (Simulink *Terminator*, bdsim *NULL*).

    Connect an output that is deliberately left unused to a Terminator, to document that it
    is unused. The block does nothing.

    Parameters
    ----------
    none

    Inputs
    ------
    u : any signal
        Ignored.

    Outputs
    -------
    none
    """

    inputs = ("u",)
    outputs = ()

    def __init__(self) -> None:
        super().__init__()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[()]:
        return ()

    def kernels(self) -> Kernels:
        """No outputs: ``output=None``, params ``()``."""
        return Kernels(params=())
