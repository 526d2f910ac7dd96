"""Cold start and the two compiled tiers: what a user waits for, against the targets, in one run.

Every row prints what a user does, the figure before this work ("before", as text), the
target, the measured figure and a verdict (met / MISSED). Cold rows run in fresh processes
(``subprocess``) whose ``NUMBA_CACHE_DIR``, ``BLOCKSIM_CACHE_DIR`` and ``HOME`` are new empty
temporary folders (a fresh installation: numba's caches of the package kernels would otherwise
sit in ``__pycache__`` beside the sources, blocksim's generated modules in
``~/.cache/blocksim``; matplotlib's font cache follows ``HOME``). The machine may be shared:
the load average is printed at the top and the end; read ratios measured in the same run.

Rows:

readme
    The README's first command, ``blocksim run diagrams/puma_computed_torque.json --plot
    <tmp>/p.png`` (interpreted back-end, the file's settings), install excluded, in a fresh
    process with empty caches. The child's stdout and stderr go to a pseudo-terminal (as in a
    user's terminal: tqdm draws its bars, Python's stdout is line-buffered) whose raw chunks
    are read with time stamps, so a tqdm bar redrawn with a carriage return counts as output.
    Measured: the time until the plot file exists, the whole process, and the longest silent
    gap (start to first output, between two chunks, last chunk to exit). Target: <= 10 s to
    the plot and never more than 2 s without output.
first-compiled
    The same file's first compiled run on a new installation (``blocksim run ...
    --backend compiled``, default tier: data-wired on a new installation), empty caches, read
    the same way. Target: <= 20 s with progress (longest silent gap <= 2 s, as for readme).
new-structure
    A new diagram structure of ~30 scalar library blocks (:func:`random_structure`: Constant,
    Step, Gain, Sum, Product, Saturation, MathFunction, Integrator, TransferFunction, PID wired
    at random with a seed; every feedback passes through an Integrator or a strictly proper
    TransferFunction, so there is no algebraic loop), compiled run with the default tier
    (``fuse="auto"``), RK45. A first child process (fresh ``BLOCKSIM_CACHE_DIR``, numba's
    caches as they are) runs one random structure to warm the kernels, block entries and
    loop; a second child, same caches, runs a *different* random structure of the same block
    forms. Measured: that child's ``stats["compile_time"]`` (and its split). Target: <= 0.5 s.
json-again
    The same JSON diagram again in a new process, compiled (``benchmarks/compiled.py``'s
    child: ``import blocksim.io``, load, ``simulate(..., backend="compiled")``), timed from
    outside, best of 3 after one warm-up process (caches as they are), for
    ``diagrams/pid_mass_spring_damper.json`` and ``diagrams/puma_computed_torque.json``; the
    same with the command line (``blocksim run FILE --backend compiled --quiet``) for
    information. Target: <= 1.5 s whole process, for both files.
warmup
    ``blocksim warmup --quiet`` (every block type) in a fresh process with empty caches.
    Target: <= 90 s.
suite
    The test suite from a clean clone (``git clone`` of this repository's HEAD into a temporary
    folder: uncommitted work is not in it), empty caches, ``CI=true``, ``python -m pytest -q
    --durations=25`` there with the current interpreter (``PYTHONPATH`` set to the clone).
    Target: <= 6 min. Only with ``--suite`` (it takes a quarter of an hour on 2 cores);
    otherwise printed as not measured.
pid-warm
    The PID example (``examples/pid_mass_spring_damper.py``), rk4 dt = 1 ms over 10 s, warm
    caches, in this process: ``stats["wall_time"]`` (best of 20) of the fused tier
    (``fuse=True``) and of the data-wired tier (``fuse=False``) against the hand-written numba
    RK4 loop of ``benchmarks/compiled.py`` (run-time gains, same records), and the interpreted
    back-end against the wired tier. Targets: fused <= 1.3x the hand loop, wired <= 10x the
    hand loop, wired >= 100x faster than interpreted.
puma-warm
    Puma 560 computed torque (``benchmarks/puma_computed_torque.py``'s diagram), RK45 rtol
    1e-6 atol 1e-9, 5 s, warm, in this process: wired / fused ``stats["wall_time"]`` (best of
    10). Target: wired <= 1.3x the fused.

Run: ``python benchmarks/cold_start.py [--quick] [--only ROW ...] [--suite]``. ``--quick``
skips the slowest cold rows (readme, first-compiled, warmup) and repeats less; each cold row
takes a minute or more.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent

PUMA_FILE = "diagrams/puma_computed_torque.json"
PID_FILE = "diagrams/pid_mass_spring_damper.json"

#: the rows, in the order they run: (what a user does, the figure before, the target)
ROWS: dict[str, tuple[str, str, str]] = {
    "readme": ("README's first command: blocksim run puma_computed_torque.json --plot, "
               "fresh process, empty caches",
               "28-46 s, of which 28-45 s print nothing",
               "<= 10 s to the plot; never > 2 s without output"),
    "first-compiled": ("first compiled run of puma_computed_torque.json on a new install "
                       "(--backend compiled), empty caches",
                       "36-72 s (50 s silent)", "<= 20 s, with progress (gap <= 2 s)"),
    "new-structure": ("new diagram structure of 30 library blocks, kernels/entries cached: "
                      "compile_time",
                      "7 s quiet, 21 s at load 1.5, 45-48 s loaded", "<= 0.5 s compile"),
    "json-again": ("the same JSON diagram again in a new process, compiled: whole process",
                   "2.98-3.12 s (PID), 3.06 s (Puma)", "<= 1.5 s whole process"),
    "warmup": ("blocksim warmup --quiet, every type, empty caches",
               "193 s quiet, 9 min 19 s loaded", "<= 90 s"),
    "suite": ("the test suite, clean clone, empty caches", "931-1015 s on 2 cores",
              "<= 6 min"),
    "pid-warm": ("compiled PID rk4 1 ms 10 s, warm: fused / hand loop, wired / hand loop, "
                 "interpreted / wired", "1.16-1.72x (fused)",
                 "fused <= 1.3x; wired <= 10x; wired >= 100x faster than interpreted"),
    "puma-warm": ("compiled Puma computed torque RK45, warm: wired / fused", "4.1 ms (fused)",
                  "wired <= 1.3x the fused"),
}
COLD_ROWS = ("readme", "first-compiled", "warmup")  # skipped by --quick

TARGET_README_PLOT = 10.0
TARGET_GAP = 2.0
TARGET_FIRST_COMPILED = 20.0
TARGET_NEW_STRUCTURE = 0.5
TARGET_JSON_AGAIN = 1.5
TARGET_WARMUP = 90.0
TARGET_SUITE = 360.0
TARGET_FUSED = 1.3
TARGET_WIRED = 10.0
TARGET_WIRED_VS_INTERPRETED = 100.0
TARGET_PUMA_WIRED = 1.3

STRUCTURE_BLOCKS = 30
STRUCTURE_SOLVER = "RK45"
STRUCTURE_T = 1.0


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


def bench():
    """``benchmarks/compiled.py`` (its hand loop, its new-process child and helpers), imported
    on first use: a child process of this script (``--structure-child``) must not pay for it
    (numba, scipy, the examples) before the compile it measures."""
    return _load(HERE / "compiled.py", "bench_compiled")


# ---------------------------------------------------------------- rows and the report

@dataclass
class Row:
    """One row of the table: its key, the measured figure (text), the verdict (None: not
    measured) and detail lines."""

    key: str
    measured: str
    ok: bool | None
    details: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return {True: "met", False: "MISSED", None: "not measured"}[self.ok]

    def lines(self) -> list[str]:
        what, before, target = ROWS[self.key]
        return [f"[{self.key}] {what}",
                f"  before:   {before}",
                f"  target:   {target}",
                f"  measured: {self.measured}",
                f"  verdict:  {self.verdict}",
                *(f"    {d}" for d in self.details)]


def table(rows: list[Row]) -> list[str]:
    """The summary table: row, before, target, measured, verdict (one line each)."""
    head = ("row", "before", "target", "measured", "verdict")
    body = [(r.key, ROWS[r.key][1], ROWS[r.key][2], r.measured, r.verdict) for r in rows]
    widths = [max(len(x[i]) for x in (head, *body)) for i in range(4)]
    fmt = "  " + "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
    return [fmt.format(*head), *(fmt.format(*b) for b in body)]


def load_text() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


# ---------------------------------------------------------------- fresh processes

def fresh_env(tmp: Path, **extra: str) -> dict[str, str]:
    """The environment of a fresh installation's process: new empty NUMBA_CACHE_DIR,
    BLOCKSIM_CACHE_DIR and HOME under ``tmp`` (matplotlib's and XDG caches follow HOME),
    bytecode caches on (``benchmarks/compiled.py``'s ``_child_env``)."""
    env = bench()._child_env()
    for name in ("numba", "blocksim", "home"):
        (tmp / name).mkdir(parents=True, exist_ok=True)
    env.update(NUMBA_CACHE_DIR=str(tmp / "numba"), BLOCKSIM_CACHE_DIR=str(tmp / "blocksim"),
               HOME=str(tmp / "home"), **extra)
    for name in ("MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        env.pop(name, None)
    return env


def blocksim_command() -> list[str]:
    """The ``blocksim`` command of this interpreter (its console script, else ``-m``)."""
    script = Path(sys.executable).with_name("blocksim")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "blocksim.cli"]


@dataclass
class Watched:
    """A child process watched chunk by chunk: its exit status, the whole time, when a file
    appeared, the chunks ``(seconds from start, bytes)`` and the longest silent gap."""

    returncode: int | None
    whole: float
    file_at: float | None
    chunks: list[tuple[float, bytes]]
    timed_out: bool = False

    @property
    def gaps(self) -> list[tuple[float, float]]:
        """Silent intervals ``(from, to)``: start to first chunk, between chunks, last chunk
        to exit."""
        times = [0.0, *(t for t, _ in self.chunks), self.whole]
        return list(itertools.pairwise(times))

    @property
    def longest_gap(self) -> tuple[float, float, float]:
        """(length, from, to) of the longest silent interval."""
        a, b = max(self.gaps, key=lambda g: g[1] - g[0])
        return b - a, a, b

    @property
    def text(self) -> str:
        return b"".join(c for _, c in self.chunks).decode("utf-8", "replace")

    def timeline(self, most: int = 12) -> list[str]:
        """When each distinct message first appeared: the text between carriage returns and
        newlines, a tqdm bar counted once per description (the text before ``[``, ``:`` or a
        digit run); messages within 0.1 s of a listed one are counted, not listed."""
        new: list[tuple[float, str]] = []
        seen: set[str] = set()
        for t, chunk in self.chunks:
            for piece in re.split(r"[\r\n]+", chunk.decode("utf-8", "replace")):
                piece = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", piece).strip()
                key = re.split(r"[\[:]|\d", piece, maxsplit=1)[0].strip() or piece
                if piece and key not in seen:
                    seen.add(key)
                    new.append((t, piece))
        groups: list[list[Any]] = []  # [time, first message, how many]
        for t, piece in new:
            if groups and t - groups[-1][0] < 0.1:
                groups[-1][2] += 1
            else:
                groups.append([t, piece, 1])
        out = [f"{t:7.2f} s  {piece[:80]}" + (f"  (+{n - 1} more lines)" if n > 1 else "")
               for t, piece, n in groups]
        if len(out) > most:
            out = [*out[:most - 1], f"... and {len(out) - most + 1} more messages"]
        return out


def watch(cmd: list[str], env: dict[str, str], cwd: Path = ROOT, file: Path | None = None,
          timeout: float = 900.0) -> Watched:
    """Run ``cmd`` with stdout and stderr on a pseudo-terminal of 40 x 100 characters (a pipe
    with ``PYTHONUNBUFFERED`` where there is none), reading raw chunks as they come (a
    carriage-return update is a chunk); note when ``file`` first exists (non-empty). Kills the
    child after ``timeout`` s."""
    import select

    try:
        import fcntl
        import pty
        import struct
        import termios

        master, slave = pty.openpty()
        # a terminal of 40 x 100 characters (a new pseudo-terminal is 0 x 0, on which tqdm
        # draws its bars zero characters wide: nothing but the final newline)
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    except (ImportError, OSError):
        master = slave = -1
    env = dict(env, COLUMNS="100", LINES="40")
    t0 = time.perf_counter()
    if slave >= 0:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave,
                                stderr=slave, close_fds=True)
        os.close(slave)
        fd = master
    else:
        proc = subprocess.Popen(cmd, cwd=cwd, env=dict(env, PYTHONUNBUFFERED="1"),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, bufsize=0)
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
    chunks: list[tuple[float, bytes]] = []
    file_at: float | None = None
    timed_out = False
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], 0.05)
            now = time.perf_counter() - t0
            if file is not None and file_at is None and file.exists() and file.stat().st_size:
                file_at = now
            if ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:  # EIO: the child's side of the terminal is closed
                    data = b""
                if not data:
                    break
                chunks.append((now, data))
            if now > timeout:
                timed_out = True
                proc.kill()
                break
        proc.wait()
    finally:
        if slave >= 0:
            os.close(master)
        elif proc.stdout is not None:
            proc.stdout.close()
    whole = time.perf_counter() - t0
    if file is not None and file_at is None and file.exists() and file.stat().st_size:
        file_at = whole
    return Watched(proc.returncode, whole, file_at, chunks, timed_out)


