"""The compiled back-end against the targets of issue 12, measured side by side in one run.

Rows (run times are ``stats["wall_time"]``, the run itself, best of several, warm caches):

1. PID example (``examples/pid_mass_spring_damper.py``), rk4, dt = 1 ms, 10 s,
   ``backend="compiled"`` and nothing else, vs the same closed loop hand-written as one numba
   RK4 loop with every gain a run-time argument, recording t, the state and the 9 signals at
   every step as blocksim does. Target <= 1.3x.
2. Puma 560 computed torque, RK45 (``benchmarks/puma_computed_torque.py``): compiled vs
   interpreted (target >= 40x) and vs a hand-written ``solve_ivp`` (target >= 5x).
3. A JSON diagram in a new process, warm caches: the whole process (``import blocksim.io``,
   load, ``simulate(..., backend="compiled")``), timed from outside. Target <= 1.0 s. Also the
   interpreter alone, ``import blocksim`` alone, numba's own floor (``import numba`` and one
   cached njit function loaded in a new process, with Python's exit and with the heap frozen
   at exit as blocksim does), and the child's own split (import / load / compile_load / run).
   The children run with bytecode caches on (``PYTHONDONTWRITEBYTECODE`` removed).
4. New diagram, warm kernel caches: compile time of chains of 10, 30, 100, 300 blocks, each
   in a new process with a fresh ``BLOCKSIM_CACHE_DIR`` (so its generated module is new while
   numba's kernel caches stay warm), split into kernels / diagram / loop / load. Target <= 3 s
   for 30 blocks, growing at most linearly (t(300) <= 10 t(30)). A size projected to take the
   section past ``--compile-budget`` seconds (default 150) is skipped unless ``--full``.
5. The discrete 1 kHz PID compiled, and the per-member cost of a 1000-member Kp sweep
   (``simulate_batch(..., backend="compiled")``; target <= 0.2 ms per member).

The first compiled call of each diagram in this process prints its compile stats (cold or
cached). ``--cold`` adds a simulated fresh installation (new process, empty numba and blocksim
caches: the first compiled run of the PID diagram file; takes a minute or more).

Run: ``python benchmarks/compiled.py [--quick] [--cold] [--full] [--only SECTION ...]`` (sections
pid, puma, new-process, compile, discrete, sweep, cold). The machine may be
shared: compare ratios measured in the same run, and look at the load printed at the top.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent


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


example = _load(ROOT / "examples" / "pid_mass_spring_damper.py", "example_pid_mass_spring_damper")
discrete_example = _load(ROOT / "examples" / "discrete_pid_mass_spring_damper.py",
                         "example_discrete_pid_mass_spring_damper")
puma = _load(HERE / "puma_computed_torque.py", "bench_puma_computed_torque")

from blocksim import Diagram, compile_diagram, grid, simulate, simulate_batch  # noqa: E402
from blocksim.blocks import Gain, Integrator, Sine, Sum  # noqa: E402

T_END, H = 10.0, 1e-3
#: run-time parameters of the hand-written loop: reference, Kp, Ki, Kd, N, c, k, m
PID_PARAMS = np.array([1.0, example.KP, example.KI, example.KD, example.N, example.DAMPING,
                       example.STIFFNESS, example.MASS])
NSIG = 9  # signals of the PID diagram (without its scope)

TARGET_PID = 1.3
TARGET_NEW_PROCESS = 1.0
TARGET_COMPILE_30 = 3.0
TARGET_PER_MEMBER = 0.2e-3
COMPILE_SIZES = (10, 30, 100, 300)
#: the sections, in the order they run (``--only NAME`` runs some of them)
SECTIONS = ("pid", "puma", "new-process", "compile", "discrete", "sweep", "cold")


# ---------------------------------------------------------------- the hand-written baseline

@numba.njit  # not cached: this file is imported under several module names
def _pid_rhs(y, out, p, sig, record):
    """The flattened closed loop: states (integral, derivative filter, v, x) in blocksim's
    order; every gain from ``p``; the 9 signals into ``sig`` when ``record``."""
    ref, kp, ki, kd, nn, c, k, m = p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]
    xi, z, v, x = y[0], y[1], y[2], y[3]
    e = ref - x
    u = kp * e + ki * xi + kd * nn * (e - z)
    fd, fk = c * v, k * x
    f = u - fd - fk
    a = f / m
    out[0] = e
    out[1] = nn * (e - z)
    out[2] = a
    out[3] = v
    if record:
        sig[0], sig[1], sig[2], sig[3], sig[4] = ref, e, u, f, a
        sig[5], sig[6], sig[7], sig[8] = v, x, fd, fk


@numba.njit  # not cached: this file is imported under several module names
def hand_rk4(h, n, p):
    """The hand-written baseline: RK4 over the flattened closed loop with run-time parameters
    ``p`` (:data:`PID_PARAMS` layout), recording t, the state and the 9 signals at every step
    (as blocksim does). Returns ``(t, x, signals)`` of shapes (n+1,), (n+1, 4), (n+1, 9)."""
    y = np.zeros(4)
    k1, k2, k3, k4, tmp = np.empty(4), np.empty(4), np.empty(4), np.empty(4), np.empty(4)
    t_log = np.empty(n + 1)
    x_log = np.empty((n + 1, 4))
    s_log = np.empty((n + 1, NSIG))
    for i in range(n):
        _pid_rhs(y, k1, p, s_log[i], True)
        t_log[i] = i * h
        x_log[i] = y
        for q in range(4):
            tmp[q] = y[q] + 0.5 * h * k1[q]
        _pid_rhs(tmp, k2, p, s_log[i], False)
        for q in range(4):
            tmp[q] = y[q] + 0.5 * h * k2[q]
        _pid_rhs(tmp, k3, p, s_log[i], False)
        for q in range(4):
            tmp[q] = y[q] + h * k3[q]
        _pid_rhs(tmp, k4, p, s_log[i], False)
        for q in range(4):
            y[q] += h / 6 * (k1[q] + 2 * k2[q] + 2 * k3[q] + k4[q])
    _pid_rhs(y, k1, p, s_log[n], True)
    t_log[n] = n * h
    x_log[n] = y
    return t_log, x_log, s_log


# ---------------------------------------------------------------- helpers

def best(fn, repeat=5):
    """(best wall-clock time of ``repeat`` calls of ``fn``, the last result)."""
    return puma.best(fn, repeat)


def best_run(fn, repeat=5):
    """(best ``stats["wall_time"]`` of ``repeat`` simulations, the last result)."""
    return puma.best_run(fn, repeat)


def verdict(ok: bool) -> str:
    return "target met" if ok else "target MISSED"


def compile_note(stats: dict[str, Any]) -> str:
    """The compile stats of a first compiled call, in one phrase."""
    return (f"first call: compile {stats['compile_time']:.2f} s ({stats['compile_cache']}; "
            f"kernels {stats['compile_kernels']:.2f} / diagram {stats['compile_diagram']:.2f} / "
            f"loop {stats['compile_loop']:.2f} / load {stats['compile_load']:.2f} s, "
            f"{stats['compiled_functions']} functions compiled)")


class Targets:
    """The summary table: one row per target of issue 12."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, bool]] = []

    def add(self, what: str, measured: str, target: str, ok: bool) -> None:
        self.rows.append((what, measured, target, ok))

    def lines(self) -> list[str]:
        w0 = max(len(r[0]) for r in self.rows)
        w1 = max(len(r[1]) for r in self.rows)
        w2 = max(len(r[2]) for r in self.rows)
        out = [f"  {'target':<{w0}}  {'measured':<{w1}}  {'wanted':<{w2}}  verdict"]
        out += [f"  {a:<{w0}}  {b:<{w1}}  {c:<{w2}}  {verdict(ok)}" for a, b, c, ok in self.rows]
        return out


