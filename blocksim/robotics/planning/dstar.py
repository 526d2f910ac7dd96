"""D* incremental planner (Stentz 1994; Robotics Toolbox ``Dstar``).

A cost map (free cell 1, occupied +inf, any positive cost in between) and, for every cell, the
cost-to-goal ``h``, a back-pointer ``b`` toward the goal and a tag NEW / OPEN / CLOSED. ``plan``
with a goal plans from scratch; after :meth:`Dstar.costmap_modify`, ``plan()`` without a goal
repairs the plan: only the cells whose cost-to-goal the change affects are processed (RAISE and
LOWER waves), ``niter`` counts the states processed. Moves are 8-connected; moving from cell X
to neighbour Y costs ``|XY| (cost(X) + cost(Y)) / 2`` [m], as in RTB. The OPEN list is a binary
heap (:mod:`heapq`) with lazy deletion, ties broken by cell index.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from ._messages import plain
from .navigation import Navigation, PlanningError, fmt

__all__ = ["Dstar"]

NEW, OPEN, CLOSED = 0, 1, 2


class Dstar(Navigation):
    """D* planner over an occupancy grid.

    Parameters
    ----------
    occgrid : OccupancyGrid or array_like
        Map (0 free); the cost map starts as 1 on free cells, +inf on occupied ones.
    goal : (2,) array_like, optional
        Goal (x, y) [m]; may also be given to :meth:`plan`.
    inflate : float
        Obstacle inflation radius [m].

    Attributes
    ----------
    niter : int
        States taken off the OPEN list by the last :meth:`plan` (fresh or repair).
    """

    def __init__(self, occgrid, goal=None, inflate: float = 0.0) -> None:
        super().__init__(occgrid, goal, inflate)
        ny, nx = self.occgrid.shape
        self._nx, self._ny = nx, ny
        self.costmap = np.where(self.occgrid.occ, np.inf, 1.0)
        self.niter = 0
        self._goal_index: int | None = None
        self.changed = False
        self.reset()
        # neighbour offsets and step lengths [cells]
        self._steps = [
            (dc, dr, math.hypot(dc, dr)) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dc or dr
        ]

    # -- state ------------------------------------------------------------------------------
    def reset(self) -> None:
        """Forget the plan (every cell NEW, h = inf); the cost map is kept."""
        n = self._nx * self._ny
        self.h = np.full(n, np.inf)
        self.t = np.zeros(n, dtype=np.int8)
        self.b = np.full(n, -1, dtype=np.int64)
        self._k = np.full(n, np.inf)
        self._open: list[tuple[float, int]] = []

    def _neighbours(self, X: int):
        nx, ny = self._nx, self._ny
        r, c = divmod(X, nx)
        for dc, dr, dist in self._steps:
            rr, cc = r + dr, c + dc
            if 0 <= rr < ny and 0 <= cc < nx:
                yield rr * nx + cc, dist

    def _insert(self, X: int, h_new: float) -> None:
        tag = self.t[X]
        if tag == NEW:
            k_new = h_new
        elif tag == OPEN:
            k_new = min(self._k[X], h_new)
        else:
            k_new = min(self.h[X], h_new)
        self._k[X] = k_new
        self.h[X] = h_new
        self.t[X] = OPEN
        heapq.heappush(self._open, (k_new, X))

    def _min_state(self) -> tuple[float, int] | None:
        heap, t, k = self._open, self.t, self._k
        while heap:
            kk, X = heap[0]
            if t[X] == OPEN and k[X] == kk:
                return kk, X
            heapq.heappop(heap)  # stale entry
        return None

    def _process_state(self) -> bool:
        top = self._min_state()
        if top is None:
            return False
        k_old, X = top
        heapq.heappop(self._open)
        self.t[X] = CLOSED
        h, b, t, cost = self.h, self.b, self.t, self.costmap.reshape(-1)
        cX = cost[X]
        nbrs = list(self._neighbours(X))
        if k_old < h[X]:  # RAISE: look for a neighbour that lowers X
            for Y, dist in nbrs:
                c = dist * 0.5 * (cost[Y] + cX)
                if h[Y] <= k_old and h[X] > h[Y] + c:
                    b[X] = Y
                    h[X] = h[Y] + c
        if k_old == h[X]:  # LOWER: propagate to the neighbours
            for Y, dist in nbrs:
                c = dist * 0.5 * (cost[Y] + cX)
                hn = h[X] + c
                if t[Y] == NEW or (b[Y] == X and h[Y] != hn) or (b[Y] != X and h[Y] > hn):
                    b[Y] = X
                    self._insert(Y, hn)
        else:
            for Y, dist in nbrs:
                c = dist * 0.5 * (cost[Y] + cX)
                hn = h[X] + c
                if t[Y] == NEW or (b[Y] == X and h[Y] != hn):
                    b[Y] = X
                    self._insert(Y, hn)
                elif b[Y] != X and h[Y] > hn:
                    self._insert(X, h[X])
                elif b[Y] != X and h[X] > h[Y] + c and t[Y] == CLOSED and h[Y] > k_old:
                    self._insert(Y, h[Y])
        return True

    # -- public API ---------------------------------------------------------------------------
    def plan(self, goal=None) -> np.ndarray:
        """Plan from scratch to ``goal`` (x, y) [m], or, without a goal, repair the plan after
        cost-map changes. Returns the distance map (ny, nx) [m] (:meth:`distancemap_get`)."""
        if goal is not None or self._goal_index is None:
            g = self._need_goal(goal)
            col, row = (int(v) for v in self.occgrid.world_to_cell(g))
            self.reset()
            self._goal_index = row * self._nx + col
            self._insert(self._goal_index, 0.0)
        self.niter = 0
        while self._process_state():
            self.niter += 1
        self.changed = False
        return self.distancemap_get()

    def distancemap_get(self) -> np.ndarray:
        """Cost-to-goal h of every cell (ny, nx) [m]; +inf where unreachable or occupied."""
        h = self.h.reshape(self._ny, self._nx) * self.occgrid.cellsize
        return np.where(np.isinf(self.costmap), np.inf, h)

    def costmap_get(self) -> np.ndarray:
        """The cost map (ny, nx): cost per cell of travel, +inf for obstacles (a copy)."""
        return self.costmap.copy()

    def costmap_set(self, costmap) -> None:
        """Replace the whole cost map (same shape, values > 0 or +inf); then call ``plan()``.

        A whole new cost map invalidates the plan: the next ``plan()`` starts from scratch.
        """
        c = np.asarray(costmap, dtype=float)
        if c.shape != self.costmap.shape:
            raise ValueError(
                f"Dstar.costmap_set: costmap must have shape {self.costmap.shape}, got {c.shape}"
            )
        if np.any(~(c > 0)):
            raise ValueError("Dstar.costmap_set: costs must be > 0 (or +inf for obstacles)")
        self.costmap = c.copy()
        self._goal_index = None
        self.changed = True

    def costmap_modify(self, points, new) -> None:
        """Change the cost of the cells at world points ``points`` (N, 2) [m] to ``new``
        (scalar or (N,), > 0, +inf for an obstacle); the next ``plan()`` repairs the plan.

        The changed cells and their neighbours go back on the OPEN list (Stentz's
        MODIFY-COST for every arc into and out of a changed cell).
        """
        p = np.asarray(points, dtype=float).reshape(-1, 2)
        v = np.broadcast_to(np.asarray(new, dtype=float), (len(p),))
        if np.any(~(v > 0)):
            raise ValueError(
                f"Dstar.costmap_modify: new costs must be > 0 or inf, got {plain(new)}"
            )
        cells = self.occgrid.world_to_cell(p)
        inside = self.occgrid.in_grid(cells)
        if not np.all(inside):
            raise ValueError(
                f"Dstar.costmap_modify: points {p[~inside].tolist()} are outside the map"
            )
        flat = self.costmap.reshape(-1)
        touched: set[int] = set()
        for (col, row), cost in zip(cells, v):
            X = int(row) * self._nx + int(col)
            flat[X] = cost
            touched.add(X)
            # the arcs into and out of X changed: X re-propagates to the cells routed through
            # it, its neighbours re-propagate to X (RTB inserts X only, leaving h(X) stale)
            touched.update(Y for Y, _ in self._neighbours(X))
        for X in sorted(touched):
            if self.t[X] == CLOSED:
                self._insert(X, self.h[X])
        self.changed = True

    def query(self, start) -> np.ndarray:
        """Path (N, 2) [m] of cell centres from ``start`` (x, y) to the goal along the
        back-pointers."""
        if self._goal_index is None:
            raise PlanningError("Dstar: call plan(goal) before query()")
        if self.changed:
            raise PlanningError("Dstar: the cost map has changed: call plan() to replan")
        xy = self._point(start, "start", free=False)
        col, row = (int(v) for v in self.occgrid.world_to_cell(xy))
        X = row * self._nx + col
        if math.isinf(self.costmap.reshape(-1)[X]):
            infl = f" (after inflation by {self.inflate:g} m)" if self.inflate else ""
            raise PlanningError(f"Dstar: the start {fmt(xy)} is in an obstacle{infl}")
        if not math.isfinite(self.h[X]):
            raise PlanningError(f"Dstar: the goal cannot be reached from start {fmt(xy)}")
        cells = [X]
        while X != self._goal_index:
            X = int(self.b[X])
            if X < 0 or len(cells) > self.h.size:
                raise PlanningError("Dstar: broken back-pointer chain (replan needed)")
            cells.append(X)
        idx = np.asarray(cells)
        return self._cells_to_path(np.stack([idx % self._nx, idx // self._nx], axis=1))

    path = query
