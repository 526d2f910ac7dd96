"""The Toolbox's hexarotor demo (RTB ``sl_hexarotor``): a six-rotor vehicle takes off and
flies a circle.

The airframe of the Toolbox's quadrotor with six rotors (``mdl_hexarotor``: arms every 60
degrees, spins alternating, 4 kg), through the N-rotor dynamics (roblocks *N-rotor*) and the
N-rotor control mixer (roblocks *Control Mixer N*; here the least-squares exact inverse of the
(4, 6) thrust/torque map, where upstream's mixer gives every rotor the same roll/pitch gains
because of a missing ``/N``). The reference, the position and attitude loops are those of
``sl_quadrotor``: a circle of radius ``RADIUS`` at ``ALTITUDE`` from a standing start on the
ground. Hover speed ``sqrt(M g / (6 b)) = 703 rad/s``.

Run ``python examples/sl_hexarotor.py`` to simulate 20 s and write ``sl_hexarotor.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks.quadrotor.circle import circle_flight, circle_tracking_error

MODEL = "hexarotor"
RADIUS = 1.0  # m
ALTITUDE = 2.0  # m
FREQUENCY = 0.1  # rev/s of the reference point (0.63 m/s)
WEIGHT = (1.0, 1.0, 0.5)  # setpoint weights of the position loop (x, y, altitude)


def build(
    scope_file: str | Path | None = None,
    show: bool = False,
    with_scope: bool = True,
    model: str = MODEL,
    name: str = "sl_hexarotor",
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
    scope_file = Path(out_dir) / "sl_hexarotor.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    err = tracking_error(res)
    print(
        f"tracking error after 8 s: max {err[res.t >= 8].max() * 100:.2f} cm; "
        f"{res.stats['nfev']} RHS evaluations, wall {res.stats['wall_time'] * 1e3:.0f} ms"
    )
