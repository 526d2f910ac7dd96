"""Lookup tables: :class:`Piecewise` (a table in time, a source) and :class:`Interpolate` (a
table of the input) in :mod:`~blocksim.blocks.lookup.tables`, kernels included, and
:class:`BagSource` (:mod:`~blocksim.blocks.lookup.bag`: a topic of a ROS 2 bag as a table in
time, played with Interpolate's kernels)."""

from blocksim.blocks.lookup.bag import BagSource
from blocksim.blocks.lookup.tables import Interpolate, Piecewise

__all__ = ["BagSource", "Interpolate", "Piecewise"]
