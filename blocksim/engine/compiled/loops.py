"""The numba integration loop shared by every compiled diagram.

``run`` walks the major times (clock hits, source breakpoints, T) computed in Python. At each it
evaluates the outputs (all blocks at t = 0; continuous-rate blocks and the fired clocks' blocks
at a hit), fires the events whose zero-crossing functions changed sign (state resets, modes,
Stop), applies the discrete updates of the fired clocks, records, and integrates the continuous
state towards the next major time with

* ``method == 0``: explicit Euler, ``1``: classical RK4 — steps on the grid ``k * dt``;
* ``method == 2``: Dormand–Prince 5(4) with scipy RK45's error norm and step-size control
  (``rtol``/``atol`` mean the same as in scipy), the step size carried across segments.

After every accepted step the zero crossings are checked; a sign change is located by
re-stepping from the step's start with shorter steps (bisection to ``event_tol``), and the
segment ends just past the crossing, where the next major time is processed.

The loop is compiled once (and cached) for all diagrams: the diagram's own functions, generated
by :mod:`blocksim.engine.compiled.codegen`, are passed in as numba first-class functions of
fixed signatures (``EVALUATE``, ``RHS``, ...), so a new diagram compiles only its own small
functions. All block parameters travel in two flat vectors, ``pv`` (float64) and ``pi``
(int64), so a parameter sweep (one row per member) runs the same machine code.

Inside a segment the blocks see times strictly below its end (left limit of breakpoints).
Every accepted step is recorded when ``record_steps`` (t, x and the flat signal buffer), else
only the major times. Status: 0 done, 1 NaN/Inf (everything so far recorded), 2 step size too
small, 3 stopped by a Stop block, 4 Zeno (``zeno_count`` events closer than ``zeno_dt``).
"""


from __future__ import annotations

import math

import numpy as np
from numba import njit, types

from blocksim.engine.compiled.signatures import (
    A8,
    B1,
    CROSSINGS,
    EVALUATE,
    F8,
    FIRE,
    I8,
    RHS,
    UPDATE,
)
from blocksim.engine.events import has_crossed

RUN = types.Tuple((types.int64, A8, types.float64[:, ::1], types.float64[:, ::1], types.int64,
                   types.int64, types.int64, types.int64))(
    types.FunctionType(EVALUATE), types.FunctionType(RHS), types.FunctionType(UPDATE),
    types.FunctionType(CROSSINGS), types.FunctionType(FIRE), A8, I8, A8, A8, A8, A8,
    types.boolean[:, ::1], types.int64, F8, F8, F8, F8, types.int64, types.boolean, I8, B1, F8,
    F8, types.int64)

@njit(cache=True)
def _finite(v):
    for i in range(v.shape[0]):
        if not math.isfinite(v[i]):
            return False
    return True


@njit(cache=True)
def _rms(v, scale):
    s = 0.0
    n = v.size
    for i in range(n):
        r = v[i] / scale[i]
        s += r * r
    return math.sqrt(s / n) if n > 0 else 0.0


@njit(cache=True)
def _grow(a):
    b = np.empty((a.shape[0] * 2,) + a.shape[1:])  # noqa: RUF005 - numba
    b[: a.shape[0]] = a
    return b


@njit(cache=True)
def _grow1(a):
    b = np.empty(a.shape[0] * 2)
    b[: a.shape[0]] = a
    return b


@njit(cache=True)
def _rhs_at(rhs, t, t_end, t_left, y, xd, pv, pi, sig, out):
    tt = t if t < t_end else t_left
    rhs(tt, y, xd, pv, pi, sig, out)


@njit(cache=True)
def _tableau():
    C = np.array([0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0])
    A = np.zeros((6, 5))
    A[1, 0] = 1 / 5
    A[2, 0] = 3 / 40
    A[2, 1] = 9 / 40
    A[3, 0] = 44 / 45
    A[3, 1] = -56 / 15
    A[3, 2] = 32 / 9
    A[4, 0] = 19372 / 6561
    A[4, 1] = -25360 / 2187
    A[4, 2] = 64448 / 6561
    A[4, 3] = -212 / 729
    A[5, 0] = 9017 / 3168
    A[5, 1] = -355 / 33
    A[5, 2] = 46732 / 5247
    A[5, 3] = 49 / 176
    A[5, 4] = -5103 / 18656
    B = np.array([35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84])
    E = np.array([-71 / 57600, 0.0, 71 / 16695, -71 / 1920, 17253 / 339200, -22 / 525,
                  1 / 40])
    return C, A, B, E


