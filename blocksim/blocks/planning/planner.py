"""Planner: plans on a map, replans when its goal input changes or an obstacle appears."""

from __future__ import annotations

import copy
import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.confine import PathRefused, input_path
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import as_clock
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.planning import (
    MAPS,
    PRM,
    Bug2,
    Dstar,
    DXform,
    Lattice,
    OccupancyGrid,
    load_map,
)
from blocksim.robotics.planning._messages import plain
from blocksim.robotics.planning.follow import lookahead_point, path_xy

from .path import check_lookahead, driven_path, store_figure

PLANNERS = ("dxform", "dstar", "prm", "bug2", "lattice")


def grid_of(owner: str, map: Any, cellsize: Any, origin: Any) -> OccupancyGrid:
    """The map parameter as a grid (shipped name, file or array), with a parameter error."""
    try:
        if isinstance(map, str):
            if map in MAPS:
                return load_map(map)
            return OccupancyGrid.from_file(
                input_path(map, "parameter 'map'"), cellsize=float(cellsize or 1.0),
                origin=origin
            )
        return OccupancyGrid(np.asarray(map, dtype=float), float(cellsize or 1.0), origin)
    except PathRefused as e:
        raise BlockParameterError(f"{owner}: {e}") from None
    except (OSError, TypeError, ValueError) as e:
        raise BlockParameterError(
            f"{owner}: parameter 'map' must be a shipped map name "
            f"{sorted(MAPS)}, a .png/.npy file or a 2-D array: {e}"
        ) from None


def obstacle_rows(owner: str, obstacles: Any) -> np.ndarray:
    """The obstacle schedule as an (K, 5) array of (t, xmin, ymin, xmax, ymax), sorted by t."""
    try:
        obs = (
            np.asarray(obstacles, dtype=float).reshape(-1, 5)
            if len(obstacles)
            else (np.zeros((0, 5)))
        )
    except (TypeError, ValueError):
        obs = np.full((1, 5), np.nan)
    if not np.all(np.isfinite(obs)):
        raise BlockParameterError(
            f"{owner}: parameter 'obstacles' must be rows (t, xmin, ymin, "
            f"xmax, ymax) of finite numbers, got {plain(obstacles)}"
        )
    return obs[np.argsort(obs[:, 0], kind="stable")]


def rect_grid(og: OccupancyGrid, rect) -> OccupancyGrid:
    """A grid like ``og`` occupied only where cell centres lie in (xmin, ymin, xmax, ymax)."""
    ny, nx = og.shape
    cols, rows = np.meshgrid(np.arange(nx), np.arange(ny))
    xy = og.cell_to_world(np.stack([cols, rows], axis=-1))
    x1, y1, x2, y2 = rect
    mask = (
        (xy[..., 0] >= min(x1, x2))
        & (xy[..., 0] <= max(x1, x2))
        & (xy[..., 1] >= min(y1, y2))
        & (xy[..., 1] <= max(y1, y2))
    )
    return OccupancyGrid(mask, og.cellsize, og.origin)


