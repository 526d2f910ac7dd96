"""PID position control of a mass-spring-damper, drawn as in a control textbook.

Plant ``m x'' + c x' + k x = F`` with m = 1 kg, c = 0.5 N.s/m, k = 2 N/m, built from a force
sum, a 1/m gain and two integrators; a parallel PID (Kp = 10, Ki = 5, Kd = 1, derivative filter
pole N = 100 rad/s) tracks a unit step reference. The exact closed-loop response gives
x(10) = 1.000683661 m.

What to look at: the position rising to 1 with a small overshoot and the force, a derivative
kick at the step, then the spring's steady force held by the integral.

Try next: set ``KI = 0`` (a steady-state error remains), raise ``KD``, or lower the filter
``N``; then run the same loop sampled (``discrete_pid_mass_spring_damper``).

Run ``python examples/pid_mass_spring_damper.py`` to simulate and write ``pid_msd.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import PID, Gain, Integrator, Step, Sum
from blocksim.blocks.sinks.wiring import add_scope

MASS, DAMPING, STIFFNESS = 1.0, 0.5, 2.0  # kg, N.s/m, N/m
KP, KI, KD, N = 10.0, 5.0, 1.0, 100.0


def build(scope_file: str | Path | None = None, show: bool = False,
          with_scope: bool = True) -> Diagram:
    """The closed loop: reference -> error -> PID -> force balance -> x, fed back.

    ``with_scope=False`` leaves out the Scope (for benchmarks: nothing to plot).
    """
    d = Diagram("pid_mass_spring_damper")
    ref = d.add(Step(time=0.0, before=0.0, after=1.0), name="ref")
    err = d.add(Sum("+-"), name="err")
    pid = d.add(PID(Kp=KP, Ki=KI, Kd=KD, N=N), name="pid")
    force = d.add(Sum("+--"), name="force")
    inv_mass = d.add(Gain(1.0 / MASS), name="inv_mass")
    vel = d.add(Integrator(x0=0.0), name="vel")
    pos = d.add(Integrator(x0=0.0), name="pos")
    damper = d.add(Gain(DAMPING), name="damper")
    spring = d.add(Gain(STIFFNESS), name="spring")
    d.connect(ref, err["u0"])
    d.connect(pos, err["u1"], spring)
    d.connect(err, pid)
    d.connect(pid, force["u0"])
    d.connect(damper, force["u1"])
    d.connect(spring, force["u2"])
    d.connect(force, inv_mass)
    d.connect(inv_mass, vel)
    d.connect(vel, pos, damper)
    if with_scope:
        add_scope(d, [pos, pid], labels=["x", "F"], units=["m", "N"],
                  title="PID mass-spring-damper", file=scope_file, show=show)  # fmt: skip
    return d


def main(T: float = 10.0, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "pid_msd.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    s = res.stats
    print(f"x({res.t[-1]:g}) = {res['pos.y'][-1]:.9f} m (exact 1.000683661)")
    print(f"{s['nsteps']} steps, {s['nfev']} RHS evaluations, wall {s['wall_time'] * 1e3:.1f} ms, "
          f"realtime factor {s['realtime_factor']:.0f}; scope written to pid_msd.png")