@njit(cache=True)
def _one_step(rhs, method, t, x, f0, hh, t_end, t_left, xd, pv, pi, sig, K, ytmp, ynew, err,
              scale, C, A, B, E, rtol, atol):
    """One step of size hh from (t, x) with f0 = f(t, x) into ynew; returns (error norm,
    rhs evaluations); the error norm is 0 for the fixed-step methods."""
    n = x.size
    if method == 2:
        for j in range(n):
            K[0, j] = f0[j]
        for s in range(1, 6):
            for j in range(n):
                acc = 0.0
                for q in range(s):
                    acc += A[s, q] * K[q, j]
                ytmp[j] = x[j] + hh * acc
            _rhs_at(rhs, t + C[s] * hh, t_end, t_left, ytmp, xd, pv, pi, sig, K[s])
        for j in range(n):
            acc = 0.0
            for q in range(6):
                acc += B[q] * K[q, j]
            ynew[j] = x[j] + hh * acc
        _rhs_at(rhs, t + hh, t_end, t_left, ynew, xd, pv, pi, sig, K[6])
        for j in range(n):
            acc = 0.0
            for q in range(7):
                acc += E[q] * K[q, j]
            err[j] = hh * acc
            scale[j] = atol + max(abs(x[j]), abs(ynew[j])) * rtol
        return _rms(err, scale), 6
    if method == 0:
        for j in range(n):
            ynew[j] = x[j] + hh * f0[j]
        return 0.0, 0
    for j in range(n):
        ytmp[j] = x[j] + 0.5 * hh * f0[j]
    _rhs_at(rhs, t + 0.5 * hh, t_end, t_left, ytmp, xd, pv, pi, sig, K[1])
    for j in range(n):
        ytmp[j] = x[j] + 0.5 * hh * K[1, j]
    _rhs_at(rhs, t + 0.5 * hh, t_end, t_left, ytmp, xd, pv, pi, sig, K[2])
    for j in range(n):
        ytmp[j] = x[j] + hh * K[2, j]
    _rhs_at(rhs, t + hh, t_end, t_left, ytmp, xd, pv, pi, sig, K[3])
    for j in range(n):
        ynew[j] = x[j] + hh / 6.0 * (f0[j] + 2.0 * (K[1, j] + K[2, j]) + K[3, j])
    return 0.0, 3


#: the interpreted back-end's crossing test, compiled: one definition for both back-ends
_crossed = njit(cache=True)(has_crossed)


