"""RTB's ``EKF`` and ``ParticleFilter`` classes for coursework (RTB 9.10 manual,
sections 2.11-2.12, Appendix B.3). Numerics: :mod:`.ekf_core`, :mod:`.pf_core`.

EKF modes, chosen by the constructor arguments as in the seed:

============================  =============================================  ==============
mode                          call                                           state
============================  =============================================  ==============
dead reckoning                ``EKF(veh, V_est, P0)``                        xv (3)
map-based localisation        ``EKF(veh, V_est, P0, sensor, W_est, map)``    xv (3)
map building                  ``EKF(veh, None, None, sensor, W_est)``        2 per landmark
SLAM                          ``EKF(veh, V_est, P0, sensor, W_est)``         3 + 2 per lm
============================  =============================================  ==============
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from blocksim.robotics.mobile._messages import plain
from blocksim.robotics.mobile.ekf_core import ekf_augment, ekf_predict, ekf_update
from blocksim.robotics.mobile.kinematics import wrap_angle
from blocksim.robotics.mobile.pf_core import (
    pf_estimate,
    pf_predict,
    pf_resample_systematic,
    pf_weights,
)
from blocksim.robotics.mobile.vehicle import check_cov, chol_psd

__all__ = ["EKF", "EKFRecord", "ParticleFilter"]


@dataclass
class EKFRecord:
    """One step of the EKF history: estimate, covariance, odometry, innovation (None when
    there was no update), its covariance S and the landmark observed (-1 none)."""

    x_est: np.ndarray
    P: np.ndarray
    odo: np.ndarray
    innov: np.ndarray | None
    S: np.ndarray | None
    landmark: int


class EKF:
    """Extended Kalman filter for a vehicle in SE(2) (RTB ``EKF``); see the module table.

    Parameters
    ----------
    vehicle : Vehicle
        Provides the noisy odometry (``step()``) and the true pose.
    V_est : array_like (2, 2) or None
        Odometry covariance assumed by the filter; None when the vehicle pose is known.
    P0 : array_like (3, 3) or None
        Initial vehicle covariance.
    sensor : RangeBearingSensor or None
    W_est : array_like (2, 2) or None
        Measurement covariance assumed by the filter.
    map : LandmarkMap or None
        Known landmarks (localisation); None with a sensor: the map is estimated.
    joseph : bool
        Joseph-form covariance update (default True).
    history : bool
        Keep the per-step history (default True).
    x0 : array_like (3,) or None
        Initial estimate (default the vehicle's ``x0``).
    """

    def __init__(
        self,
        vehicle: Any,
        V_est: ArrayLike | None,
        P0: ArrayLike | None,
        sensor: Any = None,
        W_est: ArrayLike | None = None,
        map: Any = None,
        joseph: bool = True,
        history: bool = True,
        x0: ArrayLike | None = None,
    ) -> None:
        self.robot, self.sensor, self.map = vehicle, sensor, map
        self.joseph, self.keep_history = bool(joseph), bool(history)
        self.est_vehicle = V_est is not None
        if self.est_vehicle:
            self.V_est = check_cov("EKF", "V_est", V_est, 2)
            if P0 is None:
                raise ValueError("EKF: P0 (3x3) is required when V_est is given")
            self.P0 = check_cov("EKF", "P0", P0, 3)
        elif sensor is None or map is not None:
            raise ValueError(
                "EKF: V_est=None (vehicle known) is map building: give a sensor and map=None"
            )
        if sensor is not None:
            if W_est is None:
                raise ValueError("EKF: W_est (2x2) is required with a sensor")
            self.W_est = check_cov("EKF", "W_est", W_est, 2)
            seen = getattr(getattr(sensor, "map", None), "landmarks", None)
            if map is not None and seen is not None and len(seen) > len(map.landmarks):
                raise ValueError(
                    f"EKF: the map holds {len(map.landmarks)} landmarks but the sensor observes "
                    f"{len(seen)} (ids 0..{len(seen) - 1}); give the filter the sensor's map"
                )
        self.x0 = None if x0 is None else np.asarray(x0, dtype=float)
        self.init()

    @property
    def mode(self) -> str:
        """``"dead_reckoning"``, ``"localisation"``, ``"mapping"`` or ``"slam"``."""
        if self.sensor is None:
            return "dead_reckoning"
        if not self.est_vehicle:
            return "mapping"
        return "localisation" if self.map is not None else "slam"

    def init(self) -> None:
        """Reset the estimate, the landmark table and the history."""
        if self.est_vehicle:
            x0 = self.robot.x0 if self.x0 is None else self.x0
            self.x_est, self.P = np.array(x0, dtype=float), self.P0.copy()
        else:
            self.x_est, self.P = np.zeros(0), np.zeros((0, 0))
        #: landmark id -> index of its x coordinate in ``x_est``
        self.features: dict[int, int] = {}
        self.history: list[EKFRecord] = []

    def step(self) -> None:
        """One filter step: vehicle motion (noisy odometry), prediction, observation."""
        odo = self.robot.step()
        nv = 3 if self.est_vehicle else 0
        if self.est_vehicle:
            self.x_est, self.P = ekf_predict(self.x_est, self.P, odo[0], odo[1], self.V_est)
        innov = S = None
        k = -1
        if self.sensor is not None:
            z, kk = self.sensor.reading()
            if z is not None:
                k = kk
                xv_true = self.robot.x
                if self.map is not None:
                    if not 0 <= k < len(self.map.landmarks):
                        raise ValueError(
                            f"EKF: landmark id {k} is outside the map of "
                            f"{len(self.map.landmarks)} landmarks"
                        )
                    self.x_est, self.P, innov, S = ekf_update(
                        self.x_est, self.P, z, self.W_est, xv_true, nv, -1,
                        self.map.landmarks[k], self.joseph,
                    )  # fmt: skip
                elif k in self.features:
                    self.x_est, self.P, innov, S = ekf_update(
                        self.x_est, self.P, z, self.W_est, xv_true, nv, self.features[k],
                        np.zeros(2), self.joseph,
                    )  # fmt: skip
                else:
                    self.features[k] = self.x_est.shape[0]
                    self.x_est, self.P = ekf_augment(self.x_est, self.P, z, self.W_est, xv_true, nv)
        if self.keep_history:
            self.history.append(EKFRecord(self.x_est.copy(), self.P.copy(), odo, innov, S, k))

    def run(self, n: int) -> None:
        """Reset the vehicle (and its driver), the sensor and the filter, then ``n`` steps."""
        self.robot.init()
        if self.sensor is not None:
            self.sensor.init()
        self.init()
        for _ in range(int(n)):
            self.step()

    def landmark(self, k: int) -> tuple[np.ndarray, np.ndarray] | None:
        """Estimated position (2,) and covariance (2, 2) of landmark ``k``, or None if unseen."""
        if k not in self.features:
            return None
        j = self.features[k]
        return self.x_est[j : j + 2].copy(), self.P[j : j + 2, j : j + 2].copy()

    def plot_xy(self) -> np.ndarray:
        """Estimated vehicle poses (N, 3) of the history."""
        return np.array([h.x_est[:3] for h in self.history])

    def plot_P(self) -> np.ndarray:
        """Covariance magnitude ``sqrt(det(Pvv))`` (N,) of the vehicle part per step."""
        return np.array([np.sqrt(max(np.linalg.det(h.P[:3, :3]), 0.0)) for h in self.history])


class ParticleFilter:
    """Monte-Carlo localisation with known landmarks (RTB ``ParticleFilter``).

    Parameters
    ----------
    vehicle : Vehicle
    sensor : RangeBearingSensor
        Its map gives the landmarks and the region ``dim``.
    Q : array_like (3, 3)
        Covariance of the diffusion noise added to every particle each step.
    L : array_like (2, 2)
        Covariance of the likelihood model.
    nparticles : int
    w0 : float
        Offset of the likelihood (default 0.05).
    x0 : array_like (np, 3) or None
        Initial particles; default uniform over ``[-dim, dim]^2 x [-pi, pi)``.
    seed : int
        Seed of the filter's generator (``init`` restarts it).
    """

    def __init__(
        self,
        vehicle: Any,
        sensor: Any,
        Q: ArrayLike,
        L: ArrayLike,
        nparticles: int = 500,
        w0: float = 0.05,
        x0: ArrayLike | None = None,
        seed: int = 2,
    ) -> None:
        self.robot, self.sensor = vehicle, sensor
        self.Q = check_cov("ParticleFilter", "Q", Q, 3)
        self.sQ = chol_psd(self.Q)
        self.L = check_cov("ParticleFilter", "L", L, 2)
        self.Linv = np.linalg.inv(self.L)
        if int(nparticles) < 1:
            raise ValueError(f"ParticleFilter: nparticles must be >= 1, got {plain(nparticles)}")
        self.nparticles, self.w0, self.seed = int(nparticles), float(w0), seed
        self.dim = sensor.map.dim
        self.x0 = None if x0 is None else np.asarray(x0, dtype=float)
        self.init()

    def init(self) -> None:
        """Restart the generator, the particles and the history."""
        self.rng = np.random.default_rng(self.seed)
        if self.x0 is None:
            u = 2.0 * self.rng.random((self.nparticles, 3)) - 1.0
            self.x = u * np.array([self.dim, self.dim, np.pi])
        else:
            self.x = self.x0.copy()
        self.weight = np.ones(self.nparticles)
        self.x_est, self.std = pf_estimate(self.x)
        self.history: list[tuple[np.ndarray, np.ndarray]] = []

    def step(self) -> None:
        """Move the vehicle, predict, weight by the observation (if any) and resample."""
        odo = self.robot.step()
        noise = self.rng.standard_normal((self.nparticles, 3))
        self.x = pf_predict(self.x, odo[0], odo[1], self.sQ, noise)
        z, k = self.sensor.reading()
        if z is not None:
            self.weight = pf_weights(self.x, z, self.sensor.map.landmarks[k], self.Linv, self.w0)
            self.x = pf_resample_systematic(self.x, self.weight, self.rng.random())
        self.x_est, self.std = pf_estimate(self.x)
        self.history.append((self.x_est.copy(), self.std.copy()))

    def run(self, n: int) -> None:
        """Reset vehicle, sensor and filter, then ``n`` steps."""
        self.robot.init()
        self.sensor.init()
        self.init()
        for _ in range(int(n)):
            self.step()

    def plot_xy(self) -> np.ndarray:
        """Estimated poses (N, 3)."""
        return np.array([h[0] for h in self.history])

    def error(self) -> np.ndarray:
        """Estimate minus true pose of the last step (3,), heading wrapped."""
        e = self.x_est - self.robot.x
        e[2] = wrap_angle(e[2])
        return e
