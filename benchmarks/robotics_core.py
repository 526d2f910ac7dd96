"""The robotics core, measured: per-call cost of the Puma 560 kinematics and dynamics.

Prints, for the Puma 560 (the model zoo's ``puma560``; a local DH table if the zoo is absent):

* the CPU time per call (µs, best of several ``timeit`` repeats, each auto-ranged) of ``fkine``,
  ``jacob0``, ``rne``, ``inertia``, ``coriolis`` and ``accel`` through the SerialLink methods,
  next to the targets;
* the values against the Robotics Toolbox for Python numbers recorded in the planning notes
  (``anchor-benchmarks.md`` §4: same q, qd, qdd);
* the cold first-compile time of the kernels: a new process with an empty
  ``NUMBA_CACHE_DIR`` imports the package, compiles a trivial function (numba's own set-up)
  and makes the first call of each method (in this order: later kernels reuse the helpers
  the earlier ones compiled);
* when ``roboticstoolbox`` (roboticstoolbox-python) is importable, the same calls on its DH
  ``Puma560`` and the ratios; otherwise it says so;
* when Pinocchio (``pin``) is importable, ``rne``/``inertia``/``accel``/``jacob0`` beside its
  ``rnea``/``crba``/``aba``/frame Jacobian on the same model, values checked to 1e-12
  (``benchmarks/arm_dynamics.py``).

Run: ``python benchmarks/robotics_core.py [--repeat 7]``. The machine is shared and noisy:
compare the best-of numbers, and rerun when another job is busy.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import timeit
from math import pi

import numpy as np

Q = np.array([0.1, 0.7, -1.2, 0.3, 0.4, 0.5])
QD = np.array([0.2, -0.1, 0.3, 0.4, -0.5, 0.6])
QDD = np.array([0.5, 0.4, -0.3, 0.2, 0.1, -0.2])
TARGETS_US = {"rne": 3.0, "inertia": 10.0, "coriolis": 20.0, "accel": 10.0}
RTB_VALUES = {  # roboticstoolbox-python 1.5.0, DH Puma560 (anchor-benchmarks.md §4)
    "rne": [27.516860961, 25.232485037, 12.662901118, 1.05353242, -1.237030004, 0.394380077],
    "diag(inertia)": [3.648773626, 5.161637012, 0.938401485, 0.192461283, 0.171348452,
                      0.194104506],
    "gravload": [0.0, 32.2326928, 4.413778987, -1.558785e-3, 2.263357e-3, 0.0],
    "nofriction accel(q, qd, 0)": [-1.327401788, -6.006469629, -1.525787742, -0.851673609,
                                   1.329644258, -0.666540002],
}


def puma():
    """The zoo's Puma 560, or the same model from its DH and dynamics table."""
    try:
        from blocksim.robotics.models import puma560
        return puma560(), "blocksim.robotics.models.puma560"
    except ImportError:
        from blocksim.robotics.arm import Revolute, SerialLink
        rows = [  # d, a, alpha, m, r, I, Jm, G, B, Tc (seed 000 Appendix B.1)
            (0, 0, pi / 2, 0, [0, 0, 0], [0, 0.35, 0], 200e-6, -62.6111, 1.48e-3,
             [0.395, -0.435]),
            (0, 0.4318, 0, 17.4, [-0.3638, 0.006, 0.2275], [0.13, 0.524, 0.539], 200e-6,
             107.815, 0.817e-3, [0.126, -0.071]),
            (0.15005, 0.0203, -pi / 2, 4.8, [-0.0203, -0.0141, 0.070], [0.066, 0.086, 0.0125],
             200e-6, -53.7063, 1.38e-3, [0.132, -0.105]),
            (0.4318, 0, pi / 2, 0.82, [0, 0.019, 0], [1.8e-3, 1.3e-3, 1.8e-3], 33e-6, 76.0364,
             71.2e-6, [11.2e-3, -16.9e-3]),
            (0, 0, -pi / 2, 0.34, [0, 0, 0], [0.3e-3, 0.4e-3, 0.3e-3], 33e-6, 71.923, 82.6e-6,
             [9.26e-3, -14.5e-3]),
            (0, 0, 0, 0.09, [0, 0, 0.032], [0.15e-3, 0.15e-3, 0.04e-3], 33e-6, 76.686, 36.7e-6,
             [3.96e-3, -10.5e-3])]
        links = [Revolute(d=d, a=a, alpha=al, m=m, r=r, I=inertia, Jm=Jm, G=G, B=B, Tc=Tc)
                 for d, a, al, m, r, inertia, Jm, G, B, Tc in rows]
        return SerialLink(links, name="Puma 560"), "local DH table"


def calls(robot) -> dict:
    return {"fkine": lambda: robot.fkine(Q), "jacob0": lambda: robot.jacob0(Q),
            "rne": lambda: robot.rne(Q, QD, QDD), "inertia": lambda: robot.inertia(Q),
            "coriolis": lambda: robot.coriolis(Q, QD), "accel": lambda: robot.accel(Q, QD, QDD)}


def per_call_us(fn, repeat: int) -> float:
    """Best CPU time per call (µs): on a shared machine wall-clock time also counts the waits
    for a core; on an idle one the two agree."""
    fn()
    timer = timeit.Timer(fn, timer=time.process_time)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e6


