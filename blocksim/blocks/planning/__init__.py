"""Blocks for path planning: a planned path as a pure-pursuit target (:class:`PathCarrot`,
compiled kernel), a DXform/D* distance field with obstacles appearing on schedule
(:class:`NavigationField`, compiled kernel), and a :class:`Planner` that plans on a map and
replans when its goal input changes or an obstacle appears (interpreted only: the planners are
Python and networkx).

Numerics in :mod:`blocksim.robotics.planning`.
"""

from blocksim.blocks.planning.field import NavigationField
from blocksim.blocks.planning.path import PathCarrot
from blocksim.blocks.planning.planner import Planner

__all__ = ["NavigationField", "PathCarrot", "Planner"]
