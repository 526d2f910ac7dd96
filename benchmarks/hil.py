"""Hardware-in-the-loop timings against the emulators (each in its own process, like a device).

Measured:

* the round-trip latency of one Arbotix exchange through pyserial and a pseudo-terminal: a
  ``getpos`` of one servo (READ_DATA and its status packet) and a ``setpos`` of one servo
  (WRITE_DATA and its status packet); median and 99th percentile;
* the latency of one synchronous CoppeliaSim step (``sim.step`` through the ZMQ remote-API
  client) against the emulated server; median and 99th percentile;
* the highest control rate a HIL diagram sustains at ``realtime=1.0`` with no overrun (neither
  the engine's pacing nor the blocks' own check reports one): the 5-servo Arbotix diagram
  (ArbotixArm reading 5 servos and sending a SYNC_WRITE per hit) and the 6-joint V-REP diagram
  (VrepSimulation stepping + VrepArm reading 6 joints and writing their targets, a constant
  command: 1 ``sim.step`` + 6 ``sim.getJointPosition`` per hit, the targets sent at the first
  hit only), each tried at increasing rates; the Arbotix diagram also with ``sync_read=True``
  (one SYNC_READ per hit, the ArbotiX ROS firmware's extension, instead of 5 READ_DATA); the
  V-REP diagram also with a command that changes at every hit (a jtraj over the whole run: 6
  ``sim.setJointTargetPosition`` more per hit). Each V-REP row gives the remote calls per hit
  (every call of the run, start and end included, over the hits).

Targets (issue 16): the Arbotix diagram at 50 Hz and the V-REP diagram at 100 Hz run 10 s at
``realtime=1.0`` with zero overruns. These machines are shared (2 cores): the load at the time
of the run is printed with the results.

Run ``python benchmarks/hil.py`` (``--quick`` for 2 s runs instead of 10 s; ``--vrep-only``
for the V-REP rows alone).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator

import numpy as np

from blocksim import Diagram, simulate
from blocksim.blocks import Constant
from blocksim.blocks.arm import JTraj
from blocksim.blocks.hardware import ArbotixArm, VrepArm, VrepSimulation
from blocksim.engine.block import Block
from blocksim.hardware import Arbotix
from blocksim.hardware.coppeliasim import CoppeliaSim


@contextlib.contextmanager
def emulator(kind: str, *args: str) -> Iterator[str]:
    """Run ``blocksim hw <kind>`` in a child process; yield the device path / address."""
    p = subprocess.Popen(
        [sys.executable, "-m", "blocksim.cli", "hw", kind, *args], stdout=subprocess.PIPE, text=True
    )
    try:
        yield (p.stdout.readline() if p.stdout else "").strip()
    finally:
        p.terminate()
        p.wait(timeout=10)


def stats(samples: list[float]) -> dict[str, float]:
    a = np.asarray(samples)
    return {"median": float(np.median(a)), "p99": float(np.percentile(a, 99)), "n": a.size}


def arbotix_latency(n: int = 500) -> dict[str, dict[str, float]]:
    """getpos / setpos of one servo, timed one by one [s]."""
    with emulator("arbotix-emulator", "--nservos", "5") as path:
        with Arbotix(path, nservos=5, timeout=0.5) as arb:
            get, put = [], []
            for k in range(n):
                t0 = time.perf_counter()
                arb.getpos(1)
                t1 = time.perf_counter()
                arb.setpos(0.1 * np.sin(k / 10), id=1)
                t2 = time.perf_counter()
                get.append(t1 - t0)
                put.append(t2 - t1)
    return {"getpos": stats(get), "setpos": stats(put)}


def vrep_step_latency(n: int = 500) -> dict[str, float]:
    """One synchronous ``sim.step`` [s]."""
    with emulator("vrep-emulator", "--port", "0", "--dt", "0.01") as address:
        with CoppeliaSim(port=int(address.rsplit(":", 1)[1])) as v:
            v.setstepping(True)
            v.simstart()
            steps = []
            for _ in range(n):
                t0 = time.perf_counter()
                v.step()
                steps.append(time.perf_counter() - t0)
            v.simstop()
    return stats(steps)


class CpuTime(Block):
    """This process's CPU time [s] at each hit of a clock: what the loop itself costs per hit,
    without the run's preparation (kernels loaded or compiled before the first hit)."""

    outputs = ("s",)

    def __init__(self, period: float):
        super().__init__()
        self.clock = period

    def output(self, t: float, x: np.ndarray, u: object) -> tuple[float]:
        return (time.process_time(),)


