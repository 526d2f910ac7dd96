"""EKF map-based localisation of a car-like vehicle (RTB ``EKF(veh, V, P0, sensor, W, map)``, RVC
6.2).

EKF map-based localisation: noisy odometry plus range-bearing readings of 20 known landmarks;
the covariance stays bounded and the error inside it (the tests check NEES over seeded Monte-
Carlo runs through simulate_batch).

The vehicle (``Vehicle`` block: bicycle with odometry noise ``V = diag(0.02 m, 0.5 deg)^2``,
0.1 s interval) is driven through random waypoints in a 10 m square (``RandomPath``); the
``RangeBearingSensor`` (noise ``W = diag(0.1 m, 1 deg)^2``) reads one random landmark of the
map each interval; the ``EKF`` block (mode ``"localisation"``) uses the same covariances (RTB
``EKF``, seed 000 section 2.11).

Run ``python examples/ekf_localisation.py`` to simulate 100 s (1000 steps) and write
``ekf_localisation.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Scope
from blocksim.blocks.vehicle import EKF, RandomPath, RangeBearingSensor, Vehicle

V = (0.02**2, np.deg2rad(0.5) ** 2)
W = (0.1**2, np.deg2rad(1.0) ** 2)
P0 = (0.005**2, 0.005**2, np.deg2rad(0.1) ** 2)
LANDMARKS = 20


def build(
    file: str | Path | None = None, show: bool = False, seed: int = 0, plot: bool = True
) -> Diagram:
    """Vehicle + random-path driver + range-bearing sensor + EKF + (``plot``) a scope of the
    true and estimated pose."""
    d = Diagram("ekf_localisation")
    d.add(Vehicle(V=V, seed=seed), name="veh")
    d.add(RandomPath(dim=10.0, seed=seed + 1), name="driver")
    d.add(
        EKF(mode="localisation", V_est=V, P0=P0, W_est=W, landmarks=LANDMARKS, map_seed=0),
        name="ekf",
    )
    d.connect("veh.pose", "driver.pose")
    d.connect("driver.v", "veh.speed")
    d.connect("driver.gamma", "veh.steer")
    sensor = RangeBearingSensor(landmarks=LANDMARKS, map_seed=0, W=W, seed=seed + 2)
    d.add(sensor, name="sensor")
    d.connect("veh.pose", "sensor.pose")
    for port in ("z", "k", "valid"):
        d.connect(f"sensor.{port}", f"ekf.{port}")
    d.connect("veh.odo", "ekf.odo")
    if not plot:
        return d
    d.add(
        Scope(
            2,
            labels=["true pose", "estimated pose"],
            units=["m, m, rad", "m, m, rad"],
            title="EKF map-based localisation of a car-like vehicle",
            file=file,
            show=show,
            stairs=True,
        ),
        name="scope",
    )
    d.connect("veh.pose", "scope.u0")
    d.connect("ekf.x", "scope.u1")
    return d


def main(
    T: float = 100.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope plot in ``out_dir`` when given."""
    file = Path(out_dir) / "ekf_localisation.png" if out_dir is not None else None
    return simulate(build(file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    e = res["ekf.x"][-1][:3] - res["veh.pose"][-1]
    size = np.sqrt(np.linalg.det(res["ekf.P"][-1][:3, :3]))
    print(f"final pose error {e.round(3)}, sqrt(det(Pvv)) {size:.2e}")
