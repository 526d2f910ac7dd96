"""What a compiled run that fails says: the block, the port, the time and why.

* numba's typing errors become a :class:`CompileError` naming the diagram
  (:func:`typing_errors`), and a kernel that returns the wrong number of values is named as
  the interpreted back-end's dry run names it (:func:`kernel_result_problems`);
* a kernel that raises during the run becomes a ``BlockRuntimeError`` naming its block and the
  time (:func:`entry_errors`): on the wired tier from the entry's failure code, on the fused
  tier from where the run marked itself before the call (the slots after the parameters);
* a loop's status (NaN/Inf, step too small, Zeno, a run limit) becomes the matching
  ``SimulationError`` (:func:`member_error`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numba
import numpy as np

from blocksim.engine.compiled import ir
from blocksim.engine.compiled.kernels import kernels_of
from blocksim.engine.compiled.loop import LoopOptions, Status
from blocksim.engine.compiled.wired import ENTRY_FAILED
from blocksim.engine.errors import (
    BlockRuntimeError,
    BlocksimError,
    NonFiniteError,
    SolverError,
    ZenoError,
)
from blocksim.engine.limits import RunLimitError
from blocksim.engine.plan import Plan
from blocksim.engine.record import SimResult

if TYPE_CHECKING:
    from blocksim.engine.compiled.backend import Prepared


class CompileError(BlocksimError):
    """The diagram cannot run in the compiled back-end (lists the blocks and why)."""


@contextlib.contextmanager
def typing_errors(plan: Plan) -> Iterator[None]:
    """numba's typing errors (a kernel given input types it cannot take: e.g. a shape a block
    does not support in compiled code) as a CompileError naming the diagram."""
    try:
        yield
    except numba.core.errors.TypingError as exc:
        problems = kernel_result_problems(plan)
        if problems:  # a kernel that returns the wrong number of values: say which
            raise CompileError(f"the compiled back-end cannot compile diagram '{plan.name}': "
                               + "; ".join(problems)) from None
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
        raise CompileError(f"the compiled back-end cannot compile diagram '{plan.name}': a "
                           f"kernel got input types it does not take (check the blocks' port "
                           f"shapes, or run it with backend='interpreted'); numba's message "
                           f"follows:\n{text}") from None


def kernel_result_problems(plan: Plan, only: str | None = None) -> list[str]:
    """Each block whose compiled ``output``/``deriv``/``update`` kernel, called once from
    Python at t = 0 (its initial state, zero inputs of its ports' shapes), returns another
    number of values than the block has output ports or states, or cannot be called at all:
    the messages the interpreted back-end's dry run gives for its methods. Run only after a
    compile failed (it may compile the kernels once more)."""
    problems = []
    for e in plan.entries:
        k = kernels_of(e.block)
        if k is None or k.routes is not None or only not in (None, e.name):
            continue
        x = np.ascontiguousarray((plan.xd0 if e.discrete else plan.x0)[e.states], dtype=float)
        u = [np.zeros(plan.signal_shapes[s]) if plan.signal_shapes[s] else 0.0
             for s in e.in_slots]
        expected = (("output", len(e.block.outputs), "output ports"),
                    ("update" if e.discrete else "deriv", x.size, "states"))
        for method, n, what in expected:
            kernel = getattr(k, method)
            if kernel is None or (method != "output" and n == 0):
                continue
            try:
                got = kernel(0.0, x, *u, k.params)
            except numba.core.errors.TypingError as exc:  # the kernel cannot be typed
                first = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip().splitlines()
                problems.append(f"block '{e.name}' ({e.kind}): its {method} kernel cannot be "
                                f"called with the block's initial state and inputs: "
                                f"{type(exc).__name__}: {first[0] if first else ''}")
                continue
            except Exception:  # zero inputs may be outside what it takes: not a finding
                continue
            if method == "output":  # one value (a float or an array) per port
                size = len(got) if isinstance(got, tuple) and n > 1 else 1
            else:
                size = len(got) if isinstance(got, tuple) else int(np.size(got))
            if size != n:
                problems.append(f"block '{e.name}' ({e.kind}): its compiled {method} kernel "
                                f"returned {size} values for {n} {what}")
    return problems


@contextlib.contextmanager
def entry_errors(plan: Plan, prep: Prepared) -> Iterator[None]:
    """A block whose kernel failed as a BlockRuntimeError naming the block and the time: on
    the wired tier from the entry's failure code, on the fused tier from the
    :class:`~blocksim.engine.compiled.loop.KernelFailed` its code raises around each call; a
    kernel whose result has too few values is named as the interpreted dry run names it."""
    try:
        yield
    except IndexError:  # the fused tier: a kernel's result indexed past its end?
        problems = kernel_result_problems(plan)
        if not problems:
            raise
        name = problems[0].split("'")[1]
        raise BlockRuntimeError(problems[0], block=name, time=0.0) from None
    except (ValueError, ArithmeticError, AssertionError) as exc:  # the fused tier
        _raise_named(plan, exc)
        raise
    except RuntimeError as exc:
        if prep.wiring is None or not exc.args or exc.args[0] != ENTRY_FAILED:
            raise
        _raise_failed(plan, prep.wiring.entry_of(int(exc.args[1])), float(exc.args[2]))


def _raise_named(plan: Plan, exc: BaseException) -> None:
    """A fused run's kernel exception as a BlockRuntimeError when its message names the kind
    of exactly one block of the diagram ("EKF: landmark id ..."): the fused code calls the
    kernels with no bookkeeping (any, per call, cost 4x on a small diagram), so the block is
    known only from the message, and the time not at all; otherwise the exception stays."""
    args = list(exc.args)
    if not args or not isinstance(args[0], str):
        return
    kind = args[0].split(":", 1)[0].strip()
    named = [e for e in plan.entries if e.kind == kind]
    if len(named) != 1:
        return
    text = args[0] + (" " + ", ".join(str(a) for a in args[1:]) if args[1:] else "")
    raise BlockRuntimeError(f"block '{named[0].name}' ({kind}): its compiled kernel raised "
                            f"{type(exc).__name__}: {text} (run the diagram with fuse=False "
                            f"to learn the time)", block=named[0].name) from None


def _raise_failed(plan: Plan, entry: int, t: float) -> None:
    """Raise the BlockRuntimeError of the plan entry ``entry`` whose kernel raised at ``t``."""
    e = plan.entries[entry]
    problems = kernel_result_problems(plan, e.name)
    if problems:
        raise BlockRuntimeError(problems[0], block=e.name, time=t) from None
    raise BlockRuntimeError(
        f"block '{e.name}' ({e.kind}): its compiled kernel raised an exception at t={t:.6g} s "
        f"(compiled code cannot show the kernel's message: run the diagram with "
        f"backend='interpreted' to see it)", block=e.name, time=t) from None


def member_error(plan: Plan, program: ir.Program, status: Status, t: float,
                 s_rec: np.ndarray, x_rec: np.ndarray, opts: LoopOptions,
                 result: SimResult | None, nsteps: int | None = None) -> BlocksimError | None:
    """The error of a run that ended with ``status`` at ``t`` (None for DONE/STOPPED);
    ``nsteps``, the steps taken, tells a LIMIT of steps from one of recorded rows (a batch
    records major times only: its LIMIT is of steps)."""
    if status is Status.ZENO:
        chatter = [e.name for e in plan.entries if e.block.crossing_directions]
        names = ", ".join(f"'{c}'" for c in chatter)
        return ZenoError(f"block {names} is chattering: {opts.zeno_count} events within "
                         f"{opts.zeno_dt:.3g} s of each other up to t={t:.9g} s (Zeno "
                         f"behaviour)", result=result, block=chatter[0] if chatter else None,
                         time=t)
    if status is Status.NONFINITE:
        return _non_finite(plan, program, s_rec, x_rec, t, result)
    if status is Status.LIMIT:
        if nsteps is None or nsteps >= opts.max_steps:
            return RunLimitError(
                f"the solver took more than max_steps = {opts.max_steps} steps by t = "
                f"{t:.6g} s (raise the limit with max_steps= or --max-steps, or bound the "
                f"work: max_step, rtol)", result=result, time=t, limit="max_steps")
        return RunLimitError(
            f"the recording reached {opts.max_rows} points by t = {t:.6g} s, the most "
            f"max_memory allows (raise it with max_memory= or --max-memory, or record less: "
            f"record_dt)", result=result, time=t, limit="max_memory")
    if status is Status.STEP_TOO_SMALL:
        return SolverError(f"compiled Dormand-Prince: required step size below the spacing of "
                           f"floating-point numbers after t={t:.9g} s; try a stiff solver in "
                           f"the interpreted back-end", result=result, time=t)
    return None


def _non_finite(plan: Plan, program: ir.Program, s_rec: np.ndarray, x_rec: np.ndarray,
                t: float, result: SimResult | None) -> NonFiniteError:
    last = s_rec[-1]

    def finite_inputs(e: Any) -> bool:
        return all(np.all(np.isfinite(np.asarray(_value(last, program.signals[slot]))))
                   for slot in e.in_slots)

    # the block where the NaN or Inf began (finite inputs) first, else the first one carrying it
    for step in [s for s in plan.order if finite_inputs(plan.entries[s.entry])] + [*plan.order]:
        e = plan.entries[step.entry]
        for p in step.ports:
            sig = program.signals[e.out_slots[p]]
            values = last[sig.start:sig.start + sig.size]
            if not np.all(np.isfinite(values)):
                port = sig.name.rsplit(".", 1)[1]
                bad = values[~np.isfinite(values)][0]
                inputs = ", ".join(
                    f"{p.name}={_value(last, program.signals[slot])!r}"
                    for p, slot in zip(e.block.inputs, e.in_slots)) or "(no inputs)"
                return NonFiniteError(f"signal '{sig.name}' ({e.kind}) is {bad} at "
                                      f"t={t:.6g} s: a NaN or Inf left block '{e.name}' through "
                                      f"port '{port}'; its inputs were {inputs}",
                                      result=result, block=e.name, port=port, time=t)
    bad = np.flatnonzero(~np.isfinite(x_rec[-1]))
    if bad.size == 0:  # only an intermediate stage of the last step was not finite
        return NonFiniteError(f"a NaN or Inf appeared in a derivative within the step that "
                              f"ends at t={t:.6g} s", result=result, time=t)
    name = plan.state_names[int(bad[0])]
    return NonFiniteError(f"state '{name}' became {x_rec[-1, bad[0]]} at t={t:.6g} s",
                          result=result, block=name.rsplit(".", 1)[0], time=t)


def _value(row: np.ndarray, sig: ir.Signal) -> Any:
    """A signal's value in a recorded row: a float, or an array of its shape."""
    v = row[sig.start:sig.start + sig.size]
    return float(v[0]) if not sig.shape else v.reshape(sig.shape)


__all__ = ["CompileError", "entry_errors", "kernel_result_problems", "member_error",
           "typing_errors"]
