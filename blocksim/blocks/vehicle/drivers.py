"""Driver blocks: pose in, speed and steer out (RVC 4.1; RTB 9.10 ``sl_drive*`` models), and
the path source that feeds a pursuit driver.

Numerics: :mod:`blocksim.robotics.mobile.drivers`; kernels in
:mod:`blocksim.blocks.vehicle.driver_kernels`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import NO_STATE, as_input
from blocksim.blocks.sources.random_streams import MASK64
from blocksim.blocks.vehicle import driver_kernels as dk
from blocksim.blocks.vehicle._checks import as_key, finite, finites, positive, vector
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import EVENT, as_clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.mobile import drivers as drv

__all__ = [
    "Braitenberg",
    "BraitenbergField",
    "DriveToPoint",
    "DriveToPose",
    "FollowLine",
    "PathSource",
    "PurePursuit",
    "RandomPath",
]

_POSE_IN = (Port("pose", shape=(3,), doc="vehicle pose (x, y, theta)"),)
_DEMAND = (Port("v", doc="speed [m/s]"), Port("gamma", doc="steer angle [rad]"))


class DriveToPoint(Block):
    """Drive to a point (RTB ``sl_drivepoint``): ``v = Kv |g - p|``,
    ``gamma = Kh angdiff(atan2(g - p), theta)``.

    Parameters
    ----------
    goal : array_like (2,)
        Goal position [m].
    Kv : float
        Speed gain [1/s] (default 0.5).
    Kh : float
        Heading gain (default 4).

    Inputs
    ------
    pose : ndarray (3,)

    Outputs
    -------
    v : float [m/s];  gamma : float [rad].
    """

    inputs = _POSE_IN
    outputs = _DEMAND

    def __init__(self, goal: Any = (0.0, 0.0), Kv: float = 0.5, Kh: float = 4.0) -> None:
        super().__init__()
        o = type(self).__name__
        self.goal = vector(o, "goal", goal, 2, "a point (x, y)")
        self._p = (
            float(self.goal[0]),
            float(self.goal[1]),
            *finites(o, Kv=Kv, Kh=Kh),
        )

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        return drv.drive_to_point(as_input(u[0]), *self._p)

    def kernels(self) -> Kernels:
        """Params ``(gx, gy, Kv, Kh)``."""
        return Kernels(self._p, output=dk.point_output)


class DriveToPose(Block):
    """Drive to a pose with the polar-coordinates controller (RTB ``sl_drivepose``; see
    :func:`blocksim.robotics.mobile.drive_to_pose`).

    The direction of travel is chosen once, as RTB does: ``direction=0`` drives forward when
    the goal is ahead of the vehicle at the start (``|alpha| <= pi/2``), backward otherwise,
    and keeps that direction to the end (re-choosing it at every evaluation chatters where
    the goal is abeam, as it is on arrival). The choice is the block's state ``direction``, an
    ``EVENT`` mode: 0 (not chosen) at t = 0, set from the vehicle's pose by the zero crossing
    ``t`` that the first step of the run makes (within ``event_tol`` of the start; the same
    in both back-ends), then fixed.

    Parameters
    ----------
    goal : array_like (3,)
        Goal pose ``(x, y, theta)``.
    Krho, Kalpha, Kbeta : float
        Gains (defaults 1, 5, -2: ``Krho > 0``, ``Kbeta < 0``, ``Kalpha > Krho``).
    L : float
        Wheelbase [m] of the vehicle (turn rate to steer angle), default 1.
    direction : int
        1 forward, -1 backward, 0 chosen at the start from the goal's side (default 0).
    dthresh : float
        Arrival distance [m] (default 0.001): within it the driver stops the vehicle
        (``v = 0``, ``gamma = 0``). At the goal the law's bearing is undefined: without a stop,
        a residual error across the heading (which a steer-limited car cannot remove) turns
        into an overshoot and a loop back. 0 never stops.

    Inputs
    ------
    pose : ndarray (3,)

    Outputs
    -------
    v : float [m/s];  gamma : float [rad].

    States
    ------
    direction : discrete mode, 1 forward, -1 backward; 0 (``direction=0``) until it is chosen
        at the start.

    Zero crossings
    --------------
    0: ``t`` rising while the direction is not chosen (then a constant 1).
    """

    inputs = _POSE_IN
    outputs = _DEMAND
    feedthrough = True

    def __init__(
        self,
        goal: Any = (0.0, 0.0, 0.0),
        Krho: float = 1.0,
        Kalpha: float = 5.0,
        Kbeta: float = -2.0,
        L: float = 1.0,
        direction: int = 0,
        dthresh: float = 0.001,
    ) -> None:
        super().__init__()
        o = type(self).__name__
        self.goal = vector(o, "goal", goal, 3, "a pose (x, y, theta)")
        dthresh = finite(o, "dthresh", dthresh)
        if dthresh < 0:
            raise BlockParameterError(
                f"{o}: parameter 'dthresh' must be a distance >= 0 [m], got {dthresh:g}"
            )
        if isinstance(direction, bool) or direction not in (-1, 0, 1):
            raise BlockParameterError(
                f"{o}: parameter 'direction' must be -1, 0 or 1, got "
                f"{direction if isinstance(direction, numbers.Number) else repr(direction)}"
            )
        self._p = (
            self.goal,
            *finites(o, Krho=Krho, Kalpha=Kalpha, Kbeta=Kbeta),
            positive(o, "L", L),
            dthresh,
        )
        self.clock = EVENT
        self.crossing_directions = (1,)
        self.set_state([float(direction)], ("direction",))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        p = self._p
        return drv.drive_to_pose(as_input(u[0]), *p[:5], int(x[0]), p[5])

    def zero_crossings(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        """``(t,)`` until the direction is chosen (it leaves zero at the first step), then
        ``(1.0,)`` (as :func:`~blocksim.blocks.vehicle.driver_kernels.pose_goal_crossings`)."""
        return (float(t),) if x[0] == 0.0 else (1.0,)

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """The direction unchanged: it changes only in ``on_event``."""
        return x.copy()

    def on_event(self, t: float, x: np.ndarray, u: Sequence[Any], which: int) -> Any:
        """Choose the direction from the goal's side at the start; None once chosen."""
        if x[0] != 0.0:
            return None
        return np.array([float(drv.pose_direction(as_input(u[0]), self._p[0]))])

    def kernels(self) -> Kernels:
        """Params ``(goal (3,), Krho, Kalpha, Kbeta, L, dthresh)``; state: the direction."""
        return Kernels(
            self._p,
            output=dk.pose_goal_output,
            update=dk.pose_goal_update,
            crossings=dk.pose_goal_crossings,
            on_event=dk.pose_goal_on_event,
        )


