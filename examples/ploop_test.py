"""A joint position loop around the velocity loop following a trapezoidal move (RTB
``ploop_test``).

The link angle of a geared joint (ratio ``G = 107.815``, the Puma's joint 2) is controlled by a
proportional position loop around roblocks' discrete PI velocity loop (*vloop*, Robotics
Toolbox 9.10, sampled at 1 ms):

    motor rate demand = G (Kp (q* - q) + Kff qd*),   q = integral of (motor rate / G),

with ``Kp = 20 /s``. The demand is an ``lspb`` move (roblocks *lspb*) of the link from 0 to
0.5 rad in 1 s starting at 0.05 s; ``Kff = 1`` feeds its rate forward, ``Kff = 0`` leaves the
position loop alone, a type-1 loop that lags a ramp by ``rate / Kp``. ``step=<rad>`` replaces
the move by a position step of that size, whose overshoot, settling time and steady-state
error ``tests/blocks/arm/test_servo_examples.py`` checks against the discrete closed-loop
transfer function (scipy.signal); keep it below about 1.5 mrad, where the motor torque stays
inside its 0.9 N m limit and the loop is linear.

What to look at: the joint angle following the trapezoidal move, the small tracking error
(velocity feedforward ``Kff = 1``) and the torque's acceleration and deceleration phases.

Try next: run ``main(Kff=0.0)`` (without velocity feedforward the error grows),
``build(step=0.5)`` for a step instead of the move, or change ``KP``.

Run ``python examples/ploop_test.py`` to simulate 1.5 s and write ``ploop_test.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Constant, Step
from blocksim.blocks.arm import LSPB
from blocksim.blocks.arm.servo_loops import ploop
from blocksim.blocks.sinks.wiring import add_scope

KP = 20.0  # 1/s, position gain
Q_FINAL = 0.5  # rad, link move
T_MOVE = 1.0  # s
T_START = 0.05  # s


def build(
    scope_file: str | Path | None = None,
    show: bool = False,
    with_scope: bool = True,
    Kff: float = 1.0,
    step: float | None = None,
) -> Diagram:
    """The position loop following the lspb move (or a ``step`` [rad] at 0.05 s)."""
    d = Diagram("ploop_test")
    if step is None:
        traj = d.add(LSPB(q0=0.0, qf=Q_FINAL, T=T_MOVE, start=T_START), name="traj")
        q_star, qd_star = traj["q"], traj["qd"]
    else:
        q_star = d.add(Step(time=T_START, after=step), name="traj")
        qd_star = d.add(Constant(0.0), name="rate")
    no_dist = d.add(Constant(0.0), name="tau_d")
    loop = d.add(ploop(Kp=KP, Kff=Kff), name="ploop")
    d.connect(q_star, loop["q_star"])
    d.connect(qd_star, loop["qd_star"])
    d.connect(no_dist, loop["tau_d"])
    if with_scope:
        add_scope(d, [loop["q"], loop["q_error"], loop["tau"]], labels=["q", "q error", "tau"],
                  units=["rad", "rad", "N m"], file=scope_file, show=show,
                  title="ploop: position loop around the velocity loop")  # fmt: skip
    return d


def main(
    T: float = 1.5,
    show: bool = False,
    out_dir: str | Path | None = None,
    Kff: float = 1.0,
    **options,
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "ploop_test.png" if out_dir is not None else None
    return simulate(build(scope_file, show, Kff=Kff), T, **options)


if __name__ == "__main__":
    for kff in (1.0, 0.0):
        res = main(out_dir="." if kff else None, Kff=kff)
        err = res["ploop/err.y"]
        print(
            f"Kff = {kff:g}: max |q* - q| {abs(err).max():.2e} rad, final {err[-1]:.1e} rad, "
            f"max |tau| {abs(res['ploop/vloop/motor.tau']).max():.3f} N m"
        )