def _watched_details(w: Watched) -> list[str]:
    gap, a, b = w.longest_gap
    lines = [f"exit status {w.returncode}{' (killed: timeout)' if w.timed_out else ''}, "
             f"whole process {w.whole:.1f} s, {len(w.chunks)} output chunks; longest silent "
             f"gap {gap:.1f} s (from {a:.1f} s to {b:.1f} s)",
             "first appearance of each message:"]
    lines += [f"  {line}" for line in w.timeline()]
    if w.returncode != 0:
        lines += ["last output:", *(f"  {x}" for x in w.text.replace("\r", "\n")
                                    .strip().splitlines()[-15:])]
    return lines


# ---------------------------------------------------------------- readme, first-compiled

#: a fresh process doing what ``blocksim run FILE`` does, phase by phase (argv: file, run
#: options as JSON, plot path or ""); prints the split as JSON on its last line
CHILD_SPLIT = """
import json, sys, time
t0 = time.perf_counter()
import blocksim.io
from blocksim import compile_diagram, simulate
t1 = time.perf_counter()
f = blocksim.io.load(sys.argv[1])
t2 = time.perf_counter()
plan = compile_diagram(f.diagram)
t3 = time.perf_counter()
r = simulate(plan, **{**f.simulation, **json.loads(sys.argv[2])})
t4 = time.perf_counter()
if sys.argv[3]:
    from pathlib import Path
    from blocksim.cli.run import save_plots
    save_plots(r, Path(sys.argv[3]), plan.name)
t5 = time.perf_counter()
s = r.stats
print(json.dumps(dict(imports=t1 - t0, load=t2 - t1, plan=t3 - t2, simulate=t4 - t3,
    plot=t5 - t4, **{k: s[k] for k in ("tier", "compile_time", "compile_kernels",
    "compile_entries", "compile_diagram", "compile_loop", "compile_load", "compiled_functions",
    "wall_time") if k in s})))
"""


