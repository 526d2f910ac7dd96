"""Function blocks: :class:`Function` (a user Python callable) and :class:`MathFunction`
(elementary functions).

Both are stateless, so by the default feedthrough rule each output reads all inputs at the same
instant (:class:`Function` can declare otherwise). Scalar signals are Python floats and stay
Python floats; array signals are float64 arrays.

Compiled back-end: :class:`MathFunction` has :meth:`kernels` (see
:mod:`blocksim.engine.compiled.kernels`), the numba function ``mathfunction_kernel`` at the
end of this module; they compute what the interpreted ``output`` computes, except that a scalar
outside a function's domain gives NaN or Inf (reported by the engine as a non-finite signal)
instead of raising. :class:`Function` calls Python and cannot be compiled.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numba
import numpy as np
from numba.extending import register_jitable

from blocksim.blocks._shared import _array, _numbered, _scalar, _short, _sign
from blocksim.blocks.math.kernels import _ieee_div
from blocksim.engine.block import Block
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain, suggest

__all__ = ["Function", "MathFunction"]


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
                f"MathFunction: {self._fname}({plain(v)}): the input {what} of {self._fname}"
            ) from None

    def kernels(self) -> Kernels:
        """``mathfunction_kernel``, params ``(code,)``, the function's number (an int). Unlike
        the interpreted block, a scalar outside the domain or overflowing gives NaN or Inf (as
        for arrays), which the engine reports as a non-finite signal."""
        return Kernels(params=(_FUNCTION_CODES[self._fname],), output=mathfunction_kernel)


# ---------------------------------------------------------------------------- kernels
#: function name -> the int code of ``mathfunction_kernel``
_FUNCTION_CODES: dict[str, int] = {name: code for code, name in enumerate(_FUNCTIONS)}


@register_jitable
def _mathfunction(code: int, v: float) -> float:
    """Function number ``code`` (the order of ``_FUNCTIONS``) of the float ``v``; NaN or Inf
    outside the domain or on overflow (numba's math functions do not raise)."""
    if code == 0:
        return math.sin(v)
    if code == 1:
        return math.cos(v)
    if code == 2:
        return math.tan(v)
    if code == 3:
        return math.asin(v)
    if code == 4:
        return math.acos(v)
    if code == 5:
        return math.atan(v)
    if code == 6:
        return math.sinh(v)
    if code == 7:
        return math.cosh(v)
    if code == 8:
        return math.tanh(v)
    if code == 9:
        return math.exp(v)
    if code == 10:
        return math.log(v)
    if code == 11:
        return math.log10(v)
    if code == 12:
        return math.sqrt(v)
    if code == 13:
        return math.fabs(v)
    if code == 14:
        return v * v
    if code == 15:
        return _ieee_div(1.0, v)
    if code == 16:
        return _sign(v)
    if code == 17:
        return np.floor(v)
    return np.ceil(v)


@numba.njit(cache=True, error_model="numpy")
def mathfunction_kernel(t, x, u, p):
    """:class:`MathFunction`, params ``(code,)``: the function's number in ``_FUNCTIONS``, a
    run-time int (one compiled version serves every function). Element by element for an
    array (a new array of its shape)."""
    code = p[0]
    if isinstance(u, float):
        return _mathfunction(code, _scalar(u))
    a = np.ravel(_array(u))
    y = np.empty(a.size)
    for i in range(a.size):
        y[i] = _mathfunction(code, a[i])
    return y.reshape(u.shape)
