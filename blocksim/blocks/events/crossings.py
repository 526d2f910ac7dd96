"""Event blocks: Stop ends the run, HitCrossing marks the instants a signal crosses a level.

Both declare zero crossings, so the run loop locates the instants in time (to ``event_tol``)
and takes a major step there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from blocksim.engine.block import Block, Port
from blocksim.engine.clock import EVENT
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain

__all__ = ["HitCrossing", "Stop"]


@numba.njit(cache=True, error_model="numpy")
def stop_crossings(t: float, x: Any, u: float, p: Any) -> tuple[float]:
    """Stop: g = u - 0.5."""
    return (u - 0.5,)


@numba.njit(cache=True, error_model="numpy")
def hit_output(t: float, x: Any, u: float, p: Any) -> float:
    """HitCrossing: 1 at the time of the last crossing."""
    return 1.0 if t == x[0] else 0.0


@numba.njit(cache=True, error_model="numpy")
def hit_crossings(t: float, x: Any, u: float, p: Any) -> tuple[float]:
    """HitCrossing: g = u - offset."""
    return (u - p[0],)


@numba.njit(cache=True, error_model="numpy")
def hit_on_event(t: float, x: Any, u: float, p: Any, which: int) -> tuple[float]:
    """HitCrossing: remember the crossing time."""
    return (t,)


class Stop(Block):
    """End the simulation when the input becomes true (>= 0.5), like Simulink's Stop block.

    The instant the input rises through 0.5 is located as a zero crossing; the run records that
    instant and ends with ``result.status == "stopped"`` (not an error). An input already true
    at t = 0 stops the run at once.

    Inputs
    ------
    u : float
        Stop condition (0 = run on, 1 = stop); any signal rising through 0.5.
    """

    inputs = (Port("u", shape=()),)
    outputs = ()
    crossing_directions = (1,)
    stops_simulation = True

    def __init__(self) -> None:
        pass

    def zero_crossings(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        """g = u - 0.5, rising."""
        return (u[0] - 0.5,)

    def kernels(self) -> Kernels:
        """Compiled: the crossing only (the loop ends the run)."""
        return Kernels((), crossings=stop_crossings)


_DIRECTIONS = {"rising": 1, "falling": -1, "either": 0}


class HitCrossing(Block):
    """Detect the instants a signal crosses ``offset``; output 1 at those instants, else 0.

    The solver takes a major step exactly at each crossing (located to ``event_tol``), so the
    output pulse is recorded there. Like Simulink's Hit Crossing block.

    Parameters
    ----------
    offset : float
        Level to detect, in the input's unit.
    direction : {"either", "rising", "falling"}
        Which crossings count.

    Inputs
    ------
    u : float
        Monitored signal.

    Outputs
    -------
    y : float
        1.0 at the instant of a crossing, 0.0 otherwise.

    States
    ------
    last : float
        Time of the last crossing [s] (an event mode, changed only by crossings); -inf before.
    """

    inputs = (Port("u", shape=()),)
    outputs = (Port("y", shape=()),)
    feedthrough = {"y": ()}

    def __init__(self, offset: float = 0.0, direction: str = "either") -> None:
        if direction not in _DIRECTIONS:
            raise BlockParameterError(f"HitCrossing: direction must be one of "
                                      f"{', '.join(_DIRECTIONS)}, got {direction!r}")
        try:
            self.offset = float(offset)
        except (TypeError, ValueError):
            raise BlockParameterError(f"HitCrossing: offset must be a number, "
                                      f"got {plain(offset)}") from None
        self.crossing_directions = (_DIRECTIONS[direction],)
        self.clock = EVENT
        self.set_state([-np.inf], ["last"])

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        """1 at the time of the last crossing, 0 otherwise."""
        return (1.0 if t == x[0] else 0.0,)

    def zero_crossings(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        """g = u - offset."""
        return (u[0] - self.offset,)

    def on_event(self, t: float, x: np.ndarray, u: Sequence[Any], which: int) -> list[float]:
        """Remember the crossing time."""
        return [t]

    def kernels(self) -> Kernels:
        """Compiled output, crossing and event kernels (params: (offset,))."""
        return Kernels((self.offset,), output=hit_output, crossings=hit_crossings,
                       on_event=hit_on_event)
