"""Discrete-time integration and differentiation: :class:`DiscreteIntegrator` and
:class:`DiscreteDerivative`.

Discrete-time blocks with a required sample ``clock``, under the semantics described in
:mod:`blocksim.blocks.discrete.base`; their compiled kernels (``dintegrator_*``,
``dderivative_*``) are in :mod:`blocksim.blocks.discrete.kernels`, the derivative's output
kernels in :mod:`blocksim.blocks.continuous.kernels`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from blocksim.blocks.continuous.kernels import (
    _carray,
    derivative_array,
    derivative_output_scalar,
)
from blocksim.blocks.continuous.params import _finite_float, _positive
from blocksim.blocks.discrete.base import (
    _filter_tau,
    _limits,
    _sample_clock,
    _shaped_x0,
    _state_names,
)
from blocksim.blocks.discrete.kernels import (
    dderivative_update_array,
    dderivative_update_scalar,
    delay_update_array,
    delay_update_scalar,
    dintegrator_output_array,
    dintegrator_output_scalar,
    dintegrator_update_array,
    dintegrator_update_scalar,
)
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import Clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, suggest

__all__ = ["DiscreteDerivative", "DiscreteIntegrator"]


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

        Scalar: output
        :func:`~blocksim.blocks.continuous.kernels.derivative_output_scalar`, update
        :func:`dderivative_update_scalar` or, without a filter (z' = u),
        :func:`delay_update_scalar`; vector:
        :func:`~blocksim.blocks.continuous.kernels.derivative_array` and
        :func:`dderivative_update_array` or :func:`delay_update_array`.
        """
        params = (self._g, self._r)
        if self._scalar:
            update = delay_update_scalar if self.N is None else dderivative_update_scalar
            return Kernels(params, output=derivative_output_scalar, update=update)
        update = delay_update_array if self.N is None else dderivative_update_array
        return Kernels(params, output=derivative_array, update=update)