def arbotix_diagram(port: str, rate: float, sync_read: bool = False) -> Diagram:
    d = Diagram("arbotix_rate")
    d.add(CpuTime(1.0 / rate), name="cpu")
    traj = d.add(JTraj(q0=np.zeros(5), qf=np.full(5, 0.5), T=1.0), name="traj")
    arm = d.add(
        ArbotixArm(port=port, nservos=5, clock=1.0 / rate, timeout=0.1, sync_read=sync_read),
        name="arm",
    )
    d.connect(traj["q"], arm["q_cmd"])
    return d


def vrep_diagram(port: int, rate: float, moving_for: float | None = None) -> Diagram:
    """The 6-joint V-REP diagram; with ``moving_for`` [s] the command is a jtraj of that length
    (it changes at every hit), else a constant."""
    d = Diagram("vrep_rate")
    d.add(VrepSimulation(host="127.0.0.1", port=port, clock=1.0 / rate), name="sim")
    d.add(CpuTime(1.0 / rate), name="cpu")
    if moving_for is None:
        c = d.add(Constant(np.full(6, 0.5)), name="cmd")
    else:
        c = d.add(JTraj(q0=np.zeros(6), qf=np.full(6, 0.5), T=moving_for), name="cmd")["q"]
    arm = d.add(VrepArm(host="127.0.0.1", port=port, clock=1.0 / rate), name="arm")
    d.connect(c, arm)
    return d


