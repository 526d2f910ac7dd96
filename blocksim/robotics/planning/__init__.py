"""Path planners over occupancy grids (the Robotics Toolbox's navigation classes,
MATLAB 9.10 and Python).

Occupancy grids (0 free, non-zero occupied) with a cell size and origin
(:class:`OccupancyGrid`), sample maps (:func:`load_map`), distance transforms
(:func:`distancexform`), Bresenham lines, and the planners :class:`DXform`, :class:`Dstar`,
:class:`PRM`, :class:`Lattice`, :class:`RRT` and :class:`Bug2`. Grid planners return (N, 2) paths
of world points [m], pose planners (N, 3) poses (x, y, theta) [m, m, rad]. Plots are in
:mod:`blocksim.viz.planning_plot`.
"""

from .bug2 import Bug2
from .distance import distancexform, geodesic_distance, obstacle_distance
from .dstar import Dstar
from .dxform import DXform
from .lattice import Lattice
from .maps import MAPS, load_map, make_arena, make_maze, make_office, random_map
from .navigation import Navigation, PlanningError
from .occgrid import OccupancyGrid, kcircle
from .oneshot import plan_path
from .prm import PRM
from .raster import bresenham, segment_free
from .rrt import RRT

__all__ = [
    "MAPS",
    "PRM",
    "RRT",
    "Bug2",
    "DXform",
    "Dstar",
    "Lattice",
    "Navigation",
    "OccupancyGrid",
    "PlanningError",
    "bresenham",
    "distancexform",
    "geodesic_distance",
    "kcircle",
    "load_map",
    "make_arena",
    "make_maze",
    "make_office",
    "obstacle_distance",
    "plan_path",
    "random_map",
    "segment_free",
]
