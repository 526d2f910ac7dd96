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
from typing import Any

import numpy as np

from blocksim.engine.compile import compile_diagram
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import (
    BlockRuntimeError,
    BlocksimError,
    SimulationError,
    ZenoError,
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
             specialize: bool = False) -> SimResult:
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
        Compiled back-end: also compile the integration loop for this diagram (its functions
        called directly and inlined): the fastest runs, for a first compile of tens of seconds
        (cached on disk). Without it the loop shared by all diagrams is used (compiled once).

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


def _crossed(g_old: float, g_new: float, direction: int) -> bool:
    """Whether g crossed zero in ``direction`` (+1 rising, -1 falling, 0 either) between two
    evaluations; leaving zero counts (a state reset onto g = 0, then moving away)."""
    if g_old <= 0.0 <= g_new and g_old != g_new:
        return direction >= 0
    if g_old >= 0.0 >= g_new and g_old != g_new:
        return direction <= 0
    return False


class _Events:
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
        T = run.options["T"]
        self.zeno_dt = 100.0 * run.options["event_tol"] * max(1.0, T)
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
                    if _crossed(self.g_prev[i], g_now[i], d)]
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
    events = _Events(run)
    pacer = _Pacer(run) if opts["realtime"] else None
    segments = _Segments(run, events)
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


def _locate(fn: Any, a: float, b: float, ga: float, gb: float, tol: float) -> tuple[float, float]:
    """Bracket [a, b] of the sign change of fn, narrowed to width <= tol (Illinois method)."""
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


