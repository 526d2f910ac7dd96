"""Continuous-time linear and integrating blocks.

:class:`Integrator`, :class:`TransferFunction`, :class:`StateSpace`, :class:`Derivative` and
:class:`PID` all have continuous states, integrated by the engine through
``deriv(t, x, u)``.

Performance notes
-----------------
The interpreted engine calls ``deriv`` and ``output`` once per right-hand-side evaluation, i.e.
tens of thousands of times per run. Scalar signals are Python floats, and the
single-input single-output blocks evaluate their equations in pure Python on ``x.tolist()``
(unrolled for n <= 4, a ``sum(map(mul, ...))`` loop for companion-form systems up to n = 16):
at these sizes a numpy matrix-vector product costs more than the whole pure-Python update.
``deriv`` then returns a tuple (or list) of floats, which the contract's "array-like of shape
(nx,)" allows. The fast path is chosen once, at construction, by binding the matching kernel
method to the instance's ``deriv`` / ``output`` attributes; the class-level ``deriv`` /
``output`` are the plain numpy reference implementations (the tests check the kernels against
them). The kernels only read immutable coefficients stored on the block, so the blocks stay
pure, copyable and picklable. Larger or multi-input/multi-output systems use numpy.

A strictly proper block (no direct feedthrough) never reads its input in ``output``: the engine
may call it before the inputs of the current instant are known.

Compiled kernels
----------------
Every block's ``kernels()`` returns the numba kernels of the compiled back-end
(:mod:`blocksim.engine.compiled.kernels`), module-level ``@njit(cache=True)`` functions below
(``integrator_*``, ``lti_*``, ``derivative_*``, ``pid_*``), chosen by shape, limits, order
and realisation; their ``params`` layouts are in each ``kernels()`` docstring. Scalar kernels
return floats or tuples of floats and never allocate. The interpreted :class:`PID` calls the
kernels' own pure-Python functions (``pid_output.py_func``, ...); the other blocks keep their
faster pure-Python paths, tested equal to the kernels.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from operator import mul
from typing import Any, ClassVar

import numpy as np

from blocksim.blocks.continuous_kernels import (  # noqa: F401 - kernels re-exported for callers
    _LTI_OUTPUT_FT,
    _LTI_OUTPUT_STRICT,
    _LTI_STATE_COMPANION,
    _LTI_STATE_DENSE,
    MAX_FAST_ORDER,
    _carray,
    _is_companion,
    _lti_kernels,
    _njit,
    _pid_deriv_limited_py,
    _pid_deriv_py,
    _pid_output_limited_py,
    _pid_output_py,
    derivative_array,
    derivative_deriv_scalar,
    derivative_output_scalar,
    integrator_deriv_array,
    integrator_deriv_array_limited,
    integrator_deriv_scalar,
    integrator_deriv_scalar_limited,
    integrator_output_array,
    integrator_output_scalar,
    integrator_output_scalar_limited,
    lti_output_ft_1,
    lti_output_ft_2,
    lti_output_ft_3,
    lti_output_ft_4,
    lti_output_ft_n,
    lti_output_gain,
    lti_output_mo_ft_mi,
    lti_output_mo_ft_si,
    lti_output_mo_strict,
    lti_output_so_ft_mi,
    lti_output_so_ft_si,
    lti_output_so_strict,
    lti_output_strict_1,
    lti_output_strict_2,
    lti_output_strict_3,
    lti_output_strict_4,
    lti_output_strict_n,
    lti_output_zero,
    lti_state_companion_2,
    lti_state_companion_3,
    lti_state_companion_4,
    lti_state_companion_n,
    lti_state_dense_1,
    lti_state_dense_2,
    lti_state_dense_3,
    lti_state_dense_4,
    lti_state_dense_n,
    lti_state_mi,
    lti_state_si,
    pid_deriv,
    pid_deriv_limited,
    pid_output,
    pid_output_limited,
)
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError

__all__ = ["PID", "Derivative", "Integrator", "StateSpace", "TransferFunction"]

#: largest order of a companion-form ``deriv`` evaluated by a pure-Python loop (numpy above:
#: measured crossover ~24 states)
MAX_LOOP_ORDER = 16
#: largest order of an ``output`` evaluated by a pure-Python loop (numpy above: crossover ~12)
MAX_LOOP_ORDER_OUTPUT = 12


# -- helpers
def _finite_float(owner: str, name: str, value: Any) -> float:
    """``float(value)``, raising :class:`BlockParameterError` unless it is a finite real."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be a real number, got {value!r}") from None
    if not math.isfinite(v):
        raise BlockParameterError(f"{owner}: parameter '{name}' must be finite, got {v}")
    return v


