"""Following a planned path: the look-ahead ("carrot") point of pure pursuit (numba).

A path is a polyline (N, 2) [m] (the x, y columns of a planner's (N, 2) or (N, 3) output).
:func:`lookahead_point` projects the vehicle's position on the nearest segment and walks
``lookahead`` metres further along the path; past the end it returns the last point, so a
pursuit controller that drives to the point stops at the goal.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["field_lookahead", "lookahead_point", "path_xy", "project"]


def path_xy(path) -> np.ndarray:
    """The (N, 2) C-contiguous float64 positions of an (N, 2) or (N, 3) path."""
    p = np.asarray(path, dtype=float)
    if p.ndim != 2 or p.shape[1] not in (2, 3) or len(p) < 1 or not np.all(np.isfinite(p)):
        raise ValueError(f"path must be finite points of shape (N, 2) or (N, 3), got {p.shape}")
    return np.ascontiguousarray(p[:, :2])


@njit(cache=True)
def project(path: np.ndarray, px: float, py: float) -> tuple[int, float, float]:
    """Nearest point of the polyline ``path`` (N, 2) to (px, py).

    Returns
    -------
    (segment index i, fraction f in [0, 1] along segment i, arc length s [m] of the point)
    """
    n = path.shape[0]
    if n == 1:
        return 0, 0.0, 0.0
    best, bi, bf, bs = np.inf, 0, 0.0, 0.0
    s0 = 0.0
    for i in range(n - 1):
        ax, ay = path[i, 0], path[i, 1]
        dx, dy = path[i + 1, 0] - ax, path[i + 1, 1] - ay
        L2 = dx * dx + dy * dy
        f = 0.0
        if L2 > 0.0:
            f = ((px - ax) * dx + (py - ay) * dy) / L2
            f = min(1.0, max(0.0, f))
        qx, qy = ax + f * dx, ay + f * dy
        d = (qx - px) ** 2 + (qy - py) ** 2
        L = math.sqrt(L2)
        if d < best:
            best, bi, bf, bs = d, i, f, s0 + f * L
        s0 += L
    return bi, bf, bs


@njit(cache=True)
def lookahead_point(path: np.ndarray, px: float, py: float, lookahead: float) -> np.ndarray:
    """The point ``lookahead`` [m] along ``path`` (N, 2) beyond the projection of (px, py);
    the last point when that is past the end. Returns (2,) [m]."""
    n = path.shape[0]
    out = np.empty(2)
    i, f, _ = project(path, px, py)
    if n == 1:
        out[0], out[1] = path[0, 0], path[0, 1]
        return out
    remaining = lookahead
    # rest of the current segment
    dx, dy = path[i + 1, 0] - path[i, 0], path[i + 1, 1] - path[i, 1]
    L = math.sqrt(dx * dx + dy * dy)
    left = (1.0 - f) * L
    if remaining <= left and L > 0.0:
        g = f + remaining / L
        out[0], out[1] = path[i, 0] + g * dx, path[i, 1] + g * dy
        return out
    remaining -= left
    for j in range(i + 1, n - 1):
        dx, dy = path[j + 1, 0] - path[j, 0], path[j + 1, 1] - path[j, 1]
        L = math.sqrt(dx * dx + dy * dy)
        if remaining <= L and L > 0.0:
            g = remaining / L
            out[0], out[1] = path[j, 0] + g * dx, path[j, 1] + g * dy
            return out
        remaining -= L
    out[0], out[1] = path[n - 1, 0], path[n - 1, 1]
    return out


@njit(cache=True)
def field_lookahead(
    field: np.ndarray, ox: float, oy: float, cs: float, px: float, py: float, lookahead: float
) -> np.ndarray:
    """The point about ``lookahead`` [m] down a distance-to-goal field from (px, py).

    ``field`` (ny, nx) is a goal distance map (DXform's or D*'s: 0 at the goal, NaN or +inf
    where blocked) on the grid of cell size ``cs`` [m] and origin (ox, oy). From the cell of
    (px, py) the walk moves to the 8-neighbour of least distance while that decreases, until
    it has covered ``lookahead`` metres or reached the goal; returns that cell's centre (2,).
    From a blocked or off-map cell it starts at the nearest finite cell within 5 cells; with
    none it returns (px, py).
    """
    ny, nx = field.shape
    out = np.empty(2)
    c = math.floor((px - ox) / cs + 0.5)
    r = math.floor((py - oy) / cs + 0.5)
    inside = 0 <= c < nx and 0 <= r < ny
    if not inside or not (field[r, c] < np.inf):
        best, bc, br = np.inf, -1, -1
        for dr in range(-5, 6):
            for dc in range(-5, 6):
                rr, cc = r + dr, c + dc
                if 0 <= rr < ny and 0 <= cc < nx and field[rr, cc] < np.inf:
                    d2 = dr * dr + dc * dc + 1e-9 * field[rr, cc]
                    if d2 < best:
                        best, bc, br = d2, cc, rr
        if bc < 0:
            out[0], out[1] = px, py
            return out
        c, r = bc, br
    walked = 0.0
    while walked < lookahead and field[r, c] > 0.0:
        best, bc, br = field[r, c], -1, -1
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                rr, cc = r + dr, c + dc
                if (dr != 0 or dc != 0) and 0 <= rr < ny and 0 <= cc < nx:
                    if field[rr, cc] < best:  # NaN compares False
                        best, bc, br = field[rr, cc], cc, rr
        if bc < 0:
            break
        walked += cs * math.sqrt((bc - c) ** 2 + (br - r) ** 2)
        c, r = bc, br
    out[0], out[1] = ox + cs * c, oy + cs * r
    return out
