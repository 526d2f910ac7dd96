r"""Discrete-time blocks: samplers, delays, integrators, linear systems, PID, rate transitions.

Every block here has a sample ``clock`` (:class:`~blocksim.engine.clock.Clock`): a ``Clock``, a
period T [s] or a ``(period, offset)`` pair. The parameter is required: unlike Simulink's
``-1``, there is no inherited sample time for a block with discrete states, and a sampler that
inherited its input's rate would do nothing.

Semantics (Simulink's)
----------------------
At the k-th hit :math:`t_k = \text{offset} + k T` of its clock, the engine computes the block's
outputs :math:`y[k] = \text{output}(t_k, x[k], u[k])`, in evaluation order (so an output with
feedthrough sees the inputs of the same hit), and *holds* them until the next hit; then it calls
:math:`x[k+1] = \text{update}(t_k, x[k], u[k])`. Every equation below is written in these terms:
``y[k]`` is the output held on :math:`[t_k, t_{k+1})`, ``x[k]`` the state during that interval,
``u[k]`` the input at :math:`t_k`. An output that does not read ``u[k]`` (no feedthrough) never
touches ``u`` in ``output``: the engine may call it before the inputs of the hit are known.

:func:`discretize` turns a continuous :class:`~blocksim.blocks.continuous.TransferFunction` or
:class:`~blocksim.blocks.continuous.StateSpace` into its discrete equivalent
(:func:`scipy.signal.cont2discrete`).

Performance notes
-----------------
``output`` and ``update`` run once per hit (not once per solver stage), so they matter less
than continuous ``deriv`` kernels; still, scalar signals stay Python floats and the scalar and
small single-input single-output cases use pure-Python kernels bound at construction (measured:
a pure-Python ``A x + B u`` beats numpy up to 4 states, ``C x`` up to ~12). The class-level
``output``/``update`` are the numpy reference implementations; the tests check the bound kernels
against them.

Compiled kernels
----------------
Every block's ``kernels()`` returns the numba kernels of the compiled back-end
(:mod:`blocksim.engine.compiled.kernels`): the module-level ``sample_output``, ``delay_*``,
``dintegrator_*``, ``dpid_*`` and ``dderivative_*`` functions below, and the linear-system and
derivative kernels of :mod:`blocksim.blocks.continuous` (``update`` being their ``A x + B u``).
The interpreted :class:`DiscretePID` calls the kernels' own pure-Python functions
(``dpid_output.py_func``, ``dpid_update.py_func``); the other blocks keep their pure-Python
paths, tested equal to the kernels.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from operator import mul
from typing import Any, ClassVar

import numba
import numpy as np
from numba.extending import overload

from blocksim.blocks.continuous_kernels import (
    _carray,
    _lti_kernels,
    derivative_array,
    derivative_output_scalar,
)
from blocksim.blocks.continuous_params import (
    _finite_float,
    _limit,
    _positive,
    _real_array,
    check_state_space,
)
from blocksim.blocks.linear import StateSpace, TransferFunction
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import Clock, as_clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, suggest

__all__ = [
    "ZOH",
    "DiscreteDerivative",
    "DiscreteIntegrator",
    "DiscretePID",
    "DiscreteStateSpace",
    "DiscreteTransferFunction",
    "RateTransition",
    "UnitDelay",
    "discretize",
]

#: largest order whose ``update`` (A x + B u) is a pure-Python loop (numpy above)
MAX_LOOP_ORDER_UPDATE = 4
#: largest order whose ``output`` (C x + D u) is a pure-Python loop (numpy above)
MAX_LOOP_ORDER_OUTPUT = 12


# -- helpers
def _sample_clock(owner: str, clock: Any) -> Clock:
    """The block's clock; ``None`` (no sample time) is refused."""
    if clock is None:
        raise BlockParameterError(
            f"{owner}: parameter 'clock' is required: give a Clock, a sample period in seconds "
            f"or a (period, offset) pair, e.g. clock=0.01 (discrete blocks do not inherit a "
            f"sample time)")
    c = as_clock(clock, owner)
    assert c is not None
    return c


def _as_signal(v: Any) -> Any:
    """``v`` as a signal value: a Python float for a scalar, else a fresh float64 array."""
    if type(v) is float:
        return v
    if np.ndim(v) == 0:
        return float(v)
    return np.array(v, dtype=float)


def _shaped_x0(owner: str, x0: Any, max_ndim: int = 2) -> np.ndarray:
    """A non-empty real initial state of at most ``max_ndim`` dimensions (shape kept)."""
    x0a = _real_array(owner, "x0", x0)
    if x0a.size == 0 or x0a.ndim > max_ndim:
        kind = "a scalar or a non-empty 1-D array" if max_ndim == 1 else \
            "a scalar or a non-empty array"
        raise BlockParameterError(
            f"{owner}: parameter 'x0' must be {kind} (it sets the signal shape), got shape "
            f"{x0a.shape}")
    return x0a


def _state_names(prefix: str, shape: tuple[int, ...], n: int) -> tuple[str, ...]:
    return (prefix,) if shape == () else tuple(f"{prefix}{i}" for i in range(n))


