"""Event blocks: :class:`Stop` and :class:`HitCrossing` (:mod:`~blocksim.blocks.events.crossings`,
kernels included)."""

from blocksim.blocks.events.crossings import HitCrossing, Stop

__all__ = ["HitCrossing", "Stop"]
