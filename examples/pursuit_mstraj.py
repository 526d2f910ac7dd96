"""Pure pursuit of a multi-segment path (``mstraj``) by a car-like vehicle (RVC 4.1.1.3).

The goal point runs through the waypoints ``(10, 0)``, ``(10, 10)``, ``(0, 10)`` from the
origin at up to 1 m/s per axis with 2 s blends (RTB ``mstraj``, the ``MSTraj`` block); the
pursuit driver (PI speed control on the distance error to ``dstar = 1`` m, steer
proportional to the bearing) makes a bicycle follow it round the corners and stop behind the
last waypoint (the tests check the tracking error and the final distance).

A planner's output (an N x 2 or N x 3 path) plays the same way through ``PathSource``.

What to look at: the XY path following the mstraj corners, rounded by the acceleration time
``tacc`` and the pursuit distance ``DSTAR``.

Try next: add a waypoint to ``WAYPOINTS``; change ``tacc`` or ``qdmax`` of the trajectory, or
``DSTAR``.

Run ``python examples/pursuit_mstraj.py`` to simulate 40 s and write ``pursuit_mstraj.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks.arm import MSTraj
from blocksim.blocks.vehicle import Bicycle, PurePursuit
from blocksim.blocks.vehicle.loops import add_path_graph, connect_driver

WAYPOINTS = ((10.0, 0.0), (10.0, 10.0), (0.0, 10.0))
DSTAR = 1.0


def build(file: str | Path | None = None, show: bool = False) -> Diagram:
    """mstraj goal + pursuit driver + bicycle + an XY graph of the path."""
    d = Diagram("pursuit_mstraj")
    d.add(MSTraj(segments=WAYPOINTS, q0=(0.0, 0.0), dt=0.05, tacc=2.0, qdmax=1.0), name="goal")
    d.add(PurePursuit(dstar=DSTAR, Kv=1.0, Ki=0.2, Kh=2.0), name="driver")
    d.add(Bicycle(L=1.0, vmax=3.0, stlim=0.8, x0=(-1.0, 0.0, 0.0)), name="car")
    add_path_graph(d, "Pursuit of an mstraj path", file, show)
    d.connect("goal.q", "driver.target")
    connect_driver(d)
    return d


def main(
    T: float = 40.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the path plot in ``out_dir`` when given."""
    options.setdefault("record_dt", 0.05)  # a smooth XY path, not the solver's polygon
    file = Path(out_dir) / "pursuit_mstraj.png" if out_dir is not None else None
    return simulate(build(file, show), T, **options)


if __name__ == "__main__":
    import numpy as np

    res = main(out_dir=".")
    err = np.hypot(*(res["goal.q"] - res["car.pose"][:, :2]).T) - DSTAR
    print(f"largest distance error {np.abs(err).max():.3f} m, final {err[-1]:.3f} m")
