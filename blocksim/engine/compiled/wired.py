"""The diagram functions of the data-wired tier: one compiled interpreter of wiring tables.

These are the functions the loop calls (``evaluate``, ``rhs``, ``rhs_record``, ``update``,
``crossings``, ``fire``, with the fused tier's signatures: see
:mod:`blocksim.engine.compiled.render`), written once for every diagram. Where the fused tier
generates straight-line code per diagram, these walk the diagram's *program*, a table of
int64 records at the front of the int parameter vector ``pi`` (built by
:mod:`blocksim.engine.compiled.wiring`), and call each block's entry through its address
(:func:`~blocksim.engine.compiled.entry.call_entry`). Every signal lives in the buffer
``sig``: an output is stored when computed and read back by the blocks that take it.

Compiled once per installation (numba's disk cache), with the loop of each integration method
(:func:`blocksim.engine.compiled.wiring.wired_module`): a new diagram compiles nothing here.

A block entry that returns non-zero (its kernel raised) raises ``RuntimeError(ENTRY_FAILED,
statement, t)``; the back-end names the block and the time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from blocksim.engine.compiled.entry import address, call_entry, load_f8, load_i8, store_f8

#: the message of the RuntimeError raised when a block entry fails; its second argument is
#: the record's number k (output), -1 - k (derivative) or one of these bases minus k
ENTRY_FAILED = "blocksim: a block's compiled kernel raised"
UPDATE_FAILED, CROSSING_FAILED, EVENT_FAILED = -1000000, -2000000, -3000000

# header of the program (indices into pi)
LENGTH, N_EVAL, EVAL_AT, N_DERIV, DERIV_AT, N_UPDATE, UPDATE_AT, N_CROSS, CROSS_AT = range(9)
HEADER = 9
# evaluation records: kind, rate, clock, entry, state vector, state start, meta at, kernel
# (the address of the kernel's code an entry that does not link it receives as its ``op``)
EVAL_WIDTH = 8
CALL, ROUTE = 0, 1
MINOR, CONTINUOUS, CLOCK, CONSTANT = 0, 1, 2, 3
# derivative records: entry, state start, meta at, nx, kernel
DERIV_WIDTH = 5
# update records: entry, clock, state start, meta at, kernel
UPDATE_WIDTH = 5
# crossing records: entry, state vector, state start, meta at, g offset, count, handler, stops,
# crossings kernel, handler kernel
CROSS_WIDTH = 10


# The functions below take the arrays once and work on their addresses (int64): no array
# object crosses a helper call or a loop iteration, so numba counts no references per
# statement (with the arrays passed to an inlined per-statement helper, its reference
# counting took 130 ns of a 3-statement evaluation; the entries themselves take 3-20 ns).


@njit(cache=True, inline="always")
def _i(pi, k):
    """``pi[k]`` from the address of pi."""
    return load_i8(pi + 8 * k)


@njit(cache=True, inline="always")
def _state(pi, r, x, xd):
    """The address of the state of the record at ``r`` (vector at ``r``, start at ``r + 1``)."""
    if _i(pi, r) == 1:
        return xd + 8 * _i(pi, r + 1)
    return x + 8 * _i(pi, r + 1)


@njit(cache=True, inline="always")
def _statement(t, x, xd, pv, pi, sig, k):
    """Run evaluation record ``k`` (a block's output entry, or a route); addresses only."""
    r = _i(pi, EVAL_AT) + EVAL_WIDTH * k
    m = _i(pi, r + 6)
    if _i(pi, r) == ROUTE:  # meta: out offset, n, source offsets
        out = _i(pi, m)
        for j in range(_i(pi, m + 1)):
            store_f8(sig + 8 * (out + j), load_f8(sig + 8 * _i(pi, m + 2 + j)))
        return 0
    return call_entry(_i(pi, r + 3), _i(pi, r + 7), 0, t, _state(pi, r + 4, x, xd), sig, pv,
                      pi, pi + 8 * m, 0)


@njit(cache=True)
def evaluate(t, x, xd, pv, pi, sig, mode, fired):
    """The outputs at ``t`` in evaluation order (``mode`` as in the fused tier: RECORD 1, HIT
    2, INIT 3), stored in ``sig``; signals not recomputed keep their held values."""
    ax, axd, apv, api, asig = address(x), address(xd), address(pv), address(pi), address(sig)
    at = _i(api, EVAL_AT)
    for k in range(_i(api, N_EVAL)):
        r = at + EVAL_WIDTH * k
        rate = _i(api, r + 1)
        if rate == CLOCK:
            if not (mode == 3 or (mode == 2 and fired[_i(api, r + 2)])):
                continue
        elif rate == CONSTANT and mode != 3:
            continue
        if _statement(t, ax, axd, apv, api, asig, k) != 0:
            raise RuntimeError(ENTRY_FAILED, k, t)


@njit(cache=True, inline="always")
def _derivatives(t, x, pv, pi, sig, dx):
    """Every continuous block's derivative into ``dx``; addresses only. Returns the failed
    record's code (see :func:`rhs`), or 0."""
    at = _i(pi, DERIV_AT)
    for k in range(_i(pi, N_DERIV)):
        r = at + DERIV_WIDTH * k
        start = _i(pi, r + 1)
        if call_entry(_i(pi, r), _i(pi, r + 4), 0, t, x + 8 * start, sig, pv, pi,
                      pi + 8 * _i(pi, r + 2), dx + 8 * start) != 0:
            return -1 - k
    return 0


@njit(cache=True, inline="always")
def _stage(t, ax, axd, apv, api, asig, adx, top):
    """The statements of rate <= ``top`` (MINOR: a solver stage; CONTINUOUS: and every
    continuous-rate output), then the derivatives; raises on a failed entry."""
    at = _i(api, EVAL_AT)
    for k in range(_i(api, N_EVAL)):
        if _i(api, at + EVAL_WIDTH * k + 1) <= top:
            if _statement(t, ax, axd, apv, api, asig, k) != 0:
                raise RuntimeError(ENTRY_FAILED, k, t)
    failed = _derivatives(t, ax, apv, api, asig, adx)
    if failed != 0:
        raise RuntimeError(ENTRY_FAILED, failed, t)


@njit(cache=True)
def stage_at(t, ax, axd, apv, api, asig, adx, top):
    """:func:`_stage` compiled on its own, with addresses only: a call passes no array, so
    numba counts no references at the many call sites of a solver stage."""
    _stage(t, ax, axd, apv, api, asig, adx, top)


@njit(cache=True, inline="always")
def rhs(t, x, xd, pv, pi, sig, dx):
    """A solver stage: the statements that feed derivatives, then every derivative (inlined
    into the loop: only the addresses are taken here)."""
    stage_at(t, address(x), address(xd), address(pv), address(pi), address(sig), address(dx),
             np.int64(MINOR))  # an int64 value: a literal would compile stage_at once more


@njit(cache=True, inline="always")
def rhs_record(t, x, xd, pv, pi, sig, dx):
    """:func:`rhs` with every continuous-rate output (a row to record)."""
    stage_at(t, address(x), address(xd), address(pv), address(pi), address(sig), address(dx),
             np.int64(CONTINUOUS))


@njit(cache=True)
def update(t, x, xd, pv, pi, sig, fired, xd_new):
    """The discrete updates of the fired clocks into ``xd_new``."""
    axd, apv, api, asig, anew = address(xd), address(pv), address(pi), address(sig), \
        address(xd_new)
    at = _i(api, UPDATE_AT)
    for k in range(_i(api, N_UPDATE)):
        r = at + UPDATE_WIDTH * k
        if not fired[_i(api, r + 1)]:
            continue
        start = _i(api, r + 2)
        if call_entry(_i(api, r), _i(api, r + 4), 0, t, axd + 8 * start, asig, apv, api,
                      api + 8 * _i(api, r + 3), anew + 8 * start) != 0:
            raise RuntimeError(ENTRY_FAILED, UPDATE_FAILED - k, t)


@njit(cache=True)
def crossings(t, x, xd, pv, pi, sig, g):
    """Every zero-crossing function into ``g``."""
    ax, axd, apv, api, asig, ag = address(x), address(xd), address(pv), address(pi), \
        address(sig), address(g)
    at = _i(api, CROSS_AT)
    for k in range(_i(api, N_CROSS)):
        r = at + CROSS_WIDTH * k
        if call_entry(_i(api, r), _i(api, r + 8), _i(api, r + 5), t,
                      _state(api, r + 1, ax, axd),
                      asig, apv, api, api + 8 * _i(api, r + 3),
                      ag + 8 * _i(api, r + 4)) != 0:
            raise RuntimeError(ENTRY_FAILED, CROSSING_FAILED - k, t)


@njit(cache=True)
def fire(t, x, xd, pv, pi, sig, mask, x_new, xd_new):
    """The events of the crossings in ``mask``: new states into ``x_new``/``xd_new``; returns
    whether a Stop block fired."""
    stop = False
    ax, axd, apv, api, asig = address(x), address(xd), address(pv), address(pi), address(sig)
    anew, adnew = address(x_new), address(xd_new)
    at = _i(api, CROSS_AT)
    for k in range(_i(api, N_CROSS)):
        r = at + CROSS_WIDTH * k
        offset, count, handler = _i(api, r + 4), _i(api, r + 5), _i(api, r + 6)
        for i in range(count):
            if not mask[offset + i]:
                continue
            if _i(api, r + 7) != 0:
                stop = True
            if handler != 0:
                target = adnew if _i(api, r + 1) == 1 else anew
                if call_entry(handler, _i(api, r + 9), i, t, _state(api, r + 1, ax, axd), asig,
                              apv, api, api + 8 * _i(api, r + 3),
                              target + 8 * _i(api, r + 2)) != 0:
                    raise RuntimeError(ENTRY_FAILED, EVENT_FAILED - k, t)
    return stop


__all__ = ["ENTRY_FAILED", "crossings", "evaluate", "fire", "rhs", "rhs_record", "update"]
