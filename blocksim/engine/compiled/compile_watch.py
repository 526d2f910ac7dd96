"""Where compile time goes, and telling the user when a compile starts.

:class:`CompileWatch` listens to numba's compile events (fired only when a function is really
compiled, not when it is loaded from numba's disk cache) while a compiled run prepares, and
splits the time into *kernels* (the blocks' kernels and the numerics they call), *diagram*
(the generated ``evaluate``, ``rhs``, ...) and *loop* (the generated ``run``/``run_batch``
with the integration loop inlined), each exclusive of what it called. The first compile of
each kind in a process is announced with one line (by default on stderr), since a cold
compile takes long enough that silence looks like a hang.

Ctrl-C while it compiles: numba calls back into Python from LLVM (ctypes callbacks), and a
KeyboardInterrupt raised inside such a callback is printed as "Exception ignored" and lost: the
compile went on and the run with it. In the main thread, with Python's own SIGINT handler in
place, the watch remembers the signal and raises KeyboardInterrupt again at the next compile
event, or when the compile ends.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from numba.core import event as numba_event

KERNEL_MESSAGE = ("blocksim: compiling blocksim kernels, once per installation (about a "
                  "minute; `blocksim warmup` does it ahead)...")
#: what the first compile of each kind in a process announces (the diagram's own: below)
MESSAGES = {
    "kernels": KERNEL_MESSAGE,
    "entries": "blocksim: compiling block entries of new block forms, once per installation "
               "(about a second each)...",
    "loop": "blocksim: compiling the data-wired loop, once per installation and solver "
            "(10-30 s)...",
}
WIRED = "blocksim.engine.compiled.wired"
_announced: set[str] = set()


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


#: called with each announcement; the CLI replaces it to drive its progress display
announce: Callable[[str], None] = _stderr


class CompileWatch(numba_event.Listener):
    """Exclusive compile seconds per kind, and the number of functions compiled.

    Parameters
    ----------
    module_name : str
        The generated module of the diagram (its functions are "diagram" or "loop").
    diagram_name : str
        Used in the announcement of a diagram compile.
    """

    #: the functions of loop_template.py that compile on their own (the entry points; the
    #: steps, ``locate`` and ``major`` are inlined into them)
    LOOP_FUNCTIONS = ("run", "run_fixed", "run_batch", "run_batch_fixed")

    def __init__(self, module_name: str, diagram_name: str):
        self.module_name = module_name
        self.diagram_name = diagram_name
        self.seconds = {"kernels": 0.0, "diagram": 0.0, "loop": 0.0, "entries": 0.0}
        self.compiled: list[str] = []
        self.by_function: dict[str, float] = {}
        self._stack: list[list[Any]] = []
        #: a SIGINT arrived while compiling (see the module docstring)
        self.interrupted = False
        self._saved_handler: Any = None

    def _kind(self, dispatcher: Any) -> str:
        fn = getattr(dispatcher, "py_func", None)
        module = getattr(fn, "__module__", None) or ""
        if module.startswith("blocksim_entry_"):
            return "entries"
        if module.startswith("blocksim_wired_") or module == WIRED:
            return "loop"
        if module != self.module_name:
            return "kernels"
        return "loop" if fn.__name__ in self.LOOP_FUNCTIONS else "diagram"

    def _on_sigint(self, signum: int, frame: Any) -> None:
        self.interrupted = True
        raise KeyboardInterrupt

    def _raise_if_interrupted(self) -> None:
        if self.interrupted:
            raise KeyboardInterrupt

    def on_start(self, event: Any) -> None:
        self._raise_if_interrupted()
        dispatcher = event.data.get("dispatcher")
        kind = self._kind(dispatcher)
        fn = getattr(dispatcher, "py_func", None)
        self.compiled.append(f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__name__', '?')}")
        if kind in MESSAGES:
            if kind not in _announced:
                _announced.add(kind)
                announce(MESSAGES[kind])
        elif self.module_name not in _announced:
            _announced.add(self.module_name)
            announce(f"blocksim: compiling diagram '{self.diagram_name}', once per diagram "
                     f"structure (cached on disk)...")
        self._stack.append([kind, time.perf_counter(), 0.0, self.compiled[-1]])

    def on_end(self, event: Any) -> None:
        self._raise_if_interrupted()
        if not self._stack:
            return
        kind, start, inner, name = self._stack.pop()
        total = time.perf_counter() - start
        self.seconds[kind] += total - inner
        self.by_function[name] = self.by_function.get(name, 0.0) + total - inner
        if self._stack:
            self._stack[-1][2] += total

    def __enter__(self) -> CompileWatch:
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._saved_handler = signal.signal(signal.SIGINT, self._on_sigint)
        numba_event.register("numba:compile", self)
        return self

    def __exit__(self, exc_type: Any, *exc: object) -> None:
        numba_event.unregister("numba:compile", self)
        if self._saved_handler is not None:
            signal.signal(signal.SIGINT, self._saved_handler)
            self._saved_handler = None
        if self.interrupted and exc_type is None:  # the KeyboardInterrupt was swallowed
            raise KeyboardInterrupt
