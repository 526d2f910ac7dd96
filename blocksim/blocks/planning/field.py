"""NavigationField: follow a DXform or D* distance field whose obstacles appear on schedule."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.planning import Dstar, DXform
from blocksim.robotics.planning._messages import plain
from blocksim.robotics.planning.follow import field_lookahead

from .path import check_lookahead, driven_path, store_figure
from .planner import grid_of, obstacle_rows, rect_grid


@njit(cache=True, error_model="numpy")
def field_output(t, x, pose, params):
    fields, times, niters, ny, nx, ox, oy, cs, lookahead = params
    k = 0
    for i in range(1, times.shape[0]):
        if times[i] <= t:
            k = i
    n = ny * nx
    field = fields[k * n : (k + 1) * n].reshape((ny, nx))
    return field_lookahead(field, ox, oy, cs, pose[0], pose[1], lookahead), float(k), niters[k]


class NavigationField(Block):
    """Distance-field navigation (RTB ``DXform`` / ``Dstar`` driving a robot): the point about
    ``lookahead`` metres down the goal-distance field from the vehicle's cell, for a
    pure-pursuit driver; obstacles unknown to the first plan appear at given times and the
    field switches to the replanned one.

    The fields are computed when the block is made: the plan to ``goal`` on the map, then after
    each scheduled obstacle a replan, ``Dstar``'s incremental repair (``costmap_modify`` of the
    new cells, then ``plan()``) or a fresh ``DXform``. A goal-distance field does not depend on
    where the robot is, so following the field switched at time t is what replanning at t
    gives; the block runs in the compiled back-end. (For a goal that changes during the run use
    :class:`Planner`.)

    Parameters
    ----------
    planner : {"dstar", "dxform"}
    map : str or array_like
        A shipped map name, a ``.png``/``.npy`` file or a 2-D array (0 free).
    goal : (2,) float
        Goal [m].
    cellsize : float, optional
        Cell size [m] of a file or array map (default 1).
    origin : (2,) float
        World position [m] of cell (0, 0) of a file or array map.
    inflate : float
        Obstacle inflation radius [m].
    lookahead : float
        Distance [m] walked down the field (default 0.5).
    obstacles : list of (t, xmin, ymin, xmax, ymax)
        Rectangles [m] appearing at time t [s].
    metric : str
        DXform metric.

    Inputs
    ------
    pose : ndarray (3,)
        Vehicle pose (x, y, theta) [m, m, rad].

    Outputs
    -------
    target : ndarray (2,)
        Point to pursue [m] (a cell centre).
    stage : float
        Obstacles appeared so far (the field in use).
    niter : float
        D* states processed to make the field in use (the fresh plan, then each repair); 0
        for DXform.
    """

    inputs = (Port("pose", shape=(3,), doc="vehicle pose"),)
    outputs = (Port("target", shape=(2,), doc="point to pursue [m]"), "stage", "niter")

    def __init__(
        self,
        planner: str = "dstar",
        map: str | Sequence[Sequence[float]] = "arena",
        goal: Any = (5.0, 9.0),
        cellsize: float | None = None,
        origin: Sequence[float] = (0.0, 0.0),
        inflate: float = 0.0,
        lookahead: float = 0.5,
        obstacles: Any = (),
        metric: str = "euclidean",
    ) -> None:
        super().__init__()
        o = type(self).__name__
        if planner not in ("dstar", "dxform"):
            raise BlockParameterError(
                f"{o}: parameter 'planner' must be 'dstar' or 'dxform', got {plain(planner)}"
            )
        self.planner, self.map, self.cellsize = planner, map, cellsize
        self.origin = tuple(float(v) for v in origin)
        self.og = grid_of(o, map, cellsize, self.origin)
        self.inflate = float(inflate)
        self.lookahead = check_lookahead(o, lookahead)
        self.obstacles = obstacle_rows(o, obstacles)
        self.metric = metric
        g = np.asarray(goal, dtype=float).reshape(-1)
        if g.shape != (2,) or not np.all(np.isfinite(g)):
            raise BlockParameterError(
                f"{o}: parameter 'goal' must be a point (x, y) [m], got {plain(goal)}"
            )
        self.goal = g
        try:
            self.fields, self.niters = self._plan()
        except ValueError as e:
            raise BlockParameterError(f"{o}: {e}") from None
        self.times = np.concatenate([[0.0], self.obstacles[:, 0]])

    def _plan(self) -> tuple[list[np.ndarray], list[int]]:
        fields, niters = [], []
        if self.planner == "dstar":
            ds = Dstar(self.og, goal=self.goal, inflate=self.inflate)
            ds.plan()
            fields.append(ds.distancemap_get())
            niters.append(ds.niter)
            inflated = ds.occgrid.occ
            for row in self.obstacles:
                grown = rect_grid(self.og, row[1:]).inflate(self.inflate).occ & ~inflated
                ds.costmap_modify(self.og.cell_to_world(np.argwhere(grown)[:, ::-1]), np.inf)
                ds.plan()
                fields.append(ds.distancemap_get())
                niters.append(ds.niter)
        else:
            occ = self.og.occ.copy()
            for k in range(len(self.obstacles) + 1):
                if k:
                    occ |= rect_grid(self.og, self.obstacles[k - 1, 1:]).occ
                dx = DXform(
                    type(self.og)(occ, self.og.cellsize, self.og.origin),
                    goal=self.goal,
                    metric=self.metric,
                    inflate=self.inflate,
                )
                fields.append(dx.plan())
                niters.append(0)
        return fields, niters

    def _kernel_params(self) -> tuple:
        ny, nx = self.og.shape
        flat = np.ascontiguousarray(np.concatenate([f.reshape(-1) for f in self.fields]))
        return (
            flat,
            self.times.copy(),
            np.asarray(self.niters, dtype=float),
            ny,
            nx,
            float(self.og.origin[0]),
            float(self.og.origin[1]),
            self.og.cellsize,
            self.lookahead,
        )

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]):
        k = int(np.searchsorted(self.times, t, side="right")) - 1
        k = max(k, 0)
        pose = u[0]
        target = field_lookahead(
            self.fields[k],
            float(self.og.origin[0]),
            float(self.og.origin[1]),
            self.og.cellsize,
            float(pose[0]),
            float(pose[1]),
            self.lookahead,
        )
        return target, float(k), float(self.niters[k])

    def next_breakpoint(self, t: float) -> float:
        """The next obstacle time after ``t`` [s] (the field switches there)."""
        later = self.times[self.times > t]
        return float(later[0]) if len(later) else float("inf")

    def kernels(self) -> Kernels:
        """Params ``(fields flattened, times, niters, ny, nx, ox, oy, cellsize, lookahead)``."""
        return Kernels(params=self._kernel_params(), output=field_output)

    def planned_paths(self, t: np.ndarray, driven: np.ndarray) -> list[np.ndarray]:
        """The path (N, 2) [m] down each field in use from where the vehicle was when it came
        into use (recorded times ``t`` and poses ``driven``)."""
        from blocksim.robotics.planning.dxform import _N8, _descend

        paths = []
        for k, t0 in enumerate(self.times):
            i = int(np.searchsorted(t, t0))
            if i >= len(t):
                break
            cell = self.og.world_to_cell(driven[i, :2])
            field = self.fields[k]
            if not self.og.in_grid(cell) or not np.isfinite(field[cell[1], cell[0]]):
                continue
            cells = _descend(field, int(cell[0]), int(cell[1]), _N8)
            paths.append(self.og.cell_to_world(cells.astype(float)))
        return paths

    def stop(self, run: Any) -> None:
        """Store the figure of the run in ``result.figures``: the map and the last distance
        field, the obstacles that appeared, each plan, the path driven and the goal."""
        from blocksim.viz.planning_plot import plot_drive

        result = getattr(run, "result", None)
        driven = driven_path(self, run)
        if result is None or driven is None or not len(driven):
            return
        t = np.asarray(result.t)
        k = max(int(np.searchsorted(self.times, t[-1], side="right")) - 1, 0)
        occ = self.og.occ.copy()
        for row in self.obstacles[:k]:
            occ |= rect_grid(self.og, row[1:]).occ
        og = type(self.og)(occ, self.og.cellsize, self.og.origin)
        store_figure(self, run, functools.partial(
            plot_drive, og, self.planned_paths(t, driven), driven, self.goal,
            inflated=og.inflate(self.inflate) if self.inflate else None,
            distance=self.fields[k], obstacles=self.obstacles[: k],
            title=f"{'D*' if self.planner == 'dstar' else 'DXform'} navigation: map, plans "
                  "and the path driven"))  # fmt: skip
