"""Real-time pacing of the interpreted run (it belongs to the simulator, not to a block)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from blocksim.engine.run import Run


class Pacer:
    """Real-time pacing: wait until wall time reaches t / realtime at every major time; count
    lateness and overruns per clock."""

    def __init__(self, run: Run):
        self.run = run
        self.rate = float(run.config.realtime)
        self.wall0 = time.perf_counter()
        self.per_clock: dict[Any, dict[str, float]] = {}
        run.stats["realtime"] = {"rate": self.rate, "max_lateness": 0.0, "clocks": {}}

    def pace(self, t: float, fired: frozenset[Any]) -> None:
        target = self.wall0 + t / self.rate
        now = time.perf_counter()
        if now < target:
            time.sleep(target - now)
            now = time.perf_counter()
        late = max(0.0, now - target)
        rt = self.run.stats["realtime"]
        rt["max_lateness"] = max(rt["max_lateness"], late)
        for c in fired:
            key = f"clock {c.period:g} s"
            st = rt["clocks"].setdefault(key, {"hits": 0, "max_lateness": 0.0,
                                               "mean_lateness": 0.0, "overruns": 0})
            st["hits"] += 1
            st["mean_lateness"] += (late - st["mean_lateness"]) / st["hits"]
            st["max_lateness"] = max(st["max_lateness"], late)
            if late > c.period:
                st["overruns"] += 1
