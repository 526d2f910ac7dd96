"""Stateless arithmetic blocks: :class:`Sum`, :class:`Gain` and :class:`Product`.

Every block here is stateless, so by the default feedthrough rule each output reads all inputs
at the same instant. Scalar signals are Python floats and stay Python floats; array signals are
combined with numpy broadcasting. Inputs whose shapes do not agree make numpy raise, which the
compile-time dry run reports with the block's name.

Compiled back-end: every block has :meth:`kernels` (see :mod:`blocksim.engine.compiled.kernels`);
the kernels are the numba functions ``*_kernel`` of :mod:`blocksim.blocks.math.kernels`.
They compute what the interpreted ``output`` computes, with the same operations in the same
order (the tests hold them equal); the differences are listed in each block's ``kernels``
docstring.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import _numbered, _param, _short
from blocksim.blocks.math.kernels import (
    ADD,
    DIV,
    MUL,
    SUB,
    gain_kernel,
    gain_matrix_kernel,
    gain_matrix_right_kernel,
    matrix_product_kernel,
    product_kernel,
    sum_kernel,
)
from blocksim.engine.block import Block, check_port_count
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain, suggest

__all__ = ["Gain", "Product", "Sum"]


def _op_string(cls: str, name: str, value: Any, allowed: str, default: str,
               spacer: str = "") -> str:
    """Validate a string of operator characters (or an int n meaning ``default * n``).

    Returns the operators with the no-op ``spacer`` characters removed.
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if value < 1:
            raise BlockParameterError(
                f"{cls}: parameter '{name}' as a number of inputs must be >= 1, got {value}")
        return default * check_port_count(int(value), f"{cls}: parameter '{name}'")
    chars = ", ".join(map(repr, allowed + spacer))
    if not isinstance(value, str):
        raise BlockParameterError(
            f"{cls}: parameter '{name}' must be a string of {chars} characters or a number of "
            f"inputs, got {_short(value)}")
    bad = sorted({c for c in value if c not in allowed + spacer})
    if bad:
        raise BlockParameterError(
            f"{cls}: parameter '{name}' may contain only the characters {chars}, got "
            f"{plain(value)} "
            f"(invalid: {', '.join(map(repr, bad))})")
    ops = "".join(c for c in value if c not in spacer)
    if not ops:
        raise BlockParameterError(
            f"{cls}: parameter '{name}' must have at least one of "
            f"{', '.join(map(repr, allowed))} (one per input), got {plain(value)}")
    return ops


class Sum(Block):
    """Add and subtract the inputs (Simulink *Sum*, bdsim *SUM*).

    Equation: ``y = s0*u0 + s1*u1 + ...`` with ``s_i = +1`` or ``-1`` from ``signs``, added
    in port order.

    Parameters
    ----------
    signs : str or int
        One character per input: ``'+'`` adds it, ``'-'`` subtracts it; ``'|'`` is a spacer
        that is ignored (as in Simulink's ``"|+-"``). An int ``n`` means ``'+' * n``.
        Default ``"++"``.

    Inputs
    ------
    u0, u1, ... : float or ndarray (any shape, broadcastable together)
        One per sign, in order (a single input is named ``u``).

    Outputs
    -------
    y : float or ndarray, the broadcast shape of the inputs
        The signed sum, in the unit of the inputs.
    """

    outputs = ("y",)

    def __init__(self, signs: str | int = "++") -> None:
        super().__init__()
        ops = _op_string("Sum", "signs", signs, "+-", "+", spacer="|")
        self._ops = ops
        self.set_ports(inputs=_numbered("u", len(ops), "u"))
        # generic path, in port order (as the kernels): y = (+/-)u0, then y = y (+/-) u_i;
        # two plain loops (faster) when every '+' after u0 comes before every '-'
        self._first_neg = ops[0] == "-"
        rest = ops[1:]
        self._add = tuple(i for i, c in enumerate(ops) if i > 0 and c == "+")
        self._sub = tuple(i for i, c in enumerate(ops) if i > 0 and c == "-")
        self._mixed = tuple((i, c == "+") for i, c in enumerate(ops) if i > 0) \
            if "-+" in rest else None
        self._mode = {"++": 1, "+-": 2, "-+": 3}.get(ops, 0)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        mode = self._mode
        if mode == 1:
            return (u[0] + u[1],)
        if mode == 2:
            return (u[0] - u[1],)
        if mode == 3:
            return (u[1] - u[0],)
        y = -u[0] if self._first_neg else u[0]
        mixed = self._mixed
        if mixed is None:
            for i in self._add:
                y = y + u[i]
            for i in self._sub:
                y = y - u[i]
        else:
            for i, add in mixed:
                y = y + u[i] if add else y - u[i]
        return (y,)

    def kernels(self) -> Kernels:
        """``sum_kernel`` (variadic, any number of inputs), params one int per input: ``ADD``
        or ``SUB`` (:mod:`blocksim.blocks.math.kernels`). Left to right, as the interpreted
        sum: bitwise equal. Arrays are added in loops over the broadcast shape."""
        return Kernels(params=tuple(ADD if c == "+" else SUB for c in self._ops),
                       output=sum_kernel)