def _limit(owner: str, name: str, value: Any, default: float) -> float:
    """A scalar limit: a real number or +-inf (not NaN)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be a real number or +-inf, got {value!r}"
        ) from None
    if math.isnan(v):
        raise BlockParameterError(f"{owner}: parameter '{name}' is NaN; use {default} for no "
                                  f"limit")
    return v


def _real_array(owner: str, name: str, value: Any) -> np.ndarray:
    """``value`` as a finite float64 array, raising :class:`BlockParameterError` otherwise."""
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be an array of real numbers, got {value!r}"
        ) from None
    if not np.all(np.isfinite(a)):
        raise BlockParameterError(f"{owner}: parameter '{name}' must be finite, got {value!r}")
    return a


def _positive(owner: str, name: str, value: Any) -> float:
    v = _finite_float(owner, name, value)
    if v <= 0.0:
        raise BlockParameterError(f"{owner}: parameter '{name}' must be > 0, got {v}")
    return v


# ====================================================================== compiled kernels
# The block numerics compiled by numba for the compiled back-end; the contract (argument order
# ``(t, x, u0, ..., params)``, return values) is in :mod:`blocksim.engine.compiled.kernels`.
# Scalar kernels return floats / tuples of floats and index ``x[0], x[1]`` directly, so they
# never allocate; array kernels allocate their result only. Choices that change types or
# control flow (scalar vs array, limited or not, companion vs dense, order) select a kernel in
# the block's ``kernels()``; numbers are ``params``, so a parameter sweep reuses the code.
# ``params`` layouts are documented in each block's ``kernels()``.
def check_state_space(owner: str, A: Any, B: Any, C: Any, D: Any, x0: Any,
                      static_hint: str) -> tuple[np.ndarray, ...]:
    """Validate and shape state-space matrices: A (n, n), B (n, m), C (p, n), D (p, m) (zeros
    when None) and x0 (n,) (zeros when None); a 1-D B is a column, a 1-D C a row. Errors name
    ``owner``, the matrix, the expected and the found shape; ``static_hint`` is added when A is
    empty."""
    Aa = _real_array(owner, "A", A)
    Ba = _real_array(owner, "B", B)
    Ca = _real_array(owner, "C", C)
    if Aa.ndim == 0:
        Aa = Aa.reshape(1, 1)
    if Aa.ndim != 2 or Aa.shape[0] != Aa.shape[1] or Aa.size == 0:
        raise BlockParameterError(
            f"{owner}: A must be a non-empty square matrix (n, n), got shape {Aa.shape}"
            + (static_hint if Aa.size == 0 else ""))
    n = Aa.shape[0]
    if Ba.ndim == 0:
        Ba = Ba.reshape(1, 1)
    elif Ba.ndim == 1:
        Ba = Ba.reshape(-1, 1)
    if Ba.ndim != 2 or Ba.shape[0] != n or Ba.shape[1] == 0:
        raise BlockParameterError(
            f"{owner}: B must have shape (n, m) = ({n}, m) with m >= 1 to match A "
            f"{Aa.shape}, got shape {Ba.shape}")
    m = Ba.shape[1]
    if Ca.ndim <= 1:
        Ca = Ca.reshape(1, -1)
    if Ca.ndim != 2 or Ca.shape[1] != n or Ca.shape[0] == 0:
        raise BlockParameterError(
            f"{owner}: C must have shape (p, n) = (p, {n}) with p >= 1 to match A "
            f"{Aa.shape}, got shape {Ca.shape}")
    p = Ca.shape[0]
    if D is None:
        Da = np.zeros((p, m))
    else:
        Da = _real_array(owner, "D", D)
        if Da.ndim < 2 and Da.size == p * m and (p == 1 or m == 1):
            Da = Da.reshape(p, m)
        if Da.shape != (p, m):
            raise BlockParameterError(
                f"{owner}: D must have shape (p, m) = ({p}, {m}) to match C {Ca.shape} and "
                f"B {Ba.shape}, got shape {Da.shape}")
    if x0 is None:
        x0a = np.zeros(n)
    else:
        x0a = _real_array(owner, "x0", x0)
        if x0a.size != n:
            raise BlockParameterError(
                f"{owner}: x0 must have shape ({n},) to match A {Aa.shape}, got shape "
                f"{x0a.shape}")
        x0a = x0a.reshape(-1)
    return Aa, Ba, Ca, Da, x0a


class _LinearKernels(Block):
    """Pure-Python kernels of the SISO linear system x' = A x + B u, y = C x + D u.

    Coefficients (set by :meth:`_bind_siso`):

    ``_a``   first row of a companion-form A (``_companion`` kernels, B = e0) or ``_A`` the
             rows of a dense A and ``_b`` the column B (``_dense`` kernels), as tuples of floats;
    ``_c``   the row C; ``_d`` the scalar D.
    """

    _a: tuple[float, ...] = ()
    _A: tuple[tuple[float, ...], ...] = ()
    _b: tuple[float, ...] = ()
    _c: tuple[float, ...] = ()
    _d: float = 0.0

    def _bind_siso(self, A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray) -> None:
        """Select the cheapest ``deriv``/``output`` for this SISO realisation and bind them."""
        n = A.shape[0]
        b = B[:, 0]
        self._c = tuple(C[0].tolist())
        self._d = float(D[0, 0])
        self._An, self._Bn, self._Cn = A, b, C[0]
        ft = self._d != 0.0
        if n == 0:
            self.deriv = self._deriv_none  # type: ignore[method-assign]
            self.output = self._out_ft_0 if ft else self._out_zero  # type: ignore[method-assign]
            return
        kind = "ft" if ft else "strict"
        companion = (n > 1 and np.array_equal(A[1:], np.eye(n, k=-1)[1:])
                     and np.array_equal(b, np.eye(n)[:, 0]))
        if companion:
            self._a = tuple(A[0].tolist())
        if companion and n <= MAX_FAST_ORDER:
            self.deriv = getattr(self, f"_deriv_companion_{n}")  # type: ignore[method-assign]
        elif companion and n <= MAX_LOOP_ORDER:
            self.deriv = self._deriv_companion_n  # type: ignore[method-assign]
        elif n <= MAX_FAST_ORDER:
            self._A = tuple(tuple(row) for row in A.tolist())
            self._b = tuple(b.tolist())
            self.deriv = getattr(self, f"_deriv_dense_{n}")  # type: ignore[method-assign]
        else:
            self.deriv = self._deriv_np  # type: ignore[method-assign]
        if n <= MAX_FAST_ORDER:
            self.output = getattr(self, f"_out_{kind}_{n}")  # type: ignore[method-assign]
        elif n <= MAX_LOOP_ORDER_OUTPUT:
            self.output = getattr(self, f"_out_{kind}_n")  # type: ignore[method-assign]
        else:
            self.output = self._out_ft_np if ft else self._out_np  # type: ignore[method-assign]

    # -- numpy fallbacks
    def _deriv_none(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        return ()

    def _deriv_np(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return self._An @ x + self._Bn * u[0]

    def _out_np(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (float(self._Cn @ x),)

    def _out_ft_np(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (float(self._Cn @ x) + self._d * u[0],)

    # -- derivatives, companion form (first row a, subdiagonal ones, B = e0)
    def _deriv_companion_2(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        a0, a1 = self._a
        x0, x1 = x.tolist()
        return (a0 * x0 + a1 * x1 + u[0], x0)

    def _deriv_companion_3(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        a0, a1, a2 = self._a
        x0, x1, x2 = x.tolist()
        return (a0 * x0 + a1 * x1 + a2 * x2 + u[0], x0, x1)

    def _deriv_companion_4(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        a0, a1, a2, a3 = self._a
        x0, x1, x2, x3 = x.tolist()
        return (a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3 + u[0], x0, x1, x2)

    def _deriv_companion_n(self, t: float, x: np.ndarray, u: Sequence[Any]) -> list[float]:
        xs = x.tolist()
        return [sum(map(mul, self._a, xs)) + u[0], *xs[:-1]]

    # -- derivatives, dense A and B
    def _deriv_dense_1(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        ((a00,),) = self._A
        (b0,) = self._b
        return (a00 * x.item() + b0 * u[0],)

    def _deriv_dense_2(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        (a00, a01), (a10, a11) = self._A
        b0, b1 = self._b
        x0, x1 = x.tolist()
        v = u[0]
        return (a00 * x0 + a01 * x1 + b0 * v, a10 * x0 + a11 * x1 + b1 * v)

    def _deriv_dense_3(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        (a00, a01, a02), (a10, a11, a12), (a20, a21, a22) = self._A
        b0, b1, b2 = self._b
        x0, x1, x2 = x.tolist()
        v = u[0]
        return (a00 * x0 + a01 * x1 + a02 * x2 + b0 * v,
                a10 * x0 + a11 * x1 + a12 * x2 + b1 * v,
                a20 * x0 + a21 * x1 + a22 * x2 + b2 * v)

    def _deriv_dense_4(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        (a00, a01, a02, a03), (a10, a11, a12, a13), (a20, a21, a22, a23), \
            (a30, a31, a32, a33) = self._A
        b0, b1, b2, b3 = self._b
        x0, x1, x2, x3 = x.tolist()
        v = u[0]
        return (a00 * x0 + a01 * x1 + a02 * x2 + a03 * x3 + b0 * v,
                a10 * x0 + a11 * x1 + a12 * x2 + a13 * x3 + b1 * v,
                a20 * x0 + a21 * x1 + a22 * x2 + a23 * x3 + b2 * v,
                a30 * x0 + a31 * x1 + a32 * x2 + a33 * x3 + b3 * v)

    # -- outputs without feedthrough (never read u)
    def _out_zero(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (0.0,)

    def _out_strict_1(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        (c0,) = self._c
        return (c0 * x.item(),)

    def _out_strict_2(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        c0, c1 = self._c
        x0, x1 = x.tolist()
        return (c0 * x0 + c1 * x1,)

    def _out_strict_3(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        c0, c1, c2 = self._c
        x0, x1, x2 = x.tolist()
        return (c0 * x0 + c1 * x1 + c2 * x2,)

    def _out_strict_4(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        c0, c1, c2, c3 = self._c
        x0, x1, x2, x3 = x.tolist()
        return (c0 * x0 + c1 * x1 + c2 * x2 + c3 * x3,)

    def _out_strict_n(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (sum(map(mul, self._c, x.tolist())),)

    # -- outputs with direct feedthrough D u
    def _out_ft_0(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (self._d * u[0],)

    def _out_ft_1(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        (c0,) = self._c
        return (c0 * x.item() + self._d * u[0],)

    def _out_ft_2(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        c0, c1 = self._c
        x0, x1 = x.tolist()
        return (c0 * x0 + c1 * x1 + self._d * u[0],)

    def _out_ft_3(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        c0, c1, c2 = self._c
        x0, x1, x2 = x.tolist()
        return (c0 * x0 + c1 * x1 + c2 * x2 + self._d * u[0],)

    def _out_ft_4(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        c0, c1, c2, c3 = self._c
        x0, x1, x2, x3 = x.tolist()
        return (c0 * x0 + c1 * x1 + c2 * x2 + c3 * x3 + self._d * u[0],)

    def _out_ft_n(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (sum(map(mul, self._c, x.tolist())) + self._d * u[0],)

    # -- compiled kernels
    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`) of ``A, B, C, D``.

        Single-input single-output, order n <= 4: unrolled kernels over float params
        ``(d, c_0 .. c_{n-1}, a_0 .. a_{n-1})`` for a companion A (B = e_0, as every
        TransferFunction) or ``(d, c_0 .. c_{n-1}, A row-major .., b_0 .. b_{n-1})``; larger
        n: ``(d, c, a)`` / ``(d, c, A, b)`` with float64 arrays; a static gain (n = 0):
        ``(d,)`` and no ``deriv``. Multi-input or multi-output: ``(A, B, C, D)`` 2-D arrays.
        The output kernel of a strictly proper system never reads u.
        """
        params, output, state = _lti_kernels(self.A, self.B, self.C, self.D)
        return Kernels(params, output=output, deriv=state)


