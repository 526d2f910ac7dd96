"""The spacecraft arm of ``floating_arm_reach`` with its base held fixed, beside the fixed-base
arm dynamics (``ForwardDynamics``): the two must move identically.

The same Panda URDF on the same spacecraft (``diagrams/urdf/spacecraft_panda.urdf``) and the
same reaching controller,

    tau = Jm(base, q)^T [Kp (p_target - p_hand); 0] - Kd qd,

drive ``FloatingBaseDynamics(fixed_base=True)`` (the floating-base numerics with the base
held). The same torques drive ``ForwardDynamics``, the recursive Newton-Euler serial arm, of
the serial chain of that URDF (``form="serial"``: base -> hand, the hand lumped into link 7).
``dq = q_floating - q_arm`` stays at integration round-off: the fixed-base limit of the
floating-base dynamics is the arm's RNE dynamics.

What to look at: the hand error settling, and ``q floating - q arm`` staying at integration
round-off: holding the base makes the floating-base dynamics the fixed-base arm's.

Try next: tighten ``rtol``/``atol`` and watch the difference shrink; change ``TARGET`` or
``Q0``; let the base go (``floating_arm_reach``).

Run ``python examples/floating_arm_fixed_base.py`` to simulate 3 s and write
``floating_arm_fixed_base.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Sum
from blocksim.blocks.arm import ForwardDynamics
from blocksim.blocks.floating import FloatingBaseDynamics
from blocksim.blocks.floating.rig import add_reaching_loop
from blocksim.blocks.sinks.wiring import add_scope
from blocksim.robotics.urdf import read_urdf, tree_to_serial

URDF = Path(__file__).resolve().parents[1] / "diagrams" / "urdf" / "spacecraft_panda.urdf"
EE = "panda_hand_tcp"
Q0 = np.array([0.0, -0.3, 0.0, -2.2, 0.0, 2.0, 0.7853981633974483])
TARGET = np.array([0.45, 0.25, 0.35])  # m, world frame
KP, KD = 100.0, 10.0  # N/m, N m s/rad


def build(scope_file: str | Path | None = None, show: bool = False,
          with_scope: bool = True) -> Diagram:  # fmt: skip
    """Held-base floating arm and the serial arm, driven by the same torques."""
    robot = read_urdf(URDF)
    serial = tree_to_serial(robot, EE, gravity=[0.0, 0.0, 0.0])
    d = Diagram("floating_arm_fixed_base")
    plant = d.add(FloatingBaseDynamics(robot, q0=Q0, fixed_base=True), name="plant")
    arm = d.add(ForwardDynamics(serial, q0=Q0, qdd=False), name="arm")
    loop = add_reaching_loop(d, robot, plant, EE, TARGET, KP, KD)
    d.connect(loop.tau, arm["tau"])
    dq = d.add(Sum("+-"), name="dq")
    d.connect(plant["q"], dq["u0"])
    d.connect(arm["q"], dq["u1"])
    if with_scope:
        add_scope(d, [loop.error, dq], labels=["hand position error", "q floating - q arm (RNE)"],
                  units=["m", "rad"], title="Held spacecraft base = fixed-base arm",
                  elements=[["x", "y", "z"], [f"q{i + 1}" for i in range(7)]],
                  file=scope_file, show=show)  # fmt: skip
    return d


def main(T: float = 3.0, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:  # fmt: skip
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "floating_arm_fixed_base.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".", rtol=1e-9, atol=1e-12)
    print(
        f"hand error at the end: {np.linalg.norm(res['e.y'][-1]):.2e} m; "
        f"max |q floating - q arm| = {np.abs(res['dq.y']).max():.2e} rad"
    )