# ---------------------------------------------------------------- 1. PID, rk4

def pid(T: float = T_END, repeat: int = 20, interpreted: bool = True) -> dict[str, Any]:
    """The PID example in rk4 at 1 ms: compiled (``backend="compiled"`` only) and the
    hand-written numba loop, best of ``repeat``; the interpreted back-end once or twice."""
    n = round(T / H)
    hand_rk4(H, 10, PID_PARAMS)
    t_hand, (t_h, x_h, s_h) = best(lambda: hand_rk4(H, n, PID_PARAMS), repeat)
    plan = compile_diagram(example.build(with_scope=False))
    first = simulate(plan, T, "rk4", dt=H, backend="compiled")
    t_comp, res = best_run(lambda: simulate(plan, T, "rk4", dt=H, backend="compiled"), repeat)
    t_whole, _ = best(lambda: simulate(plan, T, "rk4", dt=H, backend="compiled"),
                      max(1, repeat // 4))
    out = dict(T=T, n=n, hand=t_hand, compiled=t_comp, whole=t_whole, first=first.stats,
               x_end=float(res["pos.y"][-1]), x_end_hand=float(x_h[-1, 3]),
               records=(len(res.t), len(res.signals)), records_hand=(len(t_h), s_h.shape[1]),
               max_diff=float(np.abs(res.x - x_h).max()))
    if interpreted:
        out["interpreted"], _ = best_run(lambda: simulate(plan, T, "rk4", dt=H),
                                         max(1, min(2, repeat)))
    return out


def pid_lines(m: dict[str, Any], targets: Targets) -> list[str]:
    ratio = m["compiled"] / m["hand"]
    ok = ratio <= TARGET_PID
    targets.add("PID rk4 1 ms 10 s: compiled / hand numba", f"{ratio:.2f}x", f"<= {TARGET_PID}x",
                ok)
    lines = [
        f"1. PID mass-spring-damper, rk4 h = 1 ms, {m['T']:g} s ({m['n']} steps)",
        f"  hand-written numba RK4, run-time gains {m['hand'] * 1e3:8.3f} ms  "
        f"x({m['T']:g}) = {m['x_end_hand']:.9f}  (records t, 4 states, 9 signals per step)",
        f"  compiled (backend='compiled')         {m['compiled'] * 1e3:8.3f} ms  "
        f"x({m['T']:g}) = {m['x_end']:.9f}  (records {m['records'][0]} rows, "
        f"{m['records'][1]} signals; states agree to {m['max_diff']:.1e})",
        f"    ratio {ratio:.2f}x the hand loop (target <= {TARGET_PID}x): {verdict(ok)}",
        f"  compiled, whole simulate() call        {m['whole'] * 1e3:8.3f} ms  "
        f"(plan check, schedule, loading the module, result)",
        f"  {compile_note(m['first'])}",
    ]
    if "interpreted" in m:
        lines.append(f"  interpreted rk4                       {m['interpreted'] * 1e3:8.1f} ms  "
                     f"(compiled is {m['interpreted'] / m['compiled']:.0f}x faster)")
    return lines


# ---------------------------------------------------------------- 2. Puma

def puma_lines(m: dict[str, Any], targets: Targets) -> list[str]:
    vs_interp = m["interpreted"] / m["compiled"]
    vs_hand = m["hand"] / m["compiled"]
    targets.add("Puma RK45: compiled vs interpreted", f"{vs_interp:.1f}x",
                f">= {puma.TARGET_VS_INTERPRETED:g}x", vs_interp >= puma.TARGET_VS_INTERPRETED)
    targets.add("Puma RK45: compiled vs hand solve_ivp", f"{vs_hand:.1f}x",
                f">= {puma.TARGET_VS_HAND:g}x", vs_hand >= puma.TARGET_VS_HAND)
    lines = puma.report(m)
    lines[0] = "2. " + lines[0]
    lines.append(f"    vs interpreted {vs_interp:.1f}x: "
                 f"{verdict(vs_interp >= puma.TARGET_VS_INTERPRETED)}; vs hand-written "
                 f"solve_ivp {vs_hand:.1f}x: {verdict(vs_hand >= puma.TARGET_VS_HAND)}")
    return lines


# ---------------------------------------------------------------- 3. a JSON diagram, new process

CHILD_JSON = """
import json, sys, time
t0 = time.perf_counter()
import blocksim.io
from blocksim import simulate
t1 = time.perf_counter()
f = blocksim.io.load(sys.argv[1])
t2 = time.perf_counter()
r = simulate(f.diagram, **{**f.simulation, "backend": "compiled"})
t3 = time.perf_counter()
s = r.stats
print(json.dumps(dict(imports=t1 - t0, load=t2 - t1, simulate=t3 - t2, wall_time=s["wall_time"],
    compile_time=s["compile_time"], compile_load=s["compile_load"],
    compiled_functions=s["compiled_functions"], compile_cache=s["compile_cache"])))
"""


#: the numba floor: one cached njit function, loaded in a new process (numba's own start-up)
FLOOR_MODULE = """
import numba


@numba.njit(cache=True)
def f(x):
    return x + 1.0
"""


def _child_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a new process: bytecode caches on (``PYTHONDONTWRITEBYTECODE`` set
    in a CI or sandbox shell would recompile every blocksim module in every process, ~0.1 s
    that no installation pays)."""
    env = dict(os.environ if env is None else env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _process(args: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    """Run a new Python process from the repository root; (its wall time, its stdout)."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, env=_child_env(env)
    )
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"{args[:2]} failed:\n{done.stderr[-2000:]}")
    return elapsed, done.stdout


