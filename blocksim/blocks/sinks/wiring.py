"""Add a :class:`Scope` to a diagram and wire its inputs in one call.

Most examples end their ``build()`` with the same lines: a scope of ``n`` inputs with its labels,
units and title, then one ``connect`` per input. :func:`add_scope` is those lines::

    add_scope(d, [loop["qd"], loop["tau"]], labels=["qd", "tau"], units=["rad/s", "N m"],
              title="velocity step", file=scope_file, show=show)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from blocksim.blocks.sinks.recorders import Scope
from blocksim.engine.block import Block
from blocksim.engine.diagram import Diagram

__all__ = ["add_scope"]


def add_scope(d: Diagram, inputs: Sequence[Any], *, name: str = "scope", **options: Any) -> Block:
    """Add a :class:`Scope` named ``name`` with one input per entry of ``inputs`` and connect
    each entry (a block, a port or a ``"block.port"`` name) to it, in order.

    Parameters
    ----------
    d : Diagram
        Where the scope is added.
    inputs : sequence
        The signals to plot, one panel each (the scope's ``u0``, ``u1``, ...; ``u`` for one).
    name : str
        The scope's name in the diagram.
    **options
        The :class:`Scope`'s keyword parameters (``labels``, ``units``, ``title``, ``file``,
        ``show``, ``elements``...).

    Returns
    -------
    Block
        The scope.
    """
    scope = d.add(Scope(len(inputs), **options), name=name)
    if len(inputs) == 1:
        d.connect(inputs[0], scope)
    for i, signal in enumerate(inputs if len(inputs) > 1 else ()):
        d.connect(signal, scope[f"u{i}"])
    return scope
