"""Resolved-rate motion control of a Puma 560 to a Cartesian goal point (RTB ``sl_rrmc2``).

The goal is given as a point ``(x, y, z)`` in the world frame: *xyz2T* turns it into a pose
(identity rotation) and a post-multiplication by the tool's rotation at the start pose ``qn``
(approach axis along world x, to rounding) gives the goal pose ``T* = transl(p*) R0``: move
the tool to ``p*`` without turning it. The joint rates come from
the pose error through the inverse of the world-frame Jacobian,

    qd = J0(q)^-1 Kv tr2delta(T(q), T*),   q(0) = qn,   T(q) = fkine(q),

so the tool's position moves along the straight line to ``p*`` with ``dp/dt = Kv (p* - p)``
and its orientation stays that of the start. *T2xyz* takes the tool position out of
``fkine`` for the scope (the path). This is kinematic control: the arm is assumed to follow the
commanded rates exactly (RTB's ``sl_rrmc2`` integrates them likewise).
``tests/blocks/arm/test_servo_examples.py`` checks the convergence to the goal pose and the
straight-line, exponential approach.

What to look at: the tool moving in a straight line to the goal point, the pose error decaying
and the joint angles.

Try next: call ``build(goal=...)`` with another point; change ``KV``; compare the straight tool
path with ``puma_jtraj_path``'s curved one.

Run ``python examples/puma_rrmc2.py`` to simulate 3 s and write ``puma_rrmc2.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Constant, Gain, Integrator, Product
from blocksim.blocks.arm import FKine, Jacobian, Tr2Delta, TrMultiply, TrToXYZ, XYZToTr
from blocksim.blocks.sinks.wiring import add_scope
from blocksim.robotics.models import puma560

KV = 5.0  # 1/s, gain of the resolved-rate loop
GOAL_XYZ = np.array([0.45, 0.25, 0.0])  # m, goal point of the tool origin (world frame)
#: the tool's orientation at qn (approach axis along world x, tool x axis down), kept
R0 = np.array(
    [[0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
)


def build(
    scope_file: str | Path | None = None,
    show: bool = False,
    with_scope: bool = True,
    goal: np.ndarray = GOAL_XYZ,
    Kv: float = KV,
) -> Diagram:
    """Resolved-rate loop from ``qn`` to the point ``goal`` (3,) [m], orientation kept."""
    arm = puma560()
    qn = arm.poses["qn"]
    d = Diagram("puma_rrmc2")
    q = d.add(Integrator(x0=qn), name="q")
    fk = d.add(FKine(arm), name="fkine")
    xyz = d.add(TrToXYZ(), name="xyz")
    point = d.add(Constant(np.asarray(goal, dtype=float)), name="goal_xyz")
    goal_t = d.add(XYZToTr(), name="goal_transl")
    goal_pose = d.add(TrMultiply(pose=R0, side="post"), name="goal")
    delta = d.add(Tr2Delta(), name="delta")
    kv = d.add(Gain(Kv), name="kv")
    jac = d.add(Jacobian(arm, frame="world", inverse="inv"), name="jac")
    qd = d.add(Product("**", matrix=True), name="qd")
    d.connect(q, fk, jac)
    d.connect(fk, delta["u0"], xyz)
    d.connect(point, goal_t)
    d.connect(goal_t, goal_pose)
    d.connect(goal_pose, delta["u1"])
    d.connect(delta, kv)
    d.connect(jac["jinv"], qd["u0"])
    d.connect(kv, qd["u1"])
    d.connect(qd, q)
    if with_scope:
        add_scope(d, [xyz, delta, q], labels=["tool position", "pose error", "q"],
                  units=["m", "m, rad", "rad"], title="Puma 560 resolved-rate control to a point",
                  file=scope_file, show=show)  # fmt: skip
    return d


def main(
    T: float = 3.0, show: bool = False, out_dir: str | Path | None = None, Kv: float = KV, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "puma_rrmc2.png" if out_dir is not None else None
    return simulate(build(scope_file, show, Kv=Kv), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    p = res["xyz.y"]
    print(
        f"tool from {p[0].round(4)} to {p[-1].round(6)} m (goal {GOAL_XYZ}); |delta| "
        f"{np.linalg.norm(res['delta.y'][-1]):.1e}; max cond(J) {res['jac.cond'].max():.1f}"
    )
