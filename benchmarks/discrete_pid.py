"""The 1 kHz discrete PID on the mass-spring-damper over 10 s, measured side by side.

Prints blocksim (interpreted back-end) on ``examples/discrete_pid_mass_spring_damper.py``
(DiscretePID at 1 ms in feedback with a continuous plant, no scope) with the fixed-step ``rk4``
solver at dt = 1 ms (the Simulink ode4 set-up for a 1 kHz controller) and with adaptive RK45,
and bdsim on the same diagram when bdsim is installed.

Run: ``python benchmarks/discrete_pid.py [--repeat 3]``. Times are the best of the repeats.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import discrete_pid_mass_spring_damper as example

from blocksim import compile_diagram, simulate

T_END = 10.0
TARGET = 0.3  # s, interpreted back-end


def best(fn, repeat: int):
    t_best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t_best = min(t_best, time.perf_counter() - t0)
    return t_best, out


def run_bdsim():
    try:
        import bdsim
    except ImportError:
        return None
    import matplotlib

    matplotlib.use("Agg")
    sim = bdsim.BDSim(animation=False, graphics=False, progress=False, quiet=True)
    bd = sim.blockdiagram()
    clock = bd.clock(example.PERIOD, unit="s")
    ref = bd.STEP(T=0.0)
    # bdsim's discrete PID (inputs: plant output, demand) with an unfiltered backward
    # difference, then a ZOH into the plant, as in bdsim's examples/eg1_zoh.py
    pid = bd.PID_S(clock, P=example.KP, I=example.KI, D=example.KD)
    hold = bd.ZOH(clock)
    plant = bd.LTI_SISO(1.0, [example.MASS, example.DAMPING, example.STIFFNESS])
    bd.connect(plant, pid[0])
    bd.connect(ref, pid[1])
    bd.connect(pid, hold)
    bd.connect(hold, plant)
    bd.compile(verbose=False)
    t0 = time.perf_counter()
    sim.run(bd, T=T_END, watch=[plant])
    return time.perf_counter() - t0


def main(repeat: int = 3) -> dict[str, float]:
    plan = compile_diagram(example.build(with_scope=False))
    t_rk4, res = best(lambda: simulate(plan, T_END, "rk4", dt=example.PERIOD), repeat)
    t_rk45, res45 = best(lambda: simulate(plan, T_END), repeat)
    hits = round(T_END / example.PERIOD)
    print(f"discrete PID at 1 kHz + continuous mass-spring-damper, {T_END:g} s ({hits} hits)")
    print(f"  blocksim rk4 dt=1 ms    {t_rk4 * 1e3:8.1f} ms  ({t_rk4 / hits * 1e6:.1f} us/hit, "
          f"target <= {TARGET * 1e3:.0f} ms)  x(10)={res['plant.y'][-1]:.9f}")
    print(f"  blocksim RK45 1e-6      {t_rk45 * 1e3:8.1f} ms  ({t_rk45 / hits * 1e6:.1f} us/hit, "
          f"{res45.stats['nfev']} RHS evaluations)  x(10)={res45['plant.y'][-1]:.9f}")
    diff = np.max(np.abs(res["plant.y"] - np.interp(res.t, res45.t, res45["plant.y"])))
    print(f"  rk4 vs RK45 max |dx|    {diff:.2e} m")
    out = dict(rk4=t_rk4, rk45=t_rk45)
    try:
        t_bd = run_bdsim()
    except Exception as exc:
        print(f"  bdsim                   failed: {type(exc).__name__}: {exc}")
        return out
    if t_bd is None:
        print("  bdsim                   not installed (pip install bdsim to compare)")
    else:
        print(f"  bdsim (RK45 default)    {t_bd * 1e3:8.1f} ms  (blocksim rk4 is "
              f"{t_bd / t_rk4:.0f}x faster)")
        out["bdsim"] = t_bd
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    main(parser.parse_args().repeat)