_GAIN_ORDERS = ("K*u", "u*K", "K.*u")


class Gain(Block):
    """Multiply the input by a constant gain (Simulink *Gain*, bdsim *GAIN*).

    Equation, by the kind of ``K``:

    * scalar or 1-D ``K``: ``y = K * u`` element-wise (broadcast), whatever ``order``;
    * 2-D (matrix) ``K``: ``y = K @ u`` for ``order="K*u"`` (default, Simulink "Matrix(K*u)"),
      ``y = u @ K`` for ``order="u*K"`` (Simulink "Matrix(u*K)", bdsim ``premul=False``),
      ``y = K * u`` element-wise for ``order="K.*u"`` (Simulink "Element-wise(K.*u)").
      A scalar input is always multiplied element-wise.

    Parameters
    ----------
    K : float or array_like
        The gain: a number, a vector of per-element gains (shape ``(n,)``) or a matrix
        (shape ``(m, n)``); finite. Unit: unit of y per unit of u.
    order : {"K*u", "u*K", "K.*u"}
        The product used with a matrix ``K``, see above. Default ``"K*u"``.

    Inputs
    ------
    u : float or ndarray
        Any shape for a scalar or 1-D ``K`` (broadcast); shape ``(n,)`` or ``(n, p)`` for
        ``K @ u``; shape ``(p, m)`` or ``(m,)`` for ``u @ K``.

    Outputs
    -------
    y : float or ndarray
        The product: the input's shape for a scalar ``K``; ``(m,)`` for ``K @ u`` with ``K`` of
        shape ``(m, n)`` and ``u`` of shape ``(n,)``; as numpy's ``@`` otherwise.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, K: float | Sequence[Any] | np.ndarray, order: str = "K*u") -> None:
        super().__init__()
        try:
            arr = np.asarray(K)
        except (TypeError, ValueError):
            arr = np.asarray(None)
        if arr.dtype.kind not in "biuf":
            raise BlockParameterError(
                f"Gain: parameter 'K' must be a real number, vector or matrix, got {_short(K)}")
        arr = np.array(arr, dtype=float)
        if arr.ndim > 2:
            raise BlockParameterError(
                f"Gain: parameter 'K' must be a scalar, vector or matrix, got an array of "
                f"shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise BlockParameterError(f"Gain: parameter 'K' must be finite, got {_short(K)}")
        if order not in _GAIN_ORDERS:
            raise BlockParameterError(
                f"Gain: parameter 'order' must be one of {', '.join(map(repr, _GAIN_ORDERS))}, "
                f"got {_short(order)}{suggest(str(order), _GAIN_ORDERS)}")
        self._order = order
        if arr.ndim == 0:
            self._K: Any = float(arr)
            self._mode = 0
        else:
            arr.setflags(write=False)
            self._K = arr
            if arr.ndim == 1 or order == "K.*u":
                self._mode = 0
            else:
                self._mode = 1 if order == "K*u" else 2

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        mode = self._mode
        v = u[0]
        if mode == 0 or isinstance(v, float):
            return (self._K * v,)
        if mode == 1:
            return (self._K @ v,)
        return (v @ self._K,)

    def kernels(self) -> Kernels:
        """Params ``(K,)``; ``gain_kernel`` (``K * u``) for a scalar or 1-D ``K`` or
        ``order="K.*u"``, else ``gain_matrix_kernel`` (``K @ u``) or ``gain_matrix_right_kernel``
        (``u @ K``), both ``K * u`` for a scalar input. The matrix products are loops (see
        ``_matmul``): equal to numpy's to rounding."""
        kernel = (gain_kernel, gain_matrix_kernel, gain_matrix_right_kernel)[self._mode]
        return Kernels(params=(_param(self._K),), output=kernel)


def _is_matrix(v: Any) -> bool:
    return isinstance(v, np.ndarray) and v.ndim > 0


