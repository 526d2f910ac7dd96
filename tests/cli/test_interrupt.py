"""Ctrl-C: a run interrupted mid-way keeps and writes what it computed (status
"interrupted", exit 130), and a Ctrl-C while the command starts prints one line, exit 130.
Real processes receive a real SIGINT."""

import fcntl
import json
import math
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import numpy as np
import pytest

from blocksim.engine.record import SimResult

from ..processes import sigint_default

ROOT = Path(__file__).parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


#: 500 s of x' = -x / 100 in 1e-4 s steps (a minute or more), sampled every 0.1 s (major
#: times, where the progress bar advances)
LONG = {
    "blocksim": 1,
    "blocks": {
        "x": {"type": "Integrator", "params": {"x0": 1.0}},
        "g": {"type": "Gain", "params": {"K": -0.01}},
        "z": {"type": "UnitDelay", "params": {"clock": 0.1}},
    },
    "wires": [{"from": "x", "to": ["g", "z"]}, {"from": "g", "to": "x"}],
    "simulation": {"T": 500.0, "solver": "rk4", "dt": 1e-4},
}


def _wait_for(proc, words, timeout=120.0, fd=None):
    """Read the process's stderr (or the file descriptor ``fd``) until ``words`` appear; the
    text read."""
    seen = ""
    end = time.monotonic() + timeout
    fd = proc.stderr.fileno() if fd is None else fd
    os.set_blocking(fd, False)
    while time.monotonic() < end and proc.poll() is None:
        try:
            chunk = os.read(fd, 65536)
        except (BlockingIOError, OSError):  # nothing yet (a pty: EIO once it is closed)
            chunk = b""
        seen += chunk.decode(errors="replace")
        if words in seen:
            os.set_blocking(fd, True)
            return seen
        time.sleep(0.05)
    raise AssertionError(f"never saw {words!r}; stderr: {seen!r}")


def _read_rest(fd: int) -> str:
    """What is left to read on the pseudo-terminal ``fd`` (until its other end closes)."""
    os.set_blocking(fd, True)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the process closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode(errors="replace")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux: /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_for_cpu(proc, seconds: float, timeout: float = 120.0) -> None:
    """Wait until the process has used ``seconds`` of CPU (wall time where there is no
    /proc)."""
    if not Path(f"/proc/{proc.pid}/stat").exists():
        time.sleep(seconds)
        return
    end = time.monotonic() + timeout
    while _cpu_seconds(proc.pid) < seconds:
        assert proc.poll() is None and time.monotonic() < end
        time.sleep(0.05)


def test_ctrl_c_during_an_interpreted_run_writes_the_partial_result(tmp_path):
    path = tmp_path / "long.json"
    path.write_text(json.dumps(LONG))
    out, png = tmp_path / "r.npz", tmp_path / "r.png"
    master, terminal = pty.openpty()  # a user's terminal: the progress bar is drawn there
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 100 wide
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "blocksim.cli",
            "run",
            str(path),
            "--out",
            str(out),
            "--plot",
            str(png),
        ],
        stderr=terminal,
        stdout=subprocess.PIPE,
        env=ENV,
        cwd=tmp_path,
        preexec_fn=sigint_default,
    )
    os.close(terminal)
    try:
        # 1 % done: the run is under way, past the first steps (whose kernels a cold numba
        # cache compiles; a Ctrl-C inside numba's compiler is not the case under test)
        seen = _wait_for(proc, "1%|", fd=master)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    finally:
        proc.kill()
    err = seen + _read_rest(master)
    assert proc.returncode == 130, err
    assert time.monotonic() - t0 < 90  # writes the npz and the plot (matplotlib) first
    assert "interrupted at t = " in err and "partial results written:" in err
    assert "Traceback" not in err
    r = SimResult.load(out)
    assert r.status == "interrupted" and "interrupted (Ctrl-C) at t = " in r.message
    assert 0 < r.t[-1] < 500 and len(r.t) > 100
    assert r["x.y"][-1] == pytest.approx(math.exp(-0.01 * r.t[-1]), rel=1e-9)
    assert png.exists() and png.stat().st_size > 1000


