"""Base of the grid planners: the map, inflation, start/goal checks (RTB ``Navigation``)."""

from __future__ import annotations

import numpy as np

from ._messages import plain
from .occgrid import OccupancyGrid, as_grid

__all__ = ["Navigation", "PlanningError", "fmt"]


def fmt(p) -> str:
    """A point or pose as "(x, y)" with short floats, for messages."""
    return "(" + ", ".join(f"{float(v):g}" for v in np.asarray(p).reshape(-1)) + ")"


class PlanningError(RuntimeError):
    """A planner found no path (unreachable goal, trapped robot, exhausted samples)."""


class Navigation:
    """Common part of the planners over an occupancy grid.

    Parameters
    ----------
    occgrid : OccupancyGrid or array_like (ny, nx)
        The map; 0 free, non-zero occupied (a plain array has cell size 1 and origin 0).
    goal : (2,) array_like, optional
        Goal point (x, y) [m].
    inflate : float
        Obstacles are grown by a disc of this radius [m] (= cells for cell size 1) before
        planning (RTB ``'inflate', K``). The original map stays in :attr:`occgrid_orig`.

    Attributes
    ----------
    occgrid : OccupancyGrid
        The (inflated) map the planner uses.
    """

    def __init__(self, occgrid, goal=None, inflate: float = 0.0) -> None:
        name = type(self).__name__
        self.occgrid_orig: OccupancyGrid = as_grid(occgrid, name)
        try:
            self.inflate = float(inflate)
            self.occgrid: OccupancyGrid = self.occgrid_orig.inflate(self.inflate)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name}: inflate must be a radius >= 0 [m], got {plain(inflate)}"
            ) from None
        self.goal: np.ndarray | None = None
        if goal is not None:
            self.goal = self._point(goal, "goal")

    # -- helpers ------------------------------------------------------------------------------
    def _point(self, p, what: str, free: bool = True) -> np.ndarray:
        """(x, y) [m] as floats, checked inside the map and (optionally) free."""
        name = type(self).__name__
        a = np.asarray(p, dtype=float).reshape(-1)
        if a.shape[0] < 2 or not np.all(np.isfinite(a[:2])):
            raise ValueError(f"{name}: {what} must be a point (x, y) [m], got {plain(p)}")
        xy = a[:2].copy()
        cell = self.occgrid.world_to_cell(xy)
        if not self.occgrid.in_grid(cell):
            raise ValueError(
                f"{name}: {what} {fmt(xy)} is outside the map (extent {self.occgrid.extent})"
            )
        if free and self.occgrid.occ[cell[1], cell[0]]:
            infl = f" (after inflation by {self.inflate:g} m)" if self.inflate else ""
            raise ValueError(f"{name}: {what} {fmt(xy)} is in an occupied cell{infl}")
        return xy

    def _cell(self, p, what: str) -> tuple[int, int]:
        """Free cell (col, row) of a world point."""
        xy = self._point(p, what)
        c = self.occgrid.world_to_cell(xy)
        return int(c[0]), int(c[1])

    def _cells_to_path(self, cells) -> np.ndarray:
        """(N, 2) cells (col, row) -> (N, 2) world points [m] at the cell centres."""
        return self.occgrid.cell_to_world(np.asarray(cells, dtype=float).reshape(-1, 2))

    def _need_goal(self, goal=None) -> np.ndarray:
        if goal is not None:
            self.goal = self._point(goal, "goal")
        if self.goal is None:
            raise ValueError(f"{type(self).__name__}: no goal: give goal=(x, y)")
        return self.goal

    def __repr__(self) -> str:
        goal = "none" if self.goal is None else f"({self.goal[0]:g}, {self.goal[1]:g})"
        return f"{type(self).__name__}({self.occgrid!r}, goal {goal}, inflate {self.inflate:g})"
