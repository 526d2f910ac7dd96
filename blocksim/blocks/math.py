"""Stateless math blocks: sums, gains, products, user functions and elementary functions.

Every block here is stateless, so by the default feedthrough rule each output reads all inputs
at the same instant (:class:`Function` can declare otherwise). Scalar signals are Python floats
and stay Python floats; array signals are combined with numpy broadcasting. Inputs whose shapes
do not agree make numpy raise, which the compile-time dry run reports with the block's name.

Compiled back-end: every block except :class:`Function` has :meth:`kernels` (see
:mod:`blocksim.engine.compiled.kernels`); the kernels are the numba functions ``*_kernel`` at the
end of this module. They compute what the interpreted ``output`` computes, with the same
operations in the same order (the tests hold them equal); the differences are listed in each
block's ``kernels`` docstring (mainly: a scalar outside a function's domain gives NaN or Inf,
reported by the engine as a non-finite signal, instead of raising).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numba
import numpy as np

from blocksim.engine.block import Block
from blocksim.engine.compiled.kernels import Kernels
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

    def kernels(self) -> Kernels | None:
        """``sum<n>_kernel`` for n inputs (n <= 8; None above), params ``(s_0, ..., s_{n-1})``:
        one float per input, +1.0 or -1.0. ``y = s_0*u0 + s_1*u1 + ...`` left to right is
        bitwise the interpreted sum (``s*u`` is exact and ``y + -u`` is ``y - u``), and numba
        fuses it into one loop for arrays."""
        n = len(self._ops)
        if n > len(_SUM_KERNELS):
            return None
        return Kernels(params=tuple(1.0 if c == "+" else -1.0 for c in self._ops),
                       output=_SUM_KERNELS[n - 1])


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

    def kernels(self) -> Kernels | None:
        """n inputs (n <= 8; None above). Element-wise: ``product<n>_kernel``, params
        ``(mul_0, ..., mul_{n-1})``, one bool per input, True for ``'*'``. Matrix mode:
        ``matrix_product<n>_kernel``, params one per input: ``1.0`` (a float) for ``'*'``, ``-1``
        (an int) for ``'/'`` -- the operator is told by the parameter's *type*, so that numba
        compiles only the operation valid for each operand's shape. Scalar division by zero
        raises ZeroDivisionError and a singular matrix numpy's LinAlgError, as in the
        interpreted block. ``y @ inv(v)`` is computed as such, with a Gauss-Jordan inverse
        (``_inv``; the interpreted block solves a linear system) and loop products
        (``_matmul``): equal to numpy's to rounding."""
        n = len(self._ops)
        if n > len(_PRODUCT_KERNELS):
            return None
        if self._matrix:
            return Kernels(params=tuple(1.0 if c == "*" else -1 for c in self._ops),
                           output=_MATRIX_PRODUCT_KERNELS[n - 1])
        return Kernels(params=tuple(c == "*" for c in self._ops),
                       output=_PRODUCT_KERNELS[n - 1])


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

    def kernels(self) -> None:
        """None: a user Python callable cannot be compiled, so a diagram with a Function runs
        in the interpreted back-end only."""
        return None


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

    def kernels(self) -> Kernels:
        """``mathfunction_<func>_kernel`` (numpy's function, for a float or an array), params
        ``()``. Unlike the interpreted block, a scalar outside the domain or overflowing gives
        NaN or Inf (as for arrays), which the engine reports as a non-finite signal."""
        return Kernels(params=(), output=_FUNCTION_KERNELS[self._fname])


# ---------------------------------------------------------------------------- kernels
# The compiled numerics (contract: blocksim.engine.compiled.kernels): the same operations in
# the same order as the interpreted ``output``. Blocks with n inputs use the kernel of arity n;
# each input may be a float or an array (numba compiles one version per combination).
def _param(value: Any) -> Any:
    """A kernel parameter: a Python float, or a writable C-contiguous float64 copy."""
    if isinstance(value, float):
        return value
    return np.array(value, dtype=np.float64, order="C")


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


@numba.njit(cache=True)
def mathfunction_sin_kernel(t, x, u, p):
    return np.sin(u)


@numba.njit(cache=True)
def mathfunction_cos_kernel(t, x, u, p):
    return np.cos(u)


@numba.njit(cache=True)
def mathfunction_tan_kernel(t, x, u, p):
    return np.tan(u)


@numba.njit(cache=True)
def mathfunction_asin_kernel(t, x, u, p):
    return np.arcsin(u)


@numba.njit(cache=True)
def mathfunction_acos_kernel(t, x, u, p):
    return np.arccos(u)


@numba.njit(cache=True)
def mathfunction_atan_kernel(t, x, u, p):
    return np.arctan(u)


@numba.njit(cache=True)
def mathfunction_sinh_kernel(t, x, u, p):
    return np.sinh(u)


@numba.njit(cache=True)
def mathfunction_cosh_kernel(t, x, u, p):
    return np.cosh(u)


@numba.njit(cache=True)
def mathfunction_tanh_kernel(t, x, u, p):
    return np.tanh(u)


@numba.njit(cache=True)
def mathfunction_exp_kernel(t, x, u, p):
    return np.exp(u)


@numba.njit(cache=True)
def mathfunction_log_kernel(t, x, u, p):
    return np.log(u)


@numba.njit(cache=True)
def mathfunction_log10_kernel(t, x, u, p):
    return np.log10(u)


@numba.njit(cache=True)
def mathfunction_sqrt_kernel(t, x, u, p):
    return np.sqrt(u)


@numba.njit(cache=True)
def mathfunction_abs_kernel(t, x, u, p):
    return np.abs(u)


@numba.njit(cache=True)
def mathfunction_square_kernel(t, x, u, p):
    return np.square(u)


@numba.njit(cache=True)
def mathfunction_reciprocal_kernel(t, x, u, p):
    return np.reciprocal(u)


@numba.njit(cache=True)
def mathfunction_sign_kernel(t, x, u, p):
    return np.sign(u)


@numba.njit(cache=True)
def mathfunction_floor_kernel(t, x, u, p):
    return np.floor(u)


@numba.njit(cache=True)
def mathfunction_ceil_kernel(t, x, u, p):
    return np.ceil(u)


_FUNCTION_KERNELS = {
    "sin": mathfunction_sin_kernel,
    "cos": mathfunction_cos_kernel,
    "tan": mathfunction_tan_kernel,
    "asin": mathfunction_asin_kernel,
    "acos": mathfunction_acos_kernel,
    "atan": mathfunction_atan_kernel,
    "sinh": mathfunction_sinh_kernel,
    "cosh": mathfunction_cosh_kernel,
    "tanh": mathfunction_tanh_kernel,
    "exp": mathfunction_exp_kernel,
    "log": mathfunction_log_kernel,
    "log10": mathfunction_log10_kernel,
    "sqrt": mathfunction_sqrt_kernel,
    "abs": mathfunction_abs_kernel,
    "square": mathfunction_square_kernel,
    "reciprocal": mathfunction_reciprocal_kernel,
    "sign": mathfunction_sign_kernel,
    "floor": mathfunction_floor_kernel,
    "ceil": mathfunction_ceil_kernel,
}
