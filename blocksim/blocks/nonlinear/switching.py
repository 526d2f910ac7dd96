"""Switching blocks: :class:`Sign`, :class:`MinMax`, :class:`Switch` and :class:`Relay`.

:class:`Sign` and :class:`Switch` are stateless and declare a zero crossing per element of
their (control) input, sized by their ``size`` parameter (see
:mod:`blocksim.blocks.nonlinear.base` for the rules); :class:`MinMax` (continuous output, kinks
only) declares no crossings. :class:`Relay` keeps its on/off mode as the discrete state of an
``EVENT``-clocked block, changed only by ``on_event`` at located crossings: the switching
instants are exact to the engine's event tolerance. The compiled kernels are in
:mod:`blocksim.blocks.nonlinear.kernels`. Scalar signals are Python floats; arrays are float64
ndarrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import _is_int, _short
from blocksim.blocks.nonlinear.base import _check_size, _LevelCrossings, _real
from blocksim.blocks.nonlinear.kernels import (
    minmax_output,
    minmax_reduce_output,
    relay_crossings,
    relay_on_event,
    relay_output,
    relay_update,
    sign_crossings,
    sign_output,
    switch_crossings,
    switch_output,
)
from blocksim.engine.block import Block
from blocksim.engine.clock import EVENT
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain, suggest

__all__ = ["MinMax", "Relay", "Sign", "Switch"]


# ----------------------------------------------------------------------------- Sign
class Sign(_LevelCrossings):
    """The sign of the input (Simulink *Sign*).

    Equation, element-wise: ``y = 1`` for ``u > 0``, ``-1`` for ``u < 0``, ``0`` for ``u = 0``
    (NaN for NaN).

    Parameters
    ----------
    size : int or None
        Number of elements of ``u`` (default 1, a scalar), for the zero crossings; None for no
        zero crossings and any input shape (see the module docstring).

    Inputs
    ------
    u : float or ndarray (any shape; ``size`` elements unless ``size`` is None)
        The signal.

    Outputs
    -------
    y : float or ndarray, the shape of ``u``
        -1.0, 0.0 or 1.0 (dimensionless).

    Zero crossings
    --------------
    ``u`` itself (each of ``size`` elements), either direction.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, size: int | None = 1) -> None:
        super().__init__()
        self._set_crossings(_check_size("Sign", size), (0.0,))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        v = u[0]
        if type(v) is float:
            return (1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0 * v),)
        y = np.sign(np.asarray(v, dtype=float))
        return (float(y) if y.ndim == 0 else y,)

    def kernels(self) -> Kernels:
        """Compiled kernels: ``output`` :func:`sign_output`, ``crossings``
        :func:`sign_crossings` (unless ``size`` is None); ``params = (size,)`` (an int, 0 for
        None)."""
        return Kernels(params=(self._zc_size or 0,), output=sign_output,
                       crossings=sign_crossings if self.crossing_directions else None)


# ----------------------------------------------------------------------------- MinMax
_MINMAX_FUNCS = ("min", "max")


class MinMax(Block):
    """Minimum or maximum of the inputs, or of a vector's elements (Simulink *MinMax*).

    Equations:

    * ``nin >= 2``: ``y = min(u0, u1, ...)`` (or max) element-wise, with numpy broadcasting;
    * ``nin == 1``: ``y = min_i u[i]`` (or max) over the elements of the single input.

    A NaN input gives a NaN output. The output is continuous (it only has kinks), so the block
    declares no zero crossings.

    Parameters
    ----------
    func : {"min", "max"}
        Which extreme (default ``"min"``).
    nin : int
        Number of inputs, >= 1 (default 2).

    Inputs
    ------
    u0, u1, ... : float or ndarray (broadcastable shapes)
        ``nin`` inputs, all in one unit; with ``nin == 1`` the single input is named ``u`` and
        may have any shape.

    Outputs
    -------
    y : float or ndarray
        The broadcast shape of the inputs for ``nin >= 2``; a float for ``nin == 1``.
    """

    outputs = ("y",)

    def __init__(self, func: str = "min", nin: int = 2) -> None:
        super().__init__()
        if not isinstance(func, str) or func not in _MINMAX_FUNCS:
            raise BlockParameterError(
                f"MinMax: parameter 'func' must be 'min' or 'max', got {_short(func)}"
                f"{suggest(str(func), _MINMAX_FUNCS)}")
        if not _is_int(nin) or nin < 1:
            raise BlockParameterError(
                f"MinMax: parameter 'nin' must be an integer >= 1, got {_short(nin)}")
        self._max = func == "max"
        self._nin = int(nin)
        self._ufunc = np.maximum if self._max else np.minimum
        self._reduce = np.max if self._max else np.min
        self.set_ports(inputs=["u"] if nin == 1 else [f"u{i}" for i in range(nin)])

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        if self._nin == 1:
            v = u[0]
            if type(v) is float:
                return (v,)
            return (float(self._reduce(v)),)
        if all(type(v) is float for v in u):
            y = u[0]
            big = self._max
            for v in u[1:]:
                # comparisons with NaN are False: the third branch propagates it
                if v < y:
                    if not big:
                        y = v
                elif v > y:
                    if big:
                        y = v
                elif v != v:
                    y = v
            return (y,)
        y = u[0]
        for v in u[1:]:
            y = self._ufunc(y, v)
        y = np.asarray(y, dtype=float)
        return (float(y) if y.ndim == 0 else y,)

    def kernels(self) -> Kernels:
        """Compiled kernels: ``output`` :func:`minmax_reduce_output` (``nin == 1``) or
        :func:`minmax_output` (any ``nin >= 2``: it takes ``*args``); ``params = (is_max,)``,
        a bool."""
        out = minmax_reduce_output if self._nin == 1 else minmax_output
        return Kernels(params=(self._max,), output=out)


