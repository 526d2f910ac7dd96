"""D* replanning when an obstacle appears mid-run (RTB ``Dstar``, RVC 5.2.2).

On the ``arena`` map (10 m x 10 m, a wall across y = 5 m with gaps at x in [1.5, 3] and
[7, 8.5] m), a unicycle starts at (2.25, 1) heading north for the goal (2.25, 9): the D* plan
goes straight through the left gap. At t = 2 s, before the robot gets there, the left gap
closes (an obstacle the first plan did not know of): D* marks the new cells +inf in its cost
map (``costmap_modify``) and repairs its plan incrementally (``plan()``), and from then on the
:class:`NavigationField` block leads the robot down the repaired cost-to-goal field: it turns
round and detours through the right gap. (The field does not depend on the robot's position,
so the block computes the repair when it is made, from the obstacle schedule, and runs in the
compiled back-end.) Outputs ``plan.stage`` (obstacles appeared) and ``plan.niter`` (D* states
processed: the fresh plan, then the repair, which processes fewer). The tests check the
detour, the arrival within 0.1 m and that the robot never crosses the wall where the gap
closed.

What to look at: the map with the repaired cost-to-goal field, the gap that closes (black) and
the robot's path: up towards the left gap, then a turn and a detour through the right one.

Try next: add a second entry to ``CLOSING`` (an obstacle on the detour), move ``GOAL``, or
compare ``plan.niter`` of the repair with the fresh plan's.

Run ``python examples/dstar_replan.py`` to simulate 25 s and write ``dstar_replan.png``.
"""

from __future__ import annotations

import math
from pathlib import Path

from blocksim import Diagram, SimResult
from blocksim.blocks.planning import NavigationField
from blocksim.blocks.planning.rig import add_plan_and_drive, run_with_map
from blocksim.blocks.vehicle import Unicycle

GOAL = (2.25, 9.0)
X0 = (2.25, 1.0, math.pi / 2)
#: (time [s], xmin, ymin, xmax, ymax [m]): the left gap closes at t = 2 s
CLOSING = (2.0, 1.4, 4.8, 3.1, 5.2)
INFLATE, LOOKAHEAD = 0.2, 0.4


def build() -> Diagram:
    """D* field (with the scheduled obstacle) -> pursuit driver -> unicycle, pose fed back."""
    d = Diagram("dstar_replan")
    field = NavigationField("dstar", "arena", goal=GOAL, inflate=INFLATE, lookahead=LOOKAHEAD,
                            obstacles=[CLOSING])  # fmt: skip
    add_plan_and_drive(d, field, Unicycle(vmax=1.0, wmax=3.0, x0=X0))
    return d


def plot(result: SimResult, diagram: Diagram, show: bool = False):
    """The repaired D* cost-to-goal field and the robot's path (``main`` keeps it
    in ``result.figures``)."""
    from blocksim.viz.planning_plot import plot_map, plot_path

    field = diagram["plan"]
    fig = plot_map(
        field.og, distance=field.fields[-1], inflated=field.og.inflate(INFLATE), show=show
    )
    ax = fig.axes[0]
    x1, y1, x2, y2 = CLOSING[1:]
    ax.fill([x1, x2, x2, x1], [y1, y1, y2, y2], color="k", alpha=0.7, label="new obstacle")
    plot_path(result["robot.pose"], ax, label="robot", arrows=12)
    ax.set_title("D* replanning: the left gap closes at t = 2 s")
    ax.legend(loc="lower right", fontsize=8)
    return fig


def main(
    T: float = 25.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the map plot in ``out_dir`` when given."""
    file = Path(out_dir) / "dstar_replan.png" if out_dir is not None else None
    return run_with_map(build(), plot, T, file, show, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    x, y, _ = res["robot.pose"][-1]
    n = res["plan.niter"]
    print(f"final position ({x:.3f}, {y:.3f}); D* states: fresh {int(n[0])}, repair {int(n[-1])}")
