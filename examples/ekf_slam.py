"""EKF SLAM of a car-like vehicle (RTB ``EKF(veh, V, P0, sensor, W, [])``, RVC 6.4).

EKF SLAM: vehicle pose and 20 landmark positions estimated together from noisy odometry and
range-bearing readings (the tests check landmark errors inside 3 sigma and shrinking
covariances).

The vehicle (``Vehicle`` block: bicycle with odometry noise ``V = diag(0.02 m, 0.5 deg)^2``,
0.1 s interval) is driven through random waypoints in a 10 m square (``RandomPath``); the
``RangeBearingSensor`` (noise ``W = diag(0.1 m, 1 deg)^2``) reads one random landmark of the
map each interval; the ``EKF`` block (mode ``"slam"``) uses the same covariances (RTB ``EKF``,
the RTB 9.10 manual, section 2.11).

What to look at: the map figure: the estimated map and path against the true ones, and the pose
error inside its 3-sigma bounds.

Try next: change ``P0`` (a less certain start), ``W`` or the number of ``LANDMARKS``; compare
the pose error with ``ekf_localisation``, which knows the map.

Run ``python examples/ekf_slam.py`` to simulate 100 s (1000 steps) and write ``ekf_slam.png``
(the scope) and ``ekf_slam_map.png`` (true and estimated maps with 3-sigma ellipses, paths, and
the pose error inside its 3-sigma bounds).
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult
from blocksim.blocks import Selector
from blocksim.blocks.vehicle import add_ekf_rig, add_estimation_plot, add_pose_scope
from blocksim.blocks.vehicle.scenario import LANDMARKS, P0, V, W, pose_error, run_estimation


def build(
    file: str | Path | None = None,
    show: bool = False,
    seed: int = 0,
    plot: bool = True,
    figure: str | Path | None = None,
) -> Diagram:
    """Vehicle + random-path driver + range-bearing sensor + EKF + (``plot``) a scope of the
    true and estimated pose and the figure of the true and estimated maps (landmark 3-sigma
    ellipses) and paths and of the pose error inside its 3-sigma bounds (saved to ``figure``
    when given)."""
    d = Diagram("ekf_slam")
    add_ekf_rig(d, "slam", V, W, P0, LANDMARKS, seed)
    if not plot:
        return d
    d.add(Selector(index=[0, 1, 2]), name="est_pose")
    d.connect("ekf.x", "est_pose")
    add_pose_scope(d, "EKF SLAM of a car-like vehicle", "est_pose", file=file, show=show)
    add_estimation_plot(
        d, "EKF SLAM: maps, paths, error and 3σ bounds", LANDMARKS,
        file=figure, show=show,
    )
    return d


def main(
    T: float = 100.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope plot (``ekf_slam.png``) and the map and
    error figure (``ekf_slam_map.png``) in ``out_dir`` when given."""
    return run_estimation(build, "ekf_slam", T, show, out_dir, **options)


if __name__ == "__main__":
    print(pose_error(main(out_dir=".")))
