"""Integration segments of the interpreted run: one solver for the whole run, restarted at
each major time, stepping to the next one while recording and watching zero crossings.

Major times, their clusters of merged breakpoints and the recording grid follow
:mod:`blocksim.engine.schedule`: a segment starts at the evaluation instant of a major time,
its blocks see times clamped strictly below the next major time's cluster, and a zero crossing
located within a few ulp before the segment's end takes effect at that end
(:func:`~blocksim.engine.schedule.snaps_to`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from blocksim.engine.crossing import has_crossed
from blocksim.engine.events import Events, first_crossing
from blocksim.engine.limits import RunLimitError
from blocksim.engine.schedule import Grid, free_run_step, snaps_to
from blocksim.engine.solvers import SCIPY_SOLVERS, FixedStepper, NullStepper, ScipyStepper

if TYPE_CHECKING:
    from blocksim.engine.run import Run


class Segments:
    """Integrates the continuous state between major times, with one solver kept for the
    whole run (restarted cheaply at each discontinuity), and records inside segments."""

    def __init__(self, run: Run, events: Events):
        self.run, self.events = run, events
        plan, opts, ev = run.plan, run.config, run.evaluator
        self.solver = opts.solver
        self.record_dt = opts.record_dt
        self.grid = Grid(opts.record_dt) if opts.record_dt is not None else None
        self.grid_k = 0
        self.t1 = self.t_left = 0.0
        self.last: Any = None
        self.nfev = 0
        self.stepper: Any = None
        # explicit Runge-Kutta methods end a step with f(t_new, y_new) on the very array they
        # accept, so the signal store already holds the outputs there; other methods update
        # y in place after their last evaluation, and are re-evaluated before recording.
        # Recognised by identity (``self.last is y``), which fails safe: should scipy copy y,
        # the outputs are re-evaluated (one evaluation more per step; tests/engine/test_hybrid)
        self.fsal = self.solver in ("RK45", "RK23", "DOP853")
        derivatives = ev.derivatives
        outputs = ev.outputs_minor if ev._minor else None
        t1 = t_left = 0.0
        xd = run.xd
        seg = self

        def rhs(t: float, y: np.ndarray) -> Any:
            if t > t_left:
                t = t_left  # sources see the left limit of the breakpoints ending the segment
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
        if plan.nx == 0:  # time advances on the grid of the compiled back-end's major times
            step = free_run_step(plan, opts)
            self.null_grid = Grid(step) if step else None

    def _stepper(self, t0: float, t1: float) -> Any:
        run, opts = self.run, self.run.config
        if self.stepper is not None:
            self.stepper.restart(t0, run.x, t1)
        elif run.plan.nx == 0:
            self.stepper = NullStepper(t0, t1, self.null_grid)
        elif self.solver in SCIPY_SOLVERS:
            self.stepper = ScipyStepper(self.solver, self.rhs, t0, run.x, t1, opts.rtol,
                                        opts.atol, opts.max_step, None)
        else:
            self.stepper = FixedStepper(self.solver, self.rhs, t0, run.x, t1, opts.dt)
        return self.stepper

    def record_major(self, t: float, on_grid: bool | None = None) -> None:
        """Record the major time t: always without ``record_dt``, else when it is a grid
        point (``on_grid``, the schedule's ``record`` flag; None for a time off the schedule,
        an event: then when it equals the next grid time)."""
        run, grid = self.run, self.grid
        if grid is None:
            run.recorder.record(t, run.x, run.evaluator.sig)
            return
        if on_grid is None:
            on_grid = grid.time(self.grid_k) == t
        if on_grid:
            run.recorder.record(t, run.x, run.evaluator.sig)
        self.grid_k = max(self.grid_k, grid.index_after(t))

    def record_left(self, t: float) -> None:
        """Record the left limit at the major time ``t`` (the segment's end state, the blocks
        seeing the segment's left time) when every step is recorded: a breakpoint or an
        event is then recorded on both sides, at the same time."""
        if self.grid is None:
            self._record(t, self.run.x, True)

    def _record(self, t: float, y: np.ndarray, evaluate: bool) -> None:
        """Record (t, y); ``evaluate=False`` when the minor outputs are fresh at (t, y). The
        blocks see t clamped to the segment's left limit, as in its steps."""
        run = self.run
        seen = min(t, self.t_left)
        if evaluate:
            run.evaluator.outputs(seen, y, run.xd)
            run.stats["noutput_evals"] += 1
        else:
            run.evaluator.outputs_rest(seen, y, run.xd)
        run.evaluator.check_finite(t, y)
        run.recorder.record(t, y, run.evaluator.sig)

    def integrate(self, t0: float, t1: float, left: float | None = None) -> None:
        """Integrate over [t0, t1], or up to the first located zero crossing; record inside
        the segment; leave ``run.t``/``run.x`` at the segment's end.

        Parameters
        ----------
        t0, t1 : float
            Segment start (the evaluation instant of the last major time) and end (the
            nominal next major time) [s].
        left : float, optional
            The latest time the blocks see inside the segment (the schedule's
            ``left_times``); default just below ``t1``.
        """
        run, ev, stats, events = self.run, self.run.evaluator, self.run.stats, self.events
        self.t1 = t1
        self.t_left = min(left, math.nextafter(t1, -math.inf)) if left is not None else \
            math.nextafter(t1, -math.inf)
        self.set_segment(t1, self.t_left, run.xd)
        self.nfev = 0
        record_dt = self.record_dt
        stepper = self._stepper(t0, t1)
        stats["nsegments"] += 1
        fsal, watch = self.fsal, events.enabled
        max_steps = run.config.max_steps
        g_old = events.g_prev
        t_end, y_end = t1, None
        try:
            while True:
                stepper.step()
                stats["nsteps"] += 1
                if stats["nsteps"] > max_steps:
                    raise RunLimitError(
                        f"the solver took more than max_steps = {max_steps} steps by "
                        f"t = {stepper.t:.6g} s (raise the limit with max_steps= or "
                        f"--max-steps, or bound the work: max_step, rtol, a stiff solver)",
                        time=float(stepper.t_old), limit="max_steps")
                ts, y = stepper.t, stepper.y
                end = ts >= t1
                fresh = fsal and self.last is y  # signal store already at (ts, y)
                if watch:
                    if not fresh:
                        ev.outputs_minor(min(ts, self.t_left), y, run.xd)
                        stats["noutput_evals"] += 1
                        fresh = True
                    g_new = ev.crossings(min(ts, self.t_left), y, run.xd)
                    crossed = [i for i, (_, _, d) in enumerate(events.owner)
                               if has_crossed(g_old[i], g_new[i], d)]  # type: ignore[index]
                    if crossed:
                        t_c, y_c, g_c = first_crossing(run, stepper, crossed, g_old, g_new,
                                                       self._reintegrate, self.t_left)
                        if snaps_to(t_c, t1, self.t_left):
                            # within a few ulp of the segment's end: takes effect there, so
                            # the values before the crossing are kept for the major time
                            g_new = g_old
                        else:
                            t_end, y_end, g_new = t_c, y_c, g_c
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
        """Record the grid points before ``upto`` inside the last step (dense output), and ts
        if it is a grid point (grid points at major times are recorded by ``record_major``)."""
        grid = self.grid
        assert grid is not None
        tg = grid.time(self.grid_k)
        while tg < upto:
            self._record(tg, stepper.interpolate(tg), True)
            self.grid_k += 1
            tg = grid.time(self.grid_k)
        if not end and tg == ts:
            self._record(ts, y, True)
            self.grid_k += 1

    def _reintegrate(self, ta: float, ya: np.ndarray, tb: float) -> np.ndarray:
        """Integrate afresh from an accepted point to an event time: the dense output of the
        step that straddled the event was built with stages on both sides of it."""
        run, opts = self.run, self.run.config
        if run.plan.nx == 0 or tb <= ta:
            return np.asarray(ya, dtype=float)
        if self.solver in SCIPY_SOLVERS:
            sub: Any = ScipyStepper(self.solver, self.rhs, ta, ya, tb, opts.rtol,
                                    opts.atol, opts.max_step, tb - ta)
        else:
            sub = FixedStepper(self.solver, self.rhs, ta, ya, tb, opts.dt)
        while sub.t < tb:
            sub.step()
        return np.array(sub.y, dtype=float)
