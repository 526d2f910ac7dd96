"""Bug2 reactive navigation (Lumelsky & Stepanov; Robotics Toolbox ``Bug2``).

No plan: the robot steps cell by cell along the *m-line* from start to goal (the digital line,
:func:`mline_cells`); when the next cell is occupied it records a hit point and follows the
obstacle's boundary (Moore-neighbour tracing of the 8-connected free region, obstacle kept on
one side) until it meets the m-line strictly further along it (closer to the goal) than the hit
point; then it resumes the m-line. "Meets" is exact: the robot lands on an m-line cell, or a
diagonal step crosses the line (a sign change of the side-of-line test) and the robot leaves
through the m-line cell of the 2 x 2 block it crosses. (RTB's test, within half a cell of the
line, misses such diagonal crossings and reports reachable goals as trapped.) If it comes back
to a boundary state it has already been in since the hit, the goal is unreachable: every goal
in the start's 8-connected free region is reached (an m-line blocked where it crosses a corner
between two diagonally touching obstacles is a new hit point there).
"""

from __future__ import annotations

import math

import numpy as np

from ._messages import plain
from .navigation import Navigation, PlanningError, fmt

__all__ = ["Bug2", "mline_cells"]

#: the 8 neighbours counter-clockwise from east, as (dcol, drow) with rows along +y
_RING = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))


