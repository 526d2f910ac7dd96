"""The numeric layout of a compiled plan for analysis, and its signals at an operating point.

Analysis works on flat float vectors: every signal (an output port's value, a float or an array)
is flattened to ``size`` numbers; the linear state is the continuous state ``x`` followed by the
discrete states of the clocked blocks (the states of ``EVENT``-mode blocks are modes, held at
their operating-point values). Names follow the results: a signal is ``"block.port"`` (element
``i`` of an array signal ``"block.port[i]"``), a state the plan's ``"block.x0"``.

:func:`evaluate_signals` computes every signal of a plan at (t, x, xd) in the plan's evaluation
order, with some signals replaced by given values (the root inputs of an operating point): it
is the analysis's own evaluator, independent of a run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from blocksim.engine.clock import Clock
from blocksim.engine.errors import BlocksimError, listing, plain, suggest
from blocksim.engine.plan import BlockEntry, Plan


class AnalysisError(BlocksimError, ValueError):
    """An analysis (trim, linearization, design) cannot be done: a bad name, an unsupported
    diagram (mixed rates), a singular algebraic loop; the message says which and why."""


def as_value(flat: np.ndarray, shape: tuple[int, ...]) -> Any:
    """A flat float vector as a signal value: a Python float for shape ``()``, else an array
    of ``shape``."""
    if shape == ():
        return float(flat[0])
    return np.asarray(flat, dtype=float).reshape(shape)


def flat(value: Any) -> np.ndarray:
    """A signal value as a flat float64 vector."""
    return np.asarray(value, dtype=float).reshape(-1)


@dataclass(frozen=True)
class Signal:
    """One output port of the plan, as a flat vector of ``size`` numbers."""

    slot: int
    name: str
    shape: tuple[int, ...]
    entry: int
    port: int

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(np.prod(self.shape, dtype=int))

    def labels(self) -> list[str]:
        """Element names: ``["block.port"]`` for a scalar, ``["block.port[0]", ...]``."""
        if self.shape == ():
            return [self.name]
        return [f"{self.name}[{i}]" for i in range(self.size)]


class Layout:
    """Signals, input ports and linear states of a plan, indexed for analysis.

    Parameters
    ----------
    plan : Plan
        The compiled diagram.

    Attributes
    ----------
    signals : list of Signal
        By slot.
    by_name : dict
        Signal name -> slot.
    inport : dict
        ``"block.in"`` -> (entry index, input port index), for every input port.
    dynamic : list of int
        Entries whose states are linear states (continuous, or discrete on a clock), in
        state order: continuous first, then discrete.
    """

    def __init__(self, plan: Plan):
        self.plan = plan
        self.signals: list[Signal] = [None] * len(plan.signal_names)  # type: ignore[list-item]
        self.inport: dict[str, tuple[int, int]] = {}
        for k, e in enumerate(plan.entries):
            for p, s in enumerate(e.out_slots):
                self.signals[s] = Signal(s, plan.signal_names[s], tuple(plan.signal_shapes[s]),
                                         k, p)
            for p, port in enumerate(e.block.inputs):  # type: ignore[union-attr]
                self.inport[f"{e.name}.{port.name}"] = (k, p)
        self.by_name = {s.name: s.slot for s in self.signals}
        cont = [k for k, e in enumerate(plan.entries) if not e.discrete and _n(e)]
        disc = [k for k, e in enumerate(plan.entries)
                if e.discrete and _n(e) and isinstance(e.block.clock, Clock)]
        self.dynamic = cont + disc
        self.n_continuous = sum(_n(plan.entries[k]) for k in cont)
        offsets, names, at = {}, [], 0
        for k in self.dynamic:
            e = plan.entries[k]
            offsets[k] = at
            at += _n(e)
            pool = plan.discrete_state_names if e.discrete else plan.state_names
            names += list(pool[e.states])
        #: entry -> offset of its states in the linear state vector
        self.state_offset = offsets
        #: names of the linear states, in order
        self.state_names = names
        #: discrete clocks of the plan's blocks (declared or inherited rates)
        self.rates = {e.rate for e in plan.entries if isinstance(e.rate, Clock)}

    @property
    def n(self) -> int:
        """Number of linear states."""
        return len(self.state_names)

    def signal(self, name: str, what: str) -> Signal:
        """The signal named ``name`` (an output port ``block.port``; an input port, meaning
        the signal that drives it; a subsystem's port ``sub.port``, meaning the signal of its
        Inport or Outport block ``sub/port``), or an :class:`AnalysisError` naming
        ``what``."""
        slot = self.by_name.get(name)
        if slot is None and name in self.inport:
            k, p = self.inport[name]
            slot = self.plan.entries[k].in_slots[p]
        if slot is None and isinstance(name, str) and "." in name:
            # a subsystem's port: its Inport/Outport block inside ("sub.u" -> "sub/u.y")
            sub, _, port = name.rpartition(".")
            slot = self.by_name.get(f"{sub}/{port}.y")
        if slot is None:
            raise AnalysisError(self.unknown(name, what))
        return self.signals[slot]

    def unknown(self, name: str, what: str) -> str:
        """Why ``name`` names no port: no such block, or no such port of it."""
        blocks = [e.name for e in self.plan.entries]
        if not isinstance(name, str) or "." not in name:
            return (f"{what} {plain(name)}: expected 'block.port' (an output or input port), "
                    f"e.g. '{self.signals[0].name if self.signals else 'block.y'}'")
        bname, _, port = name.rpartition(".")
        if bname not in blocks:
            return f"{what} '{name}': no block named '{bname}'{suggest(bname, blocks)}"
        e = self.plan.entries[blocks.index(bname)]
        ports = [p.name for p in e.block.outputs] + [  # type: ignore[union-attr]
            p.name for p in e.block.inputs]  # type: ignore[union-attr]
        return (f"{what} '{name}': block '{bname}' ({e.kind}) has no port '{port}'"
                f"{suggest(port, ports)}; ports: {listing(ports)}")

    def state_vector(self, x: np.ndarray, xd: np.ndarray) -> np.ndarray:
        """The linear state vector of the plan's ``x`` and ``xd``."""
        parts = [(xd if self.plan.entries[k].discrete else x)[self.plan.entries[k].states]
                 for k in self.dynamic]
        return np.concatenate(parts) if parts else np.zeros(0)

    def split_states(self, z: np.ndarray, x: np.ndarray, xd: np.ndarray) -> None:
        """Write the linear state vector ``z`` into ``x`` and ``xd`` (in place)."""
        for k in self.dynamic:
            e = self.plan.entries[k]
            o = self.state_offset[k]
            (xd if e.discrete else x)[e.states] = z[o:o + _n(e)]


