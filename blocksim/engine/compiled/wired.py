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
statement)``; the back-end names the block.
"""

from __future__ import annotations

from numba import njit

from blocksim.engine.compiled.entry import address, call_entry, load_f8, store_f8

#: the message of the RuntimeError raised when a block entry fails
ENTRY_FAILED = "blocksim: a block's compiled kernel raised"

# header of the program (indices into pi)
LENGTH, N_EVAL, EVAL_AT, N_DERIV, DERIV_AT, N_UPDATE, UPDATE_AT, N_CROSS, CROSS_AT = range(9)
HEADER = 9
# evaluation records: kind, rate, clock, entry, state vector, state start, meta at, (unused)
EVAL_WIDTH = 8
CALL, ROUTE = 0, 1
MINOR, CONTINUOUS, CLOCK, CONSTANT = 0, 1, 2, 3
# derivative records: entry, state start, meta at, nx
DERIV_WIDTH = 4
# update records: entry, clock, state start, meta at
UPDATE_WIDTH = 4
# crossing records: entry, state vector, state start, meta at, g offset, count, handler, stops
CROSS_WIDTH = 8
# entry ops (blocksim.engine.compiled.entry.Op)
_OUTPUT, _DERIV, _UPDATE, _CROSSINGS, _ON_EVENT = 0, 1, 2, 3, 4


@njit(cache=True, inline="always")
def _state(pi, r, x, xd):
    """The address of the state of the record at ``r`` (vector at ``r``, start at ``r + 1``)."""
    if pi[r] == 1:
        return address(xd) + 8 * pi[r + 1]
    return address(x) + 8 * pi[r + 1]


@njit(cache=True, inline="always")
def _statement(t, x, xd, pv, pi, sig, k):
    """Run evaluation record ``k`` (a block's output entry, or a route)."""
    r = pi[EVAL_AT] + EVAL_WIDTH * k
    s = address(sig)
    meta = address(pi) + 8 * pi[r + 6]
    if pi[r] == ROUTE:  # meta: out offset, n, source offsets
        m = pi[r + 6]
        out = pi[m]
        for j in range(pi[m + 1]):
            store_f8(s + 8 * (out + j), load_f8(s + 8 * pi[m + 2 + j]))
        return
    status = call_entry(pi[r + 3], _OUTPUT, 0, t, _state(pi, r + 4, x, xd), s, address(pv),
                        address(pi), meta, 0)
    if status != 0:
        raise RuntimeError(ENTRY_FAILED, k)


@njit(cache=True)
def evaluate(t, x, xd, pv, pi, sig, mode, fired):
    """The outputs at ``t`` in evaluation order (``mode`` as in the fused tier: RECORD 1, HIT
    2, INIT 3), stored in ``sig``; signals not recomputed keep their held values."""
    for k in range(pi[N_EVAL]):
        r = pi[EVAL_AT] + EVAL_WIDTH * k
        rate = pi[r + 1]
        if rate == CLOCK:
            if not (mode == 3 or (mode == 2 and fired[pi[r + 2]])):
                continue
        elif rate == CONSTANT and mode != 3:
            continue
        _statement(t, x, xd, pv, pi, sig, k)


@njit(cache=True, inline="always")
def _derivatives(t, x, xd, pv, pi, sig, dx):
    s = address(sig)
    for k in range(pi[N_DERIV]):
        r = pi[DERIV_AT] + DERIV_WIDTH * k
        start = pi[r + 1]
        status = call_entry(pi[r], _DERIV, 0, t, address(x) + 8 * start, s, address(pv),
                            address(pi), address(pi) + 8 * pi[r + 2], address(dx) + 8 * start)
        if status != 0:
            raise RuntimeError(ENTRY_FAILED, -1 - k)


@njit(cache=True)
def rhs(t, x, xd, pv, pi, sig, dx):
    """A solver stage: the statements that feed derivatives, then every derivative."""
    for k in range(pi[N_EVAL]):
        if pi[pi[EVAL_AT] + EVAL_WIDTH * k + 1] == MINOR:
            _statement(t, x, xd, pv, pi, sig, k)
    _derivatives(t, x, xd, pv, pi, sig, dx)


@njit(cache=True)
def rhs_record(t, x, xd, pv, pi, sig, dx):
    """:func:`rhs` with every continuous-rate output (a row to record)."""
    for k in range(pi[N_EVAL]):
        if pi[pi[EVAL_AT] + EVAL_WIDTH * k + 1] <= CONTINUOUS:
            _statement(t, x, xd, pv, pi, sig, k)
    _derivatives(t, x, xd, pv, pi, sig, dx)


@njit(cache=True)
def update(t, x, xd, pv, pi, sig, fired, xd_new):
    """The discrete updates of the fired clocks into ``xd_new``."""
    s = address(sig)
    for k in range(pi[N_UPDATE]):
        r = pi[UPDATE_AT] + UPDATE_WIDTH * k
        if not fired[pi[r + 1]]:
            continue
        start = pi[r + 2]
        status = call_entry(pi[r], _UPDATE, 0, t, address(xd) + 8 * start, s, address(pv),
                            address(pi), address(pi) + 8 * pi[r + 3],
                            address(xd_new) + 8 * start)
        if status != 0:
            raise RuntimeError(ENTRY_FAILED, -1000000 - k)


@njit(cache=True)
def crossings(t, x, xd, pv, pi, sig, g):
    """Every zero-crossing function into ``g``."""
    s = address(sig)
    for k in range(pi[N_CROSS]):
        r = pi[CROSS_AT] + CROSS_WIDTH * k
        status = call_entry(pi[r], _CROSSINGS, pi[r + 5], t, _state(pi, r + 1, x, xd), s,
                            address(pv), address(pi), address(pi) + 8 * pi[r + 3],
                            address(g) + 8 * pi[r + 4])
        if status != 0:
            raise RuntimeError(ENTRY_FAILED, -2000000 - k)


@njit(cache=True)
def fire(t, x, xd, pv, pi, sig, mask, x_new, xd_new):
    """The events of the crossings in ``mask``: new states into ``x_new``/``xd_new``; returns
    whether a Stop block fired."""
    stop = False
    s = address(sig)
    for k in range(pi[N_CROSS]):
        r = pi[CROSS_AT] + CROSS_WIDTH * k
        offset, count, handler = pi[r + 4], pi[r + 5], pi[r + 6]
        for i in range(count):
            if not mask[offset + i]:
                continue
            if pi[r + 7] != 0:
                stop = True
            if handler != 0:
                target = address(xd_new) if pi[r + 1] == 1 else address(x_new)
                status = call_entry(handler, _ON_EVENT, i, t, _state(pi, r + 1, x, xd), s,
                                    address(pv), address(pi), address(pi) + 8 * pi[r + 3],
                                    target + 8 * pi[r + 2])
                if status != 0:
                    raise RuntimeError(ENTRY_FAILED, -3000000 - k)
    return stop


__all__ = ["ENTRY_FAILED", "crossings", "evaluate", "fire", "rhs", "rhs_record", "update"]
