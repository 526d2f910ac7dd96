"""PathCarrot: a planned path as the moving target of a pure-pursuit driver; the figure the
planning blocks put in ``result.figures`` after a run (map, planned and driven paths, goal)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numba import njit

from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.planning._messages import plain
from blocksim.robotics.planning.follow import lookahead_point, path_xy
from blocksim.robotics.planning.navigation import PlanningError
from blocksim.robotics.planning.oneshot import PLANNERS, plan_path


@njit(cache=True, error_model="numpy")
def carrot_output(t, x, pose, params):
    path = params[0].reshape(-1, 2)
    return lookahead_point(path, pose[0], pose[1], params[1])


def check_lookahead(owner: str, lookahead: Any) -> float:
    try:
        v = float(lookahead)
    except (TypeError, ValueError):
        v = float("nan")
    if not (np.isfinite(v) and v > 0):
        raise BlockParameterError(
            f"{owner}: parameter 'lookahead' must be a distance > 0 [m], got {plain(lookahead)}"
        )
    return v


def store_figure(block: Block, run: Any, draw: Callable[[], Any]) -> None:
    """Put the figure ``draw()`` makes in ``run.result.figures`` under the block's path (as the
    sinks do: drawn when first read, so a run nobody plots never imports matplotlib)."""
    result = getattr(run, "result", None)
    if result is None or not hasattr(result, "figures"):
        return
    key = getattr(result, "block_paths", {}).get(id(block)) or block.name or "plan"
    if hasattr(result.figures, "defer"):
        result.figures.defer(key, draw)
    else:
        result.figures[key] = draw()


def driven_path(block: Block, run: Any) -> np.ndarray | None:
    """The recorded ``pose`` input of ``block`` (M, 3), or None."""
    result = getattr(run, "result", None)
    path = getattr(result, "block_paths", {}).get(id(block), block.name)
    try:
        return np.asarray(result[f"{path}.pose"], dtype=float)
    except (KeyError, TypeError):
        return None


class PathCarrot(Block):
    """Path source for pure pursuit: the point ``lookahead`` metres along a planned path beyond
    the vehicle's nearest point on it, the path's end once that is within reach.

    The path is given (``path``: any planner's output, an (N, 2) grid path or an (N, 3) pose
    path, e.g. ``Lattice.densify()``), or planned when the block is made from ``planner``,
    ``map``, ``start`` and ``goal`` (:func:`blocksim.robotics.planning.plan_path`), so that a
    diagram file plans from its parameters: ``--set plan.goal=...`` replans. Connect ``target``
    to a pure-pursuit driver whose following distance is 0: the vehicle cruises at
    ``Kv * lookahead`` and stops at the path's end. After the run the block's figure in
    ``result.figures`` shows the map, the path, the path driven and the goal.

    Parameters
    ----------
    path : array_like (N, 2) or (N, 3), optional
        Points [m] (a third column, heading, is ignored). Give either ``path`` or ``planner``.
    lookahead : float
        Look-ahead distance along the path [m] (default 0.5).
    planner : {"dxform", "dstar", "prm", "bug2", "lattice"}, optional
        Plan the path with this planner.
    map : str or array_like
        A shipped map name (``"office"``, ``"arena"``, ``"maze"``), a ``.png``/``.npy`` file or
        a 2-D array (0 free), for ``planner``.
    start, goal : array_like
        Start and goal points (x, y) [m]; poses (x, y, theta) for ``"lattice"``.
    cellsize : float, optional
        Cell size [m] of a file or array map (default 1).
    origin : (2,) float
        World position [m] of cell (0, 0) of a file or array map.
    inflate : float
        Obstacle inflation radius [m].
    metric : str
        DXform metric.
    npoints, seed : int
        PRM sample count and seed.
    grid : float
        Lattice spacing = turning radius [m].
    cost : (3,) float
        Lattice primitive costs (straight, left, right).
    n : int
        Lattice poses per primitive of the densified path (default 8).

    Inputs
    ------
    pose : ndarray (3,)
        Vehicle pose (x, y, theta) [m, m, rad].

    Outputs
    -------
    target : ndarray (2,)
        The look-ahead point [m].
    """

    inputs = (Port("pose", shape=(3,), doc="vehicle pose (x, y, theta)"),)
    outputs = (Port("target", shape=(2,), doc="look-ahead point on the path [m]"),)

    def __init__(
        self,
        path: Any = None,
        lookahead: float = 0.5,
        planner: str | None = None,
        map: str | Sequence[Sequence[float]] = "arena",
        start: Any = None,
        goal: Any = None,
        cellsize: float | None = None,
        origin: Sequence[float] = (0.0, 0.0),
        inflate: float = 0.0,
        metric: str = "euclidean",
        npoints: int = 200,
        seed: int = 0,
        grid: float = 1.0,
        cost: Sequence[float] = (1.0, 1.0, 1.0),
        n: int = 8,
    ) -> None:
        super().__init__()
        o = type(self).__name__
        self.lookahead = check_lookahead(o, lookahead)
        self.og = self.planned = None
        self.goal = None
        if planner is not None:
            if path is not None:
                raise BlockParameterError(f"{o}: give either 'path' or 'planner', not both")
            path = self._plan(o, planner, map, start, goal, cellsize, origin, inflate,
                              dict(metric=metric, npoints=npoints, seed=seed, grid=grid,
                                   cost=cost, n=n))  # fmt: skip
        elif path is None:
            path = ((0.0, 0.0), (1.0, 0.0))
        try:
            self._xy = path_xy(path)
        except (TypeError, ValueError) as e:
            raise BlockParameterError(f"{o}: parameter 'path': {e}") from None
        self.path = np.array(path, dtype=float)

    def _plan(self, o, planner, map, start, goal, cellsize, origin, inflate, opts):
        from .planner import grid_of

        if planner not in PLANNERS:
            raise BlockParameterError(
                f"{o}: parameter 'planner' must be one of {PLANNERS}, got {plain(planner)}"
            )
        k = 3 if planner == "lattice" else 2
        pts = {}
        for name, v in (("start", start), ("goal", goal)):
            try:
                a = np.asarray(v, dtype=float).reshape(-1)
            except (TypeError, ValueError):
                a = np.zeros(0)
            if a.shape != (k,) or not np.all(np.isfinite(a)):
                what = "a pose (x, y, theta)" if k == 3 else "a point (x, y)"
                raise BlockParameterError(
                    f"{o}: parameter '{name}' must be {what} [m] for planner "
                    f"'{planner}', got {plain(v)}"
                )
            pts[name] = a
        self.og = grid_of(o, map, cellsize, tuple(float(v) for v in origin))
        try:
            self._planner, path = plan_path(planner, self.og, pts["start"], pts["goal"],
                                            float(inflate), **opts)  # fmt: skip
        except (ValueError, PlanningError) as e:
            raise BlockParameterError(f"{o}: planning failed: {e}") from None
        self.goal, self.planned, self._inflate = pts["goal"], path, float(inflate)
        return path

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        pose = u[0]
        return (lookahead_point(self._xy, float(pose[0]), float(pose[1]), self.lookahead),)

    def kernels(self) -> Kernels:
        """Params ``(path (N, 2) flattened, lookahead)``."""
        return Kernels(params=(self._xy.reshape(-1).copy(), self.lookahead), output=carrot_output)

    def stop(self, run: Any) -> None:
        """Store the figure of the run: map (when planned here), path, driven path, goal."""
        from blocksim.viz.planning_plot import plot_drive

        og = self.og
        inflated = og.inflate(self._inflate) if og is not None and self._inflate else None
        goal = self.goal if self.goal is not None else self.path[-1]
        store_figure(self, run, functools.partial(
            plot_drive, og, self.path, driven_path(self, run), goal, inflated=inflated,
            title="Planned path and the path driven"))  # fmt: skip
