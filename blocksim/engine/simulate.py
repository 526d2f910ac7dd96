"""The run loop: :func:`simulate` a diagram into a :class:`SimResult`.

The loop, for a plan with continuous states ``x``, discrete states ``xd`` and clocks::

    compile the diagram into a plan (all problems reported at once)
    start() every block                                   # stop() is guaranteed from here on
    t = 0, x = x0, xd = xd0
    loop:                                                 # one pass per *major time* t
        outputs(t, x, xd)                                 # with the pre-update discrete state
        if clocks fire at t:
            xd = updates of the blocks on those clocks    # all read the same outputs
            outputs(t, x, xd)                             # post-update outputs
        check every signal and state is finite; record t (and publish, for sinks)
        if t == T: break
        t_next = min(next clock hit, next source breakpoint, T)
        integrate x from t to t_next with the solver:
            the solver is (re)started at t with the previous step size as its first step,
            so a sample hit costs one right-hand-side evaluation, not a new step-size search;
            the right-hand side is outputs(t, x, xd) then derivatives(t, x, xd), with t held
            strictly below t_next so sources see the left limit of a discontinuity there;
            every accepted step inside (t, t_next) is recorded (or the record_dt grid
            points inside it, from the solver's dense output)
        t = t_next
    finally: build the SimResult from what was recorded; stop() every started block
    on failure: raise SimulationError with the partial SimResult in .result

Clock hits are scheduled in integer ticks (:mod:`blocksim.engine.clock`), so clocks of 0.1 s
and 0.3 s coincide exactly. Recording at an accepted step costs no extra diagram evaluation when
the solver's last right-hand-side call was at that very state (explicit Runge-Kutta methods).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from blocksim.engine.compile import compile_diagram
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import (
    BlocksimError,
    SimulationError,
    suggest,
)
from blocksim.engine.evaluate import Evaluator
from blocksim.engine.plan import Plan
from blocksim.engine.record import Recorder, SimResult
from blocksim.engine.solvers import (
    FIXED_STEP_SOLVERS,
    SCIPY_SOLVERS,
    SOLVERS,
    FixedStepper,
    NullStepper,
    ScipyStepper,
)


class Run:
    """The values of one run: options, evaluator (signal store), states, recorder, result.

    Blocks see it in ``start(run)`` and ``stop(run)``; ``run.result`` is set before ``stop``.
    """

    def __init__(self, plan: Plan, options: dict[str, Any]):
        self.plan = plan
        self.options = options
        self.evaluator = Evaluator(plan)
        array_slots = [k for k, s in enumerate(plan.signal_shapes) if s != ()]
        self.recorder = Recorder(plan.signal_names, array_slots, plan.nx)
        self.t = 0.0
        self.x = plan.x0.copy()
        self.xd = plan.xd0.copy()
        self.result: SimResult | None = None
        self.stats: dict[str, Any] = {"nfev": 0, "nsteps": 0, "nsegments": 0,
                                      "noutput_evals": 0}


def _check_options(T: float, solver: str, rtol: float, atol: float, max_step: float,
                   dt: float | None, record_dt: float | None) -> None:
    def positive(name: str, v: Any, allow_inf: bool = False) -> None:
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 and (
            allow_inf or math.isfinite(v))
        if not ok:
            raise ValueError(f"simulate: `{name}` must be a positive number, got {v!r}")

    if not (isinstance(T, (int, float)) and not isinstance(T, bool) and math.isfinite(T)
            and T >= 0):
        raise ValueError(f"simulate: `T` (final time, s) must be a finite number >= 0, "
                         f"got {T!r}")
    if solver not in SOLVERS:
        raise ValueError(f"simulate: unknown solver {solver!r}{suggest(str(solver), SOLVERS)}; "
                         f"choose one of {', '.join(SOLVERS)}")
    positive("rtol", rtol)
    positive("atol", atol)
    positive("max_step", max_step, allow_inf=True)
    if solver in FIXED_STEP_SOLVERS:
        if dt is None:
            raise ValueError(f"simulate: solver {solver!r} is fixed-step and needs `dt`, the "
                             f"step size in seconds (e.g. dt=1e-3)")
    elif dt is not None:
        raise ValueError(f"simulate: `dt` is the step of the fixed-step solvers "
                         f"({', '.join(FIXED_STEP_SOLVERS)}); with {solver!r} bound the step "
                         f"with `max_step` instead")
    if dt is not None:
        positive("dt", dt)
    if record_dt is not None:
        positive("record_dt", record_dt)


def simulate(diagram: Diagram | Plan, T: float, solver: str = "RK45", *, rtol: float = 1e-6,
             atol: float = 1e-9, max_step: float = math.inf, dt: float | None = None,
             record_dt: float | None = None) -> SimResult:
    """Simulate ``diagram`` from t = 0 to ``T``.

    Parameters
    ----------
    diagram : Diagram or Plan
        The diagram (compiled here) or an already compiled plan.
    T : float
        Final time [s], >= 0.
    solver : str
        ``"RK45"`` (default), ``"RK23"``, ``"DOP853"``, ``"Radau"``, ``"BDF"``, ``"LSODA"``
        (scipy, adaptive) or ``"euler"``, ``"rk4"`` (fixed step ``dt``).
    rtol, atol : float
        Relative and absolute tolerances of the adaptive solvers (scipy's meaning).
    max_step : float
        Largest step of the adaptive solvers [s].
    dt : float, optional
        Step of the fixed-step solvers [s]; steps lie on the grid ``k * dt``.
    record_dt : float, optional
        Record on the grid ``k * record_dt`` (dense output) instead of at every solver step.

    Returns
    -------
    SimResult
        ``t`` (N,), ``x`` (N, nx), ``result["block.port"]`` (N, *shape), ``stats``.

    Raises
    ------
    DiagramError
        The diagram does not compile (every problem listed).
    SimulationError
        The run failed part-way (NonFiniteError, SolverError, BlockRuntimeError); the partial
        result is in the exception's ``result``.
    """
    _check_options(T, solver, rtol, atol, max_step, dt, record_dt)
    wall0 = time.perf_counter()
    plan = diagram if isinstance(diagram, Plan) else compile_diagram(diagram)
    compile_time = time.perf_counter() - wall0
    options = dict(T=float(T), solver=solver, rtol=rtol, atol=atol, max_step=max_step, dt=dt,
                   record_dt=record_dt)
    run = Run(plan, options)
    started = []
    error: BaseException | None = None
    status, message = "success", ""
    wall1 = time.perf_counter()
    try:
        for e in plan.entries:
            started.append(e)  # a block whose start() fails still gets stop() to clean up
            e.block.start(run)
        _run_loop(run)
    except BaseException as exc:
        error = exc
        status, message = "failed", str(exc)
    finally:
        wall = time.perf_counter() - wall1
        stats = run.stats
        stats.update(solver=solver, rtol=rtol, atol=atol, wall_time=wall,
                     compile_time=compile_time, t_final=run.t,
                     realtime_factor=(run.t / wall) if wall > 0 else math.inf,
                     nrecorded=len(run.recorder.t))
        run.result = run.recorder.result(plan.state_names, stats, plan.aliases, status, message)
        stop_error = None
        for e in reversed(started):
            try:
                e.block.stop(run)
            except Exception as exc:
                stop_error = stop_error or SimulationError(
                    f"block '{e.name}' ({e.kind}): stop() raised {type(exc).__name__}: {exc}",
                    block=e.name, time=run.t)
                stop_error.__cause__ = exc
    if error is not None:
        if stop_error is not None and hasattr(error, "add_note"):
            error.add_note(f"while cleaning up after it: {stop_error}")
        if isinstance(error, SimulationError):
            error.result = run.result
            if error.time is None:
                error.time = run.t
            raise error
        if isinstance(error, BlocksimError | KeyboardInterrupt):
            if isinstance(error, BlocksimError):
                error.result = run.result  # type: ignore[attr-defined]
            raise error
        raise SimulationError(f"simulation of '{plan.name}' failed at t={run.t:.6g} s: "
                              f"{type(error).__name__}: {error}", result=run.result,
                              time=run.t) from error
    if stop_error is not None:
        stop_error.result = run.result
        raise stop_error
    return run.result


def _run_loop(run: Run) -> None:
    """Advance ``run`` from 0 to T (see the module docstring)."""
    plan, opts, ev, rec, stats = run.plan, run.options, run.evaluator, run.recorder, run.stats
    T = opts["T"]
    record_dt = opts["record_dt"]
    tb = plan.timebase
    clock_of = {k: e.block.clock for k, e in enumerate(plan.entries) if e.discrete}
    next_hit = {c: tb.next_hit(c, 0) for c in plan.clocks}
    breakpoints = {k: plan.entries[k].block.next_breakpoint(0.0) for k in plan.breakpoint_entries}
    grid_k = 0
    carry_step: float | None = None
    t = 0.0
    while True:
        x, xd = run.x, run.xd
        ev.outputs(t, x, xd)
        stats["noutput_evals"] += 1
        fired = [c for c, n in next_hit.items() if tb.to_time(n) <= t]
        if fired:
            entries = {k for k, c in clock_of.items() if c in fired}
            run.xd = xd = ev.update(t, xd, entries)
            ev.outputs(t, x, xd)
            stats["noutput_evals"] += 1
            for c in fired:
                next_hit[c] = tb.next_hit(c, next_hit[c] + 1)
        ev.check_finite(t, x)
        if record_dt is None:
            rec.record(t, x, ev.sig)
        elif abs(grid_k * record_dt - t) <= 1e-9 * max(1.0, t):
            rec.record(t, x, ev.sig)
            grid_k += 1
        if t >= T:
            break
        for k, tbp in breakpoints.items():
            if tbp <= t:
                breakpoints[k] = plan.entries[k].block.next_breakpoint(t)
        t_next = min([T] + [tb.to_time(n) for n in next_hit.values()]
                     + list(breakpoints.values()))
        grid_k, carry_step = _integrate(run, t, t_next, grid_k, carry_step)
        t = run.t = t_next


def _integrate(run: Run, t0: float, t1: float, grid_k: int,
               carry_step: float | None) -> tuple[int, float | None]:
    """Integrate the continuous state over the segment [t0, t1]; record inside it."""
    plan, opts, ev, rec, stats = run.plan, run.options, run.evaluator, run.recorder, run.stats
    xd = run.xd
    record_dt = opts["record_dt"]
    outputs, derivatives = ev.outputs, ev.derivatives
    t_left = float(np.nextafter(t1, -math.inf))
    last = [None]
    nfev = 0

    def rhs(t: float, y: np.ndarray) -> list[Any]:
        nonlocal nfev
        if t >= t1:
            t = t_left
        nfev += 1
        outputs(t, y, xd)
        last[0] = y
        return derivatives(t, y, xd)

    solver = opts["solver"]
    if plan.nx == 0:
        h = opts["dt"] or (opts["max_step"] if math.isfinite(opts["max_step"]) else None) \
            or record_dt
        if h is None:
            h = math.inf if plan.clocks else opts["T"] / 1000.0
        stepper: Any = NullStepper(t0, t1, h)
    elif solver in SCIPY_SOLVERS:
        stepper = ScipyStepper(solver, rhs, t0, run.x, t1, opts["rtol"], opts["atol"],
                               opts["max_step"], carry_step)
    else:
        stepper = FixedStepper(solver, rhs, t0, run.x, t1, opts["dt"])
    stats["nsegments"] += 1
    # explicit Runge-Kutta methods end a step with f(t_new, y_new) on the very array they
    # accept, so the signal store already holds the outputs there; other methods update y in
    # place after their last evaluation, and are re-evaluated before recording
    fsal = solver in ("RK45", "RK23", "DOP853")
    try:
        while True:
            stepper.step()
            stats["nsteps"] += 1
            ts, y = stepper.t, stepper.y
            end = ts >= t1
            if record_dt is None:
                if not end:
                    if not (fsal and last[0] is y):
                        outputs(ts, y, xd)
                        stats["noutput_evals"] += 1
                    ev.check_finite(ts, y)
                    rec.record(ts, y, ev.sig)
            else:
                tol = 1e-9 * max(1.0, ts)
                while grid_k * record_dt < min(ts, t1) - tol:
                    tg = grid_k * record_dt
                    yg = stepper.interpolate(tg)
                    outputs(tg, yg, xd)
                    stats["noutput_evals"] += 1
                    ev.check_finite(tg, yg)
                    rec.record(tg, yg, ev.sig)
                    grid_k += 1
                if not end and abs(grid_k * record_dt - ts) <= tol:
                    outputs(ts, y, xd)
                    stats["noutput_evals"] += 1
                    ev.check_finite(ts, y)
                    rec.record(ts, y, ev.sig)
                    grid_k += 1
            if end:
                break
            if y.size and not math.isfinite(float(y.sum())):
                ev.check_finite(ts, y)
    finally:
        stats["nfev"] += nfev
        stats["noutput_evals"] += nfev
        run.t = float(stepper.t_old if stepper.t < t1 else t1)
    run.x = np.array(stepper.y, dtype=float)
    proposed = getattr(getattr(stepper, "solver", None), "h_abs", None)
    return grid_k, proposed if proposed else stepper.step_size
