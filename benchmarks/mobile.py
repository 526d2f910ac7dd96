"""Mobile-robot benchmarks (issue 14): drivers, EKF, Monte-Carlo NEES, ratios in one run.

Rows (best of ``repeat`` warm runs; compile and numba cache loading excluded):

* drive to a point, 10 s (``examples/drive_to_point.py``, RK45): blocksim interpreted and
  compiled, the same closed loop hand-written for ``scipy.integrate.solve_ivp``, and bdsim +
  Robotics Toolbox for Python when both are importable (targets: interpreted <= 30 ms,
  compiled <= 2 ms);
* EKF SLAM, 20 landmarks, 1000 steps, interpreted: the diagram (``examples/ekf_slam.py``)
  and the plain Python ``EKF`` class (target <= 0.5 s);
* EKF localisation, 1000 steps, compiled (``examples/ekf_localisation.py``; target <= 20 ms);
* beside both EKF rows, the same diagram with the EKF stepping twice per hit (its output and
  its update each computing the step, as before the step memo), timed in turn with it;
* NEES Monte Carlo of the localisation diagram through ``simulate_batch``, 1000 members of
  100 steps (target <= 2 s), with the mean NEES and its 95 % chi-square band.

Run: ``python benchmarks/mobile.py [--quick]``. The machine may be shared: the ratios matter
more than the absolute times.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _example(name: str) -> Any:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def best(fn: Any, repeat: int) -> tuple[float, Any]:
    """Best wall time [s] of ``repeat`` calls of ``fn`` and its last result."""
    out, times = None, []
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def hand_drive_to_point(T: float) -> np.ndarray:
    """The drive-to-point loop hand-written for solve_ivp (RK45, same gains and limits)."""
    from scipy.integrate import solve_ivp

    m = _example("drive_to_point")
    gx, gy = m.GOAL

    def rhs(t: float, x: np.ndarray) -> list[float]:
        dx, dy = gx - x[0], gy - x[1]
        v = min(2.0, max(-2.0, 0.5 * math.hypot(dx, dy)))
        a = math.atan2(dy, dx) - x[2]
        g = min(0.8, max(-0.8, 1.5 * ((a + math.pi) % (2 * math.pi) - math.pi)))
        return [v * math.cos(x[2]), v * math.sin(x[2]), v * math.tan(g)]

    return solve_ivp(rhs, (0.0, T), m.X0, rtol=1e-6, atol=1e-9).y[:, -1]


def bdsim_drive_to_point(T: float) -> Any:
    """bdsim + RTB's Bicycle driven to the point, or None when they are not installed."""
    try:
        import bdsim  # noqa: F401
        import roboticstoolbox  # noqa: F401
    except ImportError:
        return None
    try:
        from bdsim import BDSim

        m = _example("drive_to_point")
        sim = BDSim(animation=False, graphics=False, progress=False)
        bd = sim.blockdiagram()
        veh = bd.BICYCLE(x0=list(m.X0), speed_max=2.0, steer_max=0.8, L=1.0)

        def law(x: Any) -> tuple[float, float]:
            dx, dy = m.GOAL[0] - x[0], m.GOAL[1] - x[1]
            a = math.atan2(dy, dx) - x[2]
            return 0.5 * math.hypot(dx, dy), 1.5 * ((a + math.pi) % (2 * math.pi) - math.pi)

        drv = bd.FUNCTION(law, nin=1, nout=2)
        bd.connect(veh, drv)
        bd.connect(drv[0], veh[0])
        bd.connect(drv[1], veh[1])
        bd.compile(verbose=False)
        return lambda: sim.run(bd, T)
    except Exception as exc:  # bdsim's API changes between versions
        return f"bdsim could not be built ({type(exc).__name__}: {exc})"


def drive(T: float = 10.0, repeat: int = 5) -> dict[str, Any]:
    """Drive-to-point rows: interpreted, compiled, solve_ivp, bdsim."""
    from blocksim import simulate

    m = _example("drive_to_point")
    d = m.build(plot=False)  # no sink: its figure would be drawn after every run
    simulate(d, T, backend="compiled")  # compile / load once
    simulate(d, T, backend="interpreted")
    out: dict[str, Any] = {"T": T}
    out["interpreted"], a = best(lambda: simulate(d, T, backend="interpreted"), repeat)
    out["compiled"], b = best(lambda: simulate(d, T, backend="compiled"), repeat)
    out["scipy"], h = best(lambda: hand_drive_to_point(T), repeat)
    out["agree"] = float(np.abs(a["car.pose"][-1] - b["car.pose"][-1]).max())
    out["vs_scipy"] = float(np.abs(a["car.pose"][-1] - h).max())
    run = bdsim_drive_to_point(T)
    out["bdsim"] = run if run is None or isinstance(run, str) else best(run, repeat)[0]
    return out