def _n(e: BlockEntry) -> int:
    return e.states.stop - e.states.start


def state_index(plan: Plan) -> dict[str, tuple[bool, int]]:
    """State name -> (discrete, index into ``x`` or ``xd``), every state of the plan."""
    out = {n: (False, i) for i, n in enumerate(plan.state_names)}
    out.update({n: (True, i) for i, n in enumerate(plan.discrete_state_names)})
    return out


def resolve_states(plan: Plan, names: Iterable[str], what: str) -> list[tuple[bool, int]]:
    """``names`` (state names, or block names meaning all their states) as (discrete, index)
    pairs; an unknown name is an :class:`AnalysisError` with suggestions."""
    index = state_index(plan)
    out: list[tuple[bool, int]] = []
    for name in names:
        if name in index:
            out.append(index[name])
            continue
        mine = [v for k, v in index.items() if k.rsplit(".", 1)[0] == name]
        if mine:
            out += mine
            continue
        raise AnalysisError(f"{what} '{name}': no state of that name{suggest(name, index)}; "
                            f"states: {listing(list(index))}")
    return out


#: Newton iterations and tolerance of an algebraic loop solved while evaluating signals
LOOP_ITERATIONS = 50
LOOP_TOL = 1e-12


def evaluate_signals(plan: Plan, t: float, x: np.ndarray, xd: np.ndarray,
                     overrides: Mapping[int, Any] | None = None) -> list[Any]:
    """Every signal of ``plan`` at time ``t`` [s], continuous state ``x`` (nx,) and discrete
    state ``xd``: every block's ``output`` in evaluation order (discrete blocks as at a hit),
    a slot in ``overrides`` taking the given value instead of its block's.

    Raises
    ------
    AnalysisError
        A block's ``output`` raised: the block, its inputs and the error are named.
    """
    over = overrides or {}
    sig: list[Any] = [np.zeros(s) if s else 0.0 for s in plan.signal_shapes]
    loops = {lp.first: lp for lp in getattr(plan, "loops", ())}
    i = 0
    while i < len(plan.order):
        lp = loops.get(i)
        if lp is not None:
            _solve_loop(plan, lp, t, x, xd, over, sig)
            i = lp.stop
            continue
        _run_step(plan, plan.order[i], t, x, xd, over, sig)
        i += 1
    return sig


