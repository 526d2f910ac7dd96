"""Puma 560 computed torque over 5 s, measured side by side in one run.

The diagram of ``examples/puma_computed_torque.py`` (jtraj qz -> qr in 2 s, computed-torque
control with an exact model, the arm's forward dynamics; Coulomb friction removed) in

* the interpreted back-end (scipy RK45, rtol 1e-6, atol 1e-9; target <= 100 ms),
* the compiled back-end (numba Dormand–Prince 5(4), same tolerances, after the one-off compile;
  target <= 10 ms), and fixed-step rk4 at 1 ms with ``specialize=True``,
* the same closed loop hand-written for scipy's ``solve_ivp`` (RK45, same tolerances), calling
  the same robotics kernels (``rne``, ``accel``) and the same trajectory evaluator,
* bdsim + Robotics Toolbox for Python, when both are importable (bdsim's sl_ctorque-style
  diagram with its FDYN and IDYN blocks).

Run: ``python benchmarks/puma_computed_torque.py``. Best of several runs; the machine may be
shared, so compare numbers measured in the same run.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import puma_computed_torque as example  # noqa: E402

from blocksim import compile_diagram, simulate  # noqa: E402
from blocksim.robotics.models import puma560  # noqa: E402
from blocksim.robotics.trajectory import quintic_axes_at  # noqa: E402

T_END = 5.0
TOL = dict(rtol=1e-6, atol=1e-9)


def best(fn, repeat=5):
    t_best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t_best = min(t_best, time.perf_counter() - t0)
    return t_best, out


def hand_written_scipy():
    """The closed loop as one right-hand side for solve_ivp (what a user would write)."""
    arm = puma560().nofriction()
    qz, qr = arm.poses["qz"], arm.poses["qr"]
    zero = np.zeros(6)
    kp, kd, tm = example.KP, example.KD, example.T_MOVE

    def f(t, y):
        q, qd = y[:6], y[6:]
        q_d, qd_d, qdd_d = quintic_axes_at(qz, qr, zero, zero, tm, t)
        tau = arm.rne(q, qd, qdd_d + kp * (q_d - q) + kd * (qd_d - qd))
        return np.concatenate((qd, arm.accel(q, qd, tau)))

    y0 = np.concatenate((qz, zero))
    f(0.0, y0)
    return lambda: solve_ivp(f, (0.0, T_END), y0, method="RK45", **TOL)


def bdsim_version():
    """bdsim + RTB's computed-torque loop, or None when they are not installed."""
    try:
        import bdsim  # noqa: F401
        import roboticstoolbox as rtb
    except ImportError:
        return None
    from bdsim import BDSim
    from roboticstoolbox.blocks import FDyn, IDyn, Traj  # noqa: F401

    sim = BDSim(animation=False, graphics=False, progress=False)
    bd = sim.blockdiagram()
    robot = rtb.models.DH.Puma560().nofriction()
    traj = bd.JTRAJ(robot.qz, robot.qr, T=example.T_MOVE)
    e = bd.SUM("+-")
    ed = bd.SUM("+-")
    v = bd.SUM("+++")
    kp, kd = bd.GAIN(example.KP), bd.GAIN(example.KD)
    ctrl = bd.IDYN(robot, gravity=robot.gravity)
    plant = bd.FDYN(robot, q0=robot.qz)
    bd.connect(traj[0], e[0])
    bd.connect(plant[0], e[1], ctrl[0])
    bd.connect(traj[1], ed[0])
    bd.connect(plant[1], ed[1], ctrl[1])
    bd.connect(e, kp)
    bd.connect(ed, kd)
    bd.connect(traj[2], v[0])
    bd.connect(kp, v[1])
    bd.connect(kd, v[2])
    bd.connect(v, ctrl[2])
    bd.connect(ctrl, plant)
    bd.compile()
    return lambda: sim.run(bd, T_END, solver="RK45", **TOL)


def main() -> None:
    plan = compile_diagram(example.build(with_scope=False))
    ref = simulate(plan, T_END, **TOL)
    t_interp = min(simulate(plan, T_END, **TOL).stats["wall_time"] for _ in range(5))
    first = simulate(plan, T_END, backend="compiled", **TOL)
    runs = [simulate(plan, T_END, backend="compiled", **TOL) for _ in range(10)]
    t_comp = min(r.stats["wall_time"] for r in runs)
    simulate(plan, T_END, "rk4", dt=1e-3, backend="compiled", specialize=True)
    t_rk4 = min(simulate(plan, T_END, "rk4", dt=1e-3, backend="compiled",
                         specialize=True).stats["wall_time"] for _ in range(10))
    t_hand, sol = best(hand_written_scipy())
    err = np.abs(ref["e.y"]).max()
    print(f"Puma 560 computed torque, {T_END:g} s, RK45 rtol 1e-6 atol 1e-9")
    print(f"  interpreted back-end      {t_interp * 1e3:8.1f} ms  nfev={ref.stats['nfev']}  "
          f"(target <= 100 ms)  max |e| {err:.1e} rad")
    print(f"  compiled back-end         {t_comp * 1e3:8.2f} ms  nfev={runs[0].stats['nfev']}  "
          f"(target <= 10 ms; compile {first.stats['compile_time']:.1f} s, "
          f"{first.stats['compile_cache']})")
    print(f"  compiled rk4 1 ms, specialised {t_rk4 * 1e3:8.2f} ms  (20 000 RHS evaluations: "
          f"the dynamics themselves)")
    print(f"  hand-written solve_ivp    {t_hand * 1e3:8.1f} ms  nfev={sol.nfev}  "
          f"(interpreted / hand {t_interp / t_hand:.2f}x)")
    q_end = ref["plant.q"][-1]
    print(f"  final q agrees with the hand-written run to "
          f"{np.abs(q_end - sol.y[:6, -1]).max():.1e} rad")
    try:
        bd = bdsim_version()
    except Exception as exc:  # bdsim's block loading differs between releases
        print(f"  bdsim + RTB: installed but the diagram could not be built here "
              f"({type(exc).__name__}: {exc})")
        return
    if bd is None:
        print("  bdsim + roboticstoolbox-python: not installed (pip install bdsim "
              "roboticstoolbox-python to compare)")
    else:
        bd()
        t_bd, _ = best(bd, repeat=2)
        print(f"  bdsim + RTB               {t_bd * 1e3:8.1f} ms  (bdsim / blocksim interpreted "
              f"{t_bd / t_interp:.1f}x, / compiled {t_bd / t_comp:.0f}x)")


if __name__ == "__main__":
    main()
