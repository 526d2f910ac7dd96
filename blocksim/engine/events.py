"""State events: zero-crossing bookkeeping, location and handlers for the interpreted run.

A block's ``zero_crossings`` values are compared between evaluations; a sign change in the
declared direction is an event. Inside a solver step it is located by bracketing on the dense
output (:func:`locate`, Illinois method) to ``event_tol``; at a major time the handlers
(``on_event``) fire, Stop blocks end the run, and a Zeno guard stops a chattering block.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from blocksim.engine.crossing import has_crossed
from blocksim.engine.errors import BlockRuntimeError, ZenoError

if TYPE_CHECKING:
    from blocksim.engine.run import Run


class Events:
    """Event bookkeeping of one run: crossing values, handlers, Zeno guard, Stop."""

    ZENO_COUNT = 50

    def __init__(self, run: Run):
        self.run = run
        self.ev = run.evaluator
        self.owner = self.ev.crossing_owner
        self.enabled = bool(self.owner)
        self.g_prev: list[float] | None = None
        self.last_time: dict[int, float] = {}
        self.burst: dict[int, int] = {}
        T = run.config.T
        self.zeno_dt = 100.0 * run.config.event_tol * max(1.0, T)
        self.stopped_by: str | None = None
        run.stats["nevents"] = 0

    def at_major_time(self, t: float, fired: frozenset[Any]) -> None:
        """Fire the handlers of every crossing between the previous values and now."""
        run, ev = self.run, self.ev
        g_now = ev.crossings(t, run.x, run.xd)
        if self.g_prev is None:  # t = 0: only a Stop already true counts
            hits = [i for i, (k, _, _) in enumerate(self.owner)
                    if run.plan.entries[k].block.stops_simulation and g_now[i] >= 0.0]
        else:
            hits = [i for i, (_, _, d) in enumerate(self.owner)
                    if has_crossed(self.g_prev[i], g_now[i], d)]
        if hits:
            self._fire(t, hits)
            if fired:
                ev.outputs_at_hit(t, run.x, run.xd, fired)
            else:
                ev.outputs(t, run.x, run.xd)
            g_now = ev.crossings(t, run.x, run.xd)
        self.g_prev = g_now

    def _fire(self, t: float, hits: list[int]) -> None:
        run, plan = self.run, self.run.plan
        x, xd = run.x.copy(), run.xd.copy()
        sig = self.ev.sig
        for i in hits:
            k, which, _ = self.owner[i]
            e = plan.entries[k]
            run.stats["nevents"] += 1
            self._zeno_guard(k, t)
            xs = xd if e.discrete else x
            u = [sig[s] for s in e.in_slots]
            try:
                new = e.block.on_event(t, xs[e.states].copy(), u, which)
            except Exception as exc:
                raise BlockRuntimeError(
                    f"block '{e.name}' ({e.kind}): on_event() raised {type(exc).__name__}: "
                    f"{exc} at t={t:.6g} s", block=e.name, time=t) from exc
            if new is not None:
                xs[e.states] = np.asarray(new, dtype=float).reshape(-1)
            if e.block.stops_simulation and self.stopped_by is None:
                self.stopped_by = e.name
        run.x, run.xd = x, xd

    def _zeno_guard(self, k: int, t: float) -> None:
        last = self.last_time.get(k)
        self.burst[k] = self.burst.get(k, 0) + 1 if last is not None and \
            t - last <= self.zeno_dt else 0
        self.last_time[k] = t
        if self.burst[k] >= self.ZENO_COUNT:
            e = self.run.plan.entries[k]
            raise ZenoError(
                f"block '{e.name}' ({e.kind}) is chattering: {self.ZENO_COUNT} events within "
                f"{self.zeno_dt:.3g} s of each other up to t={t:.9g} s (Zeno behaviour); add "
                f"hysteresis, a minimum dwell time or a terminating condition (e.g. a Stop)",
                block=e.name, time=t)


def locate(fn: Any, a: float, b: float, ga: float, gb: float, tol: float) -> tuple[float, float]:
    """Bracket [a, b] of the sign change of fn, narrowed to width <= tol (Illinois method).

    A function exactly zero at ``b`` (a step that ends on the crossing, e.g. a ramp reaching
    a level at a step boundary) crosses at ``b``: ``(float before b, b)``. (Taking that zero
    for the old side's sign moved the bracket to ``a``: the run then restarted 1e-10 s later,
    ended its next step on the same zero, and crawled.)"""
    if gb == 0.0 and ga != 0.0:
        return float(np.nextafter(b, -math.inf)), b
    side = 0
    while b - a > tol:
        c = b - gb * (b - a) / (gb - ga) if gb != ga else 0.5 * (a + b)
        if not (a < c < b) or (b - a) < 4 * tol:
            c = 0.5 * (a + b)
        gc = fn(c)
        if (gc < 0.0) == (gb < 0.0) and gc != 0.0:
            b, gb = c, gc
            if side == 1:
                ga *= 0.5
            side = 1
        else:
            a, ga = c, gc
            if side == -1:
                gb *= 0.5
            side = -1
        if gc == 0.0:
            return c, float(np.nextafter(c, math.inf))
    return a, b


def first_crossing(run: Run, stepper: Any, crossed: list[int], g_old: list[float],
                   g_new: list[float], restart: Any,
                   t_left: float = math.inf) -> tuple[float, np.ndarray, list[float]]:
    """Locate the earliest of the ``crossed`` zero crossings inside the last step.

    Returns the time just past it (the right end of a bracket narrower than ``event_tol``),
    the state there, and all crossing values at the bracket's left end (before it). The
    blocks see times clamped to ``t_left`` (the segment's left limit, as in its steps)."""
    ev, xd = run.evaluator, run.xd
    tol = run.config.event_tol

    def values(t: float) -> list[float]:
        y = stepper.interpolate(t)
        ev.outputs(min(t, t_left), y, xd)
        run.stats["noutput_evals"] += 1
        return ev.crossings(min(t, t_left), y, xd)

    a0, b0 = stepper.t_old, stepper.t
    best: tuple[float, float] | None = None
    for i in crossed:
        a, b = locate(lambda t, i=i: values(t)[i], a0, b0, g_old[i], g_new[i],
                       tol * max(1.0, abs(b0)))
        if best is None or b < best[1]:
            best = (a, b)
    assert best is not None
    a, b = best
    g_left = values(a) if a < b else g_old
    y_b = restart(a0, stepper.interpolate(a0), b)
    return b, y_b, g_left
