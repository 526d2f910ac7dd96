"""A joint velocity loop following a ramp, with and without torque feedforward (RTB
``vloop_test2``).

Two copies of roblocks' motor (*vloop*, Robotics Toolbox 9.10) follow the same
motor-rate ramp of 100 rad/s^2 from 0.05 s:

* ``pi``: the PI loop *vloop* (``Kv = 1``, ``Ki = 5``): a type-1 loop, so it follows the ramp
  with a lag that settles, as the integral builds up, at ``slope / Kvel`` with the velocity
  constant ``Kvel = Km Ki / B`` (0.072 rad/s);
* ``ff``: the P loop with feedforward *vloop_ff* (``Ki = 0``, ``Kff = 1 / Km``) fed the torque
  the ramp needs, ``tau_ff = J r' + B r``: the motor torque is then supplied by the
  feedforward and the feedback only corrects what the zero-order hold of ``tau_ff`` misses
  (an error over two orders of magnitude smaller).

At the controller's samples (1 ms) both loops are exactly discrete linear systems (motor sampled
with a zero-order hold), which ``tests/blocks/arm/test_servo_examples.py`` checks against
scipy.signal.

What to look at: the ramp followed by both loops, the PI loop with a constant lag error, the
feedforward loop's error near zero.

Try next: change ``SLOPE``; leave out the friction part of the feedforward (``friction_torque``)
and see which error remains.

Run ``python examples/vloop_test2.py`` to simulate 1 s and write ``vloop_test2.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Constant, Gain, Ramp, Step, Sum
from blocksim.blocks.arm.servo_loops import vloop, vloop_ff
from blocksim.blocks.sinks.wiring import add_scope

J, B = 372e-6, 817e-6  # kg m^2, N m s/rad: roblocks' motor
SLOPE = 100.0  # rad/s^2, demanded motor acceleration
T_START = 0.05  # s


def build(
    scope_file: str | Path | None = None, show: bool = False, with_scope: bool = True
) -> Diagram:
    """The ramp demand into the PI loop and into the feedforward loop."""
    d = Diagram("vloop_test2")
    demand = d.add(Ramp(start=T_START, slope=SLOPE), name="demand")
    no_dist = d.add(Constant(0.0), name="tau_d")
    accel_torque = d.add(Step(time=T_START, after=J * SLOPE), name="accel_torque")
    friction_torque = d.add(Gain(B), name="friction_torque")
    tau_ff = d.add(Sum("++"), name="tau_ff")
    pi = d.add(vloop(J=J, B=B), name="pi")
    ff = d.add(vloop_ff(J=J, B=B), name="ff")
    d.connect(demand, pi["qd_star"], ff["qd_star"], friction_torque)
    d.connect(no_dist, pi["tau_d"], ff["tau_d"])
    d.connect(accel_torque, tau_ff["u0"])
    d.connect(friction_torque, tau_ff["u1"])
    d.connect(tau_ff, ff["tau_ff"])
    if with_scope:
        add_scope(d, [ff["qd"], pi["qd_error"], ff["qd_error"]],
                  labels=["qd", "error, PI", "error, feedforward"], units=["rad/s"] * 3,
                  title="vloop: ramp with PI and with feedforward", file=scope_file, show=show)
    return d


def main(
    T: float = 1.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "vloop_test2.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    late = res.t > 0.5
    print(
        f"ramp error after 0.5 s: PI {abs(res['pi/pi.e'][late]).max():.4f} rad/s, "
        f"feedforward {abs(res['ff/pi.e'][late]).max():.2e} rad/s"
    )
