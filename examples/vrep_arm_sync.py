"""A joint-space controller driving an arm in CoppeliaSim (V-REP) in synchronous mode, 100 Hz.

A quintic joint trajectory (:class:`JTraj`, 2 s) gives the desired angles ``q_d`` and rates
``qd_d`` of a 6-joint arm; the controller sends the joint velocities
``qd_cmd = qd_d + Kp (q_d - q)`` to the arm's joints (:class:`VrepArm` in velocity mode) and
reads the angles ``q`` back. :class:`VrepSimulation` puts CoppeliaSim in stepping mode with a
10 ms time step and advances it once per hit, so the diagram and the simulator move together and
the run is deterministic. ``host="emulator"`` runs the package's emulated CoppeliaSim server (a
kinematic scene with an arm named IRB140) and talks to it through the real ZMQ remote-API
client; give the address of a CoppeliaSim instance to drive a real scene.

With exact joint-velocity control the sampled loop is ``q[k+1] = q[k] + dt (qd_d[k] + Kp (q_d[k]
- q[k]))``: the error decays by ``1 - Kp dt`` per step.

What to look at: the joint angles converging to ``Q_GOAL`` and the errors decaying at rate
``KP``, one 10 ms step per simulator step.

Try next: change ``KP`` or ``Q_GOAL``; run it against a real CoppeliaSim (``host=``, ``port=``)
instead of the emulator.

Run ``python examples/vrep_arm_sync.py`` to write ``vrep_arm_sync.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Gain, Sum
from blocksim.blocks.arm import JTraj
from blocksim.blocks.hardware import VrepArm, VrepSimulation
from blocksim.blocks.sinks.wiring import add_scope

DT = 0.01  # s: 100 Hz, also CoppeliaSim's time step
KP = 20.0  # 1/s
Q_GOAL = np.array([0.8, -0.5, 0.6, 0.3, -0.4, 1.0])


def build(
    scope_file: str | Path | None = None,
    show: bool = False,
    host: str = "emulator",
    port: int = 23000,
) -> Diagram:
    """VrepSimulation (stepping) + jtraj -> P + feedforward -> VrepArm (velocity mode)."""
    d = Diagram("vrep_arm_sync")
    d.add(VrepSimulation(host=host, port=port, clock=DT), name="sim")  # first: it steps
    traj = d.add(JTraj(q0=np.zeros(6), qf=Q_GOAL, T=2.0), name="traj")
    arm = d.add(VrepArm("IRB140", 6, mode="velocity", host=host, port=port, clock=DT), name="arm")
    err = d.add(Sum("+-"), name="err")
    kp = d.add(Gain(KP), name="kp")
    cmd = d.add(Sum("++"), name="cmd")
    d.connect(traj["q"], err["u0"])
    d.connect(arm["q"], err["u1"])
    d.connect(err, kp)
    add_scope(d, [arm["q"], err], labels=["q", "q_d - q"], units=["rad", "rad"], stairs=True,
              title="IRB140 in CoppeliaSim, synchronous 100 Hz", file=scope_file, show=show)
    d.connect(traj["qd"], cmd["u0"])
    d.connect(kp, cmd["u1"])
    d.connect(cmd, arm["q_cmd"])
    return d


def main(
    T: float = 3.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate ``T`` seconds against the emulated CoppeliaSim; save the scope PNG in
    ``out_dir`` when given."""
    scope_file = Path(out_dir) / "vrep_arm_sync.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(
        f"final error {np.abs(res['err.y'][-1]).max():.2e} rad; "
        f"largest {np.abs(res['err.y']).max():.2e} rad; simulator time {res['sim.t'][-1]} s"
    )
