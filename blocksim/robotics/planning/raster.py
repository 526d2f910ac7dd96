"""Lines on a grid: Bresenham's algorithm and collision checks of segments (numba).

``bresenham(x1, y1, x2, y2)`` is the Robotics Toolbox's function: the cells of the line between
two cells, both ends included, one cell per step along the major axis. Cells are integer
(col, row) = (x, y) pairs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._messages import plain

__all__ = ["bresenham", "segment_free", "segments_free"]


@njit(cache=True)
def _bresenham(x1: int, y1: int, x2: int, y2: int) -> np.ndarray:
    dx = abs(x2 - x1)
    dy = abs(y2 - y1)
    sx = 1 if x2 >= x1 else -1
    sy = 1 if y2 >= y1 else -1
    n = max(dx, dy) + 1
    out = np.empty((n, 2), dtype=np.int64)
    x, y = x1, y1
    if dx >= dy:
        err = 2 * dy - dx
        for i in range(n):
            out[i, 0] = x
            out[i, 1] = y
            if err > 0:
                y += sy
                err -= 2 * dx
            err += 2 * dy
            x += sx
    else:
        err = 2 * dx - dy
        for i in range(n):
            out[i, 0] = x
            out[i, 1] = y
            if err > 0:
                x += sx
                err -= 2 * dy
            err += 2 * dx
            y += sy
    return out


def bresenham(x1: int, y1: int, x2: int, y2: int) -> np.ndarray:
    """Cells of the digital line from (x1, y1) to (x2, y2), both included.

    Returns
    -------
    numpy.ndarray
        int64 (N, 2) of (x, y), N = max(|x2 - x1|, |y2 - y1|) + 1, starting at (x1, y1) and
        ending at (x2, y2); each cell within half a cell of the true line along the minor axis.
    """
    vals = (x1, y1, x2, y2)
    if any(float(v) != int(v) for v in vals):
        raise ValueError(f"bresenham: end points must be integer cells, got {plain(vals)}")
    return _bresenham(int(x1), int(y1), int(x2), int(y2))


@njit(cache=True)
def _segment_free(occ: np.ndarray, x1: int, y1: int, x2: int, y2: int) -> bool:
    ny, nx = occ.shape
    cells = _bresenham(x1, y1, x2, y2)
    for i in range(cells.shape[0]):
        x = cells[i, 0]
        y = cells[i, 1]
        if x < 0 or y < 0 or x >= nx or y >= ny or occ[y, x]:
            return False
    return True


def segment_free(occ: np.ndarray, c1, c2) -> bool:
    """Whether every Bresenham cell between cells ``c1`` and ``c2`` (col, row) is free and in
    the grid ``occ`` (bool (ny, nx), True occupied)."""
    return bool(_segment_free(occ, int(c1[0]), int(c1[1]), int(c2[0]), int(c2[1])))


@njit(cache=True)
def segments_free(occ: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Vectorised :func:`segment_free`: int64 (K, 2) cells ``a``, ``b`` -> bool (K,)."""
    k = a.shape[0]
    out = np.empty(k, dtype=np.bool_)
    for i in range(k):
        out[i] = _segment_free(occ, a[i, 0], a[i, 1], b[i, 0], b[i, 1])
    return out
