"""A Braitenberg vehicle seeking a light (RTB ``sl_braitenberg``, RVC 4.1.1.5).

Two light sensors, 2 m ahead of a bicycle and 2 m to each side, read the field
``A / (A + |p - source|^2)`` (RVC's ``sensorfield``, A = 200, peak 1 at the source at
``(20, 15)``); the vehicle drives at ``V (2 - sL - sR)`` and steers ``K (sL - sR)`` toward the
brighter side. It turns toward the source, slows as the light grows and circles close to it
(the tests check that it comes within 1 m).

What to look at: the XY path, curving towards the light at ``SOURCE`` and circling round it: the
vehicle has no map and no goal, only two light sensors steering it.

Try next: move ``SOURCE``, start from another ``X0`` or change the sensors' spacing (``side``)
and gain ``K`` of the ``Braitenberg`` block.

Run ``python examples/braitenberg.py`` to simulate 60 s and write ``braitenberg.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks.vehicle import Bicycle, Braitenberg
from blocksim.blocks.vehicle.loops import add_path_graph, connect_driver

SOURCE = (20.0, 15.0)
X0 = (0.0, 0.0, 0.0)


def build(file: str | Path | None = None, show: bool = False) -> Diagram:
    """Bicycle + Braitenberg driver (library light field) + an XY graph of the path."""
    d = Diagram("braitenberg")
    d.add(Bicycle(L=1.0, vmax=2.0, stlim=0.8, x0=X0), name="car")
    d.add(Braitenberg(source=SOURCE, A=200.0, V=2.0, K=10.0, ahead=2.0, side=2.0), name="driver")
    add_path_graph(d, "Braitenberg vehicle", file, show)
    connect_driver(d)
    return d


def main(
    T: float = 60.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the path plot in ``out_dir`` when given."""
    file = Path(out_dir) / "braitenberg.png" if out_dir is not None else None
    return simulate(build(file, show), T, **options)


if __name__ == "__main__":
    import numpy as np

    res = main(out_dir=".")
    dist = np.hypot(res["car.x"] - SOURCE[0], res["car.y"] - SOURCE[1])
    print(f"closest approach to the light {dist.min():.2f} m")