def split(file: str, options: dict[str, Any], plot: bool) -> list[str]:
    """Where the time of a cold ``blocksim run`` goes: :data:`CHILD_SPLIT` in another fresh
    process (empty caches), as detail lines."""
    with tempfile.TemporaryDirectory(prefix="blocksim-cold-") as tmp:
        out = str(Path(tmp) / "p.png") if plot else ""
        elapsed, text = bench()._process(["-c", CHILD_SPLIT, file, json.dumps(options), out],
                                         fresh_env(Path(tmp)))
    c = json.loads(text.strip().splitlines()[-1])
    lines = [f"where the time goes (the same steps in another fresh process, {elapsed:.1f} s): "
             f"imports {c['imports']:.1f} s, load {c['load']:.1f} s, compile_diagram (checks "
             f"and the dry run at t = 0) {c['plan']:.1f} s, simulate {c['simulate']:.1f} s"
             + (f", plot {c['plot']:.1f} s" if plot else "")]
    if "compile_kernels" in c:
        lines.append(f"  simulate: {c.get('tier')} tier, compile_time {c['compile_time']:.1f} s = "
                     f"kernels {c['compile_kernels']:.1f} + entries {c['compile_entries']:.1f} "
                     f"+ diagram {c['compile_diagram']:.1f} + loop {c['compile_loop']:.1f} + "
                     f"load {c['compile_load']:.1f} s ({c['compiled_functions']} functions "
                     f"compiled), run {c['wall_time'] * 1e3:.1f} ms")
    return lines