def new_process(files: tuple[str, ...] = ("pid_mass_spring_damper.json",
                                          "puma_computed_torque.json"),
                repeat: int = 3) -> dict[str, Any]:
    """Whole-process times (best of ``repeat``, after one warm-up process per file), and the
    interpreter and ``import blocksim`` alone."""
    out: dict[str, Any] = {}
    out["python"] = min(_process(["-c", "pass"])[0] for _ in range(repeat))
    out["import"] = min(_process(["-c", "import blocksim"])[0] for _ in range(repeat))
    with tempfile.TemporaryDirectory(prefix="blocksim-floor-") as tmp:
        (Path(tmp) / "floor_njit.py").write_text(FLOOR_MODULE)
        floor = [
            "-c",
            f"import sys; sys.path.insert(0, {tmp!r}); import floor_njit; floor_njit.f(1.0)",
        ]
        frozen = [floor[0], "import atexit, gc; atexit.register(gc.freeze); " + floor[1]]
        _process(floor)  # compiles and caches f
        out["numba"] = min(_process(["-c", "import numba"])[0] for _ in range(repeat))
        out["floor"] = min(_process(floor)[0] for _ in range(repeat))
        out["floor_frozen"] = min(_process(frozen)[0] for _ in range(repeat))
    for name in files:
        path = str(ROOT / "diagrams" / name)
        warm = json.loads(_process(["-c", CHILD_JSON, path])[1])  # fills the caches if cold
        runs = []
        for _ in range(repeat):
            elapsed, text = _process(["-c", CHILD_JSON, path])
            runs.append((elapsed, json.loads(text)))
        elapsed, child = min(runs, key=lambda r: r[0])
        out[name] = dict(whole=elapsed, child=child, warmup=warm)
    return out


