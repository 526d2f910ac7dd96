"""The intermediate form of a compiled diagram: a plan as a list of statements.

:func:`build` turns a :class:`~blocksim.engine.plan.Plan` and its blocks' kernels into a
:class:`Program`: data, not text. Each statement is one of

* :class:`Call` — call a block's kernel (``output``, ``deriv``, ``update``, ``crossings`` or
  ``on_event``) on its state slice, its input signals and its parameters;
* :class:`Route` — make an output signal from pieces of input signals (a routing block:
  Inport, Outport, Mux, Demux, Selector, ...): an alias or element copies, no call.

Every evaluation statement carries its :class:`Rate` (when it runs). The passes over this data
live here too: which statements feed the derivatives (:func:`minor_statements`), which signals
a function reads before it computes them (:func:`held_reads`), which blocks' parameters it
needs (:func:`params_used`); :mod:`blocksim.engine.compiled.render` is the one renderer.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from blocksim.engine.clock import Clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.plan import Plan

#: elements after the signals in ``sig`` of a program with loops: the first loop failure
#: (its number + 1, the time, the residual, the iterations), recorded with every row
LOOP_ROW = 4


class Rate(Enum):
    """When an evaluation statement runs (see ``evaluate``'s ``mode`` in render.py)."""

    MINOR = "minor"  # continuous rate and feeds the derivatives: in every evaluation
    CONTINUOUS = "continuous"  # continuous rate, feeds no derivative: not inside solver stages
    CLOCK = "clock"  # at its clock's hits (held in between)
    CONSTANT = "constant"  # once, at t = 0


@dataclass(frozen=True)
class Signal:
    """One signal of the flat buffer ``sig``: its identifier, place and shape."""

    name: str  # "block.port"
    ident: str  # a Python identifier for it in the generated code
    start: int
    size: int
    shape: tuple[int, ...]


@dataclass(frozen=True)
class State:
    """A block's slice of ``x`` (continuous) or ``xd`` (discrete)."""

    vector: str  # "x" or "xd"
    start: int
    stop: int


@dataclass(frozen=True)
class Call:
    """``outs = kernel(t, state, *ins, params)``.

    ``what`` names the kernel (``"output"``, ``"deriv"``, ``"update"``, ``"crossings"``,
    ``"on_event"``); ``outs`` are the signals an output call assigns (every output port);
    ``stores`` those it writes back to the buffer (the ports of this evaluation step).
    """

    entry: int
    what: str
    kernel: tuple[str, str]  # (module, attribute) of the numba dispatcher
    state: State | None
    ins: tuple[int, ...]
    outs: tuple[int, ...] = ()
    stores: tuple[int, ...] = ()
    rate: Rate = Rate.MINOR
    clock: int = -1  # clock index for Rate.CLOCK and for updates


@dataclass(frozen=True)
class Route:
    """``out = concatenate(pieces)`` reshaped to the output's shape; a piece is ``(signal,
    flat indices or None for all of it)``."""

    entry: int
    out: int
    pieces: tuple[tuple[int, tuple[int, ...] | None], ...]
    rate: Rate = Rate.MINOR
    clock: int = -1

    @property
    def ins(self) -> tuple[int, ...]:
        return tuple(s for s, _ in self.pieces)

    @property
    def outs(self) -> tuple[int, ...]:
        return (self.out,)

    @property
    def stores(self) -> tuple[int, ...]:
        return (self.out,)


@dataclass(frozen=True)
class Loop:
    """An algebraic loop solved by Newton's method (``plan.loops[index]``): the ``body``
    statements, run from the tear variables in the ``torn`` signals, give ``g(z)`` there;
    the generated code iterates to ``z = g(z)`` (:mod:`blocksim.engine.compiled.loop_code`)."""

    index: int
    torn: tuple[int, ...]
    body: tuple[Call | Route, ...]
    rate: Rate = Rate.MINOR
    clock: int = -1

    @property
    def ins(self) -> tuple[int, ...]:
        """The torn signals (the previous solution), then what the body reads from outside."""
        return tuple(dict.fromkeys([*self.torn, *held_reads(self.body)]))

    @property
    def outs(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(o for s in self.body for o in s.outs))

    @property
    def stores(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(o for s in self.body for o in s.stores))


Statement = Call | Route | Loop


def flat(statements: list[Statement] | tuple[Statement, ...]) -> list[Call | Route]:
    """The statements with every loop's body in its place."""
    out: list[Call | Route] = []
    for s in statements:
        out += list(s.body) if isinstance(s, Loop) else [s]
    return out


@dataclass(frozen=True)
class Crossing:
    """A block's zero-crossing functions: ``count`` of them at ``offset`` in ``g``; the call
    that computes them, and (optionally) the call of its event handler."""

    call: Call
    offset: int
    count: int
    handler: Call | None
    stops: bool


@dataclass(frozen=True)
class Program:
    """A compiled diagram as data: the statements of each generated function."""

    name: str
    signals: tuple[Signal, ...]
    block_names: tuple[str, ...]
    params: tuple[str, ...]  # identifier of each block's parameter tuple
    evaluation: tuple[Statement, ...]
    derivatives: tuple[Call, ...]
    updates: tuple[Call, ...]
    crossings: tuple[Crossing, ...]
    nx: int
    nxd: int
    nsig: int
    directions: tuple[int, ...]
    stop_mask: tuple[bool, ...]

    @property
    def kernels(self) -> list[tuple[str, str]]:
        """Every kernel the program calls, once each, in order of first use."""
        calls: list[Call] = [s for s in flat(self.evaluation) if isinstance(s, Call)]
        calls += [*self.derivatives, *self.updates]
        for c in self.crossings:
            calls += [c.call] + ([c.handler] if c.handler is not None else [])
        return list(dict.fromkeys(c.kernel for c in calls))

    @property
    def loops(self) -> list[Loop]:
        """The algebraic loops solved in the evaluation, in order."""
        return [s for s in self.evaluation if isinstance(s, Loop)]


def kernel_ref(fn: Any) -> tuple[str, str]:
    """(module, attribute) under which the numba dispatcher ``fn`` can be imported."""
    import importlib

    module_name = getattr(fn, "__module__", None) or fn.py_func.__module__
    module = importlib.import_module(module_name)
    for attr, value in vars(module).items():
        if value is fn:
            return module_name, attr
    raise ValueError(f"kernel {fn!r} is not a module-level attribute of {module_name}; "
                     f"kernels must be defined at module level to be imported and cached")


def identifier(text: str, taken: set[str], prefix: str) -> str:
    """A unique Python identifier for ``text`` (e.g. ``"ctrl/pid.y"`` -> ``s_ctrl__pid_y``)."""
    base = prefix + re.sub(r"\W", "_", text.replace("/", "__").replace(".", "_"))
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


def _signals(plan: Plan) -> tuple[Signal, ...]:
    out, start, taken = [], 0, set()
    for name, shape in zip(plan.signal_names, plan.signal_shapes):
        n = int(math.prod(shape)) if shape else 1
        out.append(Signal(name, identifier(name, taken, "s_"), start, n, tuple(shape)))
        start += n
    return tuple(out)


def _state(e: Any) -> State | None:
    if e.states.stop == e.states.start:
        return None
    return State("xd" if e.discrete else "x", e.states.start, e.states.stop)


def build(plan: Plan, kernels: list[Kernels | None]) -> Program:
    """The program of ``plan``; ``kernels[k]`` belongs to ``plan.entries[k]`` (None for the
    blocks that take no part in a run: post-run sinks)."""
    clock_index = {c: i for i, c in enumerate(plan.clocks)}
    signals = _signals(plan)
    taken: set[str] = set()
    params = tuple(identifier(e.name, taken, "p_") for e in plan.entries)

    def rate_of(e: Any) -> tuple[Rate, int]:
        if e.rate == "continuous":
            return Rate.CONTINUOUS, -1
        if isinstance(e.rate, Clock):
            return Rate.CLOCK, clock_index[e.rate]
        return Rate.CONSTANT, -1

    evaluation: list[Statement] = []
    made: list[int] = []  # statements made before each step
    for step in plan.order:
        made.append(len(evaluation))
        k = step.entry
        e, kern = plan.entries[k], kernels[k]
        if kern is None or not e.out_slots:
            continue
        rate, clock = rate_of(e)
        if kern.routes is not None and _routes_fit(kern.routes, e, signals):
            for p in step.ports:
                pieces = tuple((e.in_slots[port], None if idx is None else tuple(idx))
                               for port, idx in kern.routes[p])
                evaluation.append(Route(k, e.out_slots[p], pieces, rate, clock))
        elif kern.output is not None:
            evaluation.append(Call(k, "output", kernel_ref(kern.output), _state(e), e.in_slots,
                                   e.out_slots, tuple(e.out_slots[p] for p in step.ports),
                                   rate, clock))
        else:
            raise ValueError(f"block '{e.name}' ({e.kind}): its routes do not match the sizes "
                             f"of its ports and it has no output kernel")
    made.append(len(evaluation))
    for n, lp in reversed(list(enumerate(plan.loops))):
        body = tuple(evaluation[made[lp.first]:made[lp.stop]])
        e = plan.entries[plan.order[lp.first].entry]
        evaluation[made[lp.first]:made[lp.stop]] = [Loop(n, lp.torn, body, *rate_of(e))]
    minor = minor_statements(plan, evaluation)
    evaluation = [_with_rate(s, Rate.MINOR) if i in minor else s
                  for i, s in enumerate(evaluation)]

    derivatives, updates, crossings = [], [], []
    directions: list[int] = []
    stop_mask: list[bool] = []
    for k, e in enumerate(plan.entries):
        kern = kernels[k]
        state = _state(e)
        if kern is None:
            continue
        if state is not None and not e.discrete:
            assert kern.deriv is not None, f"block '{e.name}' has states but no deriv kernel"
            derivatives.append(Call(k, "deriv", kernel_ref(kern.deriv), state, e.in_slots))
        if state is not None and e.discrete and isinstance(e.rate, Clock):
            assert kern.update is not None, f"block '{e.name}' has no update kernel"
            updates.append(Call(k, "update", kernel_ref(kern.update), state, e.in_slots,
                                clock=clock_index[e.rate]))
        dirs = tuple(int(v) for v in e.block.crossing_directions)
        if dirs:
            assert kern.crossings is not None
            handler = None
            if kern.on_event is not None and state is not None:
                handler = Call(k, "on_event", kernel_ref(kern.on_event), state, e.in_slots)
            crossings.append(Crossing(
                Call(k, "crossings", kernel_ref(kern.crossings), state, e.in_slots),
                len(directions), len(dirs), handler, bool(e.block.stops_simulation)))
            directions += dirs
            stop_mask += [bool(e.block.stops_simulation)] * len(dirs)
    return Program(plan.name, signals, tuple(e.name for e in plan.entries), params,
                   tuple(evaluation), tuple(derivatives), tuple(updates), tuple(crossings),
                   plan.nx, int(plan.xd0.size),
                   max(sum(s.size for s in signals) + (LOOP_ROW if plan.loops else 0), 1),
                   tuple(directions), tuple(stop_mask))


def _routes_fit(routes: Any, e: Any, signals: tuple[Signal, ...]) -> bool:
    """Whether every output's pieces hold exactly the output's number of elements (a routing
    block whose routes assume another input shape falls back to its output kernel)."""
    for p, pieces in enumerate(routes):
        n = sum(signals[e.in_slots[port]].size if idx is None else len(idx)
                for port, idx in pieces)
        if n != signals[e.out_slots[p]].size:
            return False
    return True


def _with_rate(s: Statement, rate: Rate) -> Statement:
    if isinstance(s, Loop):
        return Loop(s.index, s.torn, s.body, rate, s.clock)
    if isinstance(s, Route):
        return Route(s.entry, s.out, s.pieces, rate, s.clock)
    return Call(s.entry, s.what, s.kernel, s.state, s.ins, s.outs, s.stores, rate, s.clock)


def minor_statements(plan: Plan, evaluation: list[Statement]) -> set[int]:
    """Indices of the continuous-rate evaluation statements that feed derivatives (the only
    ones evaluated inside solver stages)."""
    needed: set[int] = set()
    for e in plan.entries:
        if not e.discrete and e.states.stop > e.states.start:
            needed.update(e.in_slots)
    found: set[int] = set()
    for i in range(len(evaluation) - 1, -1, -1):
        s = evaluation[i]
        if s.rate is not Rate.CONTINUOUS:
            continue
        if any(o in needed for o in s.stores):
            found.add(i)
            needed.update(s.ins)
    return found


def held_reads(statements: list[Statement] | tuple[Statement, ...],
               computed: set[int] | None = None) -> list[int]:
    """Signals the statements read before (or without) computing them, in order of first
    read: those are read from the buffer (their held value)."""
    have = set(computed or ())
    reads: list[int] = []
    for s in statements:
        for i in s.ins:
            if i not in have:
                have.add(i)
                reads.append(i)
        have.update(s.outs)
    return reads


def params_used(statements: list[Any]) -> list[int]:
    """The blocks (entry indices) whose parameters the statements pass, in order."""
    return list(dict.fromkeys(s.entry for s in flat(statements) if isinstance(s, Call)))
