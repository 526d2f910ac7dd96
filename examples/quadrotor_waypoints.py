"""A quadrotor flies a square of waypoints (1 m sides, 1.5 m up), 5 s per waypoint.

The Toolbox's quadrotor starts hovering at ``START``; a
:class:`~blocksim.blocks.lookup.Piecewise` source steps the position setpoint through the
corners of a 1 m square every ``DWELL`` seconds and back to the start. The flight stack is
that of ``quadrotor_hover`` (position PID -> attitude PD -> exact-inverse mixer -> N-rotor
dynamics with blade flapping); the setpoint weight 0.5 of the position loop, acting about
the start (where the vehicle hovers at rest: no sag at t = 0), takes each 1 m step with
under 1 % overshoot, and each waypoint is reached to about 0.5 cm before the next step (the
tests ask 5 cm); the altitude stays within 2 cm throughout. The tilt is limited to 0.5 rad.

Sinks: a scope of the position and the setpoint, and the 3-D animation of the flight
(:class:`~blocksim.blocks.quadrotor.MultiRotorPlot`, a GIF when ``out_dir`` is given).

What to look at: the position stepping from waypoint to waypoint of the square, each setpoint
change followed by a short transient, and the animation.

Try next: ``build(model='hexarotor')`` or ``'octorotor'``; change ``WAYPOINTS`` or ``DWELL``;
compare with the mass mismatch of ``quadrotor_mass_sweep``.

Run ``python examples/quadrotor_waypoints.py`` to simulate 20 s and write
``quadrotor_waypoints.png`` and ``quadrotor_waypoints.gif``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks.lookup import Piecewise
from blocksim.blocks.quadrotor import MultiRotorPlot, add_flight_stack
from blocksim.blocks.sinks.wiring import add_scope

ALTITUDE = 1.5  # m
START = (0.0, 0.0, -ALTITUDE)  # m, initial hover position (world, z down)
#: the waypoints [m], in order; the last is the start
WAYPOINTS = np.array(
    [[1.0, 0.0, -ALTITUDE], [1.0, 1.0, -ALTITUDE], [0.0, 1.0, -ALTITUDE], [0.0, 0.0, -ALTITUDE]]
)
DWELL = 5.0  # s per waypoint
TIMES = DWELL * np.arange(len(WAYPOINTS))  # s, when each waypoint becomes the setpoint
FPS = 2.0  # frames per second of simulated time in the animation (kept short)


def build(
    scope_file: str | Path | None = None,
    show: bool = False,
    with_scope: bool = True,
    model: str = "quadrotor",
    gif_file: str | Path | None = None,
) -> Diagram:
    """The flight stack of ``model`` flying ``WAYPOINTS``; the 3-D animation is written to
    ``gif_file`` when given."""
    d = Diagram("quadrotor_waypoints")
    stack = add_flight_stack(d, model, x0=list(START))
    ref = d.add(Piecewise(TIMES.tolist(), WAYPOINTS.tolist()), name="ref")
    d.connect(ref, stack.pos["p"])
    if with_scope:
        plot = d.add(MultiRotorPlot(model, filename=gif_file, fps=FPS), name="plot")
        d.connect(stack.plant["x"], plot)
        add_scope(d, [stack.plant["p"], ref], labels=["position", "setpoint"], units=["m", "m"],
                  title=f"{model}: square of waypoints", file=scope_file, show=show)  # fmt: skip
    return d


def waypoint_errors(result: SimResult) -> np.ndarray:
    """Distance [m] from each waypoint at the end of its dwell (just before the next step,
    or at the end of the run)."""
    p = result["quad.x"][:, :3]
    out = []
    for k, w in enumerate(WAYPOINTS):
        t_end = TIMES[k] + DWELL
        i = np.searchsorted(result.t, t_end, side="left") - 1 if t_end <= result.t[-1] else -1
        out.append(float(np.linalg.norm(p[i] - w)))
    return np.array(out)


def main(
    T: float = 20.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope PNG and the animation GIF in ``out_dir``
    when given."""
    scope_file = gif_file = None
    if out_dir is not None:
        scope_file = Path(out_dir) / "quadrotor_waypoints.png"
        gif_file = Path(out_dir) / "quadrotor_waypoints.gif"
    return simulate(build(scope_file, show, gif_file=gif_file), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(
        f"distance to each waypoint at the end of its dwell: "
        f"{(waypoint_errors(res) * 100).round(2)} cm; {res.stats['nfev']} RHS evaluations, "
        f"wall {res.stats['wall_time'] * 1e3:.0f} ms"
    )
