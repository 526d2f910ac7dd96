"""Arm dynamics per call from Python: blocksim against Pinocchio on the Puma 560.

Prints, in one run on the same machine state:

* the call overhead numba adds (µs): an empty kernel with 0, 1, 4 and 7 array arguments, the
  boxing of a returned (6,) array, ``numpy.empty(6)``; this is what the one-configuration
  fast paths of ``rne``, ``inertia``, ``accel`` and ``jacob0`` avoid
  (:mod:`blocksim.robotics.arm.fast_calls`: one packed parameter vector, output allocated by
  the caller, explicit signatures);
* per call (best CPU time of several ``timeit`` repeats, µs, each call's variants and
  Pinocchio timed in turn within every repeat): the ``SerialLink`` methods,
  the same with a preallocated ``out=``, the general kernels called directly (``rne_nb``,
  ``inertia_nb``, ``accel_nb``, ``jacobian``: the per-call path before the fast paths, less
  the method's own argument handling), and Pinocchio's ``rnea``, ``crba``, ``aba`` and
  ``computeFrameJacobian`` (LOCAL_WORLD_ALIGNED) on the same model
  (:func:`blocksim.robotics.arm.pinocchio_bridge.to_pinocchio`), with the ratios and the
  issue's 1.2x target;
* the largest difference between the two libraries' values (expected below 1e-12).

The model is the zoo's Puma 560 without joint friction (Pinocchio's algorithms have none);
rotor inertias are Pinocchio's armature. Run ``python benchmarks/arm_dynamics.py [--repeat 7]``
(Pinocchio: ``pip install pin``). The machine may be shared: compare ratios from one run.
"""

from __future__ import annotations

import argparse
import sys
import time
import timeit
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from blocksim.robotics.arm.dynamics import accel_nb, inertia_nb, rne_nb  # noqa: E402
from blocksim.robotics.arm.kinematics import jacobian  # noqa: E402
from blocksim.robotics.models import puma560  # noqa: E402

Q = np.array([0.1, 0.7, -1.2, 0.3, 0.4, 0.5])
QD = np.array([0.2, -0.1, 0.3, 0.4, -0.5, 0.6])
QDD = np.array([0.5, 0.4, -0.3, 0.2, 0.1, -0.2])
TARGET = 1.2  # the bound on blocksim / Pinocchio per call
CALLS = ("rne", "inertia", "accel", "jacob0")
PIN_NAMES = {"rne": "rnea", "inertia": "crba", "accel": "aba", "jacob0": "frame Jacobian"}


def per_call_us(fn, repeat: int, number: int | None = None) -> float:
    """Best CPU time per call (µs) over ``repeat`` runs of ``number`` calls (auto-ranged when
    None)."""
    fn()
    timer = timeit.Timer(fn, timer=time.process_time)
    if number is None:
        number, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e6


@numba.njit(cache=False)  # compiled per run: this file runs under several module names
def _noop0():
    return None


@numba.njit(cache=False)  # compiled per run: this file runs under several module names
def _noop1(a):
    return None


@numba.njit(cache=False)  # compiled per run: this file runs under several module names
def _noop4(a, b, c, d):
    return None


@numba.njit(cache=False)  # compiled per run: this file runs under several module names
def _noop7(a, b, c, d, e, f, g):
    return None


@numba.njit(cache=False)  # compiled per run: this file runs under several module names
def _new6(a):
    return np.empty(6)


def overhead(repeat: int, number: int | None = None) -> dict[str, float]:
    """What a call from Python costs besides the arithmetic (µs)."""
    v = Q.copy()
    return {
        "empty kernel, no argument": per_call_us(_noop0, repeat, number),
        "empty kernel, 1 array": per_call_us(lambda: _noop1(v), repeat, number),
        "empty kernel, 4 arrays": per_call_us(lambda: _noop4(v, v, v, v), repeat, number),
        "empty kernel, 7 arrays": per_call_us(lambda: _noop7(v, v, v, v, v, v, v), repeat, number),
        "kernel returning a new (6,) array": per_call_us(lambda: _new6(v), repeat, number),
        "numpy.empty(6)": per_call_us(lambda: np.empty(6), repeat, number),
    }


def blocksim_calls(robot) -> dict[str, dict]:
    """The method, the method with ``out=``, and the general kernel, per call."""
    a = robot.arrays
    kin, dyn, g, f = robot.kin, a.dyn, a.gravity, np.zeros(6)
    o6, o66 = np.empty(6), np.empty((6, 6))
    row = Q.reshape(1, 6)
    return {
        "rne": {
            "method": lambda: robot.rne(Q, QD, QDD),
            "out=": lambda: robot.rne(Q, QD, QDD, out=o6),
            "general kernel": lambda: rne_nb(kin, dyn, Q, QD, QDD, g, f),
        },
        "inertia": {
            "method": lambda: robot.inertia(Q),
            "out=": lambda: robot.inertia(Q, out=o66),
            "general kernel": lambda: inertia_nb(kin, dyn, row),
        },
        "accel": {
            "method": lambda: robot.accel(Q, QD, QDD),
            "out=": lambda: robot.accel(Q, QD, QDD, out=o6),
            "general kernel": lambda: accel_nb(kin, dyn, Q, QD, QDD, g, f),
        },
        "jacob0": {
            "method": lambda: robot.jacob0(Q),
            "out=": lambda: robot.jacob0(Q, out=o66),
            "general kernel": lambda: jacobian(kin, Q, False),
        },
    }


