"""Blocks with memory of their output: :class:`Backlash` and :class:`RateLimiter`.

Both are discrete (exact Simulink difference equations) when given a ``clock``, continuous ODE
approximations with a small time constant ``tau`` otherwise; see their notes. Their compiled
kernels are in :mod:`blocksim.blocks.nonlinear.kernels`. Scalar signals are Python floats;
arrays are float64 ndarrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import _clip, _short
from blocksim.blocks.nonlinear.base import (
    _flat_input,
    _initial,
    _positive,
    _real,
    _state_names,
)
from blocksim.blocks.nonlinear.kernels import (
    backlash_crossings,
    backlash_deriv,
    backlash_output,
    backlash_update,
    backlash_vector_crossings,
    backlash_vector_deriv,
    backlash_vector_output,
    rate_limiter_deriv,
    rate_limiter_output,
    rate_limiter_update,
    rate_limiter_vector_deriv,
    rate_limiter_vector_output,
    state_output,
    state_vector_output,
)
from blocksim.engine.block import Block
from blocksim.engine.clock import Clock, as_clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError

__all__ = ["Backlash", "RateLimiter"]


# ----------------------------------------------------------------------------- Backlash
class Backlash(Block):
    """Backlash (play) between a driving and a driven part (Simulink *Backlash*).

    The output (driven position) ``y`` stays put while the input (driving position) ``u``
    moves inside the band ``[y - width/2, y + width/2]``; when ``u`` pushes against an edge the
    output is carried along::

        y = u - width/2   while u pushes up against the upper edge (engaged up)
        y = u + width/2   while u pushes down against the lower edge (engaged down)
        y held            otherwise (disengaged)

    i.e. ``y = min(max(y_prev, u - width/2), u + width/2)`` with ``y_prev`` the output just
    before.

    Discrete (``clock`` given): exactly Simulink's discrete backlash, at the hits t_k::

        y[k] = min(max(y[k-1], u[k] - width/2), u[k] + width/2),   y[-1] = x0

    held between hits; the state is y[k-1].

    Continuous (``clock=None``): the held position is a continuous state ``z`` that follows
    the output with a small time constant ``tau``::

        y = min(max(z, u - width/2), u + width/2)      (direct feedthrough from u)
        dz/dt = (y - z) / tau

    While disengaged ``y = z`` and dz/dt = 0: the output is held exactly. While engaged the
    output is exactly ``u -+ width/2``, and ``z`` trails it by about ``tau * |du/dt|``. The
    engagement instants are therefore exact; the only error is at a reversal, where ``z`` has
    not quite caught up with the peak: the held value is off by about ``0.7 * tau * |du/dt|``
    (``du/dt`` just before the reversal; for a smooth input, which turns with du/dt -> 0, the
    error is of order ``tau**2 * |d2u/dt2|``). Exact disengagement at the extremum of ``u``
    cannot be expressed with the block contract (it depends on the history of ``u``, not on
    ``(t, x, u)``), hence this formulation. While engaged the state equation has the fast
    eigenvalue ``-1/tau``: explicit solvers then take steps of the order of ``tau``; with a
    fixed-step solver use ``dt <= tau`` (``"euler"`` with ``dt = tau`` tracks exactly).

    Parameters
    ----------
    width : float
        Width of the dead band [unit of u], finite, >= 0.
    x0 : float or array_like
        Initial output [unit of u] (default 0); its shape sets the signal shape: a scalar
        gives a float signal, an array of shape ``(n,)`` a vector. If ``u(0)`` puts ``x0``
        outside the band, the output starts engaged.
    tau : float
        Tracking time constant of the continuous variant [s], > 0 (default 1e-3); unused with
        a clock.
    clock : Clock, float or (float, float), optional
        Sample clock (or its period [s], or (period, offset)) of the discrete variant.

    Inputs
    ------
    u : float or ndarray, the shape of ``x0``
        Driving position.

    Outputs
    -------
    y : float or ndarray, the shape of ``x0``
        Driven position, in the unit of ``u``. Direct feedthrough from ``u``.

    States
    ------
    z : shape ``(n,)``, the unit of u
        Continuous: the tracked held position; discrete: the previous output y[k-1]. Named
        ``"z"`` (scalar) or ``"z0", "z1", ...``.

    Zero crossings
    --------------
    Continuous variant only: ``u - width/2 - z`` then ``u + width/2 - z`` (each of ``n``
    elements), either direction: the kinks of the output at engagement and disengagement.
    """

    inputs = ("u",)
    outputs = ("y",)
    feedthrough = True

    def __init__(self, width: float = 1.0, x0: Any = 0.0, tau: float = 1e-3,
                 clock: Clock | float | tuple[float, float] | None = None) -> None:
        super().__init__()
        w = _real("Backlash", "width", width)
        if w < 0.0:
            raise BlockParameterError(
                f"Backlash: parameter 'width' must be >= 0, got {_short(width)}")
        self._half = 0.5 * w
        self._tau = _positive("Backlash", "tau", tau)
        x0a, scalar = _initial("Backlash", x0)
        self._scalar = scalar
        self.clock = as_clock(clock, "Backlash")
        self.set_state(x0a, _state_names(scalar, x0a.size, "z"))
        if self.clock is None:
            self.crossing_directions = (0,) * (2 * x0a.size)

    def _target(self, x: np.ndarray, v: Any) -> Any:
        """The output ``min(max(z, u - width/2), u + width/2)``."""
        h = self._half
        if self._scalar and type(v) is float:
            return _clip(x.item(), v - h, v + h)
        a = _flat_input("Backlash", v, x.size)
        y = np.minimum(np.maximum(x, a - h), a + h)
        return float(y[0]) if self._scalar else y

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        return (self._target(x, u[0]),)

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """dz/dt = (y - z) / tau."""
        y = self._target(x, u[0])
        if type(y) is float:
            return ((y - x.item()) / self._tau,)
        return (y - x) / self._tau

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """z[k+1] = y[k]."""
        y = self._target(x, u[0])
        return (y,) if type(y) is float else y

    def zero_crossings(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Sequence[float]:
        """``(u - width/2 - z, u + width/2 - z)`` (continuous variant; none when discrete)."""
        if self.clock is not None:
            return ()
        v = u[0]
        h = self._half
        if self._scalar and type(v) is float:
            z = x.item()
            return (v - h - z, v + h - z)
        d = _flat_input("Backlash", v, x.size) - x
        return np.concatenate([d - h, d + h])

    def kernels(self) -> Kernels:
        """Compiled kernels, ``params = (width / 2, tau)``.

        Scalar ``x0``: ``output`` :func:`backlash_output`, then ``deriv``
        :func:`backlash_deriv` and ``crossings`` :func:`backlash_crossings` (continuous) or
        ``update`` :func:`backlash_update` (clocked). Vector ``x0``:
        :func:`backlash_vector_output`, then :func:`backlash_vector_deriv` and
        :func:`backlash_vector_crossings`, or :func:`backlash_vector_output` again as
        ``update`` (z[k+1] = y[k]).
        """
        params = (self._half, self._tau)
        if self.clock is not None:
            if self._scalar:
                return Kernels(params=params, output=backlash_output, update=backlash_update)
            return Kernels(params=params, output=backlash_vector_output,
                           update=backlash_vector_output)
        if self._scalar:
            return Kernels(params=params, output=backlash_output, deriv=backlash_deriv,
                           crossings=backlash_crossings)
        return Kernels(params=params, output=backlash_vector_output,
                       deriv=backlash_vector_deriv, crossings=backlash_vector_crossings)


# ----------------------------------------------------------------------------- RateLimiter
class RateLimiter(Block):
    """Limit the rate of change of a signal (Simulink *Rate Limiter*).

    Discrete (``clock`` given, period ``T``): exactly Simulink's difference equation, at the
    hits t_k::

        y[k] = y[k-1] + min(max(u[k] - y[k-1], falling * T), rising * T),   y[-1] = x0

    held between hits (direct feedthrough from ``u`` inside a hit); the state is y[k-1].

    Continuous (``clock=None``): an ODE approximation of Simulink's continuous rate limiter,
    the output being a continuous state::

        dy/dt = min(max((u - y) / tau, falling), rising),   y(0) = x0

    When the slope of ``u`` is within the limits, ``y`` follows ``u`` as a first-order lag of
    time constant ``tau`` (behind a ramp of slope ``s``: a constant lag ``tau * s``); when the
    input moves faster, ``y`` moves at the limiting rate exactly, and it ends an approach with
    an exponential tail of time constant ``tau``. Simulink's continuous block instead passes
    ``u`` through when it is slow enough; the two agree to within that lag. No feedthrough.
    The fast eigenvalue ``-1/tau`` makes explicit solvers take steps of the order of ``tau``
    while tracking; with a fixed-step solver use ``dt <= tau``.

    Parameters
    ----------
    rising : float
        Largest rate of increase [unit of u / s], >= 0; ``inf`` for no limit.
    falling : float
        Largest rate of decrease as a negative rate [unit of u / s], <= 0; ``-inf`` for no
        limit.
    x0 : float or array_like
        Initial output [unit of u] (default 0): y(0) (continuous) or y[-1] (discrete). Its
        shape sets the signal shape (scalar: float signal; ``(n,)``: vector).
    tau : float
        Tracking time constant of the continuous variant [s], > 0 (default 1e-3); unused with
        a clock.
    clock : Clock, float or (float, float), optional
        Sample clock (or its period [s], or (period, offset)) of the discrete variant.

    Inputs
    ------
    u : float or ndarray, the shape of ``x0``
        The signal.

    Outputs
    -------
    y : float or ndarray, the shape of ``x0``
        The rate-limited signal.

    States
    ------
    y : shape ``(n,)``, the unit of u
        The output (continuous) or the previous output y[k-1] (discrete); named ``"y"``
        (scalar) or ``"y0", "y1", ...``.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, rising: float = 1.0, falling: float = -1.0, x0: Any = 0.0,
                 tau: float = 1e-3,
                 clock: Clock | float | tuple[float, float] | None = None) -> None:
        super().__init__()
        r = _real("RateLimiter", "rising", rising, finite=False)
        f = _real("RateLimiter", "falling", falling, finite=False)
        if r < 0.0:
            raise BlockParameterError(
                f"RateLimiter: parameter 'rising' must be >= 0 (a rate of increase), "
                f"got {_short(rising)}")
        if f > 0.0:
            raise BlockParameterError(
                f"RateLimiter: parameter 'falling' must be <= 0 (a rate of decrease is "
                f"negative, e.g. falling=-{f:g}), got {_short(falling)}")
        self._rising = r
        self._falling = f
        self._tau = _positive("RateLimiter", "tau", tau)
        x0a, scalar = _initial("RateLimiter", x0)
        self._scalar = scalar
        self.clock = as_clock(clock, "RateLimiter")
        self.set_state(x0a, _state_names(scalar, x0a.size, "y"))
        if self.clock is not None:
            period = self.clock.period
            self._dlo = f * period  # inf * T stays inf
            self._dhi = r * period
            self.feedthrough = True  # type: ignore[misc]
        else:
            self.feedthrough = False  # type: ignore[misc]

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        if self.clock is None:
            return (x.item(),) if self._scalar else (x.copy(),)
        return (self._step(x, u[0]),)

    def _step(self, x: np.ndarray, v: Any) -> Any:
        """y[k] from y[k-1] = x and u[k] = v."""
        if self._scalar and type(v) is float:
            yp = x.item()
            return yp + _clip(v - yp, self._dlo, self._dhi)
        y = x + np.clip(_flat_input("RateLimiter", v, x.size) - x, self._dlo, self._dhi)
        return float(y[0]) if self._scalar else y

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """y[k] becomes the state."""
        y = self._step(x, u[0])
        return (y,) if type(y) is float else y

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """dy/dt = clip((u - y) / tau, falling, rising)."""
        v = u[0]
        if self._scalar and type(v) is float:
            return (_clip((v - x.item()) / self._tau, self._falling, self._rising),)
        return np.clip((_flat_input("RateLimiter", v, x.size) - x) / self._tau, self._falling,
                       self._rising)

    def kernels(self) -> Kernels:
        """Compiled kernels.

        Clocked, ``params = (falling * T, rising * T)`` (``T`` the period): ``output``
        :func:`rate_limiter_output` and ``update`` :func:`rate_limiter_update` (scalar
        ``x0``), or :func:`rate_limiter_vector_output` for both (vector ``x0``).

        Continuous, ``params = (falling, rising, tau)``: ``output`` :func:`state_output`
        (scalar) or :func:`state_vector_output` (the state), ``deriv``
        :func:`rate_limiter_deriv` or :func:`rate_limiter_vector_deriv`.
        """
        if self.clock is not None:
            params = (self._dlo, self._dhi)
            if self._scalar:
                return Kernels(params=params, output=rate_limiter_output,
                               update=rate_limiter_update)
            return Kernels(params=params, output=rate_limiter_vector_output,
                           update=rate_limiter_vector_output)
        params = (self._falling, self._rising, self._tau)
        if self._scalar:
            return Kernels(params=params, output=state_output, deriv=rate_limiter_deriv)
        return Kernels(params=params, output=state_vector_output,
                       deriv=rate_limiter_vector_deriv)
