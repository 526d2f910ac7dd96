"""The continuous-time :class:`PID` controller.

Its states are integrated by the engine through ``deriv(t, x, u)``. Its compiled kernels
(:mod:`blocksim.engine.compiled.kernels`) are the module-level ``pid_*`` functions below; the
interpreted block calls their pure-Python functions (``pid_output.py_func``, ...), and
``__init__`` binds the variant without the limit test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numba
import numpy as np

from blocksim.blocks.continuous.params import _finite_float, _limit, _positive, _real_array
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain

__all__ = ["PID"]

_njit = numba.njit(cache=True, error_model="numpy")


# -- PID; params (Kp, Ki, Kd N, N, lower, upper, clamp_band) for every variant. The interpreted
# PID calls the pure-Python functions (``.py_func``) of these kernels with x as a list.
@_njit
def pid_output(t, x, e, p):
    """y = Kp e + Ki x_i + Kd N (e - z)."""
    Kp, Ki, KdN, _, _, _, _ = p
    return Kp * e + Ki * x[0] + KdN * (e - x[1])


@_njit
def pid_output_limited(t, x, e, p):
    """y = Kp e + Ki x_i + Kd N (e - z) saturated to [lower, upper]."""
    Kp, Ki, KdN, _, lower, upper, _ = p
    v = Kp * e + Ki * x[0] + KdN * (e - x[1])
    if v > upper:
        return upper
    if v < lower:
        return lower
    return v


@_njit
def pid_deriv(t, x, e, p):
    """(e, N (e - z))."""
    N = p[3]
    return (e, N * (e - x[1]))


@_njit
def pid_deriv_limited(t, x, e, p):
    """(e, or e faded out / stopped by the anti-windup clamp, N (e - z))."""
    Kp, Ki, KdN, N, lower, upper, band = p
    xi = x[0]
    z = x[1]
    dz = N * (e - z)
    v = Kp * e + Ki * xi + KdN * (e - z)
    push = Ki * e
    # excess beyond the limit the error drives v towards
    if push > 0.0:
        excess = v - upper
    elif push < 0.0:
        excess = lower - v
    else:
        return (e, dz)
    if excess > 0.0:
        if excess >= band:
            return (0.0, dz)
        return (e * (1.0 - excess / band), dz)
    return (e, dz)


_pid_output_py = pid_output.py_func
_pid_output_limited_py = pid_output_limited.py_func
_pid_deriv_py = pid_deriv.py_func
_pid_deriv_limited_py = pid_deriv_limited.py_func


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
                f"{owner}: lower must be <= upper, got lower={plain(lower)}, upper={plain(upper)}")
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