def pinocchio_calls(robot):
    """Pinocchio's calls on the same model, and its values; None without Pinocchio."""
    try:
        import pinocchio as pin
    except ImportError:
        return None
    from blocksim.robotics.arm.pinocchio_bridge import to_pinocchio

    model, data, tool = to_pinocchio(robot)
    frame = pin.LOCAL_WORLD_ALIGNED
    calls = {
        "rne": lambda: pin.rnea(model, data, Q, QD, QDD),
        "inertia": lambda: pin.crba(model, data, Q),
        "accel": lambda: pin.aba(model, data, Q, QD, QDD),
        "jacob0": lambda: pin.computeFrameJacobian(model, data, Q, tool, frame),
    }
    M = np.array(pin.crba(model, data, Q))
    values = {
        "rne": np.array(calls["rne"]()),
        "inertia": np.triu(M) + np.triu(M, 1).T,
        "accel": np.array(calls["accel"]()),
        "jacob0": np.array(calls["jacob0"]()),
    }
    return calls, values, pin.__version__


def interleaved_us(fns: dict, repeat: int, number: int | None = None) -> dict[str, float]:
    """Best CPU time per call (µs) of each function, the functions timed in turn within each
    repeat (on a shared machine the load drifts: timing them side by side keeps the ratios
    fair)."""
    timers, numbers = {}, {}
    for k, f in fns.items():
        f()
        timers[k] = timeit.Timer(f, timer=time.process_time)
        numbers[k] = number if number is not None else timers[k].autorange()[0]
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for k, t in timers.items():
            best[k] = min(best[k], t.timeit(numbers[k]) / numbers[k] * 1e6)
    return best


def measure(repeat: int = 7, number: int | None = None) -> dict:
    """Every number of the report."""
    robot = puma560().nofriction("all")
    out: dict = {"overhead": overhead(repeat, number), "blocksim": {}, "pinocchio": None}
    pin = pinocchio_calls(robot)
    for name, variants in blocksim_calls(robot).items():
        fns = dict(variants)
        if pin is not None:
            fns["pinocchio"] = pin[0][name]
        us = interleaved_us(fns, repeat, number)
        if pin is not None:
            out.setdefault("_pin_us", {})[name] = us.pop("pinocchio")
        out["blocksim"][name] = us
    if pin is not None:
        _, values, version = pin
        mine = {
            "rne": robot.rne(Q, QD, QDD),
            "inertia": robot.inertia(Q),
            "accel": robot.accel(Q, QD, QDD),
            "jacob0": robot.jacob0(Q),
        }
        out["pinocchio"] = {
            "version": version,
            "us": out.pop("_pin_us"),
            "max_diff": {k: float(np.abs(mine[k] - values[k]).max()) for k in CALLS},
        }
    return out


def report(m: dict) -> list[str]:
    """The printed table."""
    lines = ["numba call overhead from Python (µs, CPU time):"]
    lines += [f"  {k:36s} {v:6.3f}" for k, v in m["overhead"].items()]
    pin = m["pinocchio"]
    lines.append("Puma 560 (no friction), per call (µs):")
    head = f"  {'call':8s} {'method':>8s} {'out=':>8s} {'general':>8s}"
    if pin is not None:
        head += f"  {'Pinocchio':>14s} {'method/pin':>10s} {'out=/pin':>9s}  target {TARGET}x"
    lines.append(head)
    for name in CALLS:
        b = m["blocksim"][name]
        line = f"  {name:8s} {b['method']:8.3f} {b['out=']:8.3f} {b['general kernel']:8.3f}"
        if pin is not None:
            p = pin["us"][name]
            r1, r2 = b["method"] / p, b["out="] / p
            verdict = "met" if r1 <= TARGET else ("met with out=" if r2 <= TARGET else "missed")
            line += f"  {PIN_NAMES[name]:>8s} {p:5.3f} {r1:10.2f} {r2:9.2f}  {verdict}"
        lines.append(line)
    lines.append(
        "  method: robot.rne(q, qd, qdd) etc.; out=: the same writing into a "
        "preallocated array; general: rne_nb/inertia_nb/accel_nb/jacobian called "
        "directly (the path before the fast entry points, without argument handling)"
    )
    if pin is None:
        lines.append("  Pinocchio is not installed (pip install pin): no side-by-side ratios")
    else:
        diffs = ", ".join(f"{k} {v:.1e}" for k, v in pin["max_diff"].items())
        lines.append(f"  Pinocchio {pin['version']}; max |blocksim - Pinocchio|: {diffs}")
    return lines


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timeit repeats (best of)")
    args = parser.parse_args(argv)
    m = measure(args.repeat)
    print("\n".join(report(m)))
    return m


if __name__ == "__main__":
    main()
