"""Puma 560 computed torque over 5 s, measured side by side in one run.

The diagram of ``examples/puma_computed_torque.py`` (jtraj qz -> qr in 2 s, computed-torque
control with an exact model, the arm's forward dynamics; Coulomb friction removed) in

* the interpreted back-end (scipy RK45, rtol 1e-6, atol 1e-9),
* the compiled back-end (numba Dormand–Prince 5(4), same tolerances, warm; target: >= 40x the
  interpreted back-end), and fixed-step rk4 at 1 ms,
* the same closed loop hand-written for scipy's ``solve_ivp`` (RK45, same tolerances), calling
  the same robotics kernels (``rne``, ``accel``) and the same trajectory evaluator (target: the
  compiled back-end >= 5x faster),
* bdsim + Robotics Toolbox for Python, when both are importable (bdsim's sl_ctorque-style
  diagram with its FDYN and IDYN blocks).

Run: ``python benchmarks/puma_computed_torque.py``. :func:`measure` is also used by
``benchmarks/compiled.py``. Best of several runs (``stats["wall_time"]``, the run itself); the
machine may be shared, so compare numbers measured in the same run.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp

from blocksim import compile_diagram, simulate
from blocksim.robotics.models import puma560
from blocksim.robotics.trajectory import quintic_axes_at

ROOT = Path(__file__).resolve().parents[1]


def _load(path: Path, name: str):
    """Import a script by file name (examples and benchmarks share module names)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


example = _load(ROOT / "examples" / "puma_computed_torque.py", "example_puma_computed_torque")

T_END = 5.0
TOL = dict(rtol=1e-6, atol=1e-9)
TARGET_VS_INTERPRETED = 40.0  # compiled >= 40x the interpreted back-end (issue 12)
TARGET_VS_HAND = 5.0  # compiled >= 5x a hand-written solve_ivp (issue 12)


def best(fn, repeat=5):
    """(best wall-clock time of ``repeat`` calls of ``fn``, the last result)."""
    t_best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t_best = min(t_best, time.perf_counter() - t0)
    return t_best, out


def best_run(fn, repeat=5):
    """(best ``stats["wall_time"]`` of ``repeat`` simulations, the last result)."""
    t_best, out = float("inf"), None
    for _ in range(repeat):
        out = fn()
        t_best = min(t_best, out.stats["wall_time"])
    return t_best, out


def hand_written_scipy(T: float = T_END):
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
    return lambda: solve_ivp(f, (0.0, T), y0, method="RK45", **TOL)


def bdsim_version(T: float = T_END):
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
    return lambda: sim.run(bd, T, solver="RK45", **TOL)


def measure(T: float = T_END, repeat: int = 5, rk4: bool = True,
            bdsim: bool = True) -> dict[str, Any]:
    """Every measurement of this benchmark, in seconds (best of ``repeat``; the interpreted
    back-end and the hand-written solve_ivp best of ``max(1, repeat // 2)``). ``bdsim`` is
    None when bdsim is not installed, a string when it could not be built, else its time."""
    plan = compile_diagram(example.build(with_scope=False))
    slow = max(1, repeat // 2)
    t_interp, ref = best_run(lambda: simulate(plan, T, **TOL), slow)
    first = simulate(plan, T, backend="compiled", **TOL)  # compiles, or loads the caches
    t_comp, res = best_run(lambda: simulate(plan, T, backend="compiled", **TOL), repeat)
    out: dict[str, Any] = dict(
        T=T, interpreted=t_interp, compiled=t_comp, first=first.stats,
        nfev_interpreted=ref.stats["nfev"], nfev_compiled=res.stats["nfev"],
        max_error=float(np.abs(ref["e.y"]).max()),
        compiled_vs_interpreted=float(np.abs(res["plant.q"][-1] - ref["plant.q"][-1]).max()))
    if rk4:
        out["rk4"], _ = best_run(lambda: simulate(plan, T, "rk4", dt=1e-3, backend="compiled"),
                                 repeat)
    out["hand"], sol = best(hand_written_scipy(T), slow)
    out["nfev_hand"] = sol.nfev
    out["hand_vs_blocksim"] = float(np.abs(ref["plant.q"][-1] - sol.y[:6, -1]).max())
    out["bdsim"] = None
    if bdsim:
        try:
            bd = bdsim_version(T)
        except Exception as exc:  # bdsim's block loading differs between releases
            out["bdsim"] = (f"installed, but the diagram could not be built "
                            f"({type(exc).__name__}: {exc})")
        else:
            if bd is not None:
                bd()
                out["bdsim"], _ = best(bd, repeat=2)
    return out


def report(m: dict[str, Any]) -> list[str]:
    """The lines that describe :func:`measure`'s result."""
    first = m["first"]
    lines = [
        f"Puma 560 computed torque, {m['T']:g} s, RK45 rtol 1e-6 atol 1e-9",
        f"  interpreted back-end      {m['interpreted'] * 1e3:8.2f} ms  "
        f"nfev={m['nfev_interpreted']}  max |e| {m['max_error']:.1e} rad",
        f"  compiled back-end         {m['compiled'] * 1e3:8.2f} ms  nfev={m['nfev_compiled']}  "
        f"{m['interpreted'] / m['compiled']:.1f}x the interpreted "
        f"(target >= {TARGET_VS_INTERPRETED:g}x); first call compile "
        f"{first['compile_time']:.2f} s ({first['compile_cache']}, "
        f"{first['compiled_functions']} functions compiled)",
    ]
    if "rk4" in m:
        nrhs = round(m["T"] / 1e-3) * 4
        lines.append(f"  compiled rk4 1 ms         {m['rk4'] * 1e3:8.2f} ms  "
                     f"({nrhs} RHS evaluations, {m['rk4'] / nrhs * 1e6:.2f} us each: the "
                     f"dynamics themselves)")
    lines += [
        f"  hand-written solve_ivp    {m['hand'] * 1e3:8.2f} ms  nfev={m['nfev_hand']}  "
        f"compiled is {m['hand'] / m['compiled']:.1f}x faster (target >= {TARGET_VS_HAND:g}x); "
        f"interpreted / hand {m['interpreted'] / m['hand']:.2f}x",
        f"  final q: hand-written vs interpreted {m['hand_vs_blocksim']:.1e} rad, "
        f"compiled vs interpreted {m['compiled_vs_interpreted']:.1e} rad",
    ]
    bd = m["bdsim"]
    if bd is None:
        lines.append("  bdsim + roboticstoolbox-python: not installed here (pip install bdsim "
                     "roboticstoolbox-python to compare)")
    elif isinstance(bd, str):
        lines.append(f"  bdsim + RTB: {bd}")
    else:
        lines.append(f"  bdsim + RTB               {bd * 1e3:8.1f} ms  (bdsim / blocksim "
                     f"interpreted {bd / m['interpreted']:.1f}x, / compiled "
                     f"{bd / m['compiled']:.0f}x)")
    return lines


def main() -> None:
    print("\n".join(report(measure())))


if __name__ == "__main__":
    main()
