"""The integration loop of the compiled back-end: its types, its helpers and its source.

The loop calls a diagram's own functions (``evaluate``, ``update``, ``crossings``, ``fire``:
see :mod:`blocksim.engine.compiled.render`) directly, as globals of
the diagram's generated module, so that numba can inline them and cache the loop on disk
(numba refuses to cache a function that receives another compiled function as an argument,
and its IR-level inlining of a loop this size takes over a minute). So the functions that call
a diagram are written once, in the real module :mod:`blocksim.engine.compiled.loop_template`,
whose source (:func:`loop_source`) is copied into every generated module; the rest (status
codes, options, recording and checks) is here, compiled once per installation.

The loop walks the major times (clock hits, source breakpoints, record grid, T: see
:mod:`blocksim.engine.schedule`). At each it evaluates the outputs (every block at t = 0; the
continuous-rate blocks and the fired clocks' blocks at a hit), fires the events whose
zero-crossing functions changed sign (state resets, modes, Stop), applies the discrete updates
of the fired clocks, records, and integrates the continuous state towards the next major time
with :func:`blocksim.engine.compiled.steps.step` (Euler or RK4 on the grid ``k * dt``,
Dormand–Prince 5(4) with scipy's step-size control). After each accepted step the zero
crossings are checked; a sign change is located by re-stepping from the step's start with
shorter steps (bisection to ``event_tol``) and the segment ends just past it.

Inside a segment the blocks see times strictly below its end (left limit of breakpoints).
Every accepted step is recorded when ``record_steps``, else only the major times.
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from blocksim.engine.crossing import has_crossed


class Status(IntEnum):
    """How a compiled run ended."""

    DONE = 0
    NONFINITE = 1  # a NaN or Inf in a signal or state (everything so far recorded)
    STEP_TOO_SMALL = 2  # the adaptive step fell below the spacing of floats
    STOPPED = 3  # a Stop block fired
    ZENO = 4  # zeno_count events closer than zeno_dt to each other
    INTERRUPTED = 5  # the caller set ``LoopOptions.interrupt[0]`` (Ctrl-C)
    FULL = 6  # run_fixed: the record buffers (``LoopOptions.cap`` rows) are full; the back-end
    #           sizes them for every row, so this is a sizing bug, rerun with more rows
    LIMIT = 7  # run: ``LoopOptions.max_steps`` steps taken, or ``max_rows`` rows recorded
    #            (the run's max_memory); everything so far recorded


class Mode(IntEnum):
    """What a generated ``evaluate`` computes (see :mod:`blocksim.engine.compiled.render`);
    solver stages call the diagram's ``rhs`` instead."""

    RECORD = 1  # every continuous-rate output, stored in ``sig``
    HIT = 2  # RECORD and the outputs of the clocks that fire
    INIT = 3  # every output (t = 0)


class LoopOptions(NamedTuple):
    """The run options the loop reads (numba-typable; built by the back-end from a
    :class:`~blocksim.engine.config.RunConfig`). The integration method is not among them: it
    is the generated module's constant ``METHOD`` (see
    :mod:`blocksim.engine.compiled.loop_template`)."""

    dt: float  # fixed step [s] (0.0 for the adaptive method)
    rtol: float
    atol: float
    max_step: float  # [s]
    cap: int  # initial size of the record buffers (they grow)
    record_steps: bool  # record every accepted step and event (else only the major times
    #                     that Schedule.record marks)
    event_tol: float  # width [s] (relative to max(1, t)) to which crossings are located
    zeno_dt: float  # [s]
    zeno_count: int
    directions: np.ndarray  # (nz,) int64: +1 rising, -1 falling, 0 either
    stop_mask: np.ndarray  # (nz,) bool: the crossing belongs to a Stop block
    none_fired: np.ndarray  # (nclocks,) bool, all False: no clock fires
    interrupt: np.ndarray  # (1,) uint8: set non-zero by another thread to stop the run (it
    #                        ends with everything recorded so far, status INTERRUPTED)
    max_rows: int  # most rows recorded (the run's max_memory); one more ends it, LIMIT
    max_steps: int  # most solver steps (the run's max_steps); one more ends it, LIMIT


#: the crossing test of both back-ends, compiled
crossed = njit(cache=True)(has_crossed)