def dispatch_floor_us(robot, repeat: int) -> float:
    """Per-call cost of an empty numba kernel given rne's seven arrays (µs)."""
    import numba

    noop = numba.njit(lambda kin, dyn, q, qd, qdd, g, f: np.empty(q.shape[0]))
    a = robot.arrays
    args = (robot.kin, a.dyn, Q, QD, QDD, a.gravity, np.zeros(6))
    return per_call_us(lambda: noop(*args), repeat)


COLD = """
import json, sys, time
t0 = time.process_time()
sys.path.insert(0, "benchmarks")
import numba
from robotics_core import Q, QD, QDD, puma
robot, _ = puma()
numba.njit(lambda x: x + 1)(1.0)      # numba's own first-compile set-up, not the kernels'
out = {"import": time.process_time() - t0}
for name, fn in (("fkine", lambda: robot.fkine(Q)), ("jacob0", lambda: robot.jacob0(Q)),
                 ("rne", lambda: robot.rne(Q, QD, QDD)), ("inertia", lambda: robot.inertia(Q)),
                 ("coriolis", lambda: robot.coriolis(Q, QD)),
                 ("accel", lambda: robot.accel(Q, QD, QDD)),
                 ("friction", lambda: robot.friction(QD))):
    t = time.process_time()
    fn()
    out[name] = time.process_time() - t
print(json.dumps(out))
"""


def cold_compile() -> dict:
    """First-call CPU times (s) in a new process with an empty numba cache (compiling is
    single-threaded, so CPU time is what an idle core would take)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        res = subprocess.run([sys.executable, "-c", COLD], cwd=root, env=env,
                             capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def rtb_times(repeat: int) -> dict | None:
    try:
        import roboticstoolbox as rtb
    except ImportError:
        return None
    p560 = rtb.models.DH.Puma560()
    fns = {"fkine": lambda: p560.fkine(Q), "jacob0": lambda: p560.jacob0(Q),
           "rne": lambda: p560.rne(Q, QD, QDD), "inertia": lambda: p560.inertia(Q),
           "coriolis": lambda: p560.coriolis(Q, QD), "accel": lambda: p560.accel(Q, QD, QDD)}
    return {k: per_call_us(f, repeat) for k, f in fns.items()}


def pinocchio_lines(repeat: int) -> list[str]:
    """Pinocchio beside blocksim (``benchmarks/arm_dynamics.py``: the same Puma 560 built in
    Pinocchio, values checked to 1e-12), or why not."""
    try:
        import pinocchio  # noqa: F401
    except ImportError:
        return ["Pinocchio (pip install pin) is not installed here: no Pinocchio ratios"]
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "arm_dynamics.py")
    spec = importlib.util.spec_from_file_location("bench_arm_dynamics", path)
    module = sys.modules.get(spec.name) or importlib.util.module_from_spec(spec)
    if spec.name not in sys.modules:
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    m = module.measure(repeat)
    worst = max(m["pinocchio"]["max_diff"].values())
    if worst > 1e-12:
        raise AssertionError(f"blocksim and Pinocchio differ by {worst:.1e} on the Puma 560")
    return ["Pinocchio beside (benchmarks/arm_dynamics.py, Puma 560 without friction):",
            *module.report(m)[7:]]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timeit repeats (best of)")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-compile run")
    args = parser.parse_args(argv)

    robot, source = puma()
    print(f"Puma 560 ({source}), q = {Q.tolist()}")
    mine = {name: per_call_us(fn, args.repeat) for name, fn in calls(robot).items()}
    theirs = rtb_times(args.repeat)
    head = f"  {'call':10s} {'blocksim µs':>12s} {'target µs':>10s}"
    print(head + (f" {'RTB µs':>10s} {'RTB/blocksim':>13s}" if theirs else ""))
    for name, t in mine.items():
        target = TARGETS_US.get(name)
        flag = "" if target is None else ("  ok" if t <= target else "  over")
        line = (f"  {name:10s} {t:12.2f} {target if target else '-':>10}"
                f"{'' if theirs else flag}")
        if theirs:
            line += f" {theirs[name]:10.2f} {theirs[name] / t:12.1f}x{flag}"
        print(line)
    floor = dispatch_floor_us(robot, args.repeat)
    print(f"  numba's call floor here: an empty kernel taking rne's 7 arrays and returning a "
          f"new (6,) array costs {floor:.2f} µs; it scales with the machine's load as every "
          f"number above")
    if theirs is None:
        print("  roboticstoolbox (roboticstoolbox-python) is not installed here: no side-by-side "
              "ratios. Its recorded times on this kind of machine (anchor-benchmarks.md §4, "
              "µs): rne 26, inertia 93, coriolis 6902, accel 172.")

    print("\n".join(pinocchio_lines(args.repeat)))

    nf = robot.nofriction()
    values = {"rne": robot.rne(Q, QD, QDD), "diag(inertia)": np.diag(robot.inertia(Q)),
              "gravload": robot.gravload(Q), "nofriction accel(q, qd, 0)": nf.accel(Q, QD, 0 * Q)}
    print("values vs RTB-python (max |difference|):")
    for name, v in values.items():
        print(f"  {name:28s} {np.abs(v - RTB_VALUES[name]).max():.1e}")

    if not args.no_cold:
        cold = cold_compile()
        total = sum(v for k, v in cold.items() if k != "import")
        print(f"cold first calls, new process, empty numba cache (CPU s): import and numba "
              f"set-up {cold['import']:.2f}; "
              + ", ".join(f"{k} {v:.2f}" for k, v in cold.items() if k != "import")
              + f"; total {total:.2f}")


if __name__ == "__main__":
    main()
