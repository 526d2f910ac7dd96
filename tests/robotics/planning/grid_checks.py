"""Independent checks shared by the planner tests (no planner code used)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np


def grid_graph(occ: np.ndarray, eight: bool = True) -> nx.Graph:
    """Free cells as nodes (col, row), 4- or 8-connected, weighted by step length."""
    G = nx.Graph()
    ny, nx_ = occ.shape
    steps = [(1, 0), (0, 1)] + ([(1, 1), (1, -1)] if eight else [])
    for r in range(ny):
        for c in range(nx_):
            if occ[r, c]:
                continue
            G.add_node((c, r))
            for dc, dr in steps:
                cc, rr = c + dc, r + dr
                if 0 <= cc < nx_ and 0 <= rr < ny and not occ[rr, cc]:
                    G.add_edge((c, r), (cc, rr), weight=math.hypot(dc, dr))
    return G


def dda_cells(p: np.ndarray, q: np.ndarray) -> list[set[tuple[int, int]]]:
    """Per step along the major axis, the cell(s) nearest the exact line from p to q (cells)."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    n = int(max(abs(q - p)))
    out = []
    for k in range(n + 1):
        t = k / n if n else 0.0
        x, y = p + t * (q - p)
        xs = {math.floor(x + 0.5), math.ceil(x - 0.5)}
        ys = {math.floor(y + 0.5), math.ceil(y - 0.5)}
        out.append({(a, b) for a in xs for b in ys})
    return out


def assert_line_free(occ: np.ndarray, p, q) -> None:
    """Every step of the line p-q has a free candidate cell inside the grid."""
    ny, nx_ = occ.shape
    for cands in dda_cells(p, q):
        assert any(0 <= a < nx_ and 0 <= b < ny and not occ[b, a] for a, b in cands), (p, q)


def assert_cell_path(occ: np.ndarray, cells: np.ndarray, start, goal, eight: bool = True) -> None:
    """A path of cells: free, unit steps (8- or 4-connected), from start to goal."""
    cells = np.asarray(cells)
    assert tuple(cells[0]) == tuple(start) and tuple(cells[-1]) == tuple(goal)
    assert not occ[cells[:, 1], cells[:, 0]].any()
    if len(cells) == 1:
        return
    steps = np.abs(np.diff(cells, axis=0))
    assert steps.max() <= 1 and (steps.sum(axis=1) >= 1).all()
    if not eight:
        assert (steps.sum(axis=1) == 1).all()
