"""Continuous-time integrating and differentiating blocks: :class:`Integrator` and
:class:`Derivative`.

Both have continuous states, integrated by the engine through ``deriv(t, x, u)``. As the linear
blocks (:mod:`blocksim.blocks.continuous.linear`, see its performance notes), they bind pure-Python
fast paths for scalar and array signals at construction; the class-level ``deriv`` / ``output`` are
the numpy reference implementations. Their compiled kernels (``integrator_*``, ``derivative_*``) are
in :mod:`blocksim.blocks.continuous.kernels`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from blocksim.blocks.continuous.kernels import (
    _carray,
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
)
from blocksim.blocks.continuous.params import _positive, _real_array
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain

__all__ = ["Derivative", "Integrator"]


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
            raise BlockParameterError(f"{owner}: x0 must have at least one element, got "
                                      f"{plain(x0)}")
        try:
            lo = np.broadcast_to(np.array(lower, dtype=float), shape)
            hi = np.broadcast_to(np.array(upper, dtype=float), shape)
        except (TypeError, ValueError):
            raise BlockParameterError(
                f"{owner}: lower and upper must be numbers or arrays broadcastable to the shape "
                f"of x0 {shape}, got lower={plain(lower)}, upper={plain(upper)}") from None
        if np.any(np.isnan(lo)) or np.any(np.isnan(hi)):
            raise BlockParameterError(f"{owner}: lower/upper must not be NaN; use -inf/inf for "
                                      f"no limit")
        if np.any(lo > hi):
            raise BlockParameterError(
                f"{owner}: lower must be <= upper, got lower={plain(lower)}, upper={plain(upper)}")
        if np.any(x0a < lo) or np.any(x0a > hi):
            raise BlockParameterError(
                f"{owner}: x0={plain(x0)} is outside the limits [lower, upper] = "
                f"[{plain(lower)}, {plain(upper)}]")
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