@njit(cache=True)
def run_impl(evaluate, rhs, update, crossings, fire, pv, pi, x0, xd0, sig0, times, fired_rows,
             method, dt, rtol, atol, max_step, cap, record_steps, directions, stop_mask,
             event_tol, zeno_dt, zeno_count):
    """The loop itself: specialised for first-class functions by :func:`run` (compiled once),
    or for one diagram's own functions by its generated ``run_fast`` (inlined, fastest)."""
    n = x0.size
    nz = directions.size
    x = x0.copy()
    xd = xd0.copy()
    sig = sig0.copy()
    t_rec = np.empty(cap)
    x_rec = np.empty((cap, n))
    s_rec = np.empty((cap, sig.size))
    nrec = 0
    nfev = 0
    nsteps = 0
    nevents = 0
    nfired = fired_rows.shape[1]
    none_fired = np.zeros(nfired, dtype=np.bool_)
    C, A, B, E = _tableau()
    K = np.zeros((7, n))
    ytmp = np.empty(n)
    ynew = np.empty(n)
    ytry = np.empty(n)
    f = np.empty(n)
    scale = np.empty(n)
    err = np.empty(n)
    g_prev = np.zeros(nz)
    g_now = np.zeros(nz)
    mask = np.zeros(nz, dtype=np.bool_)
    last_event = -np.inf
    burst = 0
    h = -1.0
    nmajor = times.size
    i = 0
    t = times[0]
    first = True
    while True:
        on_schedule = i < nmajor and t == times[i]
        row = fired_rows[i] if on_schedule else none_fired
        evaluate(t, x, xd, pv, pi, sig, 3 if first else (2 if on_schedule else 1), row)
        if nz > 0:
            crossings(t, x, xd, pv, pi, sig, g_now)
            anyhit = False
            for z in range(nz):
                if first:
                    mask[z] = stop_mask[z] and g_now[z] >= 0.0
                else:
                    mask[z] = _crossed(g_prev[z], g_now[z], directions[z])
                anyhit = anyhit or mask[z]
            if anyhit:
                nevents += 1
                if t - last_event <= zeno_dt:
                    burst += 1
                else:
                    burst = 0
                last_event = t
                x_new = x.copy()
                xd_new = xd.copy()
                stop = fire(t, x, xd, pv, pi, sig, mask, x_new, xd_new)
                x = x_new
                xd = xd_new
                evaluate(t, x, xd, pv, pi, sig, 2 if on_schedule else 1, row)
                crossings(t, x, xd, pv, pi, sig, g_now)
                if stop:
                    status = 3
                elif burst >= zeno_count:
                    status = 4
                else:
                    status = 0
            else:
                status = 0
            for z in range(nz):
                g_prev[z] = g_now[z]
        else:
            status = 0
        first = False
        if on_schedule:
            any_fired = False
            for c in range(nfired):
                any_fired = any_fired or row[c]
            if any_fired:
                xd_new = xd.copy()
                update(t, x, xd, pv, pi, sig, row, xd_new)
                xd = xd_new
        if on_schedule or record_steps:
            if nrec == t_rec.size:
                t_rec = _grow1(t_rec)
                x_rec = _grow(x_rec)
                s_rec = _grow(s_rec)
            t_rec[nrec] = t
            x_rec[nrec] = x
            s_rec[nrec] = sig
            nrec += 1
        if not (_finite(sig) and _finite(x)):
            status = 1
        if status != 0:
            return nrec, t_rec, x_rec, s_rec, nfev, nsteps, nevents, status
        if on_schedule:
            i += 1
        if i >= nmajor:
            break
        t_end = times[i]
        if n == 0:
            t = t_end
            continue
        t_left = np.nextafter(t_end, -np.inf)
        _rhs_at(rhs, t, t_end, t_left, x, xd, pv, pi, sig, f)
        nfev += 1
        if method == 2 and h <= 0.0:
            for j in range(n):  # scipy's select_initial_step (order 4)
                scale[j] = atol + abs(x[j]) * rtol
            d0 = _rms(x, scale)
            d1 = _rms(f, scale)
            h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
            h0 = min(h0, t_end - t)
            for j in range(n):
                ytmp[j] = x[j] + h0 * f[j]
            _rhs_at(rhs, t + h0, t_end, t_left, ytmp, xd, pv, pi, sig, K[1])
            nfev += 1
            for j in range(n):
                err[j] = K[1, j] - f[j]
            d2 = _rms(err, scale) / h0
            if d1 <= 1e-15 and d2 <= 1e-15:
                h1 = max(1e-6, h0 * 1e-3)
            else:
                h1 = (0.01 / max(d1, d2)) ** 0.2
            h = min(100 * h0, h1)
        if method == 2:
            h = min(h, max_step)
        event = False
        while t < t_end:
            if method == 2:
                hmin = 10 * abs(np.nextafter(t, np.inf) - t)
                rejected = False
                while True:
                    if h < hmin:
                        return nrec, t_rec, x_rec, s_rec, nfev, nsteps, nevents, 2
                    hh = min(h, t_end - t)
                    en, ne = _one_step(rhs, 2, t, x, f, hh, t_end, t_left, xd, pv, pi, sig, K,
                                       ytmp, ynew, err, scale, C, A, B, E, rtol, atol)
                    nfev += ne
                    if en < 1.0:
                        factor = 10.0 if en == 0.0 else min(10.0, 0.9 * en ** -0.2)
                        if rejected:
                            factor = min(1.0, factor)
                        if t + hh < t_end:
                            h = min(hh * factor, max_step)
                        else:
                            h = min(max(h, hh * factor), max_step)
                        break
                    h = hh * max(0.2, 0.9 * en ** -0.2)
                    rejected = True
                t_new = t + hh if t + hh < t_end else t_end
            else:
                k = math.floor(t / dt * (1 + 1e-12) + 1e-9) + 1
                t_new = min(k * dt, t_end)
                if t_new - t < 1e-12 * max(1.0, abs(t)):
                    t_new = min((k + 1) * dt, t_end)
                hh = t_new - t
                if method == 0:
                    for j in range(n):
                        ynew[j] = x[j] + hh * f[j]
                else:  # classical RK4, written out (the hot path of fixed-step runs)
                    h2 = 0.5 * hh
                    for j in range(n):
                        ytmp[j] = x[j] + h2 * f[j]
                    _rhs_at(rhs, t + h2, t_end, t_left, ytmp, xd, pv, pi, sig, K[1])
                    for j in range(n):
                        ytmp[j] = x[j] + h2 * K[1, j]
                    _rhs_at(rhs, t + h2, t_end, t_left, ytmp, xd, pv, pi, sig, K[2])
                    for j in range(n):
                        ytmp[j] = x[j] + hh * K[2, j]
                    _rhs_at(rhs, t + hh, t_end, t_left, ytmp, xd, pv, pi, sig, K[3])
                    h6 = hh / 6.0
                    for j in range(n):
                        ynew[j] = x[j] + h6 * (f[j] + 2.0 * (K[1, j] + K[2, j]) + K[3, j])
                    nfev += 3
            nsteps += 1
            if nz > 0:
                evaluate(t_new if t_new < t_end else t_left, ynew, xd, pv, pi, sig, 1,
                         none_fired)
                crossings(t_new, ynew, xd, pv, pi, sig, g_now)
                crossed = False
                for z in range(nz):
                    crossed = crossed or _crossed(g_prev[z], g_now[z], directions[z])
                if crossed:
                    # bisection on the step length: re-step from (t, x) with f
                    a, b = 0.0, t_new - t
                    tol = event_tol * max(1.0, abs(t_new))
                    while b - a > tol:
                        c = 0.5 * (a + b)
                        _, ne = _one_step(rhs, method, t, x, f, c, t_end, t_left, xd, pv, pi, sig,
                                          K, ytmp, ytry, err, scale, C, A, B, E, rtol,
                                          atol)
                        nfev += ne
                        evaluate(t + c, ytry, xd, pv, pi, sig, 1, none_fired)
                        crossings(t + c, ytry, xd, pv, pi, sig, g_now)
                        hit = False
                        for z in range(nz):
                            hit = hit or _crossed(g_prev[z], g_now[z], directions[z])
                        if hit:
                            b = c
                        else:
                            a = c
                    if a > 0.0:
                        _, ne = _one_step(rhs, method, t, x, f, a, t_end, t_left, xd, pv, pi, sig,
                                          K, ytmp, ytry, err, scale, C, A, B, E, rtol,
                                          atol)
                        nfev += ne
                        evaluate(t + a, ytry, xd, pv, pi, sig, 1, none_fired)
                        crossings(t + a, ytry, xd, pv, pi, sig, g_prev)
                    _, ne = _one_step(rhs, method, t, x, f, b, t_end, t_left, xd, pv, pi, sig, K,
                                      ytmp, ynew, err, scale, C, A, B, E, rtol, atol)
                    nfev += ne
                    t_new = t + b
                    event = True
                else:
                    for z in range(nz):
                        g_prev[z] = g_now[z]
            t = t_new
            for j in range(n):
                x[j] = ynew[j]
            if event:
                break
            if t >= t_end:
                break
            if method == 2:  # first same as last
                for j in range(n):
                    f[j] = K[6, j]
            else:
                _rhs_at(rhs, t, t_end, t_left, x, xd, pv, pi, sig, f)
                nfev += 1
            if record_steps and t_end - t > 1e-12 * max(1.0, t_end):
                evaluate(t, x, xd, pv, pi, sig, 1, none_fired)
                if nrec == t_rec.size:
                    t_rec = _grow1(t_rec)
                    x_rec = _grow(x_rec)
                    s_rec = _grow(s_rec)
                t_rec[nrec] = t
                x_rec[nrec] = x
                s_rec[nrec] = sig
                nrec += 1
                if not (_finite(sig) and _finite(x)):
                    return nrec, t_rec, x_rec, s_rec, nfev, nsteps, nevents, 1
        if not event:
            t = t_end
    return nrec, t_rec, x_rec, s_rec, nfev, nsteps, nevents, 0



@njit(RUN, cache=True)
def run(evaluate, rhs, update, crossings, fire, pv, pi, x0, xd0, sig0, times, fired_rows,
        method, dt, rtol, atol, max_step, cap, record_steps, directions, stop_mask, event_tol,
        zeno_dt, zeno_count):
    """The loop compiled once for every diagram (first-class function arguments)."""
    return run_impl(evaluate, rhs, update, crossings, fire, pv, pi, x0, xd0, sig0, times,
                    fired_rows, method, dt, rtol, atol, max_step, cap, record_steps,
                    directions, stop_mask, event_tol, zeno_dt, zeno_count)
