# generated from loop_template.py by `python -m blocksim.engine.compiled.wiring`: the data-wired loop of one method; do not edit
# ruff: noqa
from blocksim.engine.compiled.wired import crossings, evaluate, fire, rhs, rhs_record, update
METHOD = 1  # RK4
# source blocksim.engine.compiled.entry: 87a6373a1070f879
# source blocksim.engine.compiled.loop: 486457252af80390
# source blocksim.engine.compiled.loop_template: abe75adfafa0130a
# source blocksim.engine.compiled.steps: 87f2841c800ce723
# source blocksim.engine.compiled.wired: 6e4e4f2cad823258
# source blocksim.engine.crossing: 0b00aa083160be17
# source blocksim.engine.schedule: f8842f65d51df2c7

import numpy as np
from numba import njit

from blocksim.engine.compiled.loop import (
    Mode,
    Status,
    any_crossed,
    append_row,
    copy_into,
    crossed,
    finite,
    store_member,
    write_row,
)
from blocksim.engine.compiled.steps import (
    A21,
    A31,
    A32,
    A41,
    A42,
    A43,
    A51,
    A52,
    A53,
    A54,
    A61,
    A62,
    A63,
    A64,
    A65,
    B1,
    B3,
    B4,
    B5,
    B6,
    C2,
    C3,
    C4,
    C5,
    E1,
    E3,
    E4,
    E5,
    E6,
    E7,
    Method,
    next_grid_index,
    next_grid_time,
    rms,
)
from blocksim.engine.schedule import SNAP_ULPS

_EULER = int(Method.EULER)
_RK4 = int(Method.RK4)
_DOPRI = int(Method.DOPRI)
_DONE = int(Status.DONE)
_NONFINITE = int(Status.NONFINITE)
_STEP_TOO_SMALL = int(Status.STEP_TOO_SMALL)
_STOPPED = int(Status.STOPPED)
_ZENO = int(Status.ZENO)
_INTERRUPTED = int(Status.INTERRUPTED)
_FULL = int(Status.FULL)
_LIMIT = int(Status.LIMIT)
#: ``evaluate``'s modes (:class:`~blocksim.engine.compiled.loop.Mode`) as numpy integers,
#: which numba types as int64 where a literal ``1`` would be typed ``Literal[int](1)`` and
#: compile ``evaluate`` a second time (with every kernel linked and optimised once more)
_RECORD = np.int64(Mode.RECORD)
_HIT = np.int64(Mode.HIT)
_INIT = np.int64(Mode.INIT)


@njit(cache=True, inline="always")
def outputs(t, x, xd, pv, pi, sig, nf):
    """Every continuous-rate signal at ``(t, x)``, stored in ``sig`` (to record a row, or for
    the zero crossings)."""
    evaluate(t, x, xd, pv, pi, sig, _RECORD, nf)


@njit(cache=True, inline="always")
def euler_step(t, x, f0, hh, ynew):
    """One explicit Euler step of size ``hh`` from ``(t, x)`` with ``f0 = f(t, x)``."""
    for j in range(x.size):
        ynew[j] = x[j] + hh * f0[j]


@njit(cache=True, inline="always")
def rk4_step(t, x, f0, hh, t_left, xd, pv, pi, sig, k2, k3, k4, y, ynew):
    """One classical RK4 step of size ``hh`` from ``(t, x)`` with ``f0 = f(t, x)`` into
    ``ynew`` (3 rhs evaluations; stage times ``min(t, t_left)``)."""
    n = x.size
    h2 = 0.5 * hh
    th = min(t + h2, t_left)
    for j in range(n):
        y[j] = x[j] + h2 * f0[j]
    rhs(th, y, xd, pv, pi, sig, k2)
    for j in range(n):
        y[j] = x[j] + h2 * k2[j]
    rhs(th, y, xd, pv, pi, sig, k3)
    for j in range(n):
        y[j] = x[j] + hh * k3[j]
    rhs(min(t + hh, t_left), y, xd, pv, pi, sig, k4)
    h6 = hh / 6.0
    for j in range(n):
        ynew[j] = x[j] + h6 * (f0[j] + 2.0 * (k2[j] + k3[j]) + k4[j])


