"""The immutable plan that compilation produces and every back-end runs.

A plan is flat: blocks are numbered, every output port owns one *slot* of a signal store, every
input port reads the slot of the output that drives it, and the evaluation order is a tuple of
steps computed once. Nothing in the hot path looks up a name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from blocksim.engine.block import Block
from blocksim.engine.clock import Clock, TimeBase


@dataclass(frozen=True)
class BlockEntry:
    """One block of the flattened diagram.

    Attributes
    ----------
    name : str
        Path of the block in the diagram.
    block : Block
        The block (a description; never mutated by a run).
    in_slots : tuple of int
        Signal-store slot read by each input port, in port order.
    out_slots : tuple of int
        Slot written by each output port, in port order.
    states : slice
        The block's slice of the continuous state vector ``x`` (continuous blocks) or of the
        discrete state vector ``xd`` (discrete blocks); empty for stateless blocks.
    discrete : bool
        Whether ``states`` indexes ``xd``.
    rate : str or Clock
        When the block's outputs are computed: ``"continuous"`` (every evaluation),
        ``"constant"`` (once, at t = 0) or a :class:`Clock` (at its hits only, held in
        between): declared, or inherited from the inputs at compile time.
    """

    name: str
    block: Block
    in_slots: tuple[int, ...]
    out_slots: tuple[int, ...]
    states: slice
    discrete: bool
    rate: Any = "continuous"

    @property
    def kind(self) -> str:
        """Block class name."""
        return type(self.block).__name__


@dataclass(frozen=True)
class Step:
    """One call of a block's ``output`` in the evaluation order.

    ``ports`` are the output port indices whose values this call writes (all of them normally;
    a subset when a block has to be called twice to respect partial feedthrough).
    """

    entry: int
    ports: tuple[int, ...]


@dataclass(frozen=True)
class AlgebraicLoop:
    """An algebraic loop solved at each evaluation (``algebraic="solve"``).

    Attributes
    ----------
    first, stop : int
        The loop's steps are ``plan.order[first:stop]``: its blocks' output calls, the
        torn ports' calls last. Running them from torn values ``z`` (in the torn slots)
        gives ``g(z)`` in the torn slots; the solution is ``z = g(z)``.
    torn : tuple of int
        Signal slots of the tear variables (output ports), in order.
    text : str
        The loop port by port (``"a.y -> b.u (feedthrough) -> ..."``), as errors name it.
    """

    first: int
    stop: int
    torn: tuple[int, ...]
    text: str


@dataclass(frozen=True)
class Plan:
    """Everything a back-end needs to run a diagram, fixed at compile time."""

    name: str
    entries: tuple[BlockEntry, ...]
    signal_names: tuple[str, ...]
    signal_shapes: tuple[tuple[int, ...], ...]
    aliases: dict[str, str]
    order: tuple[Step, ...]
    x0: np.ndarray
    state_names: tuple[str, ...]
    xd0: np.ndarray
    discrete_state_names: tuple[str, ...]
    clocks: tuple[Clock, ...]
    timebase: TimeBase
    breakpoint_entries: tuple[int, ...]
    info: dict[str, Any] = field(default_factory=dict)
    #: the algebraic loops solved at each evaluation (``algebraic="solve"``), in order
    loops: tuple[AlgebraicLoop, ...] = ()

    @property
    def nx(self) -> int:
        """Number of continuous states."""
        return int(self.x0.size)

    def entry(self, name: str) -> BlockEntry:
        """The entry of the block at path ``name``."""
        for e in self.entries:
            if e.name == name:
                return e
        raise KeyError(f"plan '{self.name}' has no block '{name}'")

    def describe(self) -> str:
        """A readable listing: evaluation order, state layout, clocks."""
        lines = [f"plan '{self.name}': {len(self.entries)} blocks, {len(self.signal_names)} "
                 f"signals, {self.nx} continuous states, {self.xd0.size} discrete states"]
        lines.append("evaluation order:")
        for k, s in enumerate(self.order):
            e = self.entries[s.entry]
            outs = ", ".join(self.signal_names[e.out_slots[p]] for p in s.ports)
            rate = e.rate if isinstance(e.rate, str) else f"every {e.rate.period:g} s"
            lines.append(f"  {k + 1:3d}. {e.name} ({e.kind}) -> {outs}  [{rate}]")
        for n, lp in enumerate(self.loops):
            torn = ", ".join(self.signal_names[s] for s in lp.torn)
            lines.append(f"algebraic loop {n + 1} (steps {lp.first + 1}-{lp.stop}, solved "
                         f"for {torn}): {lp.text}")
        if self.state_names:
            lines.append("continuous states: " + ", ".join(self.state_names))
        if self.discrete_state_names:
            lines.append("discrete states: " + ", ".join(self.discrete_state_names))
        for c in self.clocks:
            lines.append(f"clock: period {c.period:g} s, offset {c.offset:g} s")
        return "\n".join(lines)
