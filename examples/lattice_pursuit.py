"""A Lattice plan followed by a bicycle under pure pursuit (RTB ``Lattice`` + ``sl_pursuit``).

On the ``arena`` map (10 m x 10 m, a wall across y = 5 m with two gaps), a
:class:`~blocksim.robotics.planning.Lattice` of straight and quarter-circle primitives of
radius 2 m rooted at the car's start pose (2, 1, pi/2), obstacles inflated by 0.3 m, gives the
A* path to the goal pose (8, 7, 0); its arcs, densified, are the path of a
:class:`PathCarrot` block, which plans it when it is made from its parameters (planner, map,
start, goal: in ``diagrams/lattice_pursuit.json`` ``--set goal=[x,y,theta]`` replans), and
whose output is the look-ahead point 0.4 m along them; a
pure-pursuit driver with following distance 0 and no integral action sets the speed
``v = Kv |p* - p|`` and the steer ``Kh`` times the bearing of that point; a bicycle (wheelbase
0.5 m, steer limit 1 rad) drives. The car stops at the goal pose (the tests check 0.2 m and
0.2 rad after 30 s, and that it never enters an obstacle).

What to look at: the lattice of arcs and straight moves, the planned path (red) and the car
following it to ``GOAL`` with its heading.

Try next: move ``GOAL`` (another position or heading), change ``GRID`` (a coarser lattice plans
faster but with fewer options) or ``LOOKAHEAD``.

Run ``python examples/lattice_pursuit.py`` to simulate 30 s and write ``lattice_pursuit.png``
(the car's path over the map, the lattice path dashed).
"""

from __future__ import annotations

import math
from pathlib import Path

from blocksim import Diagram, SimResult
from blocksim.blocks.planning import PathCarrot
from blocksim.blocks.planning.rig import add_plan_and_drive, run_with_map
from blocksim.blocks.vehicle import Bicycle
from blocksim.robotics.planning import Lattice, load_map

GOAL = (8.0, 7.0, 0.0)
X0 = (2.0, 1.0, math.pi / 2)
MAP, GRID, INFLATE, LOOKAHEAD = "arena", 2.0, 0.3, 0.4


def plan():
    """The lattice planner and its densified path (M, 3) from X0 to GOAL."""
    lp = Lattice(load_map(MAP), grid=GRID, root=X0, inflate=INFLATE)
    lp.plan()
    lp.query(X0, GOAL)
    return lp, lp.densify(n=8)


def build() -> Diagram:
    """Lattice path -> look-ahead point -> pure pursuit -> bicycle, pose fed back."""
    d = Diagram("lattice_pursuit")
    carrot = PathCarrot(planner="lattice", map=MAP, start=X0, goal=GOAL, inflate=INFLATE,
                        grid=GRID, n=8, lookahead=LOOKAHEAD)  # fmt: skip
    car = Bicycle(L=0.5, vmax=2.0, stlim=1.0, x0=X0)
    add_plan_and_drive(d, carrot, car, "car", Kv=1.0, Kh=3.0, turn="gamma")
    return d


def plot(result: SimResult, diagram: Diagram, show: bool = False):
    """The lattice, its path (red) and the car's path (``main`` keeps it
    in ``result.figures``)."""
    from blocksim.viz.planning_plot import plot_path, plot_planner

    lp, _ = plan()
    fig = plot_planner(lp, show=show, title="Lattice plan followed by a bicycle")
    plot_path(result["car.pose"], fig.axes[0], label="car", arrows=10)
    fig.axes[0].legend(loc="lower right", fontsize=8)
    return fig


def main(
    T: float = 30.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the map plot in ``out_dir`` when given."""
    file = Path(out_dir) / "lattice_pursuit.png" if out_dir is not None else None
    return run_with_map(build(), plot, T, file, show, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    x, y, th = res["car.pose"][-1]
    err = math.hypot(x - GOAL[0], y - GOAL[1])
    print(f"final pose ({x:.3f}, {y:.3f}, {th:.3f}): {err:.3f} m from the goal")
