"""Engine overhead on the PID mass-spring-damper example, measured side by side in one run.

Prints:

* blocksim (interpreted back-end, scipy RK45, rtol 1e-6, atol 1e-9) on
  ``examples/pid_mass_spring_damper.py`` (9 blocks, no scope) vs the same closed loop
  hand-flattened into one Python function under ``scipy.integrate.solve_ivp`` with the same
  solver and tolerances: wall times, RHS evaluations and their ratio;
* the cost of one diagram evaluation (outputs + derivatives) and per block evaluation;
* bdsim on the same diagram when bdsim is installed.

Run: ``python benchmarks/engine_overhead.py [--repeat 7]``. Times are the best of the repeats.
"""

from __future__ import annotations

import argparse
import sys
import time
import timeit
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import pid_mass_spring_damper as example

from blocksim import compile_diagram, simulate
from blocksim.engine.evaluate import Evaluator

M, C, K = example.MASS, example.DAMPING, example.STIFFNESS
KP, KI, KD, N = example.KP, example.KI, example.KD, example.N
T_END, RTOL, ATOL = 10.0, 1e-6, 1e-9
EXACT = 1.000683661


def flat_rhs(t: float, y: np.ndarray) -> list[float]:
    """States: velocity, position, PID integral, PID derivative filter."""
    v, x, xi, z = y
    e = 1.0 - x
    u = KP * e + KI * xi + KD * N * (e - z)
    return [(u - C * v - K * x) / M, v, e, N * (e - z)]


def best(fn, repeat: int):
    t_best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t_best = min(t_best, time.perf_counter() - t0)
    return t_best, out


def run_bdsim(repeat: int):
    try:
        import bdsim
    except ImportError:
        return None
    import matplotlib

    matplotlib.use("Agg")

    def once():
        sim = bdsim.BDSim(animation=False, graphics=False, progress=False, quiet=True)
        bd = sim.blockdiagram()
        ref = bd.STEP(T=0.0)
        err = bd.SUM("+-")
        pid = bd.LTI_SS(A=np.array([[-N, 0.0], [0.0, 0.0]]), B=np.array([[N], [1.0]]),
                        C=np.array([[-KD * N, KI]]), D=np.array([[KD * N + KP]]))
        force = bd.SUM("+--")
        inv_mass = bd.GAIN(1.0 / M)
        vel = bd.INTEGRATOR(x0=0.0)
        pos = bd.INTEGRATOR(x0=0.0)
        damper = bd.GAIN(C)
        spring = bd.GAIN(K)
        bd.connect(ref, err[0])
        bd.connect(pos, err[1], spring)
        bd.connect(err, pid)
        bd.connect(pid, force[0])
        bd.connect(damper, force[1])
        bd.connect(spring, force[2])
        bd.connect(force, inv_mass)
        bd.connect(inv_mass, vel)
        bd.connect(vel, pos, damper)
        bd.compile(verbose=False)
        return sim.run(bd, T=T_END, watch=[pos], solver="RK45",
                       solver_args=dict(rtol=RTOL, atol=ATOL))

    return best(once, max(2, repeat // 3))


def main(repeat: int = 7) -> dict[str, float]:
    plan = compile_diagram(example.build(with_scope=False))
    simulate(plan, T_END, rtol=RTOL, atol=ATOL)  # warm caches
    t_bs, res = best(lambda: simulate(plan, T_END, rtol=RTOL, atol=ATOL), repeat)
    t_flat, ref = best(lambda: solve_ivp(flat_rhs, (0.0, T_END), np.zeros(4), method="RK45",
                                         rtol=RTOL, atol=ATOL), repeat)
    nfev = res.stats["nfev"]
    print(f"PID mass-spring-damper, 10 s, RK45 rtol={RTOL:g} atol={ATOL:g}")
    print(f"  blocksim (9 blocks)     {t_bs * 1e3:8.2f} ms  nfev={nfev:5d}  "
          f"x(10)={res['pos.y'][-1]:.9f}")
    print(f"  hand-flattened scipy    {t_flat * 1e3:8.2f} ms  nfev={ref.nfev:5d}  "
          f"x(10)={ref.y[1, -1]:.9f}   (exact {EXACT})")
    print(f"  ratio blocksim / flat   {t_bs / t_flat:8.2f}x  (target <= 2x)")

    ev = Evaluator(plan)
    x = np.array([0.1, 0.2, 0.3, 0.4])
    xd = plan.xd0
    n_blocks = len(plan.entries)
    n_calls = len(plan.order) + sum(1 for e in plan.entries if e.states.stop > e.states.start)

    def evaluate():
        ev.outputs(0.5, x, xd)
        ev.derivatives(0.5, x, xd)

    loops = 20000
    per_eval = min(timeit.repeat(evaluate, number=loops, repeat=5)) / loops
    print(f"  one diagram evaluation  {per_eval * 1e6:8.2f} us  ({n_blocks} blocks, {n_calls} "
          f"block method calls)")
    print(f"  per block evaluation    {per_eval / n_blocks * 1e6:8.2f} us  (target <= 2 us)")
    print(f"  engine cost per RHS     {(t_bs - t_flat) / nfev * 1e6:8.2f} us  "
          f"(blocksim - flat, per evaluation)")
    out = dict(blocksim=t_bs, flat=t_flat, ratio=t_bs / t_flat, per_block=per_eval / n_blocks)
    bd = run_bdsim(repeat)
    if bd is None:
        print("  bdsim                   not installed (pip install bdsim to compare)")
    else:
        t_bd, _ = bd
        print(f"  bdsim 9 blocks          {t_bd * 1e3:8.2f} ms  "
              f"(blocksim is {t_bd / t_bs:.1f}x faster)")
        out["bdsim"] = t_bd
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    main(parser.parse_args().repeat)