def realtime_run(d: Diagram, T: float) -> dict[str, float]:
    """Run ``d`` at realtime=1.0; overruns (engine pacing + blocks), worst lateness [s], and
    what tells starvation from our own cost: the worst device exchange [s], this process's
    CPU time per hit [s] (from the first hit to the last, read by the diagram's ``cpu``
    block) and the load average during the run."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        r = simulate(d, T, realtime=1.0, overrun="warn")
    cpu = np.asarray(r["cpu.s"])
    rt = r.stats["realtime"]
    engine = sum(c["overruns"] for c in rt["clocks"].values())
    blocks = sum(h["overruns"] for h in r.stats["hardware"].values())
    hits = max(c["hits"] for c in rt["clocks"].values())
    calls = sum(h.get("calls", 0) for h in r.stats["hardware"].values())
    return {
        "calls_per_hit": calls / max(hits, 1),
        "overruns": engine + blocks,
        "engine_overruns": engine,
        "block_overruns": blocks,
        "max_lateness": rt["max_lateness"],
        "hits": hits,
        "max_exchange": max(h["max_exchange"] for h in r.stats["hardware"].values()),
        "cpu_per_hit": float(cpu[-1] - cpu[0]) / max(len(cpu) - 1, 1),
        "load": os.getloadavg()[0],
    }


def max_rate(kind: str, rates: list[float], T: float) -> dict[float, dict[str, float]]:
    """Each rate [Hz] of ``rates`` at realtime=1.0 for ``T`` s, until one overruns."""
    out: dict[float, dict[str, float]] = {}
    if kind.startswith("arbotix"):
        ctx = emulator("arbotix-emulator", "--nservos", "5")
    else:
        ctx = emulator("vrep-emulator", "--port", "0", "--dt", "0.01")
    with ctx as where:
        for rate in rates:
            if kind.startswith("arbotix"):
                d = arbotix_diagram(where, rate, sync_read=kind == "arbotix-sync")
            else:
                moving = T + 1.0 if kind == "vrep-moving" else None
                d = vrep_diagram(int(where.rsplit(":", 1)[1]), rate, moving)
            out[rate] = m = realtime_run(d, T)
            if m["overruns"]:
                break
    return out


def report(
    lat: dict | None,
    step: dict,
    arb_rates: dict | None,
    vrep_rates: dict,
    T: float,
    sync_rates: dict | None = None,
    moving_rates: dict | None = None,
) -> list[str]:
    ms = 1e3
    lines = [f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", ""]
    if lat is not None:
        lines += [
            "round trips                     median      p99",
            f"Arbotix getpos (1 servo)     {lat['getpos']['median'] * ms:7.3f} ms "
            f"{lat['getpos']['p99'] * ms:7.3f} ms",
            f"Arbotix setpos (1 servo)     {lat['setpos']['median'] * ms:7.3f} ms "
            f"{lat['setpos']['p99'] * ms:7.3f} ms",
        ]
    lines += [
        f"CoppeliaSim sim.step         {step['median'] * ms:7.3f} ms {step['p99'] * ms:7.3f} ms",
        "",
        f"real-time runs of {T:g} s (overruns: engine pacing + blocks' own checks)",
    ]
    best = {}
    rows = [("Arbotix 5 servos", arb_rates), ("V-REP 6 joints", vrep_rates)]
    if sync_rates is not None:
        rows.insert(1, ("Arbotix SYNC_READ", sync_rates))
    if moving_rates is not None:
        rows.append(("V-REP moving cmd", moving_rates))
    for name, rates in rows:
        if rates is None:
            continue
        for rate, m in rates.items():
            calls = f", {m['calls_per_hit']:.2f} calls/hit" if name.startswith("V-REP") else ""
            lines.append(
                f"{name:18s} {rate:6.0f} Hz: {m['overruns']:4d} overruns "
                f"({m['engine_overruns']} engine, {m['block_overruns']} blocks) in "
                f"{m['hits']} hits, worst lateness {m['max_lateness'] * ms:6.1f} ms, worst "
                f"exchange {m['max_exchange'] * ms:5.1f} ms, CPU {m['cpu_per_hit'] * ms:4.2f} "
                f"ms/hit{calls}, load {m['load']:.1f}"
            )
        ok = [r for r, m in rates.items() if m["overruns"] == 0]
        best[name] = max(ok) if ok else None
        lines.append(
            f"{name:18s} highest rate without overrun: "
            f"{'none' if best[name] is None else f'{best[name]:.0f} Hz'}"
        )
    lines.append("")
    for name, target in (("Arbotix 5 servos", 50.0), ("V-REP 6 joints", 100.0)):
        rates = arb_rates if name.startswith("Arbotix") else vrep_rates
        if rates is None:
            continue
        m = rates.get(target)
        met = m is not None and m["overruns"] == 0
        lines.append(
            f"target: {name} at {target:.0f} Hz, {T:g} s, zero overruns: "
            f"{'met' if met else 'MISSED'}"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2 s real-time runs instead of 10 s")
    ap.add_argument("-n", type=int, default=500, help="exchanges per latency measurement")
    ap.add_argument("--vrep-only", action="store_true", help="only the V-REP measurements")
    args = ap.parse_args(argv)
    T = 2.0 if args.quick else 10.0
    lat = arb = sync = None
    if not args.vrep_only:
        lat = arbotix_latency(args.n)
    step = vrep_step_latency(args.n)
    if not args.vrep_only:
        arb = max_rate("arbotix", [25.0, 50.0, 100.0, 200.0], T)
        sync = max_rate("arbotix-sync", [25.0, 50.0, 100.0, 200.0], T)
    vrep = max_rate("vrep", [50.0, 100.0, 200.0, 400.0], T)
    moving = max_rate("vrep-moving", [50.0, 100.0, 200.0, 400.0], T)
    print("\n".join(report(lat, step, arb, vrep, T, sync, moving)))


if __name__ == "__main__":
    main()
