"""Ctrl-C during a compiled run: the loop runs on a worker thread and stops when asked.

A compiled loop holds no Python frames, so Python cannot raise KeyboardInterrupt inside it
(before this, Ctrl-C surfaced only when the loop returned, as numba's SystemError "returned a
result with an exception set", and everything recorded was lost). The loops release the GIL
(``nogil=True``) and poll ``LoopOptions.interrupt[0]`` once per step; :func:`interruptible`
runs the loop on a worker thread while the main thread waits, so the main thread's SIGINT
handler runs at once, sets the flag, and the loop returns within a step with everything it
recorded (status ``INTERRUPTED``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

import numpy as np

R = TypeVar("R")

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _worker() -> ThreadPoolExecutor:
    """One worker thread, started on the first use and kept (a new thread per run costs more
    than a short run)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(1, thread_name_prefix="blocksim-compiled")
        return _pool


def interrupt_flag() -> np.ndarray:
    """A fresh flag for :class:`~blocksim.engine.compiled.loop.LoopOptions` ``interrupt``."""
    return np.zeros(1, dtype=np.uint8)


def interruptible(call: Callable[[], R], flag: np.ndarray) -> tuple[R, bool]:
    """``call()`` (a compiled loop that polls ``flag[0]``), stoppable with Ctrl-C.

    In the main thread the call runs on a worker thread; a KeyboardInterrupt while waiting
    sets ``flag[0]`` and waits for the loop to return what it has. Elsewhere (signals reach
    only the main thread) the call runs in place.

    Returns
    -------
    (result, interrupted)
        What ``call`` returned, and whether Ctrl-C asked it to stop.
    """
    if threading.current_thread() is not threading.main_thread():
        return call(), False
    future = _worker().submit(call)
    interrupted = False
    while True:
        try:
            # a bounded wait: the kernel may deliver SIGINT to the worker thread, which does
            # not wake a main thread blocked without a timeout, and Python runs its handler
            # only in the main thread; woken every 50 ms, it runs the handler then
            return future.result(timeout=0.05), interrupted
        except FutureTimeout:
            continue
        except KeyboardInterrupt:
            flag[0] = 1
            interrupted = True


def interrupted(message: str, result: Any) -> KeyboardInterrupt:
    """The KeyboardInterrupt a run stopped by Ctrl-C raises, carrying what it recorded as
    ``.result`` (a SimResult, or a BatchRun for an ensemble)."""
    exc = KeyboardInterrupt(message)
    exc.result = result  # type: ignore[attr-defined]
    return exc
