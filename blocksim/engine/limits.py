"""Run budgets: how much work and memory a run will take, estimated before it starts.

A diagram file from a stranger, or a slip of the finger (``record_dt: 1e-9``, ``dt: 1e-12``,
a 1 ns clock, ``T = 1e9``), can ask for a run that would never end or would fill the memory.
:func:`check_limits` estimates, from the plan and the run configuration alone (nothing is
simulated, nothing of the size of the run is allocated):

* solver steps: ``T / dt`` for the fixed-step solvers, at least ``T / max_step`` for the
  adaptive ones, plus one per major time;
* major times: clock hits (``(T - offset) / period + 1`` per clock), source breakpoints
  (counted by asking the blocks, extrapolated past :data:`BREAKPOINT_SAMPLES`), the record grid
  (compiled back-end) and the free-running grid of a plan without states or clocks;
* recorded points: the record grid, else every step and major time;
* recorded memory: points x (time + continuous states + signal values), with the per-value
  cost of the back-end (the interpreted recorder keeps Python floats; a signal that cannot
  change, a ``constant``-rate block's output, is recorded once there), times the members of
  a batch;

and raises :class:`RunLimitError` naming the estimate, the limit and how to raise it
(``max_steps=`` / ``max_memory=`` of ``simulate``, ``--max-steps`` / ``--max-memory`` of
``blocksim run``). Adaptive solvers can still take more steps than estimated; the interpreted
run loop stops at ``max_steps`` steps or when its recording reaches ``max_memory``
(:class:`RunLimitError`, a :class:`~blocksim.engine.errors.SimulationError` that keeps the
partial result).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from blocksim.engine.errors import SimulationError
from blocksim.engine.plan import Plan
from blocksim.engine.schedule import free_run_step

#: breakpoints asked of each time-driven block before extrapolating their rate to T
BREAKPOINT_SAMPLES = 2000
#: bytes per recorded scalar value, per recorded array and per time point in the interpreted
#: recorder (a Python float in a list; a small ndarray; the time and state rows)
INTERPRETED_SCALAR_BYTES = 32
INTERPRETED_ARRAY_BYTES = 112
INTERPRETED_ROW_BYTES = 200


class RunLimitError(SimulationError, ValueError):
    """A run would take, or took, more steps or memory than its limits allow.

    Raised before the run (``result`` None) when the estimate is over a limit, or during an
    interpreted run that reaches one (``result`` holds what was recorded). Attributes
    ``estimate`` (:class:`Estimate` or None) and ``limit`` (the option's name).
    """

    def __init__(
        self, message: str, *, estimate: Estimate | None = None, limit: str = "", **kwargs: Any
    ):
        super().__init__(message, **kwargs)
        self.estimate = estimate
        self.limit = limit


@dataclass(frozen=True)
class Estimate:
    """The estimated size of a run.

    Attributes
    ----------
    steps : float
        Solver steps in all (a lower bound for the adaptive solvers: ``T / max_step``; 0
        for a plan without continuous states).
    majors : float
        Major times: clock hits, breakpoints, grid points, 0 and T.
    clock_hits : float
        Clock hits alone.
    breakpoints : float
        Source breakpoints alone.
    points : float
        Recorded time points (per member).
    point_bytes : float
        Memory of one recorded time point [bytes].
    memory : float
        Memory of the whole recording [bytes] (all members of a batch).
    exact : bool
        Whether ``steps`` is a count (fixed-step solvers), not a lower bound.
    """

    steps: float
    majors: float
    clock_hits: float
    breakpoints: float
    points: float
    point_bytes: float
    memory: float
    exact: bool

    @property
    def work(self) -> float:
        """What ``max_steps`` bounds: the largest of solver steps plus major times (every
        major time starts a step), major times, and recorded points."""
        return max(self.steps + self.majors if self.steps else self.majors, self.points)


def _count_breakpoints(plan: Plan, T: float) -> float:
    """Breakpoints in (0, T]: counted up to :data:`BREAKPOINT_SAMPLES` per block, then
    extrapolated at the rate seen so far."""
    total = 0.0
    for k in plan.breakpoint_entries:
        block = plan.entries[k].block
        t, n = 0.0, 0
        try:
            while n < BREAKPOINT_SAMPLES:
                b = float(block.next_breakpoint(t))
                if not (b <= T and b > t):
                    break
                t, n = b, n + 1
        except Exception:  # a faulty block fails in the run itself, with its name
            continue
        if n == BREAKPOINT_SAMPLES and t < T:
            total += n * T / t
        else:
            total += n
    return total


def _whole(x: float, rounding: Any) -> float:
    """``rounding(x)`` as a float; an overflowing quotient (``T / dt`` for a denormal ``dt``)
    stays ``inf``, which every limit refuses."""
    return float(rounding(x)) if math.isfinite(x) else math.inf


def _signal_sizes(plan: Plan) -> tuple[list[int], list[bool]]:
    constant = set()
    for e in plan.entries:
        if e.rate == "constant":
            constant.update(e.out_slots)
    sizes = [int(np.prod(s)) if s else 1 for s in plan.signal_shapes]
    return sizes, [k in constant for k in range(len(sizes))]


def estimate(plan: Plan, config: Any, members: int = 1) -> Estimate:
    """Estimate the size of a run of ``plan`` with ``config`` (see the module docstring).

    Parameters
    ----------
    plan : Plan
        The compiled diagram.
    config : RunConfig
        The run options (``backend`` "interpreted" or "compiled"; "auto" is costed as
        compiled, the larger recording).
    members : int
        Members of a batch (their recordings add up).
    """
    T = float(config.T)
    compiled = config.backend != "interpreted"
    hits = 0.0
    for c in plan.clocks:
        if c.offset <= T:
            hits += _whole((T - c.offset) / c.period, math.floor) + 1
    bps = _count_breakpoints(plan, T)
    grid = T / config.record_dt + 1 if config.record_dt is not None else 0.0
    free = free_run_step(plan, config)
    free_points = T / free + 1 if free else 0.0
    majors = 2 + hits + bps + free_points + (grid if compiled else 0.0)
    if config.dt is not None:
        solver_steps, exact = _whole(T / config.dt, math.ceil), True
    else:
        solver_steps = T / config.max_step if math.isfinite(config.max_step) else 0.0
        exact = False
    if plan.nx == 0:
        solver_steps = 0.0
    steps = solver_steps + majors
    points = grid + 1 if config.record_dt is not None else steps
    sizes, constant = _signal_sizes(plan)
    if compiled:
        point_bytes = 8.0 * (1 + plan.nx + sum(sizes))
        fixed = 0.0
    else:
        point_bytes = (
            INTERPRETED_ROW_BYTES
            + 8.0 * plan.nx
            + sum(
                INTERPRETED_SCALAR_BYTES if not shape else INTERPRETED_ARRAY_BYTES + 8.0 * n
                for n, c, shape in zip(sizes, constant, plan.signal_shapes)
                if not c
            )
        )
        fixed = sum(8.0 * n for n, c in zip(sizes, constant) if c)
    memory = members * (points * point_bytes + fixed)
    return Estimate(
        float(solver_steps),
        float(majors),
        float(hits),
        float(bps),
        float(points),
        float(point_bytes),
        float(memory),
        exact,
    )


def _amount(n: float) -> str:
    return f"{n:.3g}" if n >= 1e6 else f"{int(n)}"


def _bytes(n: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{int(n)} bytes"


def _duration(seconds: float) -> str:
    for unit, size in (("years", 3.15576e7), ("days", 86400.0), ("h", 3600.0)):
        if seconds >= size:
            return f"{seconds:.3g} s ({seconds / size:.3g} {unit})"
    return f"{seconds:.3g} s"


def check_limits(plan: Plan, config: Any, members: int = 1) -> Estimate:
    """Refuse a run whose estimate (:func:`estimate`) is over ``config.max_steps`` or
    ``config.max_memory``, or a real-time run that would last longer than
    ``config.max_wall`` (``T / realtime`` seconds of wall-clock time); return the estimate
    otherwise.

    Raises
    ------
    RunLimitError
        Naming the estimate (steps, clock hits, breakpoints, recorded points, memory), the
        limit and how to raise it.
    """
    est = estimate(plan, config, members)
    realtime = getattr(config, "realtime", None)
    max_wall = getattr(config, "max_wall", math.inf)
    if realtime is not None and config.T / realtime > max_wall:
        raise RunLimitError(
            f"a real-time run of T = {config.T:g} s of '{plan.name}' at realtime = "
            f"{realtime:g} (simulated seconds per wall-clock second) would last "
            f"{_duration(config.T / realtime)}; the limit is max_wall = "
            f"{_duration(max_wall)}. Raise realtime, shorten T, or raise the limit: "
            f"max_wall= [s] (simulate) or --max-wall SECONDS (blocksim run)",
            estimate=est,
            limit="max_wall",
        )
    if est.work > config.max_steps:
        parts = []
        if est.steps:
            step = (
                f"dt = {config.dt:g} s"
                if config.dt is not None
                else f"max_step = {config.max_step:g} s"
            )
            parts.append(
                f"{'' if est.exact else 'at least '}{_amount(est.steps)} solver steps ({step})"
            )
        if est.clock_hits:
            fastest = min(plan.clocks, key=lambda c: c.period)
            parts.append(
                f"{_amount(est.clock_hits)} clock hits (fastest clock: every {fastest.period:g} s)"
            )
        if est.breakpoints:
            parts.append(f"about {_amount(est.breakpoints)} source breakpoints")
        if est.points:
            grid = f" (record_dt = {config.record_dt:g} s)" if config.record_dt else ""
            parts.append(f"{_amount(est.points)} recorded points{grid}")
        raise RunLimitError(
            f"a run of T = {config.T:g} s of '{plan.name}' would take "
            f"{', '.join(parts)}; the limit is max_steps = {config.max_steps}. Lower T, "
            f"lengthen dt / record_dt / the clock periods, or raise the limit: "
            f"max_steps= (simulate, simulate_batch) or --max-steps (blocksim run)",
            estimate=est,
            limit="max_steps",
        )
    if est.memory > config.max_memory:
        who = f" for {members} members" if members > 1 else ""
        raise RunLimitError(
            f"recording a run of T = {config.T:g} s of '{plan.name}' would take about "
            f"{_bytes(est.memory)}{who} ({_amount(est.points)} points of "
            f"{_bytes(est.point_bytes)}); the limit is max_memory = "
            f"{_bytes(config.max_memory)}. Record less often (record_dt), shorten T, or "
            f"raise the limit: max_memory= [bytes] (simulate, simulate_batch) or --max-memory "
            f"(blocksim run)",
            estimate=est,
            limit="max_memory",
        )
    return est


__all__ = ["Estimate", "RunLimitError", "check_limits", "estimate"]
