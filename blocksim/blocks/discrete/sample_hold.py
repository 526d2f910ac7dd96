"""Samplers and delays: :class:`ZOH`, :class:`UnitDelay` and :class:`RateTransition`.

Discrete-time blocks with a required sample ``clock``, under the semantics described in
:mod:`blocksim.blocks.discrete.base`; their compiled kernels (``sample_output``, ``delay_*``)
are in :mod:`blocksim.blocks.discrete.kernels`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from blocksim.blocks.discrete.base import _as_signal, _sample_clock, _shaped_x0, _state_names
from blocksim.blocks.discrete.kernels import (
    delay_output_matrix,
    delay_output_scalar,
    delay_output_vector,
    delay_update_array,
    delay_update_scalar,
    sample_output,
)
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import Clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain

__all__ = ["ZOH", "RateTransition", "UnitDelay"]


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
                f"{owner}: parameter 'delay' must be True or False, got {plain(delay)}")
        self.delay = bool(delay)
        if self.delay:
            self._setup_delay(owner, 0.0 if x0 is None else x0)
        else:
            if x0 is not None:
                raise BlockParameterError(
                    f"{owner}: parameter 'x0' applies only with delay=True (the initial output "
                    f"of the delay); without a delay the output is the sampled input, got "
                    f"x0={plain(x0)}")
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
