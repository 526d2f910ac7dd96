"""A DXform path across the office map followed by a unicycle (RTB ``DXform``, RVC 5.2.1).

The ``office`` map (12 m x 8 m at 0.1 m cells: six rooms on a corridor) with obstacles
inflated by 0.25 m; a :class:`NavigationField` block holds the distance transform to the goal
(10.5, 1.5) (8-connected, steps 0.1 and 0.14 m) and outputs the cell about 0.4 m down its
steepest descent from the robot's cell (the DXform path, walked from wherever the robot is). A
pure-pursuit driver (following distance 0) gives the speed ``Kv`` times the distance to that
point and, as the unicycle's turn rate, ``Kh`` times its bearing. The robot crosses the corridor
into the bottom-right room and stops at the goal (the tests check 0.1 m, and that it stays in
free space).

What to look at: the office's distance map, the DXform path (dashed) and the robot's path, which
cuts corners a little (look-ahead ``LOOKAHEAD``) but keeps off the inflated walls.

Try next: choose another ``GOAL`` or ``X0`` in the office; change ``INFLATE`` (the clearance)
and ``LOOKAHEAD``; swap the unicycle for a ``Bicycle``.

Run ``python examples/dxform_office_unicycle.py`` to simulate 25 s and write
``dxform_office_unicycle.png`` (distance map, planned and driven paths).
"""

from __future__ import annotations

import math
from pathlib import Path

from blocksim import Diagram, SimResult
from blocksim.blocks.planning import NavigationField
from blocksim.blocks.planning.rig import add_plan_and_drive, run_with_map
from blocksim.blocks.vehicle import Unicycle

GOAL = (10.5, 1.5)
X0 = (1.0, 6.5, 0.0)
INFLATE, LOOKAHEAD = 0.25, 0.4


def build() -> Diagram:
    """DXform field -> pursuit driver -> unicycle, pose fed back."""
    d = Diagram("dxform_office_unicycle")
    field = NavigationField("dxform", "office", goal=GOAL, inflate=INFLATE, lookahead=LOOKAHEAD)
    add_plan_and_drive(d, field, Unicycle(vmax=1.0, wmax=3.0, x0=X0))
    return d


def plot(result: SimResult, diagram: Diagram, show: bool = False):
    """Distance map, DXform path (dashed) and the robot's path (``main`` keeps it
    in ``result.figures``)."""
    from blocksim.robotics.planning import DXform
    from blocksim.viz.planning_plot import plot_path, plot_planner

    planner = diagram["plan"]
    dx = DXform(planner.og, goal=GOAL, inflate=planner.inflate)
    dx.plan()
    fig = plot_planner(dx, show=show, title="DXform path followed by a unicycle")
    ax = fig.axes[0]
    plot_path(result["robot.pose"], ax, label="robot", arrows=12)
    planned = dx.query(X0[:2])
    ax.plot(planned[:, 0], planned[:, 1], "--", color="tab:blue", lw=1, label="DXform path")
    ax.legend(loc="upper right", fontsize=8)
    return fig


def main(
    T: float = 25.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the map plot in ``out_dir`` when given."""
    file = Path(out_dir) / "dxform_office_unicycle.png" if out_dir is not None else None
    return run_with_map(build(), plot, T, file, show, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    x, y, _ = res["robot.pose"][-1]
    print(f"final position ({x:.3f}, {y:.3f}): {math.hypot(x - GOAL[0], y - GOAL[1]):.3f} m off")
