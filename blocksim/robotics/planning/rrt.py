"""Kinodynamic RRT for a car-like vehicle (Robotics Toolbox ``RRT``).

As in RTB the tree is rooted at the **goal** pose and grows by driving the bicycle model
(:func:`blocksim.robotics.mobile.kinematics.bicycle_step`, the car-like vehicle model): for each of
``npoints`` random poses in ``range`` the nearest vertex (SE(2) distance
``sqrt(dx^2 + dy^2 + dtheta^2)``) is extended by the best of ``ntrials`` random controls —
speed ``+speed`` or ``-speed``, steer uniform in ``[-steermax, steermax]`` — each driven for
``time`` seconds in steps of ``dt``; the control whose end pose is nearest the sample wins.
Unlike RTB, trials whose swept poses leave the map or touch an occupied cell are discarded.

``path(start)`` takes the vertex nearest ``start`` and follows the tree back to the root. Each
edge is driven backwards in time, which is again a bicycle motion (same steer, speed negated),
so the returned poses are a trajectory the bicycle drives: :attr:`RRT.controls` holds the
(speed, steer, steps) of each piece, in order.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..mobile.kinematics import bicycle_step
from ._messages import plain
from .navigation import PlanningError, fmt
from .occgrid import OccupancyGrid, as_grid

__all__ = ["RRT", "drive"]


@njit(cache=True)
def _angdiff(a: float) -> float:
    return (a + math.pi) % (2.0 * math.pi) - math.pi


@njit(cache=True)
def drive(x0: np.ndarray, v: float, gamma: float, L: float, dt: float, nsteps: int) -> np.ndarray:
    """Poses (nsteps + 1, 3) of the bicycle from ``x0`` at constant speed ``v`` [m/s] and steer
    ``gamma`` [rad] (wheelbase ``L`` [m]), one row per step ``dt`` [s]; headings unwrapped."""
    out = np.empty((nsteps + 1, 3))
    out[0] = x0
    for k in range(nsteps):
        out[k + 1] = bicycle_step(out[k], v, gamma, L, dt)
    return out


@njit(cache=True)
def _free(traj: np.ndarray, occ: np.ndarray, ox: float, oy: float, cs: float) -> bool:
    ny, nx = occ.shape
    for k in range(traj.shape[0]):
        c = math.floor((traj[k, 0] - ox) / cs + 0.5)
        r = math.floor((traj[k, 1] - oy) / cs + 0.5)
        if c < 0 or r < 0 or c >= nx or r >= ny or occ[r, c]:
            return False
    return True


@njit(cache=True)
def _best_trial(x0, target, speeds, steers, L, dt, nsteps, occ, ox, oy, cs, use_map):
    best, ibest = np.inf, -1
    for i in range(speeds.shape[0]):
        traj = drive(x0, speeds[i], steers[i], L, dt, nsteps)
        if use_map and not _free(traj, occ, ox, oy, cs):
            continue
        e = traj[nsteps]
        d = math.sqrt(
            (e[0] - target[0]) ** 2 + (e[1] - target[1]) ** 2 + _angdiff(e[2] - target[2]) ** 2
        )
        if d < best:
            best, ibest = d, i
    return ibest


class RRT:
    """Kinodynamic rapidly-exploring random tree (RTB ``RRT(map, veh, options)``).

    Parameters
    ----------
    occgrid : OccupancyGrid or array_like or None
        Map (0 free); None: no obstacles (RTB ignores the map), ``range`` bounds sampling.
    veh : object, optional
        A vehicle with attributes ``L`` (wheelbase [m]) and ``stlim`` (steer limit [rad]), and
        optionally ``dt`` (time step [s]) and ``vmax`` (speed limit [m/s]), such as the
        :class:`blocksim.robotics.mobile.Vehicle`; overrides ``wheelbase``, ``steermax``,
        ``dt`` and caps ``speed``.
    npoints : int
        Vertices to add (default 500).
    time : float
        Duration of each extension [s] (default 0.5).
    range : float or (2,) or (4,)
        Sampling region: R -> [-R, R]^2, (Rx, Ry) -> [-Rx, Rx] x [-Ry, Ry], (xmin, xmax, ymin,
        ymax); default: the map's extent, else 5.
    goal : (3,) array_like, optional
        Root pose (x, y, theta) [m, m, rad].
    speed : float
        Speed magnitude [m/s] (default 1).
    steermax : float
        Steer limit [rad] (default 1.2).
    wheelbase : float
        Wheelbase L [m] (default 1).
    dt : float
        Integration (and collision check) step [s] (default 0.05).
    ntrials : int
        Random controls tried per extension (default 50).
    seed : int
        Seed of :func:`numpy.random.default_rng`; equal seeds give equal trees.
    inflate : float
        Obstacle inflation radius [m].
    """

    def __init__(
        self,
        occgrid=None,
        veh=None,
        npoints: int = 500,
        time: float = 0.5,
        range=None,
        goal=None,
        speed: float = 1.0,
        steermax: float = 1.2,
        wheelbase: float = 1.0,
        dt: float = 0.05,
        ntrials: int = 50,
        seed: int = 0,
        inflate: float = 0.0,
    ) -> None:
        self.occgrid: OccupancyGrid | None = None
        if occgrid is not None:
            self.occgrid = as_grid(occgrid, "RRT").inflate(float(inflate))
        if veh is not None:
            try:
                wheelbase, steermax = float(veh.L), float(veh.stlim)
            except AttributeError:
                raise ValueError(
                    "RRT: veh must have attributes L (wheelbase [m]) and stlim (steer limit [rad])"
                ) from None
            dt = float(getattr(veh, "dt", dt))
            speed = min(float(speed), float(getattr(veh, "vmax", speed)))
        self.L = self._positive("wheelbase", wheelbase)
        self.steermax = self._positive("steermax", steermax)
        if self.steermax >= math.pi / 2:
            raise ValueError(f"RRT: steermax must be < pi/2 [rad], got {plain(steermax)}")
        self.speed = self._positive("speed", speed)
        self.time = self._positive("time", time)
        self.dt = self._positive("dt", dt)
        self.npoints = self._count("npoints", npoints)
        self.ntrials = self._count("ntrials", ntrials)
        self.seed = seed
        self.range = self._range(range)
        self.goal = None if goal is None else self._pose(goal, "goal")
        self.vertices = np.zeros((0, 3))
        self.parent = np.zeros(0, dtype=np.int64)
        self.edges: list[tuple[float, float]] = []
        self.controls: list[tuple[float, float, int]] = []

    # -- argument checks -----------------------------------------------------------------------
    @staticmethod
    def _positive(name, v) -> float:
        try:
            f = float(v)
        except (TypeError, ValueError):
            f = math.nan
        if not (math.isfinite(f) and f > 0):
            raise ValueError(f"RRT: {name} must be a finite number > 0, got {plain(v)}")
        return f

    @staticmethod
    def _count(name, v) -> int:
        if isinstance(v, bool) or not float(v) == int(v) or int(v) < 1:
            raise ValueError(f"RRT: {name} must be an integer >= 1, got {plain(v)}")
        return int(v)

    def _range(self, r) -> np.ndarray:
        if r is None:
            if self.occgrid is not None:
                return np.asarray(self.occgrid.extent, dtype=float)
            r = 5.0
        a = np.asarray(r, dtype=float).reshape(-1)
        if a.shape == (1,):
            a = np.array([-a[0], a[0], -a[0], a[0]])
        elif a.shape == (2,):
            a = np.array([-a[0], a[0], -a[1], a[1]])
        if a.shape != (4,) or not np.all(np.isfinite(a)) or a[1] <= a[0] or a[3] <= a[2]:
            raise ValueError(
                f"RRT: range must be R, (Rx, Ry) or (xmin, xmax, ymin, ymax), got {plain(r)}"
            )
        return a

    def _pose(self, p, what: str) -> np.ndarray:
        a = np.asarray(p, dtype=float).reshape(-1)
        if a.shape != (3,) or not np.all(np.isfinite(a)):
            raise ValueError(f"RRT: {what} must be a pose (x, y, theta), got {plain(p)}")
        if self.occgrid is not None and self.occgrid.is_occupied(a[:2]):
            raise ValueError(f"RRT: {what} {fmt(a)} is in an occupied cell or off the map")
        return a

    # -- planning ------------------------------------------------------------------------------
    def plan(
        self,
        goal=None,
        npoints: int | None = None,
        ntrials: int | None = None,
        seed: int | None = None,
    ) -> np.ndarray:
        """Grow the tree from the goal pose; returns the vertices (K, 3)."""
        if goal is not None:
            self.goal = self._pose(goal, "goal")
        if self.goal is None:
            raise ValueError("RRT: no goal: give goal=(x, y, theta)")
        if npoints is not None:
            self.npoints = self._count("npoints", npoints)
        if ntrials is not None:
            self.ntrials = self._count("ntrials", ntrials)
        if seed is not None:
            self.seed = seed
        rng = np.random.default_rng(self.seed)
        nsteps = max(1, round(self.time / self.dt))
        og = self.occgrid
        occ = og.occ if og is not None else np.zeros((1, 1), dtype=bool)
        ox, oy = og.origin if og is not None else (0.0, 0.0)
        cs = og.cellsize if og is not None else 1.0
        V = np.empty((self.npoints + 1, 3))
        V[0] = self.goal
        parent = np.full(self.npoints + 1, -1, dtype=np.int64)
        edges: list[tuple[float, float]] = [(0.0, 0.0)]
        n = 1
        xmin, xmax, ymin, ymax = self.range
        attempts = 0
        while n <= self.npoints and attempts < 20 * self.npoints:
            attempts += 1
            target = np.array(
                [rng.uniform(xmin, xmax), rng.uniform(ymin, ymax), rng.uniform(-math.pi, math.pi)]
            )
            dth = (V[:n, 2] - target[2] + math.pi) % (2 * math.pi) - math.pi
            d2 = (V[:n, 0] - target[0]) ** 2 + (V[:n, 1] - target[1]) ** 2 + dth**2
            near = int(np.argmin(d2))
            speeds = self.speed * rng.choice([-1.0, 1.0], size=self.ntrials)
            steers = rng.uniform(-self.steermax, self.steermax, size=self.ntrials)
            i = _best_trial(
                V[near],
                target,
                speeds,
                steers,
                self.L,
                self.dt,
                nsteps,
                occ,
                float(ox),
                float(oy),
                float(cs),
                og is not None,
            )
            if i < 0:
                continue
            end = drive(V[near], speeds[i], steers[i], self.L, self.dt, nsteps)[-1]
            V[n] = end
            parent[n] = near
            edges.append((float(speeds[i]), float(steers[i])))
            n += 1
        self.vertices, self.parent, self.edges = V[:n], parent[:n], edges
        self._nsteps = nsteps
        return self.vertices

    def path(self, start, goal=None) -> np.ndarray:
        """Poses (N, 3) [m, m, rad] the bicycle drives from the vertex nearest ``start`` to the
        goal (replanning first when ``goal`` differs from the tree's root).

        :attr:`start_error` is the SE(2) distance from ``start`` to the first pose;
        :attr:`controls` the (speed [m/s], steer [rad], steps) of each piece; heading is
        continuous along the path (not wrapped).
        """
        if goal is not None:
            g = self._pose(goal, "goal")
            if self.goal is None or not np.array_equal(g, self.goal) or len(self.vertices) == 0:
                self.plan(goal=g)
        if len(self.vertices) == 0:
            raise PlanningError("RRT: call plan() before path()")
        s = self._pose(start, "start")
        V = self.vertices
        dth = (V[:, 2] - s[2] + math.pi) % (2 * math.pi) - math.pi
        d = np.sqrt((V[:, 0] - s[0]) ** 2 + (V[:, 1] - s[1]) ** 2 + dth**2)
        k = int(np.argmin(d))
        self.start_error = float(d[k])
        poses = [V[k : k + 1].copy()]
        controls = []
        while self.parent[k] >= 0:
            v, gamma = self.edges[k]
            # drive the edge parent -> k backwards: speed -v, same steer, from the current pose
            seg = drive(poses[-1][-1], -v, gamma, self.L, self.dt, self._nsteps)
            poses.append(seg[1:])
            controls.append((-v, gamma, self._nsteps))
            k = int(self.parent[k])
        self.controls = controls
        return np.vstack(poses)

    query = path