@njit(cache=True)
def copy_into(dst, src):
    """``dst[:] = src`` for 1-D arrays of one size, as a loop (numba's slice assignment is
    general and slow to compile)."""
    for j in range(src.size):
        dst[j] = src[j]


@njit(cache=True)
def store(sig, start, value):
    """Write the array ``value`` into ``sig[start:start + value.size]`` (C order)."""
    flat = value.ravel()
    for j in range(flat.size):
        sig[start + j] = flat[j]


@njit(cache=True)
def store_member(out, m, times, t_rec, x_rec, s_rec, nrec, status):
    """Store member ``m``'s outcome in its rows of the ensemble's ``out = (t (M, n), x (M, n,
    nx), sig (M, n, nsig), counts (M,), status (M,), last t (M,), last x (M, nx), last sig (M,
    nsig))``: its rows recorded at the scheduled ``times`` (rows at other instants skipped),
    how many, its status, and its last recorded row (where a failed member stopped)."""
    T_out, X_out, S_out, counts, st_out, t_last, x_last, s_last = out
    k = 0
    for r in range(nrec):
        while k < times.size and times[k] < t_rec[r]:  # a major time not recorded
            k += 1
        if k < times.size and t_rec[r] == times[k]:
            T_out[m, k] = t_rec[r]
            copy_into(X_out[m, k], x_rec[r])
            copy_into(S_out[m, k], s_rec[r])
            k += 1
    counts[m] = k
    st_out[m] = status
    if nrec > 0:
        t_last[m] = t_rec[nrec - 1]
        copy_into(x_last[m], x_rec[nrec - 1])
        copy_into(s_last[m], s_rec[nrec - 1])


@njit(cache=True)
def finite(v):
    """Whether every element of the 1-D array ``v`` is finite."""
    for i in range(v.shape[0]):
        if not np.isfinite(v[i]):
            return False
    return True


@njit(cache=True)
def any_crossed(g_prev, g_now, directions):
    """Whether any crossing function went through zero in its direction."""
    for z in range(directions.size):
        if crossed(g_prev[z], g_now[z], directions[z]):
            return True
    return False


@njit(cache=True)
def grow_records(t_rec, x_rec, s_rec, max_rows):
    """The record buffers with twice the rows, at most ``max_rows`` (the recorded ones
    copied)."""
    rows = t_rec.size
    new = max(rows, min(2 * rows, max_rows))
    t_new = np.empty(new)
    x_new = np.empty((new, x_rec.shape[1]))
    s_new = np.empty((new, s_rec.shape[1]))
    for r in range(rows):
        t_new[r] = t_rec[r]
        copy_into(x_new[r], x_rec[r])
        copy_into(s_new[r], s_rec[r])
    return t_new, x_new, s_new


@njit(cache=True, inline="always")  # inlined (numba IR): a call per step costs 10-20 %
def write_row(t_rec, x_rec, s_rec, row, t, x, sig):
    """Record (t, x, sig) in row ``row`` of the buffers."""
    t_rec[row] = t
    for j in range(x.size):
        x_rec[row, j] = x[j]
    for j in range(sig.size):
        s_rec[row, j] = sig[j]


@njit(cache=True, inline="always")
def append_row(t_rec, x_rec, s_rec, nrec, t, x, sig, opts):
    """Record (t, x, sig) in row ``nrec``, the buffers grown when full up to
    ``opts.max_rows`` rows (the run's max_memory): returns the buffers and the number of rows
    recorded, unchanged when the limit is reached."""
    if nrec == t_rec.size and nrec < opts.max_rows:
        t_rec, x_rec, s_rec = grow_records(t_rec, x_rec, s_rec, opts.max_rows)
    if nrec < t_rec.size:
        write_row(t_rec, x_rec, s_rec, nrec, t, x, sig)
        nrec += 1
    return t_rec, x_rec, s_rec, nrec


#: the line of loop_template.py after which its source is copied into generated modules
TEMPLATE_MARKER = "# ---- copied into every generated module from here ----"


@cache
def loop_source() -> str:
    """The source of the loop functions, as copied into every generated module."""
    text = (Path(__file__).parent / "loop_template.py").read_text()
    return text.split(TEMPLATE_MARKER + "\n", 1)[1]
