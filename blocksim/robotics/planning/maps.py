"""Sample maps shipped as package data (``planning/data/*.png``) and their seeded generators.

* ``"office"``: a 12 m x 8 m floor at 0.1 m cells (120 x 80): outer walls, a corridor, six
  rooms with doors and seeded furniture blocks.
* ``"maze"``: a perfect maze (one path between any two points, depth-first backtracker with a
  seed) of 12 x 12 maze cells, corridors 2 cells wide, walls 1 cell, at 0.25 m cells (37 x 37).
* ``"arena"``: a 10 m x 10 m walled arena at 0.1 m cells split by a wall at y = 5 m with two
  gaps, x in [1.5, 3] and [7, 8.5] m (a scene for replanning when a gap closes).
* ``makemap``-style random maps for tests: :func:`random_map`.

``load_map(name)`` reads the PNG; ``make_office()`` / ``make_maze()`` rebuild the same arrays
(the tests check that the files equal the generators' output).
"""

from __future__ import annotations

from importlib import resources

import numpy as np

from ._messages import plain
from .occgrid import OccupancyGrid

__all__ = ["MAPS", "load_map", "make_arena", "make_maze", "make_office", "random_map"]

#: name -> (file, cell size [m], generator seed)
MAPS = {
    "office": ("office.png", 0.1, 14),
    "maze": ("maze.png", 0.25, 19),
    "arena": ("arena.png", 0.1, 0),
}


def make_office(seed: int = 14) -> OccupancyGrid:
    """The office map: walls as rectangles (world metres), furniture placed with ``seed``."""
    cs = 0.1
    t = 0.15  # wall half-thickness [m]
    rects = []
    # corridor between y = 3.4 and y = 4.6 along the whole floor
    for yw in (3.4, 4.6):
        for x0, x1 in ((0.0, 0.9), (2.1, 4.9), (6.1, 8.9), (10.1, 12.0)):  # doors in the walls
            rects.append((x0, yw - t, x1, yw + t))
    for xw in (4.0, 8.0):  # room partitions
        rects.append((xw - t, 0.0, xw + t, 3.4))
        rects.append((xw - t, 4.6, xw + t, 8.0))
    rng = np.random.default_rng(seed)
    for room_x in (0.0, 4.0, 8.0):
        for y0, y1 in ((0.3, 2.6), (5.4, 7.7)):
            w, h = rng.uniform(0.6, 1.2), rng.uniform(0.4, 0.8)
            x = room_x + rng.uniform(0.4, 3.6 - w)
            y = rng.uniform(y0, y1 - h)
            rects.append((x, y, x + w, y + h))
    return OccupancyGrid.from_shapes((12.0, 8.0), rects, cellsize=cs, border=True)


def make_arena() -> OccupancyGrid:
    """The arena map: border walls and a wall at y = 5 m with two gaps."""
    wall = [(0.0, 4.9, 1.5, 5.1), (3.0, 4.9, 7.0, 5.1), (8.5, 4.9, 10.0, 5.1)]
    return OccupancyGrid.from_shapes((10.0, 10.0), wall, cellsize=0.1, border=True)


def make_maze(
    n: int = 12, seed: int = 19, corridor: int = 2, cellsize: float = 0.25
) -> OccupancyGrid:
    """A perfect maze of n x n maze cells by a seeded depth-first backtracker."""
    if n < 2 or corridor < 1:
        raise ValueError(
            f"make_maze: need n >= 2 and corridor >= 1, got n={n}, corridor={corridor}"
        )
    pitch = corridor + 1
    size = n * pitch + 1
    occ = np.ones((size, size), dtype=bool)
    rng = np.random.default_rng(seed)

    def carve(i, j):
        occ[1 + j * pitch : 1 + j * pitch + corridor, 1 + i * pitch : 1 + i * pitch + corridor] = 0

    visited = np.zeros((n, n), dtype=bool)
    stack = [(0, 0)]
    visited[0, 0] = True
    carve(0, 0)
    while stack:
        i, j = stack[-1]
        options = [
            (i + di, j + dj)
            for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if 0 <= i + di < n and 0 <= j + dj < n and not visited[j + dj, i + di]
        ]
        if not options:
            stack.pop()
            continue
        ni, nj = options[rng.integers(len(options))]
        visited[nj, ni] = True
        carve(ni, nj)
        # open the wall between (i, j) and (ni, nj)
        if ni != i:
            col = 1 + max(i, ni) * pitch - 1
            occ[1 + j * pitch : 1 + j * pitch + corridor, col] = False
        else:
            row = 1 + max(j, nj) * pitch - 1
            occ[row, 1 + i * pitch : 1 + i * pitch + corridor] = False
        stack.append((ni, nj))
    return OccupancyGrid(occ, cellsize)


def random_map(
    shape=(100, 100), density: float = 0.2, blob: float = 2.0, seed: int = 0
) -> OccupancyGrid:
    """A random map: smoothed seeded noise thresholded to about ``density`` occupied."""
    from scipy import ndimage

    rng = np.random.default_rng(seed)
    noise = ndimage.gaussian_filter(rng.random(shape), blob) if blob > 0 else rng.random(shape)
    occ = noise > np.quantile(noise, 1.0 - density)
    return OccupancyGrid(occ)


def load_map(name: str) -> OccupancyGrid:
    """A shipped sample map by name (``"office"`` or ``"maze"``)."""
    if name not in MAPS:
        raise ValueError(f"load_map: unknown map {plain(name)}; available: {sorted(MAPS)}")
    fname, cs, _ = MAPS[name]
    with resources.as_file(resources.files(__package__) / "data" / fname) as path:
        return OccupancyGrid.from_file(path, cellsize=cs)
