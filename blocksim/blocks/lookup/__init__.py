"""Lookup tables: :class:`Piecewise` (a table in time, a source) and :class:`Interpolate` (a
table of the input) in :mod:`~blocksim.blocks.lookup.tables`, kernels included."""

from blocksim.blocks.lookup.tables import Interpolate, Piecewise

__all__ = ["Interpolate", "Piecewise"]
