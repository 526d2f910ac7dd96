"""Pure pursuit of a point moving on a circle (RTB ``sl_pursuit``, RVC 4.1.1.3).

A goal point moves on a circle of radius 5 m centred on the origin at 0.05 rev/s (about
1.57 m/s); a bicycle starting at the origin follows it at ``dstar = 1`` m: a PI controller on
the distance error sets the speed, the steer is ``Kh`` times the bearing of the point. After
the transient the vehicle rides the circle behind the point with a bounded lag (the tests
check the steady distance error).

What to look at: the car's pose settling into a circle behind the goal point on the circle, at
the distance ``DSTAR``.

Try next: change ``DSTAR``, ``RADIUS`` or ``FREQUENCY`` (a faster point needs a faster car:
``vmax``); set the integral gain ``Ki`` to 0 and see a steady distance error remain.

Run ``python examples/pursuit_circle.py`` to simulate 40 s and write ``pursuit_circle.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks.arm import CirclePath
from blocksim.blocks.sinks.wiring import add_scope
from blocksim.blocks.vehicle import Bicycle, PurePursuit
from blocksim.blocks.vehicle.loops import connect_driver

RADIUS, FREQUENCY, DSTAR = 5.0, 0.05, 1.0


def build(file: str | Path | None = None, show: bool = False) -> Diagram:
    """Circle source + pursuit driver + bicycle + a scope of the pose."""
    d = Diagram("pursuit_circle")
    d.add(CirclePath(radius=RADIUS, frequency=FREQUENCY), name="goal")
    d.add(PurePursuit(dstar=DSTAR, Kv=1.0, Ki=0.5, Kh=2.0), name="driver")
    d.add(Bicycle(L=1.0, vmax=5.0, stlim=0.8), name="car")
    add_scope(d, ["car.pose", "goal.p"], labels=["pose", "goal"], units=["m, m, rad", "m"],
              title="Pursuit of a point on a circle", file=file, show=show)
    d.connect("goal.p", "driver.target")
    connect_driver(d)
    return d


def main(
    T: float = 40.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope plot in ``out_dir`` when given."""
    options.setdefault("record_dt", 0.05)  # smooth curves, not the solver's polygons
    file = Path(out_dir) / "pursuit_circle.png" if out_dir is not None else None
    return simulate(build(file, show), T, **options)


if __name__ == "__main__":
    import numpy as np

    res = main(out_dir=".")
    err = np.hypot(*(res["goal.p"][:, :2] - res["car.pose"][:, :2]).T) - DSTAR
    print(f"distance error over the last 10 s: {np.abs(err[res.t > 30]).max():.3f} m")