# ----------------------------------------------------------------------------- Switch
_CRITERIA = (">=", ">", "!=")


class Switch(_LevelCrossings):
    """Pass one of two inputs depending on a control input (Simulink *Switch*).

    Equation: ``y = u_true if control <criterion> threshold else u_false``, where the
    criterion is ``>=`` (default), ``>`` or ``!=``. The ports keep Simulink's order: the input
    passed when the criterion holds (Simulink's u1), the control (u2), the input passed
    otherwise (u3); by index they are ``block[0]``, ``block[1]``, ``block[2]``.

    A scalar control selects a whole input; a vector control selects element by element
    (``numpy.where``, broadcasting ``u_true`` and ``u_false`` to its shape).

    Parameters
    ----------
    threshold : float
        The level the control is compared with [unit of control], finite (default 0).
    criterion : {">=", ">", "!="}
        The comparison (default ``">="``). ``"!="`` with ``threshold=0`` is Simulink's
        ``u2 ~= 0``.
    size : int or None
        Number of elements of ``control`` (default 1, a scalar), for the zero crossings; None
        for no zero crossings (see the module docstring).

    Inputs
    ------
    u_true : float or ndarray
        Passed where the criterion holds.
    control : float or ndarray
        The control signal.
    u_false : float or ndarray, the shape of ``u_true``
        Passed where it does not.

    Outputs
    -------
    y : float or ndarray
        The selected input: the shape of ``u_true`` (and ``u_false``, which must agree, since a
        signal's shape is fixed for a run) for a scalar control, else the broadcast shape of
        the three inputs.

    Zero crossings
    --------------
    ``control - threshold`` (each of ``size`` elements), either direction.
    """

    inputs = ("u_true", "control", "u_false")
    outputs = ("y",)
    _zc_port = 1

    def __init__(self, threshold: float = 0.0, criterion: str = ">=",
                 size: int | None = 1) -> None:
        super().__init__()
        self._th = _real("Switch", "threshold", threshold)
        if not isinstance(criterion, str) or criterion not in _CRITERIA:
            raise BlockParameterError(
                f"Switch: parameter 'criterion' must be one of "
                f"{', '.join(map(repr, _CRITERIA))}, got {_short(criterion)}"
                f"{suggest(str(criterion), _CRITERIA)}")
        self._crit = _CRITERIA.index(criterion)
        self._set_crossings(_check_size("Switch", size), (self._th,))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        a, c, b = u
        th = self._th
        crit = self._crit
        if type(c) is float:
            cond = c >= th if crit == 0 else (c > th if crit == 1 else c != th)
            if type(a) is not float or type(b) is not float:
                sa, sb = np.shape(a), np.shape(b)
                if sa != sb:
                    raise ValueError(
                        f"Switch: inputs 'u_true' (shape {sa}) and 'u_false' (shape {sb}) must "
                        f"have the same shape, the output's shape being fixed for a run")
                y = np.asarray(a if cond else b, dtype=float)  # no copy of a float64 array
                return (float(y) if y.ndim == 0 else y,)
            return (a if cond else b,)
        carr = np.asarray(c, dtype=float)
        mask = carr >= th if crit == 0 else (carr > th if crit == 1 else carr != th)
        y = np.where(mask, a, b).astype(float, copy=False)
        return (float(y) if y.ndim == 0 else y,)

    def kernels(self) -> Kernels:
        """Compiled kernels: ``output`` :func:`switch_output`, ``crossings``
        :func:`switch_crossings` (unless ``size`` is None); ``params = (threshold, criterion,
        size)`` with ``criterion`` 0 (``>=``), 1 (``>``) or 2 (``!=``) and ``size`` (0 for
        None) ints."""
        return Kernels(params=(self._th, self._crit, self._zc_size or 0), output=switch_output,
                       crossings=switch_crossings if self.crossing_directions else None)


