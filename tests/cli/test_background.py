"""`blocksim run`: a long data-wired run compiles the fused tier in the background for the next.

A compiled run with the default ``fuse="auto"`` runs on the data-wired tier when the diagram's
fused module is not compiled yet; when that run was long (``MIN_WIRED_SECONDS``, lowered to 0
here by ``BLOCKSIM_BACKGROUND_FUSE_SECONDS``) it starts one detached process that compiles the
fused module, and the next run of the file takes the fused tier, compiling nothing.
"""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from blocksim.cli import background
from blocksim.engine.config import RunConfig

LOOP = str(Path(__file__).resolve().parents[2] / "diagrams" / "first_order_loop.json")


def _run(env, *extra):
    return subprocess.run([sys.executable, "-m", "blocksim.cli", "run", LOOP, "--backend",
                           "compiled", "--solver", "rk4", "--dt", "0.01", *extra],
                          capture_output=True, text=True, env=env, timeout=300)


def _gone(pid: int, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.2)
    return False


def test_a_long_wired_run_compiles_the_fused_tier_for_the_next_run(tmp_path):
    env = {**os.environ, "BLOCKSIM_CACHE_DIR": str(tmp_path / "cache"),
           "BLOCKSIM_BACKGROUND_FUSE_SECONDS": "0"}
    first = _run(env)
    assert first.returncode == 0, first.stderr
    assert "wired tier" in first.stdout
    found = re.search(r"in the background \(pid (\d+)", first.stderr)
    assert found, first.stderr
    assert _gone(int(found.group(1)), 240), "the background compile did not finish"
    second = _run(env)
    assert second.returncode == 0, second.stderr
    assert "fused tier" in second.stdout
    assert "in the background" not in second.stderr  # nothing left to compile


def test_short_runs_and_explicit_tiers_start_nothing():
    stats = {"tier": "wired", "wall_time": 0.01}
    assert not background.wanted(RunConfig(T=1.0), stats)
    assert background.wanted(RunConfig(T=1.0), {**stats, "wall_time": 60.0})
    assert not background.wanted(RunConfig(T=1.0, fuse=False), {**stats, "wall_time": 60.0})
    assert not background.wanted(RunConfig(T=1.0), {"tier": "fused", "wall_time": 60.0})
