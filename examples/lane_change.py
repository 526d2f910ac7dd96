"""Open-loop lane change of a car-like vehicle (RTB ``sl_lanechange``, RVC 4.1.1).

At a constant 1 m/s a bicycle (wheelbase 1 m) steers ``+0.3`` rad from 1 s to 2 s, then
``-0.3`` rad from 2 s to 3 s, then straight: two arcs of opposite curvature that leave it on a
parallel lane with its original heading. The lateral offset is that of the exact arcs,
``2 R (1 - cos(v t1 / R))`` with ``R = L / tan(0.3)`` (checked by the tests).

What to look at: the steer profile (left, then right), the lateral position ``y`` moving over by
a lane, and the heading returning to zero.

Try next: change ``STEER`` or the ``TIMES`` so the car ends at an angle; make the second half
shorter and find the profile that ends heading straight.

Run ``python examples/lane_change.py`` to simulate 5 s and write ``lane_change.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Constant, Piecewise
from blocksim.blocks.sinks.wiring import add_scope
from blocksim.blocks.vehicle import Bicycle

SPEED, STEER = 1.0, 0.3
TIMES = (0.0, 1.0, 2.0, 3.0)
STEERS = (0.0, STEER, -STEER, 0.0)


def build(file: str | Path | None = None, show: bool = False) -> Diagram:
    """Constant speed + a piecewise steer profile into a bicycle; a scope of y and theta."""
    d = Diagram("lane_change")
    d.add(Constant(SPEED), name="speed")
    d.add(Piecewise(times=TIMES, values=STEERS), name="steer")
    d.add(Bicycle(L=1.0), name="car")
    add_scope(d, ["steer", "car.y", "car.theta"], labels=["steer", "y", "theta"],
              units=["rad", "m", "rad"], title="Lane change", file=file, show=show)
    d.connect("speed", "car.v")
    d.connect("steer", "car.gamma")
    return d


def main(
    T: float = 5.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope plot in ``out_dir`` when given."""
    file = Path(out_dir) / "lane_change.png" if out_dir is not None else None
    return simulate(build(file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(f"lateral offset {res['car.y'][-1]:.4f} m, final heading {res['car.theta'][-1]:.2e} rad")