class Planner(Block):
    """Path planner in a diagram: plans from the vehicle's pose to the goal input, replans when
    the goal changes (or when a scheduled obstacle appears), and outputs the look-ahead point of
    the current path for a pure-pursuit driver (see :class:`PathCarrot`).

    At each clock hit the block compares its goal input and the number of obstacles that have
    appeared with those of the plan in use; on a change it replans from the current pose (the
    nearest free cell when the pose is in an occupied cell). ``Dstar`` repairs its previous plan
    incrementally (``costmap_modify`` then ``plan()``); the others plan afresh on the map with the
    obstacles added. Plans are a pure function of (goal, start, obstacles): they are memoised on
    the block, so a second run recomputes nothing and gives the same result.

    Parameters
    ----------
    planner : {"dxform", "dstar", "prm", "bug2", "lattice"}
    map : str or array_like
        A shipped map name (``"office"``, ``"maze"``), a ``.png``/``.npy`` file, or an array.
    cellsize : float, optional
        Cell size [m] of a file or array map (default 1; shipped maps carry theirs).
    origin : (2,) float
        World position [m] of cell (0, 0) of a file or array map.
    inflate : float
        Obstacle inflation radius [m].
    lookahead : float
        Look-ahead distance along the path [m] (default 0.5).
    obstacles : list of (t, xmin, ymin, xmax, ymax)
        Rectangles [m] that appear at time t [s] (unknown to the planner before).
    metric : str
        DXform metric (``"euclidean"`` or ``"cityblock"``).
    npoints, seed : int
        PRM sample count and seed.
    grid : float
        Lattice spacing = turning radius [m]; the lattice's root is the start pose.
    cost : (3,) float
        Lattice primitive costs (straight, left, right).
    clock : float
        Period [s] of the replanning check and of the output (default 0.1).

    Inputs
    ------
    pose : ndarray (3,)
        Vehicle pose (x, y, theta) [m, m, rad].
    goal : ndarray (2,) or (3,)
        Goal point [m] (a pose (x, y, theta) for ``"lattice"``).

    Outputs
    -------
    target : ndarray (2,)
        Look-ahead point on the current path [m].
    replans : float
        Plans made so far (1 after the first hit).
    niter : float
        D* states processed by the plan in use (0 for the other planners).

    States
    ------
    Discrete: the goal, the start pose and the obstacle count of the plan in use, the number of
    plans and the niter of the plan in use.
    """

    inputs = (Port("pose", shape=(3,), doc="vehicle pose"), "goal")
    outputs = (Port("target", shape=(2,), doc="look-ahead point [m]"), "replans", "niter")
    feedthrough = {"target": ("pose", "goal"), "replans": (), "niter": ()}

    def __init__(
        self,
        planner: str = "dxform",
        map: str | Sequence[Sequence[float]] = "office",
        cellsize: float | None = None,
        origin: Sequence[float] = (0.0, 0.0),
        inflate: float = 0.0,
        lookahead: float = 0.5,
        obstacles: Any = (),
        metric: str = "euclidean",
        npoints: int = 200,
        seed: int = 0,
        grid: float = 1.0,
        cost: Sequence[float] = (1.0, 1.0, 1.0),
        clock: float = 0.1,
    ) -> None:
        super().__init__()
        o = type(self).__name__
        if planner not in PLANNERS:
            raise BlockParameterError(
                f"{o}: parameter 'planner' must be one of {PLANNERS}, got {plain(planner)}"
            )
        self.planner = planner
        self.map = map
        self.cellsize = cellsize
        self.origin = tuple(float(v) for v in origin)
        self.og = grid_of(o, map, cellsize, self.origin)
        self.inflate = float(inflate)
        self.lookahead = check_lookahead(o, lookahead)
        self.obstacles = obstacle_rows(o, obstacles)
        self.metric, self.npoints, self.seed = metric, int(npoints), int(seed)
        self.grid, self.cost = float(grid), tuple(float(c) for c in cost)
        self.clock = as_clock(clock, o)
        if self.clock is None:
            raise BlockParameterError(f"{o}: parameter 'clock' must be a sample period [s]")
        self.k = 3 if planner == "lattice" else 2
        self.set_ports(
            inputs=[
                Port("pose", shape=(3,), doc="vehicle pose"),
                Port("goal", shape=(self.k,), doc="goal"),
            ]
        )
        # state: goal (k), start (3), obstacle count, replans, niter
        self.set_state(np.concatenate([np.full(self.k + 3, np.nan), [0.0, 0.0, 0.0]]))
        self._plans: dict = {}
        # cells each obstacle adds to the inflated map (D* marks them +inf), as world points
        inflated = self.og.inflate(self.inflate).occ
        self._cells = []
        for r in self.obstacles:
            grown = rect_grid(self.og, r[1:]).inflate(self.inflate).occ & ~inflated
            self._cells.append(self.og.cell_to_world(np.argwhere(grown)[:, ::-1]))

    # -- planning (memoised pure functions of goal, start, obstacle count) ----------------------
    def _nobst(self, t: float) -> int:
        return int(np.searchsorted(self.obstacles[:, 0], t + 1e-12, side="right"))

    def _map_with(self, j: int) -> OccupancyGrid:
        """The map with the first j obstacles added (not inflated)."""
        occ = self.og.occ.copy()
        for r in self.obstacles[:j]:
            occ |= rect_grid(self.og, r[1:]).occ
        return OccupancyGrid(occ, self.og.cellsize, self.og.origin)

    def _free_start(self, og: OccupancyGrid, start: np.ndarray) -> np.ndarray:
        xy = start[:2]
        if not og.is_occupied(xy):
            return start
        free = og.cell_to_world(og.free_cells())
        k = int(np.argmin(np.hypot(*(free - xy).T)))
        return np.array([*free[k], start[2]])

    def _dstar(self, goal: tuple, j: int) -> Dstar:
        key = ("dstar", goal, j)
        if key not in self._plans:
            if j == 0:
                ds = Dstar(self.og, goal=goal[:2], inflate=self.inflate)
                ds.plan()
            else:
                ds = copy.deepcopy(self._dstar(goal, j - 1))
                if len(self._cells[j - 1]):
                    ds.costmap_modify(self._cells[j - 1], np.inf)
                ds.plan()
            self._plans[key] = ds
        return self._plans[key]

    def plan(self, goal, start, j: int) -> tuple[np.ndarray, int]:
        """The path (N, 2) [m] from ``start`` (3,) to ``goal`` with the first ``j`` obstacles,
        and the D* states processed (0 for other planners)."""
        g = tuple(float(v) for v in goal)
        s = tuple(float(v) for v in start)
        key = (g, s, j)
        if key in self._plans:
            return self._plans[key]
        if self.planner == "dstar":
            ds = self._dstar(g, j)
            og = ds.occgrid
            path, niter = ds.query(self._free_start(og, np.array(s))[:2]), ds.niter
        else:
            og = self._map_with(j)
            infl = og.inflate(self.inflate)
            st = self._free_start(infl, np.array(s))
            niter = 0
            if self.planner == "dxform":
                p = DXform(og, goal=g[:2], metric=self.metric, inflate=self.inflate)
                p.plan()
                path = p.query(st[:2])
            elif self.planner == "prm":
                p = PRM(og, npoints=self.npoints, seed=self.seed, inflate=self.inflate)
                p.plan()
                path = p.query(st[:2], g[:2])
            elif self.planner == "bug2":
                path = Bug2(og, goal=g[:2], inflate=self.inflate).query(st[:2])
            else:
                lp = Lattice(og, grid=self.grid, root=st, cost=self.cost, inflate=self.inflate)
                lp.plan()
                lp.query(st, g)
                path = lp.densify(n=10)
        out = (path_xy(path), niter)
        self._plans[key] = out
        return out

    # -- block methods ------------------------------------------------------------------------
    def _current(self, t: float, x: np.ndarray, u: Sequence[Any]):
        k = self.k
        if np.isnan(x[0]):  # before the first hit: plan from the inputs
            return np.asarray(u[1], dtype=float), np.asarray(u[0], dtype=float), self._nobst(t)
        return x[:k], x[k : k + 3], int(x[k + 3])

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]):
        goal, start, j = self._current(t, x, u)
        path, _ = self.plan(goal, start, j)
        pose = u[0]
        target = lookahead_point(path, float(pose[0]), float(pose[1]), self.lookahead)
        return target, float(x[-2]), float(x[-1])

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        k = self.k
        goal = np.asarray(u[1], dtype=float)
        j = self._nobst(t)
        if np.isnan(x[0]) or not np.array_equal(goal, x[:k]) or j != int(x[k + 3]):
            start = np.asarray(u[0], dtype=float)
            _, niter = self.plan(goal, start, j)
            return np.concatenate([goal, start, [float(j), x[-2] + 1.0, float(niter)]])
        return np.array(x, dtype=float)

    def stop(self, run: Any) -> None:
        """Store the figure of the run in ``result.figures``: the map, the obstacles that
        appeared, every plan made, the path driven and the last goal."""
        from blocksim.viz.planning_plot import plot_drive

        result = getattr(run, "result", None)
        driven = driven_path(self, run)
        if result is None or driven is None or not len(driven):
            return
        plans = [(k, v[0]) for k, v in self._plans.items() if k[0] != "dstar"]
        goal = np.asarray(plans[-1][0][0]) if plans else None
        j = self._nobst(float(np.asarray(result.t)[-1]))
        og = self._map_with(j)
        store_figure(self, run, functools.partial(
            plot_drive, og, [p for _, p in plans], driven, goal,
            inflated=og.inflate(self.inflate) if self.inflate else None,
            obstacles=self.obstacles[:j],
            title=f"{self.planner} planner: map, plans and the path driven"))  # fmt: skip