# -- Integrator
class Integrator(Block):
    r"""Integrator with optional output limits.

    .. math::

        \dot x = u \quad (\text{0 when } x \ge \text{upper},\ u > 0
        \text{ or } x \le \text{lower},\ u < 0), \qquad
        y = \min(\max(x, \text{lower}), \text{upper})

    applied element-wise for a vector (or matrix) state.

    Parameters
    ----------
    x0 : float or array_like, default 0.0
        Initial state, in the unit of the input times seconds. Its shape sets the shape of the
        input and output signals: a Python/numpy scalar gives a scalar (float) signal, an array
        of shape ``(n,)`` (even ``(1,)``) or ``(n, m)`` a signal of that shape. Must lie within
        ``[lower, upper]``.
    lower, upper : float or array_like, default -inf, +inf
        Output limits, broadcastable to the shape of ``x0``, with ``lower <= upper``.

    Inputs
    ------
    u : float or ndarray, shape of ``x0``
        Signal to integrate [unit/s].

    Outputs
    -------
    y : float or ndarray, shape of ``x0``
        The (clipped) integral [unit]. No feedthrough: ``y`` depends on the state only.

    States
    ------
    x : shape ``(x0.size,)``
        The integral, named ``"x"`` for a scalar state and ``"x0", "x1", ...`` otherwise.

    Notes
    -----
    The limits make the integrator stop (dx/dt = 0) while it is at or beyond a limit and the
    input pushes further; unlike Simulink's limited integrator the state is not reset to the
    limit (blocks are pure), so a solver step may overshoot the limit slightly. The output is
    clipped, so it never leaves ``[lower, upper]``.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, x0: Any = 0.0, lower: Any = -math.inf, upper: Any = math.inf) -> None:
        super().__init__()
        owner = type(self).__name__
        x0a = _real_array(owner, "x0", x0)
        shape = x0a.shape
        self._shape = shape
        self._scalar = shape == ()
        n = x0a.size
        if n == 0:
            raise BlockParameterError(f"{owner}: x0 must have at least one element, got {x0!r}")
        try:
            lo = np.broadcast_to(np.array(lower, dtype=float), shape)
            hi = np.broadcast_to(np.array(upper, dtype=float), shape)
        except (TypeError, ValueError):
            raise BlockParameterError(
                f"{owner}: lower and upper must be numbers or arrays broadcastable to the shape "
                f"of x0 {shape}, got lower={lower!r}, upper={upper!r}") from None
        if np.any(np.isnan(lo)) or np.any(np.isnan(hi)):
            raise BlockParameterError(f"{owner}: lower/upper must not be NaN; use -inf/inf for "
                                      f"no limit")
        if np.any(lo > hi):
            raise BlockParameterError(
                f"{owner}: lower must be <= upper, got lower={lower!r}, upper={upper!r}")
        if np.any(x0a < lo) or np.any(x0a > hi):
            raise BlockParameterError(
                f"{owner}: x0={x0!r} is outside the limits [lower, upper] = "
                f"[{lower!r}, {upper!r}]")
        limited = bool(np.any(np.isfinite(lo)) or np.any(np.isfinite(hi)))
        names = ("x",) if self._scalar else tuple(f"x{i}" for i in range(n))
        self.set_state(x0a, names)
        self.set_ports(inputs=(Port("u", shape=shape),), outputs=(Port("y", shape=shape),))
        self._lower_v = lo.reshape(-1).copy()
        self._upper_v = hi.reshape(-1).copy()
        self._limited = limited
        if self._scalar:
            self._lo = float(lo)
            self._hi = float(hi)
            if limited:
                self.deriv = self._deriv_scalar_limited  # type: ignore[method-assign]
                self.output = self._out_scalar_limited  # type: ignore[method-assign]
            else:
                self.deriv = self._deriv_scalar  # type: ignore[method-assign]
                self.output = self._out_scalar  # type: ignore[method-assign]
        elif limited:
            self.deriv = self._deriv_array_limited  # type: ignore[method-assign]
            self.output = self._out_array_limited  # type: ignore[method-assign]
        else:
            self.deriv = (self._deriv_vector if len(shape) == 1  # type: ignore[method-assign]
                          else self._deriv_array)
            self.output = self._out_array  # type: ignore[method-assign]

    # The class-level deriv/output are the reference implementations; __init__ binds faster
    # kernels with identical results to the instance.
    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """dx/dt = u, or 0 where a limit is reached and ``u`` pushes beyond it."""
        v = np.ravel(u[0]).astype(float)
        stop = ((x >= self._upper_v) & (v > 0.0)) | ((x <= self._lower_v) & (v < 0.0))
        return np.where(stop, 0.0, v)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        """y = x clipped to ``[lower, upper]``; never reads ``u``."""
        y = np.clip(x, self._lower_v, self._upper_v)
        return (float(y[0]),) if self._scalar else (y.reshape(self._shape),)

    # -- kernels
    def _deriv_scalar(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (u[0],)

    def _deriv_scalar_limited(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        v = u[0]
        xi = x.item()
        if (v > 0.0 and xi >= self._hi) or (v < 0.0 and xi <= self._lo):
            return (0.0,)
        return (v,)

    def _out_scalar(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (x.item(),)

    def _out_scalar_limited(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        y = x.item()
        if y > self._hi:
            return (self._hi,)
        if y < self._lo:
            return (self._lo,)
        return (y,)

    def _deriv_vector(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return u[0]  # shape (n,) already; the engine copies it into its derivative vector

    def _deriv_array(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return np.ravel(u[0])

    def _deriv_array_limited(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        v = np.ravel(u[0])
        stop = ((x >= self._upper_v) & (v > 0.0)) | ((x <= self._lower_v) & (v < 0.0))
        return np.where(stop, 0.0, v)

    def _out_array(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (x.reshape(self._shape).copy(),)  # copy: never hand out a view of the state

    def _out_array_limited(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (np.clip(x, self._lower_v, self._upper_v).reshape(self._shape),)

    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`).

        Scalar state: params ``()`` (:func:`integrator_output_scalar`,
        :func:`integrator_deriv_scalar`) or, with a finite limit, ``(lower, upper)`` floats
        (the ``_limited`` kernels). Array state: params ``(lower, upper)``, float64 arrays of
        the signal shape (+-inf where unlimited); the output is clipped to them (an exact copy
        without limits) and the derivative is stopped at them only when a limit is finite.
        """
        if self._scalar:
            if self._limited:
                return Kernels((self._lo, self._hi), output=integrator_output_scalar_limited,
                               deriv=integrator_deriv_scalar_limited)
            return Kernels((), output=integrator_output_scalar, deriv=integrator_deriv_scalar)
        params = (_carray(self._lower_v.reshape(self._shape)),
                  _carray(self._upper_v.reshape(self._shape)))
        return Kernels(params, output=integrator_output_array,
                       deriv=(integrator_deriv_array_limited if self._limited
                              else integrator_deriv_array))


