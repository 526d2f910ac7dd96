"""Building a diagram: adding named blocks and connecting their ports.

A :class:`Diagram` only records what the user asked for. Whether the references resolve, every
input is driven exactly once and the shapes agree is checked by :func:`compile_diagram`, which
reports every problem at once.

Diagram files are read and written by :mod:`blocksim.io` (``blocksim.io.load(path)``,
``blocksim.io.save(diagram, path)``, ``dumps``/``loads``); the engine does not import it.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from blocksim.engine.block import Block, PortRef
from blocksim.engine.errors import DiagramError, suggest
from blocksim.engine.subsystem import Subsystem

End = Block | PortRef | str

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


@dataclass(frozen=True)
class Wire:
    """One connection from an output end to an input end, with where it was made."""

    src: End
    dst: End
    where: str


def _caller() -> str:
    """``file:line`` of the user code that called into the diagram API."""
    frame = sys._getframe(2)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


class Diagram:
    """A block diagram under construction.

    Parameters
    ----------
    name : str
        Name of the diagram, used in error messages and results.

    Examples
    --------
    >>> from blocksim import Diagram
    >>> from blocksim.blocks import Constant, Gain
    >>> d = Diagram("demo")
    >>> c = d.add(Constant(2.0), name="c")
    >>> g = d.add(Gain(3.0), name="g")
    >>> d.connect(c, g)
    """

    def __init__(self, name: str = "diagram"):
        self.name = name
        self.blocks: dict[str, Block] = {}
        self.wires: list[Wire] = []
        #: the file the diagram was read from (set by :mod:`blocksim.io`), None when built in
        #: Python: the hints of compile errors are worded for it (a JSON wire or d.connect)
        self.origin: str | None = None

    def add(self, block: Block | Diagram, name: str | None = None) -> Block:
        """Add ``block`` under ``name`` (auto-named from its class when omitted); return it.

        A :class:`Diagram` is added as a subsystem (its Inport/Outport blocks are its ports),
        named after the diagram unless ``name`` is given.
        """
        if isinstance(block, Diagram):
            if name is None and _NAME.match(block.name) and block.name not in self.blocks:
                name = block.name
            block = Subsystem(block)
        if not isinstance(block, Block):
            raise DiagramError(self.name, [
                f"add() expects a Block instance, got {type(block).__name__} ({block!r})"])
        if block.name is not None:
            raise DiagramError(self.name, [
                f"block '{block.name}' ({type(block).__name__}) is already in a diagram; "
                f"create a new block instead of adding one twice"])
        if name is None:
            base = type(block).__name__.lower()
            k = 1
            while f"{base}{k}" in self.blocks:
                k += 1
            name = f"{base}{k}"
        elif not isinstance(name, str) or not _NAME.match(name):
            raise DiagramError(self.name, [
                f"block name {name!r} is not valid: use letters, digits, '_' or '-', "
                f"starting with a letter or '_' ('.' and '/' are reserved for ports and paths)"])
        if name in self.blocks:
            raise DiagramError(self.name, [
                f"a block named '{name}' already exists "
                f"({type(self.blocks[name]).__name__}); block names must be unique"])
        block.__dict__["_name"] = name
        self.blocks[name] = block
        return block

    def connect(self, src: End, *dsts: End) -> None:
        """Connect the output end ``src`` to each input end in ``dsts``.

        An end is a block with one port, ``block["port"]``, ``block[i]`` or the string
        ``"name.port"`` (``"name"`` alone for a block with one port). One output may feed many
        inputs; every input must be driven exactly once.
        """
        if not dsts:
            raise DiagramError(self.name, [f"connect({src!r}) needs at least one destination"])
        where = _caller()
        for dst in dsts:
            self.wires.append(Wire(src, dst, where))

    def __getitem__(self, name: str) -> Block:
        try:
            return self.blocks[name]
        except KeyError:
            raise KeyError(f"diagram '{self.name}' has no block '{name}'"
                           f"{suggest(name, self.blocks)}") from None

    def __contains__(self, name: str) -> bool:
        return name in self.blocks

    def __repr__(self) -> str:
        return f"<Diagram '{self.name}': {len(self.blocks)} blocks, {len(self.wires)} wires>"
