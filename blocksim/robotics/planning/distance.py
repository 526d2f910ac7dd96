"""Distance transforms of occupancy grids (numba): RTB's ``distancexform``.

Two questions, as in the Robotics Toolbox (``distancexform(world, goal, metric)``):

* ``distancexform(occ)``: for every cell, the distance [cells] to the nearest occupied cell
  (0 on obstacles): exact Euclidean distance (Felzenszwalb & Huttenlocher's lower envelope of
  parabolas, separable), or the exact city-block / chessboard distance (two raster passes).
  These equal :func:`scipy.ndimage.distance_transform_edt` / ``distance_transform_cdt`` of the
  free-space mask.
* ``distancexform(occ, goal)``: the length [cells] of the shortest path from each free cell to
  the goal cell moving through free cells: 8-connected with steps 1 and sqrt(2) for
  ``"euclidean"``, 4-connected with steps 1 for ``"cityblock"``. Occupied cells are NaN,
  free cells that cannot reach the goal are +inf. Computed by alternating raster sweeps
  (Gauss-Seidel relaxation) until nothing changes, which is exact (Bellman-Ford on the grid
  graph) and about a millisecond per sweep on a 500 x 500 grid.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._messages import plain

__all__ = ["METRICS", "distancexform", "geodesic_distance", "obstacle_distance"]

METRICS = ("euclidean", "cityblock", "chessboard")


def _metric(metric: str, allowed=METRICS, name: str = "distancexform") -> str:
    m = str(metric).lower()
    if m not in allowed:
        raise ValueError(f"{name}: metric must be one of {allowed}, got {plain(metric)}")
    return m


@njit(cache=True)
def _envelope_1d(f: np.ndarray, d: np.ndarray, v: np.ndarray, z: np.ndarray) -> None:
    """Squared Euclidean distance transform of a sampled function f (inf = no site)."""
    n = f.shape[0]
    k = -1
    for q in range(n):
        if f[q] == np.inf:
            continue
        if k < 0:
            k = 0
            v[0] = q
            z[0] = -np.inf
            z[1] = np.inf
            continue
        s = 0.0
        while k >= 0:
            p = v[k]
            s = ((f[q] + q * q) - (f[p] + p * p)) / (2.0 * q - 2.0 * p)
            if s <= z[k]:
                k -= 1
            else:
                break
        k += 1
        v[k] = q
        z[k] = -np.inf if k == 0 else s
        z[k + 1] = np.inf
    if k < 0:
        for q in range(n):
            d[q] = np.inf
        return
    k = 0
    for q in range(n):
        while z[k + 1] < q:
            k += 1
        p = v[k]
        d[q] = (q - p) * (q - p) + f[p]


@njit(cache=True)
def _edt(occ: np.ndarray) -> np.ndarray:
    ny, nx = occ.shape
    n = max(ny, nx)
    f = np.empty(n)
    d = np.empty(n)
    v = np.empty(n, dtype=np.int64)
    z = np.empty(n + 1)
    g = np.empty((ny, nx))
    for c in range(nx):
        for r in range(ny):
            f[r] = 0.0 if occ[r, c] else np.inf
        _envelope_1d(f[:ny], d[:ny], v, z)
        for r in range(ny):
            g[r, c] = d[r]
    out = np.empty((ny, nx))
    for r in range(ny):
        for c in range(nx):
            f[c] = g[r, c]
        _envelope_1d(f[:nx], d[:nx], v, z)
        for c in range(nx):
            out[r, c] = math.sqrt(d[c])
    return out


@njit(cache=True)
def _chamfer(occ: np.ndarray, diagonal: bool) -> np.ndarray:
    """Exact city-block (diagonal False) or chessboard (True) distance to the nearest obstacle."""
    ny, nx = occ.shape
    big = np.inf
    d = np.empty((ny, nx))
    for r in range(ny):
        for c in range(nx):
            d[r, c] = 0.0 if occ[r, c] else big
    for r in range(ny):
        for c in range(nx):
            best = d[r, c]
            if r > 0:
                best = min(best, d[r - 1, c] + 1.0)
                if diagonal:
                    if c > 0:
                        best = min(best, d[r - 1, c - 1] + 1.0)
                    if c < nx - 1:
                        best = min(best, d[r - 1, c + 1] + 1.0)
            if c > 0:
                best = min(best, d[r, c - 1] + 1.0)
            d[r, c] = best
    for r in range(ny - 1, -1, -1):
        for c in range(nx - 1, -1, -1):
            best = d[r, c]
            if r < ny - 1:
                best = min(best, d[r + 1, c] + 1.0)
                if diagonal:
                    if c > 0:
                        best = min(best, d[r + 1, c - 1] + 1.0)
                    if c < nx - 1:
                        best = min(best, d[r + 1, c + 1] + 1.0)
            if c < nx - 1:
                best = min(best, d[r, c + 1] + 1.0)
            d[r, c] = best
    return d


@njit(cache=True)
def _relax(d: np.ndarray, occ: np.ndarray, r: int, c: int, dr: int, diag: float) -> bool:
    """Relax cell (r, c) from its row neighbours in row r + dr (dr = +-1) and in its own row."""
    ny, nx = d.shape
    best = d[r, c]
    rr = r + dr
    if 0 <= rr < ny:
        v = d[rr, c] + 1.0
        if v < best:
            best = v
        if diag > 0.0:
            if c > 0:
                v = d[rr, c - 1] + diag
                if v < best:
                    best = v
            if c < nx - 1:
                v = d[rr, c + 1] + diag
                if v < best:
                    best = v
    if best < d[r, c]:
        d[r, c] = best
        return True
    return False


@njit(cache=True)
def _geodesic(occ: np.ndarray, goal_r: int, goal_c: int, diag: float) -> tuple:
    ny, nx = occ.shape
    d = np.full((ny, nx), np.inf)
    d[goal_r, goal_c] = 0.0
    sweeps = 0
    changed = True
    while changed:
        changed = False
        for phase in range(2):
            dr = -1 if phase == 0 else 1
            r0, r1, step = (0, ny, 1) if phase == 0 else (ny - 1, -1, -1)
            for r in range(r0, r1, step):
                # from the previous row, then along the row both ways
                for c in range(nx):
                    if not occ[r, c] and _relax(d, occ, r, c, dr, diag):
                        changed = True
                for c in range(1, nx):
                    if not occ[r, c] and d[r, c - 1] + 1.0 < d[r, c]:
                        d[r, c] = d[r, c - 1] + 1.0
                        changed = True
                for c in range(nx - 2, -1, -1):
                    if not occ[r, c] and d[r, c + 1] + 1.0 < d[r, c]:
                        d[r, c] = d[r, c + 1] + 1.0
                        changed = True
            sweeps += 1
    for r in range(ny):
        for c in range(nx):
            if occ[r, c]:
                d[r, c] = np.nan
    return d, sweeps


def _occ(occ, name: str) -> np.ndarray:
    a = np.asarray(occ)
    if a.ndim != 2 or a.size == 0:
        raise ValueError(f"{name}: occupancy grid must be a non-empty 2-D array, got {a.shape}")
    return np.ascontiguousarray(a != 0)


def obstacle_distance(occ, metric: str = "euclidean") -> np.ndarray:
    """Distance [cells] from every cell to the nearest occupied cell (0 on obstacles).

    Parameters
    ----------
    occ : array_like (ny, nx)
        Occupancy, non-zero occupied.
    metric : {"euclidean", "cityblock", "chessboard"}

    Returns
    -------
    numpy.ndarray float (ny, nx); +inf everywhere when nothing is occupied.
    """
    m = _metric(metric, name="obstacle_distance")
    o = _occ(occ, "obstacle_distance")
    if m == "euclidean":
        return _edt(o)
    return _chamfer(o, m == "chessboard")


def geodesic_distance(occ, goal, metric: str = "euclidean") -> tuple[np.ndarray, int]:
    """Shortest free-space path length [cells] from every cell to ``goal`` = (col, row).

    Returns
    -------
    distance : numpy.ndarray float (ny, nx)
        0 at the goal, NaN on obstacles, +inf where the goal cannot be reached.
    sweeps : int
        Raster sweeps done until convergence.
    """
    m = _metric(metric, ("euclidean", "cityblock"), "geodesic_distance")
    o = _occ(occ, "geodesic_distance")
    col, row = (int(v) for v in goal)
    ny, nx = o.shape
    if not (0 <= col < nx and 0 <= row < ny):
        raise ValueError(f"geodesic_distance: goal cell {(col, row)} is outside the {nx}x{ny} grid")
    if o[row, col]:
        raise ValueError(f"geodesic_distance: goal cell {(col, row)} is occupied")
    return _geodesic(o, row, col, math.sqrt(2.0) if m == "euclidean" else 0.0)


def distancexform(occ, goal=None, metric: str = "euclidean") -> np.ndarray:
    """RTB ``distancexform(world, goal, metric)``: see the module docstring.

    ``goal`` is a cell (col, row) or None (distance to the nearest obstacle).
    """
    if goal is None:
        return obstacle_distance(occ, metric)
    return geodesic_distance(occ, goal, metric)[0]
