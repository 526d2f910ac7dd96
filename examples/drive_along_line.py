"""Drive a car-like vehicle along a line (RTB ``sl_driveline``, RVC 4.1.1.2).

The line ``x - 2 y + 4 = 0`` (RVC's ``L = [1 -2 4]``) is travelled in direction ``(b, -a) =
(-2, -1)``; a bicycle starting at ``(8, 5)`` heading north at 1 m/s steers by
``gamma = -Kd d + Kh angdiff(atan2(-a, b), theta)``, ``d`` its signed distance to the line.
It converges onto the line and then drives along it (the tests check the distance and the
heading after 30 s).

What to look at: the XY path: the car turns from its start towards the line ``a x + b y + c =
0`` (``LINE``) and settles onto it.

Try next: change ``LINE`` or ``X0``; raise ``Kd`` (distance gain) or ``Kh`` (heading gain) of
``FollowLine`` and watch the approach overshoot or slow down.

Run ``python examples/drive_along_line.py`` to simulate 30 s and write
``drive_along_line.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks.vehicle import Bicycle, FollowLine
from blocksim.blocks.vehicle.loops import add_path_graph, connect_driver

LINE = (1.0, -2.0, 4.0)
X0 = (8.0, 5.0, np.pi / 2)


def build(file: str | Path | None = None, show: bool = False) -> Diagram:
    """Bicycle + line follower + an XY graph of the path."""
    d = Diagram("drive_along_line")
    d.add(Bicycle(L=1.0, vmax=2.0, stlim=0.5, x0=X0), name="car")
    d.add(FollowLine(line=LINE, Kd=0.5, Kh=1.0, speed=1.0), name="driver")
    add_path_graph(d, "Drive along a line", file, show)
    connect_driver(d)
    return d


def distance(pose: np.ndarray) -> np.ndarray:
    """Signed distance [m] of poses (..., 3) to the line."""
    a, b, c = LINE
    return (a * pose[..., 0] + b * pose[..., 1] + c) / np.hypot(a, b)


def main(
    T: float = 30.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the path plot in ``out_dir`` when given."""
    options.setdefault("record_dt", 0.05)  # a smooth XY path, not the solver's polygon
    file = Path(out_dir) / "drive_along_line.png" if out_dir is not None else None
    return simulate(build(file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(f"final distance to the line {distance(res['car.pose'][-1]):.4f} m")
