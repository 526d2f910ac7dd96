"""EKF map building from a vehicle of known pose (RTB ``EKF(veh, [], [], sensor, W, [])``, RVC
6.3).

EKF map building: the vehicle pose is known, the 20 landmark positions are estimated from
range-bearing readings, each inserted at its first sighting (the tests check the landmark
errors against their covariances).

The vehicle (``Vehicle`` block: bicycle with odometry noise ``V = diag(0.02 m, 0.5 deg)^2``,
0.1 s interval) is driven through random waypoints in a 10 m square (``RandomPath``); the
``RangeBearingSensor`` (noise ``W = diag(0.1 m, 1 deg)^2``) reads one random landmark of the
map each interval; the ``EKF`` block (mode ``"mapping"``) uses the same covariances (RTB
``EKF``, seed 000 section 2.11).

Run ``python examples/ekf_mapping.py`` to simulate 100 s (1000 steps) and write
``ekf_mapping.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks.vehicle import add_ekf_rig, add_pose_scope

V = (0.02**2, np.deg2rad(0.5) ** 2)
W = (0.1**2, np.deg2rad(1.0) ** 2)
P0 = (0.005**2, 0.005**2, np.deg2rad(0.1) ** 2)
LANDMARKS = 20


def build(file: str | Path | None = None, show: bool = False, seed: int = 0) -> Diagram:
    """Vehicle + random-path driver + range-bearing sensor + EKF + a scope of the true and
    estimated pose."""
    d = Diagram("ekf_mapping")
    add_ekf_rig(d, "mapping", V, W, P0, LANDMARKS, seed)
    add_pose_scope(
        d,
        "EKF map building from a vehicle of known pose",
        label="landmark estimates",
        units="m",
        file=file,
        show=show,
    )
    return d


def main(
    T: float = 100.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope plot in ``out_dir`` when given."""
    file = Path(out_dir) / "ekf_mapping.png" if out_dir is not None else None
    return simulate(build(file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    seen = np.count_nonzero(res["ekf.x"][-1]) // 2
    print(f"landmarks estimated after {res.t[-1]:.0f} s: {seen} of {LANDMARKS}")
