"""EKF map building from a vehicle of known pose (RTB ``EKF(veh, [], [], sensor, W, [])``, RVC
6.3).

EKF map building: the vehicle pose is known, the 20 landmark positions are estimated from
range-bearing readings, each inserted at its first sighting (the tests check the landmark
errors against their covariances).

The vehicle (``Vehicle`` block: bicycle with odometry noise ``V = diag(0.02 m, 0.5 deg)^2``,
0.1 s interval) is driven through random waypoints in a 10 m square (``RandomPath``); the
``RangeBearingSensor`` (noise ``W = diag(0.1 m, 1 deg)^2``) reads one random landmark of the
map each interval; the ``EKF`` block (mode ``"mapping"``) uses the same covariances (RTB
``EKF``, the RTB 9.10 manual, section 2.11).

What to look at: the map figure: each estimated landmark (with its 3-sigma ellipse) beside its
true position, the ellipses shrinking as the landmark is seen again.

Try next: shorten ``T`` and see which landmarks are still unseen or uncertain; change ``W``;
then estimate the pose as well (``ekf_slam``).

Run ``python examples/ekf_mapping.py`` to simulate 100 s (1000 steps) and write
``ekf_mapping.png`` (the scope) and ``ekf_mapping_map.png`` (the true and estimated
landmarks with their 3-sigma ellipses, and the path).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult
from blocksim.blocks.vehicle import add_ekf_rig, add_estimation_plot, add_pose_scope
from blocksim.blocks.vehicle.scenario import LANDMARKS, P0, V, W, run_estimation


def build(file: str | Path | None = None, show: bool = False, seed: int = 0,
          figure: str | Path | None = None) -> Diagram:
    """Vehicle + random-path driver + range-bearing sensor + EKF + a scope of the true pose
    and the landmark estimates + the map: true landmarks, estimated landmarks with their
    3-sigma ellipses and the path (saved to ``figure`` when given)."""
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
    add_estimation_plot(
        d, "EKF map building: landmarks and 3σ ellipses", LANDMARKS,
        file=figure, show=show,
    )
    return d


def main(
    T: float = 100.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope plot (``ekf_mapping.png``) and the map and
    error figure (``ekf_mapping_map.png``) in ``out_dir`` when given."""
    return run_estimation(build, "ekf_mapping", T, show, out_dir, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    seen = np.count_nonzero(res["ekf.x"][-1]) // 2
    print(f"landmarks estimated after {res.t[-1]:.0f} s: {seen} of {LANDMARKS}")