def _limits(owner: str, lower: Any, upper: Any, x0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``lower``/``upper`` broadcast to the shape of ``x0``; checked ``lower <= x0 <= upper``."""
    shape = x0.shape
    try:
        lo = np.broadcast_to(np.array(lower, dtype=float), shape)
        hi = np.broadcast_to(np.array(upper, dtype=float), shape)
    except (TypeError, ValueError):
        raise BlockParameterError(
            f"{owner}: parameters 'lower' and 'upper' must be numbers or arrays broadcastable to "
            f"the shape of x0 {shape}, got lower={lower!r}, upper={upper!r}") from None
    if np.any(np.isnan(lo)) or np.any(np.isnan(hi)):
        raise BlockParameterError(
            f"{owner}: parameters 'lower'/'upper' must not be NaN; use -inf/inf for no limit")
    if np.any(lo > hi):
        raise BlockParameterError(
            f"{owner}: parameter 'lower' must be <= 'upper', got lower={lower!r}, "
            f"upper={upper!r}")
    if np.any(x0 < lo) or np.any(x0 > hi):
        raise BlockParameterError(
            f"{owner}: x0={x0.tolist()!r} is outside the limits [lower, upper] = "
            f"[{lower!r}, {upper!r}]")
    return lo.reshape(-1).copy(), hi.reshape(-1).copy()


def _filter_tau(owner: str, N: Any) -> float:
    """Derivative filter time constant 1/N [s]; 0 for ``N=None`` (no filter)."""
    return 0.0 if N is None else 1.0 / _positive(owner, "N", N)


_njit = numba.njit(cache=True)


# ====================================================================== compiled kernels
# numba kernels for the compiled back-end (contract: blocksim.engine.compiled.kernels); the
# conventions are those of blocksim.blocks.continuous: scalar kernels return floats or tuples
# and never allocate, choices that change types or control flow select a kernel in the block's
# ``kernels()``, numbers travel in ``params`` (layouts in each ``kernels()`` docstring).
def _copy_signal(u: Any) -> Any:
    """A scalar signal as it is, an array signal copied (overloaded for numba below)."""
    return u if type(u) is float else _as_signal(u)


@overload(_copy_signal)
def _copy_signal_overload(u):  # no annotations: numba compares this signature with the lambdas'
    if isinstance(u, numba.types.Array):
        return lambda u: u.copy()
    return lambda u: u


# -- ZOH, RateTransition(delay=False); params ()
@_njit
def sample_output(t, x, u, p):
    """y = u (an array input copied); any signal type (numba compiles one version per type)."""
    return _copy_signal(u)


# -- delays: UnitDelay, RateTransition(delay=True); params () or (rows, cols) for a matrix
@_njit
def delay_output_scalar(t, x, u, p):
    """y = x (never reads u)."""
    return x[0]


@_njit
def delay_output_vector(t, x, u, p):
    """y = x, a copy (never reads u)."""
    return x.copy()


@_njit
def delay_output_matrix(t, x, u, p):
    """y = x, a copy reshaped to (rows, cols) = params (never reads u)."""
    return x.copy().reshape((p[0], p[1]))


@_njit
def delay_update_scalar(t, x, u, p):
    """x[k+1] = u[k]."""
    return (u,)


@_njit
def delay_update_array(t, x, u, p):
    """x[k+1] = u[k] flattened (a view of ``u`` when it is contiguous: the caller copies it)."""
    return u.ravel()


# -- DiscreteIntegrator: y = sat(x + a u), x' = sat(y + b u); params (a, b, lower, upper),
# floats for a scalar state, lower/upper float64 arrays of the signal shape otherwise. The
# saturation is exact with infinite limits and a = 0 (forward Euler) skips u, so one kernel
# pair serves every method and limit: these run once per hit, and a sweep never recompiles.
@_njit
def dintegrator_output_scalar(t, x, u, p):
    """y = sat(x + a u); y = x, never reading u, when a = 0 (the state is within the limits)."""
    a, _, lo, hi = p
    if a == 0.0:
        return x[0]
    y = x[0] + a * u
    return lo if y < lo else hi if y > hi else y


@_njit
def dintegrator_update_scalar(t, x, u, p):
    """x' = sat(sat(x + a u) + b u)."""
    a, b, lo, hi = p
    y = x[0] + a * u
    y = lo if y < lo else hi if y > hi else y
    y += b * u
    return (lo if y < lo else hi if y > hi else y,)


@_njit
def dintegrator_output_array(t, x, u, p):
    """y = sat(x + a u) in the signal shape; y = sat(x), never reading u, when a = 0."""
    a = p[0]
    lo = p[2].ravel()
    hi = p[3].ravel()
    n = x.size
    y = np.empty(n)
    if a == 0.0:
        for i in range(n):
            yi = x[i]
            if yi < lo[i]:
                yi = lo[i]
            elif yi > hi[i]:
                yi = hi[i]
            y[i] = yi
    else:
        v = u.ravel()
        for i in range(n):
            yi = x[i] + a * v[i]
            if yi < lo[i]:
                yi = lo[i]
            elif yi > hi[i]:
                yi = hi[i]
            y[i] = yi
    return y.reshape(p[2].shape)


@_njit
def dintegrator_update_array(t, x, u, p):
    """x' = sat(sat(x + a u) + b u), flat."""
    a = p[0]
    b = p[1]
    lo = p[2].ravel()
    hi = p[3].ravel()
    v = u.ravel()
    n = x.size
    xn = np.empty(n)
    for i in range(n):
        y = x[i] + a * v[i]
        if y < lo[i]:
            y = lo[i]
        elif y > hi[i]:
            y = hi[i]
        y += b * v[i]
        if y < lo[i]:
            y = lo[i]
        elif y > hi[i]:
            y = hi[i]
        xn[i] = y
    return xn


# -- DiscretePID; params (Kp, Ki, Kd, h = T + 1/N, T, lower, upper, filtered). The
# interpreted DiscretePID calls the pure-Python functions (``.py_func``) with x as a list.
@_njit
def dpid_output(t, x, e, p):
    """y = sat(Kp e + Ki x_i + Kd (e - z) / h)."""
    Kp, Ki, Kd, h, _, lower, upper, _ = p
    v = Kp * e + Ki * x[0] + Kd * ((e - x[1]) / h)
    if v > upper:
        return upper
    if v < lower:
        return lower
    return v


@_njit
def dpid_update(t, x, e, p):
    """(x_i + T e unless clamped, z + T d with a filter or e without)."""
    Kp, Ki, Kd, h, T, lower, upper, filtered = p
    xi = x[0]
    z = x[1]
    d = (e - z) / h
    v = Kp * e + Ki * xi + Kd * d
    z_next = z + T * d if filtered else float(e)
    if (v > upper and Ki * e > 0.0) or (v < lower and Ki * e < 0.0):
        return (xi, z_next)
    return (xi + T * e, z_next)


_dpid_output_py = dpid_output.py_func
_dpid_update_py = dpid_update.py_func


# -- DiscreteDerivative: output derivative_output_scalar / derivative_array (continuous
# module); params (g = K / h, r = T / h)
@_njit
def dderivative_update_scalar(t, x, u, p):
    """z' = z + r (u - z)."""
    z = x[0]
    return (z + p[1] * (u - z),)


@_njit
def dderivative_update_array(t, x, u, p):
    """z' = z + r (u - z), element-wise."""
    r = p[1]
    n = x.size
    zn = np.empty(n)
    for i in range(n):
        zn[i] = x[i] + r * (u[i] - x[i])
    return zn


# -- ZOH
class ZOH(Block):
    r"""Zero-order hold: samples its input at the hits of ``clock`` and holds it in between.

    .. math::

        y[k] = u[k], \qquad y(t) = u(t_k) \text{ for } t_k \le t < t_{k+1}

    Parameters
    ----------
    clock : Clock, float or (float, float)
        Sample clock: a :class:`Clock`, a period T [s] (> 0) or a (period, offset) pair [s].

    Inputs
    ------
    u : float or ndarray, any shape
        Signal to sample [any unit].

    Outputs
    -------
    y : float or ndarray, shape of ``u``
        The sampled-and-held input [unit of u]. Direct feedthrough from ``u`` (the value at the
        hit itself is passed on).

    Notes
    -----
    The block has no state: the hold is the engine's (every clocked block's output is held
    between its hits).
    """

    inputs = ("u",)
    outputs = ("y",)
    feedthrough: ClassVar[dict[str, tuple[str, ...]]] = {"y": ("u",)}

    def __init__(self, clock: Clock | float | tuple[float, float]) -> None:
        super().__init__()
        self.clock = _sample_clock(type(self).__name__, clock)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        """y = u (a fresh copy for an array)."""
        v = u[0]
        return (v if type(v) is float else _as_signal(v),)

    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`): params ``()``,
        :func:`sample_output` (any signal shape); no state, no update."""
        return Kernels((), output=sample_output)


# -- delays (shared by UnitDelay and RateTransition(delay=True))
class _DelayKernels(Block):
    """y[k] = x[k], x[k+1] = u[k] for a state whose signal shape is ``_shape``."""

    _shape: tuple[int, ...] = ()

    def _setup_delay(self, owner: str, x0: Any) -> None:
        x0a = _shaped_x0(owner, x0)
        self._shape = x0a.shape
        self.set_state(x0a, _state_names("x", x0a.shape, x0a.size))
        self.set_ports(inputs=(Port("u", shape=x0a.shape),),
                       outputs=(Port("y", shape=x0a.shape),))
        self.feedthrough = {"y": ()}  # type: ignore[misc]
        if x0a.shape == ():
            self.output = self._delay_out_scalar  # type: ignore[method-assign]
            self.update = self._delay_update_scalar  # type: ignore[method-assign]
        else:
            self.output = self._delay_out_array  # type: ignore[method-assign]
            self.update = self._delay_update_array  # type: ignore[method-assign]

    def _delay_output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        """Reference: y[k] = x[k]; never reads ``u``."""
        return (float(x[0]),) if self._shape == () else (x.reshape(self._shape).copy(),)

    def _delay_update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """Reference: x[k+1] = u[k]."""
        return np.array(u[0], dtype=float).reshape(-1)

    def _delay_out_scalar(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (x.item(),)

    def _delay_update_scalar(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (float(u[0]),)

    def _delay_out_array(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (x.reshape(self._shape).copy(),)  # copy: never hand out a view of the state

    def _delay_update_array(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return np.array(u[0], dtype=float).reshape(-1)

    def _delay_kernels(self) -> Kernels:
        """Scalar: params ``()``, :func:`delay_output_scalar`, :func:`delay_update_scalar`;
        vector: ``()``, :func:`delay_output_vector`, :func:`delay_update_array`; matrix:
        ``(rows, cols)`` ints, :func:`delay_output_matrix`, :func:`delay_update_array`."""
        if self._shape == ():
            return Kernels((), output=delay_output_scalar, update=delay_update_scalar)
        if len(self._shape) == 1:
            return Kernels((), output=delay_output_vector, update=delay_update_array)
        rows, cols = self._shape
        return Kernels((int(rows), int(cols)), output=delay_output_matrix,
                       update=delay_update_array)


class UnitDelay(_DelayKernels):
    r"""Unit delay :math:`z^{-1}`: outputs its input of the previous hit.

    .. math::

        y[k] = x[k], \qquad x[k+1] = u[k], \qquad x[0] = x_0

    so that :math:`y[k] = u[k-1]` for k >= 1 and :math:`y[0] = x_0`.

    Parameters
    ----------
    clock : Clock, float or (float, float)
        Sample clock: a :class:`Clock`, a period T [s] or a (period, offset) pair [s].
    x0 : float or array_like, default 0.0
        Initial output :math:`y[0]` [unit of u]. Its shape sets the signal shape: a scalar gives
        a float signal, an array of shape ``(n,)`` (even ``(1,)``) or ``(n, m)`` a signal of that
        shape (use e.g. ``x0=np.zeros(3)`` to delay a 3-vector).

    Inputs
    ------
    u : float or ndarray, shape of ``x0``
        Signal to delay [any unit].

    Outputs
    -------
    y : float or ndarray, shape of ``x0``
        The input of the previous hit. No feedthrough: ``y`` depends on the state only, so a
        unit delay breaks an algebraic loop.

    States
    ------
    x : shape ``(x0.size,)``
        The stored input, named ``"x"`` (scalar) or ``"x0", "x1", ...``.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, clock: Clock | float | tuple[float, float], x0: Any = 0.0) -> None:
        super().__init__()
        owner = type(self).__name__
        self.clock = _sample_clock(owner, clock)
        self._setup_delay(owner, x0)

    # The class-level output/update are the reference implementations; __init__ binds faster
    # kernels with identical results to the instance.
    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        """y[k] = x[k]; never reads ``u``."""
        return self._delay_output(t, x, u)

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """x[k+1] = u[k]."""
        return self._delay_update(t, x, u)

    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`).

        Scalar: params ``()``, :func:`delay_output_scalar`, :func:`delay_update_scalar`;
        vector: ``()``, :func:`delay_output_vector`, :func:`delay_update_array`; matrix:
        ``(rows, cols)`` ints, :func:`delay_output_matrix`, :func:`delay_update_array`.
        """
        return self._delay_kernels()


# -- RateTransition
class RateTransition(_DelayKernels):
    r"""Moves a signal to the rate of ``clock`` (the output rate).

    ``delay=False`` (default): sample and hold at the output clock, like :class:`ZOH`:

    .. math:: y[k] = u[k] \quad\text{(feedthrough)}

    ``delay=True``: sample, then hold for one output period, like :class:`UnitDelay`:

    .. math:: y[k] = x[k], \qquad x[k+1] = u[k], \qquad x[0] = x_0 \quad\text{(no feedthrough)}

    where k counts the hits of the output ``clock``. The input may come from any rate
    (continuous, faster or slower clock): it is read at the output hits, where the engine
    provides the latest value of the (held) input signal.

    * Fast to slow: ``delay=False`` passes the fast signal's value at the slow hit (the fast
      block's output at a shared hit is computed first, in evaluation order).
    * Slow to fast: ``delay=False`` is an identity at the hits shared with the slow clock and a
      hold in between; ``delay=True`` gives Simulink's *deterministic* transfer with a delay of
      one output period: the output at a hit never depends on the producer's output at the same
      hit, which removes any cross-rate algebraic dependency.

    Parameters
    ----------
    clock : Clock, float or (float, float)
        Output sample clock: a :class:`Clock`, a period T [s] or a (period, offset) pair [s].
    delay : bool, default False
        Insert a one-period delay (see above).
    x0 : float or array_like, optional
        Only with ``delay=True``: initial output :math:`y[0]` (default 0.0); its shape sets the
        signal shape as for :class:`UnitDelay`. Refused with ``delay=False``.

    Inputs
    ------
    u : float or ndarray
        Signal to transfer [any unit]. Any shape with ``delay=False``, shape of ``x0`` with
        ``delay=True``.

    Outputs
    -------
    y : float or ndarray, shape of ``u``
        The transferred signal. Feedthrough from ``u`` only with ``delay=False``.

    States
    ------
    x : shape ``(x0.size,)``, only with ``delay=True``
        The stored input, named ``"x"`` (scalar) or ``"x0", "x1", ...``.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, clock: Clock | float | tuple[float, float], delay: bool = False,
                 x0: Any = None) -> None:
        super().__init__()
        owner = type(self).__name__
        self.clock = _sample_clock(owner, clock)
        if not isinstance(delay, (bool, np.bool_)):
            raise BlockParameterError(
                f"{owner}: parameter 'delay' must be True or False, got {delay!r}")
        self.delay = bool(delay)
        if self.delay:
            self._setup_delay(owner, 0.0 if x0 is None else x0)
        else:
            if x0 is not None:
                raise BlockParameterError(
                    f"{owner}: parameter 'x0' applies only with delay=True (the initial output "
                    f"of the delay); without a delay the output is the sampled input, got "
                    f"x0={x0!r}")
            self.feedthrough = {"y": ("u",)}  # type: ignore[misc]

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        """y[k] = u[k] (``delay=False``) or x[k] (``delay=True``, never reads ``u``)."""
        if self.delay:
            return self._delay_output(t, x, u)
        v = u[0]
        return (v if type(v) is float else _as_signal(v),)

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """x[k+1] = u[k] (``delay=True`` only; without a delay the block has no state)."""
        return self._delay_update(t, x, u)

    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`).

        ``delay=False``: those of :class:`ZOH` (params ``()``, :func:`sample_output`, no
        update); ``delay=True``: those of :class:`UnitDelay`.
        """
        if self.delay:
            return self._delay_kernels()
        return Kernels((), output=sample_output)


# -- DiscreteIntegrator
_INTEGRATOR_METHODS = ("forward", "backward", "trapezoidal")


class DiscreteIntegrator(Block):
    r"""Discrete-time integrator (Simulink's Discrete-Time Integrator) with optional limits.

    With sample period T, gain K and :math:`\text{sat}(v) = \min(\max(v, \text{lower}),
    \text{upper})` (element-wise), the three methods are

    ``"forward"`` (forward Euler, :math:`K T / (z - 1)`):

    .. math:: y[k] = x[k], \qquad x[k+1] = \text{sat}(x[k] + K T u[k])

    ``"backward"`` (backward Euler, :math:`K T z / (z - 1)`):

    .. math:: y[k] = \text{sat}(x[k] + K T u[k]), \qquad x[k+1] = y[k]

    ``"trapezoidal"`` (:math:`\frac{K T}{2} \frac{z + 1}{z - 1}`):

    .. math::

        y[k] = \text{sat}(x[k] + \tfrac{K T}{2} u[k]), \qquad
        x[k+1] = \text{sat}(y[k] + \tfrac{K T}{2} u[k])

    with :math:`x[0] = x_0`. Without limits all three give
    :math:`x[k+1] = x[k] + K T u[k]`; they differ in the output. The state never leaves
    ``[lower, upper]`` (it starts inside and is saturated at every update), so the output is
    within the limits too.

    Parameters
    ----------
    clock : Clock, float or (float, float)
        Sample clock: a :class:`Clock`, a period T [s] or a (period, offset) pair [s].
    method : {"forward", "backward", "trapezoidal"}, default "forward"
        Integration method (Simulink's default is forward Euler).
    K : float, default 1.0
        Gain [unit of y / (unit of u . s)].
    x0 : float or array_like, default 0.0
        Initial state [unit of y]. Its shape sets the signal shape (a scalar gives a float
        signal, an array of shape ``(n,)`` or ``(n, m)`` a signal of that shape). Must lie in
        ``[lower, upper]``.
    lower, upper : float or array_like, default -inf, +inf
        Limits of the state and output, broadcastable to the shape of ``x0``,
        ``lower <= upper``.

    Inputs
    ------
    u : float or ndarray, shape of ``x0``
        Signal to integrate [unit of y / (K . s)].

    Outputs
    -------
    y : float or ndarray, shape of ``x0``
        The integral [unit of y]. No feedthrough with ``"forward"``; feedthrough from ``u``
        with ``"backward"`` and ``"trapezoidal"`` (when K != 0).

    States
    ------
    x : shape ``(x0.size,)``
        Named ``"x"`` (scalar) or ``"x0", "x1", ...``. It is the current output y[k] with
        ``"forward"``, the previous output y[k-1] with ``"backward"`` and
        :math:`\text{sat}(y[k-1] + \frac{K T}{2} u[k-1])` with ``"trapezoidal"``.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, clock: Clock | float | tuple[float, float], method: str = "forward",
                 K: float = 1.0, x0: Any = 0.0, lower: Any = -math.inf,
                 upper: Any = math.inf) -> None:
        super().__init__()
        owner = type(self).__name__
        self.clock = _sample_clock(owner, clock)
        if method not in _INTEGRATOR_METHODS:
            hint = suggest(method, _INTEGRATOR_METHODS) if isinstance(method, str) else ""
            raise BlockParameterError(
                f"{owner}: parameter 'method' must be one of "
                f"{', '.join(map(repr, _INTEGRATOR_METHODS))}, got {method!r}{hint}")
        self.method = method
        self.K = _finite_float(owner, "K", K)
        x0a = _shaped_x0(owner, x0)
        self._shape = x0a.shape
        self._scalar = x0a.shape == ()
        self._lower_v, self._upper_v = _limits(owner, lower, upper, x0a)
        self.set_state(x0a, _state_names("x", x0a.shape, x0a.size))
        self.set_ports(inputs=(Port("u", shape=x0a.shape),),
                       outputs=(Port("y", shape=x0a.shape),))
        KT = self.K * self.clock.period
        #: y = sat(x + a u), x' = sat(y + b u)
        self._a, self._b = {"forward": (0.0, KT), "backward": (KT, 0.0),
                            "trapezoidal": (KT / 2.0, KT / 2.0)}[method]
        self.feedthrough = {"y": ("u",) if self._a != 0.0 else ()}  # type: ignore[misc]
        limited = bool(np.any(np.isfinite(self._lower_v)) or np.any(np.isfinite(self._upper_v)))
        self._limited = limited
        if self._scalar:
            self._lo = float(self._lower_v[0])
            self._hi = float(self._upper_v[0])
            if self._a == 0.0:
                self.output = self._out_scalar_state  # type: ignore[method-assign]
            elif limited:
                self.output = self._out_scalar_limited  # type: ignore[method-assign]
            else:
                self.output = self._out_scalar  # type: ignore[method-assign]
            self.update = (self._update_scalar_limited if limited  # type: ignore[method-assign]
                           else self._update_scalar)

    # The class-level output/update are the reference implementations; __init__ binds faster
    # kernels with identical results to the instance.
    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        """y[k] = sat(x[k] + a u[k]) with a = 0, K T, K T / 2 (forward, backward, trapezoidal);
        never reads ``u`` when a = 0."""
        y = x if self._a == 0.0 else x + self._a * np.ravel(u[0])
        y = np.clip(y, self._lower_v, self._upper_v)
        return (float(y[0]),) if self._scalar else (y.reshape(self._shape),)

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """x[k+1] = sat(y[k] + b u[k]) with b = K T, 0, K T / 2."""
        v = np.ravel(u[0]).astype(float)
        y = np.clip(x + self._a * v, self._lower_v, self._upper_v)
        return np.clip(y + self._b * v, self._lower_v, self._upper_v)

    # -- scalar kernels
    def _out_scalar_state(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (x.item(),)

    def _out_scalar(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (x.item() + self._a * u[0],)

    def _out_scalar_limited(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        y = x.item() + self._a * u[0]
        return (self._lo if y < self._lo else self._hi if y > self._hi else y,)

    def _update_scalar(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        v = u[0]
        return (x.item() + self._a * v + self._b * v,)

    def _update_scalar_limited(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        v = u[0]
        lo, hi = self._lo, self._hi
        y = x.item() + self._a * v
        y = lo if y < lo else hi if y > hi else y
        y += self._b * v
        return (lo if y < lo else hi if y > hi else y,)

    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`).

        With ``y = sat(x + a u)``, ``x' = sat(y + b u)`` (a, b = 0, K T / K T, 0 /
        K T / 2, K T / 2 for forward / backward / trapezoidal), params ``(a, b, lower,
        upper)``: floats for a scalar state (:func:`dintegrator_output_scalar`,
        :func:`dintegrator_update_scalar`), lower/upper float64 arrays of the signal shape
        otherwise (:func:`dintegrator_output_array`, :func:`dintegrator_update_array`). One
        kernel pair serves every method and limit (+-inf limits saturate exactly; a = 0 never
        reads u), so changing them does not recompile.
        """
        if self._scalar:
            return Kernels((self._a, self._b, self._lo, self._hi),
                           output=dintegrator_output_scalar, update=dintegrator_update_scalar)
        params = (self._a, self._b, _carray(self._lower_v.reshape(self._shape)),
                  _carray(self._upper_v.reshape(self._shape)))
        return Kernels(params, output=dintegrator_output_array, update=dintegrator_update_array)


# -- linear systems
class _DiscreteLinear(Block):
    """x[k+1] = A x[k] + B u[k], y[k] = C x[k] + D u[k], with kernels bound by ``_setup``."""

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    _has_d: bool = False
    _siso_out: bool = True

    def _setup(self, A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray,
               x0: np.ndarray) -> None:
        n, m = B.shape
        p = C.shape[0]
        self.A, self.B, self.C, self.D = A, B, C, D
        self.set_state(x0, tuple(f"x{i}" for i in range(n)))
        self.set_ports(inputs=(Port("u", shape=() if m == 1 else (m,)),),
                       outputs=(Port("y", shape=() if p == 1 else (p,)),))
        self._has_d = bool(np.any(D != 0.0))
        self._siso_out = p == 1
        self.feedthrough = {"y": ("u",) if self._has_d else ()}  # type: ignore[misc]
        if m == 1 and p == 1:
            self._d = float(D[0, 0])
            self._c = tuple(C[0].tolist())
            if n == 0:
                self.output = (self._out_gain if self._has_d  # type: ignore[method-assign]
                               else self._out_zero)
                return
            if n <= MAX_LOOP_ORDER_UPDATE:
                self._rows = tuple(tuple(r) for r in A.tolist())
                self._b = tuple(B[:, 0].tolist())
                self.update = self._update_loop  # type: ignore[method-assign]
            else:
                self._bcol = B[:, 0].copy()
                self.update = self._update_si  # type: ignore[method-assign]
            if n <= MAX_LOOP_ORDER_OUTPUT:
                self.output = (self._out_loop_ft if self._has_d  # type: ignore[method-assign]
                               else self._out_loop)
        elif m == 1:
            self._bcol = B[:, 0].copy()
            self.update = self._update_si  # type: ignore[method-assign]

    # The class-level output/update are the reference implementations; _setup binds faster
    # kernels with identical results to the instance.
    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        """y[k] = C x[k] + D u[k]; reads ``u`` only when D is non-zero."""
        y = self.C @ x
        if self._has_d:
            y = y + self.D @ np.atleast_1d(np.asarray(u[0], dtype=float))
        return (float(y[0]),) if self._siso_out else (y,)

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """x[k+1] = A x[k] + B u[k]."""
        return self.A @ x + self.B @ np.atleast_1d(np.asarray(u[0], dtype=float))

    # -- kernels
    def _out_zero(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (0.0,)

    def _out_gain(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (self._d * u[0],)

    def _out_loop(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (sum(map(mul, self._c, x.tolist())),)

    def _out_loop_ft(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (sum(map(mul, self._c, x.tolist())) + self._d * u[0],)

    def _update_loop(self, t: float, x: np.ndarray, u: Sequence[Any]) -> list[float]:
        xs = x.tolist()
        v = u[0]
        return [sum(map(mul, row, xs)) + b * v for row, b in zip(self._rows, self._b)]

    def _update_si(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return self.A @ x + self._bcol * u[0]

    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`): those of the
        continuous :class:`~blocksim.blocks.continuous.StateSpace` (same params layouts, the
        ``A x + B u`` kernel as ``update``); a static gain (n = 0) has no update."""
        params, output, state = _lti_kernels(self.A, self.B, self.C, self.D)
        return Kernels(params, output=output, update=state)


