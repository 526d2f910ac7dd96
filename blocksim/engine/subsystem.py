"""Subsystems: a diagram used as a block, through its Inport and Outport blocks.

Inside the inner diagram, each :class:`Inport` block is an input of the subsystem and each
:class:`Outport` block an output, named by the block's name there, in the order they were
added. Compilation flattens subsystems to any depth: inner blocks get paths such as
``"outer/inner/block"``, the Inport/Outport blocks stay as pass-throughs (so their signals can be
recorded, e.g. ``result["ctrl/error.y"]``), and algebraic loops are found port by port through
every level.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import DiagramError

if TYPE_CHECKING:
    from blocksim.engine.diagram import Diagram


class Inport(Block):
    """An input of the diagram when it is used as a subsystem.

    Inputs
    ------
    u : any shape
        Driven by the wire to the subsystem's input of the same name (unconnected, and so an
        error, if the diagram is simulated on its own).

    Outputs
    -------
    y : same as u
        The signal, passed through unchanged.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, shape: Sequence[int] | None = None) -> None:
        if shape is not None:
            shp = tuple(int(n) for n in shape)
            self.set_ports(inputs=[Port("u", shp)], outputs=[Port("y", shp)])

    def output(self, t: float, x: Any, u: Sequence[Any]) -> tuple[Any]:
        return (u[0],)

    def kernels(self) -> Kernels:
        """A pass-through: the compiled back-end aliases the input (no kernel call)."""
        return Kernels(params=(), routes=(((0, None),),))


class Outport(Inport):
    """An output of the diagram when it is used as a subsystem (a pass-through like Inport)."""


class Subsystem(Block):
    """A diagram used as one block.

    Parameters
    ----------
    diagram : Diagram
        The inner diagram; its Inport blocks become this block's inputs and its Outport blocks
        its outputs (names and order as added there).
    """

    def __init__(self, diagram: Diagram) -> None:
        # a Diagram by its contents: diagram.py imports this module, not the other way
        if not (isinstance(getattr(diagram, "blocks", None), dict)
                and isinstance(getattr(diagram, "wires", None), list)):
            raise DiagramError("subsystem", [f"Subsystem expects a Diagram, got "
                                             f"{type(diagram).__name__}"])
        self.diagram = diagram
        self.set_ports(
            inputs=[n for n, b in diagram.blocks.items() if type(b) is Inport],
            outputs=[n for n, b in diagram.blocks.items() if type(b) is Outport])

    def output_feedthrough(self) -> dict[str, tuple[str, ...]]:
        """Not used by compilation (which flattens the subsystem); conservatively all."""
        ins = tuple(p.name for p in self.inputs)  # type: ignore[union-attr]
        return {p.name: ins for p in self.outputs}  # type: ignore[union-attr]