def readme(timeout: float = 900.0) -> Row:
    """The README's first command in a fresh process with empty caches."""
    with tempfile.TemporaryDirectory(prefix="blocksim-cold-") as tmp:
        plot = Path(tmp) / "p.png"
        w = watch([*blocksim_command(), "run", PUMA_FILE, "--plot", str(plot)],
                  fresh_env(Path(tmp)), file=plot, timeout=timeout)
    gap = w.longest_gap[0]
    to_plot = w.file_at
    ok = w.returncode == 0 and to_plot is not None and to_plot <= TARGET_README_PLOT \
        and gap <= TARGET_GAP
    plot_text = f"{to_plot:.1f} s to the plot" if to_plot is not None else "no plot written"
    return Row("readme", f"{plot_text} ({w.whole:.1f} s process); longest silent gap "
               f"{gap:.1f} s", ok, _watched_details(w) + split(PUMA_FILE, {}, plot=True))


def first_compiled(timeout: float = 900.0) -> Row:
    """The first compiled run of the Puma file on a new installation."""
    with tempfile.TemporaryDirectory(prefix="blocksim-cold-") as tmp:
        w = watch([*blocksim_command(), "run", PUMA_FILE, "--backend", "compiled"],
                  fresh_env(Path(tmp)), timeout=timeout)
    gap = w.longest_gap[0]
    ok = w.returncode == 0 and w.whole <= TARGET_FIRST_COMPILED and gap <= TARGET_GAP
    details = _watched_details(w)
    head = [x for x in w.text.replace("\r", "\n").splitlines() if "back-end" in x]
    if head:
        details.insert(0, f"summary: {head[-1].strip()}")
    details += split(PUMA_FILE, {"backend": "compiled"}, plot=False)
    return Row("first-compiled", f"{w.whole:.1f} s; longest silent gap {gap:.1f} s", ok,
               details)


