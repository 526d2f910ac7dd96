"""Vehicle blocks: continuous Bicycle, Unicycle, DiffSteer, PioneerDynamics; discrete Vehicle.

Numerics: :mod:`blocksim.robotics.mobile.kinematics` and :mod:`.odometry`; kernels beside
them in :mod:`blocksim.blocks.vehicle.vehicle_kernels`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks.sources.random_streams import MASK64, normal_sample
from blocksim.blocks.vehicle import vehicle_kernels as vk
from blocksim.blocks.vehicle._checks import as_key, covariance, positive, vector
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import as_clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.robotics.mobile.kinematics import (
    PIONEER_PARAMS,
    diffsteer_speeds,
    pioneer_deriv,
    rate_limit_deriv,
)
from blocksim.robotics.mobile.odometry import odo_f, odometry, vehicle_control

__all__ = ["Bicycle", "DiffSteer", "PioneerDynamics", "Unicycle", "Vehicle"]

_POSE_OUT = (
    Port("x", doc="x position [m]"),
    Port("y", doc="y position [m]"),
    Port("theta", doc="heading [rad]"),
    Port("pose", shape=(3,), doc="(x, y, theta)"),
)


class _Planar(Block):
    outputs = _POSE_OUT
    feedthrough = False

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        """The pose; never reads ``u``."""
        return float(x[0]), float(x[1]), float(x[2]), x[:3].copy()


class Bicycle(_Planar):
    """Car-like vehicle, bicycle kinematics (roblocks *Bicycle*, RVC eq. 4.2).

    ``dx/dt = v cos(theta)``, ``dy/dt = v sin(theta)``, ``dtheta/dt = v tan(gamma) / L`` with
    the speed clipped to ``[-vmax, vmax]`` and the steer to ``[-stlim, stlim]``. With
    ``accelmax`` the speed is a state following the demand as a rate limiter:
    ``dv/dt = clip((v* - v) / tau, -accelmax, accelmax)``. With ``handbrake`` a third input
    ``hb`` holds the vehicle (speed and motion zero) while ``hb > 0.5``. (RTB's
    ``Vehicle`` class turns by ``v dt gamma / L``, without the tangent; roblocks' block and this
    one use ``tan``.)

    Parameters
    ----------
    L : float
        Wheelbase [m] (default 1).
    vmax : float
        Speed limit [m/s] (default 5; ``inf`` for none).
    stlim : float
        Steer limit [rad] (default 0.5), < pi/2.
    accelmax : float or None
        Acceleration limit [m/s^2]; None (default): the speed follows the input at once.
    tau : float
        Time constant [s] of the speed state when ``accelmax`` is set (default 0.05).
    x0 : array_like (3,)
        Initial pose ``(x, y, theta)``.
    handbrake : bool
        Add the ``hb`` input.

    Inputs
    ------
    v : float
        Speed demand [m/s].
    gamma : float
        Steer angle demand [rad].
    hb : float
        (with ``handbrake``) brake when > 0.5.

    Outputs
    -------
    x, y, theta : float
        Pose [m, m, rad] (heading unwrapped: continuous).
    pose : ndarray (3,)
        The same as a vector.

    States
    ------
    x, y, theta (and v [m/s] with ``accelmax``): continuous.
    """

    inputs = ("v", "gamma")

    def __init__(
        self,
        L: float = 1.0,
        vmax: float = 5.0,
        stlim: float = 0.5,
        accelmax: float | None = None,
        tau: float = 0.05,
        x0: Any = (0.0, 0.0, 0.0),
        handbrake: bool = False,
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        self.L = positive(owner, "L", L)
        self.vmax = positive(owner, "vmax", vmax, allow_inf=True)
        self.stlim = positive(owner, "stlim", stlim)
        if self.stlim >= math.pi / 2:
            raise_msg = f"{owner}: parameter 'stlim' must be < pi/2 rad, got {stlim!r}"
            from blocksim.engine.errors import BlockParameterError

            raise BlockParameterError(raise_msg)
        self.accelmax = 0.0 if accelmax is None else positive(owner, "accelmax", accelmax)
        self.tau = positive(owner, "tau", tau)
        self.handbrake = bool(handbrake)
        pose = vector(owner, "x0", x0, 3, "a pose (x, y, theta)")
        if self.accelmax > 0:
            self.set_state(np.concatenate((pose, [0.0])), ("x", "y", "theta", "v"))
        else:
            self.set_state(pose, ("x", "y", "theta"))
        if self.handbrake:
            self.set_ports(inputs=["v", "gamma", "hb"])

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """``dx/dt`` (3,) or (4,) (see the class docstring)."""
        braking = self.handbrake and u[2] > 0.5
        if self.accelmax > 0:
            vd = min(self.vmax, max(-self.vmax, u[0]))
            v = x[3]
            dv = -v / self.tau if braking else rate_limit_deriv(v, vd, self.tau, self.accelmax)
        else:
            v = min(self.vmax, max(-self.vmax, u[0]))
        if braking:
            v = 0.0
        g = min(self.stlim, max(-self.stlim, u[1]))
        th = x[2]
        d = (v * math.cos(th), v * math.sin(th), v * math.tan(g) / self.L)
        return (*d, dv) if self.accelmax > 0 else d

    def kernels(self) -> Kernels:
        """Params ``(L, vmax, stlim, accelmax (0: none), tau)``."""
        return Kernels(
            (self.L, self.vmax, self.stlim, self.accelmax, self.tau),
            output=vk.pose_output,
            deriv=vk.bicycle_hb_deriv if self.handbrake else vk.bicycle_deriv,
        )


class Unicycle(_Planar):
    """Unicycle kinematics: ``dx/dt = v cos(theta)``, ``dy/dt = v sin(theta)``,
    ``dtheta/dt = w``, with ``|v| <= vmax`` and ``|w| <= wmax``.

    Parameters
    ----------
    vmax : float
        Speed limit [m/s] (default inf).
    wmax : float
        Turn-rate limit [rad/s] (default inf).
    x0 : array_like (3,)
        Initial pose.

    Inputs
    ------
    v : float  speed [m/s].  w : float  turn rate [rad/s].

    Outputs
    -------
    x, y, theta : float;  pose : ndarray (3,).

    States
    ------
    x, y, theta: continuous.
    """

    inputs = ("v", "w")

    def __init__(
        self, vmax: float = math.inf, wmax: float = math.inf, x0: Any = (0.0, 0.0, 0.0)
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        self.vmax = positive(owner, "vmax", vmax, allow_inf=True)
        self.wmax = positive(owner, "wmax", wmax, allow_inf=True)
        self.set_state(vector(owner, "x0", x0, 3, "a pose (x, y, theta)"), ("x", "y", "theta"))

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """``(v cos theta, v sin theta, w)`` with the limits applied."""
        v = min(self.vmax, max(-self.vmax, u[0]))
        w = min(self.wmax, max(-self.wmax, u[1]))
        return v * math.cos(x[2]), v * math.sin(x[2]), w

    def kernels(self) -> Kernels:
        """Params ``(vmax, wmax)``."""
        return Kernels((self.vmax, self.wmax), output=vk.pose_output, deriv=vk.unicycle_deriv)


class DiffSteer(Unicycle):
    """Differential-steer kinematics from the wheel speeds (roblocks *DiffSteer Kinematics*).

    ``v = (vr + vl) / 2``, ``w = (vr - vl) / (2 a)``, each limited to ``umax`` [m/s] and
    ``wmax`` [rad/s], then the unicycle.

    Parameters
    ----------
    a : float
        Half the axle width [m] (default 0.2).
    umax : float
        Speed limit [m/s] (default 0.75).
    wmax : float
        Turn-rate limit [rad/s] (default 1.745).
    x0 : array_like (3,)

    Inputs
    ------
    vl, vr : float
        Left and right wheel speeds [m/s].

    Outputs
    -------
    x, y, theta : float;  pose : ndarray (3,).

    States
    ------
    x, y, theta: continuous.
    """

    inputs = ("vl", "vr")

    def __init__(
        self,
        a: float = 0.2,
        umax: float = 0.75,
        wmax: float = 1.745,
        x0: Any = (0.0, 0.0, 0.0),
    ) -> None:
        super().__init__(vmax=umax, wmax=wmax, x0=x0)
        self.a = positive(type(self).__name__, "a", a)

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """Unicycle rates of the wheel speeds."""
        v, w = diffsteer_speeds(u[0], u[1], self.a)
        return Unicycle.deriv(self, t, x, (v, w))

    def kernels(self) -> Kernels:
        """Params ``(vmax, wmax, a)``."""
        return Kernels(
            (self.vmax, self.wmax, self.a), output=vk.pose_output, deriv=vk.diffsteer_deriv
        )


class PioneerDynamics(Block):
    """Pioneer 3-DX speed dynamics (roblocks *DiffSteer Kine+Dyn*; Martins et al. 2008).

    ``du/dt = (p3 w^2 - p4 u + u_ref) / p1``, ``dw/dt = (-p5 u w - p6 w + w_ref) / p2`` with
    the references limited to ``umax``, ``wmax`` and the accelerations to ``dumax``,
    ``dwmax``.

    Parameters
    ----------
    params : array_like (6,)
        ``(p1, ..., p6)`` (default the identified Pioneer 3-DX values
        ``0.2604, 0.2509, -0.000499, 0.9965, 0.00263, 1.0768``).
    umax, wmax : float
        Reference limits [m/s], [rad/s] (defaults 0.75, 1.745).
    dumax, dwmax : float
        Acceleration limits [m/s^2], [rad/s^2] (defaults 0.3, 1.745).

    Inputs
    ------
    vref : float  speed reference [m/s].  wref : float  turn-rate reference [rad/s].

    Outputs
    -------
    v : float  speed [m/s].  w : float  turn rate [rad/s].

    States
    ------
    v, w: continuous (initially 0).
    """

    inputs = ("vref", "wref")
    outputs = ("v", "w")
    feedthrough = False

    def __init__(
        self,
        params: Any = PIONEER_PARAMS,
        umax: float = 0.75,
        wmax: float = 1.745,
        dumax: float = 0.3,
        dwmax: float = 1.745,
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        self.p = vector(owner, "params", params, 6, "the Pioneer parameters p1..p6")
        if self.p[0] <= 0 or self.p[1] <= 0:
            from blocksim.engine.errors import BlockParameterError

            raise BlockParameterError(f"{owner}: parameter 'params': p1 and p2 must be > 0")
        self.lims = tuple(
            positive(owner, n, v, allow_inf=True)
            for n, v in (("umax", umax), ("wmax", wmax), ("dumax", dumax), ("dwmax", dwmax))
        )
        self.set_state([0.0, 0.0], ("v", "w"))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        return float(x[0]), float(x[1])

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        umax, wmax, dumax, dwmax = self.lims
        ur = min(umax, max(-umax, u[0]))
        wr = min(wmax, max(-wmax, u[1]))
        du, dw = pioneer_deriv(float(x[0]), float(x[1]), ur, wr, *map(float, self.p))
        return min(dumax, max(-dumax, du)), min(dwmax, max(-dwmax, dw))

    def kernels(self) -> Kernels:
        """Params ``(p1..p6, umax, wmax, dumax, dwmax)``."""
        return Kernels(
            (*map(float, self.p), *self.lims), output=vk.pioneer_output, deriv=vk.pioneer_deriv
        )


class Vehicle(Block):
    """RTB's ``Vehicle`` as a discrete block: true pose and noisy odometry every ``dt``.

    At hit ``k`` the outputs are the true pose ``x[k]``, the true odometry ``(d, dtheta)`` of
    the last interval (zero at k = 0) and the noisy odometry ``odo_true + chol(V) n_k``
    (``n_k`` standard normal, counter-based from ``seed``); the update clips the inputs
    (``Vehicle.control``) and moves the vehicle by the odometry model ``f`` (see
    :mod:`blocksim.robotics.mobile.odometry`).

    Parameters
    ----------
    V : array_like (2, 2) or (2,)
        Odometry noise covariance (matrix or diagonal) on (distance [m^2], heading [rad^2]).
    L : float
        Wheelbase [m] (default 1).
    vmax : float
        Speed limit [m/s] (default 5).
    stlim : float
        Steer limit [rad] (default 0.5).
    x0 : array_like (3,)
        Initial pose.
    dt : float
        Sample interval [s] (default 0.1).
    seed : int
        Seed of the odometry noise.

    Inputs
    ------
    speed : float  [m/s].  steer : float  [rad].

    Outputs
    -------
    pose : ndarray (3,)  true pose.  odo : ndarray (2,)  noisy odometry.
    odo_true : ndarray (2,)  true odometry.

    States
    ------
    x, y, theta, d, dtheta, k: discrete (period dt); k counts the hits.
    """

    inputs = ("speed", "steer")
    outputs = (
        Port("pose", shape=(3,), doc="true pose"),
        Port("odo", shape=(2,), doc="noisy odometry (d [m], dtheta [rad])"),
        Port("odo_true", shape=(2,), doc="true odometry"),
    )
    feedthrough = False

    def __init__(
        self,
        V: Any = ((0.0, 0.0), (0.0, 0.0)),
        L: float = 1.0,
        vmax: float = 5.0,
        stlim: float = 0.5,
        x0: Any = (0.0, 0.0, 0.0),
        dt: float = 0.1,
        seed: int = 0,
    ) -> None:
        super().__init__()
        from blocksim.robotics.mobile.vehicle import chol_psd

        owner = type(self).__name__
        self.V = covariance(owner, "V", V, 2)
        self.sV = np.ascontiguousarray(chol_psd(self.V))
        self.L = positive(owner, "L", L)
        self.vmax = positive(owner, "vmax", vmax, allow_inf=True)
        self.stlim = positive(owner, "stlim", stlim)
        self.dt = positive(owner, "dt", dt)
        self.key = as_key(seed, owner, None)
        pose = vector(owner, "x0", x0, 3, "a pose (x, y, theta)")
        self.set_state(
            np.concatenate((pose, [0.0, 0.0, 0.0])), ("x", "y", "theta", "d", "dth", "k")
        )
        self.clock = as_clock(self.dt, owner)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        """True pose, noisy and true odometry at this hit."""
        k = int(x[5])
        key = self.key & MASK64
        n0 = normal_sample(key, 2 * k)
        n1 = normal_sample(key, 2 * k + 1)
        sV = self.sV
        odo = np.array([x[3] + sV[0, 0] * n0, x[4] + sV[1, 0] * n0 + sV[1, 1] * n1])
        return x[:3].copy(), odo, x[3:5].copy()

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """Clip the inputs, move by the odometry model, count the hit."""
        v, g = vehicle_control(float(u[0]), float(u[1]), self.vmax, self.stlim)
        d, dth = odometry(v, g, self.L, self.dt)
        return np.concatenate((odo_f(x[:3].copy(), d, dth, 0.0, 0.0), (d, dth, x[5] + 1.0)))

    def kernels(self) -> Kernels:
        """Params ``(sV (2, 2) flattened (4,), L, vmax, stlim, dt, key)``."""
        return Kernels(
            (self.sV.reshape(-1).copy(), self.L, self.vmax, self.stlim, self.dt, self.key),
            output=vk.vehicle_output,
            update=vk.vehicle_update,
        )