# ----------------------------------------------------------------------------- Relay
class Relay(Block):
    """Relay with hysteresis (Simulink *Relay*).

    The relay has a mode, on or off. It turns on when ``u`` rises through ``on_point`` and off
    when ``u`` falls through ``off_point``; between the two points it keeps its mode::

        y = on_value if mode == on else off_value

    The mode starts as ``x0`` and changes only at those crossings, located in time by the
    engine (to its event tolerance). It is **not** made consistent with the input at t = 0:
    with ``x0=0`` and ``u(0) > on_point`` the relay stays off until ``u`` falls below
    ``on_point`` and rises through it again. Choose ``x0`` to match the initial input.

    Parameters
    ----------
    on_point : float
        Level [unit of u] whose upward crossing turns the relay on; finite.
    off_point : float
        Level [unit of u] whose downward crossing turns it off; finite, ``<= on_point``
        (equal points: a comparator without hysteresis).
    on_value, off_value : float
        Outputs when on and off [unit of y]; finite (defaults 1 and 0).
    x0 : {0, 1}
        Initial mode: 0 (or False) off, 1 (or True) on (default 0).

    Inputs
    ------
    u : float
        The signal, a scalar.

    Outputs
    -------
    y : float
        ``on_value`` or ``off_value``. No feedthrough: the output depends on the mode only
        (the input acts through the events).

    States
    ------
    mode : shape (1,), 0.0 (off) or 1.0 (on)
        A discrete mode: ``clock`` is ``EVENT``, the state changes only in ``on_event``.

    Zero crossings
    --------------
    0: ``u - on_point``, rising (turns on); 1: ``u - off_point``, falling (turns off).
    """

    inputs = ("u",)
    outputs = ("y",)
    feedthrough = False

    def __init__(self, on_point: float = 0.0, off_point: float = 0.0, on_value: float = 1.0,
                 off_value: float = 0.0, x0: int | bool = 0) -> None:
        super().__init__()
        on = _real("Relay", "on_point", on_point)
        off = _real("Relay", "off_point", off_point)
        if off > on:
            raise BlockParameterError(
                f"Relay: parameter 'off_point' must be <= 'on_point' (hysteresis band "
                f"[off_point, on_point]), got on_point={plain(on)}, off_point={plain(off)}")
        self._on_point = on
        self._off_point = off
        self._on = _real("Relay", "on_value", on_value)
        self._off = _real("Relay", "off_value", off_value)
        if not isinstance(x0, (bool, int, float, np.bool_, np.integer, np.floating)) \
                or x0 not in (0, 1):
            raise BlockParameterError(
                f"Relay: parameter 'x0' (initial mode) must be 0 (off) or 1 (on), "
                f"got {_short(x0)}")
        self.clock = EVENT
        self.crossing_directions = (1, -1)
        self.set_state([1.0 if x0 else 0.0], ("mode",))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (self._on if x[0] > 0.5 else self._off,)

    def kernels(self) -> Kernels:
        """Compiled kernels: ``output`` :func:`relay_output` (from the mode state),
        ``update`` :func:`relay_update` (the mode unchanged), ``crossings``
        :func:`relay_crossings`, ``on_event`` :func:`relay_on_event`; ``params = (on_value,
        off_value, on_point, off_point)``."""
        return Kernels(params=(self._on, self._off, self._on_point, self._off_point),
                       output=relay_output, update=relay_update, crossings=relay_crossings,
                       on_event=relay_on_event)

    def zero_crossings(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Sequence[float]:
        """``(u - on_point, u - off_point)``."""
        v = u[0]
        if type(v) is not float:
            if np.size(v) != 1:
                raise ValueError(f"Relay: input 'u' must be a scalar, got shape {np.shape(v)}")
            v = float(np.reshape(v, -1)[0])
        return (v - self._on_point, v - self._off_point)

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """The mode unchanged: an ``EVENT`` block's state changes only in ``on_event``."""
        return x.copy()

    def on_event(self, t: float, x: np.ndarray, u: Sequence[Any], which: int) -> Any:
        """Crossing 0 turns the relay on, crossing 1 off; None when the mode is unchanged."""
        on = x[0] > 0.5
        if which == 0 and not on:
            return np.array([1.0])
        if which == 1 and on:
            return np.array([0.0])
        return None
