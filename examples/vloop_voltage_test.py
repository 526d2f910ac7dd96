"""Step response of a voltage-driven joint velocity loop (roblocks *vloop_voltage*).

The loop of roblocks' *vloop_voltage* (Robotics Toolbox 9.10): a PI velocity controller ``c = Kv e +
Ki I`` sampled at ``T = 1 ms`` drives an amplifier of gain ``Ka = 10`` (limit ``v_max = 20 V``) that
drives the motor's winding; the motor is roblocks' (``J = 372e-6 kg m^2``, ``B = 817e-6 N m s/rad``,
``Km = 0.228 N m/A`` = V s/rad):

    v = sat(Ka c, v_max),   Lm i' = v - Rm i - Km qd,   J qd' = Km i - B qd - tau_d,
    c[k] = Kv e[k] + Ki I[k],   I[k+1] = I[k] + T e[k],   e = qd* - qd.

The demand steps to 10 rad/s at 0.05 s. Between the samples the controller holds ``c``, so at
the sample instants the loop is exactly the discrete closed loop of the ZOH-sampled motor and
the PI law (``tests/blocks/arm/test_servo_examples.py`` checks every sample, the overshoot,
settling time and steady-state error against scipy.signal).

Why not roblocks' values
-------------------------
With roblocks' winding (``Rm = 0.1 ohm``, ``Lm = 0.1 H``) and gains (``Kv = 1``, ``Ki = 1``)
the sampled loop is unstable while linear: spectral radius 1.014. The winding's inductance and
the back EMF make an electromechanical resonance at ``Km / sqrt(J Lm) = 37 rad/s`` with damping
ratio 0.04 (from ``Rm / Lm + B / J``); velocity feedback through the voltage acts like extra
back EMF, which stiffens that mode (``sqrt(Km (Km + Ka Kv) / (J Lm)) = 250 rad/s`` at
``Kv = 1``) without damping it, and the 1 ms hold's delay then makes it grow. The amplifier's
20 V limit bounds the growth, so roblocks' diagram shows a large limit-cycle oscillation
instead of a step response. A PI controller has no derivative term to add damping: with that
winding no gains make the loop stable (the test scans ``-0.5 <= Kv <= 2``,
``-2 <= Ki <= 20``: the spectral radius never drops below 1). This example therefore uses a
servo-motor winding with a short electrical time constant, ``Rm = 1 ohm``, ``Lm = 10 mH``
(``Lm / Rm = 10 ms``, which damps the mode through the winding resistance), and gains chosen
for a well-damped step, ``Kv = 0.02 V s/rad`` (0.2 V per rad/s at the winding) and
``Ki = 1.5 V/rad``: spectral radius 0.972, about 8 % overshoot, settled within 2 % in
about 0.1 s, no steady-state error (the integral supplies the back-EMF voltage), and the
amplifier stays far below its limit (linear).

What to look at: the velocity stepping to the demand with about 8 % overshoot, the motor torque,
and the integral settling at the back-EMF voltage.

Try next: put roblocks' winding back (``Rm``, ``Lm`` of ``WINDING``) and see the limit cycle;
change ``GAINS``.

Run ``python examples/vloop_voltage_test.py`` to simulate 0.5 s and write
``vloop_voltage_test.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Constant, Step
from blocksim.blocks.arm.servo_loops import vloop_voltage
from blocksim.blocks.sinks.wiring import add_scope

DEMAND = 10.0  # rad/s, motor-rate step
T_STEP = 0.05  # s
WINDING = dict(Rm=1.0, Lm=0.01)  # ohm, H: a 10 ms electrical time constant
GAINS = dict(Kv=0.02, Ki=1.5)  # V s/rad, V/rad (before the amplifier gain Ka = 10)


def build(
    scope_file: str | Path | None = None, show: bool = False, with_scope: bool = True
) -> Diagram:
    """The voltage-driven velocity loop with its step demand and no disturbance."""
    d = Diagram("vloop_voltage_test")
    demand = d.add(Step(time=T_STEP, after=DEMAND), name="demand")
    zero = d.add(Constant(0.0), name="tau_d")
    loop = d.add(vloop_voltage(**WINDING, **GAINS), name="vloop")
    d.connect(demand, loop["qd_star"])
    d.connect(zero, loop["tau_d"])
    if with_scope:
        add_scope(d, [loop["qd"], loop["tau"], loop["integral"]], labels=["qd", "tau", "integral"],
                  units=["rad/s", "N m", "V"], title="vloop_voltage: velocity step",
                  file=scope_file, show=show)  # fmt: skip
    return d


def main(
    T: float = 0.5, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "vloop_voltage_test.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    qd = res["vloop/motor.qd"]
    print(f"qd peak {qd.max():.4f} rad/s (demand {DEMAND}), final {qd[-1]:.6f}")
