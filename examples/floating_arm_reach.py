"""A 7-joint arm on a free-floating spacecraft reaches for a target; the spacecraft turns in
reaction (dynamics after SPART, Virgili-Llop et al.).

The Franka Panda (its published URDF, fingers left out) is bolted to a 60 kg spacecraft
(``diagrams/urdf/spacecraft_panda.urdf``). Nothing acts on the system from outside (no gravity,
no thrusters), so its linear and angular momentum stay zero: every motion of the arm turns and
shifts the base. The controller is Jacobian-transpose control of the hand's position with joint
damping,

    tau = Jm(base, q)^T [Kp (p_target - p_hand); 0] - Kd qd,

with ``Jm`` the joint columns of the base-inclusive Jacobian of the hand (world frame). The
closed loop is passive: the hand settles on the target (in inertial space) while the base ends
turned by a few degrees, the reaction the scope shows as base roll/pitch/yaw.

Run ``python examples/floating_arm_reach.py`` to simulate 6 s and write ``floating_arm_reach.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Concatenate, Constant, Gain, Product, Scope, Sum
from blocksim.blocks.arm import TrToRPY, TrToXYZ
from blocksim.blocks.floating import (
    EndEffectorJacobian,
    FloatingBaseDynamics,
    FloatingBaseKinematics,
)
from blocksim.robotics.urdf import read_urdf

URDF = Path(__file__).resolve().parents[1] / "diagrams" / "urdf" / "spacecraft_panda.urdf"
EE = "panda_hand_tcp"
Q0 = np.array([0.0, -0.3, 0.0, -2.2, 0.0, 2.0, 0.7853981633974483])  # Panda's ready pose
TARGET = np.array([0.45, 0.25, 0.35])  # m, world frame
KP, KD = 100.0, 10.0  # N/m, N m s/rad


def build(
    scope_file: str | Path | None = None,
    show: bool = False,
    with_scope: bool = True,
    fixed_base: bool = False,
) -> Diagram:
    """The reaching loop; ``fixed_base=True`` holds the spacecraft."""
    robot = read_urdf(URDF)
    d = Diagram("floating_arm_reach")
    plant = d.add(FloatingBaseDynamics(robot, q0=Q0, fixed_base=fixed_base), name="plant")
    wrench = d.add(Constant(np.zeros(6)), name="wrench")
    kin = d.add(FloatingBaseKinematics(robot, ee=EE), name="kin")
    jac = d.add(EndEffectorJacobian(robot, ee=EE, part="joints"), name="jac")
    hand = d.add(TrToXYZ(), name="hand")
    target = d.add(Constant(TARGET), name="target")
    e = d.add(Sum("+-"), name="e")
    kp = d.add(Gain(KP), name="kp")
    zero3 = d.add(Constant(np.zeros(3)), name="zero3")
    force = d.add(Concatenate(2), name="force")
    jt = d.add(Product("**", matrix=True), name="jt")
    kd = d.add(Gain(-KD), name="kd")
    tau = d.add(Sum("++"), name="tau")
    attitude = d.add(TrToRPY(), name="attitude")
    d.connect(wrench, plant["wrench"])
    d.connect(plant["base"], kin["base"], jac["base"], attitude)
    d.connect(plant["q"], kin["q"], jac["q"])
    d.connect(kin["T"], hand)
    d.connect(target, e["u0"])
    d.connect(hand, e["u1"])
    d.connect(e, kp)
    d.connect(kp, force["u0"])
    d.connect(zero3, force["u1"])
    d.connect(force, jt["u0"])
    d.connect(jac, jt["u1"])
    d.connect(plant["qd"], kd)
    d.connect(jt, tau["u0"])
    d.connect(kd, tau["u1"])
    d.connect(tau, plant["tau"])
    if with_scope:
        scope = d.add(Scope(2, labels=["hand position error", "base roll/pitch/yaw"],
                            units=["m", "rad"], title="Panda on a free-floating spacecraft",
                            elements=[["x", "y", "z"], ["roll", "pitch", "yaw"]],
                            file=scope_file, show=show), name="scope")  # fmt: skip
        d.connect(e, scope["u0"])
        d.connect(attitude, scope["u1"])
    return d


def main(T: float = 6.0, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:  # fmt: skip
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "floating_arm_reach.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(
        f"hand error at the end: {np.linalg.norm(res['e.y'][-1]):.2e} m; base turned by "
        f"{np.degrees(res['attitude.y'][-1]).round(2)} deg (roll, pitch, yaw)"
    )
