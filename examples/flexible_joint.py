"""A joint with a flexible transmission under motor-side PD control (RTB ``sl_flex``).

A motor of inertia ``Jm`` drives a link of inertia ``Jl`` through a compliant transmission
(stiffness ``k``, damping ``c``; angles on the link side of the gearbox):

    Jm qm'' = tau - k (qm - ql) - c (qm' - ql'),    Jl ql'' = k (qm - ql) + c (qm' - ql'),

and the controller sees only the motor: ``tau = Kp (q* - qm) - Kd qm'``. The link is then
driven through the spring: a step of the demand excites two modes, the slow "whole joint"
mode and the fast mode in which motor and link swing against each other. Without damping
(``c = Kd = 0``) their frequencies are the roots of

    Jm Jl w^4 - (Jm k + Jl (Kp + k)) w^2 + Kp k = 0

(5.95 and 37.6 rad/s with the values here; without control the joint would have a single
resonance ``sqrt(k (Jm + Jl) / (Jm Jl)) = 34.6 rad/s``). ``tests/blocks/arm/test_servo_examples.py``
measures both frequencies in the simulated response and compares them with these roots, and
the damped modes with the eigenvalues of the closed-loop system matrix.

What to look at: the motor angle reaching the step quickly while the link angle lags and rings
at the transmission's resonance, and the torque spike at the step.

Try next: lower ``K_SPRING`` (a softer transmission), raise ``C_SPRING`` (build's ``c``, more
damping), or the PD gains ``KP``, ``KD`` until the link rings longer or the loop goes unstable.

Run ``python examples/flexible_joint.py`` to simulate 3 s and write ``flexible_joint.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Constant, Gain, Step, Sum
from blocksim.blocks.arm.servo import FlexibleJoint
from blocksim.blocks.sinks.wiring import add_scope

JM, JL = 0.2, 1.0  # kg m^2, motor (reflected) and link inertias
K_SPRING, C_SPRING = 200.0, 0.5  # N m/rad, N m s/rad
KP, KD = 50.0, 5.0  # N m/rad, N m s/rad: motor-side PD gains
Q_STEP, T_STEP = 1.0, 0.1  # rad, s


def build(
    scope_file: str | Path | None = None,
    show: bool = False,
    with_scope: bool = True,
    c: float = C_SPRING,
    Kd: float = KD,
) -> Diagram:
    """The PD loop around the flexible joint; ``c`` and ``Kd`` set the damping."""
    d = Diagram("flexible_joint")
    ref = d.add(Step(time=T_STEP, after=Q_STEP), name="demand")
    err = d.add(Sum("+-"), name="err")
    kp = d.add(Gain(KP), name="kp")
    kd = d.add(Gain(Kd), name="kd")
    tau = d.add(Sum("+-"), name="tau")
    load = d.add(Constant(0.0), name="load")
    joint = d.add(FlexibleJoint(Jm=JM, Jl=JL, k=K_SPRING, c=c), name="joint")
    d.connect(ref, err["u0"])
    d.connect(joint["qm"], err["u1"])
    d.connect(err, kp)
    d.connect(joint["qdm"], kd)
    d.connect(kp, tau["u0"])
    d.connect(kd, tau["u1"])
    d.connect(tau, joint["tau"])
    d.connect(load, joint["tau_l"])
    if with_scope:
        add_scope(d, [joint["qm"], joint["ql"], tau], labels=["motor angle", "link angle", "tau"],
                  units=["rad", "rad", "N m"], title="Flexible joint under motor-side PD control",
                  file=scope_file, show=show)  # fmt: skip
    return d


def main(
    T: float = 3.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "flexible_joint.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    ql = res["joint.ql"]
    print(f"link angle: peak {ql.max():.3f} rad, final {ql[-1]:.4f} rad (demand {Q_STEP})")