def _run_step(plan: Plan, step: Any, t: float, x: np.ndarray, xd: np.ndarray,
              over: Mapping[int, Any], sig: list[Any]) -> None:
    e = plan.entries[step.entry]
    u = [sig[s] for s in e.in_slots]
    xb = (xd if e.discrete else x)[e.states]
    try:
        y = e.block.output(t, xb, u)
    except Exception as exc:
        raise AnalysisError(f"block '{e.name}' ({e.kind}): output() raised "
                            f"{type(exc).__name__}: {exc} at t={t:g} s; its inputs were "
                            f"{_show_inputs(e, u)}") from exc
    for k in step.ports:
        s = e.out_slots[k]
        v = over[s] if s in over else y[k]
        sig[s] = float(v) if plan.signal_shapes[s] == () else np.asarray(v, dtype=float)


def _solve_loop(plan: Plan, lp: Any, t: float, x: np.ndarray, xd: np.ndarray,
                over: Mapping[int, Any], sig: list[Any]) -> None:
    """Solve an algebraic loop of the plan (steps ``lp.first:lp.stop`` from the torn slots
    ``lp.torn``: z = g(z)) by Newton's method with a central-difference Jacobian, leaving
    the solution's signals in ``sig``."""
    shapes = [plan.signal_shapes[s] for s in lp.torn]
    cuts = np.cumsum([0, *[int(np.prod(sh, dtype=int)) for sh in shapes]])
    steps = plan.order[lp.first:lp.stop]

    def g(z: np.ndarray) -> np.ndarray:
        for j, s in enumerate(lp.torn):
            sig[s] = as_value(z[cuts[j]:cuts[j + 1]], shapes[j])
        for step in steps:
            _run_step(plan, step, t, x, xd, over, sig)
        return np.concatenate([flat(sig[s]) for s in lp.torn]) - z

    z = np.concatenate([flat(sig[s]) for s in lp.torn])
    for _ in range(LOOP_ITERATIONS):
        r = g(z)
        if np.max(np.abs(r), initial=0.0) <= LOOP_TOL * (1.0 + np.max(np.abs(z), initial=0.0)):
            g(z)
            return
        J = np.empty((z.size, z.size))
        for j in range(z.size):
            h = 1e-6 * max(1.0, abs(z[j]))
            zp, zm = z.copy(), z.copy()
            zp[j] += h
            zm[j] -= h
            J[:, j] = (g(zp) - g(zm)) / (zp[j] - zm[j])
        try:
            z = z - np.linalg.solve(J, r)
        except np.linalg.LinAlgError:
            break
    raise AnalysisError(f"the algebraic loop {lp.text} did not converge at t={t:g} s "
                        f"(Newton's method, {LOOP_ITERATIONS} iterations)")


def _show_inputs(e: BlockEntry, u: Sequence[Any]) -> str:
    names = [p.name for p in e.block.inputs]  # type: ignore[union-attr]
    return ", ".join(f"{n}={plain(v)}" for n, v in zip(names, u)) or "(no inputs)"
