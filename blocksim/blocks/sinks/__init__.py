"""Sinks: :mod:`~blocksim.blocks.sinks.recorders` (:class:`Record`, :class:`Scope`,
:class:`XYGraph`) and the post-run animation sinks of :mod:`~blocksim.blocks.sinks.animations`
(:class:`ArmPlot`, :class:`ImagePlane`; not re-exported by :mod:`blocksim.blocks`)."""

from blocksim.blocks.sinks.animations import ArmPlot, ImagePlane
from blocksim.blocks.sinks.recorders import Record, Scope, XYGraph

__all__ = ["ArmPlot", "ImagePlane", "Record", "Scope", "XYGraph"]
