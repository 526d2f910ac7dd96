"""The major times of a run, one rule for both back-ends.

A *major time* is an instant where the run loop stops integrating: t = 0, every clock hit,
every source breakpoint (``next_breakpoint``), T, and for the compiled back-end every point
of the recording grid. Clock hits lie on the integer time base (:mod:`blocksim.engine.clock`);
grid points are computed the same way (``k * record_dt`` as the correctly rounded rational, so
a 0.1 s grid and a 0.1 s clock share the float 0.3).

Breakpoints are written by users as floats computed their own way: ``np.arange(N) * 0.1``
gives 0.30000000000000004 where the 0.1 s clock hits 0.3. Left alone, the breakpoint would
become its own major time one ulp after the hit, and a block sampling at the hit would read
the value before it: a whole input sample lost. So a breakpoint within ``SNAP_ULPS`` ulp of a
clock hit, grid point, 0 or T (an *anchor*) is merged into that anchor; breakpoints within
``SNAP_ULPS`` ulp of each other (and of no anchor) are merged into one major time at the
earliest. Each major time is then a *cluster* ``[lo, hi]`` of instants around its nominal time
``t`` (``lo <= t <= hi``, all equal for a plain major time):

* the segment that ends at the major time is integrated up to ``t``, and the blocks see its
  stage times clamped to ``left_times[i] = nextafter(lo, -inf)``: strictly before every
  breakpoint of the cluster (their left limits);
* at the major time the blocks are evaluated, fire their events and update their discrete
  states at ``eval_times[i] = hi``, so every breakpoint of the cluster has taken effect;
* the result is recorded under the nominal ``times[i] = t``;
* the next segment is integrated from ``hi``.

Zero crossings follow the same tolerance: one located (the right end of its bracket) within
``SNAP_ULPS`` ulp before the end of a segment, or at or after ``left_times`` of that end, is not
a major time of its own; the segment runs on to its end and the crossing takes effect there,
before the discrete updates (:func:`snaps_to`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from blocksim.engine.clock import MAX_DENOMINATOR, rational_times
from blocksim.engine.plan import Plan

#: a breakpoint or zero crossing within this many ulp of a major time happens at it
SNAP_ULPS = 16


def snap_tolerance(t: float) -> float:
    """Distance [s] within which a breakpoint or event merges into the major time ``t``:
    ``SNAP_ULPS`` units in the last place of ``t``."""
    return SNAP_ULPS * math.ulp(abs(t))


def snaps_to(t_event: float, t_end: float, left: float | None = None) -> bool:
    """Whether an event located at ``t_event`` (<= ``t_end``) takes effect at the major time
    ``t_end`` that ends its segment: it lies within :func:`snap_tolerance` of ``t_end``, or
    at or after the cluster's first instant ``left`` (``Schedule.left_times`` of that major
    time; then the event is already among the instants merged into it)."""
    if t_event >= t_end - snap_tolerance(t_end):
        return True
    return left is not None and t_event > left


class Grid:
    """The times ``k * step`` (k = 0, 1, ...), each the float nearest to the exact rational
    product, so grids and clocks of equal periods share their floats.

    Parameters
    ----------
    step : float
        Grid spacing [s], > 0; taken as a fraction with a denominator up to 10**9 (1 ns),
        like clock periods, unless that is more than 1e-9 off (then exactly).
    """

    def __init__(self, step: float):
        if not (step > 0 and math.isfinite(step)):
            raise ValueError(f"Grid: step must be a positive finite number of seconds, "
                             f"got {step!r}")
        frac = Fraction(step).limit_denominator(MAX_DENOMINATOR)
        if abs(frac - Fraction(step)) > Fraction(step) * Fraction(1, 10**9):
            frac = Fraction(step)
        self.step = float(step)
        self._num, self._den = frac.numerator, frac.denominator

    def time(self, k: int) -> float:
        """The k-th grid time [s] (correctly rounded: integer / integer division)."""
        return k * self._num / self._den

    def index_after(self, t: float) -> int:
        """The smallest k with ``time(k) > t``."""
        k = max(0, math.floor(t / self.step) + 1)
        while k > 0 and self.time(k - 1) > t:
            k -= 1
        while self.time(k) <= t:
            k += 1
        return k

    def times_upto(self, T: float) -> np.ndarray:
        """Every grid time <= T, shape (n,)."""
        n = self.index_after(T)  # time(n - 1) <= T < time(n)
        return rational_times(0, self._num, n, self._den)


class Schedule(NamedTuple):
    """The major times of a run and what happens at each.

    Attributes
    ----------
    times : (n,) float64
        Nominal major times [s], strictly increasing, ``times[0] = 0``, ``times[-1]`` the
        final time (T, or the clock hit or grid point within ``SNAP_ULPS`` ulp of T: a run
        with ``T = N * 0.1`` ends at the hit 0.3, not one ulp later): where each integration
        segment ends and under which the major time is recorded.
    eval_times : (n,) float64
        The time the blocks see at each major time (outputs, events, discrete updates), and
        where the next segment starts: the latest instant of the cluster, ``>= times``.
    fired : (n, max(1, nclocks)) bool
        Which clocks (``plan.clocks`` order) hit at each major time.
    left_times : (n,) float64
        Inside the segment that ends at ``times[i]`` the blocks see ``min(t, left_times[i])``:
        strictly before the cluster's earliest instant (left limit of its breakpoints).
    record : (n,) bool
        Whether the major time is recorded: all of them without ``record_dt``, else those on
        the grid (``k * record_dt`` on the time base).
    both_sides : (n,) bool
        Whether the left limit is recorded too, at the same time, before the major time's own
        values: at source breakpoints when every step is recorded (no ``record_dt``) and the
        diagram has continuous states, so a Step's edge is drawn as an edge, not a ramp from
        the previous step (as Simulink logs both sides of a discontinuity); a diagram without
        continuous states is sampled, one point per major time. Located zero crossings get
        the same treatment in the run loops.
    """

    times: np.ndarray
    eval_times: np.ndarray
    fired: np.ndarray
    left_times: np.ndarray
    record: np.ndarray
    both_sides: np.ndarray


def free_run_step(plan: Plan, config: Any) -> float | None:
    """Step [s] of a run with neither continuous states nor clocks, whose time advances on
    this grid (``dt``, else a finite ``max_step``, else ``record_dt``, else T / 1000); None
    for other plans."""
    if plan.nx or plan.clocks:
        return None
    max_step = config.max_step
    step = config.dt or (max_step if math.isfinite(max_step) else None) or config.record_dt
    if step is None and config.T > 0:
        step = config.T / 1000.0
    return step or None


def record_grid(plan: Plan, config: Any) -> Grid | None:
    """The grid of recorded times: ``record_dt``; or, for a plan with neither continuous
    states nor clocks, its :func:`free_run_step` (the compiled back-end's major times)."""
    if config.record_dt is not None:
        return Grid(config.record_dt)
    step = free_run_step(plan, config)
    return Grid(step) if step else None


def _breakpoints(plan: Plan, upto: float) -> list[float]:
    """Every breakpoint in (0, upto] of the plan's time-driven blocks."""
    out: list[float] = []
    for k in plan.breakpoint_entries:
        entry = plan.entries[k]
        t = 0.0
        while True:
            b = float(entry.block.next_breakpoint(t))
            if not b <= upto:
                break
            if not b > t:
                raise ValueError(f"block '{entry.name}' ({entry.kind}): next_breakpoint({t!r}) "
                                 f"returned {b!r}, not a time after {t!r}")
            out.append(b)
            t = b
    return out


def schedule(plan: Plan, config: Any, *, grid_major: bool = True) -> Schedule:
    """The major times of a run of ``plan`` (see the module docstring for the rule).

    Parameters
    ----------
    plan : Plan
        The compiled diagram (its clocks, time base and breakpoint blocks).
    config : RunConfig or any object with ``T``, ``dt``, ``record_dt``, ``max_step``
        The run configuration.
    grid_major : bool
        Whether every point of the recording grid is a major time (the compiled back-end
        records only at major times). With False (the interpreted back-end, which records
        the grid from the solver's dense output) grid points still anchor the breakpoints
        near them, and are major times only where such a breakpoint is.

    Returns
    -------
    Schedule
        ``times``, ``eval_times``, ``fired``, ``left_times``, ``record``, ``both_sides``.
    """
    T = float(config.T)
    reach = T + snap_tolerance(T)
    hits = [plan.timebase.hit_times(c, reach) for c in plan.clocks]
    grid = record_grid(plan, config)
    grid_times = grid.times_upto(reach) if grid else np.zeros(0)
    near_T = [float(v[-1]) for v in (*hits, grid_times)
              if v.size and abs(v[-1] - T) <= snap_tolerance(T)]
    if near_T:  # the run ends at the clock hit / grid point T was meant to be
        T = min(near_T, key=lambda v: (abs(v - T), v))
        hits = [h[h <= T] for h in hits]
        grid_times = grid_times[grid_times <= T]
    fixed = [np.array([0.0, T]), *hits]
    anchors = np.unique(np.concatenate([*fixed, grid_times]))
    bps = np.array(sorted(_breakpoints(plan, T + snap_tolerance(T))), dtype=float)
    # the anchor nearest to each breakpoint, and whether it is within the tolerance
    j = np.clip(np.searchsorted(anchors, bps), 1, max(anchors.size - 1, 1))
    below, above = anchors[j - 1], anchors[np.minimum(j, anchors.size - 1)]
    nearest = np.where(np.abs(bps - below) <= np.abs(above - bps), below, above)
    snapped = np.abs(bps - nearest) <= SNAP_ULPS * np.spacing(np.abs(nearest))
    lo: dict[float, float] = {}
    hi: dict[float, float] = {}
    for a, b in zip(nearest[snapped].tolist(), bps[snapped].tolist()):
        lo[a] = min(lo.get(a, a), b)
        hi[a] = max(hi.get(a, a), b)
    start = math.nan
    for b in bps[~snapped].tolist():  # free breakpoints: clusters from their first
        if b - start <= snap_tolerance(start):
            hi[start] = b
        else:
            start = lo[b] = hi[b] = b
    parts = [*fixed, np.array(list(lo), dtype=float)]
    times = np.unique(np.concatenate([*parts, grid_times] if grid_major else parts))
    eval_times, left = times.copy(), times.copy()
    if lo:
        at = np.searchsorted(times, np.array(list(lo), dtype=float))
        eval_times[at] = [hi[a] for a in lo]
        left[at] = list(lo.values())
    left_times = np.nextafter(left, -np.inf)
    fired = np.zeros((times.size, max(1, len(plan.clocks))), dtype=np.bool_)
    for c, h in enumerate(hits):
        fired[np.searchsorted(times, h), c] = True
    both_sides = np.zeros(times.size, dtype=np.bool_)
    if config.record_dt is None:
        record = np.ones(times.size, dtype=np.bool_)
        if lo and plan.nx > 0:  # continuous time between samples: a left limit to see
            both_sides[at] = True
            both_sides[0] = False  # nothing before t = 0
    else:
        record = np.isin(times, grid_times)
    return Schedule(times, eval_times, fired, left_times, record, both_sides)


def major_times(plan: Plan, config: Any) -> tuple[np.ndarray, np.ndarray]:
    """The compiled back-end's major times and fired clocks: ``(times (n,), fired (n,
    max(1, nclocks)) bool)``, as :func:`schedule` with every grid point a major time. The
    evaluation instants and left limits of merged breakpoints are in :func:`schedule`."""
    s = schedule(plan, config)
    return s.times, s.fired


__all__ = ["SNAP_ULPS", "Grid", "Schedule", "free_run_step", "major_times",
           "record_grid", "schedule", "snap_tolerance", "snaps_to"]