class _Segments:
    """Integrates the continuous state between major times, with one solver kept for the
    whole run (restarted cheaply at each discontinuity), and records inside segments."""

    def __init__(self, run: Run, events: _Events):
        self.run, self.events = run, events
        plan, opts, ev = run.plan, run.options, run.evaluator
        self.solver = opts["solver"]
        self.record_dt = opts["record_dt"]
        self.grid_k = 0
        self.t1 = self.t_left = 0.0
        self.last: Any = None
        self.nfev = 0
        self.stepper: Any = None
        # explicit Runge-Kutta methods end a step with f(t_new, y_new) on the very array they
        # accept, so the signal store already holds the outputs there; other methods update
        # y in place after their last evaluation, and are re-evaluated before recording
        self.fsal = self.solver in ("RK45", "RK23", "DOP853")
        derivatives = ev.derivatives
        outputs = ev.outputs_minor if ev._minor else None
        t1 = t_left = 0.0
        xd = run.xd
        seg = self

        def rhs(t: float, y: np.ndarray) -> Any:
            if t >= t1:
                t = t_left  # sources see the left limit of a breakpoint ending the segment
            seg.nfev += 1
            if outputs is not None:
                outputs(t, y, xd)
            seg.last = y
            return derivatives(t, y, xd)

        def set_segment(end: float, left: float, discrete_state: np.ndarray) -> None:
            nonlocal t1, t_left, xd
            t1, t_left, xd = end, left, discrete_state

        self.rhs = rhs
        self.set_segment = set_segment
        if plan.nx == 0:
            h = opts["dt"] or (opts["max_step"] if math.isfinite(opts["max_step"]) else None) \
                or self.record_dt
            if h is None:
                h = math.inf if plan.clocks else opts["T"] / 1000.0
            self.null_h = h

    def _stepper(self, t0: float, t1: float) -> Any:
        run, opts = self.run, self.run.options
        if self.stepper is not None:
            self.stepper.restart(t0, run.x, t1)
        elif run.plan.nx == 0:
            self.stepper = NullStepper(t0, t1, self.null_h)
        elif self.solver in SCIPY_SOLVERS:
            self.stepper = ScipyStepper(self.solver, self.rhs, t0, run.x, t1, opts["rtol"],
                                        opts["atol"], opts["max_step"], None)
        else:
            self.stepper = FixedStepper(self.solver, self.rhs, t0, run.x, t1, opts["dt"])
        return self.stepper

    def record_major(self, t: float) -> None:
        """Record the major time t (on the grid only, when recording on a grid)."""
        run = self.run
        if self.record_dt is None:
            run.recorder.record(t, run.x, run.evaluator.sig)
        elif abs(self.grid_k * self.record_dt - t) <= 1e-9 * max(1.0, t):
            run.recorder.record(t, run.x, run.evaluator.sig)
            self.grid_k += 1

    def _record(self, t: float, y: np.ndarray, evaluate: bool) -> None:
        """Record (t, y); ``evaluate=False`` when the minor outputs are fresh at (t, y)."""
        run = self.run
        if evaluate:
            run.evaluator.outputs(t, y, run.xd)
            run.stats["noutput_evals"] += 1
        else:
            run.evaluator.outputs_rest(t, y, run.xd)
        run.evaluator.check_finite(t, y)
        run.recorder.record(t, y, run.evaluator.sig)

    def integrate(self, t0: float, t1: float) -> None:
        """Integrate over [t0, t1], or up to the first located zero crossing; record inside
        the segment; leave ``run.t``/``run.x`` at the segment's end."""
        run, ev, stats, events = self.run, self.run.evaluator, self.run.stats, self.events
        self.t1, self.t_left = t1, math.nextafter(t1, -math.inf)
        self.set_segment(t1, self.t_left, run.xd)
        self.nfev = 0
        record_dt = self.record_dt
        stepper = self._stepper(t0, t1)
        stats["nsegments"] += 1
        fsal, watch = self.fsal, events.enabled
        g_old = events.g_prev
        t_end, y_end = t1, None
        try:
            while True:
                stepper.step()
                stats["nsteps"] += 1
                ts, y = stepper.t, stepper.y
                end = ts >= t1
                fresh = fsal and self.last is y  # signal store already at (ts, y)
                if watch:
                    if not fresh:
                        ev.outputs_minor(self.t_left if end else ts, y, run.xd)
                        stats["noutput_evals"] += 1
                        fresh = True
                    g_new = ev.crossings(ts, y, run.xd)
                    crossed = [i for i, (_, _, d) in enumerate(events.owner)
                               if _crossed(g_old[i], g_new[i], d)]  # type: ignore[index]
                    if crossed:
                        t_end, y_end, g_new = _first_crossing(run, stepper, crossed, g_old,
                                                              g_new, self._reintegrate)
                        end, ts, y, fresh = True, t_end, y_end, False
                    g_old = g_new
                if record_dt is None:
                    if not end and t1 - ts > 1e-12 * max(1.0, t1):  # not a sliver before t1
                        self._record(ts, y, not fresh)
                else:
                    self._record_grid(stepper, ts, y, min(ts, t_end), end, fresh)
                if end:
                    break
                if y.size and not math.isfinite(float(y.sum())):
                    ev.check_finite(ts, y)
        finally:
            stats["nfev"] += self.nfev
            stats["noutput_evals"] += self.nfev
            run.t = float(stepper.t_old if stepper.t < t_end else t_end)
        events.g_prev = g_old if watch else None
        run.x = stepper.y if y_end is None else y_end  # fresh arrays, never written in place

    def _record_grid(self, stepper: Any, ts: float, y: np.ndarray, upto: float, end: bool,
                     fresh: bool) -> None:
        """Record the grid points inside the last step (dense output), and ts if on grid."""
        record_dt = self.record_dt
        tol = 1e-9 * max(1.0, ts)
        while self.grid_k * record_dt < upto - tol:
            tg = self.grid_k * record_dt
            self._record(tg, stepper.interpolate(tg), True)
            self.grid_k += 1
        if not end and abs(self.grid_k * record_dt - ts) <= tol:
            self._record(ts, y, True)
            self.grid_k += 1

    def _reintegrate(self, ta: float, ya: np.ndarray, tb: float) -> np.ndarray:
        """Integrate afresh from an accepted point to an event time: the dense output of the
        step that straddled the event was built with stages on both sides of it."""
        run, opts = self.run, self.run.options
        if run.plan.nx == 0 or tb <= ta:
            return np.asarray(ya, dtype=float)
        if self.solver in SCIPY_SOLVERS:
            sub: Any = ScipyStepper(self.solver, self.rhs, ta, ya, tb, opts["rtol"],
                                    opts["atol"], opts["max_step"], tb - ta)
        else:
            sub = FixedStepper(self.solver, self.rhs, ta, ya, tb, opts["dt"])
        while sub.t < tb:
            sub.step()
        return np.array(sub.y, dtype=float)


def _first_crossing(run: Run, stepper: Any, crossed: list[int], g_old: list[float],
                    g_new: list[float], restart: Any) -> tuple[float, np.ndarray, list[float]]:
    """Locate the earliest of the ``crossed`` zero crossings inside the last step.

    Returns the time just past it (the right end of a bracket narrower than ``event_tol``),
    the state there, and all crossing values at the bracket's left end (before it)."""
    ev, xd = run.evaluator, run.xd
    tol = run.options["event_tol"]

    def values(t: float) -> list[float]:
        y = stepper.interpolate(t)
        ev.outputs(t, y, xd)
        run.stats["noutput_evals"] += 1
        return ev.crossings(t, y, xd)

    a0, b0 = stepper.t_old, stepper.t
    best: tuple[float, float] | None = None
    for i in crossed:
        a, b = _locate(lambda t, i=i: values(t)[i], a0, b0, g_old[i], g_new[i],
                       tol * max(1.0, abs(b0)))
        if best is None or b < best[1]:
            best = (a, b)
    assert best is not None
    a, b = best
    g_left = values(a) if a < b else g_old
    y_b = restart(a0, stepper.interpolate(a0), b)
    return b, y_b, g_left


class _Pacer:
    """Real-time pacing: wait until wall time reaches t / realtime at every major time; count
    lateness and overruns per clock."""

    def __init__(self, run: Run):
        self.run = run
        self.rate = float(run.options["realtime"])
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
