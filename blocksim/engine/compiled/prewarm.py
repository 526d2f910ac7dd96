"""Compiling a data-wired loop in another process while this one prepares the diagram.

On a new installation the first compiled run of a diagram compiles three things one after
the other: the numerics its blocks' dry run calls, the block entries and kernels, and the
data-wired loop of its integration method (10-30 s for Dormand-Prince). The loop does not
depend on the diagram, so ``blocksim run`` starts compiling it at once in a second process
(:func:`start`) — on another core — and the run waits for that process (:func:`wait`) only
when it reaches the loop, which it then loads from numba's disk cache.

The loop is chosen before the diagram is known: the general ``run`` for Dormand–Prince, the
lean ``run_fixed`` for the fixed-step methods (diagrams without zero crossings; one with
crossings compiles ``run`` itself).
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np

from blocksim.engine.compiled.steps import METHODS, Method

#: background compiles started by this process, by (method, loop function)
_PENDING: dict[tuple[int, str], subprocess.Popen[bytes]] = {}


def loop_function(method: Method) -> str:
    """The loop function a diagram without zero crossings runs with ``method``."""
    return "run" if method is Method.DOPRI else "run_fixed"


def _dispatcher(method: Method, function: str) -> Any:
    from blocksim.engine.compiled.wiring import wired_module

    return getattr(wired_module(method), function)


def cached(method: Method, function: str) -> bool:
    """Whether numba's disk cache holds the wired loop ``function`` of ``method``."""
    from pathlib import Path

    cache = getattr(_dispatcher(method, function), "_cache", None)
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    return index is not None and Path(index).exists()


def start(solver: str) -> bool:
    """Start compiling the wired loop of ``solver`` in a background process unless it is
    cached (or being compiled); returns whether a process was started."""
    if solver not in METHODS:
        return False
    method = METHODS[solver]
    function = loop_function(method)
    key = (int(method), function)
    if key in _PENDING or cached(method, function):
        return False
    _PENDING[key] = subprocess.Popen(
        [sys.executable, "-m", "blocksim.engine.compiled.prewarm", solver],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return True


def wait(method: Method, function: str) -> None:
    """Wait for the background compile of that loop, if one was started here."""
    proc = _PENDING.pop((int(method), function), None)
    if proc is not None:
        if proc.poll() is None:
            from blocksim.engine.compiled import compile_watch

            compile_watch.announce(f"blocksim: waiting for the data-wired {method.name} loop, "
                                   f"compiling in the background (once per installation)...")
        proc.wait()


def loop_arguments() -> tuple[Any, ...]:
    """Arguments of the types a wired loop is called with (sizes do not matter to numba):
    ``pv, pi, x0, xd0, sig0, sched, opts`` as :mod:`.backend` passes them."""
    from blocksim.engine.compiled.loop import LoopOptions
    from blocksim.engine.schedule import Schedule

    f8 = np.zeros(1)
    sched = Schedule(np.zeros(1), np.zeros(1), np.zeros((1, 1), dtype=np.bool_), np.zeros(1),
                     np.zeros(1, dtype=np.bool_), np.zeros(1, dtype=np.bool_))
    opts = LoopOptions(0.1, 1e-6, 1e-9, 1.0, 2, True, 1e-10, 1e-8, 50,
                       np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.bool_),
                       np.zeros(1, dtype=np.bool_), np.zeros(1, dtype=np.uint8), 2, 1)
    return f8, np.zeros(1, dtype=np.int64), f8, f8, f8, sched, opts


def compile_loop(solver: str) -> None:
    """Compile (or load from numba's cache) the wired loop of ``solver`` that a diagram
    without zero crossings runs (:func:`loop_function`)."""
    import numba

    method = METHODS[solver]
    dispatcher = _dispatcher(method, loop_function(method))
    dispatcher.compile(tuple(numba.typeof(a) for a in loop_arguments()))


if __name__ == "__main__":
    compile_loop(sys.argv[1])


__all__ = ["cached", "compile_loop", "loop_arguments", "loop_function", "start", "wait"]
