"""Probabilistic roadmap (Robotics Toolbox ``PRM``).

``plan`` samples ``npoints`` distinct free cells with a seeded generator, joins every pair closer
than ``distthresh`` whose Bresenham line crosses only free cells, and keeps the roadmap as an
undirected networkx graph weighted by Euclidean length. ``query(start, goal)`` joins start and
goal to their nearest visible roadmap vertex and searches it with A* (networkx, Euclidean
heuristic).
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from ._messages import plain
from .navigation import Navigation, PlanningError, fmt
from .raster import segments_free

__all__ = ["PRM"]


class PRM(Navigation):
    """Probabilistic roadmap planner.

    Parameters
    ----------
    occgrid : OccupancyGrid or array_like
        Map (0 free).
    npoints : int
        Number of roadmap vertices (default 100).
    distthresh : float, optional
        Edges join vertices closer than this [m] (default 0.3 max(map width, height), RTB's).
    seed : int
        Seed of the sampling generator (:func:`numpy.random.default_rng`); equal seeds give
        equal roadmaps.
    inflate : float
        Obstacle inflation radius [m].

    Attributes
    ----------
    graph : networkx.Graph
        Vertices 0..npoints-1 with attribute ``xy`` (world [m]), edges with ``weight`` [m].
    vertices : numpy.ndarray (npoints, 2)
        Vertex positions [m] (cell centres).
    """

    def __init__(
        self,
        occgrid,
        npoints: int = 100,
        distthresh: float | None = None,
        seed: int = 0,
        inflate: float = 0.0,
    ) -> None:
        super().__init__(occgrid, None, inflate)
        self.npoints = npoints
        self.distthresh = distthresh
        self.seed = seed
        self.graph = nx.Graph()
        self.vertices = np.zeros((0, 2))
        self.pathcost = math.nan

    def plan(
        self, npoints: int | None = None, distthresh: float | None = None, seed: int | None = None
    ) -> nx.Graph:
        """Build the roadmap (options override the constructor's); returns the graph."""
        if npoints is not None:
            self.npoints = npoints
        if distthresh is not None:
            self.distthresh = distthresh
        if seed is not None:
            self.seed = seed
        og = self.occgrid
        n = self.npoints
        if isinstance(n, bool) or int(n) != n or n < 1:
            raise ValueError(f"PRM: npoints must be an integer >= 1, got {plain(n)}")
        n = int(n)
        ny, nx_ = og.shape
        dt = self.distthresh
        if dt is None:
            dt = 0.3 * max(ny, nx_) * og.cellsize
        dt = float(dt)
        if not (dt > 0):
            raise ValueError(f"PRM: distthresh must be > 0 [m], got {plain(self.distthresh)}")
        free = og.free_cells()
        if len(free) < n:
            raise ValueError(f"PRM: npoints={n} but the map has only {len(free)} free cells")
        rng = np.random.default_rng(self.seed)
        cells = free[np.sort(rng.choice(len(free), size=n, replace=False))]
        xy = og.cell_to_world(cells)
        # scipy.spatial imported here: ~0.2 s of import that every planning diagram would pay
        # when the package loads, used only by the PRM planner
        from scipy.spatial import cKDTree

        pairs = cKDTree(xy).query_pairs(dt, output_type="ndarray")
        if len(pairs):
            ok = segments_free(og.occ, cells[pairs[:, 0]], cells[pairs[:, 1]])
            pairs = pairs[ok]
        lengths = np.hypot(*(xy[pairs[:, 0]] - xy[pairs[:, 1]]).T) if len(pairs) else []
        G = nx.Graph()
        G.add_nodes_from((i, {"xy": xy[i]}) for i in range(n))
        G.add_weighted_edges_from(
            zip(pairs[:, 0].tolist(), pairs[:, 1].tolist(), np.asarray(lengths).tolist())
        )
        self.graph, self.vertices, self._cells = G, xy, cells
        self._tree = cKDTree(xy)
        self.distthresh_used = dt
        return G

    def _connect(self, p, what: str) -> int:
        """Nearest roadmap vertex within distthresh with a free line of sight to point p."""
        cell = self.occgrid.world_to_cell(p)
        k = min(len(self.vertices), 32)
        dist, idx = self._tree.query(p, k=k)
        dist, idx = np.atleast_1d(dist), np.atleast_1d(idx)
        cand = idx[dist <= self.distthresh_used]
        if len(cand):
            ok = segments_free(self.occgrid.occ, np.tile(cell, (len(cand), 1)), self._cells[cand])
            if np.any(ok):
                return int(cand[np.argmax(ok)])
        raise PlanningError(
            f"PRM: {what} {fmt(p)} sees no roadmap vertex within "
            f"{self.distthresh_used:g} m (try more points)"
        )

    def query(self, start, goal) -> np.ndarray:
        """Path (N, 2) [m] from ``start`` to ``goal`` (x, y) through the roadmap.

        The first and last rows are the cell centres of start and goal; the A* length through
        the roadmap (without the two connecting legs) is in :attr:`pathcost`. Start and goal
        in the same cell give the one-row path of that cell centre (cost 0).
        """
        if self.graph.number_of_nodes() == 0:
            raise PlanningError("PRM: call plan() before query()")
        s = self._point(start, "start")
        g = self._point(goal, "goal")
        s = self.occgrid.cell_to_world(self.occgrid.world_to_cell(s))
        g = self.occgrid.cell_to_world(self.occgrid.world_to_cell(g))
        if np.array_equal(s, g):  # already there: the trivial path, no detour via the roadmap
            self.vpath = []
            self.pathcost = 0.0
            return s.reshape(1, 2).copy()
        vs, vg = self._connect(s, "start"), self._connect(g, "goal")
        xy = self.vertices

        def heuristic(a, b):
            return math.hypot(xy[a, 0] - xy[b, 0], xy[a, 1] - xy[b, 1])

        try:
            vpath = nx.astar_path(self.graph, vs, vg, heuristic=heuristic, weight="weight")
        except nx.NetworkXNoPath:
            raise PlanningError(
                f"PRM: start {fmt(s)} and goal {fmt(g)} are not connected "
                f"by the roadmap (try more points or a larger distthresh)"
            ) from None
        self.vpath = vpath
        self.pathcost = nx.path_weight(self.graph, vpath, weight="weight")
        pts = [s, *xy[vpath], g]
        out = [pts[0]]
        for p in pts[1:]:
            if not np.array_equal(p, out[-1]):
                out.append(p)
        return np.asarray(out)

    path = query