class Product(Block):
    """Multiply and divide the inputs (Simulink *Product*, bdsim *PROD*).

    Equation: ``y = u0 ^ s0 * u1 ^ s1 * ...`` with ``s_i = +1`` for ``'*'`` and ``-1`` for
    ``'/'``, evaluated left to right. A first input with ``'/'`` gives its reciprocal (or its
    inverse in matrix mode).

    * Element-wise (default): ``*`` and ``/`` are numpy's element-wise operators (broadcast).
    * ``matrix=True``: ``'*'`` is the matrix product ``y @ u_i`` and ``'/'`` multiplies by the
      matrix inverse, ``y @ inv(u_i)`` (computed with a linear solve); scalar operands are
      multiplied or divided element-wise.

    Division by a scalar zero raises ``ZeroDivisionError`` (reported by the engine with the
    block and time); with arrays numpy gives inf or nan (reported as non-finite signals). A
    singular matrix in matrix mode raises ``numpy.linalg.LinAlgError``.

    Parameters
    ----------
    ops : str or int
        One character per input, ``'*'`` (multiply) or ``'/'`` (divide). An int ``n`` means
        ``'*' * n``. Default ``"**"``.
    matrix : bool
        Matrix products and inverses instead of element-wise operations. Default False.

    Inputs
    ------
    u0, u1, ... : float or ndarray
        One per operator, in order (a single input is named ``u``). Element-wise: any
        broadcastable shapes. Matrix mode: conformable matrices (square for ``'/'``) or
        vectors, as for numpy's ``@``.

    Outputs
    -------
    y : float or ndarray
        The product; unit is the product of the inputs' units raised to ``s_i``.
    """

    outputs = ("y",)

    def __init__(self, ops: str | int = "**", matrix: bool = False) -> None:
        super().__init__()
        self._ops = _op_string("Product", "ops", ops, "*/", "*")
        if not isinstance(matrix, (bool, np.bool_)):
            raise BlockParameterError(
                f"Product: parameter 'matrix' must be True or False, got {_short(matrix)}")
        self._matrix = bool(matrix)
        self.set_ports(inputs=_numbered("u", len(self._ops), "u"))
        self._mode = 0 if self._matrix else {"**": 1, "*/": 2}.get(self._ops, 3)
        self._first_div = self._ops[0] == "/"
        self._rest = tuple((i, c == "*") for i, c in enumerate(self._ops) if i > 0)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        mode = self._mode
        if mode == 1:
            return (u[0] * u[1],)
        if mode == 2:
            return (u[0] / u[1],)
        if mode == 3:
            y = 1.0 / u[0] if self._first_div else u[0]
            for i, mul in self._rest:
                y = y * u[i] if mul else y / u[i]
            return (y,)
        return (self._matrix_product(u),)

    def _matrix_product(self, u: Sequence[Any]) -> Any:
        y: Any = None
        for op, v in zip(self._ops, u, strict=True):
            if op == "*":
                if y is None:
                    y = v
                elif _is_matrix(y) and _is_matrix(v):
                    y = y @ v
                else:
                    y = y * v
            elif not _is_matrix(v):
                y = 1.0 / v if y is None else y / v
            elif y is None:
                y = np.linalg.inv(v)
            elif not _is_matrix(y):
                y = y * np.linalg.inv(v)
            elif y.ndim == 1:
                y = np.linalg.solve(np.transpose(v), y)  # y @ inv(v)
            else:
                y = np.linalg.solve(np.transpose(v), np.transpose(y)).T
        return y

    def kernels(self) -> Kernels:
        """Variadic kernels (any number of inputs). Element-wise: ``product_kernel``, params
        one int per input, ``MUL`` or ``DIV``. Matrix mode: ``matrix_product_kernel``, params
        one per input: ``1.0`` (a float) for ``'*'``, ``-1``
        (an int) for ``'/'`` -- the operator is told by the parameter's *type*, so that numba
        compiles only the operation valid for each operand's shape. Scalar division by zero
        raises ZeroDivisionError and a singular matrix numpy's LinAlgError, as in the
        interpreted block. ``y @ inv(v)`` is computed as such, with a Gauss-Jordan inverse
        (``_inv``; the interpreted block solves a linear system) and loop products
        (``_matmul``): equal to numpy's to rounding."""
        if self._matrix:
            return Kernels(params=tuple(1.0 if c == "*" else -1 for c in self._ops),
                           output=matrix_product_kernel)
        return Kernels(params=tuple(MUL if c == "*" else DIV for c in self._ops),
                       output=product_kernel)
