"""The run loop: :func:`simulate` a diagram into a :class:`SimResult`.

The loop, for a plan with continuous states ``x``, discrete states ``xd`` and clocks::

    compile the diagram into a plan (all problems reported at once)
    start() every block                                   # stop() is guaranteed from here on
    t = 0, x = x0, xd = xd0; outputs of every block at t = 0
    loop:                                                 # one pass per *major time* t
        fired = the clocks with a hit at t (integer ticks: 0.1 s and 0.3 s coincide exactly)
        outputs(t, x, xd-)                                # continuous-rate blocks, plus the
                                                          # blocks on fired clocks (in order)
        events: zero crossings whose sign changed since the last step fire on_event:
            continuous resets (x), mode changes (xd of EVENT blocks), Stop; then outputs again
        xd+ = updates of the blocks on fired clocks       # all read the same outputs y[k]
        (outputs after the update: nothing to recompute - discrete outputs are held until
         their next hit, Simulink's semantics, and no other block reads xd)
        check every signal and state is finite; record t; pace to the wall clock (realtime)
        if stopped or t == T: break
        t_next = min(next clock hit, next source breakpoint, T)
        integrate x from t towards t_next with the solver:
            one solver for the whole run, restarted at t (explicit Runge-Kutta: keeps its
            step size, re-evaluates f once; others: rebuilt with the last step as first step);
            right-hand side = outputs of the blocks that feed derivatives or zero crossings,
            then derivatives(t, x, xd), with t held strictly below t_next so sources see the
            left limit of a breakpoint there;
            after each accepted step: zero crossings checked; a sign change is located by
            bracketing on the dense output (to event_tol) and the segment ends just past it,
            re-integrated from the step start; the step (or the record_dt grid points in it)
            is recorded
        t = the segment's end
    finally: build the SimResult from what was recorded; stop() every started block
    on failure: raise SimulationError with the partial SimResult in .result

Recording at an accepted step costs no extra evaluation of the blocks that feed derivatives
when the solver's last right-hand-side call was at that very state (explicit Runge-Kutta).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from blocksim.engine.compile import compile_diagram
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import (
    BlocksimError,
    SimulationError,
    suggest,
)
from blocksim.engine.evaluate import Evaluator
from blocksim.engine.events import Events
from blocksim.engine.plan import Plan
from blocksim.engine.realtime import Pacer
from blocksim.engine.record import Recorder, SimResult
from blocksim.engine.segments import Segments
from blocksim.engine.solvers import FIXED_STEP_SOLVERS, SOLVERS


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
        self.progress: Callable[[float], None] | None = None
        self.status, self.message = "success", ""
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
             record_dt: float | None = None, event_tol: float = 1e-10,
             realtime: float | None = None, backend: str = "interpreted",
             specialize: bool = False,
             progress: Callable[[float], None] | None = None) -> SimResult:
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
    event_tol : float
        Width [s] (relative to max(1, t)) to which zero crossings are located.
    realtime : float, optional
        Pace major steps to the wall clock at this many simulated seconds per second (1.0 =
        real time); ``result.stats["realtime"]`` reports lateness and overruns per clock.
    backend : {"interpreted", "compiled", "auto"}
        ``"interpreted"`` runs any block on scipy's solvers; ``"compiled"`` generates one numba
        function for the diagram and integrates it in numba loops (solvers ``euler``, ``rk4``,
        ``RK45`` = Dormand-Prince 5(4)); it refuses blocks without kernels, naming them;
        ``"auto"`` picks compiled when every block has kernels and the solver is one of those.
    specialize : bool
        Compiled back-end: also compile the integration loop for this diagram, with its
        scalar parameter values written in as constants (Simulink's inlined parameters):
        the fastest runs. Fixed-step runs without zero crossings use a generated loop that
        compiles in a few seconds and is cached on disk per diagram and parameter values;
        other cases specialise the general loop (tens of seconds, per process). Without it
        the loop shared by all diagrams is used (compiled once per installation).
        ``simulate_batch`` keeps parameters tunable (one compile for all members).
    progress : callable, optional
        ``progress(t)`` is called with the simulated time [s] after every major step
        (interpreted back-end) or once at the end (compiled), e.g. to drive a progress bar.

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
    if not (isinstance(event_tol, (int, float)) and event_tol > 0):
        raise ValueError(f"simulate: `event_tol` must be a positive number, got {event_tol!r}")
    if realtime is not None and not (isinstance(realtime, (int, float)) and realtime > 0):
        raise ValueError(f"simulate: `realtime` must be a positive speed factor (1.0 = real "
                         f"time), got {realtime!r}")
    if backend not in ("interpreted", "compiled", "auto"):
        raise ValueError(f"simulate: `backend` must be 'interpreted', 'compiled' or 'auto', got "
                         f"{backend!r}{suggest(str(backend), ['interpreted', 'compiled'])}")
    if realtime is not None and backend == "compiled":
        raise ValueError("simulate: real-time pacing needs the interpreted back-end")
    wall0 = time.perf_counter()
    plan = diagram if isinstance(diagram, Plan) else compile_diagram(diagram)
    compile_time = time.perf_counter() - wall0
    if backend == "auto":
        from blocksim.engine.compiled.backend import METHODS, can_compile

        backend = "compiled" if (solver in METHODS and realtime is None
                                 and can_compile(plan)) else "interpreted"
    options = dict(T=float(T), solver=solver, rtol=rtol, atol=atol, max_step=max_step, dt=dt,
                   record_dt=record_dt, event_tol=float(event_tol), realtime=realtime,
                   specialize=specialize)
    run = Run(plan, options)
    run.progress = progress
    run.stats["backend"] = backend
    compiled_result: SimResult | None = None
    started = []
    error: BaseException | None = None
    status, message = "success", ""
    wall1 = time.perf_counter()
    try:
        for e in plan.entries:
            started.append(e)  # a block whose start() fails still gets stop() to clean up
            e.block.start(run)
        if backend == "compiled":
            from blocksim.engine.compiled.backend import run_compiled

            compiled_result = run_compiled(plan, options, run.stats)
            if progress is not None:
                progress(float(compiled_result.stats.get("t_final", T)))
            status, message = compiled_result.status, compiled_result.message
        else:
            _run_loop(run)
            status, message = run.status, run.message
    except BaseException as exc:
        error = exc
        status, message = "failed", str(exc)
        compiled_result = getattr(exc, "result", None) if backend == "compiled" else None
    finally:
        wall = time.perf_counter() - wall1
        stats = run.stats
        if compiled_result is not None:
            stats.update(solver=solver, rtol=rtol, atol=atol, diagram_compile_time=compile_time)
            compiled_result.stats.update(stats)
            run.result = compiled_result
            run.t = float(compiled_result.stats.get("t_final", 0.0))
            compiled_result.status = status
            compiled_result.message = message
        else:
            stats.update(solver=solver, rtol=rtol, atol=atol, wall_time=wall,
                         compile_time=compile_time, t_final=run.t,
                         realtime_factor=(run.t / wall) if wall > 0 else math.inf,
                         nrecorded=len(run.recorder.t))
            run.result = run.recorder.result(plan.state_names, stats, plan.aliases, status,
                                             message)
        for e in plan.entries:
            run.result.block_paths.setdefault(id(e.block), e.name)
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
    plan, opts, ev, stats = run.plan, run.options, run.evaluator, run.stats
    T = opts["T"]
    tb = plan.timebase
    clocks = plan.clocks
    updates_of = {c: {k for k, e in enumerate(plan.entries)
                      if e.discrete and e.block.clock == e.rate and e.rate == c}
                  for c in clocks}
    hit_ticks = [tb.next_hit(c, 0) for c in clocks]
    hit_times = [tb.to_time(n) for n in hit_ticks]
    bp_blocks = [plan.entries[k].block for k in plan.breakpoint_entries]
    bp_times = [b.next_breakpoint(0.0) for b in bp_blocks]
    events = Events(run)
    pacer = Pacer(run) if opts["realtime"] else None
    segments = Segments(run, events)
    t = 0.0
    ev.outputs_all(t, run.x, run.xd)
    stats["noutput_evals"] += 1
    first = True
    while True:
        fired = tuple(c for c, th in zip(clocks, hit_times) if th <= t) if clocks else ()
        if not first:
            if fired:
                ev.outputs_at_hit(t, run.x, run.xd, fired)
            else:
                ev.outputs(t, run.x, run.xd)
            stats["noutput_evals"] += 1
        first = False
        if events.enabled:
            events.at_major_time(t, fired)
        if fired:
            entries = set().union(*(updates_of[c] for c in fired))
            if entries:
                run.xd = ev.update(t, run.xd, entries)
            for j, c in enumerate(clocks):
                if hit_times[j] <= t:
                    hit_ticks[j] = tb.next_hit(c, hit_ticks[j] + 1)
                    hit_times[j] = tb.to_time(hit_ticks[j])
        ev.check_finite(t, run.x)
        segments.record_major(t)
        if run.progress is not None:
            run.progress(t)
        if pacer is not None:
            pacer.pace(t, fired)
        if events.stopped_by is not None:
            run.status = "stopped"
            run.message = f"stopped by block '{events.stopped_by}' at t={t:.9g} s"
            break
        if t >= T:
            break
        t_next = T
        for th in hit_times:
            if th < t_next:
                t_next = th
        for j, tbp in enumerate(bp_times):
            if tbp <= t:
                bp_times[j] = tbp = bp_blocks[j].next_breakpoint(t)
            if tbp < t_next:
                t_next = tbp
        segments.integrate(t, t_next)
        t = run.t


