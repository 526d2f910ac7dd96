"""Drive a car-like vehicle to a point (RTB ``sl_drivepoint``, RVC 4.1.1.1).

A bicycle (wheelbase 1 m, steer limit 0.8 rad) starts at ``(8, 5)`` heading north and is
steered by ``gamma = Kh angdiff(atan2(g - p), theta)`` at speed ``v = Kv |g - p|`` toward the
goal ``(5, 5)``; the speed decays with the distance, so the vehicle arrives smoothly (within
0.1 m after 10 s, checked by the tests).

What to look at: the XY path from ``X0`` to ``GOAL``: the heading turns first, then the speed
falls as the car closes in.

Try next: move ``GOAL`` behind the car; change ``Kv`` and ``Kh`` of ``DriveToPoint``; the car
arrives at the point but with no control of its final heading (``drive_to_pose`` adds it).

Run ``python examples/drive_to_point.py`` to simulate 10 s and write ``drive_to_point.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks.vehicle import Bicycle, DriveToPoint
from blocksim.blocks.vehicle.loops import add_path_graph, connect_driver

GOAL = (5.0, 5.0)
X0 = (8.0, 5.0, np.pi / 2)


def build(file: str | Path | None = None, show: bool = False, plot: bool = True) -> Diagram:
    """Bicycle + move-to-point driver + (``plot``) an XY graph of the path."""
    d = Diagram("drive_to_point")
    d.add(Bicycle(L=1.0, vmax=2.0, stlim=0.8, x0=X0), name="car")
    d.add(DriveToPoint(goal=GOAL, Kv=0.5, Kh=1.5), name="driver")
    connect_driver(d)
    if not plot:
        return d
    add_path_graph(d, "Drive to a point", file, show)
    return d


def main(
    T: float = 10.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the path plot in ``out_dir`` when given."""
    options.setdefault("record_dt", 0.05)  # a smooth XY path, not the solver's polygon
    file = Path(out_dir) / "drive_to_point.png" if out_dir is not None else None
    return simulate(build(file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(
        f"final position {res['car.pose'][-1][:2].round(3)}, distance to goal "
        f"{np.hypot(*(res['car.pose'][-1][:2] - GOAL)):.3f} m"
    )