@njit(cache=True, inline="always")
def dopri_step(t, x, f0, hh, t_left, xd, pv, pi, sig, k2, k3, k4, k5, k6, k7, y, err, scale,
               ynew, rtol, atol):
    """One Dormand-Prince 5(4) step (scipy's RK45) of size ``hh`` from ``(t, x)`` with ``f0 =
    f(t, x)`` into ``ynew``; ``k7`` ends as f at the new point (first same as last). Returns
    scipy's error norm (< 1 accepts); 6 rhs evaluations."""
    n = x.size
    for j in range(n):
        y[j] = x[j] + hh * (A21 * f0[j])
    rhs(min(t + C2 * hh, t_left), y, xd, pv, pi, sig, k2)
    for j in range(n):
        y[j] = x[j] + hh * (A31 * f0[j] + A32 * k2[j])
    rhs(min(t + C3 * hh, t_left), y, xd, pv, pi, sig, k3)
    for j in range(n):
        y[j] = x[j] + hh * (A41 * f0[j] + A42 * k2[j] + A43 * k3[j])
    rhs(min(t + C4 * hh, t_left), y, xd, pv, pi, sig, k4)
    for j in range(n):
        y[j] = x[j] + hh * (A51 * f0[j] + A52 * k2[j] + A53 * k3[j] + A54 * k4[j])
    rhs(min(t + C5 * hh, t_left), y, xd, pv, pi, sig, k5)
    for j in range(n):
        y[j] = x[j] + hh * (A61 * f0[j] + A62 * k2[j] + A63 * k3[j] + A64 * k4[j]
                            + A65 * k5[j])
    rhs(min(t + hh, t_left), y, xd, pv, pi, sig, k6)
    for j in range(n):
        ynew[j] = x[j] + hh * (B1 * f0[j] + B3 * k3[j] + B4 * k4[j] + B5 * k5[j] + B6 * k6[j])
    rhs(min(t + hh, t_left), ynew, xd, pv, pi, sig, k7)
    for j in range(n):
        err[j] = hh * (E1 * f0[j] + E3 * k3[j] + E4 * k4[j] + E5 * k5[j] + E6 * k6[j]
                       + E7 * k7[j])
        scale[j] = atol + max(abs(x[j]), abs(ynew[j])) * rtol
    return rms(err, scale)


@njit(cache=True, inline="always")
def step(t, x, f0, hh, t_left, xd, pv, pi, sig, k2, k3, k4, k5, k6, k7, y, err, scale, ynew,
         rtol, atol):
    """One step of the module's method ``METHOD`` (:func:`euler_step`, :func:`rk4_step` or
    :func:`dopri_step`): returns ``(error norm, rhs evaluations)``, the norm 0.0 for the
    fixed-step methods."""
    if METHOD == _EULER:
        euler_step(t, x, f0, hh, ynew)
        return 0.0, 0
    if METHOD == _RK4:
        rk4_step(t, x, f0, hh, t_left, xd, pv, pi, sig, k2, k3, k4, y, ynew)
        return 0.0, 3
    return dopri_step(t, x, f0, hh, t_left, xd, pv, pi, sig, k2, k3, k4, k5, k6, k7, y, err,
                      scale, ynew, rtol, atol), 6


@njit(cache=True, inline="always")
def initial_step(t, x, f, t_end, t_left, xd, pv, pi, sig, f1, ytmp, err, scale, rtol, atol):
    """scipy's ``select_initial_step`` for an order-4 error estimate: the first step size of
    the adaptive method (one rhs evaluation, into the work array ``f1``)."""
    n = x.size
    for j in range(n):
        scale[j] = atol + abs(x[j]) * rtol
    d0 = rms(x, scale)
    d1 = rms(f, scale)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
    h0 = min(h0, t_end - t)
    for j in range(n):
        ytmp[j] = x[j] + h0 * f[j]
    rhs(min(t + h0, t_left), ytmp, xd, pv, pi, sig, f1)
    for j in range(n):
        err[j] = f1[j] - f[j]
    d2 = rms(err, scale) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** 0.2
    return min(100 * h0, h1)


