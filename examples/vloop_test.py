"""Step response of a joint velocity loop with a torque disturbance (RTB ``vloop_test``).

The roblocks *vloop* (Robotics Toolbox 9.10) with its defaults: a motor of inertia
``J = 372e-6 kg m^2``, friction ``B = 817e-6 N m s/rad``, torque constant ``Km = 0.228 N m/A``
and a 0.9 N m torque limit, under a PI velocity controller ``c = Kv e + Ki I`` (``Kv = 1``,
``Ki = 5``) sampled at ``T = 1 ms``:

    J qd' + B qd = sat(Km c) - tau_d,   c[k] = Kv e[k] + Ki I[k],   I[k+1] = I[k] + T e[k].

The demand steps to 2 rad/s at 0.05 s and a 0.1 N m disturbance torque is applied at 0.5 s.
The proportional gain gives a fast first-order rise (time constant ``J / (B + Km Kv)``, about
1.6 ms) to within ``B / (B + Km Kv)`` (0.4 %) of the demand; the integral removes that error
and, slowly (the integral zero at ``Ki / Kv = 5 rad/s``), the disturbance's. Between the
samples the controller holds its demand (zero-order hold), so at the sample instants the loop
is exactly the discrete closed-loop transfer function of the ZOH-sampled motor and the PI
controller (``tests/blocks/arm/test_servo_examples.py`` checks that with scipy.signal).

What to look at: the velocity stepping to the demand with a small overshoot, the dip when the
disturbance torque arrives at 0.5 s and the integral (the current it settles at) taking it up.

Try next: change the PI gains of ``vloop()`` (``Kv``, ``Ki``), ``TAU_D`` or ``DEMAND``; set
``Ki=0`` and see the steady error the disturbance leaves.

Run ``python examples/vloop_test.py`` to simulate 1 s and write ``vloop_test.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Step
from blocksim.blocks.arm.servo_loops import vloop
from blocksim.blocks.sinks.wiring import add_scope

DEMAND = 2.0  # rad/s, motor-rate step
T_STEP = 0.05  # s
TAU_D = 0.1  # N m, disturbance torque
T_DIST = 0.5  # s


def build(
    scope_file: str | Path | None = None, show: bool = False, with_scope: bool = True
) -> Diagram:
    """The velocity loop with its step demand and step disturbance."""
    d = Diagram("vloop_test")
    demand = d.add(Step(time=T_STEP, after=DEMAND), name="demand")
    dist = d.add(Step(time=T_DIST, after=TAU_D), name="tau_d")
    loop = d.add(vloop(), name="vloop")
    d.connect(demand, loop["qd_star"])
    d.connect(dist, loop["tau_d"])
    if with_scope:
        add_scope(d, [loop["qd"], loop["tau"], loop["integral"]], labels=["qd", "tau", "integral"],
                  units=["rad/s", "N m", "A"], title="vloop: velocity step and disturbance",
                  file=scope_file, show=show)  # fmt: skip
    return d


def main(
    T: float = 1.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "vloop_test.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    qd = res["vloop/motor.qd"]
    print(
        f"qd peak {qd.max():.4f} rad/s (demand {DEMAND}), at 0.5 s {qd[res.t <= T_DIST][-1]:.4f}"
        f", min after the disturbance {qd[res.t > T_DIST].min():.4f}, final {qd[-1]:.4f}"
    )