class DiscreteTransferFunction(_DiscreteLinear):
    r"""Single-input single-output discrete transfer function in z.

    .. math::

        H(z) = \frac{Y(z)}{U(z)} = \frac{b_0 z^m + b_1 z^{m-1} + \dots + b_m}
                                        {a_0 z^n + a_1 z^{n-1} + \dots + a_n},
        \qquad m \le n,\ a_0 \ne 0

    (coefficients in descending powers of z, as :class:`scipy.signal.dlti`), realised at
    construction by :func:`scipy.signal.tf2ss` (controller canonical form):

    .. math:: y[k] = C x[k] + D u[k], \qquad x[k+1] = A x[k] + B u[k]

    so ``H(z) = 1 / (z - 0.5)`` is ``y[k] = x[k], x[k+1] = 0.5 x[k] + u[k]`` and
    ``H(z) = 1 / z`` a unit delay.

    Parameters
    ----------
    num : float or array_like, shape (m + 1,)
        Numerator coefficients, highest power of z first. Leading zeros are ignored.
    den : float or array_like, shape (n + 1,)
        Denominator coefficients, highest power of z first; ``den[0]`` must be non-zero and the
        system causal (proper: ``m <= n``).
    clock : Clock, float or (float, float)
        Sample clock: a :class:`Clock`, a period T [s] or a (period, offset) pair [s].
    x0 : array_like, shape (n,), optional
        Initial state of the canonical realisation (default zeros: the system at rest).

    Inputs
    ------
    u : float
        Input signal [any unit].

    Outputs
    -------
    y : float
        Output signal. Feedthrough from ``u`` only when D != 0 (``m == n`` with
        ``b_0 != 0``).

    States
    ------
    x : shape (n,)
        States of the canonical realisation, named ``"x0" .. "x{n-1}"``. A static gain
        (``n == 0``) has no state: it samples ``(b_0 / a_0) u`` at the hits.

    Examples
    --------
    Moving average of two samples, (z + 1) / (2 z): ``DiscreteTransferFunction([1, 1], [2, 0],
    clock=0.01)``.
    """

    inputs = (Port("u", shape=()),)
    outputs = (Port("y", shape=()),)

    def __init__(self, num: Any, den: Any, clock: Clock | float | tuple[float, float],
                 x0: Any = None) -> None:
        super().__init__()
        owner = type(self).__name__
        self.clock = _sample_clock(owner, clock)
        num_a = _real_array(owner, "num", num)
        den_a = _real_array(owner, "den", den)
        for label, arr in (("num", num_a), ("den", den_a)):
            if arr.ndim > 1:
                raise BlockParameterError(
                    f"{owner}: parameter '{label}' must be a 1-D coefficient sequence (SISO "
                    f"only), got shape {arr.shape}; use DiscreteStateSpace for multi-input/"
                    f"multi-output systems")
        num_a = num_a.reshape(-1)
        den_a = den_a.reshape(-1)
        if den_a.size == 0:
            raise BlockParameterError(
                f"{owner}: parameter 'den' is empty; give at least one coefficient")
        if den_a[0] == 0.0:
            raise BlockParameterError(
                f"{owner}: the leading denominator coefficient den[0] must be non-zero, got "
                f"den={den_a.tolist()}; drop leading zeros")
        if num_a.size == 0:
            raise BlockParameterError(
                f"{owner}: parameter 'num' is empty; give at least one coefficient")
        nz = np.flatnonzero(num_a)
        num_a = num_a[nz[0]:] if nz.size else np.zeros(1)
        n = den_a.size - 1
        if num_a.size - 1 > n:
            raise BlockParameterError(
                f"{owner}: non-causal transfer function: numerator degree {num_a.size - 1} > "
                f"denominator degree {n} (num={num_a.tolist()}, den={den_a.tolist()}); the "
                f"output would depend on future inputs - multiply den by z (append a 0) for "
                f"each excess degree")
        if n == 0:
            A, B, C = np.zeros((0, 0)), np.zeros((0, 1)), np.zeros((1, 0))
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
                    f"{owner}: parameter 'x0' must have {n} element(s) (the order of den), got "
                    f"{x0a.size}")
        self.num, self.den = num_a, den_a
        self._setup(A, B, C, D, x0a)


