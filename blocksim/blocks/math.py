"""Stateless math blocks: sums, gains, products, user functions and elementary functions.

Every block here is stateless, so by the default feedthrough rule each output reads all inputs
at the same instant (:class:`Function` can declare otherwise). Scalar signals are Python floats
and stay Python floats; array signals are combined with numpy broadcasting. Inputs whose shapes
do not agree make numpy raise, which the compile-time dry run reports with the block's name.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from blocksim.engine.block import Block
from blocksim.engine.errors import BlockParameterError, suggest

__all__ = [
    "Function",
    "Gain",
    "MathFunction",
    "Product",
    "Sum",
]


def _short(value: Any) -> str:
    """A repr of ``value`` short enough for an error message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _numbered(prefix: str, n: int, single: str) -> list[str]:
    """Port names: ``single`` for one port, ``prefix0, prefix1, ...`` otherwise."""
    return [single] if n == 1 else [f"{prefix}{i}" for i in range(n)]


def _op_string(cls: str, name: str, value: Any, allowed: str, default: str,
               spacer: str = "") -> str:
    """Validate a string of operator characters (or an int n meaning ``default * n``).

    Returns the operators with the no-op ``spacer`` characters removed.
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if value < 1:
            raise BlockParameterError(
                f"{cls}: parameter '{name}' as a number of inputs must be >= 1, got {value}")
        return default * int(value)
    chars = ", ".join(map(repr, allowed + spacer))
    if not isinstance(value, str):
        raise BlockParameterError(
            f"{cls}: parameter '{name}' must be a string of {chars} characters or a number of "
            f"inputs, got {_short(value)}")
    bad = sorted({c for c in value if c not in allowed + spacer})
    if bad:
        raise BlockParameterError(
            f"{cls}: parameter '{name}' may contain only the characters {chars}, got {value!r} "
            f"(invalid: {', '.join(map(repr, bad))})")
    ops = "".join(c for c in value if c not in spacer)
    if not ops:
        raise BlockParameterError(
            f"{cls}: parameter '{name}' must have at least one of "
            f"{', '.join(map(repr, allowed))} (one per input), got {value!r}")
    return ops


class Sum(Block):
    """Add and subtract the inputs (Simulink *Sum*, bdsim *SUM*).

    Equation: ``y = s0*u0 + s1*u1 + ...`` with ``s_i = +1`` or ``-1`` from ``signs``.

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
        pos = tuple(i for i, c in enumerate(ops) if c == "+")
        neg = tuple(i for i, c in enumerate(ops) if c == "-")
        # generic path: y = (+/-)u[first], then add the rest, then subtract
        self._first = pos[0] if pos else neg[0]
        self._first_neg = not pos
        self._add = pos[1:]
        self._sub = neg if pos else neg[1:]
        self._mode = {"++": 1, "+-": 2, "-+": 3}.get(ops, 0)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        mode = self._mode
        if mode == 1:
            return (u[0] + u[1],)
        if mode == 2:
            return (u[0] - u[1],)
        if mode == 3:
            return (u[1] - u[0],)
        y = -u[self._first] if self._first_neg else u[self._first]
        for i in self._add:
            y = y + u[i]
        for i in self._sub:
            y = y - u[i]
        return (y,)


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


def _as_signal(value: Any) -> Any:
    """A function result as a signal: Python float for scalars, float64 array otherwise."""
    if type(value) is float:
        return value
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return float(value)
        return value if value.dtype == np.float64 else value.astype(float)
    if isinstance(value, (int, float, np.number)):
        return float(value)
    arr = np.asarray(value, dtype=float)
    return float(arr) if arr.ndim == 0 else arr


