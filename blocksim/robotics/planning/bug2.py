"""Bug2 reactive navigation (Lumelsky & Stepanov; RTB ``Bug2``, seed 000 §2.18).

No plan: the robot steps cell by cell along the *m-line* from start to goal; when the next cell
is occupied it records a hit point and follows the obstacle's boundary (Moore-neighbour tracing
of the free region, obstacle kept on one side) until it is back on the m-line (within half a
cell, RTB's test) strictly closer to the goal than the hit point; then it resumes the m-line. If
it comes back to a boundary state it has already been in, the goal is unreachable.
"""

from __future__ import annotations

import math

import numpy as np

from .navigation import Navigation, PlanningError, fmt

__all__ = ["Bug2"]

#: the 8 neighbours counter-clockwise from east, as (dcol, drow) with rows along +y
_RING = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))


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
            raise ValueError(f"Bug2: turn must be 'left' or 'right', got {turn!r}")
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

        def off_line(p):
            return abs(a * p[0] + b * p[1] + c) / norm

        def dist(p):
            return math.hypot(p[0] - g[0], p[1] - g[1])

        ring = _RING if self.turn == "left" else _RING[::-1]
        robot = s
        path = [robot]
        hits: list[tuple[int, int]] = []
        limit = 8 * og.occ.size + 10
        following = False
        back = (0, 0)
        seen: set = set()
        for _ in range(limit):
            if robot == g:
                self.hits = [og.cell_to_world(h) for h in hits]
                return self._cells_to_path(path)
            if not following:
                dx, dy = g[0] - robot[0], g[1] - robot[1]
                if abs(dx) > abs(dy):
                    sx = 1 if dx > 0 else -1
                    y = -((robot[0] + sx) * a + c) / b
                    step = (sx, round(y - robot[1]))
                else:
                    sy = 1 if dy > 0 else -1
                    x = -((robot[1] + sy) * b + c) / a
                    step = (round(x - robot[0]), sy)
                nxt = (robot[0] + step[0], robot[1] + step[1])
                if not occupied(*nxt):
                    robot = nxt
                    path.append(robot)
                    continue
                hits.append(robot)
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
            robot, back = cand, prev
            path.append(robot)
            if robot != g and off_line(robot) <= 0.5 and dist(robot) < dist(hits[-1]):
                following = False
        raise PlanningError(f"Bug2: no arrival after {limit} steps")

    path = query