def mline_cells(s: tuple[int, int], g: tuple[int, int]) -> list[tuple[int, int]]:
    """The digital m-line from cell ``s`` to cell ``g``: one cell per step along the major
    axis, the cell nearest the exact line (ties rounded up), 8-connected.

    Parameters
    ----------
    s, g : (int, int)
        Start and goal cells (col, row).

    Returns
    -------
    list of (int, int)
        ``max(|dx|, |dy|) + 1`` cells from ``s`` to ``g``.
    """
    dx, dy = g[0] - s[0], g[1] - s[1]
    n = max(abs(dx), abs(dy))
    if n == 0:
        return [s]
    # round(k d / n) in exact integer arithmetic: floor((2 k d + n) / (2 n))
    return [(s[0] + (2 * k * dx + n) // (2 * n), s[1] + (2 * k * dy + n) // (2 * n))
            for k in range(n + 1)]


def _meet_line(p, q, on_line, hit_at, side, occupied):
    """What the robot stepping from boundary cell ``p`` to ``q`` does at the m-line.

    Returns None (keep following), ``("leave", cell, k)`` to leave the obstacle at m-line
    cell number ``k``, or ``("hit", blocked, at)`` when the step crosses the m-line further
    along than the hit point but the line is blocked there by the occupied cell ``blocked``
    (next to ``q``): a new hit point at line position ``at``.

    The robot leaves at an m-line cell strictly further along the line (nearer the goal) than
    the hit point ``hit_at``: ``q`` itself or, when a diagonal step crosses the exact line
    between two cells that are both off it, the free m-line cell of the 2 x 2 block the step
    crosses (next to both ``p`` and ``q``: the path stays 8-connected). When both m-line cells
    of that block are occupied, two obstacles touch at the corner the line passes through: in
    the plane, one obstacle, so the robot hits the next one there (continuous Bug2).
    """
    kq = on_line.get(q, -1)
    if kq > hit_at:
        return ("leave", q, kq)
    sp, sq = side(p), side(q)
    if (sp > 0 and sq > 0) or (sp < 0 and sq < 0) or p[0] == q[0] or p[1] == q[1]:
        return None
    corners = [c for c in ((p[0], q[1]), (q[0], p[1])) if c in on_line]
    if not corners:
        return None  # the crossing is beyond an end of the m-line
    at = sum(on_line[c] for c in corners) / len(corners)
    if at <= hit_at:
        return None
    ahead = max(corners, key=on_line.__getitem__)
    free = [c for c in corners if on_line[c] > hit_at and not occupied(*c)]
    if free:
        best = max(free, key=on_line.__getitem__)
        return ("leave", best, on_line[best])
    return ("hit", ahead, at)


class Bug2(Navigation):
    """Bug2 navigation on an occupancy grid.

    Parameters
    ----------
    occgrid : OccupancyGrid or array_like
        Map (0 free); outside the map counts as occupied.
    goal : (2,) array_like, optional
        Goal (x, y) [m]; may also be given to :meth:`query`.
    inflate : float
        Obstacle inflation radius [m].
    turn : {"left", "right"}
        Which way to go round an obstacle: "left" keeps the obstacle on the robot's right.

    Attributes
    ----------
    hits : list of (2,) arrays
        Hit points [m] of the last query.
    """

    def __init__(self, occgrid, goal=None, inflate: float = 0.0, turn: str = "left") -> None:
        super().__init__(occgrid, goal, inflate)
        if turn not in ("left", "right"):
            raise ValueError(f"Bug2: turn must be 'left' or 'right', got {plain(turn)}")
        self.turn = turn
        self.hits: list[np.ndarray] = []
        self.mline = np.zeros(3)

    def plan(self, *args, **kwargs):
        """Bug2 is purely reactive: there is nothing to plan (RTB raises too)."""
        raise TypeError("Bug2: this planner has no plan() method; call query(start, goal)")

    def query(self, start, goal=None) -> np.ndarray:
        """Path (N, 2) [m] of cell centres from ``start`` to ``goal``, one cell per step.

        Raises
        ------
        PlanningError
            If the robot is trapped (the goal is not reachable).
        """
        g = self._cell(self._need_goal(goal), "goal")
        s = self._cell(start, "start")
        og = self.occgrid
        occupied = og.cell_occupied
        a, b = s[1] - g[1], g[0] - s[0]
        c = -(a * s[0] + b * s[1])
        norm = math.hypot(a, b) or 1.0
        self.mline = np.array([a, b, c]) / norm
        line = mline_cells(s, g)
        on_line = {cell: k for k, cell in enumerate(line)}

        def side(p):  # exact integer side-of-line test
            return a * p[0] + b * p[1] + c

        ring = _RING if self.turn == "left" else _RING[::-1]
        robot, k = s, 0  # on the m-line: robot == line[k]
        path = [robot]
        hits: list[tuple[int, int]] = []
        hit_at = 0.0  # position of the last hit point along the m-line [cells]
        limit = 8 * og.occ.size + 10
        following = False
        back = (0, 0)
        seen: set = set()
        for _ in range(limit):
            if robot == g:
                self.hits = [og.cell_to_world(h) for h in hits]
                return self._cells_to_path(path)
            if not following:
                nxt = line[k + 1]
                if not occupied(*nxt):
                    robot, k = nxt, k + 1
                    path.append(robot)
                    continue
                hits.append(robot)
                hit_at = float(k)
                following, back, seen = True, nxt, set()
            # boundary following: scan the ring of the robot from the blocked cell
            k0 = ring.index((back[0] - robot[0], back[1] - robot[1]))
            prev = back
            for i in range(1, 9):
                d = ring[(k0 + i) % 8]
                cand = (robot[0] + d[0], robot[1] + d[1])
                if not occupied(*cand):
                    break
                prev = cand
            else:
                raise PlanningError(
                    f"Bug2: the robot is walled in at {fmt(og.cell_to_world(robot))}"
                )
            state = (cand, prev, len(hits))
            if state in seen:
                raise PlanningError(
                    f"Bug2: the robot is trapped: the goal {fmt(self.goal)} "
                    f"cannot be reached from {fmt(start)}"
                )
            seen.add(state)
            meet = _meet_line(robot, cand, on_line, hit_at, side, occupied)
            if meet is None:
                robot, back = cand, prev
            elif meet[0] == "leave":  # back on the m-line, nearer the goal: resume it
                robot, k, following = meet[1], meet[2], False
            else:  # the m-line is blocked where the robot crosses it: a new hit there
                robot, back, hit_at, seen = cand, meet[1], meet[2], set()
                hits.append(cand)
            path.append(robot)
        raise PlanningError(f"Bug2: no arrival after {limit} steps")

    path = query
