"""RTB's ``Vehicle`` (car-like, noisy odometry) and ``RandomPath`` driver as Python
classes for coursework (RTB 9.10, the RTB 9.10 manual, sections 2.7-2.8, Appendix B.2-B.3).

The numerics are :mod:`blocksim.robotics.mobile.odometry` and
:mod:`blocksim.robotics.mobile.drivers`; these classes hold a run's state (true pose, history,
random generator) the way RTB's handle objects do.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from blocksim.robotics.mobile._messages import plain
from blocksim.robotics.mobile.drivers import random_path_steer
from blocksim.robotics.mobile.odometry import odo_f, odo_Fv, odo_Fx, odometry, vehicle_control

__all__ = ["RandomPath", "Vehicle", "check_cov", "chol_psd"]


def check_cov(owner: str, name: str, value: Any, n: int) -> np.ndarray:
    """``value`` as a symmetric positive semi-definite (n, n) covariance, else ValueError."""
    try:
        M = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{owner}: {name} must be a {n}x{n} covariance matrix") from None
    if M.shape == (n,):
        M = np.diag(M)
    if M.shape != (n, n) or not np.all(np.isfinite(M)):
        raise ValueError(
            f"{owner}: {name} must be a finite {n}x{n} covariance matrix, got shape {M.shape}"
        )
    if not np.allclose(M, M.T) or np.min(np.linalg.eigvalsh(M)) < -1e-12:
        raise ValueError(f"{owner}: {name} must be symmetric positive semi-definite")
    return M


def chol_psd(M: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor of a PSD matrix (zero rows/columns allowed)."""
    try:
        return np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        return _ldl(M)


def _ldl(M: np.ndarray) -> np.ndarray:
    w, U = np.linalg.eigh(M)
    S = U * np.sqrt(np.clip(w, 0.0, None))
    # any square root works for sampling; make it lower triangular through QR
    _, R = np.linalg.qr(S.T)
    Lo = R.T
    return Lo * np.sign(np.where(np.diag(Lo) == 0, 1.0, np.diag(Lo)))


class Driver(Protocol):
    def demand(self) -> tuple[float, float]: ...

    def init(self) -> None: ...


