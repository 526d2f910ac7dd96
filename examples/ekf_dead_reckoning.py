"""EKF dead reckoning of a car-like vehicle (RTB ``EKF(veh, V, P0)``, RVC 6.1).

EKF dead reckoning: the vehicle's pose from noisy odometry alone; the covariance grows without
bound (the tests check that it grows and that the error stays consistent with it).

The vehicle (``Vehicle`` block: bicycle with odometry noise ``V = diag(0.02 m, 0.5 deg)^2``,
0.1 s interval) is driven through random waypoints in a 10 m square (``RandomPath``); the
``RangeBearingSensor`` (noise ``W = diag(0.1 m, 1 deg)^2``) reads one random landmark of the
map each interval; the ``EKF`` block (mode ``"dead_reckoning"``) uses the same covariances (RTB
``EKF``, the RTB 9.10 manual, section 2.11).

What to look at: in the map figure, the estimated path drifting away from the true one, the
3-sigma ellipses growing along it, and the error staying inside its growing 3-sigma bounds.

Try next: scale the filter's ``V`` down (an overconfident filter: the error leaves its bounds)
or up; then add the sensor (``ekf_localisation``) and watch the bounds stop growing.

Run ``python examples/ekf_dead_reckoning.py`` to simulate 100 s (1000 steps) and write
``ekf_dead_reckoning.png`` (the scope) and ``ekf_dead_reckoning_map.png`` (the paths and error
with its 3-sigma bounds).
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult
from blocksim.blocks.vehicle import add_ekf_rig, add_estimation_plot, add_pose_scope
from blocksim.blocks.vehicle.scenario import LANDMARKS, P0, V, W, pose_error, run_estimation


def build(file: str | Path | None = None, show: bool = False, seed: int = 0,
          figure: str | Path | None = None) -> Diagram:
    """Vehicle + random-path driver + EKF + a scope of the true and estimated pose + the
    figure of the paths with the pose's 3-sigma ellipses and of the error inside its 3-sigma
    bounds (saved to ``figure`` when given)."""
    d = Diagram("ekf_dead_reckoning")
    add_ekf_rig(d, "dead_reckoning", V, W, P0, LANDMARKS, seed)
    add_pose_scope(d, "EKF dead reckoning of a car-like vehicle", file=file, show=show)
    add_estimation_plot(d, "EKF dead reckoning: paths, error and 3σ bounds", file=figure, show=show)
    return d


def main(
    T: float = 100.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope plot (``ekf_dead_reckoning.png``) and the map and
    error figure (``ekf_dead_reckoning_map.png``) in ``out_dir`` when given."""
    return run_estimation(build, "ekf_dead_reckoning", T, show, out_dir, **options)


if __name__ == "__main__":
    print(pose_error(main(out_dir=".")))