@njit(cache=True, inline="always")
def locate(t, x, f, hh, t_end, t_left, xd, pv, pi, sig, k2, k3, k4, k5, k6, k7, y, err,
           scale, ynew, ytry, g_prev, g_now, opts):
    """A crossing happened in the step of length ``hh`` from ``(t, x)``: bisect the step
    length to ``event_tol`` (re-stepping from ``t``), then redo the step up to the crossing
    into ``ynew`` — or, when the crossing lies within a few ulp of the major time ``t_end``
    that ends the step (:func:`blocksim.engine.schedule.snaps_to`), the whole step, leaving
    the crossing to that major time. Returns ``(step length, crossing inside, rhs
    evaluations)``; ``g_prev`` ends as the crossing values just before the crossing."""
    nf = opts.none_fired
    nfev = 0
    a, b = 0.0, hh
    tol = opts.event_tol * max(1.0, abs(t + hh))
    while True:
        last = b - a <= tol
        c = a if last else 0.5 * (a + b)
        if last and a == 0.0:
            break
        _, ne = step(t, x, f, c, t_left, xd, pv, pi, sig, k2, k3, k4, k5, k6, k7, y, err,
                     scale, ytry, opts.rtol, opts.atol)
        nfev += ne
        outputs(min(t + c, t_left), ytry, xd, pv, pi, sig, nf)
        crossings(t + c, ytry, xd, pv, pi, sig, g_now)
        if last:
            copy_into(g_prev, g_now)
            break
        if any_crossed(g_prev, g_now, opts.directions):
            b = c
        else:
            a = c
    t_snap = t_end - SNAP_ULPS * (np.nextafter(t_end, np.inf) - t_end)
    inside = not (t + hh >= t_end and (t + b >= t_snap or t + b > t_left))
    length = b if inside else hh
    _, ne = step(t, x, f, length, t_left, xd, pv, pi, sig, k2, k3, k4, k5, k6, k7, y, err,
                 scale, ynew, opts.rtol, opts.atol)
    return length, inside, nfev + ne


@njit(cache=True, inline="always")
def major(t, mode, row, x, xd, x_new, xd_new, pv, pi, sig, g_prev, g_now, mask, first,
          events, opts):
    """Outputs, events and discrete updates at a major instant ``t`` (mode 3 at t = 0, 2 at a
    scheduled major time, 1 at an event inside a segment). ``events`` = ``[count, burst,
    time of the last]`` is updated in place. Returns a status (DONE, STOPPED or ZENO)."""
    status = _DONE
    nz = opts.directions.size
    nup = 1
    evaluate(t, x, xd, pv, pi, sig, mode, row)
    if nz > 0:
        crossings(t, x, xd, pv, pi, sig, g_now)
        anyhit = False
        for z in range(nz):
            if first:
                mask[z] = opts.stop_mask[z] and g_now[z] >= 0.0
            else:
                mask[z] = crossed(g_prev[z], g_now[z], opts.directions[z])
            anyhit = anyhit or mask[z]
        if anyhit:
            events[0] += 1.0
            events[1] = events[1] + 1.0 if t - events[2] <= opts.zeno_dt else 0.0
            events[2] = t
            copy_into(x_new, x)
            copy_into(xd_new, xd)
            stop = fire(t, x, xd, pv, pi, sig, mask, x_new, xd_new)
            copy_into(x, x_new)
            copy_into(xd, xd_new)
            evaluate(t, x, xd, pv, pi, sig, _HIT if mode == 3 else mode, row)
            crossings(t, x, xd, pv, pi, sig, g_now)
            if stop:
                status = _STOPPED
            elif events[1] >= opts.zeno_count:
                status = _ZENO
        copy_into(g_prev, g_now)
    if nup > 0 and mode >= 2:  # without discrete updates numba drops this before typing
        any_fired = False
        for c in range(row.size):
            any_fired = any_fired or row[c]
        if any_fired:
            copy_into(xd_new, xd)
            update(t, x, xd, pv, pi, sig, row, xd_new)
            copy_into(xd, xd_new)
    return status


