"""Sweeps at scale: the PID example's Kp sweep locally and on a Dask LocalCluster, peak memory
of a 100 000-member keep="final" sweep, and the scaling model of docs/scaling.md.

Run ``python benchmarks/sweep.py`` (``--quick`` for smaller sizes). Sections:

1. Local compiled sweep, 10 000 members of the PID mass-spring-damper (rk4, 1 ms, 10 s):
   ``simulate_batch`` whole call per member (every trace, and ``keep="final"`` in chunks)
   against a hand-written numba ``prange`` loop of the same closed loop in the same run
   (target: <= 0.2 ms per member, within 1.3x of the hand loop).
2. The same sweep on a ``distributed.LocalCluster`` of 2 single-thread worker processes,
   ``keep="final"`` (target: >= 0.8x the local members per second).
3. Peak memory (RSS of a child process) of 100 000 members with ``keep="final"``
   (target: < 1 GB).
4. The scaling model: a task's overhead and a member's cost from 1 and 2, the prediction for
   a 100-node cluster.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))


def _load(path: Path, name: str) -> Any:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


example = _load(ROOT / "examples" / "pid_mass_spring_damper.py", "example_pid_mass_spring_damper")

from blocksim import compile_diagram, grid, simulate_batch  # noqa: E402

T_END, H = 10.0, 1e-3
KP_RANGE = (5.0, 15.0)
TARGET_PER_MEMBER = 0.2e-3
TARGET_HAND_RATIO = 1.3
TARGET_CLUSTER_RATIO = 0.8
TARGET_PEAK = 1e9
#: a Dask scheduler's own cost per task [s] (Dask's documentation: "about 1 ms"), used by the
#: model for clusters larger than the one measured
SCHEDULER_PER_TASK = 1e-3


# the hand-written baseline lives in its own module, imported by that one name wherever this
# file is loaded from, so that numba's disk cache of it (which records the module's name)
# serves every process
sys.path.insert(0, str(HERE))
from sweep_hand import HAND_PARAMS, hand_sweep  # noqa: E402


def best(fn: Any, repeat: int) -> tuple[float, Any]:
    t_best, out = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t_best = min(t_best, time.perf_counter() - t0)
    return t_best, out


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def members(M: int) -> list[dict[str, float]]:
    return grid({"pid.Kp": list(np.linspace(*KP_RANGE, M))})


# ---------------------------------------------------------------- 1. local


def local(M: int = 10_000, T: float = T_END, repeat: int = 2) -> dict[str, Any]:
    """Whole-call times of the local sweep (every trace; keep="final" in chunks), one chunk
    on one thread (a member's cost without parallelism) and the hand prange loop."""
    from blocksim.engine.config import RunConfig
    from blocksim.engine.sweep.chunks import full_chunk

    plan = compile_diagram(example.build(with_scope=False))
    ov = members(M)
    simulate_batch(plan, ov[:2], T, "rk4", dt=H, backend="compiled")  # load the module
    # the one-call batch records the major times only (here 2 points a member), but the run
    # limits estimate every step's row: lift max_memory for it
    t_traces, traces = best(
        lambda: simulate_batch(plan, ov, T, "rk4", dt=H, backend="compiled", max_memory=1e12),
        repeat,
    )
    t_final, final = best(
        lambda: simulate_batch(plan, ov, T, "rk4", dt=H, backend="compiled", keep="final"), repeat
    )
    one = ov[: max(1, M // 20)]
    config = RunConfig(T=T, solver="rk4", dt=H, backend="compiled")
    t_one, _ = best(lambda: full_chunk(plan, one, 0, config, threads=1), repeat)
    kps = np.linspace(*KP_RANGE, M)
    n = round(T / H)
    hand_sweep(kps[:2], HAND_PARAMS, H, 1)  # compile
    t_hand, hand = best(lambda: hand_sweep(kps, HAND_PARAMS, H, n), repeat)
    diff = float(np.max(np.abs(hand[:, 3] - final["pos.y"][:, -1])))
    return dict(
        M=M,
        T=T,
        traces=t_traces,
        final=t_final,
        one_thread=t_one / len(one),
        hand=t_hand,
        diff=diff,
        threads=numba.get_num_threads(),
        run_time=traces.stats.get("run_time", math.nan),
        chunk=final.stats["chunk"],
        nfailed=int(final.stats["nfailed"]),
    )


def local_lines(m: dict[str, Any]) -> list[str]:
    per, per_final, hand = m["traces"] / m["M"], m["final"] / m["M"], m["hand"] / m["M"]
    ok = min(per, per_final) <= TARGET_PER_MEMBER
    ratio = min(per, per_final) / hand
    return [
        f"1. Local compiled sweep, {m['M']} members, rk4 1 ms, {m['T']:g} s, {os.cpu_count()} "
        f"CPUs ({m['threads']} numba threads)",
        f"  simulate_batch, every trace:       {per * 1e3:.3f} ms per member "
        f"({m['M'] / m['traces']:.0f} members/s; the loop itself {m['run_time']:.2f} s)",
        f"  simulate_batch, keep='final':      {per_final * 1e3:.3f} ms per member "
        f"({m['M'] / m['final']:.0f} members/s, chunks of {m['chunk']})",
        f"  one chunk on one thread:           {m['one_thread'] * 1e3:.3f} ms per member",
        f"  hand-written numba prange loop:    {hand * 1e3:.3f} ms per member "
        f"({m['M'] / m['hand']:.0f} members/s); final x agrees to {m['diff']:.1e} m",
        f"  target <= {TARGET_PER_MEMBER * 1e3:g} ms per member: {verdict(ok)}; blocksim / hand "
        f"= {ratio:.2f}x (target <= {TARGET_HAND_RATIO}x): {verdict(ratio <= TARGET_HAND_RATIO)}",
    ]


# ---------------------------------------------------------------- 2. LocalCluster


def cluster(M: int = 10_000, T: float = T_END, workers: int = 2, repeat: int = 2) -> dict[str, Any]:
    """The keep="final" sweep on a LocalCluster of ``workers`` single-thread processes: the
    first run (workers load the compiled module) and the best later one, each later one
    right after a local run of the same sweep (a shared machine's load changes by the
    minute: the ratio compares runs made under the same load)."""
    import distributed

    plan = compile_diagram(example.build(with_scope=False))
    ov = members(M)

    def here() -> Any:
        return simulate_batch(plan, ov, T, "rk4", dt=H, backend="compiled", keep="final")

    here()
    t0 = time.perf_counter()
    with (
        distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as lc,
        distributed.Client(lc) as c,
    ):
        t_start = time.perf_counter() - t0

        def run() -> Any:
            return simulate_batch(
                plan, ov, T, "rk4", dt=H, backend="compiled", keep="final", client=c
            )

        t_first, _ = best(run, 1)
        t_local = t_warm = math.inf
        for _ in range(repeat):
            t_l, local_final = best(here, 1)
            t_c, res = best(run, 1)
            t_local, t_warm = min(t_local, t_l), min(t_warm, t_c)
    same = bool(np.array_equal(res["pos.y"], local_final["pos.y"]))
    return dict(
        M=M,
        T=T,
        workers=workers,
        start=t_start,
        first=t_first,
        warm=t_warm,
        local=t_local,
        threads=os.cpu_count() or 1,
        chunk=res.stats["chunk"],
        chunks=res.stats["chunks"],
        same=same,
    )


def cluster_lines(m: dict[str, Any]) -> list[str]:
    local_rate = m["M"] / m["local"]
    rate = m["M"] / m["warm"]
    ok = rate >= TARGET_CLUSTER_RATIO * local_rate
    return [
        f"2. LocalCluster of {m['workers']} single-thread worker processes, keep='final', "
        f"{m['chunks']} chunks of {m['chunk']} (cluster start {m['start']:.1f} s)",
        f"  first run (workers load the module): {m['first']:.2f} s, "
        f"{m['M'] / m['first']:.0f} members/s",
        f"  warm run:                            {m['warm']:.2f} s, {rate:.0f} members/s; local "
        f"runs between them {local_rate:.0f} members/s",
        f"  cluster / local = {rate / local_rate:.2f}x (target >= {TARGET_CLUSTER_RATIO}x): "
        f"{verdict(ok)}; final states identical to the local run member for member: "
        f"{m['same']}",
    ]


# ---------------------------------------------------------------- 3. peak memory


def _memory_child(M: int) -> None:
    import resource

    plan = compile_diagram(example.build(with_scope=False))
    simulate_batch(plan, members(2), T_END, "rk4", dt=H, backend="compiled", keep="final")
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    t0 = time.perf_counter()
    res = simulate_batch(plan, members(M), T_END, "rk4", dt=H, backend="compiled", keep="final")
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(
        json.dumps(
            dict(
                base=base,
                peak=peak,
                wall=wall,
                chunk=res.stats["chunk"],
                nfailed=int(res.stats["nfailed"]),
                kept=int(res.x.nbytes + sum(a.nbytes for a in res.signals.values())),
            )
        )
    )


def memory(M: int = 100_000) -> dict[str, Any]:
    """Peak RSS of a child process running ``M`` members with keep="final"; the bytes their
    every trace would take, for comparison."""
    from blocksim.engine.config import RunConfig
    from blocksim.engine.sweep.chunks import member_bytes

    out = subprocess.run(
        [sys.executable, __file__, "--memory-child", str(M)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    child = json.loads(out.strip().splitlines()[-1])
    plan = compile_diagram(example.build(with_scope=False))
    config = RunConfig(T=T_END, solver="rk4", dt=H, backend="compiled")
    return dict(
        M=M,
        traces=M * member_bytes(plan, config),
        traces_1ms=M * member_bytes(plan, RunConfig(T=T_END, solver="rk4", dt=H, record_dt=H)),
        **child,
    )


def memory_lines(m: dict[str, Any]) -> list[str]:
    ok = m["peak"] < TARGET_PEAK
    return [
        f"3. {m['M']} members, keep='final' (chunks of {m['chunk']}), in a child process: "
        f"{m['wall']:.1f} s, {m['nfailed']} failed",
        f"  peak RSS {m['peak'] / 1e6:.0f} MB (target < {TARGET_PEAK / 1e9:g} GB): {verdict(ok)}; "
        f"the process before the sweep {m['base'] / 1e6:.0f} MB; kept results "
        f"{m['kept'] / 1e6:.1f} MB",
        f"  every trace at the major times would take {m['traces'] / 1e6:.0f} MB, on a 1 ms "
        f"record grid {m['traces_1ms'] / 1e9:.0f} GB",
    ]


# ---------------------------------------------------------------- 4. scaling model


def model(cm: dict[str, Any], nodes: int = 100, cores: int = 32) -> dict[str, Any]:
    """The model of docs/scaling.md from the measured figures: a member costs ``t_m`` on one
    core (the local run's thread-seconds per member), a task costs ``o`` more (the cluster
    run's thread-seconds beyond its members' cost, per task), the scheduler ``s`` per task;
    W = nodes x cores threads running chunks of c members give
    members/s = min(W c / (o + c t_m), c / s)."""
    t_m = cm["local"] * cm["threads"] / cm["M"]
    W = cm["workers"]
    o = max(0.0, (W * cm["warm"] - cm["M"] * t_m) / cm["chunks"])
    c = cm["chunk"]
    measured = cm["M"] / cm["warm"]
    predicted_here = min(W * c / (o + c * t_m), c / SCHEDULER_PER_TASK)
    big_W = nodes * cores
    chunk_big = 1024
    rate_big = min(big_W * chunk_big / (o + chunk_big * t_m), chunk_big / SCHEDULER_PER_TASK)
    return dict(
        t_m=t_m,
        o=o,
        c=c,
        W=W,
        measured=measured,
        predicted_here=predicted_here,
        nodes=nodes,
        cores=cores,
        chunk_big=chunk_big,
        rate_big=rate_big,
        million=1e6 / rate_big,
    )


def model_lines(m: dict[str, Any]) -> list[str]:
    return [
        "4. Scaling model (docs/scaling.md): members/s = min(W c / (o + c t_m), c / s)",
        f"  measured: t_m = {m['t_m'] * 1e3:.3f} ms per member and core, task overhead "
        f"o = {m['o'] * 1e3:.1f} ms, scheduler s = {SCHEDULER_PER_TASK * 1e3:g} ms per task "
        f"(Dask's figure)",
        f"  this cluster (W = {m['W']}, c = {m['c']}): model {m['predicted_here']:.0f} "
        f"members/s, measured {m['measured']:.0f}",
        f"  {m['nodes']} nodes x {m['cores']} cores, chunks of {m['chunk_big']}: "
        f"{m['rate_big']:.3g} members/s; a million members in {m['million']:.1f} s",
    ]


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1/10 of the members")
    ap.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.memory_child:
        _memory_child(args.memory_child)
        return
    scale = 10 if args.quick else 1
    print(
        f"blocksim sweep benchmark; {os.cpu_count()} CPUs, load average "
        f"{' '.join(f'{v:.2f}' for v in os.getloadavg())} at start"
    )
    lm = local(10_000 // scale)
    print("\n".join(local_lines(lm)), flush=True)
    cm = cluster(10_000 // scale)
    print("\n".join(cluster_lines(cm)), flush=True)
    print("\n".join(memory_lines(memory(100_000 // scale))), flush=True)
    print("\n".join(model_lines(model(cm))))
    print(f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())} at the end")


if __name__ == "__main__":
    main()
