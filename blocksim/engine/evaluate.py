"""Evaluating a plan: outputs in order, derivatives, discrete updates.

The :class:`Evaluator` owns the signal store of one run (a flat Python list, one slot per output
port) and turns the plan's steps into tuples of bound methods and slot indices, so the hot loop
does no name lookup and allocates only the small input tuples the block methods receive.
Scalar signals stay Python floats. No scipy, no I/O here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from operator import itemgetter
from typing import Any

import numpy as np

from blocksim.engine.errors import AlgebraicLoopError, BlockRuntimeError, NonFiniteError, plain
from blocksim.engine.plan import BlockEntry, Plan

_EMPTY = np.zeros(0)
_EMPTY.setflags(write=False)


def _input_getter(slots: tuple[int, ...]) -> Callable[[list[Any]], tuple[Any, ...]]:
    """A fast function ``sig -> tuple of the values in slots``."""
    if not slots:
        return lambda sig: ()
    if len(slots) == 1:
        (i,) = slots
        return lambda sig: (sig[i],)
    return itemgetter(*slots)


class Evaluator:
    """Evaluates the blocks of a plan over one run's signal store.

    Parameters
    ----------
    plan : Plan
        The compiled diagram.

    Attributes
    ----------
    sig : list
        The signal store: ``sig[slot]`` is the latest value of that output port.
    """

    def __init__(self, plan: Plan):
        self.plan = plan
        # before a signal is first computed, a block output that does not read it (fed back
        # to a stateful block) may still be handed it: zeros of the signal's shape
        self.sig: list[Any] = [np.zeros(shape) if shape else 0.0
                               for shape in plan.signal_shapes]
        self._steps = []
        rates = []
        for step in plan.order:
            e = plan.entries[step.entry]
            outs = tuple((k, e.out_slots[k]) for k in step.ports)
            single = outs[0][1] if outs == ((0, e.out_slots[0]),) and len(e.out_slots) == 1 \
                else -1
            st = e.states if e.states.stop > e.states.start else None
            self._steps.append((e.block.output, st, e.discrete, _input_getter(e.in_slots),
                                single, outs, step.entry))
            rates.append(e.rate)
        #: one step per step of the plan's order (the diagnostics walk them)
        self._order_steps = list(self._steps)
        self._steps, rates = self._grouped(self._steps, rates)
        self._rates = rates
        shapes = plan.signal_shapes
        scalar = [s for s in range(len(shapes)) if shapes[s] == ()]
        self._scalar_slots = _input_getter(tuple(scalar)) if len(scalar) > 1 else (
            (lambda sig: (sig[scalar[0]],)) if scalar else (lambda sig: ()))
        self._array_slots = [s for s in range(len(shapes)) if shapes[s] != ()]
        #: the steps of every evaluation between sample hits: continuous-rate blocks only
        self._continuous = [s for s, r in zip(self._steps, rates) if r == "continuous"]
        self._at_hits: dict[Any, list[Any]] = {}
        self._derivs = [(e.block.deriv, e.states, _input_getter(e.in_slots), k)
                        for k, e in enumerate(plan.entries)
                        if not e.discrete and e.states.stop > e.states.start]
        nx = plan.x0.size
        self._one_deriv = None
        if len(self._derivs) == 1 and self._derivs[0][1] == slice(0, nx):
            fn, _, ug, k = self._derivs[0]
            self._one_deriv = (fn, ug, k)
        self._updates = [(e.block.update, e.states, _input_getter(e.in_slots), k)
                         for k, e in enumerate(plan.entries)
                         if e.discrete and e.states.stop > e.states.start
                         and e.block.clock == e.rate]
        #: blocks with zero crossings: (method, state slice or None, discrete, input getter,
        #: entry index, directions); ``crossing_owner[i]`` is (entry, which, direction) of the
        #: i-th value returned by :meth:`crossings`
        self._zc = []
        self.crossing_owner: list[tuple[int, int, int]] = []
        for k, e in enumerate(plan.entries):
            dirs = tuple(int(d) for d in e.block.crossing_directions)
            if dirs:
                st = e.states if e.states.stop > e.states.start else None
                self._zc.append((e.block.zero_crossings, st, e.discrete,
                                 _input_getter(e.in_slots), k, dirs))
                self.crossing_owner += [(k, i, d) for i, d in enumerate(dirs)]
        # Inside a solver step only the blocks that feed derivatives or zero crossings are
        # needed ("minor" steps); the rest are computed when a point is recorded.
        needed: set[int] = set()
        for _, _, _, k in self._derivs:
            needed.update(plan.entries[k].in_slots)
        for *_, k, _ in self._zc:
            needed.update(plan.entries[k].in_slots)
        minor_ids: set[int] = set()
        for step in reversed(self._continuous):
            if any(s in needed for s in self._writes(step)):
                minor_ids.add(id(step))
                needed.update(self._reads(step))
        self._minor = [s for s in self._continuous if id(s) in minor_ids]
        self._rest = [s for s in self._continuous if id(s) not in minor_ids]

    def _grouped(self, steps: list[Any], rates: list[Any]) -> tuple[list[Any], list[Any]]:
        """The steps the evaluations walk, and their rates: the plan's own (a subclass
        solves algebraic loops as one step: :class:`blocksim.engine.loops.LoopEvaluator`)."""
        return steps, rates

    def _writes(self, step: Any) -> list[int]:
        """The slots a step stores."""
        return [s for _, s in step[5]]

    def _reads(self, step: Any) -> tuple[int, ...]:
        """The slots a step reads."""
        return self.plan.entries[step[6]].in_slots

    # ---------------------------------------------------------------- hot path
    def outputs_all(self, t: float, x: np.ndarray, xd: np.ndarray) -> None:
        """Compute every block's outputs (the initial pass at t = 0)."""
        self.outputs(t, x, xd, self._steps)

    def outputs_at_hit(self, t: float, x: np.ndarray, xd: np.ndarray,
                       fired: frozenset[Any]) -> None:
        """Outputs of continuous-rate blocks and of the blocks on the ``fired`` clocks."""
        steps = self._at_hits.get(fired)
        if steps is None:
            steps = self._at_hits[fired] = [
                s for s, r in zip(self._steps, self._rates) if r == "continuous" or r in fired]
        self.outputs(t, x, xd, steps)

    def outputs_minor(self, t: float, x: np.ndarray, xd: np.ndarray) -> None:
        """Only the outputs that derivatives and zero crossings need (inside solver steps)."""
        if self._minor:
            self.outputs(t, x, xd, self._minor)

    def outputs_rest(self, t: float, x: np.ndarray, xd: np.ndarray) -> None:
        """The continuous-rate outputs that :meth:`outputs_minor` leaves out."""
        if self._rest:
            self.outputs(t, x, xd, self._rest)

    def outputs(self, t: float, x: np.ndarray, xd: np.ndarray,
                steps: list[Any] | None = None) -> None:
        """Compute outputs at time ``t`` into the signal store, in evaluation order: by default
        those of continuous-rate blocks (discrete outputs are held between their hits)."""
        sig = self.sig
        ei = None
        try:
            # ei names the culprit in the except clause
            for fn, st, disc, ug, single, outs, ei in (  # noqa: B007
                    self._continuous if steps is None else steps):
                if st is None:
                    y = fn(t, _EMPTY, ug(sig))
                elif disc:
                    y = fn(t, xd[st], ug(sig))
                else:
                    y = fn(t, x[st], ug(sig))
                if single >= 0:
                    sig[single] = y[0]
                else:
                    for k, s in outs:
                        sig[s] = y[k]
        except Exception as exc:
            raise self._block_failure("output", t, exc, ei) from exc

    def derivatives(self, t: float, x: np.ndarray, xd: np.ndarray) -> Any:
        """dx/dt of the whole continuous state (a sequence of nx floats), given outputs
        already computed at (t, x)."""
        sig = self.sig
        if self._one_deriv is not None:  # one continuous block owns the whole state
            fn, ug, k = self._one_deriv
            try:
                out = fn(t, x, ug(sig))
            except Exception as exc:
                raise self._block_failure("deriv", t, exc, k) from exc
            total = sum(out)
            if total - total != 0.0:
                self._non_finite_derivative(t, list(out))
            return out
        out: list[Any] = []
        extend = out.extend  # not `out +=`: list += ndarray broadcasts instead of extending
        ei = None
        try:
            for fn, st, ug, ei in self._derivs:  # noqa: B007 - ei names the culprit
                extend(fn(t, x[st], ug(sig)))
        except Exception as exc:
            raise self._block_failure("deriv", t, exc, ei) from exc
        total = sum(out)
        if total - total != 0.0:
            self._non_finite_derivative(t, out)
        return out

    def crossings(self, t: float, x: np.ndarray, xd: np.ndarray) -> list[float]:
        """All zero-crossing values at (t, x), outputs already computed there."""
        sig = self.sig
        out: list[float] = []
        for fn, st, disc, ug, k, dirs in self._zc:
            xb = _EMPTY if st is None else (xd[st] if disc else x[st])
            try:
                g = fn(t, xb, ug(sig))
            except Exception as exc:
                raise self._block_failure("zero_crossings", t, exc, k) from exc
            if len(g) != len(dirs):
                e = self.plan.entries[k]
                raise BlockRuntimeError(
                    f"block '{e.name}' ({e.kind}): zero_crossings() returned {len(g)} values "
                    f"but crossing_directions declares {len(dirs)}", block=e.name, time=t)
            out.extend(float(v) for v in g)
        return out

    # ---------------------------------------------------------------- major steps
    def update(self, t: float, xd: np.ndarray, entries: set[int] | None = None) -> np.ndarray:
        """The discrete state after the updates of the blocks in ``entries`` (all if None).

        Every block reads the pre-update outputs: new states are computed first, then applied.
        """
        sig = self.sig
        new = xd.copy()
        for fn, st, ug, k in self._updates:
            if entries is not None and k not in entries:
                continue
            try:
                value = fn(t, xd[st], ug(sig))
            except Exception as exc:
                raise self._block_failure("update", t, exc, k) from exc
            new[st] = value
        return new

    def check_finite(self, t: float, x: np.ndarray) -> None:
        """Raise NonFiniteError naming the first non-finite signal (in evaluation order) or
        state."""
        self.check_signals(t)
        if x.size and not math.isfinite(sum(x.tolist())) and not np.all(np.isfinite(x)):
            i = int(np.flatnonzero(~np.isfinite(x))[0])
            name = self.plan.state_names[i]
            raise NonFiniteError(f"state '{name}' became {x[i]} at t={t:.6g} s",
                                 block=name.rsplit(".", 1)[0], time=t)

    def check_signals(self, t: float) -> None:
        """Raise NonFiniteError naming the first non-finite signal in evaluation order (the
        block where the NaN or Inf appeared, not the blocks it then spread to)."""
        sig = self.sig
        total = sum(self._scalar_slots(sig))
        if total - total == 0.0 and (not self._array_slots or all(
                np.isfinite(sig[s]).all() for s in self._array_slots)):
            return  # the common case, in about a microsecond
        for *_, outs, k in self._order_steps:
            for _, s in outs:
                v = sig[s]
                if isinstance(v, float):
                    if v - v != 0.0:
                        self._raise_signal(t, k, s, v)
                elif not np.all(np.isfinite(v)):
                    self._raise_signal(t, k, s, v)

    # ---------------------------------------------------------------- diagnostics
    def _raise_signal(self, t: float, k: int, s: int, v: Any) -> None:
        e: BlockEntry = self.plan.entries[k]
        name = self.plan.signal_names[s]
        port = name.rsplit(".", 1)[1]
        raise NonFiniteError(
            f"signal '{name}' ({e.kind}) is {v} at t={t:.6g} s: a NaN or Inf left block "
            f"'{e.name}' through port '{port}'; its inputs were "
            f"{self._describe_inputs(e)}", block=e.name, port=port, time=t)

    def _non_finite_derivative(self, t: float, out: list[Any]) -> None:
        self.check_signals(t)
        for _, st, _, k in self._derivs:
            part = out[st]
            if not all(math.isfinite(float(v)) for v in part):
                e = self.plan.entries[k]
                raise NonFiniteError(
                    f"block '{e.name}' ({e.kind}): deriv() returned {list(map(float, part))} "
                    f"at t={t:.6g} s (NaN or Inf); its inputs were {self._describe_inputs(e)}",
                    block=e.name, time=t)

    def _describe_inputs(self, e: BlockEntry) -> str:
        ins = [p.name for p in e.block.inputs]  # type: ignore[union-attr]
        parts = [f"{n}={plain(self.sig[s])}" for n, s in zip(ins, e.in_slots)]
        return ", ".join(parts) or "(no inputs)"

    def _block_failure(self, method: str, t: float, exc: Exception,
                       k: int | None) -> BlockRuntimeError:
        if isinstance(exc, BlockRuntimeError | NonFiniteError | AlgebraicLoopError):
            return exc  # type: ignore[return-value]
        if k is None:
            return BlockRuntimeError(f"{method}() failed at t={t:.6g} s: {exc!r}", time=t)
        e = self.plan.entries[k]
        return BlockRuntimeError(
            f"block '{e.name}' ({e.kind}): {method}() raised {type(exc).__name__}: {exc} at "
            f"t={t:.6g} s; its inputs were {self._describe_inputs(e)}", block=e.name, time=t)