class Function(Block):
    """Apply a user Python callable to the inputs (Simulink *MATLAB Function*, bdsim *FUNCTION*).

    Equation: ``y = func(u0, u1, ..., *args, **kwargs)``; with ``nout > 1`` func returns a tuple
    ``(y0, y1, ...)``.

    The callable is held by reference: a diagram containing a Function can be built and run in
    Python only, never saved to or loaded from a file. ``func`` must be pure (no state kept
    between calls): it is called at minor solver steps and during the compile-time dry run.

    Parameters
    ----------
    func : callable
        ``func(*inputs, *args, **kwargs) -> value`` (or a tuple/list of ``nout`` values).
        Numbers come back as Python floats, sequences as float64 arrays.
    nin : int
        Number of inputs, >= 0 (default 1).
    nout : int
        Number of outputs, >= 1 (default 1).
    args : tuple
        Extra positional arguments passed after the inputs (default none).
    kwargs : dict
        Extra keyword arguments passed to ``func`` (default none).
    feedthrough : bool or dict
        Whether the outputs read the inputs at the same instant: True (default) for all
        outputs, False if ``func`` ignores its inputs, or a dict ``{output: (inputs, ...)}``
        with the port names below. Declare it exactly: it decides algebraic-loop detection.

    Inputs
    ------
    u0, u1, ... : any signal
        ``nin`` inputs, passed positionally (a single input is named ``u``).

    Outputs
    -------
    y0, y1, ... : float or ndarray
        ``nout`` outputs (a single output is named ``y``), shapes as returned by ``func``.
    """

    def __init__(self, func: Callable[..., Any], nin: int = 1, nout: int = 1,
                 args: Sequence[Any] = (), kwargs: Mapping[str, Any] | None = None,
                 feedthrough: bool | Mapping[str, Sequence[str]] = True) -> None:
        super().__init__()
        if not callable(func):
            raise BlockParameterError(
                f"Function: parameter 'func' must be a callable, got {_short(func)}")
        for name, value, low in (("nin", nin, 0), ("nout", nout, 1)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) \
                    or value < low:
                raise BlockParameterError(
                    f"Function: parameter '{name}' must be an integer >= {low}, "
                    f"got {_short(value)}")
        if isinstance(args, (str, bytes)) or not isinstance(args, Sequence):
            raise BlockParameterError(
                f"Function: parameter 'args' must be a tuple of extra arguments, "
                f"got {_short(args)}")
        if kwargs is not None and not isinstance(kwargs, Mapping):
            raise BlockParameterError(
                f"Function: parameter 'kwargs' must be a dict of keyword arguments, "
                f"got {_short(kwargs)}")
        self._func = func
        self._nin = int(nin)
        self._nout = int(nout)
        self._args = tuple(args)
        self._kwargs = dict(kwargs or {})
        in_names = _numbered("u", self._nin, "u") if self._nin else []
        out_names = _numbered("y", self._nout, "y")
        self.set_ports(inputs=in_names, outputs=out_names)
        self._check_signature()
        if isinstance(feedthrough, (bool, np.bool_)):
            self.feedthrough = bool(feedthrough)  # type: ignore[misc]
        elif isinstance(feedthrough, Mapping):
            for out, ins in feedthrough.items():
                if out not in out_names:
                    raise BlockParameterError(
                        f"Function: feedthrough names output {out!r}, but the outputs are "
                        f"{out_names}{suggest(str(out), out_names)}")
                if isinstance(ins, str) or not all(i in in_names for i in ins):
                    raise BlockParameterError(
                        f"Function: feedthrough[{out!r}] must be a tuple of input names "
                        f"from {in_names}, got {_short(ins)}")
            self.feedthrough = {  # type: ignore[misc]
                o: tuple(i) for o, i in feedthrough.items()}
        else:
            raise BlockParameterError(
                f"Function: parameter 'feedthrough' must be True, False or a dict "
                f"{{output: (inputs, ...)}}, got {_short(feedthrough)}")

    def _check_signature(self) -> None:
        """Raise now if ``func`` cannot accept nin inputs plus args and kwargs."""
        try:
            sig = inspect.signature(self._func)
        except (TypeError, ValueError):  # some builtins have no signature
            return
        try:
            sig.bind(*([0.0] * self._nin), *self._args, **self._kwargs)
        except TypeError as exc:
            name = getattr(self._func, "__name__", repr(self._func))
            raise BlockParameterError(
                f"Function: func {name}{sig} cannot be called with {self._nin} input(s)"
                f"{f' + {len(self._args)} args' if self._args else ''}"
                f"{f' and kwargs {sorted(self._kwargs)}' if self._kwargs else ''}: {exc}"
            ) from None

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        result = self._func(*u, *self._args, **self._kwargs)
        if self._nout == 1:
            return (_as_signal(result),)
        if not isinstance(result, (tuple, list)) or len(result) != self._nout:
            got = (f"{type(result).__name__} of length {len(result)}"
                   if isinstance(result, (tuple, list)) else type(result).__name__)
            raise ValueError(
                f"Function: func must return a tuple of {self._nout} outputs, got {got}")
        return tuple(_as_signal(v) for v in result)


