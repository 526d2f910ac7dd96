"""Signal routing: :class:`Mux`, :class:`Demux`, :class:`Concatenate`, :class:`Reshape`,
:class:`Selector`, :class:`Index` and :class:`Terminator`
(:mod:`~blocksim.blocks.routing.signal_routing`); their compiled kernels in
:mod:`~blocksim.blocks.routing.kernels`."""

from blocksim.blocks.routing.signal_routing import (
    Concatenate,
    Demux,
    Index,
    Mux,
    Reshape,
    Selector,
    Terminator,
)

__all__ = ["Concatenate", "Demux", "Index", "Mux", "Reshape", "Selector", "Terminator"]
