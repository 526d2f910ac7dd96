"""What a loaded diagram remembers of its file, so that saving it writes the same file back.

Loading records, per :class:`~blocksim.engine.diagram.Diagram` (weakly: nothing is kept alive
by this module), the raw JSON of each block parameter with the value it produced (a parameter
still holding that value is written back as written: ``"pi/2"`` and ``"$Kp"`` survive), the
shared parameters, clocks and models sections, where subsystems came from, the simulation
settings and the layout. A diagram built in Python has no context; saving it writes values.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blocksim.engine.diagram import Diagram


@dataclass
class FileContext:
    """The file-side description of one diagram (top level or inline subsystem)."""

    description: str | None = None
    parameters: dict[str, Any] = field(default_factory=dict)
    clocks_raw: dict[str, Any] = field(default_factory=dict)
    clocks: dict[str, Any] = field(default_factory=dict)
    models_raw: dict[str, Any] = field(default_factory=dict)
    models: dict[str, Any] = field(default_factory=dict)
    #: block name -> parameter -> (raw JSON, value it produced at load time)
    block_params: dict[str, dict[str, tuple[Any, Any]]] = field(default_factory=dict)
    #: block name -> (absolute path of the included file, raw "parameters" overrides)
    includes: dict[str, tuple[Path, dict[str, Any]]] = field(default_factory=dict)
    #: block name -> the "description" member of the block
    block_descriptions: dict[str, str] = field(default_factory=dict)
    simulation: dict[str, Any] = field(default_factory=dict)
    layout: dict[str, Any] | None = None
    path: Path | None = None


_CONTEXTS: weakref.WeakKeyDictionary[Diagram, FileContext] = weakref.WeakKeyDictionary()


def attach(diagram: Diagram, ctx: FileContext) -> None:
    """Remember ``ctx`` as the file side of ``diagram``."""
    _CONTEXTS[diagram] = ctx


def context_of(diagram: Diagram) -> FileContext | None:
    """The file side of ``diagram``, or None for a diagram built in Python."""
    return _CONTEXTS.get(diagram)
