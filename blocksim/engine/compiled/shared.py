"""The integration loops compiled once for every diagram (first-class function arguments).

``run`` and ``run_batch`` take a diagram's generated functions as numba first-class functions
of the fixed signatures of :mod:`blocksim.engine.compiled.signatures`, so they are compiled
once per installation (explicit signatures: compiled, or loaded from numba's cache, when this
module is imported) and a new diagram compiles only its own small functions. They are kept
apart from the loop bodies (:mod:`~blocksim.engine.compiled.loops`,
:mod:`~blocksim.engine.compiled.batch_loop`) so that a diagram's own specialised loop, which
imports the bodies, does not pay for loading these.
"""

from numba import njit, types

from blocksim.engine.compiled.batch_loop import batch_impl
from blocksim.engine.compiled.loops import run_impl
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

RUN = types.Tuple((types.int64, A8, types.float64[:, ::1], types.float64[:, ::1], types.int64,
                   types.int64, types.int64, types.int64))(
    types.FunctionType(EVALUATE), types.FunctionType(RHS), types.FunctionType(UPDATE),
    types.FunctionType(CROSSINGS), types.FunctionType(FIRE), A8, I8, A8, A8, A8, A8,
    types.boolean[:, ::1], types.int64, F8, F8, F8, F8, types.int64, types.boolean, I8, B1, F8,
    F8, types.int64)

RUN_BATCH = types.Tuple((types.float64[:, ::1], types.float64[:, :, ::1],
                         types.float64[:, :, ::1], types.int64[::1], types.int64[::1]))(
    types.FunctionType(EVALUATE), types.FunctionType(RHS), types.FunctionType(UPDATE),
    types.FunctionType(CROSSINGS), types.FunctionType(FIRE), types.float64[:, ::1],
    types.int64[:, ::1], types.float64[:, ::1], types.float64[:, ::1], A8, A8,
    types.boolean[:, ::1], types.int64, F8, F8, F8, F8, I8, B1, F8, F8, types.int64)


@njit(RUN, cache=True)
def run(evaluate, rhs, update, crossings, fire, pv, pi, x0, xd0, sig0, times, fired_rows,
        method, dt, rtol, atol, max_step, cap, record_steps, directions, stop_mask, event_tol,
        zeno_dt, zeno_count):
    """The loop compiled once for every diagram (first-class function arguments)."""
    return run_impl(evaluate, rhs, update, crossings, fire, pv, pi, x0, xd0, sig0, times,
                    fired_rows, method, dt, rtol, atol, max_step, cap, record_steps,
                    directions, stop_mask, event_tol, zeno_dt, zeno_count)


@njit(RUN_BATCH, cache=True)
def run_batch(evaluate, rhs, update, crossings, fire, PV, PI, X0, XD0, sig0, times, fired_rows,
              method, dt, rtol, atol, max_step, directions, stop_mask, event_tol, zeno_dt,
              zeno_count):
    """The ensemble loop compiled once for every diagram (first-class function arguments)."""
    return batch_impl(evaluate, rhs, update, crossings, fire, PV, PI, X0, XD0, sig0, times,
                      fired_rows, method, dt, rtol, atol, max_step, directions, stop_mask,
                      event_tol, zeno_dt, zeno_count)