class Vehicle:
    """Car-like vehicle with noisy odometry (RTB ``Vehicle``).

    Parameters
    ----------
    V : array_like (2, 2) or None
        Covariance of the odometry noise on ``(distance [m], heading change [rad])``; None for
        noise-free odometry.
    L : float
        Wheelbase [m] (default 1).
    vmax : float
        Speed limit [m/s] (default 5).
    stlim : float
        Steer limit [rad] (default 0.5).
    x0 : array_like (3,)
        Initial pose ``(x, y, theta)`` (default zeros).
    dt : float
        Sample interval [s] (default 0.1).
    seed : int or None
        Seed of the odometry noise generator.

    Attributes
    ----------
    x : ndarray (3,)
        True pose. ``odometry`` (2,): true odometry of the last step. ``x_hist`` (N, 3).
    """

    def __init__(
        self,
        V: ArrayLike | None = None,
        L: float = 1.0,
        vmax: float = 5.0,
        stlim: float = 0.5,
        x0: ArrayLike = (0.0, 0.0, 0.0),
        dt: float = 0.1,
        seed: int | None = 0,
    ) -> None:
        self.V = np.zeros((2, 2)) if V is None else check_cov("Vehicle", "V", V, 2)
        for name, val in (("L", L), ("vmax", vmax), ("stlim", stlim), ("dt", dt)):
            if not float(val) > 0:
                raise ValueError(f"Vehicle: {name} must be > 0, got {plain(val)}")
        self.L, self.vmax, self.stlim, self.dt = float(L), float(vmax), float(stlim), float(dt)
        x0 = np.asarray(x0, dtype=float)
        if x0.shape != (3,):
            raise ValueError(f"Vehicle: x0 must be a pose (x, y, theta), got shape {x0.shape}")
        self.x0 = x0.copy()
        self.seed = seed
        self.sV = chol_psd(self.V)
        self.driver: Driver | None = None
        self.init()

    def init(self, x0: ArrayLike | None = None) -> None:
        """Reset the pose to ``x0`` (default the constructor's), the history, the noise
        generator and the driver."""
        if x0 is not None:
            self.x0 = np.asarray(x0, dtype=float).copy()
        self.x = self.x0.copy()
        self.odometry = np.zeros(2)
        self.x_hist: list[np.ndarray] = []
        self.rng = np.random.default_rng(self.seed)
        if self.driver is not None:
            self.driver.init()

    def add_driver(self, driver: Any) -> None:
        """Attach a driver (an object with ``demand() -> (speed, steer)``); it gets ``veh``."""
        self.driver = driver
        driver.veh = self
        driver.init()

    def control(self, speed: float | None = None, steer: float | None = None) -> np.ndarray:
        """``(speed, steer)`` with the limits applied; from the driver when not given."""
        if speed is None:
            speed, steer = self.driver.demand() if self.driver is not None else (0.0, 0.0)
        return np.array(vehicle_control(float(speed), float(steer), self.vmax, self.stlim))

    def update(self, u: ArrayLike) -> np.ndarray:
        """Move one interval with ``u = (speed, steer)`` (no limits); the true odometry (2,)."""
        d, dth = odometry(float(u[0]), float(u[1]), self.L, self.dt)
        self.x = odo_f(self.x, d, dth, 0.0, 0.0)
        self.odometry = np.array([d, dth])
        self.x_hist.append(self.x.copy())
        return self.odometry.copy()

    def step(self, speed: float | None = None, steer: float | None = None) -> np.ndarray:
        """One interval at the (limited) demand; returns the noisy odometry ``odo + chol(V) n``."""
        odo = self.update(self.control(speed, steer))
        return odo + self.sV @ self.rng.standard_normal(2)

    def run(self, n: int) -> np.ndarray:
        """``n`` steps driven by the driver; the true poses (n, 3)."""
        self.init()
        for _ in range(int(n)):
            self.step()
        return np.array(self.x_hist)

    def run2(self, T: float, x0: ArrayLike, speed: float, steer: float) -> np.ndarray:
        """Constant inputs for ``T`` [s] from ``x0`` (no limits; used by planners): (N, 3)."""
        self.init(x0)
        for _ in range(round(T / self.dt)):
            self.update((speed, steer))
        return np.array(self.x_hist)

    @staticmethod
    def f(x: ArrayLike, odo: ArrayLike, w: ArrayLike = (0.0, 0.0)) -> np.ndarray:
        """Odometry motion model: next pose (3,) or (N, 3) for poses (N, 3)."""
        x = np.asarray(x, dtype=float)
        if x.ndim == 2:
            return np.array([Vehicle.f(r, odo, w) for r in x])
        return odo_f(x, float(odo[0]), float(odo[1]), float(w[0]), float(w[1]))

    @staticmethod
    def Fx(x: ArrayLike, odo: ArrayLike) -> np.ndarray:
        """``df/dx`` (3, 3)."""
        return odo_Fx(np.asarray(x, dtype=float), float(odo[0]), float(odo[1]))

    @staticmethod
    def Fv(x: ArrayLike, odo: ArrayLike) -> np.ndarray:
        """``df/dv`` (3, 2)."""
        return odo_Fv(np.asarray(x, dtype=float), float(odo[0]), float(odo[1]))


class RandomPath:
    """Driver through random waypoints in ``[-dim, dim]^2`` at constant speed (RTB
    ``RandomPath``): waypoints ``0.8 dim (2 U - 1)`` from a private seeded generator; the next
    one is chosen within ``dthresh`` (default ``0.05 dim``) of the goal, or when the distance
    starts to grow (the vehicle has passed it).

    Parameters
    ----------
    dim : float
        Half-size of the region [m].
    speed : float
        Speed [m/s] (default 1).
    dthresh : float or None
        Proximity [m] at which the next waypoint is chosen.
    seed : int
        Seed of the waypoint generator (``init`` restarts it).
    """

    def __init__(
        self, dim: float, speed: float = 1.0, dthresh: float | None = None, seed: int = 0
    ) -> None:
        if not float(dim) > 0:
            raise ValueError(f"RandomPath: dim must be > 0, got {plain(dim)}")
        self.dim, self.speed, self.seed = float(dim), float(speed), int(seed)
        self.closeenough = 0.05 * self.dim if dthresh is None else float(dthresh)
        self.veh: Vehicle | None = None
        self.init()

    def init(self) -> None:
        """Restart the waypoint sequence."""
        self.rng = np.random.default_rng(self.seed)
        self.goal = self._new_goal()
        self.d_prev = np.inf

    def _new_goal(self) -> np.ndarray:
        return 0.8 * self.dim * (2.0 * self.rng.random(2) - 1.0)

    def demand(self) -> tuple[float, float]:
        """``(speed, steer)`` toward the current waypoint, advancing it when reached."""
        x = self.veh.x
        d = float(np.hypot(*(self.goal - x[:2])))
        if d < self.closeenough or d > self.d_prev:
            self.goal = self._new_goal()
            d = float(np.hypot(*(self.goal - x[:2])))
        self.d_prev = d
        return self.speed, random_path_steer(x, self.goal[0], self.goal[1])
