"""The :class:`DiscretePID` controller.

A discrete-time block with a required sample ``clock``, under the semantics described in
:mod:`blocksim.blocks.discrete.base`. The interpreted block calls the pure-Python functions of
its compiled kernels ``dpid_output`` and ``dpid_update`` (:mod:`blocksim.blocks.discrete.kernels`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from blocksim.blocks.continuous.params import _finite_float, _limit, _positive, _real_array
from blocksim.blocks.discrete.base import _filter_tau, _sample_clock
from blocksim.blocks.discrete.kernels import (
    _dpid_output_py,
    _dpid_update_py,
    dpid_output,
    dpid_update,
)
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import Clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain

__all__ = ["DiscretePID"]


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
                f"{owner}: parameter 'lower' must be <= 'upper', got lower={plain(lower)}, "
                f"upper={plain(upper)}")
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
