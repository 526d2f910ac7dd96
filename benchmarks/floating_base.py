"""Floating-base dynamics, measured: forward dynamics of a 7-joint free-floating arm per call
from Python, beside Pinocchio's ``aba`` on the same URDF, and a 10 s simulation of the
free-floating reach diagram interpreted and compiled.

The robot is ``diagrams/urdf/spacecraft_panda.urdf`` (the Franka Panda URDF on a 60 kg
spacecraft; 7 joints, 6 base coordinates). Printed:

* µs per call of ``FloatingBase.forward_dynamics`` (the Python API, allocating its result,
  and with ``out=``), of the one-call numba entry point it calls
  (:mod:`blocksim.robotics.floating.fast_fd`), of the general kernel
  (:func:`blocksim.robotics.floating.kernels.forward_dynamics`, which the blocks use) and of
  ``pinocchio.aba`` with a free-flyer root when the ``pin`` package is importable (else it
  says so), timed interleaved in the same run (best of ``--repeat`` rounds of ~0.05 s
  timings), with the ratio to the target "within 2x of Pinocchio's aba";
* the wall time of ``examples/floating_arm_reach.py`` simulated for ``--T`` seconds (default
  10) with RK45 (rtol 1e-6) on the interpreted back-end and on the compiled back-end (first run
  with its compile time, then a second run), and the ratio.

Run: ``python benchmarks/floating_base.py [--repeat 15] [--T 10]``. The machine is shared and
noisy: compare best-of numbers, rerun when another job is busy.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
import timeit
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "diagrams" / "urdf" / "spacecraft_panda.urdf"


def fd_per_call(repeat: int = 15) -> dict:
    """µs per forward-dynamics call: blocksim API (allocating, and with ``out=``), its
    one-call kernel, the general kernel, Pinocchio aba (or None); the largest difference of
    the joint accelerations between blocksim and Pinocchio."""
    from blocksim.robotics.floating import FloatingBase
    from blocksim.robotics.floating import kernels as K
    from blocksim.robotics.floating.fast_fd import fd_kernel
    from blocksim.robotics.floating.state import quat_to_rot
    from blocksim.robotics.urdf import read_urdf

    tree = read_urdf(URDF)
    robot = FloatingBase(tree)
    rng = np.random.default_rng(1)
    quat = rng.normal(size=4)
    quat /= np.linalg.norm(quat)
    R0 = quat_to_rot(quat)
    r0, t0 = rng.normal(size=3), rng.normal(size=6)
    q, qd, tau = rng.uniform(-1, 1, 7), rng.normal(size=7), rng.normal(size=7)
    tau0, wF, g = np.zeros(6), np.zeros((tree.n + 1, 6)), np.zeros(3)
    out = np.empty(6 + tree.nq)
    fd, P = fd_kernel(), robot._fd
    calls = {
        "api_us": lambda: robot.forward_dynamics(R0, r0, t0, q, qd, None, tau),
        "api_out_us": lambda: robot.forward_dynamics(R0, r0, t0, q, qd, None, tau, out=out),
        "kernel_us": lambda: fd(P, R0, r0, t0, q, qd, tau0, tau, wF, False, out),
        "general_us": lambda: K.forward_dynamics(
            robot.mdl, R0, r0, t0, q, qd, tau0, tau, wF, g, False
        ),
    }
    try:
        import pinocchio as pin
    except ImportError:
        pin = None
    if pin is not None:
        model = pin.buildModelFromUrdf(str(URDF), pin.JointModelFreeFlyer())
        model.gravity.linear[:] = 0.0
        data = model.createData()
        c = R0 @ tree.base.com
        qp = np.concatenate([r0 - c, quat[1:], quat[:1], q])  # origin, quaternion x y z w, joints
        omega_l = R0.T @ t0[:3]
        v_origin = t0[3:] - np.cross(t0[:3], c)
        vp = np.concatenate([R0.T @ v_origin, omega_l, qd])
        taup = np.concatenate([np.zeros(6), tau])
        calls["pin_us"] = lambda: pin.aba(model, data, qp, vp, taup)
    timers = {}
    for k, f in calls.items():
        f()  # compile / warm up
        timer = timeit.Timer(f)
        timers[k] = (timer, max(1, timer.autorange()[0] // 4))  # calls per timing: ~0.05 s
    # interleaved: each round times every call once (short timings), the best round counts:
    # a load that comes and goes then hits both sides alike
    best = {k: float("inf") for k in calls}
    for _ in range(repeat):
        for k, (timer, number) in timers.items():
            best[k] = min(best[k], timer.timeit(number) / number * 1e6)
    out = dict(best)
    out.setdefault("pin_us", None)
    out["pin_diff"] = None
    if pin is not None:
        a = pin.aba(model, data, qp, vp, taup)
        _, qdd = robot.forward_dynamics(R0, r0, t0, q, qd, None, tau)
        out["pin_diff"] = float(np.abs(a[6:] - qdd).max())
    return out


def _example():
    name = "floating_arm_reach"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def simulation(T: float = 10.0, compiled: bool = True) -> dict:
    """Wall times (s) of the reach diagram over ``T`` s: interpreted, compiled first run
    (compile included) and second run; the largest difference of the joint angles."""
    from blocksim import simulate

    build = _example().build
    opts = dict(solver="RK45", rtol=1e-6, atol=1e-9)
    t = time.perf_counter()
    a = simulate(build(with_scope=False), T, **opts)
    out = {"interpreted_s": time.perf_counter() - t, "nfev": a.stats.get("nfev")}
    if compiled:
        d = build(with_scope=False)
        t = time.perf_counter()
        simulate(d, T, backend="compiled", **opts)
        out["compiled_first_s"] = time.perf_counter() - t
        t = time.perf_counter()
        b = simulate(d, T, backend="compiled", **opts)
        out["compiled_s"] = time.perf_counter() - t
        out["q_diff"] = float(np.abs(a["plant.q"][-1] - b["plant.q"][-1]).max())
    return out


def report(fd: dict, sim: dict | None) -> str:
    """The measurements as text, side by side."""
    rows = [
        "forward dynamics, 7-joint free-floating arm (spacecraft Panda URDF), per call:",
        f"  blocksim FloatingBase.forward_dynamics         {fd['api_us']:8.2f} us",
        f"  blocksim FloatingBase.forward_dynamics(out=)   {fd['api_out_us']:8.2f} us",
        f"  blocksim one-call kernel (fast_fd, numba)      {fd['kernel_us']:8.2f} us",
        f"  blocksim general kernel (kernels, numba)       {fd['general_us']:8.2f} us",
    ]
    if fd["pin_us"] is None:
        rows.append("  pinocchio aba                                  (pin not installed)")
    else:
        ratio = fd["api_us"] / fd["pin_us"]
        rows += [
            f"  pinocchio aba (free flyer)                     {fd['pin_us']:8.2f} us",
            f"  ratio blocksim API / pinocchio: {ratio:.2f} (target <= 2: "
            f"{'met' if ratio <= 2 else 'missed'}; with out= "
            f"{fd['api_out_us'] / fd['pin_us']:.2f}); max |qdd difference| "
            f"{fd['pin_diff']:.1e}",
        ]
    if sim is not None:
        rows += [
            "simulation of examples/floating_arm_reach.py (RK45, rtol 1e-6):",
            f"  interpreted                {sim['interpreted_s']:8.2f} s "
            f"({sim['nfev']} derivative evaluations)",
        ]
        if "compiled_s" in sim:
            rows += [
                f"  compiled, first run        {sim['compiled_first_s']:8.2f} s (compile included)",
                f"  compiled                   {sim['compiled_s']:8.2f} s "
                f"(interpreted / compiled = "
                f"{sim['interpreted_s'] / sim['compiled_s']:.1f}x; "
                f"max |q difference| {sim['q_diff']:.1e})",
            ]
    return "\n".join(rows)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--T", type=float, default=10.0)
    args = p.parse_args(argv)
    print(report(fd_per_call(args.repeat), simulation(args.T)))


if __name__ == "__main__":
    main()