class DiscreteStateSpace(_DiscreteLinear):
    r"""Linear time-invariant discrete state-space system.

    .. math:: y[k] = C x[k] + D u[k], \qquad x[k+1] = A x[k] + B u[k], \qquad x[0] = x_0

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
    clock : Clock, float or (float, float)
        Sample clock: a :class:`Clock`, a period T [s] or a (period, offset) pair [s].
        Required (it follows the optional D only to keep the order A, B, C, D).
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

    def __init__(self, A: Any, B: Any, C: Any, D: Any = None,
                 clock: Clock | float | tuple[float, float] | None = None,
                 x0: Any = None) -> None:
        super().__init__()
        owner = type(self).__name__
        self.clock = _sample_clock(owner, clock)
        Aa, Ba, Ca, Da, x0a = check_state_space(
            owner, A, B, C, D, x0, "; for a static system use a Gain block (or a ZOH and a Gain)")
        self._setup(Aa, Ba, Ca, Da, x0a)


# -- DiscretePID
class DiscretePID(Block):
    r"""Discrete parallel PID controller with output limits and anti-windup clamping.

    Simulink's Discrete PID Controller (parallel form) with integrator method *forward Euler*
    and filter method *backward Euler*. With sample period T, error e[k], states
    :math:`x_i` (integral of e) and z (filter state) and :math:`\tau = 1/N`
    (:math:`\tau = 0` when ``N`` is None):

    .. math::

        d[k] &= \frac{e[k] - z[k]}{T + \tau} \\
        v[k] &= K_p e[k] + K_i x_i[k] + K_d\, d[k] \\
        y[k] &= \min(\max(v[k], \text{lower}), \text{upper}) \\
        x_i[k+1] &= \begin{cases} x_i[k] & \text{if } (v[k] > \text{upper} \text{ and }
                    K_i e[k] > 0) \text{ or } (v[k] < \text{lower} \text{ and } K_i e[k] < 0)
                    \\ x_i[k] + T e[k] & \text{otherwise} \end{cases} \\
        z[k+1] &= z[k] + T\, d[k]

    * Integral: forward Euler, :math:`K_i T / (z - 1)`: the integral term at hit k uses the
      errors up to k - 1 (so a step in e moves the I term one sample later).
    * Derivative: ``N=None`` gives the pure backward difference
      :math:`d[k] = (e[k] - e[k-1]) / T` (then :math:`z[k+1] = e[k]`: z is the previous
      error). With a filter, z is the backward-Euler discretisation of the low-pass
      :math:`\tau \dot z = e - z` and :math:`d[k] = (z[k+1] - z[k]) / T`, i.e.
      :math:`K_d\, d = \frac{K_d N}{1 + N T \frac{z}{z - 1}} E(z)` (stable for every N > 0; the
      ``N -> inf`` limit is the unfiltered case).
    * Anti-windup by clamping (conditional integration), as in the continuous :class:`PID`.

    Without saturation, from zero state,

    .. math::

        \frac{Y(z)}{E(z)} = K_p + K_i \frac{T}{z - 1} + K_d \frac{N}{1 + N T \frac{z}{z - 1}}.

    Parameters
    ----------
    Kp : float, default 1.0
        Proportional gain [unit of y / unit of e].
    Ki : float, default 0.0
        Integral gain [unit of y / (unit of e . s)].
    Kd : float, default 0.0
        Derivative gain [unit of y . s / unit of e].
    clock : Clock, float or (float, float)
        Sample clock: a :class:`Clock`, a period T [s] or a (period, offset) pair [s].
        Required (it follows the gains, which have defaults).
    N : float or None, default None
        Derivative filter pole [rad/s], > 0; None for an unfiltered backward difference.
    lower, upper : float, default -inf, +inf
        Output limits [unit of y], ``lower <= upper``.
    x0 : array_like, shape (2,), default (0, 0)
        Initial ``(integral, filter)`` state: :math:`x_i[0]` [unit of e . s] and z[0] [unit of
        e]. Without a filter z[0] is the "previous error": with the default 0 a non-zero e[0]
        gives a derivative kick :math:`K_d e[0] / T` at the first hit (as in Simulink); set
        ``x0=(0, e0)`` to start at rest.

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
        :math:`x_i`, the forward-Euler integral of the error [unit of e . s].
    filter : float
        z, the filtered error (the previous error when N is None) [unit of e].
    """

    inputs = (Port("e", shape=()),)
    outputs = (Port("y", shape=()),)
    feedthrough: ClassVar[dict[str, tuple[str, ...]]] = {"y": ("e",)}

    def __init__(self, Kp: float = 1.0, Ki: float = 0.0, Kd: float = 0.0,
                 clock: Clock | float | tuple[float, float] | None = None,
                 N: float | None = None, lower: float = -math.inf, upper: float = math.inf,
                 x0: Any = (0.0, 0.0)) -> None:
        super().__init__()
        owner = type(self).__name__
        self.clock = _sample_clock(owner, clock)
        self.Kp = _finite_float(owner, "Kp", Kp)
        self.Ki = _finite_float(owner, "Ki", Ki)
        self.Kd = _finite_float(owner, "Kd", Kd)
        self.N = None if N is None else _positive(owner, "N", N)
        self.lower = _limit(owner, "lower", lower, -math.inf)
        self.upper = _limit(owner, "upper", upper, math.inf)
        if self.lower > self.upper:
            raise BlockParameterError(
                f"{owner}: parameter 'lower' must be <= 'upper', got lower={lower!r}, "
                f"upper={upper!r}")
        x0a = _real_array(owner, "x0", x0).reshape(-1)
        if x0a.size != 2:
            raise BlockParameterError(
                f"{owner}: parameter 'x0' must be (integral, filter), 2 elements, got "
                f"{x0a.size}")
        self.set_state(x0a, ("integral", "filter"))
        T = self.clock.period
        self._T = T
        self._h = T + _filter_tau(owner, N)  # d = (e - z) / h
        self._limited = math.isfinite(self.lower) or math.isfinite(self.upper)
        #: the kernels' params (see :meth:`kernels`)
        self._kp = (self.Kp, self.Ki, self.Kd, self._h, T, self.lower, self.upper,
                    self.N is not None)

    # The numerics are the pure-Python versions of the compiled kernels dpid_output and
    # dpid_update, called with x as a list of floats.
    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        """y[k] = sat(Kp e + Ki x_i + Kd (e - z) / (T + 1/N))."""
        return (_dpid_output_py(t, x.tolist(), u[0], self._kp),)

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        """(x_i[k+1], z[k+1]) = (x_i + T e unless clamped, z + T d)."""
        return _dpid_update_py(t, x.tolist(), u[0], self._kp)

    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`):
        :func:`dpid_output`, :func:`dpid_update` with params ``(Kp, Ki, Kd, h, T, lower,
        upper, filtered)``, ``h = T + 1/N`` (T without a filter), ``filtered = N is not None``
        (a bool); infinite limits need no separate kernel (the tests are then never true)."""
        return Kernels(self._kp, output=dpid_output, update=dpid_update)


