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
        check every signal and state is finite; record t; account its lateness (realtime:
                                                          # the pass starts once the wall
                                                          # clock reaches t)
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

import dataclasses
import math
import time
import warnings
from collections.abc import Callable
from typing import Any

from blocksim.engine.compile import compile_diagram
from blocksim.engine.compile_notice import watching
from blocksim.engine.config import MAX_MEMORY, MAX_STEPS, MAX_WALL, RunConfig, resolve_config
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import BlocksimError, SimulationError
from blocksim.engine.events import Events
from blocksim.engine.limits import check_limits
from blocksim.engine.plan import Plan
from blocksim.engine.realtime import Pacer, steady_gc
from blocksim.engine.record import SimResult
from blocksim.engine.run import Run
from blocksim.engine.schedule import schedule
from blocksim.engine.segments import Segments


def simulate(diagram: Diagram | Plan, T: float | RunConfig | None = None,
             solver: str = "RK45", *, rtol: float = 1e-6, atol: float = 1e-9,
             max_step: float = math.inf, dt: float | None = None,
             record_dt: float | None = None, event_tol: float = 1e-10,
             realtime: float | None = None, overrun: str = "warn",
             backend: str = "interpreted", fuse: bool | str = "auto",
             max_steps: int = MAX_STEPS,
             max_memory: float = MAX_MEMORY, max_wall: float = MAX_WALL,
             algebraic: str = "error", algebraic_tol: float = 1e-10,
             algebraic_maxiter: int = 50, config: RunConfig | None = None,
             progress: Callable[[float], None] | None = None,
             specialize: bool | None = None, x0: Any = None) -> SimResult:
    """Simulate ``diagram`` from t = 0 to ``T``.

    The options are checked once, as a :class:`~blocksim.engine.config.RunConfig`, before
    anything runs; give them as keywords or as one ``config`` (``simulate(d, config=cfg)`` or
    ``simulate(d, cfg)``), not both.

    Parameters
    ----------
    diagram : Diagram or Plan
        The diagram (compiled here) or an already compiled plan.
    T : float or RunConfig
        Final time [s], >= 0 (or the whole configuration).
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
    overrun : {"warn", "skip", "abort"}
        What a real-time run does when a clock hit is more than a period late: warn once and
        count (default), count silently while the hardware blocks drop their late hits'
        device exchanges, or stop with :class:`~blocksim.engine.realtime.OverrunError`
        naming the clock (:mod:`blocksim.engine.realtime`); a hardware block's own
        ``overrun`` parameter overrides it for that block.
    backend : {"interpreted", "compiled", "auto"}
        ``"interpreted"`` runs any block on scipy's solvers; ``"compiled"`` generates numba
        code for the diagram and integrates it in a numba loop (solvers ``euler``, ``rk4``,
        ``RK45`` = Dormand-Prince 5(4)); it refuses blocks without kernels, naming them;
        ``"auto"`` picks compiled when every block has kernels and the solver is one of those.
    fuse : {"auto", True, False}
        The compiled back-end's tier: ``False`` data-wired (compiles nothing for a new
        diagram of known block forms), ``True`` fused (one numba module per diagram
        structure: the fastest run, seconds of compile once), ``"auto"`` fused when the
        diagram's fused module is already compiled, else data-wired. ``stats["tier"]`` says
        which ran and ``stats["compiled"]`` what compiled.
    max_steps : int
        Most solver steps, major times (clock hits, breakpoints) or recorded points (default
        10**7): a run estimated to need more is refused before it starts, naming the
        estimate (:mod:`blocksim.engine.limits`); an interpreted run that gets there stops.
    max_memory : float
        Most memory [bytes] of the recorded result (default 2e9), checked the same way.
    max_wall : float
        Most wall-clock time [s] a real-time run may last, ``T / realtime`` (default 86400,
        a day): a longer one is refused before it starts.
    algebraic : {"error", "solve"}
        An algebraic loop (a cycle of direct feedthrough) is a DiagramError naming it port by
        port (``"error"``, default), or is solved at each evaluation by Newton's method
        (``"solve"``; both back-ends, the compiled one on its fused tier): see
        :mod:`blocksim.engine.loops`.
    algebraic_tol, algebraic_maxiter : float, int
        The Newton iteration's tolerance (relative and absolute, default 1e-10) and most
        iterations (default 50); a loop that does not converge stops the run with
        :class:`~blocksim.engine.errors.AlgebraicLoopError` naming it and the time.
    config : RunConfig, optional
        All of the above in one validated object, instead of the keywords.
    progress : callable, optional
        ``progress(t)`` is called with the simulated time [s] after every major step
        (interpreted back-end) or once at the end (compiled), e.g. to drive a progress bar.
    specialize : bool, optional
        Deprecated and ignored (a :class:`DeprecationWarning`): the compiled back-end always
        specialises now.
    x0 : object, optional
        Where to start instead of the blocks' initial states: any object with a method
        ``as_initial_state(plan) -> Plan`` (duck typed: the engine does not import its
        class), e.g. a :class:`blocksim.analysis.OperatingPoint`, which sets the states and
        the root inputs' (Constant) values.

    Returns
    -------
    SimResult
        ``t`` (N,), ``x`` (N, nx), ``result["block.port"]`` (N, *shape), ``stats``.

    Raises
    ------
    ValueError
        An option is invalid (see :class:`~blocksim.engine.config.RunConfig`).
    DiagramError
        The diagram does not compile (every problem listed).
    RunLimitError
        The run would take more than ``max_steps`` or ``max_memory`` (``result`` None), or
        an interpreted run reached one (``result``: what was recorded).
    SimulationError
        The run failed part-way (NonFiniteError, SolverError, BlockRuntimeError); the partial
        result is in the exception's ``result``.
    KeyboardInterrupt
        Ctrl-C: re-raised with the partial result (``status == "interrupted"``) in its
        ``result`` attribute.
    """
    warn_specialize(specialize)
    config = resolve_config(T, config, dict(
        solver=solver, rtol=rtol, atol=atol, max_step=max_step, dt=dt, record_dt=record_dt,
        event_tol=event_tol, realtime=realtime, overrun=overrun, backend=backend, fuse=fuse,
        max_steps=max_steps, max_memory=max_memory, max_wall=max_wall, algebraic=algebraic,
        algebraic_tol=algebraic_tol, algebraic_maxiter=algebraic_maxiter))
    if x0 is not None:
        diagram = initial_state(diagram, x0, config)
    return run_config(diagram, config, progress)


def initial_state(diagram: Diagram | Plan, x0: Any, config: RunConfig | None = None) -> Plan:
    """The plan of ``diagram`` (compiled as ``config`` says) started at ``x0``:
    ``x0.as_initial_state(plan)``."""
    start = getattr(x0, "as_initial_state", None)
    if not callable(start):
        raise TypeError(f"x0 must have an as_initial_state(plan) method (e.g. a "
                        f"blocksim.analysis.OperatingPoint), got {type(x0).__name__}")
    if isinstance(diagram, Plan):
        return start(diagram)
    return start(compile_diagram(diagram, config.algebraic if config else "error"))


def warn_specialize(specialize: bool | None, stacklevel: int = 3) -> None:
    """Warn that ``specialize`` (given, i.e. not None) is deprecated and has no effect."""
    if specialize is not None:
        warnings.warn("`specialize` is deprecated and has no effect: the compiled back-end "
                      "always specialises now", DeprecationWarning, stacklevel=stacklevel)


def run_config(diagram: Diagram | Plan, config: RunConfig,
               progress: Callable[[float], None] | None = None) -> SimResult:
    """Simulate ``diagram`` with the validated ``config``; see :func:`simulate`."""
    with watching(f"diagram '{getattr(diagram, 'name', '')}'"):  # announces numba compiles
        return _run_config(diagram, config, progress)


def _run_config(diagram: Diagram | Plan, config: RunConfig,
                progress: Callable[[float], None] | None) -> SimResult:
    wall0 = time.perf_counter()
    plan = diagram if isinstance(diagram, Plan) else compile_diagram(diagram,
                                                                      config.algebraic)
    compile_time = time.perf_counter() - wall0
    if config.backend == "auto":
        # imported here so that importing blocksim does not load numba (not a cycle)
        from blocksim.engine.compiled.backend import METHODS, can_compile

        chosen = "compiled" if (config.solver in METHODS and config.realtime is None
                                and can_compile(plan)) else "interpreted"
        config = dataclasses.replace(config, backend=chosen)
    backend = config.backend
    est = check_limits(plan, config)
    run = Run(plan, config)
    if backend == "interpreted":
        run.recorder.max_points = max(2, int((config.max_memory - est.memory) /
                                             est.point_bytes + est.points))
        run.recorder.limit_message = (f"max_memory = {config.max_memory:.3g} bytes allows "
                                      f"(raise it with max_memory= or --max-memory)")
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
            # imported here so that interpreted runs never load numba (not a cycle)
            from blocksim.engine.compiled.backend import run_compiled

            compiled_result = run_compiled(plan, config, run.stats)
            if progress is not None:
                progress(float(compiled_result.stats.get("t_final", config.T)))
            status, message = compiled_result.status, compiled_result.message
        else:
            with steady_gc(bool(config.realtime)):
                _run_loop(run)
            status, message = run.status, run.message
    except BaseException as exc:
        error = exc
        if isinstance(exc, KeyboardInterrupt):
            status, message = "interrupted", "interrupted (Ctrl-C)"
        else:
            status, message = "failed", str(exc)
        compiled_result = getattr(exc, "result", None) if backend == "compiled" else None
    finally:
        wall = time.perf_counter() - wall1
        stats = run.stats
        # without continuous states no solver runs: say so (Simulink's "discrete" solver)
        common = dict(solver=config.solver if plan.nx > 0 else "discrete", rtol=config.rtol,
                      atol=config.atol)
        if compiled_result is not None:
            stats.update(common, diagram_compile_time=compile_time)
            compiled_result.stats.update(stats)
            run.result = compiled_result
            run.t = float(compiled_result.stats.get("t_final", 0.0))
            compiled_result.status = status
            compiled_result.message = message
        else:
            stats.update(common, wall_time=wall, compile_time=compile_time, t_final=run.t,
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
        if isinstance(error, KeyboardInterrupt):
            t_last = float(run.result.t[-1]) if len(run.result.t) else 0.0
            run.result.message = f"interrupted (Ctrl-C) at t = {t_last:.6g} s"
            error.result = run.result  # type: ignore[attr-defined]
            raise error
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
    plan, config, ev, stats = run.plan, run.config, run.evaluator, run.stats
    clocks = plan.clocks
    updates_of = {c: {k for k, e in enumerate(plan.entries)
                      if e.discrete and e.block.clock == e.rate and e.rate == c}
                  for c in clocks}
    # the major times of both back-ends (engine/schedule.py): clock hits, breakpoints merged
    # into a hit within a few ulp, evaluated at their cluster's latest instant (te)
    sched = schedule(plan, config, grid_major=False)
    times, eval_times = sched.times.tolist(), sched.eval_times.tolist()
    fired_at = [tuple(c for c, f in zip(clocks, row) if f) for row in sched.fired.tolist()]
    events = Events(run)
    pacer = Pacer(run) if config.realtime else None
    segments = Segments(run, events)
    t, te = times[0], eval_times[0]
    ev.outputs_all(te, run.x, run.xd)
    stats["noutput_evals"] += 1
    first = True
    i = 0
    while True:
        on_schedule = i < len(times) and t == times[i]  # else a located zero crossing
        fired = fired_at[i] if on_schedule else ()
        te = eval_times[i] if on_schedule else t
        if pacer is not None:  # real time: the work of time t starts when the wall clock is at t
            pacer.wait(t)
        if not first and (not on_schedule or sched.both_sides[i]):
            segments.record_left(t)  # a breakpoint's or event's left limit, then its values
        if not first:
            if fired:
                ev.outputs_at_hit(te, run.x, run.xd, fired)
            else:
                ev.outputs(te, run.x, run.xd)
            stats["noutput_evals"] += 1
        first = False
        if events.enabled:
            events.at_major_time(te, fired)
        if fired:
            entries = set().union(*(updates_of[c] for c in fired))
            if entries:
                run.xd = ev.update(te, run.xd, entries)
        ev.check_finite(te, run.x)
        segments.record_major(t, bool(sched.record[i]) if on_schedule else None)
        i += on_schedule
        if run.progress is not None:
            run.progress(t)
        if pacer is not None:
            pacer.pace(t, fired)
        if events.stopped_by is not None:
            run.status = "stopped"
            run.message = f"stopped by block '{events.stopped_by}' at t={t:.9g} s"
            break
        if i == len(times):  # T, or the clock hit within a few ulp of it (schedule.py)
            break
        segments.integrate(te, times[i], float(sched.left_times[i]))
        t = run.t




__all__ = ["Run", "run_config", "simulate"]
