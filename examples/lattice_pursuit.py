"""A Lattice plan followed by a bicycle under pure pursuit (RTB ``Lattice`` + ``sl_pursuit``).

On the ``arena`` map (10 m x 10 m, a wall across y = 5 m with two gaps), a :class:`Planner`
block builds a lattice of straight and quarter-circle primitives of radius 2 m rooted at the
car's start pose (2, 1, pi/2), obstacles inflated by 0.3 m, and finds the A* path to the goal
pose (8, 7, 0). Its output is the look-ahead point 0.4 m along the (densified) arcs; a
pure-pursuit driver with following distance 0 and no integral action sets the speed
``v = Kv |p* - p|`` and the steer ``Kh`` times the bearing of that point; a bicycle (wheelbase
0.5 m, steer limit 1 rad) drives. The car stops at the goal pose (the tests check 0.2 m and
0.2 rad after 30 s, and that it never enters an obstacle).

Run ``python examples/lattice_pursuit.py`` to simulate 30 s and write ``lattice_pursuit.png``
(the car's path over the map, the lattice path dashed).
"""

from __future__ import annotations

import math
from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Constant
from blocksim.blocks.planning import Planner
from blocksim.blocks.vehicle import Bicycle, PurePursuit

GOAL = (8.0, 7.0, 0.0)
X0 = (2.0, 1.0, math.pi / 2)
MAP, GRID, INFLATE, LOOKAHEAD = "arena", 2.0, 0.3, 0.4


def build() -> Diagram:
    """Goal pose -> lattice planner -> pure pursuit -> bicycle, pose fed back."""
    d = Diagram("lattice_pursuit")
    d.add(Constant(list(GOAL)), name="goal")
    d.add(
        Planner("lattice", MAP, grid=GRID, inflate=INFLATE, lookahead=LOOKAHEAD, clock=0.1),
        name="plan",
    )
    d.add(PurePursuit(dstar=0.0, Kv=1.0, Ki=0.0, Kh=3.0), name="driver")
    d.add(Bicycle(L=0.5, vmax=2.0, stlim=1.0, x0=X0), name="car")
    d.connect("goal", "plan.goal")
    d.connect("car.pose", "plan.pose")
    d.connect("car.pose", "driver.pose")
    d.connect("plan.target", "driver.target")
    d.connect("driver.v", "car.v")
    d.connect("driver.gamma", "car.gamma")
    return d


def plot(result: SimResult, diagram: Diagram, file: str | Path | None, show: bool = False):
    """The car's path over the map with the planned path (dashed); stored in result.figures."""
    from blocksim.viz.planning_plot import plot_map, plot_path

    planner = diagram["plan"]
    fig = plot_map(planner.og, inflated=planner.og.inflate(planner.inflate), show=show)
    ax = fig.axes[0]
    plot_path(result["car.pose"], ax, label="car", arrows=10)
    planned = planner.plan(GOAL, X0, 0)[0]
    ax.plot(planned[:, 0], planned[:, 1], "--", color="tab:blue", lw=1, label="lattice path")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("Lattice plan followed by a bicycle")
    result.figures["map"] = fig
    if file is not None:
        fig.savefig(file, dpi=100)
    return fig


def main(
    T: float = 30.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the map plot in ``out_dir`` when given."""
    options.setdefault("max_step", 0.05)
    d = build()
    result = simulate(d, T, **options)
    file = Path(out_dir) / "lattice_pursuit.png" if out_dir is not None else None
    plot(result, d, file, show)
    return result


if __name__ == "__main__":
    res = main(out_dir=".")
    x, y, th = res["car.pose"][-1]
    err = math.hypot(x - GOAL[0], y - GOAL[1])
    print(f"final pose ({x:.3f}, {y:.3f}, {th:.3f}): {err:.3f} m from the goal")
