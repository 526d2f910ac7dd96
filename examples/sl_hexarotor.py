"""The Toolbox's hexarotor demo (RTB ``sl_hexarotor``): a six-rotor vehicle takes off and
flies a circle.

The airframe of the Toolbox's quadrotor with six rotors (``mdl_hexarotor``: arms every 60
degrees, spins alternating, 4 kg), through the N-rotor dynamics (roblocks *N-rotor*) and the
N-rotor control mixer (roblocks *Control Mixer N*; here the least-squares exact inverse of the
(4, 6) thrust/torque map, where upstream's mixer gives every rotor the same roll/pitch gains
because of a missing ``/N``). The reference, the position and attitude loops are those of
``sl_quadrotor``: a circle of radius 1 m at 2 m from a standing start on the
ground. Hover speed ``sqrt(M g / (6 b)) = 703 rad/s``.

What to look at: the same three panels as ``sl_quadrotor``: the climb, then the circle tracked
to a few centimetres, with six rotor speeds about the hover speed.

Try next: fly ``'octorotor'`` through ``sl_quadrotor``'s ``build(model=...)``; compare the rotor
speeds with the quadrotor's.

Run ``python examples/sl_hexarotor.py`` to simulate 20 s and write ``sl_hexarotor.png``.
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

MODEL = "hexarotor"


def build(
    scope_file: str | Path | None = None, show: bool = False, with_scope: bool = True
) -> Diagram:
    """Take-off and circle with six rotors: the builder of ``sl_quadrotor``
    (:func:`~blocksim.blocks.quadrotor.circle.circle_flight`) with its defaults, the circle and
    loop weights of the quadrotor demo."""
    return circle_flight(MODEL, name="sl_hexarotor", scope_file=scope_file, show=show,
                         with_scope=with_scope)  # fmt: skip


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
    print(circle_summary(main(out_dir=".")))
