"""Real-time pacing of the interpreted run (it belongs to the simulator, not to a block).

With ``realtime = r`` the run waits, before the work of each major time ``t``, until the wall
clock reaches ``wall0 + t / r`` (``wall0``: when the loop started), so that blocks talking to
devices do so at their hits' times, not ahead of them (Simulink Desktop Real-Time's
semantics). The work of a time that ends after that instant is *late* by the difference (its
duration, plus whatever delayed its start); a clock hit late by more than its period in wall
time (``period / r``) is an *overrun* of that clock: its work did not fit in one period.
``result.stats["realtime"]`` holds the rate, the policy, the largest lateness and, per clock
(``"clock 0.02 s"``), its hits, mean and largest lateness [s] and overruns.

What an overrun does is the run's ``overrun`` option (:class:`~blocksim.engine.config.RunConfig`):

``"warn"``
    count it and warn once per run (a :class:`RuntimeWarning` naming the clock, the time and
    the lateness);
``"skip"``
    count it silently. The simulated blocks always compute (dropping their work would change
    the simulated result); the hardware blocks drop the device exchange of a hit that starts
    a period late (outputs hold, commands are not sent), so a loop that fell behind catches
    up (see :mod:`blocksim.blocks.hardware.base`);
``"abort"``
    stop the run with :class:`OverrunError` naming the clock, the time and the lateness; the
    result recorded so far is in ``err.result`` and every block's ``stop`` runs.
"""

from __future__ import annotations

import gc
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from blocksim.engine.errors import SimulationError

if TYPE_CHECKING:
    from blocksim.engine.run import Run


class OverrunError(SimulationError):
    """A clock hit of a real-time run (``overrun="abort"``) was more than a period late.

    Attributes
    ----------
    clock : str
        The clock, as named in ``result.stats["realtime"]["clocks"]`` (``"clock 0.02 s"``).
    lateness : float
        How late the hit's work ended [s of wall time].
    """

    def __init__(self, message: str, *, clock: str, lateness: float, time: float):
        super().__init__(message, time=time)
        self.clock = clock
        self.lateness = lateness


@contextmanager
def steady_gc(enabled: bool) -> Iterator[None]:
    """While a real-time run lasts (``enabled``), keep the objects that exist when it starts
    out of the garbage collector's full passes (:func:`gc.freeze`; undone at the end): a full
    pass over a process that has loaded numpy, scipy and numba took tens of milliseconds,
    longer than a 100 Hz loop's period."""
    if not enabled:
        yield
        return
    gc.freeze()  # no collection first: it could take longer than the run (garbage frozen now
    # is collected after the run, once unfrozen)
    try:
        yield
    finally:
        gc.unfreeze()


def clock_key(period: float) -> str:
    """The name of a clock in the real-time statistics (``"clock 0.02 s"``)."""
    return f"clock {period:g} s"


class Pacer:
    """Real-time pacing: wait until wall time reaches t / realtime at every major time; count
    lateness and overruns per clock and apply the run's overrun policy."""

    def __init__(self, run: Run):
        self.run = run
        self.rate = float(run.config.realtime)
        self.policy = run.config.overrun
        self.wall0 = time.perf_counter()
        self.warned = False
        run.stats["realtime"] = {"rate": self.rate, "overrun": self.policy,
                                 "max_lateness": 0.0, "clocks": {}}

    def wait(self, t: float) -> None:
        """Wait until the wall clock reaches major time ``t`` (before its work)."""
        target = self.wall0 + t / self.rate
        now = time.perf_counter()
        if now < target:
            time.sleep(target - now)

    def pace(self, t: float, fired: Any) -> None:
        """Account for the lateness of the clocks that ``fired`` at major time ``t``, whose
        work is done (waiting first if it is still early).

        Raises
        ------
        OverrunError
            A fired clock overran and the policy is ``"abort"``.
        """
        self.wait(t)
        late = max(0.0, time.perf_counter() - (self.wall0 + t / self.rate))
        rt = self.run.stats["realtime"]
        rt["max_lateness"] = max(rt["max_lateness"], late)
        for c in fired:
            key = clock_key(c.period)
            st = rt["clocks"].setdefault(key, {"hits": 0, "max_lateness": 0.0,
                                               "mean_lateness": 0.0, "overruns": 0})
            st["hits"] += 1
            st["mean_lateness"] += (late - st["mean_lateness"]) / st["hits"]
            st["max_lateness"] = max(st["max_lateness"], late)
            period = c.period / self.rate  # wall seconds
            if late > period:
                st["overruns"] += 1
                self._overrun(key, t, late, period)

    def _overrun(self, key: str, t: float, late: float, period: float) -> None:
        what = (f"real-time overrun on {key} at t={t:.6g} s: the hit's work ended "
                f"{late * 1e3:.3g} ms late (period {period * 1e3:.3g} ms of wall time at "
                f"realtime={self.rate:g})")
        if self.policy == "abort":
            raise OverrunError(f"{what}; overrun='abort' stops the run", clock=key,
                               lateness=late, time=t)
        if self.policy == "warn" and not self.warned:
            self.warned = True
            warnings.warn(f"{what}; result.stats['realtime'] counts the overruns per clock "
                          f"(overrun='skip' silences this, 'abort' stops the run)",
                          RuntimeWarning, stacklevel=6)  # simulate()'s caller


__all__ = ["OverrunError", "Pacer", "clock_key", "steady_gc"]