# ---------------------------------------------------------------- new-structure

#: the scalar library blocks of the random structures, and their input ports
STRUCTURE_TYPES: dict[str, tuple[str, ...]] = {
    "Constant": (), "Step": (), "Gain": ("u",), "Sum": ("u0", "u1"),
    "Product": ("u0", "u1"), "Saturation": ("u",), "MathFunction": ("u",),
    "Integrator": ("u",), "TransferFunction": ("u",), "PID": ("e",),
}
#: blocks whose output does not read the input (feedback may come from them)
NO_FEEDTHROUGH = ("Integrator", "TransferFunction")


def _structure_block(kind: str, rng: random.Random) -> Any:
    """A block of ``kind`` with random parameter values and a fixed form (the same kernels,
    number of inputs and parameter kinds whatever the seed: Sum "+-", Product "**", a strictly
    proper first-order TransferFunction, a MathFunction bounded on the reals)."""
    from blocksim import blocks

    def r(lo: float, hi: float) -> float:
        return round(rng.uniform(lo, hi), 3)

    if kind == "Constant":
        return blocks.Constant(r(-1, 1))
    if kind == "Step":
        return blocks.Step(time=r(0.0, 0.5), after=r(-1, 1))
    if kind == "Gain":
        return blocks.Gain(r(-2, 2))
    if kind == "Sum":
        return blocks.Sum("+-")
    if kind == "Product":
        return blocks.Product("**")
    if kind == "Saturation":
        a = r(0.5, 2)
        return blocks.Saturation(lower=-a, upper=a)
    if kind == "MathFunction":
        return blocks.MathFunction(rng.choice(("sin", "cos", "atan", "tanh")))
    if kind == "Integrator":
        return blocks.Integrator(x0=r(-0.5, 0.5))
    if kind == "TransferFunction":
        return blocks.TransferFunction([r(0.5, 3)], [1.0, r(0.5, 5)])
    if kind == "PID":
        return blocks.PID(Kp=r(0, 2), Ki=r(0, 1), Kd=r(0, 0.1), N=r(10, 50))
    raise ValueError(f"no random block of kind {kind!r}")


def random_structure(nblocks: int = STRUCTURE_BLOCKS, seed: int = 0) -> Any:
    """A diagram of ``nblocks`` scalar library blocks (:data:`STRUCTURE_TYPES`, each at least
    once) wired at random: blocks in a random order after a Constant and a Step, each input
    fed by an earlier block, or (probability 0.3) by an Integrator or TransferFunction placed
    at or after it: feedback only through outputs without feedthrough, so no algebraic loop.
    Different seeds give different structures of the same block forms."""
    from blocksim import Diagram

    kinds = list(STRUCTURE_TYPES)
    if nblocks < len(kinds):
        raise ValueError(f"a random structure has at least {len(kinds)} blocks")
    rng = random.Random(seed)
    rest = kinds[2:] + [rng.choice(kinds) for _ in range(nblocks - len(kinds))]
    rng.shuffle(rest)
    order = [*kinds[:2], *rest]
    d = Diagram(f"random{nblocks}_{seed}")
    blocks = [d.add(_structure_block(k, rng), name=f"{k.lower()}{i}")
              for i, k in enumerate(order)]
    stateful = [i for i, k in enumerate(order) if k in NO_FEEDTHROUGH]
    for i, kind in enumerate(order):
        for port in STRUCTURE_TYPES[kind]:
            back = [j for j in stateful if j >= i]
            j = rng.choice(back) if back and rng.random() < 0.3 else rng.randrange(i)
            d.connect(blocks[j], blocks[i][port])
    return d