def new_process_lines(m: dict[str, Any], targets: Targets) -> list[str]:
    lines = [
        "3. A JSON diagram in a new process, warm caches (import blocksim.io + load + "
        "simulate(..., backend='compiled'), timed from outside)",
        f"  python -c pass          {m['python']:6.2f} s  (the interpreter alone)",
        f"  python -c 'import blocksim' {m['import']:6.2f} s",
    ]
    if "floor" in m:
        lines.append(
            f"  python -c 'import numba' {m['numba']:6.2f} s; one cached njit function loaded "
            f"and called {m['floor']:6.2f} s, {m['floor_frozen']:.2f} s with the heap frozen at "
            f"exit as blocksim does (numba's own floor: its import, then its target context and "
            f"registries, scipy.linalg included, on the first cached load)"
        )
    for name, r in m.items():
        if not isinstance(r, dict):
            continue
        c, w = r["child"], r["warmup"]
        ok = r["whole"] <= TARGET_NEW_PROCESS
        targets.add(f"new process, {name}", f"{r['whole']:.2f} s", f"<= {TARGET_NEW_PROCESS:g} s",
                    ok)
        lines += [
            f"  {name}: whole process {r['whole']:.2f} s (target <= {TARGET_NEW_PROCESS:g} s): "
            f"{verdict(ok)}",
            f"    inside: imports {c['imports']:.2f} s, load {c['load']:.3f} s, simulate "
            f"{c['simulate']:.2f} s = compile_load {c['compile_load']:.2f} s (compile_time "
            f"{c['compile_time']:.2f} s, {c['compiled_functions']} functions compiled) + run "
            f"{c['wall_time'] * 1e3:.1f} ms + the rest of simulate "
            f"{c['simulate'] - c['compile_time'] - c['wall_time']:.2f} s; interpreter start "
            f"and exit {r['whole'] - c['imports'] - c['load'] - c['simulate']:.2f} s",
            f"    warm-up process before it: compile_time {w['compile_time']:.2f} s "
            f"({w['compile_cache']}, {w['compiled_functions']} functions compiled)",
        ]
    return lines