class _Twice:
    """An estimator block's interpreted memo that steps at every call, as before the memo
    (output and update each computed the step): the A/B reference."""

    def __init__(self, memo: Any) -> None:
        self.memo = memo

    def step(self, t: float, x: np.ndarray, u: Any) -> np.ndarray:
        args = tuple(np.asarray(v, dtype=float) if np.ndim(v) else float(v) for v in u)
        return self.memo._fn(t, x, *args, self.memo._p)


def slam(steps: int = 1000, repeat: int = 3, ab: bool = False) -> dict[str, Any]:
    """EKF SLAM rows: the interpreted diagram and the Python class; with ``ab`` also the
    diagram stepping twice per hit (the EKF before its memo), interleaved."""
    from blocksim import simulate
    from blocksim.robotics.mobile import EKF, LandmarkMap, RandomPath, RangeBearingSensor, Vehicle

    m = _example("ekf_slam")
    d = m.build(plot=False)
    T = steps * 0.1
    simulate(d, T)  # every kernel specialisation compiled or loaded
    out: dict[str, Any] = {"steps": steps}
    out["diagram"], res = best(lambda: simulate(d, T, backend="interpreted"), repeat)
    out["landmarks"] = int(np.count_nonzero(res["ekf.x"][-1][3:]) // 2)
    if ab:
        d2 = m.build(plot=False)
        d2["ekf"]._memo = _Twice(d2["ekf"]._memo)
        simulate(d2, T / 10)
        pairs = [(best(lambda: simulate(d, T, backend="interpreted"), 1)[0],
                  best(lambda: simulate(d2, T, backend="interpreted"), 1)[0])
                 for _ in range(repeat)]  # fmt: skip
        out["diagram"] = min(a for a, _ in pairs)
        out["twice"] = min(b for _, b in pairs)
    V, W, P0 = np.diag(m.V), np.diag(m.W), np.diag(m.P0)
    veh = Vehicle(V, seed=0)
    veh.add_driver(RandomPath(10.0, seed=1))
    sensor = RangeBearingSensor(veh, LandmarkMap(20, 10.0, seed=0), W, seed=2)
    ekf = EKF(veh, V, P0, sensor, W)
    ekf.run(steps)
    out["python_class"], _ = best(lambda: ekf.run(steps), repeat)
    return out


def localisation(steps: int = 1000, repeat: int = 5, ab: bool = False) -> dict[str, Any]:
    """EKF localisation, compiled; with ``ab`` also the same diagram whose EKF update kernel
    is the pure step (two steps per hit, as before the memo; one more compile), interleaved."""
    from blocksim import simulate
    from blocksim.blocks.vehicle import estimator_kernels as ek
    from blocksim.engine.compiled.kernels import Kernels

    d = _example("ekf_localisation").build(plot=False)
    simulate(d, 0.5, backend="compiled")
    T = steps * 0.1
    t, _ = best(lambda: simulate(d, T, backend="compiled"), repeat)
    out: dict[str, Any] = {"steps": steps, "compiled": t}
    if ab:
        d2 = _example("ekf_localisation").build(plot=False)
        e = d2["ekf"]
        e.kernels = lambda: Kernels(e._p, output=ek.ekf_loc_output, update=ek.ekf_loc_step)
        simulate(d2, 0.5, backend="compiled")
        pairs = [(best(lambda: simulate(d, T, backend="compiled"), 3)[0],
                  best(lambda: simulate(d2, T, backend="compiled"), 3)[0])
                 for _ in range(repeat)]  # fmt: skip
        out["compiled"] = min(t, min(a for a, _ in pairs))
        out["twice"] = min(b for _, b in pairs)
    return out


def nees_batch(members: int = 1000, steps: int = 100, repeat: int = 1) -> dict[str, Any]:
    """Monte-Carlo NEES of the localisation diagram through simulate_batch (compiled)."""
    from scipy.stats import chi2

    from blocksim.engine.batch import simulate_batch
    from blocksim.robotics.mobile import wrap_angle

    d = _example("ekf_localisation").build(plot=False)
    overrides = [{"veh.seed": 10 + i, "driver.seed": 5000 + i, "sensor.seed": 9000 + i}
                 for i in range(members)]  # fmt: skip
    simulate_batch(d, overrides[:2], 0.5, backend="compiled")
    t, batch = best(lambda: simulate_batch(d, overrides, steps * 0.1, backend="compiled"), repeat)
    e = batch["ekf.x"][:, -1, :] - batch["veh.pose"][:, -1, :]
    e[:, 2] = wrap_angle(e[:, 2])
    nees = np.einsum("mi,mi->m", e, np.linalg.solve(batch["ekf.P"][:, -1], e[..., None])[..., 0])
    lo, hi = chi2.ppf([0.025, 0.975], 3 * members) / members
    return {"members": members, "steps": steps, "time": t, "nees": float(nees.mean()),
            "band": (float(lo), float(hi))}  # fmt: skip


def _ms(x: Any) -> str:
    if x is None:
        return "not installed"
    if isinstance(x, str):
        return x
    return f"{x * 1e3:8.2f} ms"


def report(dr: dict, sl: dict, lo: dict, mc: dict) -> list[str]:
    """The printed table, with the targets met or missed."""
    lines = [f"drive to a point, T = {dr['T']:g} s (RK45)"]
    lines.append(f"  interpreted {_ms(dr['interpreted'])}   compiled {_ms(dr['compiled'])}   "
                 f"solve_ivp {_ms(dr['scipy'])}   bdsim+RTB {_ms(dr['bdsim'])}")  # fmt: skip
    lines.append(f"  ratios: interpreted/compiled {dr['interpreted'] / dr['compiled']:.1f}x, "
                 f"solve_ivp/compiled {dr['scipy'] / dr['compiled']:.1f}x, "
                 f"solve_ivp/interpreted {dr['scipy'] / dr['interpreted']:.2f}x")  # fmt: skip
    lines.append(f"  final poses: back-ends differ by {dr['agree']:.1e}, blocksim vs solve_ivp "
                 f"{dr['vs_scipy']:.1e}")  # fmt: skip
    lines.append(f"EKF SLAM, 20 landmarks, {sl['steps']} steps (interpreted): diagram "
                 f"{_ms(sl['diagram'])}, Python class {_ms(sl['python_class'])} "
                 f"({sl['landmarks']} landmarks mapped)")  # fmt: skip
    if "twice" in sl:
        lines.append(f"  EKF stepping twice per hit (before the memo): {_ms(sl['twice'])} "
                     f"({sl['twice'] / sl['diagram']:.2f}x)")  # fmt: skip
    lines.append(f"EKF localisation, {lo['steps']} steps (compiled): {_ms(lo['compiled'])}")
    if "twice" in lo:
        lines.append(f"  EKF stepping twice per hit (before the memo): {_ms(lo['twice'])} "
                     f"({lo['twice'] / lo['compiled']:.2f}x)")  # fmt: skip
    lines.append(f"NEES Monte Carlo, {mc['members']} members x {mc['steps']} steps "
                 f"(simulate_batch, compiled): {_ms(mc['time'])}; mean NEES {mc['nees']:.3f} "
                 f"in [{mc['band'][0]:.3f}, {mc['band'][1]:.3f}]")  # fmt: skip
    targets = [
        ("drive to point interpreted <= 30 ms", dr["interpreted"] <= 0.030),
        ("drive to point compiled <= 2 ms", dr["compiled"] <= 0.002),
        ("EKF SLAM 1000 steps interpreted <= 0.5 s", sl["diagram"] <= 0.5),
        ("EKF localisation 1000 steps compiled <= 20 ms", lo["compiled"] <= 0.020),
        ("1000-run NEES Monte Carlo <= 2 s", mc["time"] <= 2.0),
    ]
    lines.append("targets:")
    lines += [f"  {'met   ' if ok else 'MISSED'} {name}" for name, ok in targets]
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    args = ap.parse_args(argv)
    rep = 2 if args.quick else 5
    lines = report(drive(repeat=rep), slam(repeat=max(1, rep // 2), ab=True),
                   localisation(repeat=rep, ab=True), nees_batch())  # fmt: skip
    print("\n".join(lines))


if __name__ == "__main__":
    main()
