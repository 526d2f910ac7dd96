"""A Puma 560 falling under gravity with zero joint torque (RTB ``sl_ztorque``).

The diagram is only the arm's forward dynamics driven by a constant zero torque,

    M(q) qdd + C(q, qd) qd + g(q) = 0,

released at rest from the nominal pose ``qn`` (upper arm raised 45 degrees, forearm folded
back, wrist bent). Gravity pulls the shoulder and elbow down and the arm swings through its
workspace; the run shows what forward dynamics alone does.

All friction is removed (``nofriction("all")``, viscous and Coulomb): the arm is then a
conservative system, and its energy, kinetic ``0.5 qd^T M(q) qd`` (motor rotor inertia
included) plus potential ``sum_i m_i g z_ci`` (``z_ci`` the height of link i's centre of mass),
stays constant to the integration accuracy; the tests check it from the recorded q and qd.
With RTB's viscous friction left in, the energy would decay instead.

What to look at: the joints falling from their start under gravity and swinging (friction
removed, no control), the total energy constant to the integrator's tolerance.

Try next: tighten ``rtol`` and watch the energy drift shrink; start at another pose; put
friction back (leave out ``nofriction('all')``) and watch the energy fall.

Run ``python examples/puma_zero_torque.py`` to simulate 2 s and write ``puma_ztorque.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Constant
from blocksim.blocks.arm.dynamics import ForwardDynamics
from blocksim.blocks.sinks.wiring import add_scope
from blocksim.robotics.models import puma560


def build(scope_file: str | Path | None = None, show: bool = False, with_scope: bool = True,
          pose: str = "qn") -> Diagram:
    """The falling arm, released at rest from the named pose of ``puma560().poses``."""
    arm = puma560().nofriction("all")
    d = Diagram("puma_zero_torque")
    zero = d.add(Constant(np.zeros(arm.n)), name="zero")
    plant = d.add(ForwardDynamics(arm, q0=arm.poses[pose], qdd=False), name="plant")
    d.connect(zero, plant["tau"])
    if with_scope:
        add_scope(d, [plant["q"], plant["qd"]], labels=["q", "qd"], units=["rad", "rad/s"],
                  title="Puma 560 falling with zero torque", file=scope_file, show=show)
    return d


def energy(arm, q: np.ndarray, qd: np.ndarray) -> tuple[float, float]:
    """Kinetic and potential energy [J] of ``arm`` (a SerialLink) at ``q`` (n,), ``qd`` (n,).

    Kinetic ``0.5 qd^T M(q) qd``; potential ``sum_i m_i g . c_i`` with ``c_i`` link i's centre
    of mass in the world frame (``fkine(q, all=True)`` frame i applied to the link's ``r``) and
    ``g`` the robot's upward-equivalent gravity [m/s^2].
    """
    frames = arm.fkine(q, all=True)
    potential = sum(link.m * arm.gravity @ (frames[i + 1][:3, :3] @ link.r + frames[i + 1][:3, 3])
                    for i, link in enumerate(arm.links))
    return 0.5 * qd @ arm.inertia(q) @ qd, float(potential)


def main(T: float = 2.0, show: bool = False, out_dir: str | Path | None = None,
         pose: str = "qn", **options) -> SimResult:
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "puma_ztorque.png" if out_dir is not None else None
    return simulate(build(scope_file, show, pose=pose), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".", rtol=1e-9, atol=1e-12)
    arm = puma560().nofriction("all")
    E = np.array([sum(energy(arm, q, qd)) for q, qd in zip(res["plant.q"], res["plant.qd"])])
    kinetic = max(energy(arm, q, qd)[0] for q, qd in zip(res["plant.q"], res["plant.qd"]))
    print(f"joint travel {np.ptp(res['plant.q'], axis=0).round(2)} rad, peak kinetic energy "
          f"{kinetic:.1f} J, energy drift {np.ptp(E):.2e} J; {res.stats['nfev']} RHS evaluations, "
          f"wall {res.stats['wall_time'] * 1e3:.0f} ms")