class FollowLine(Block):
    """Follow the line ``a x + b y + c = 0`` at constant speed (RTB ``sl_driveline``):
    ``gamma = -Kd d + Kh angdiff(atan2(-a, b), theta)``.

    Parameters
    ----------
    line : array_like (3,)
        ``(a, b, c)``, travelled in direction ``(b, -a)``.
    Kd, Kh : float
        Distance [rad/m] and heading gains (defaults 0.5, 1).
    speed : float
        Speed [m/s] (default 1).

    Inputs
    ------
    pose : ndarray (3,)

    Outputs
    -------
    v : float [m/s];  gamma : float [rad].
    """

    inputs = _POSE_IN
    outputs = _DEMAND

    def __init__(
        self, line: Any = (0.0, 1.0, 0.0), Kd: float = 0.5, Kh: float = 1.0, speed: float = 1.0
    ) -> None:
        super().__init__()
        o = type(self).__name__
        ln = vector(o, "line", line, 3, "a line (a, b, c)")
        if ln[0] == 0 and ln[1] == 0:
            raise BlockParameterError(f"{o}: parameter 'line': a and b cannot both be zero")
        self._p = (
            *map(float, ln),
            *finites(o, Kd=Kd, Kh=Kh, speed=speed),
        )

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        return self._p[5], drv.follow_line(as_input(u[0]), *self._p[:5])

    def kernels(self) -> Kernels:
        """Params ``(a, b, c, Kd, Kh, speed)``."""
        return Kernels(self._p, output=dk.line_output)


