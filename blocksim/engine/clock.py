"""Sample clocks and the integer time base on which their hits are scheduled.

A :class:`Clock` is a value: ``Clock(period, offset)`` fires at ``offset + k * period`` for
k = 0, 1, 2, ... Hits are computed in integer *ticks* of a common time base (the least common
multiple of the clocks' rational denominators), so that, for example, clocks of 0.1 s and 0.3 s
coincide exactly at 0.3, 0.6, ... however long the run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from blocksim.engine.errors import plain

#: largest denominator used when turning a period [s] into a fraction (1 ns resolution)
MAX_DENOMINATOR = 10**9


def rational_times(first: int, step: int, count: int, per_second: int) -> np.ndarray:
    """The times ``(first + k * step) / per_second`` [s] for k < count, each the float nearest
    to the exact quotient (numpy's division where every integer is exact in float64, else
    Python's correctly rounded int / int)."""
    last = first + max(count - 1, 0) * step
    if count <= 0:
        return np.zeros(0)
    if max(abs(first), abs(last), per_second) < 2**53:
        ticks = first + step * np.arange(count, dtype=np.int64)
        return ticks.astype(float) / float(per_second)
    return np.array([(first + k * step) / per_second for k in range(count)], dtype=float)


@dataclass(frozen=True)
class Clock:
    """A periodic sample time.

    Parameters
    ----------
    period : float
        Sample period [s], > 0.
    offset : float
        Time of the first hit [s], 0 <= offset (default 0: the block samples at t = 0).
    """

    period: float
    offset: float = 0.0

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined, no-any-return]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((Clock, self.period, self.offset)))
        if not (self.period > 0 and math.isfinite(self.period)):
            raise ValueError(f"Clock: period must be a positive finite number of seconds, "
                             f"got {plain(self.period)}")
        if Fraction(self.period).limit_denominator(MAX_DENOMINATOR) == 0:
            raise ValueError(f"Clock: period must be at least about {1 / MAX_DENOMINATOR:g} s (the "
                             f"resolution of the clocks' time base), got {plain(self.period)}")
        if not (self.offset >= 0 and math.isfinite(self.offset)):
            raise ValueError(f"Clock: offset must be >= 0 seconds, got {plain(self.offset)}")

    @property
    def fractions(self) -> tuple[Fraction, Fraction]:
        """Period and offset as exact fractions of a second."""
        return (Fraction(self.period).limit_denominator(MAX_DENOMINATOR),
                Fraction(self.offset).limit_denominator(MAX_DENOMINATOR))


class TimeBase:
    """Integer ticks shared by a set of clocks.

    Parameters
    ----------
    clocks : iterable of Clock
        Every clock of the diagram.

    Attributes
    ----------
    resolution : Fraction
        Duration of one tick [s].
    """

    def __init__(self, clocks: list[Clock]):
        denominators = [f.denominator for c in clocks for f in c.fractions]
        lcm = 1
        for d in denominators:
            lcm = lcm * d // math.gcd(lcm, d)
        self.resolution = Fraction(1, lcm)
        self._per_second = lcm
        self._ticks = {c: tuple(int(f / self.resolution) for f in c.fractions) for c in clocks}

    def hit_times(self, clock: Clock, T: float) -> np.ndarray:
        """Every hit of ``clock`` in [0, T] [s]."""
        first = self.next_hit(clock, 0)
        period = self._ticks[clock][0]
        count = max(0, (self.to_ticks_ceil(T) + 1 - first) // period + 1)
        hits = rational_times(first, period, count, self._per_second)
        return hits[hits <= T]

    def to_time(self, ticks: int) -> float:
        """Time [s] of an integer tick count (correctly rounded: int / int division)."""
        return ticks / self._per_second

    def to_ticks_ceil(self, t: float) -> int:
        """Smallest tick count whose time is >= t (within float rounding)."""
        exact = Fraction(t).limit_denominator(MAX_DENOMINATOR) / self.resolution
        return math.ceil(exact)

    def next_hit(self, clock: Clock, after_ticks: int) -> int:
        """First hit of ``clock`` at a tick count >= ``after_ticks``."""
        period, offset = self._ticks[clock]
        if after_ticks <= offset:
            return offset
        k = -(-(after_ticks - offset) // period)
        return offset + k * period


class _EventDriven:
    """Marker clock of blocks whose discrete state changes only in ``on_event``."""

    _instance: _EventDriven | None = None

    def __new__(cls) -> _EventDriven:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "EVENT"


#: ``block.clock = EVENT``: the block's states are discrete *modes* (relay on/off, backlash
#: contact), changed only by its ``on_event`` at located zero crossings, never integrated.
EVENT = _EventDriven()


def as_clock(value: Clock | float | tuple[float, float] | None, owner: str) -> Clock | None:
    """Accept a Clock, a period [s] or a (period, offset) pair; None stays None."""
    if value is None or isinstance(value, Clock):
        return value
    from blocksim.engine.errors import BlockParameterError

    try:
        if isinstance(value, (tuple, list)) and len(value) == 2:
            return Clock(float(value[0]), float(value[1]))
        return Clock(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise BlockParameterError(f"{owner}: clock must be a Clock, a period in seconds or a "
                                  f"(period, offset) pair, got {plain(value)} ({exc})") from None
