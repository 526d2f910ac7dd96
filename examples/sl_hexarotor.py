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
from blocksim.blocks import Scope
from blocksim.blocks.arm import CirclePath
from blocksim.blocks.quadrotor import (
    AttitudeController,
    ControlMixer,
    MultiRotor,
    PositionController,
)

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
    """Take-off and circle with the multirotor ``model`` (default the hexarotor)."""
    d = Diagram(name)
    circle = d.add(
        CirclePath(radius=RADIUS, centre=[0.0, 0.0, -ALTITUDE], frequency=FREQUENCY), name="circle"
    )
    quad = d.add(MultiRotor(model, x0=[RADIUS, 0.0, 0.0]), name="quad")
    pos = d.add(PositionController(model, velocity=True, weight=list(WEIGHT)), name="pos")
    att = d.add(AttitudeController(model), name="att")
    mixer = d.add(ControlMixer(model), name="mixer")
    d.connect(circle["p"], pos["p"])
    d.connect(circle["pd"], pos["v"])
    d.connect(quad["x"], pos["x"], att["x"])
    d.connect(pos["att"], att["att"])
    d.connect(pos["T"], mixer["T"])
    for axis in ("tau_roll", "tau_pitch", "tau_yaw"):
        d.connect(att[axis], mixer[axis])
    d.connect(mixer["omega"], quad["omega"])
    if with_scope:
        scope = d.add(
            Scope(
                3,
                labels=["position (x, y, z)", "reference", "rotor speeds"],
                units=["m", "m", "rad/s"],
                title=f"{name}: take-off and circle",
                file=scope_file,
                show=show,
            ),
            name="scope",
        )
        d.connect(quad["x"], scope["u0"])
        d.connect(circle["p"], scope["u1"])
        d.connect(mixer["omega"], scope["u2"])
    return d


def tracking_error(result: SimResult) -> np.ndarray:
    """Distance [m] between the vehicle and the reference point at each recorded time."""
    return np.linalg.norm(result["quad.x"][:, :3] - result["circle.p"], axis=1)


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