@njit(cache=True, nogil=True)
def run(pv, pi, x0, xd0, sig0, sched, opts):
    """Simulate one member from ``sched.times[0]`` to ``sched.times[-1]``: returns ``(nrec,
    t_rec, x_rec, s_rec, (nfev, nsteps, nevents), status)``; the buffers hold ``nrec`` rows.
    ``sched`` is a :class:`blocksim.engine.schedule.Schedule`, ``opts`` a
    :class:`blocksim.engine.compiled.loop.LoopOptions`."""
    n = x0.size
    nz = opts.directions.size
    method = METHOD
    nf = opts.none_fired  # no clock fires (solver stages, recorded rows)
    x = x0.copy()
    xd = xd0.copy()
    x_new = x0.copy()
    xd_new = xd0.copy()
    sig = sig0.copy()
    cap = max(opts.cap, 2)
    t_rec = np.empty(cap)
    x_rec = np.empty((cap, n))
    s_rec = np.empty((cap, sig.size))
    nrec = 0
    nfev = 0
    nsteps = 0
    events = np.array([0.0, 0.0, -np.inf])  # count, burst, time of the last
    k2, k3, k4, k5, k6, k7 = (np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n),
                              np.zeros(n))  # work arrays of step()
    y, err, scale = np.zeros(n), np.zeros(n), np.zeros(n)
    ynew = np.empty(n)
    ytry = np.empty(n)
    f = np.empty(n)
    g_prev = np.zeros(nz)
    g_now = np.zeros(nz)
    mask = np.zeros(nz, dtype=np.bool_)
    h = -1.0
    times = sched.times
    nmajor = times.size
    i = 0
    t = times[0]
    status = _DONE
    while True:
        on_schedule = i < nmajor and t == times[i]
        if opts.record_steps and i > 0 and (not on_schedule or sched.both_sides[i]):
            # a breakpoint's or an event's left limit, recorded before its own values
            outputs(min(t, sched.left_times[i]), x, xd, pv, pi, sig, nf)
            t_rec, x_rec, s_rec, nrec = append_row(t_rec, x_rec, s_rec, nrec, t, x, sig, opts)
        if on_schedule:
            te = sched.eval_times[i]
            status = major(te, _INIT if i == 0 else _HIT, sched.fired[i], x, xd, x_new, xd_new, pv,
                           pi, sig, g_prev, g_now, mask, i == 0, events, opts)
        else:  # an event inside a segment
            te = t
            status = major(t, _RECORD, opts.none_fired, x, xd, x_new, xd_new, pv, pi, sig, g_prev,
                           g_now, mask, False, events, opts)
        if sched.record[i] if on_schedule else opts.record_steps:
            before = nrec
            t_rec, x_rec, s_rec, nrec = append_row(t_rec, x_rec, s_rec, nrec, t, x, sig, opts)
            if nrec == before and status == _DONE:  # the recording reached max_memory
                status = _LIMIT
        if not (finite(sig) and finite(x)):
            status = _NONFINITE
        elif status == _DONE and opts.interrupt[0] != 0:
            status = _INTERRUPTED
        if status != _DONE:
            break
        if on_schedule:
            t = te  # the next segment starts at the cluster's latest instant
            i += 1
        if i >= nmajor:
            break
        t_end = times[i]
        if n == 0 and nz == 0:  # nothing to integrate, no crossing to locate
            t = t_end
            continue
        # ---- integrate from t towards t_end (one segment) ----
        t_left = sched.left_times[i]  # blocks see min(t, t_left) inside the segment
        event = False
        first_step = True
        record_here = False
        while t < t_end:
            if opts.interrupt[0] != 0:
                status = _INTERRUPTED
                break
            if nsteps >= opts.max_steps:
                status = _LIMIT
                break
            # f(t, x), with the signals to record when recording this step's start
            if n > 0 and (first_step or method != _DOPRI):
                if record_here:
                    rhs_record(min(t, t_left), x, xd, pv, pi, sig, f)
                else:
                    rhs(min(t, t_left), x, xd, pv, pi, sig, f)
                nfev += 1
            else:  # Dormand-Prince: first same as last
                copy_into(f, k7)
                if record_here:
                    outputs(min(t, t_left), x, xd, pv, pi, sig, nf)
            if record_here:
                before = nrec
                t_rec, x_rec, s_rec, nrec = append_row(t_rec, x_rec, s_rec, nrec, t, x, sig, opts)
                if nrec == before:  # the recording reached max_memory
                    status = _LIMIT
                    break
                if not (finite(sig) and finite(x)):
                    status = _NONFINITE
                    break
            if n > 0 and method == _DOPRI and h <= 0.0:
                h = initial_step(t, x, f, t_end, t_left, xd, pv, pi, sig, k2, y, err, scale,
                                 opts.rtol, opts.atol)
                nfev += 1
            # one step (Dormand-Prince: until its error is accepted)
            rejected = False
            hmin = 10 * abs(np.nextafter(t, np.inf) - t)
            while True:
                if n == 0:  # no state: one step to the segment end (crossings only)
                    t_new = t_end
                elif method == _DOPRI:
                    h = min(h, opts.max_step)
                    if h < hmin:
                        status = _STEP_TOO_SMALL
                        break
                    t_new = t + h if t + h < t_end else t_end
                else:
                    t_new = next_grid_time(t, opts.dt, t_end)
                hh = t_new - t
                en, ne = step(t, x, f, hh, t_left, xd, pv, pi, sig, k2, k3, k4, k5, k6, k7, y,
                              err, scale, ynew, opts.rtol, opts.atol)
                nfev += ne
                if n == 0 or method != _DOPRI:
                    break
                if not np.isfinite(en):  # a NaN or Inf in the step: stop, as the interpreted
                    # back-end stops at the first non-finite value. The row holds the signals
                    # at the new time from the old state (a block that fails with the time
                    # names itself) and the new state (a diverging state names itself)
                    outputs(min(t_new, t_left), x, xd, pv, pi, sig, nf)
                    t_rec, x_rec, s_rec, nrec = append_row(t_rec, x_rec, s_rec, nrec, t_new,
                                                           ynew, sig, opts)
                    status = _NONFINITE
                    break
                if en < 1.0:
                    factor = 10.0 if en == 0.0 else min(10.0, 0.9 * en ** -0.2)
                    if rejected:
                        factor = min(1.0, factor)
                    h = hh * factor if t_new < t_end else max(h, hh * factor)
                    break
                h = hh * max(0.2, 0.9 * en ** -0.2)
                rejected = True
            if status != _DONE:
                break
            nsteps += 1
            if nz > 0:
                outputs(min(t_new, t_left), ynew, xd, pv, pi, sig, nf)
                crossings(t_new, ynew, xd, pv, pi, sig, g_now)
                if any_crossed(g_prev, g_now, opts.directions):
                    hh, event, ne = locate(t, x, f, hh, t_end, t_left, xd, pv, pi, sig, k2, k3,
                                           k4, k5, k6, k7, y, err, scale, ynew, ytry, g_prev,
                                           g_now, opts)
                    nfev += ne
                    t_new = t + hh if event else t_new
                else:
                    copy_into(g_prev, g_now)
            t = t_new
            copy_into(x, ynew)
            if not opts.record_steps and not finite(x):  # not recorded below: record it here
                outputs(min(t, t_left), x, xd, pv, pi, sig, nf)
                t_rec, x_rec, s_rec, nrec = append_row(t_rec, x_rec, s_rec, nrec, t, x, sig, opts)
                status = _NONFINITE
                break
            if event or t >= t_end:
                break
            first_step = False
            record_here = opts.record_steps and t_end - t > 1e-12 * max(1.0, t_end)
        if status != _DONE:
            break
        if not event:
            t = t_end
    return nrec, t_rec, x_rec, s_rec, (nfev, nsteps, int(events[0])), status