# ---------------------------------------------------------------- 4. new diagrams of n blocks

def chain(nblocks: int) -> Diagram:
    """A diagram of exactly ``nblocks`` blocks: a Sine, then stages gain -> sum -> integrator
    (a first-order lag, the sum subtracting the integrator's output), every fourth stage adding
    a second Sine into its sum; a Gain or two at the end to make up the count."""
    d = Diagram(f"chain{nblocks}")
    prev = d.add(Sine(amplitude=1.0, frequency=0.5), name="src")
    count, k = 1, 0
    while nblocks - count >= 3:
        extra = k % 4 == 3 and nblocks - count >= 4
        g = d.add(Gain(1.0 + 0.01 * k), name=f"g{k}")
        s = d.add(Sum("++-" if extra else "+-"), name=f"s{k}")
        x = d.add(Integrator(x0=0.0), name=f"x{k}")
        d.connect(prev, g)
        d.connect(g, s["u0"])
        d.connect(x, s["u2" if extra else "u1"])
        d.connect(s, x)
        if extra:
            w = d.add(Sine(amplitude=0.1, frequency=1.0 + k), name=f"w{k}")
            d.connect(w, s["u1"])
        count += 4 if extra else 3
        prev, k = x, k + 1
    while count < nblocks:
        g = d.add(Gain(0.5), name=f"tail{count}")
        d.connect(prev, g)
        prev, count = g, count + 1
    assert len(d.blocks) == nblocks, (len(d.blocks), nblocks)
    return d


def _compile_child(nblocks: int) -> None:
    """(In a new process) compile and run ``chain(nblocks)``; print its stats as JSON."""
    t0 = time.perf_counter()
    r = simulate(chain(nblocks), 0.01, "rk4", dt=H, backend="compiled")
    s = r.stats
    print(json.dumps({k: s[k] for k in ("compile_time", "compile_kernels", "compile_diagram",
                                         "compile_loop", "compile_load", "compiled_functions")}
                     | {"simulate": time.perf_counter() - t0}))


def compile_new(sizes: tuple[int, ...] = COMPILE_SIZES, budget: float = math.inf
                ) -> dict[int, dict[str, Any]]:
    """Compile stats of a new diagram per size, each in a new process with its own empty
    BLOCKSIM_CACHE_DIR (numba's kernel caches warm: a throwaway 10-block run first). A size
    whose time, projected linearly from the last one, would take the section past ``budget``
    seconds is not run: its entry is ``{"projected": seconds}``."""
    out: dict[int, dict[str, Any]] = {}
    spent, last = 0.0, None
    with tempfile.TemporaryDirectory(prefix="blocksim-bench-") as tmp:
        for label, n in [("warmup", 10), *((None, n) for n in sizes)]:
            if label is None and last is not None:
                projected = last[1] * n / last[0]
                if spent + projected > budget:
                    out[n] = {"projected": projected}
                    continue
            folder = Path(tmp) / f"{label or n}"
            env = dict(os.environ, BLOCKSIM_CACHE_DIR=str(folder))
            _, text = _process([str(Path(__file__)), "--compile-child", str(n)], env)
            if label is None:
                out[n] = json.loads(text.strip().splitlines()[-1])
                spent += out[n]["simulate"]
                last = (n, out[n]["simulate"])
    return out