# -- TransferFunction
class TransferFunction(_LinearKernels):
    r"""Single-input single-output rational transfer function.

    .. math::

        G(s) = \frac{Y(s)}{U(s)} = \frac{b_0 s^m + b_1 s^{m-1} + \dots + b_m}
                                        {a_0 s^n + a_1 s^{n-1} + \dots + a_n},
        \qquad m \le n,\ a_0 \ne 0

    realised at construction by :func:`scipy.signal.tf2ss` in controller canonical form
    ``x' = A x + B u, y = C x + D u`` (A companion matrix with first row
    ``-[a_1 .. a_n] / a_0``, B = e_0).

    Parameters
    ----------
    num : float or array_like, shape (m + 1,)
        Numerator coefficients, highest power of s first. Leading zeros are ignored.
    den : float or array_like, shape (n + 1,)
        Denominator coefficients, highest power of s first; ``den[0]`` must be non-zero.
        The transfer function must be proper (``m <= n``).
    x0 : array_like, shape (n,), optional
        Initial state of the canonical realisation (default zeros: the system at rest).

    Inputs
    ------
    u : float
        Input signal [any unit].

    Outputs
    -------
    y : float
        Output signal [unit of u times the gain's unit]. Feedthrough from ``u`` only when the
        transfer function is biproper (D != 0, i.e. ``m == n`` with ``b_0 != 0``).

    States
    ------
    x : shape (n,)
        States of the controller canonical realisation, named ``"x0" .. "x{n-1}"``. A
        constant gain (``n == 0``) has no state.

    Examples
    --------
    First-order lag 1 / (tau s + 1): ``TransferFunction([1], [tau, 1])``.
    """

    inputs = (Port("u", shape=()),)
    outputs = (Port("y", shape=()),)

    def __init__(self, num: Any, den: Any, x0: Any = None) -> None:
        super().__init__()
        owner = type(self).__name__
        num_a = _real_array(owner, "num", num)
        den_a = _real_array(owner, "den", den)
        for label, arr in (("num", num_a), ("den", den_a)):
            if arr.ndim > 1:
                raise BlockParameterError(
                    f"{owner}: {label} must be a 1-D coefficient sequence (SISO only), got shape "
                    f"{arr.shape}; use StateSpace for multi-input/multi-output systems")
        num_a = num_a.reshape(-1)
        den_a = den_a.reshape(-1)
        if den_a.size == 0:
            raise BlockParameterError(f"{owner}: den is empty; give at least one coefficient")
        if den_a[0] == 0.0:
            raise BlockParameterError(
                f"{owner}: the leading denominator coefficient den[0] must be non-zero, got "
                f"den={den_a.tolist()}; drop leading zeros")
        if num_a.size == 0:
            raise BlockParameterError(f"{owner}: num is empty; give at least one coefficient")
        nz = np.flatnonzero(num_a)
        num_a = num_a[nz[0]:] if nz.size else np.zeros(1)
        n = den_a.size - 1
        if num_a.size - 1 > n:
            raise BlockParameterError(
                f"{owner}: improper transfer function: numerator degree {num_a.size - 1} > "
                f"denominator degree {n} (num={num_a.tolist()}, den={den_a.tolist()}); "
                f"a block output cannot differentiate its input - use Derivative or add poles")
        if n == 0:
            A = np.zeros((0, 0))
            B = np.zeros((0, 1))
            C = np.zeros((1, 0))
            D = np.array([[num_a[0] / den_a[0]]])
        else:
            with warnings.catch_warnings():
                from scipy.signal import BadCoefficients, tf2ss  # lazy: a slow import

                warnings.simplefilter("ignore", BadCoefficients)
                A, B, C, D = tf2ss(num_a, den_a)
            A, B, C, D = (np.asarray(M, dtype=float) for M in (A, B, C, D))
        if x0 is None:
            x0a = np.zeros(n)
        else:
            x0a = _real_array(owner, "x0", x0).reshape(-1)
            if x0a.size != n:
                raise BlockParameterError(
                    f"{owner}: x0 must have {n} element(s) (the order of den), got "
                    f"{x0a.size}")
        self.A, self.B, self.C, self.D = A, B, C, D
        self.set_state(x0a, tuple(f"x{i}" for i in range(n)))
        self.feedthrough = {"y": ("u",) if D[0, 0] != 0.0 else ()}  # type: ignore[misc]
        self._bind_siso(A, B, C, D)

    # The class-level deriv/output are the reference implementations; __init__ binds faster
    # kernels with identical results to the instance.
    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """dx/dt = A x + B u (the bound kernel returns a tuple of floats for n <= 4)."""
        return self.A @ x + self.B[:, 0] * u[0]

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        """y = C x + D u as a float; reads ``u`` only when D != 0."""
        y = float(self.C[0] @ x)
        if self._d != 0.0:
            y += self._d * u[0]
        return (y,)


