"""One call from (map, start, goal) to a path, for any planner of the package.

:func:`plan_path` is what a diagram needs to plan from its parameters (the :class:`PathCarrot`
block): the planner made on the map, planned, queried from ``start`` to ``goal``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .bug2 import Bug2
from .dstar import Dstar
from .dxform import DXform
from .lattice import Lattice
from .navigation import Navigation
from .occgrid import OccupancyGrid
from .prm import PRM

__all__ = ["PLANNERS", "plan_path"]

#: planner names accepted by :func:`plan_path`
PLANNERS = ("dxform", "dstar", "prm", "bug2", "lattice")


def plan_path(
    planner: str,
    occgrid: OccupancyGrid,
    start: Sequence[float],
    goal: Sequence[float],
    inflate: float = 0.0,
    *,
    metric: str = "euclidean",
    npoints: int = 200,
    seed: int = 0,
    grid: float = 1.0,
    cost: Sequence[float] = (1.0, 1.0, 1.0),
    n: int = 8,
) -> tuple[Navigation | Lattice, np.ndarray]:
    """Plan with ``planner`` on ``occgrid`` from ``start`` to ``goal``.

    Parameters
    ----------
    planner : {"dxform", "dstar", "prm", "bug2", "lattice"}
    occgrid : OccupancyGrid
        The map (not inflated).
    start, goal : array_like
        Points (x, y) [m]; poses (x, y, theta) for ``"lattice"`` (whose root is the start).
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
        Lattice: poses per primitive of the densified path.

    Returns
    -------
    planner : the planner object (for plotting)
    path : ndarray (N, 2), or (N, 3) poses for ``"lattice"``

    Raises
    ------
    ValueError
        Unknown planner, start or goal outside the map or in an obstacle.
    PlanningError
        No path.
    """
    s = np.asarray(start, dtype=float).reshape(-1)
    g = np.asarray(goal, dtype=float).reshape(-1)
    if planner == "lattice":
        lp = Lattice(occgrid, grid=grid, root=s, cost=cost, inflate=inflate)
        lp.plan()
        lp.query(s, g)
        return lp, lp.densify(n=n)
    p: Any
    if planner == "dxform":
        p = DXform(occgrid, goal=g[:2], metric=metric, inflate=inflate)
        p.plan()
        return p, p.query(s[:2])
    if planner == "dstar":
        p = Dstar(occgrid, goal=g[:2], inflate=inflate)
        p.plan()
        return p, p.query(s[:2])
    if planner == "prm":
        p = PRM(occgrid, npoints=npoints, seed=seed, inflate=inflate)
        p.plan()
        return p, p.query(s[:2], g[:2])
    if planner == "bug2":
        p = Bug2(occgrid, goal=g[:2], inflate=inflate)
        return p, p.query(s[:2])
    raise ValueError(f"plan_path: planner must be one of {PLANNERS}, got {planner!r}")