class PurePursuit(Block):
    """Pursue a moving point at distance ``dstar`` (RTB ``sl_pursuit``): a PI controller on
    the distance error gives the speed, ``v = Kv e + Ki int(e)``, ``e = |p* - p| - dstar``;
    the steer is ``Kh angdiff(atan2(p* - p), theta)``.

    Parameters
    ----------
    dstar : float
        Following distance [m] (default 1).
    Kv, Ki : float
        Proportional [1/s] and integral [1/s^2] speed gains (defaults 1, 0.1).
    Kh : float
        Heading gain (default 2).

    Inputs
    ------
    pose : ndarray (3,);  target : ndarray (2,) the point followed [m].

    Outputs
    -------
    v : float [m/s];  gamma : float [rad].

    States
    ------
    ie : continuous, the integral of the distance error [m s].
    """

    inputs = (
        *_POSE_IN,
        Port("target", doc="point pursued (x, y, ...) [m]: its first two elements"),
    )
    outputs = _DEMAND
    feedthrough = True

    def __init__(
        self, dstar: float = 1.0, Kv: float = 1.0, Ki: float = 0.1, Kh: float = 2.0
    ) -> None:
        super().__init__()
        o = type(self).__name__
        self._p = finites(o, dstar=dstar, Kv=Kv, Ki=Ki, Kh=Kh)
        self.set_state([0.0], ("ie",))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        e, h = drv.pursuit_error(as_input(u[0]), u[1][0], u[1][1], self._p[0])
        return self._p[1] * e + self._p[2] * float(x[0]), self._p[3] * h

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (drv.pursuit_error(as_input(u[0]), u[1][0], u[1][1], self._p[0])[0],)

    def kernels(self) -> Kernels:
        """Params ``(dstar, Kv, Ki, Kh)``."""
        return Kernels(self._p, output=dk.pursuit_output, deriv=dk.pursuit_deriv)


class Braitenberg(Block):
    """Braitenberg light seeker (RTB ``sl_braitenberg``): sensors ``ahead`` of the vehicle and
    ``side`` to each side read the library light field ``A / (A + |p - source|^2)``;
    ``v = V (2 - sL - sR)``, ``gamma = K (sL - sR)``. (A field given as a Python function:
    :class:`BraitenbergField`.)

    Parameters
    ----------
    source : array_like (2,)
        Light source [m].
    A : float
        Field spread [m^2] (default 200, RVC's ``sensorfield``).
    V : float
        Speed scale [m/s] (default 1).
    K : float
        Steer gain [rad] (default 10).
    ahead, side : float
        Sensor offsets [m] (defaults 2, 2).

    Inputs
    ------
    pose : ndarray (3,)

    Outputs
    -------
    v : float [m/s];  gamma : float [rad].
    """

    inputs = _POSE_IN
    outputs = _DEMAND

    def __init__(
        self,
        source: Any = (0.0, 0.0),
        A: float = 200.0,
        V: float = 1.0,
        K: float = 10.0,
        ahead: float = 2.0,
        side: float = 2.0,
    ) -> None:
        super().__init__()
        o = type(self).__name__
        src = vector(o, "source", source, 2, "a point (x, y)")
        self._p = (
            float(src[0]),
            float(src[1]),
            positive(o, "A", A),
            *finites(o, V=V, K=K, ahead=ahead, side=side),
        )

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        return dk.braitenberg_output(t, NO_STATE, as_input(u[0]), self._p)

    def kernels(self) -> Kernels | None:
        """Params ``(xc, yc, A, V, K, ahead, side)``."""
        return Kernels(self._p, output=dk.braitenberg_output)


class BraitenbergField(Block):
    """:class:`Braitenberg` with a user field ``field(x, y) -> float`` (a Python function: the
    block runs in the interpreted back-end only and cannot be saved in a diagram file).

    Parameters
    ----------
    field : callable
        The scalar field read by the sensors (world coordinates [m]).
    V, K, ahead, side : float
        As for :class:`Braitenberg`.

    Inputs
    ------
    pose : ndarray (3,)

    Outputs
    -------
    v : float [m/s];  gamma : float [rad].
    """

    inputs = _POSE_IN
    outputs = _DEMAND

    def __init__(
        self,
        field: Callable[[float, float], float],
        V: float = 1.0,
        K: float = 10.0,
        ahead: float = 2.0,
        side: float = 2.0,
    ) -> None:
        super().__init__()
        o = type(self).__name__
        if not callable(field):
            raise BlockParameterError(f"{o}: parameter 'field' must be a function f(x, y)")
        self.field = field
        self._p = finites(o, V=V, K=K, ahead=ahead, side=side)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        s = drv.sensor_positions(as_input(u[0]), self._p[2], self._p[3])
        sl = float(self.field(s[0, 0], s[0, 1]))
        sr = float(self.field(s[1, 0], s[1, 1]))
        return drv.braitenberg(sl, sr, self._p[0], self._p[1])

    def kernels(self) -> None:
        """None: a Python field has no compiled kernel."""
        return None