# -- StateSpace
class StateSpace(_LinearKernels):
    r"""Linear time-invariant state-space system.

    .. math::

        \dot x = A x + B u, \qquad y = C x + D u

    Parameters
    ----------
    A : array_like, shape (n, n)
        State matrix, n >= 1 (a scalar is taken as 1 x 1).
    B : array_like, shape (n, m)
        Input matrix. A 1-D array of length n is taken as a single column (m = 1).
    C : array_like, shape (p, n)
        Output matrix. A 1-D array of length n is taken as a single row (p = 1).
    D : array_like, shape (p, m), optional
        Feedthrough matrix (default zeros). A scalar or 1-D array is accepted when it has
        exactly p * m elements and p == 1 or m == 1.
    x0 : array_like, shape (n,), optional
        Initial state (default zeros).

    Inputs
    ------
    u : float if m == 1, else ndarray of shape (m,)
        Input vector.

    Outputs
    -------
    y : float if p == 1, else ndarray of shape (p,)
        Output vector. Feedthrough from ``u`` only when D has a non-zero entry.

    States
    ------
    x : shape (n,)
        Named ``"x0" .. "x{n-1}"``.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, A: Any, B: Any, C: Any, D: Any = None, x0: Any = None) -> None:
        super().__init__()
        owner = type(self).__name__
        Aa, Ba, Ca, Da, x0a = check_state_space(owner, A, B, C, D, x0,
                                                "; for a static system use a Gain block")
        n, m, p = Aa.shape[0], Ba.shape[1], Ca.shape[0]
        self.A, self.B, self.C, self.D = Aa, Ba, Ca, Da
        self.set_state(x0a, tuple(f"x{i}" for i in range(n)))
        self.set_ports(inputs=(Port("u", shape=() if m == 1 else (m,)),),
                       outputs=(Port("y", shape=() if p == 1 else (p,)),))
        has_d = bool(np.any(Da != 0.0))
        self.feedthrough = {"y": ("u",) if has_d else ()}  # type: ignore[misc]
        self._has_d = has_d
        if m == 1 and p == 1:
            self._bind_siso(Aa, Ba, Ca, Da)
            return
        self._Bcol = Ba[:, 0].copy()
        self._Crow = Ca[0].copy()
        if m == 1:
            self.deriv = self._deriv_si  # type: ignore[method-assign]
        else:
            self.deriv = self._deriv_mi  # type: ignore[method-assign]
        if p == 1:
            self.output = self._out_so  # type: ignore[method-assign]
        else:
            self.output = self._out_mo  # type: ignore[method-assign]

    # The class-level deriv/output are the reference implementations; __init__ binds faster
    # kernels with identical results to the instance.
    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """dx/dt = A x + B u."""
        return self.A @ x + self.B @ np.atleast_1d(u[0])

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        """y = C x + D u; reads ``u`` only when D is non-zero."""
        y = self.C @ x
        if self._has_d:
            y = y + self.D @ np.atleast_1d(u[0])
        return (float(y[0]),) if y.size == 1 and self.C.shape[0] == 1 else (y,)

    # -- numpy kernels for multi-input or multi-output systems
    def _deriv_si(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return self.A @ x + self._Bcol * u[0]

    def _deriv_mi(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return self.A @ x + self.B @ u[0]

    def _out_so(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        y = float(self._Crow @ x)
        if self._has_d:
            y += float(self.D[0] @ np.atleast_1d(u[0]))
        return (y,)

    def _out_mo(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        y = self.C @ x
        if self._has_d:
            v = u[0]
            y = y + (self.D[:, 0] * v if isinstance(v, float) else self.D @ v)
        return (y,)


# -- Derivative
class Derivative(Block):
    r"""Filtered (proper) derivative.

    .. math::

        Y(s) = \frac{s}{1 + s/N}\, U(s):
        \qquad \dot z = N (u - z), \qquad y = N (u - z)

    i.e. the exact derivative seen through a first-order low-pass filter with pole at ``-N``
    rad/s. Works element-wise on a vector signal whose size is set by ``x0``.

    Parameters
    ----------
    N : float, default 100.0
        Filter bandwidth [rad/s], > 0. Larger N approximates d/dt more closely but makes the
        system stiffer.
    x0 : float or array_like, default 0.0
        Initial filter state z(0) [unit of u]; its shape sets the signal shape (a scalar gives a
        float signal, an array of shape ``(n,)`` a vector signal). With ``z(0) = 0`` and
        ``u(0) != 0`` the output starts at ``N u(0)`` (a derivative kick, as in Simulink); set
        ``x0 = u(0)`` to start at rest.

    Inputs
    ------
    u : float or ndarray, shape of ``x0``
        Signal to differentiate [unit].

    Outputs
    -------
    y : float or ndarray, shape of ``x0``
        Filtered derivative [unit/s]. Direct feedthrough from ``u``.

    States
    ------
    z : shape (x0.size,)
        Filter state (low-pass filtered ``u``), named ``"z"`` (scalar) or ``"z0", "z1", ...``.
    """

    inputs = ("u",)
    outputs = ("y",)
    feedthrough: ClassVar[dict[str, tuple[str, ...]]] = {"y": ("u",)}

    def __init__(self, N: float = 100.0, x0: Any = 0.0) -> None:
        super().__init__()
        owner = type(self).__name__
        self.N = _positive(owner, "N", N)
        x0a = _real_array(owner, "x0", x0)
        if x0a.ndim > 1 or x0a.size == 0:
            raise BlockParameterError(
                f"{owner}: x0 must be a scalar or a non-empty 1-D array, got shape {x0a.shape}")
        shape = x0a.shape
        n = x0a.size
        self._scalar = shape == ()
        self.set_state(x0a, ("z",) if shape == () else tuple(f"z{i}" for i in range(n)))
        self.set_ports(inputs=(Port("u", shape=shape),), outputs=(Port("y", shape=shape),))
        if shape == ():
            self.deriv = self._deriv_scalar  # type: ignore[method-assign]
            self.output = self._out_scalar  # type: ignore[method-assign]
        else:
            self.deriv = self._deriv_array  # type: ignore[method-assign]
            self.output = self._out_array  # type: ignore[method-assign]

    # The class-level deriv/output are the reference implementations; __init__ binds faster
    # kernels with identical results to the instance.
    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """dz/dt = N (u - z)."""
        return self.N * (np.ravel(u[0]) - x)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        """y = N (u - z)."""
        y = self.N * (np.ravel(u[0]) - x)
        return (float(y[0]),) if self._scalar else (y,)

    def _deriv_scalar(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (self.N * (u[0] - x.item()),)

    _out_scalar = _deriv_scalar

    def _deriv_array(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return self.N * (u[0] - x)

    def _out_array(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (self.N * (u[0] - x),)

    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`); params ``(N,)``.

        Scalar: :func:`derivative_output_scalar` / :func:`derivative_deriv_scalar`; vector:
        :func:`derivative_array` for both.
        """
        if self._scalar:
            return Kernels((self.N,), output=derivative_output_scalar,
                           deriv=derivative_deriv_scalar)
        return Kernels((self.N,), output=derivative_array, deriv=derivative_array)