def _sign(v: float) -> float:
    return 1.0 if v > 0 else (-1.0 if v < 0 else 0.0 * v)  # 0.0 * nan is nan


#: name -> (scalar function on Python floats, array function)
_FUNCTIONS: dict[str, tuple[Callable[[float], float], Callable[[np.ndarray], np.ndarray]]] = {
    "sin": (math.sin, np.sin),
    "cos": (math.cos, np.cos),
    "tan": (math.tan, np.tan),
    "asin": (math.asin, np.arcsin),
    "acos": (math.acos, np.arccos),
    "atan": (math.atan, np.arctan),
    "sinh": (math.sinh, np.sinh),
    "cosh": (math.cosh, np.cosh),
    "tanh": (math.tanh, np.tanh),
    "exp": (math.exp, np.exp),
    "log": (math.log, np.log),
    "log10": (math.log10, np.log10),
    "sqrt": (math.sqrt, np.sqrt),
    "abs": (math.fabs, np.abs),
    "square": (lambda v: v * v, np.square),
    "reciprocal": (lambda v: 1.0 / v, lambda a: 1.0 / a),
    "sign": (_sign, np.sign),
    "floor": (lambda v: float(math.floor(v)), np.floor),
    "ceil": (lambda v: float(math.ceil(v)), np.ceil),
}


class MathFunction(Block):
    """Apply an elementary function element-wise (Simulink *Math Function*, *Trigonometry*).

    Equation: ``y = f(u)`` with ``f`` named by ``func``, one of: sin cos tan asin acos atan
    sinh cosh tanh exp log (natural) log10 sqrt abs square (``u**2``) reciprocal (``1/u``)
    sign (-1, 0 or 1) floor ceil. Angles are in radians.

    A scalar input is evaluated with :mod:`math` and an input outside the function's domain
    (``sqrt(-1)``, ``log(0)``, ``asin(2)``, ``reciprocal(0)``) or an overflow (``exp(1000)``)
    raises an error naming the function and the value. Array inputs are evaluated with numpy,
    which gives nan or inf there (reported by the engine as non-finite signals).

    Parameters
    ----------
    func : str
        The function name (default ``"sin"``).

    Inputs
    ------
    u : float or ndarray (any shape)
        The argument.

    Outputs
    -------
    y : float or ndarray, the shape of ``u``
        ``f(u)``, element-wise.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, func: str = "sin") -> None:
        super().__init__()
        if not isinstance(func, str) or func not in _FUNCTIONS:
            names = list(_FUNCTIONS)
            raise BlockParameterError(
                f"MathFunction: parameter 'func' must be one of {', '.join(names)}; "
                f"got {_short(func)}{suggest(str(func), names)}")
        self._fname = func
        self._scalar, self._array = _FUNCTIONS[func]

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        v = u[0]
        if isinstance(v, np.ndarray) and v.ndim > 0:
            return (self._array(v),)
        try:
            return (self._scalar(v if type(v) is float else float(v)),)
        except (ValueError, ZeroDivisionError, OverflowError) as exc:
            what = "overflows" if isinstance(exc, OverflowError) else \
                "is outside the domain"
            raise type(exc)(
                f"MathFunction: {self._fname}({v!r}): the input {what} of {self._fname}"
            ) from None