@njit(cache=True, nogil=True)
def run_fixed(pv, pi, x0, xd0, sig0, sched, opts):
    """:func:`run` for the common case, kept lean: fixed steps (Euler, RK4) and no zero
    crossings. Same arguments, results and status codes, and FULL if ``opts.cap`` rows do not
    hold the run: the buffers never grow here (a reassigned buffer costs reference counting
    at every step), the back-end sizes them from the schedule."""
    n = x0.size
    nf = opts.none_fired
    x = x0.copy()
    xd = xd0.copy()
    x_new = x0.copy()
    xd_new = xd0.copy()
    sig = sig0.copy()
    cap = max(opts.cap, 2)
    t_rec = np.empty(cap)
    x_rec = np.empty((cap, n))
    s_rec = np.empty((cap, sig.size))
    nrec = 0
    nfev = 0
    nsteps = 0
    events = np.array([0.0, 0.0, -np.inf])
    no_crossings = np.zeros(0)
    no_mask = np.zeros(0, dtype=np.bool_)
    k2, k3, k4, y = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)  # rk4_step's
    f = np.empty(n)
    ynew = np.empty(n)
    times = sched.times
    nmajor = times.size
    status = _DONE
    for i in range(nmajor):
        if sched.both_sides[i] and opts.record_steps:  # a breakpoint's left limit first
            outputs(min(times[i], sched.left_times[i]), x, xd, pv, pi, sig, nf)
            if nrec == t_rec.size:
                status = _FULL
                break
            write_row(t_rec, x_rec, s_rec, nrec, times[i], x, sig)
            nrec += 1
        t = sched.eval_times[i]
        major(t, _INIT if i == 0 else _HIT, sched.fired[i], x, xd, x_new, xd_new, pv, pi, sig,
              no_crossings, no_crossings, no_mask, i == 0, events, opts)
        if sched.record[i]:
            if nrec == t_rec.size:
                status = _FULL
                break
            write_row(t_rec, x_rec, s_rec, nrec, times[i], x, sig)
            nrec += 1
        if not (finite(sig) and finite(x)):
            status = _NONFINITE
            break
        if opts.interrupt[0] != 0:
            status = _INTERRUPTED
            break
        if i == nmajor - 1 or n == 0:
            continue
        t_end = times[i + 1]
        t_left = sched.left_times[i + 1]
        rhs(min(t, t_left), x, xd, pv, pi, sig, f)
        nfev += 1
        k = next_grid_index(t, opts.dt)  # the steps end at k * dt, (k + 1) * dt, ... t_end
        while t < t_end:
            if opts.interrupt[0] != 0:
                status = _INTERRUPTED
                break
            t_new = min(k * opts.dt, t_end)
            k += 1
            if METHOD == _RK4:
                rk4_step(t, x, f, t_new - t, t_left, xd, pv, pi, sig, k2, k3, k4, y, ynew)
                nfev += 3
            else:
                euler_step(t, x, f, t_new - t, ynew)
            nsteps += 1
            t = t_new
            copy_into(x, ynew)
            if t >= t_end:
                break
            nfev += 1
            if opts.record_steps and t_end - t > 1e-12 * max(1.0, t_end):
                # one pass gives the derivatives and every signal to record
                rhs_record(min(t, t_left), x, xd, pv, pi, sig, f)
            else:
                rhs(min(t, t_left), x, xd, pv, pi, sig, f)
                if opts.record_steps or finite(x):
                    continue
                outputs(min(t, t_left), x, xd, pv, pi, sig, nf)
            if nrec == t_rec.size:
                status = _FULL
                break
            write_row(t_rec, x_rec, s_rec, nrec, t, x, sig)
            nrec += 1
            if not (finite(sig) and finite(x)):
                status = _NONFINITE
                break
        if status != _DONE:
            break
    return nrec, t_rec, x_rec, s_rec, (nfev, nsteps, 0), status