# -- PID
class PID(Block):
    r"""Parallel PID controller with filtered derivative, output limits and anti-windup.

    .. math::

        v = K_p e + K_i x_i + K_d N (e - z), \qquad
        \dot x_i = e, \qquad \dot z = N (e - z), \qquad
        y = \min(\max(v, \text{lower}), \text{upper})

    so that, from zero initial state and without saturation,

    .. math::

        Y(s) = \left(K_p + \frac{K_i}{s} + \frac{K_d\, s}{1 + s/N}\right) E(s).

    Anti-windup by clamping (conditional integration): the integral stops
    (:math:`\dot x_i = 0`) while the unsaturated output ``v`` is beyond a limit and the error
    would drive it further (``v > upper`` and ``Ki e > 0``, or ``v < lower`` and ``Ki e < 0``).
    With ``clamp_band = w > 0`` the stop is gradual: :math:`\dot x_i = e\,(1 - d/w)` for an
    excess :math:`0 < d < w` beyond the limit (e.g. :math:`d = v - \text{upper}`), 0 from
    :math:`d \ge w` on.

    Parameters
    ----------
    Kp : float, default 1.0
        Proportional gain [unit of y / unit of e].
    Ki : float, default 0.0
        Integral gain [unit of y / (unit of e . s)].
    Kd : float, default 0.0
        Derivative gain [unit of y . s / unit of e].
    N : float, default 100.0
        Derivative filter pole [rad/s], > 0.
    lower, upper : float, default -inf, +inf
        Output limits [unit of y], ``lower <= upper``.
    x0 : array_like, shape (2,), default (0, 0)
        Initial (integral, filter) state: integral of e [unit of e . s], filtered e [unit of e].
    clamp_band : float, default 0.0
        Width of the anti-windup transition beyond a limit [unit of y], >= 0. 0 gives the exact
        on/off clamp, whose right-hand side is discontinuous at ``v == limit``: while the
        output slides along a limit (integration on just below it, off just above), adaptive
        solvers take tiny steps (measured: RK45 at rtol 1e-6 needs ~500x more evaluations).
        A small band (e.g. 1e-3 of the output range) makes the right-hand side Lipschitz and
        removes that cost; the output is unchanged while saturated (it is clipped) and the
        integral differs by at most ``clamp_band / |Ki|``.

    Inputs
    ------
    e : float
        Error signal (reference - measurement) [unit of e].

    Outputs
    -------
    y : float
        Control signal [unit of y]. Direct feedthrough from ``e``.

    States
    ------
    integral : float
        Integral of the error, x_i.
    filter : float
        Derivative filter state z (low-pass filtered error).
    """

    inputs = (Port("e", shape=()),)
    outputs = (Port("y", shape=()),)
    feedthrough: ClassVar[dict[str, tuple[str, ...]]] = {"y": ("e",)}
    state_names = ("integral", "filter")

    def __init__(self, Kp: float = 1.0, Ki: float = 0.0, Kd: float = 0.0, N: float = 100.0,
                 lower: float = -math.inf, upper: float = math.inf,
                 x0: Any = (0.0, 0.0), clamp_band: float = 0.0) -> None:
        super().__init__()
        owner = type(self).__name__
        self.Kp = _finite_float(owner, "Kp", Kp)
        self.Ki = _finite_float(owner, "Ki", Ki)
        self.Kd = _finite_float(owner, "Kd", Kd)
        self.N = _positive(owner, "N", N)
        self.lower = _limit(owner, "lower", lower, -math.inf)
        self.upper = _limit(owner, "upper", upper, math.inf)
        if self.lower > self.upper:
            raise BlockParameterError(
                f"{owner}: lower must be <= upper, got lower={lower!r}, upper={upper!r}")
        x0a = _real_array(owner, "x0", x0).reshape(-1)
        if x0a.size != 2:
            raise BlockParameterError(
                f"{owner}: x0 must be (integral, filter), 2 elements, got {x0a.size}")
        band = _finite_float(owner, "clamp_band", clamp_band)
        if band < 0.0:
            raise BlockParameterError(f"{owner}: parameter 'clamp_band' must be >= 0, got {band}")
        self.clamp_band = band
        self.set_state(x0a, ("integral", "filter"))
        self._KdN = self.Kd * self.N
        self._limited = math.isfinite(self.lower) or math.isfinite(self.upper)
        #: the kernels' params (see :meth:`kernels`)
        self._kp = (self.Kp, self.Ki, self._KdN, self.N, self.lower, self.upper, band)
        if self._limited:
            self.deriv = self._deriv_limited  # type: ignore[method-assign]
            self.output = self._output_limited  # type: ignore[method-assign]
        else:
            self.deriv = self._deriv_free  # type: ignore[method-assign]
            self.output = self._output_free  # type: ignore[method-assign]

    # The numerics are the pure-Python versions of the compiled kernels (pid_output, ...,
    # called with x as a list of floats); __init__ binds the variant without the limit test.
    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        """(d integral/dt, d filter/dt) = (e or 0 when clamped, N (e - z))."""
        f = _pid_deriv_limited_py if self._limited else _pid_deriv_py
        return f(t, x.tolist(), u[0], self._kp)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        """y = Kp e + Ki x_i + Kd N (e - z), saturated to [lower, upper]."""
        f = _pid_output_limited_py if self._limited else _pid_output_py
        return (f(t, x.tolist(), u[0], self._kp),)

    def _deriv_free(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        return _pid_deriv_py(t, x.tolist(), u[0], self._kp)

    def _deriv_limited(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        return _pid_deriv_limited_py(t, x.tolist(), u[0], self._kp)

    def _output_free(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (_pid_output_py(t, x.tolist(), u[0], self._kp),)

    def _output_limited(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (_pid_output_limited_py(t, x.tolist(), u[0], self._kp),)

    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`).

        Params ``(Kp, Ki, Kd * N, N, lower, upper, clamp_band)`` (floats) for every variant;
        :func:`pid_output` / :func:`pid_deriv` without limits, :func:`pid_output_limited` /
        :func:`pid_deriv_limited` (saturation and anti-windup clamping) with a finite limit.
        """
        if self._limited:
            return Kernels(self._kp, output=pid_output_limited, deriv=pid_deriv_limited)
        return Kernels(self._kp, output=pid_output, deriv=pid_deriv)