STATS_KEYS = ("compile_time", "compile_kernels", "compile_entries", "compile_diagram",
              "compile_loop", "compile_load", "compiled_functions", "compiled", "tier",
              "wall_time")


def _structure_child(seed: int, nblocks: int) -> None:
    """(In a new process) a compiled run of ``random_structure(nblocks, seed)``, default tier;
    prints its stats as JSON on the last line."""
    t0 = time.perf_counter()
    from blocksim import simulate

    d = random_structure(nblocks, seed)
    t1 = time.perf_counter()
    r = simulate(d, STRUCTURE_T, STRUCTURE_SOLVER, backend="compiled")
    s = r.stats
    print(json.dumps({k: s.get(k) for k in STATS_KEYS}
                     | {"imports": t1 - t0, "simulate": time.perf_counter() - t1}))


def new_structure(nblocks: int = STRUCTURE_BLOCKS, seeds: tuple[int, int] = (1, 2)) -> Row:
    """The compile time of a new structure with the block forms cached: a warm-up child on one
    random structure, then a timed child on another, sharing a fresh BLOCKSIM_CACHE_DIR."""
    b = bench()
    with tempfile.TemporaryDirectory(prefix="blocksim-structure-") as tmp:
        env = b._child_env(dict(os.environ, BLOCKSIM_CACHE_DIR=tmp))
        out = []
        for seed in seeds:
            _, text = b._process([str(Path(__file__)), "--structure-child", str(seed),
                                  str(nblocks)], env)
            out.append(json.loads(text.strip().splitlines()[-1]))
    warm, s = out
    ok = s["compile_time"] <= TARGET_NEW_STRUCTURE
    details = [
        f"timed child (seed {seeds[1]}, {nblocks} blocks, {STRUCTURE_SOLVER}, {s['tier']} "
        f"tier): compile_time {s['compile_time']:.3f} s = kernels {s['compile_kernels']:.3f}"
        f" + entries {s['compile_entries']:.3f} + diagram {s['compile_diagram']:.3f} + loop "
        f"{s['compile_loop']:.3f} + load {s['compile_load']:.3f} s; "
        f"{s['compiled_functions']} functions compiled"
        + (f" ({', '.join(s['compiled'][:8])})" if s["compiled"] else ""),
        f"  its imports {s['imports']:.2f} s, simulate() {s['simulate']:.2f} s, run "
        f"{s['wall_time'] * 1e3:.1f} ms",
        f"warm-up child (seed {seeds[0]}): compile_time {warm['compile_time']:.2f} s "
        f"({warm['tier']} tier, {warm['compiled_functions']} functions compiled: kernels "
        f"{warm['compile_kernels']:.2f}, entries {warm['compile_entries']:.2f}, loop "
        f"{warm['compile_loop']:.2f} s)",
    ]
    return Row("new-structure", f"{s['compile_time']:.2f} s compile ({s['tier']} tier)", ok,
               details)


# ---------------------------------------------------------------- json-again

#: printed after ``benchmarks/compiled.py``'s child's JSON line: the tier it ran
CHILD_TIER = '\nprint(json.dumps(dict(tier=s.get("tier"))))\n'


def json_again(files: tuple[str, ...] = (PID_FILE, PUMA_FILE), repeat: int = 3) -> Row:
    """Whole-process time of a compiled JSON diagram run again (best of ``repeat`` after one
    warm-up process), with benchmarks/compiled.py's child; the command line for reference."""
    b = bench()
    child = b.CHILD_JSON + CHILD_TIER
    details, measured, ok = [], [], True
    for name in files:
        path = str(ROOT / name)
        b._process(["-c", child, path])  # fills the caches if they are cold
        runs = []
        for _ in range(repeat):
            elapsed, text = b._process(["-c", child, path])
            lines = text.strip().splitlines()
            runs.append((elapsed, json.loads(lines[-2]) | json.loads(lines[-1])))
        elapsed, c = min(runs, key=lambda r: r[0])
        cli, _ = b._process(["-c", "import sys; from blocksim.cli import main; "
                             "sys.exit(main())", "run", path, "--backend", "compiled",
                             "--quiet"])
        ok = ok and elapsed <= TARGET_JSON_AGAIN
        short = Path(name).stem.split("_")[0].upper()
        measured.append(f"{elapsed:.2f} s ({short})")
        details += [
            f"{name}: whole process {elapsed:.2f} s ({c['tier']} tier), inside: imports "
            f"{c['imports']:.2f} s, load {c['load']:.3f} s, simulate {c['simulate']:.2f} s "
            f"(compile_load {c['compile_load']:.2f} s, {c['compiled_functions']} functions "
            f"compiled, run {c['wall_time'] * 1e3:.1f} ms); interpreter start and exit "
            f"{elapsed - c['imports'] - c['load'] - c['simulate']:.2f} s",
            f"  blocksim run {Path(name).name} --backend compiled --quiet: {cli:.2f} s",
        ]
    return Row("json-again", ", ".join(measured), ok, details)


