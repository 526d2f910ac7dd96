"""Lattice planner for car-like vehicles (Robotics Toolbox ``Lattice``, ``Lattice.query``).

From every node the vehicle can drive three motion primitives of length about one grid step
``d`` (in the node's frame, x forward): **straight** to (d, 0) keeping its heading, **left** a
quarter circle of radius d to (d, d) turning +pi/2, **right** a quarter circle to (d, -d)
turning -pi/2. So the lattice's turning radius is the grid spacing. Nodes are poses on the grid
``root + d (i, j)`` with headings multiple of pi/2 (RTB stores 0..3), built breadth first from the
root for ``iterations`` layers (or until no node can be added). A primitive is kept when its
whole swept arc lies in free cells (RTB only checks the end cell). Paths are found by A* through
networkx on the directed graph, with each primitive's cost from ``cost = [straight, left,
right]``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import networkx as nx
import numpy as np

from ._messages import plain
from .navigation import PlanningError, fmt
from .occgrid import OccupancyGrid, as_grid

__all__ = ["Lattice"]

#: displacement (in grid steps, node frame) and heading change (quarter turns) per primitive
_PRIMS = ((1, 0, 0), (1, 1, 1), (1, -1, 3))
_PRIM_NAMES = ("straight", "left", "right")


def _rot(h: np.ndarray | int, a, b):
    """Rotate (a, b) by h quarter turns; works on integer arrays."""
    h = np.asarray(h) % 4
    ca = np.choose(h, [1, 0, -1, 0])
    sa = np.choose(h, [0, 1, 0, -1])
    return ca * a - sa * b, sa * a + ca * b


def primitive_points(prim: int, n: int) -> np.ndarray:
    """Poses (n, 3) along primitive ``prim`` (0 straight, 1 left, 2 right) for a unit grid step,
    in the start node's frame (x forward), from (0, 0, 0) to its end pose."""
    if prim == 0:
        s = np.linspace(0.0, 1.0, n)
        return np.stack([s, np.zeros(n), np.zeros(n)], axis=1)
    phi = np.linspace(0.0, math.pi / 2, n)
    sign = 1.0 if prim == 1 else -1.0
    return np.stack([np.sin(phi), sign * (1.0 - np.cos(phi)), sign * phi], axis=1)


