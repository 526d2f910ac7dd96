"""Drive a car-like vehicle to a pose (RTB ``sl_drivepose``, RVC 4.1.1.4).

The polar-coordinates controller: with ``rho`` the distance to the goal, ``alpha`` the
bearing of the goal relative to the heading and ``beta`` the goal heading relative to the
bearing, ``v = Krho rho`` and ``omega = Kalpha alpha + Kbeta beta`` (``Krho > 0``,
``Kbeta < 0``, ``Kalpha > Krho``), turned into a steer angle ``atan(omega L / v)``. A bicycle
starting at ``(1, 1)`` heading east reaches the pose ``(5, 5, pi/2)`` (the tests check 0.1 m
and 0.1 rad after 15 s).

What to look at: the XY path: the car reaches ``GOAL``'s position with its heading (pi/2,
pointing up), swinging wide to line up.

Try next: try other ``Krho``, ``Kalpha``, ``Kbeta`` (the stability conditions are ``Krho > 0``,
``Kbeta < 0``, ``Kalpha > Krho``); set a goal behind the car and ``direction=-1`` to reverse
into it.

Run ``python examples/drive_to_pose.py`` to simulate 15 s and write ``drive_to_pose.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks.vehicle import Bicycle, DriveToPose
from blocksim.blocks.vehicle.loops import add_path_graph, connect_driver

GOAL = (5.0, 5.0, np.pi / 2)
X0 = (1.0, 1.0, 0.0)


def build(file: str | Path | None = None, show: bool = False) -> Diagram:
    """Bicycle + pose controller + an XY graph of the path."""
    d = Diagram("drive_to_pose")
    d.add(Bicycle(L=1.0, vmax=2.0, stlim=1.2, x0=X0), name="car")
    d.add(
        DriveToPose(goal=GOAL, Krho=1.0, Kalpha=5.0, Kbeta=-2.0, L=1.0, direction=1), name="driver"
    )
    add_path_graph(d, "Drive to a pose", file, show)
    connect_driver(d)
    return d


def main(
    T: float = 15.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the path plot in ``out_dir`` when given."""
    options.setdefault("record_dt", 0.05)  # a smooth XY path, not the solver's polygon
    file = Path(out_dir) / "drive_to_pose.png" if out_dir is not None else None
    return simulate(build(file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(f"final pose {res['car.pose'][-1].round(3)}")
