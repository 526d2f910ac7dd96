"""Distance-transform planner (Robotics Toolbox ``DXform``)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .distance import _metric, geodesic_distance
from .navigation import Navigation, PlanningError, fmt

__all__ = ["DXform"]

_N8 = np.array(
    [[1, 0], [0, 1], [-1, 0], [0, -1], [1, 1], [-1, 1], [-1, -1], [1, -1]], dtype=np.int64
)


@njit(cache=True)
def _descend(d: np.ndarray, col: int, row: int, nbrs: np.ndarray) -> np.ndarray:
    """Steepest descent of the distance map d from (col, row) to its zero; (N, 2) cells."""
    ny, nx = d.shape
    out = np.empty((ny * nx, 2), dtype=np.int64)
    n = 0
    out[0, 0] = col
    out[0, 1] = row
    n = 1
    while d[row, col] > 0.0:
        best = d[row, col]
        bc, br = -1, -1
        for k in range(nbrs.shape[0]):
            c = col + nbrs[k, 0]
            r = row + nbrs[k, 1]
            if 0 <= c < nx and 0 <= r < ny and d[r, c] < best:  # NaN compares False
                best = d[r, c]
                bc, br = c, r
        if bc < 0:
            return out[:0]
        col, row = bc, br
        out[n, 0] = col
        out[n, 1] = row
        n += 1
    return out[:n]


class DXform(Navigation):
    """Distance-transform navigation: plan once for a goal, then a path from any start.

    Parameters
    ----------
    occgrid : OccupancyGrid or array_like
        Map (0 free).
    goal : (2,) array_like, optional
        Goal (x, y) [m]; may also be given to :meth:`plan`.
    metric : {"euclidean", "cityblock"}
        8-connected moves of length 1 and sqrt(2) cells, or 4-connected moves of 1 cell.
    inflate : float
        Obstacle inflation radius [m].

    Attributes
    ----------
    distancemap : numpy.ndarray (ny, nx) or None
        Path length to the goal [m] from each cell after :meth:`plan`; NaN on obstacles, +inf
        where the goal cannot be reached.
    """

    def __init__(self, occgrid, goal=None, metric: str = "euclidean", inflate: float = 0.0):
        super().__init__(occgrid, goal, inflate)
        self.metric = _metric(metric, ("euclidean", "cityblock"), "DXform")
        self.distancemap: np.ndarray | None = None
        self.sweeps = 0

    def plan(self, goal=None) -> np.ndarray:
        """Compute the distance map to ``goal`` (x, y) [m] (default: the constructor's)."""
        g = self._need_goal(goal)
        cell = self.occgrid.world_to_cell(g)
        d, self.sweeps = geodesic_distance(self.occgrid.occ, cell, self.metric)
        self.distancemap = d * self.occgrid.cellsize
        self._planned_goal = g.copy()
        return self.distancemap

    def query(self, start) -> np.ndarray:
        """Path from ``start`` (x, y) [m] to the goal by steepest descent of the distance map.

        Returns
        -------
        numpy.ndarray (N, 2)
            Cell centres [m] from the start's cell to the goal's cell; consecutive points are
            neighbouring cells (8- or 4-connected by the metric).
        """
        if self.distancemap is None:
            raise PlanningError("DXform: call plan() before query()")
        col, row = self._cell(start, "start")
        if not math.isfinite(self.distancemap[row, col]):
            raise PlanningError(f"DXform: the goal cannot be reached from start {fmt(start)}")
        nbrs = _N8 if self.metric == "euclidean" else _N8[:4]
        cells = _descend(self.distancemap, col, row, nbrs)
        return self._cells_to_path(cells)

    path = query