class Lattice:
    """Lattice planner.

    Parameters
    ----------
    occgrid : OccupancyGrid or array_like or None
        Map (0 free). None: no obstacles, and ``iterations`` must be finite.
    grid : float
        Grid spacing d [m] = turning radius of the arcs (default 1).
    root : (3,) array_like
        Root pose (x, y, theta) [m, m, rad]; theta is rounded to a multiple of pi/2.
    iterations : int or inf
        Layers of the breadth-first construction (default inf: until nothing can be added).
    cost : (3,) array_like
        Cost of a straight, left and right primitive (default [1, 1, 1]), each > 0.
    inflate : float
        Obstacle inflation radius [m].
    """

    def __init__(
        self,
        occgrid=None,
        grid: float = 1.0,
        root: Sequence[float] = (0.0, 0.0, 0.0),
        iterations: float = math.inf,
        cost: Sequence[float] = (1.0, 1.0, 1.0),
        inflate: float = 0.0,
    ) -> None:
        self.occgrid: OccupancyGrid | None = None
        if occgrid is not None:
            try:
                self.occgrid = as_grid(occgrid, "Lattice").inflate(float(inflate))
            except (TypeError, ValueError) as e:
                raise ValueError(f"Lattice: {e}") from None
        d = float(grid)
        if not (math.isfinite(d) and d > 0):
            raise ValueError(f"Lattice: grid must be a spacing > 0 [m], got {plain(grid)}")
        self.grid = d
        r = np.asarray(root, dtype=float).reshape(-1)
        if r.shape[0] == 2:
            r = np.append(r, 0.0)
        if r.shape != (3,) or not np.all(np.isfinite(r)):
            raise ValueError(f"Lattice: root must be (x, y) or (x, y, theta), got {plain(root)}")
        self.root = r
        self.iterations = iterations
        self.cost = cost
        self.graph: nx.DiGraph = nx.DiGraph()
        self.vpath: list[tuple[int, int, int]] = []
        self.pathcost = math.nan

    @staticmethod
    def _check(iterations, cost) -> tuple[float, tuple[float, float, float]]:
        it = float(iterations)
        if not (it >= 1) or (math.isfinite(it) and it != int(it)):
            raise ValueError(
                f"Lattice: iterations must be an integer >= 1 or inf, got {plain(iterations)}"
            )
        c = tuple(float(v) for v in np.asarray(cost, dtype=float).reshape(-1))
        if len(c) != 3 or not all(math.isfinite(v) and v > 0 for v in c):
            raise ValueError(
                "Lattice: cost must be 3 positive numbers [straight, left, right], got "
                f"{plain(cost)}"
            )
        return it, c  # type: ignore[return-value]

    # -- building ---------------------------------------------------------------------------
    def _node_pose(self, nodes: np.ndarray) -> np.ndarray:
        """Integer nodes (K, 3) (i, j, h) -> world poses (K, 3), heading in quarter turns."""
        xy = self.root[:2] + self.grid * nodes[:, :2]
        return np.column_stack([xy, nodes[:, 2]])

    def _samples(self) -> int:
        cs = self.occgrid.cellsize if self.occgrid is not None else self.grid
        return max(3, math.ceil(math.pi / 2 * self.grid / (0.5 * cs)) + 1)

    def plan(self, iterations=None, cost=None) -> nx.DiGraph:
        """Build the lattice (RTB ``plan('iterations', N, 'cost', C)``); returns the graph.

        Nodes are integer tuples (i, j, h): pose ``root[:2] + grid * (i, j)``, heading
        ``h * pi / 2`` (h in 0..3); edges carry ``weight`` (the primitive's cost) and ``prim``
        (0 straight, 1 left, 2 right).
        """
        if iterations is not None:
            self.iterations = iterations
        if cost is not None:
            self.cost = cost
        it, c = self._check(self.iterations, self.cost)
        self.iterations, self.cost = it, c
        if self.occgrid is None and not math.isfinite(it):
            raise ValueError("Lattice: iterations must be finite when there is no occupancy grid")
        h0 = round(self.root[2] * 2 / math.pi) % 4
        root = (0, 0, h0)
        if self.occgrid is not None and self.occgrid.is_occupied(self.root[:2]):
            raise ValueError(f"Lattice: root {fmt(self.root[:2])} is in an occupied cell")
        n = self._samples()
        # sample points of each primitive for each heading, in grid steps: (4, 3, n, 2)
        offs = np.empty((4, 3, n, 2))
        for h in range(4):
            for p in range(3):
                pts = primitive_points(p, n)
                offs[h, p, :, 0], offs[h, p, :, 1] = _rot(h, pts[:, 0], pts[:, 1])
        G = nx.DiGraph()
        G.add_node(root)
        frontier = np.array([root], dtype=np.int64)
        layer = 0
        while len(frontier) and layer < it:
            layer += 1
            m = len(frontier)
            prim = np.repeat(np.arange(3), m)
            src = np.tile(frontier, (3, 1))
            da = np.array([p[0] for p in _PRIMS])[prim]
            db = np.array([p[1] for p in _PRIMS])[prim]
            dx, dy = _rot(src[:, 2], da, db)
            dst = np.column_stack(
                [
                    src[:, 0] + dx,
                    src[:, 1] + dy,
                    (src[:, 2] + np.array([p[2] for p in _PRIMS])[prim]) % 4,
                ]
            )
            if self.occgrid is not None:
                pts = self.root[:2] + self.grid * (src[:, None, :2] + offs[src[:, 2], prim])
                free = ~np.any(self.occgrid.is_occupied(pts), axis=1)
            else:
                free = np.ones(len(dst), dtype=bool)
            new: list[tuple] = []
            seen: set[tuple] = set()
            edges = []
            for s, d_, p, ok in zip(
                map(tuple, src.tolist()), map(tuple, dst.tolist()), prim.tolist(), free.tolist()
            ):
                if not ok:
                    continue
                if d_ not in G and d_ not in seen:
                    seen.add(d_)
                    new.append(d_)
                edges.append((s, d_, {"weight": c[p], "prim": p}))
            G.add_edges_from(edges)
            frontier = np.array(new, dtype=np.int64).reshape(-1, 3)
        self.graph = G
        self.vpath = []
        return G

    # -- query ------------------------------------------------------------------------------
    def _vertex(self, pose, what: str) -> tuple[int, int, int]:
        p = np.asarray(pose, dtype=float).reshape(-1)
        if p.shape != (3,) or not np.all(np.isfinite(p)):
            raise ValueError(f"Lattice: {what} must be a pose (x, y, theta), got {plain(pose)}")
        ij = (p[:2] - self.root[:2]) / self.grid
        node = (round(ij[0]), round(ij[1]), round(p[2] * 2 / math.pi) % 4)
        if np.hypot(ij[0] - node[0], ij[1] - node[1]) > 0.5 or node not in self.graph:
            raise ValueError(f"Lattice: {what} configuration {fmt(p)} not in lattice")
        return node

    def query(self, start, goal) -> np.ndarray:
        """Path (N, 3) of lattice poses (x, y, theta) [m, m, rad] from ``start`` to ``goal``.

        Both poses are snapped to the nearest lattice vertex within half a grid step (heading
        rounded to a multiple of pi/2); theta is returned wrapped to (-pi, pi]. The A* cost is in
        :attr:`pathcost`, the vertices in :attr:`vpath`.
        """
        if self.graph.number_of_nodes() == 0:
            raise PlanningError("Lattice: call plan() before query()")
        s = self._vertex(start, "start")
        g = self._vertex(goal, "goal")
        scale = min(self.cost) / math.sqrt(2.0)

        def heuristic(a, b):
            return scale * math.hypot(a[0] - b[0], a[1] - b[1])

        try:
            vpath = nx.astar_path(self.graph, s, g, heuristic=heuristic, weight="weight")
        except nx.NetworkXNoPath:
            raise PlanningError(f"Lattice: no path from {fmt(start)} to {fmt(goal)}") from None
        self.vpath = vpath
        self.pathcost = nx.path_weight(self.graph, vpath, weight="weight")
        return self.poses(vpath)

    def poses(self, vpath) -> np.ndarray:
        """World poses (N, 3) of lattice vertices, theta wrapped to (-pi, pi]."""
        v = np.asarray(vpath, dtype=np.int64).reshape(-1, 3)
        out = self._node_pose(v)
        th = out[:, 2] * (math.pi / 2)
        out[:, 2] = np.where(th > math.pi, th - 2 * math.pi, th)
        return out

    def densify(self, vpath=None, n: int = 10) -> np.ndarray:
        """Poses (M, 3) along the primitives' arcs between consecutive vertices of ``vpath``
        (default: the last query), ``n`` points per primitive (shared ends counted once)."""
        vpath = self.vpath if vpath is None else vpath
        if len(vpath) < 1:
            raise PlanningError("Lattice: no path to densify (call query() first)")
        if n < 2:
            raise ValueError(f"Lattice.densify: n must be >= 2, got {plain(n)}")
        out = [self.poses([vpath[0]])]
        for u, v in itertools.pairwise(vpath):
            out.append(self.edge_poses(u, v, n)[1:])
        res = np.vstack(out)
        res[:, 2] = np.angle(np.exp(1j * res[:, 2]))
        return res

    def edge_poses(self, u, v, n: int = 10) -> np.ndarray:
        """Poses (n, 3) [m, m, rad] along the primitive from vertex ``u`` to vertex ``v``."""
        data = self.graph.get_edge_data(tuple(u), tuple(v))
        if data is None:
            raise ValueError(f"Lattice: no primitive from {u} to {v}")
        pts = primitive_points(data["prim"], n)
        h = int(u[2])
        x, y = _rot(h, pts[:, 0], pts[:, 1])
        base = self._node_pose(np.asarray([u], dtype=np.int64))[0]
        return np.column_stack(
            [base[0] + self.grid * x, base[1] + self.grid * y, h * math.pi / 2 + pts[:, 2]]
        )

    def __repr__(self) -> str:
        return (
            f"Lattice(grid {self.grid:g} m, root {fmt(self.root)}, iterations "
            f"{plain(self.iterations)}, cost {plain(self.cost)}, "
            f"{self.graph.number_of_nodes()} nodes, {self.graph.number_of_edges()} edges)"
        )