def test_ctrl_c_while_the_command_starts_prints_one_line(tmp_path):
    # the console script's code under its name; it says when Python itself has started, so
    # the signal lands while blocksim (numpy, scipy, ...) is being imported
    script = tmp_path / "blocksim"
    script.write_text(
        "import sys\nsys.stderr.write('python started\\n')\nsys.stderr.flush()\n"
        "from blocksim.cli import main\nsys.exit(main())\n"
    )
    path = tmp_path / "long.json"
    path.write_text(json.dumps(LONG))
    proc = subprocess.Popen(
        [sys.executable, str(script), "run", str(path), "--quiet"],
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=ENV,
        cwd=tmp_path,
        preexec_fn=sigint_default,
    )
    try:
        seen = _wait_for(proc, "python started\n")
        time.sleep(0.05)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert time.monotonic() - t0 < 10
    assert proc.returncode == 130, seen + err.decode()
    assert (seen + err.decode()).splitlines() == ["python started", "blocksim: interrupted"]
    assert out == b""


def test_ctrl_c_during_a_compiled_run_writes_the_partial_result(tmp_path):
    from blocksim import io, simulate

    path = tmp_path / "long.json"
    # hours of 1e-4 s steps, but few clock hits and recorded points: the schedule of major
    # times is computed before the run starts (a 0.1 s clock over 1e6 s: 1e7 hits, 3 s of
    # CPU, and a Ctrl-C then came before the run had begun)
    blocks = {**LONG["blocks"], "z": {"type": "UnitDelay", "params": {"clock": 100.0}}}
    doc = {**LONG, "blocks": blocks,
           "simulation": {"T": 1e6, "solver": "rk4", "dt": 1e-4, "record_dt": 100.0,
                          "fuse": True}}
    path.write_text(json.dumps(doc))
    # compiled here first (the same structure, fused: the faster tier, so that the run is well
    # into its records when the Ctrl-C comes): the child loads it from the disk cache
    simulate(io.load(path).diagram, 0.01, solver="rk4", dt=1e-4, backend="compiled", fuse=True)
    out = tmp_path / "r.npz"
    proc = subprocess.Popen(
        [sys.executable, "-m", "blocksim.cli", "run", str(path), "--backend", "compiled",
         "--max-steps", "1e12", "--out", str(out)],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV, cwd=tmp_path,
        preexec_fn=sigint_default,
    )
    try:
        # the progress bar moves only when a compiled run ends: wait past the start (imports,
        # the cached loop loaded: about 1.7 s of CPU) into the run, which would take minutes.
        # Counted in the child's CPU time, not wall time: a loaded machine starts it slowly
        _wait_for_cpu(proc, 5.0)
        assert proc.poll() is None
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    err = err.decode()
    assert proc.returncode == 130, err
    assert time.monotonic() - t0 < 30
    assert "partial results written:" in err and "Traceback" not in err
    r = SimResult.load(out)
    assert r.status == "interrupted" and 0 < r.t[-1] < 1e6 and len(r.t) > 10
    np.testing.assert_allclose(r["x.y"], np.exp(-0.01 * r.t), rtol=1e-9)


def test_ctrl_c_while_a_compiled_run_compiles_exits_cleanly(tmp_path):
    path = tmp_path / "long.json"
    path.write_text(json.dumps(LONG))
    env = {**ENV, "BLOCKSIM_CACHE_DIR": str(tmp_path / "cache")}  # nothing cached: it compiles
    proc = subprocess.Popen(  # the fused tier: it compiles the diagram's own module
        [sys.executable, "-m", "blocksim.cli", "run", str(path), "--backend", "compiled",
         "--fuse", "yes", "--out", str(tmp_path / "r.npz")],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=tmp_path,
        preexec_fn=sigint_default,
    )
    try:
        seen = _wait_for(proc, "compiling diagram")
        time.sleep(0.5)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        waited = time.monotonic() - t0
    finally:
        proc.kill()
    err = seen + err.decode()
    assert proc.returncode == 130, err
    assert waited < 10 and "Traceback" not in err and "interrupted" in err


def test_ctrl_c_while_the_command_starts_exits_even_if_an_import_swallows_it(tmp_path):
    # a library that catches the KeyboardInterrupt raised inside its import (numpy makes an
    # ImportError of it) must not let the command go on as if nothing had been pressed
    script = tmp_path / "blocksim"
    script.write_text(
        "import sys, time\nimport blocksim\n"
        "sys.stderr.write('ready\\n')\nsys.stderr.flush()\n"
        "try:\n    time.sleep(30)\nexcept BaseException:\n    pass\n"
        "sys.stderr.write('went on\\n')\n"
    )
    proc = subprocess.Popen([sys.executable, str(script)], stderr=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=ENV, cwd=tmp_path,
                            preexec_fn=sigint_default)
    try:
        seen = _wait_for(proc, "ready\n")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert (seen + err.decode()).splitlines() == ["ready", "blocksim: interrupted"]