# -- DiscreteDerivative
class DiscreteDerivative(Block):
    r"""Discrete derivative: backward difference, optionally low-pass filtered.

    With sample period T, gain K and :math:`\tau = 1/N` (:math:`\tau = 0` when ``N`` is None):

    .. math::

        y[k] = K \frac{u[k] - z[k]}{T + \tau}, \qquad z[k+1] = z[k] + T \frac{u[k] - z[k]}
        {T + \tau}, \qquad z[0] = x_0

    Without filter this is :math:`y[k] = K (u[k] - u[k-1]) / T`, :math:`z[k+1] = u[k]`
    (transfer function :math:`K (z - 1) / (T z)`); with a filter, z is the backward-Euler
    discretisation of :math:`\tau \dot z = u - z` and y = K (z[k+1] - z[k]) / T, i.e.
    :math:`\frac{K N}{1 + N T \frac{z}{z - 1}}` (the derivative term of :class:`DiscretePID`).

    Parameters
    ----------
    clock : Clock, float or (float, float)
        Sample clock: a :class:`Clock`, a period T [s] or a (period, offset) pair [s].
    K : float, default 1.0
        Gain [unit of y . s / unit of u].
    N : float or None, default None
        Filter pole [rad/s], > 0; None for the plain backward difference.
    x0 : float or array_like, default 0.0
        Initial state z[0], the "previous input" u[-1] [unit of u]; its shape sets the signal
        shape (a scalar gives a float signal, an array of shape ``(n,)`` a vector signal). With
        the default 0 and u[0] != 0 the first output is a kick ``K u[0] / (T + 1/N)``; set
        ``x0`` to the initial input to start at rest.

    Inputs
    ------
    u : float or ndarray, shape of ``x0``
        Signal to differentiate [unit of u].

    Outputs
    -------
    y : float or ndarray, shape of ``x0``
        Derivative estimate [K . unit of u / s]. Direct feedthrough from ``u``.

    States
    ------
    z : shape (x0.size,)
        Previous (filtered) input, named ``"z"`` (scalar) or ``"z0", "z1", ...``.
    """

    inputs = ("u",)
    outputs = ("y",)
    feedthrough: ClassVar[dict[str, tuple[str, ...]]] = {"y": ("u",)}

    def __init__(self, clock: Clock | float | tuple[float, float], K: float = 1.0,
                 N: float | None = None, x0: Any = 0.0) -> None:
        super().__init__()
        owner = type(self).__name__
        self.clock = _sample_clock(owner, clock)
        self.K = _finite_float(owner, "K", K)
        self.N = None if N is None else _positive(owner, "N", N)
        x0a = _shaped_x0(owner, x0, max_ndim=1)
        self._scalar = x0a.shape == ()
        self.set_state(x0a, _state_names("z", x0a.shape, x0a.size))
        self.set_ports(inputs=(Port("u", shape=x0a.shape),),
                       outputs=(Port("y", shape=x0a.shape),))
        T = self.clock.period
        h = T + _filter_tau(owner, N)
        self._g = self.K / h  # y = g (u - z)
        self._r = T / h  # z' = z + r (u - z)
        if self._scalar:
            self.output = self._out_scalar  # type: ignore[method-assign]
            self.update = (self._update_scalar if self.N is not None  # type: ignore[method-assign]
                           else self._update_scalar_unfiltered)

    # The class-level output/update are the reference implementations; __init__ binds faster
    # kernels with identical results to the instance.
    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        """y[k] = K (u[k] - z[k]) / (T + 1/N)."""
        y = self._g * (np.ravel(u[0]) - x)
        return (float(y[0]),) if self._scalar else (y,)

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """z[k+1] = z[k] + T (u[k] - z[k]) / (T + 1/N) (= u[k] without filter)."""
        v = np.ravel(u[0]).astype(float)
        if self.N is None:
            return v.copy()
        return x + self._r * (v - x)

    def _out_scalar(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (self._g * (u[0] - x.item()),)

    def _update_scalar(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        z = x.item()
        return (z + self._r * (u[0] - z),)

    def _update_scalar_unfiltered(self, t: float, x: np.ndarray,
                                  u: Sequence[Any]) -> tuple[float]:
        return (float(u[0]),)

    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`), params ``(g, r)``
        with y = g (u - z), z' = z + r (u - z) (g = K / h, r = T / h, h = T + 1/N).

        Scalar: output :func:`~blocksim.blocks.continuous.derivative_output_scalar`, update
        :func:`dderivative_update_scalar` or, without a filter (z' = u),
        :func:`delay_update_scalar`; vector: :func:`~blocksim.blocks.continuous.derivative_array`
        and :func:`dderivative_update_array` or :func:`delay_update_array`.
        """
        params = (self._g, self._r)
        if self._scalar:
            update = delay_update_scalar if self.N is None else dderivative_update_scalar
            return Kernels(params, output=derivative_output_scalar, update=update)
        update = delay_update_array if self.N is None else dderivative_update_array
        return Kernels(params, output=derivative_array, update=update)


# -- discretize
_DISCRETIZE_METHODS = ("zoh", "foh", "bilinear", "tustin", "euler", "forward_diff",
                       "backward_diff", "impulse", "gbt")
#: methods whose discrete state is the continuous state at the samples (x0 carries over)
_STATE_PRESERVING = ("zoh", "euler", "forward_diff", "impulse")


def discretize(block: TransferFunction | StateSpace,
               dt: Clock | float | tuple[float, float], method: str = "zoh",
               alpha: float | None = None) -> DiscreteTransferFunction | DiscreteStateSpace:
    r"""The discrete-time equivalent of a continuous linear block, for sample period ``dt``.

    Uses :func:`scipy.signal.cont2discrete`: a :class:`TransferFunction` (its ``num``/``den``)
    gives a :class:`DiscreteTransferFunction`, a :class:`StateSpace` (its A, B, C, D) a
    :class:`DiscreteStateSpace`. The new block is not in any diagram; add it in place of the
    continuous one.

    Parameters
    ----------
    block : TransferFunction or StateSpace
        The continuous block.
    dt : Clock, float or (float, float)
        Clock of the new block: a period T [s] (the discretisation step) or a (period, offset)
        pair or a :class:`Clock`.
    method : str, default "zoh"
        ``"zoh"`` (zero-order hold: exact at the samples for a piecewise-constant input, as
        produced by a ZOH or any discrete block), ``"foh"`` (first-order hold / triangle),
        ``"bilinear"`` or ``"tustin"`` (trapezoidal), ``"euler"`` or ``"forward_diff"``,
        ``"backward_diff"``, ``"impulse"`` (impulse invariance; strictly proper systems only),
        ``"gbt"`` (generalised bilinear, with ``alpha``).
    alpha : float, optional
        Weight in [0, 1] for ``method="gbt"`` (0: forward Euler, 0.5: Tustin, 1: backward).

    Returns
    -------
    DiscreteTransferFunction or DiscreteStateSpace

    Notes
    -----
    A non-zero initial state ``x0`` of a :class:`StateSpace` is carried over only by the
    methods whose discrete state is the continuous state at the samples (``"zoh"``,
    ``"euler"``/``"forward_diff"``, ``"impulse"``); the other methods change the state
    coordinates, and a :class:`TransferFunction`'s discrete realisation differs from its
    continuous one, so a non-zero ``x0`` is refused there (discretize a :class:`StateSpace`
    with method ``"zoh"`` instead).
    """
    owner = "discretize"
    if not isinstance(block, (TransferFunction, StateSpace)):
        raise BlockParameterError(
            f"{owner}: block must be a continuous TransferFunction or StateSpace block, got "
            f"{type(block).__name__}")
    if not isinstance(method, str) or method not in _DISCRETIZE_METHODS:
        hint = suggest(method, _DISCRETIZE_METHODS) if isinstance(method, str) else ""
        raise BlockParameterError(
            f"{owner}: parameter 'method' must be one of "
            f"{', '.join(map(repr, _DISCRETIZE_METHODS))}, got {method!r}{hint}")
    if method == "gbt":
        if alpha is None:
            raise BlockParameterError(
                f"{owner}: method 'gbt' needs parameter 'alpha' in [0, 1]")
        alpha = _finite_float(owner, "alpha", alpha)
        if not 0.0 <= alpha <= 1.0:
            raise BlockParameterError(
                f"{owner}: parameter 'alpha' must be in [0, 1], got {alpha}")
    elif alpha is not None:
        raise BlockParameterError(
            f"{owner}: parameter 'alpha' applies only to method 'gbt', got method {method!r}")
    clock = _sample_clock(owner, dt)
    T = clock.period
    x0 = np.asarray(block.x0, dtype=float)
    has_x0 = bool(np.any(x0 != 0.0))
    name = block.name or type(block).__name__
    if has_x0 and (isinstance(block, TransferFunction) or method not in _STATE_PRESERVING):
        why = ("a TransferFunction's discrete realisation has other state coordinates"
               if isinstance(block, TransferFunction)
               else f"method {method!r} changes the state coordinates")
        raise BlockParameterError(
            f"{owner}: cannot carry the non-zero initial state x0={x0.tolist()} of {name}: "
            f"{why}; discretize a StateSpace with one of "
            f"{', '.join(map(repr, _STATE_PRESERVING))}, or set the discrete block's x0 "
            f"yourself")
    from scipy.signal import cont2discrete  # lazy: a slow import

    try:
        if isinstance(block, TransferFunction):
            num = np.asarray(block.params["num"], dtype=float).reshape(-1)
            den = np.asarray(block.params["den"], dtype=float).reshape(-1)
            if den.size == 1:  # static gain: the same gain, sampled
                return DiscreteTransferFunction(num / den[0], [1.0], clock=clock)
            num_d, den_d, _ = cont2discrete((num, den), T, method=method, alpha=alpha)
            return DiscreteTransferFunction(np.ravel(num_d), den_d, clock=clock)
        Ad, Bd, Cd, Dd, _ = cont2discrete((block.A, block.B, block.C, block.D), T,
                                          method=method, alpha=alpha)
    except ValueError as exc:
        raise BlockParameterError(f"{owner}: {name} with method {method!r}: {exc}") from None
    return DiscreteStateSpace(Ad, Bd, Cd, Dd, clock=clock, x0=x0 if has_x0 else None)