class RandomPath(Block):
    """Drive through random waypoints at constant speed (RTB ``RandomPath``), discrete.

    Waypoint ``n`` is ``0.8 dim (2 U - 1)`` (counter-based uniform samples of ``seed``); the
    next one is taken at a hit where the vehicle is within ``dthresh`` of the goal or further
    than at the previous hit. Steer ``angdiff(atan2(g - p), theta)``.

    Parameters
    ----------
    dim : float
        Half-size of the region [m] (default 10).
    speed : float
        Speed [m/s] (default 1).
    dthresh : float or None
        Proximity [m] (default ``0.05 dim``).
    dt : float
        Sample interval [s] (default 0.1).
    seed : int

    Inputs
    ------
    pose : ndarray (3,)

    Outputs
    -------
    v : float [m/s];  gamma : float [rad].

    States
    ------
    gx, gy, d_prev, n: discrete (goal, last distance, waypoint count).
    """

    inputs = _POSE_IN
    outputs = _DEMAND
    feedthrough = True

    def __init__(
        self,
        dim: float = 10.0,
        speed: float = 1.0,
        dthresh: float | None = None,
        dt: float = 0.1,
        seed: int = 0,
    ) -> None:
        super().__init__()
        o = type(self).__name__
        dim = positive(o, "dim", dim)
        thresh = 0.05 * dim if dthresh is None else positive(o, "dthresh", dthresh)
        key = as_key(seed, o, None)
        self._p = (dim, finite(o, "speed", speed), thresh, key)
        g = dk.random_goal(np.uint64(key & MASK64), 0.0, dim)
        self.set_state([g[0], g[1], math.inf, 0.0], ("gx", "gy", "d_prev", "n"))
        self.clock = as_clock(positive(o, "dt", dt), o)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        return self._p[1], drv.random_path_steer(as_input(u[0]), float(x[0]), float(x[1]))

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return dk.random_path_update(t, x, as_input(u[0]), self._p)

    def kernels(self) -> Kernels:
        """Params ``(dim, speed, dthresh, key)``."""
        return Kernels(self._p, output=dk.random_path_output, update=dk.random_path_update)


class PathSource(Block):
    """Play a path: row ``k`` of ``path`` at time ``k dt``, linearly interpolated, held at the
    end (feeds :class:`PurePursuit` with a moving point; waypoints through ``mstraj`` or a
    planner's output).

    Parameters
    ----------
    path : array_like (N, 2) or (N, 3)
        Points [m] (a third column, e.g. heading, is carried along).
    dt : float
        Time between rows [s] (default 0.1).

    Outputs
    -------
    y : ndarray (2,) or (3,)
    """

    outputs = ("y",)

    def __init__(self, path: Any = ((0.0, 0.0), (1.0, 0.0)), dt: float = 0.1) -> None:
        super().__init__()
        o = type(self).__name__
        try:
            P = np.array(path, dtype=float)
        except (TypeError, ValueError):
            P = np.zeros(0)
        if P.ndim != 2 or P.shape[1] not in (2, 3) or P.shape[0] < 1 or not np.all(np.isfinite(P)):
            raise BlockParameterError(
                f"{o}: parameter 'path' must be finite points of shape (N, 2) or (N, 3), got "
                f"shape {P.shape}"
            )
        self.path = np.ascontiguousarray(P)
        self.dt = positive(o, "dt", dt)
        self.set_ports(outputs=[Port("y", shape=(P.shape[1],), doc="path point")])

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (drv.path_point(self.path, self.dt, t),)

    def kernels(self) -> Kernels:
        """Params ``(path flattened, columns, dt)``."""
        return Kernels(
            (self.path.reshape(-1).copy(), self.path.shape[1], self.dt), output=dk.path_output
        )