def compile_lines(m: dict[int, dict[str, Any]], targets: Targets) -> list[str]:
    lines = ["4. New diagram (fresh BLOCKSIM_CACHE_DIR), warm kernel caches, each in a new "
             "process: compile time by size",
             "  blocks  compile [s]  kernels  diagram   loop    load   functions  per block [ms]"]
    for n, s in m.items():
        if "projected" in s:
            lines.append(f"  {n:6d}  not run: about {s['projected']:.0f} s projected linearly "
                         f"from the size before (over the time budget; --full runs it)")
            continue
        lines.append(f"  {n:6d}  {s['compile_time']:11.2f}  {s['compile_kernels']:7.2f}  "
                     f"{s['compile_diagram']:7.2f}  {s['compile_loop']:6.2f}  "
                     f"{s['compile_load']:6.2f}  {s['compiled_functions']:9d}  "
                     f"{s['compile_time'] / n * 1e3:14.1f}")
    m = {n: s for n, s in m.items() if "projected" not in s}
    if 30 in m:
        t30 = m[30]["compile_time"]
        targets.add("new diagram of 30 blocks: compile", f"{t30:.2f} s",
                    f"<= {TARGET_COMPILE_30:g} s", t30 <= TARGET_COMPILE_30)
        lines.append(f"  30 blocks {t30:.2f} s (target <= {TARGET_COMPILE_30:g} s): "
                     f"{verdict(t30 <= TARGET_COMPILE_30)}")
        big = max(m)
        if big > 30:
            growth = m[big]["compile_time"] / t30
            exponent = math.log(growth) / math.log(big / 30)
            ok = growth <= big / 30 * 1.05  # 5 % for the noise of a shared machine
            targets.add(f"compile growth 30 -> {big} blocks",
                        f"{growth:.1f}x (n^{exponent:.2f})",
                        f"<= {big / 30 * 1.05:.3g}x (linear + 5 %)", ok)
            lines.append(f"  {big} / 30 blocks: {growth:.1f}x the time for {big / 30:.3g}x the "
                         f"blocks (time ~ n^{exponent:.2f}; target at most linear): "
                         f"{verdict(ok)}")
    return lines


# ---------------------------------------------------------------- 5. discrete PID, Kp sweep

def discrete(T: float = T_END, repeat: int = 10) -> dict[str, Any]:
    plan = compile_diagram(discrete_example.build(with_scope=False))
    first = simulate(plan, T, "rk4", dt=H, backend="compiled")
    t_comp, res = best_run(lambda: simulate(plan, T, "rk4", dt=H, backend="compiled"), repeat)
    t_interp, ref = best_run(lambda: simulate(plan, T, "rk4", dt=H), 1)
    return dict(T=T, compiled=t_comp, interpreted=t_interp, first=first.stats,
                diff=float(np.abs(res.x[-1] - ref.x[-1]).max()))


def discrete_lines(m: dict[str, Any]) -> list[str]:
    return [f"5a. discrete 1 kHz PID, {m['T']:g} s, rk4 1 ms: compiled "
            f"{m['compiled'] * 1e3:.2f} ms, interpreted {m['interpreted'] * 1e3:.0f} ms "
            f"({m['interpreted'] / m['compiled']:.0f}x); final states agree to {m['diff']:.1e}",
            f"  {compile_note(m['first'])}"]


def sweep(members: int = 1000, T: float = T_END, repeat: int = 2) -> dict[str, Any]:
    plan = compile_diagram(example.build(with_scope=False))
    kps = list(np.linspace(5.0, 15.0, members))
    grid_ = grid({"pid.Kp": kps})
    first = simulate_batch(plan, grid_[:2], T, "rk4", dt=H, backend="compiled")
    t_best, batch = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        batch = simulate_batch(plan, grid_, T, "rk4", dt=H, backend="compiled")
        t_best = min(t_best, time.perf_counter() - t0)
    assert batch is not None
    p = PID_PARAMS.copy()
    p[1] = kps[-1]
    n = round(T / H)
    t_hand, (_, x_h, _) = best(lambda: hand_rk4(H, n, p), 5)
    return dict(M=members, T=T, whole=t_best, run=batch.stats["run_time"] if "run_time"
                in batch.stats else batch.stats["wall_time"], first=first.stats,
                x_last=float(batch["pos.y"][-1, -1]), x_hand=float(x_h[-1, 3]), hand=t_hand,
                nfailed=int(batch.stats.get("nfailed", 0)))


