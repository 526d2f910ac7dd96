"""The Toolbox's quadrotor demo (RTB ``sl_quadrotor``): take off and fly a circle.

The Toolbox's 4 kg quadrotor sits on the ground at ``(RADIUS, 0, 0)``. The reference is a
point moving on a circle of radius ``RADIUS`` at ``ALTITUDE`` (roblocks *Circle*, here
:class:`~blocksim.blocks.arm.CirclePath` at ``FREQUENCY`` rev/s, clockwise seen from above
since z points down), whose position and velocity feed the position loop
(:class:`~blocksim.blocks.quadrotor.PositionController` with velocity feedforward; the
altitude setpoint acts with weight 0.5 so the climb does not overshoot). The attitude loop,
the control mixer (the roblocks *Control Mixer 4*, here the exact inverse of the rotor
thrust/torque map) and the N-rotor dynamics with blade flapping (roblocks *Quadrotor*) close
the loop. After the climb (about 6 s) the vehicle tracks the moving point to a few
centimetres, the rotor speeds oscillating about the hover speed as the thrust vector turns.

Upstream's demo uses a heuristic speed mixer and reads the attitude in the reverse order; the
blocks here use one convention throughout (:mod:`blocksim.robotics.aerial.dynamics`).

What to look at: the position (the climb, then the circle), the reference point on the circle
and the four rotor speeds oscillating about the hover speed as the thrust vector turns.

Try next: change ``RADIUS``, ``ALTITUDE`` or ``FREQUENCY`` (a faster circle leans the vehicle
more); ``build(model='hexarotor')``.

Run ``python examples/sl_quadrotor.py`` to simulate 20 s and write ``sl_quadrotor.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks.quadrotor.circle import (
    circle_flight,
    circle_summary,
    circle_tracking_error,
)

MODEL = "quadrotor"
RADIUS = 1.0  # m
ALTITUDE = 2.0  # m
FREQUENCY = 0.1  # rev/s of the reference point (0.63 m/s)
WEIGHT = (1.0, 1.0, 0.5)  # setpoint weights of the position loop (x, y, altitude)


def build(
    scope_file: str | Path | None = None,
    show: bool = False,
    with_scope: bool = True,
    model: str = MODEL,
    name: str = "sl_quadrotor",
) -> Diagram:
    """Take-off and circle with the multirotor ``model`` (the builder shared by the quad-,
    hexa- and octo-rotor demos, :func:`~blocksim.blocks.quadrotor.circle.circle_flight`)."""
    return circle_flight(
        model,
        name=name,
        radius=RADIUS,
        altitude=ALTITUDE,
        frequency=FREQUENCY,
        weight=WEIGHT,
        scope_file=scope_file,
        show=show,
        with_scope=with_scope,
    )


def tracking_error(result: SimResult) -> np.ndarray:
    """Distance [m] between the vehicle and the reference point at each recorded time."""
    return circle_tracking_error(result)


def main(
    T: float = 20.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "sl_quadrotor.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    print(circle_summary(main(out_dir=".")))