# ---------------------------------------------------------------- warmup

def warmup(timeout: float = 1800.0) -> Row:
    """``blocksim warmup --quiet`` in a fresh process with empty caches."""
    with tempfile.TemporaryDirectory(prefix="blocksim-cold-") as tmp:
        w = watch([*blocksim_command(), "warmup", "--quiet"], fresh_env(Path(tmp)),
                  timeout=timeout)
    ok = w.returncode == 0 and w.whole <= TARGET_WARMUP
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", w.text.replace("\r", "\n"))
    last = [x.strip() for x in text.splitlines() if x.strip()]
    details = [f"exit status {w.returncode}{' (killed: timeout)' if w.timed_out else ''}; "
               f"its output: {' | '.join(last[-3:])}"]
    return Row("warmup", f"{w.whole:.1f} s", ok, details)


# ---------------------------------------------------------------- suite

def suite(pytest_args: tuple[str, ...] = ("-q", "--durations=25"),
          timeout: float = 3600.0) -> Row:
    """The test suite from a clean clone with empty caches, ``CI=true``."""
    with tempfile.TemporaryDirectory(prefix="blocksim-suite-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        head = subprocess.run(["git", "-C", str(clone), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        env = fresh_env(Path(tmp), CI="true", PYTHONPATH=str(clone))
        t0 = time.perf_counter()
        try:
            done = subprocess.run([sys.executable, "-m", "pytest", *pytest_args], cwd=clone,
                                  env=env, capture_output=True, text=True, timeout=timeout)
            output, status = done.stdout + done.stderr, done.returncode
        except subprocess.TimeoutExpired as exc:
            output, status = str(exc.stdout or ""), None
        elapsed = time.perf_counter() - t0
    lines = output.strip().splitlines()
    ok = status == 0 and elapsed <= TARGET_SUITE
    start = next((i for i, x in enumerate(lines) if "slowest" in x), max(0, len(lines) - 30))
    details = [f"clone of HEAD {head}, pytest {' '.join(pytest_args)}, exit status {status}",
               *lines[start:start + 28]]
    if lines and lines[-1] not in details:
        details.append(lines[-1])
    return Row("suite", f"{elapsed:.0f} s ({elapsed / 60:.1f} min)", ok, details)


# ---------------------------------------------------------------- pid-warm, puma-warm

def pid_warm(T: float = 10.0, repeat: int = 20) -> Row:
    """The PID example, rk4 1 ms, warm: fused and wired tiers vs the hand loop, interpreted."""
    b = bench()
    from blocksim import compile_diagram, simulate

    n = round(T / b.H)
    b.hand_rk4(b.H, 10, b.PID_PARAMS)
    t_hand, (_, x_hand, _) = b.best(lambda: b.hand_rk4(b.H, n, b.PID_PARAMS), repeat)
    plan = compile_diagram(b.example.build(with_scope=False))

    def run(fuse: bool):
        return simulate(plan, T, "rk4", dt=b.H, backend="compiled", fuse=fuse)

    firsts = {fuse: run(fuse).stats for fuse in (True, False)}
    t_fused, r_fused = b.best_run(lambda: run(True), repeat)
    t_wired, r_wired = b.best_run(lambda: run(False), repeat)
    t_interp, r_interp = b.best_run(lambda: simulate(plan, T, "rk4", dt=b.H),
                                    max(1, min(2, repeat)))
    fused, wired, speedup = t_fused / t_hand, t_wired / t_hand, t_interp / t_wired
    ok = (fused <= TARGET_FUSED and wired <= TARGET_WIRED
          and speedup >= TARGET_WIRED_VS_INTERPRETED)
    diff = max(float(abs(r_fused.x - x_hand).max()), float(abs(r_wired.x - x_hand).max()))
    diff_interp = float(abs(r_interp.x - r_wired.x).max())
    details = [
        f"hand numba RK4 {t_hand * 1e3:.3f} ms, fused {t_fused * 1e3:.3f} ms "
        f"({fused:.2f}x, target <= {TARGET_FUSED}x), wired {t_wired * 1e3:.3f} ms ({wired:.2f}x,"
        f" target <= {TARGET_WIRED:g}x), interpreted {t_interp * 1e3:.0f} ms ({speedup:.0f}x "
        f"the wired, target >= {TARGET_WIRED_VS_INTERPRETED:g}x); {n} steps",
        f"states: fused and wired vs the hand loop {diff:.1e}, interpreted vs wired "
        f"{diff_interp:.1e}",
        *(f"first {'fused' if fuse else 'wired'} call in this process: {b.compile_note(s)}"
          for fuse, s in firsts.items()),
    ]
    return Row("pid-warm", f"fused {fused:.2f}x, wired {wired:.2f}x the hand loop; wired "
               f"{speedup:.0f}x faster than interpreted", ok, details)


def puma_warm(repeat: int = 10) -> Row:
    """Puma computed torque, RK45, warm: wired / fused."""
    b = bench()
    puma = b.puma
    from blocksim import compile_diagram, simulate

    plan = compile_diagram(puma.example.build(with_scope=False))

    def run(fuse: bool):
        return simulate(plan, puma.T_END, backend="compiled", fuse=fuse, **puma.TOL)

    firsts = {fuse: run(fuse).stats for fuse in (True, False)}
    t_fused, r_fused = b.best_run(lambda: run(True), repeat)
    t_wired, r_wired = b.best_run(lambda: run(False), repeat)
    ratio = t_wired / t_fused
    diff = float(abs(r_wired["plant.q"][-1] - r_fused["plant.q"][-1]).max())
    details = [
        f"fused {t_fused * 1e3:.2f} ms (nfev {r_fused.stats['nfev']}), wired "
        f"{t_wired * 1e3:.2f} ms (nfev {r_wired.stats['nfev']}); final q agree to {diff:.1e}",
        *(f"first {'fused' if fuse else 'wired'} call in this process: {b.compile_note(s)}"
          for fuse, s in firsts.items()),
    ]
    return Row("puma-warm", f"wired {ratio:.2f}x the fused (fused {t_fused * 1e3:.2f} ms, "
               f"wired {t_wired * 1e3:.2f} ms)", ratio <= TARGET_PUMA_WIRED, details)


# ---------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help=f"skip the slowest cold rows ({', '.join(COLD_ROWS)}), fewer repeats")
    ap.add_argument("--only", nargs="+", choices=list(ROWS), metavar="ROW",
                    help=f"run only these rows ({', '.join(ROWS)})")
    ap.add_argument("--suite", action="store_true",
                    help="also time the test suite from a clean clone (a quarter of an hour)")
    ap.add_argument("--structure-child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.structure_child:
        _structure_child(*args.structure_child)
        return
    t_start = time.perf_counter()
    import numba
    import numpy as np

    print(f"blocksim cold start and compiled tiers; {os.cpu_count()} CPUs, load average "
          f"{load_text()} at start; numba {numba.__version__}, numpy {np.__version__}, Python "
          f"{sys.version.split()[0]}", flush=True)
    quick = args.quick
    measure = {
        "readme": readme,
        "first-compiled": first_compiled,
        "new-structure": new_structure,
        "json-again": lambda: json_again(repeat=2 if quick else 3),
        "warmup": warmup,
        "suite": suite,
        "pid-warm": lambda: pid_warm(repeat=5 if quick else 20),
        "puma-warm": lambda: puma_warm(repeat=3 if quick else 10),
    }
    rows: list[Row] = []
    for key in ROWS:
        if args.only and key not in args.only:
            continue
        if key == "suite" and not args.suite:
            row = Row(key, "not measured (run with --suite)", None)
        elif quick and key in COLD_ROWS and not (args.only and key in args.only):
            row = Row(key, "not measured (--quick)", None)
        else:
            t0 = time.perf_counter()
            try:
                row = measure[key]()
            except Exception as exc:  # one row's failure is reported, the others still run
                row = Row(key, f"failed: {type(exc).__name__}", False,
                          str(exc).strip().splitlines()[-20:])
            row.details.append(f"(row measured in {time.perf_counter() - t0:.0f} s, load "
                               f"average {load_text()})")
        rows.append(row)
        print()
        print("\n".join(row.lines()), flush=True)
    print()
    print(f"Summary ({time.perf_counter() - t_start:.0f} s, load average {load_text()} at the "
          f"end):")
    print("\n".join(table(rows)))


if __name__ == "__main__":
    main()
