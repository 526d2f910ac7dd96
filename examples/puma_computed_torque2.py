"""Computed-torque control of a Puma 560 from the terms of its equation of motion (RTB
``sl_ctorque2``).

The same loop as ``puma_computed_torque`` (RTB ``sl_ctorque``): a quintic ``jtraj`` from
``qz`` to ``qr`` in 2 s, the desired acceleration plus PD feedback

    v = qdd_d + Kp (q_d - q) + Kd (qd_d - qd),

and the arm's forward dynamics as the plant; but the controller assembles the inverse dynamics
from the blocks of the equation of motion instead of recursive Newton–Euler:

    tau = M(q) v + C(q, qd) qd + g(q) - friction(qd)

with the *Inertia*, *Coriolis*, *Gravload* and *Friction* blocks (RTB's ``robot.inertia``,
``robot.coriolis``, ``robot.gravload`` Fcn blocks; the viscous friction the Puma keeps after
``nofriction()`` is a term of RNE, so the friction block completes the sum). The torque is the
same function of (q, qd, v) as ``rne(q, qd, v)``, so the trajectory is that of
``puma_computed_torque`` to solver tolerance (``tests/blocks/arm/test_servo_examples.py``).

What to look at: the same errors and torques as ``puma_computed_torque``, from the mass matrix,
Coriolis and gravity blocks instead of one inverse-dynamics block.

Try next: leave out one term (the ``coriolis`` block's product ``Cqd``) and see which joints'
errors grow; change ``KP``, ``KD``.

Run ``python examples/puma_computed_torque2.py`` to simulate 5 s and write
``puma_ctorque2.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Gain, Product, Sum
from blocksim.blocks.arm import Coriolis, ForwardDynamics, Friction, Gravload, Inertia, JTraj
from blocksim.blocks.sinks.wiring import add_scope
from blocksim.robotics.models import puma560

KP, KD = 100.0, 20.0  # 1/s^2, 1/s: as puma_computed_torque
T_MOVE = 2.0  # s


def build(
    scope_file: str | Path | None = None, show: bool = False, with_scope: bool = True
) -> Diagram:
    """The computed-torque loop with M, C, g and friction blocks."""
    arm = puma560().nofriction()
    qz, qr = arm.poses["qz"], arm.poses["qr"]
    d = Diagram("puma_computed_torque2")
    traj = d.add(JTraj(q0=qz, qf=qr, T=T_MOVE), name="traj")
    e = d.add(Sum("+-"), name="e")
    ed = d.add(Sum("+-"), name="ed")
    kp = d.add(Gain(KP), name="kp")
    kd = d.add(Gain(KD), name="kd")
    v = d.add(Sum("+++"), name="v")
    inertia = d.add(Inertia(arm), name="inertia")
    coriolis = d.add(Coriolis(arm), name="coriolis")
    gravload = d.add(Gravload(arm), name="gravload")
    friction = d.add(Friction(arm), name="friction")
    mv = d.add(Product("**", matrix=True), name="Mv")
    cqd = d.add(Product("**", matrix=True), name="Cqd")
    tau = d.add(Sum("+++-"), name="tau")
    plant = d.add(ForwardDynamics(arm, q0=qz, qdd=False), name="plant")
    d.connect(traj["q"], e["u0"])
    d.connect(plant["q"], e["u1"], inertia["q"], coriolis["q"], gravload["q"])
    d.connect(traj["qd"], ed["u0"])
    d.connect(plant["qd"], ed["u1"], coriolis["qd"], cqd["u1"], friction["qd"])
    d.connect(e, kp)
    d.connect(ed, kd)
    d.connect(traj["qdd"], v["u0"])
    d.connect(kp, v["u1"])
    d.connect(kd, v["u2"])
    d.connect(inertia, mv["u0"])
    d.connect(v, mv["u1"])
    d.connect(coriolis, cqd["u0"])
    d.connect(mv, tau["u0"])
    d.connect(cqd, tau["u1"])
    d.connect(gravload, tau["u2"])
    d.connect(friction, tau["u3"])
    d.connect(tau, plant["tau"])
    if with_scope:
        add_scope(d, [e, tau], labels=["q error", "tau"], units=["rad", "N m"],
                  title="Puma 560 computed torque from M, C, g", file=scope_file, show=show)
    return d


def main(
    T: float = 5.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "puma_ctorque2.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    err = abs(res["e.y"]).max(axis=1)
    print(
        f"max |q_d - q| during the run {err.max():.2e} rad, at the end {err[-1]:.2e} rad; "
        f"{res.stats['nfev']} RHS evaluations, wall {res.stats['wall_time'] * 1e3:.0f} ms"
    )
