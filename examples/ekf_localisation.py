"""EKF map-based localisation of a car-like vehicle (RTB ``EKF(veh, V, P0, sensor, W, map)``, RVC
6.2).

EKF map-based localisation: noisy odometry plus range-bearing readings of 20 known landmarks;
the covariance stays bounded and the error inside it (the tests check NEES over seeded Monte-
Carlo runs through simulate_batch).

The vehicle (``Vehicle`` block: bicycle with odometry noise ``V = diag(0.02 m, 0.5 deg)^2``,
0.1 s interval) is driven through random waypoints in a 10 m square (``RandomPath``); the
``RangeBearingSensor`` (noise ``W = diag(0.1 m, 1 deg)^2``) reads one random landmark of the
map each interval; the ``EKF`` block (mode ``"localisation"``) uses the same covariances (RTB
``EKF``, the RTB 9.10 manual, section 2.11).

What to look at: the map figure's error panels: the error inside its 3-sigma bounds, which stay
small and bounded because each landmark reading corrects the drift.

Try next: change ``W`` (a noisier sensor), the number of ``LANDMARKS``, or the ``seed``; compare
the bounds with ``ekf_dead_reckoning``'s.

Run ``python examples/ekf_localisation.py`` to simulate 100 s (1000 steps) and write
``ekf_localisation.png`` (the scope) and ``ekf_localisation_map.png`` (the map, paths and error
with its 3-sigma bounds).
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult
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
    true and estimated pose and the figure of the map and paths with 3-sigma ellipses and of
    the error inside its 3-sigma bounds (saved to ``figure`` when given)."""
    d = Diagram("ekf_localisation")
    add_ekf_rig(d, "localisation", V, W, P0, LANDMARKS, seed)
    if not plot:
        return d
    add_pose_scope(d, "EKF map-based localisation of a car-like vehicle", file=file, show=show)
    add_estimation_plot(
        d, "EKF localisation: map, paths, error and 3σ bounds", LANDMARKS,
        file=figure, show=show,
    )
    return d


def main(
    T: float = 100.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope plot (``ekf_localisation.png``) and the map and
    error figure (``ekf_localisation_map.png``) in ``out_dir`` when given."""
    return run_estimation(build, "ekf_localisation", T, show, out_dir, **options)


if __name__ == "__main__":
    print(pose_error(main(out_dir=".")))
