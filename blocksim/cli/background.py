"""Compiling the fused tier in the background after a long data-wired run (``blocksim run``).

A compiled run with ``fuse="auto"`` whose diagram has no fused module yet runs at once on the
data-wired tier (nothing to compile). When that run was long enough that the fused tier would
pay for itself (:data:`MIN_WIRED_SECONDS` of run time, or ``$BLOCKSIM_BACKGROUND_FUSE_SECONDS``),
``blocksim run`` starts one detached process that compiles the fused module of the same file
with the same settings (a run to T = 0, output discarded); the next ``run`` of the file finds it
compiled and takes the fused tier. It is skipped in the background process itself and when
``$BLOCKSIM_BACKGROUND_FUSE`` is ``0``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from typing import Any

from blocksim.engine.config import RunConfig

#: a data-wired run at least this long [s] starts the background fused compile
MIN_WIRED_SECONDS = 2.0


def _threshold() -> float:
    try:
        return float(os.environ.get("BLOCKSIM_BACKGROUND_FUSE_SECONDS", MIN_WIRED_SECONDS))
    except ValueError:
        return MIN_WIRED_SECONDS


def wanted(config: RunConfig, stats: dict[str, Any]) -> bool:
    """Whether a finished run asks for the fused module to be compiled in the background."""
    return (config.fuse == "auto" and stats.get("tier") == "wired"
            and os.environ.get("BLOCKSIM_BACKGROUND_FUSE", "1") != "0"
            and float(stats.get("wall_time", 0.0)) >= _threshold())


def command(args: argparse.Namespace, config: RunConfig) -> list[str]:
    """The command line that compiles the fused module of ``args.file`` with ``config``'s
    solver settings (the module depends on the structure and the method only)."""
    cmd = [sys.executable, "-m", "blocksim.cli", "run", str(args.file), "--T", "0",
           "--backend", "compiled", "--fuse", "yes", "--quiet", "--solver", config.solver]
    if config.dt is not None:
        cmd += ["--dt", repr(config.dt)]
    for s in args.set or ():
        cmd += ["--set", s]
    for d in args.allow_dir or ():
        cmd += ["--allow-dir", d]
    return cmd


def start(args: argparse.Namespace, config: RunConfig) -> subprocess.Popen[bytes]:
    """Start the background compile (detached: it outlives this command, output discarded)."""
    env = {**os.environ, "BLOCKSIM_BACKGROUND_FUSE": "0"}
    return subprocess.Popen(command(args, config), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                            start_new_session=True)


__all__ = ["MIN_WIRED_SECONDS", "command", "start", "wanted"]