def sweep_lines(m: dict[str, Any], targets: Targets) -> list[str]:
    per = m["whole"] / m["M"]
    ok = per <= TARGET_PER_MEMBER
    targets.add(f"{m['M']}-member Kp sweep: per member", f"{per * 1e3:.3f} ms",
                f"<= {TARGET_PER_MEMBER * 1e3:g} ms", ok)
    return [f"5b. {m['M']}-member Kp sweep, rk4 1 ms, {m['T']:g} s, {os.cpu_count()} CPUs "
            f"(numba threads {numba.get_num_threads()}): whole simulate_batch "
            f"{m['whole'] * 1e3:.0f} ms, per member {per * 1e3:.3f} ms (target <= "
            f"{TARGET_PER_MEMBER * 1e3:g} ms): {verdict(ok)}",
            f"  loop itself {m['run'] * 1e3:.0f} ms; one member of the hand loop on one core "
            f"{m['hand'] * 1e3:.3f} ms; last member x({m['T']:g}) {m['x_last']:.9f} vs hand "
            f"{m['x_hand']:.9f}; {m['nfailed']} failed",
            f"  {compile_note(m['first'])}"]


# ---------------------------------------------------------------- cold installation

def cold() -> dict[str, Any]:
    """The first compiled run of the PID diagram file in a new process with empty numba and
    blocksim caches (a fresh installation)."""
    with tempfile.TemporaryDirectory(prefix="blocksim-cold-") as tmp:
        env = dict(os.environ, BLOCKSIM_CACHE_DIR=str(Path(tmp) / "blocksim"),
                   NUMBA_CACHE_DIR=str(Path(tmp) / "numba"))
        path = str(ROOT / "diagrams" / "pid_mass_spring_damper.json")
        elapsed, text = _process(["-c", CHILD_JSON, path], env)
    return dict(whole=elapsed, child=json.loads(text.strip().splitlines()[-1]))


def cold_lines(m: dict[str, Any]) -> list[str]:
    c = m["child"]
    return ["Cold installation (empty numba and blocksim caches), PID diagram file, new process:",
            f"  whole process {m['whole']:.1f} s; compile_time {c['compile_time']:.1f} s "
            f"({c['compiled_functions']} functions compiled), run {c['wall_time'] * 1e3:.1f} ms"]


# ---------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats, sizes up to 100")
    ap.add_argument("--cold", action="store_true", help="also time a fresh installation")
    ap.add_argument("--full", action="store_true",
                    help="compile every size of section 4 whatever it takes")
    ap.add_argument("--compile-budget", type=float, default=150.0,
                    help="seconds for section 4 without --full (default 150)")
    ap.add_argument(
        "--only",
        choices=SECTIONS,
        action="append",
        help="run only this section (repeatable), e.g. --only new-process",
    )
    ap.add_argument("--compile-child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.compile_child:
        _compile_child(args.compile_child)
        return
    t_start = time.perf_counter()
    rep = 5 if args.quick else 20
    targets = Targets()
    print(f"blocksim compiled back-end benchmark; {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())} at start; numba {numba.__version__}, "
          f"numpy {np.__version__}, Python {sys.version.split()[0]}")
    sections = {
        "pid": lambda: pid_lines(pid(repeat=rep), targets),
        "puma": lambda: puma_lines(puma.measure(repeat=max(3, rep // 2)), targets),
        "new-process": lambda: new_process_lines(
            new_process(repeat=2 if args.quick else 3), targets
        ),
        "compile": lambda: compile_lines(
            compile_new(
                COMPILE_SIZES[:3] if args.quick else COMPILE_SIZES,
                math.inf if args.full else args.compile_budget,
            ),
            targets,
        ),
        "discrete": lambda: discrete_lines(discrete(repeat=max(3, rep // 2))),
        "sweep": lambda: sweep_lines(sweep(repeat=1 if args.quick else 2), targets),
        "cold": lambda: cold_lines(cold()),
    }
    chosen = args.only or [k for k in SECTIONS if k != "cold" or args.cold]
    for section in (sections[k] for k in SECTIONS if k in chosen):
        print()
        print("\n".join(section()), flush=True)
    print()
    print(f"Targets of issue 12 (one run, {time.perf_counter() - t_start:.0f} s, load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())} at the end):")
    print("\n".join(targets.lines()))
    print("  (the 5th target, the test suite from a clean clone under 5 minutes, is not "
          "measured here)")


if __name__ == "__main__":
    main()