@njit(cache=True, nogil=True)
def run_batch(PV, PI, X0, XD0, sig0, sched, opts, out, lo, hi):
    """Run members ``lo`` to ``hi - 1`` (rows of ``PV``/``PI``/``X0``/``XD0``) one after the
    other into their rows of ``out`` (see :func:`blocksim.engine.compiled.loop.store_member`).
    It releases the GIL: the back-end runs chunks of members on several threads at once."""
    for m in range(lo, hi):
        # own copies: no reference counts shared with the other threads' members
        nrec, t_rec, x_rec, s_rec, _, st = run(PV[m].copy(), PI[m].copy(), X0[m], XD0[m],
                                               sig0, sched, opts)
        store_member(out, m, sched.times, t_rec, x_rec, s_rec, nrec, st)


@njit(cache=True, nogil=True)
def run_batch_fixed(PV, PI, X0, XD0, sig0, sched, opts, out, lo, hi):
    """:func:`run_batch` with the lean loop :func:`run_fixed` (same arguments)."""
    for m in range(lo, hi):
        nrec, t_rec, x_rec, s_rec, _, st = run_fixed(PV[m].copy(), PI[m].copy(), X0[m],
                                                     XD0[m], sig0, sched, opts)
        store_member(out, m, sched.times, t_rec, x_rec, s_rec, nrec, st)
