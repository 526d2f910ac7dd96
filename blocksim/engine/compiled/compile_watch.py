"""Where compile time goes, and telling the user when a compile starts.

:class:`CompileWatch` listens to numba's compile events (fired only when a function is really
compiled, not when it is loaded from numba's disk cache) while a compiled run prepares, and
splits the time into *kernels* (the blocks' kernels and the numerics they call), *entries*
(the data-wired tier's block entries, ``cfunc`` adapters of :mod:`.adapters`), *diagram* (the
fused tier's generated ``evaluate``, ``rhs``, ...) and *loop* (the loop's entry points
``run``/``run_batch``..., with the integration loop inlined, and the data-wired tier's
interpreter), each exclusive of what it called; it also keeps every compiled function's
exclusive seconds and signatures (:meth:`CompileWatch.report`, ``blocksim warmup --report``).
numba's internal functions and blocksim's engine helpers count toward the function whose
compile needed them.

numba fires no compile event for a ``cfunc``: an entry's compile is seen through numba's
compiler lock (``numba:compiler_lock`` events), which ``CFunc.compile`` holds throughout.

The first compile of each kind in a run is announced with one line (by default on stderr),
since a cold compile takes long enough that silence looks like a hang; the line says what
compiles, how often that happens (:func:`~blocksim.engine.compile_notice.cache_scope`: "once
per installation" only when numba caches into the package itself) and roughly how long.

Ctrl-C while it compiles: numba calls back into Python from LLVM (ctypes callbacks), and a
KeyboardInterrupt raised inside such a callback is printed as "Exception ignored" and lost: the
compile went on and the run with it. In the main thread, with Python's own SIGINT handler in
place, the watch remembers the signal and raises KeyboardInterrupt again at the next compile
event, or when the compile ends.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

from numba.core import event as numba_event

from blocksim.engine.compile_notice import NOT_CACHED, cache_scope, function_name

#: what the first compile of each kind in a run announces ({what}: the diagram and the first
#: function, {scope}: how often, {method}: the loop's integration method)
MESSAGES = {
    "kernels": "blocksim: compiling blocksim kernels for {what}, {scope} (seconds per block "
               "type, ~10-30 s for the arm family; `blocksim warmup` does it ahead)...",
    "entries": "blocksim: compiling block entries of new block forms for {what}, {scope} "
               "(up to a second or two each; `blocksim warmup` does it ahead)...",
    "loop": "blocksim: compiling the data-wired {method} loop, {scope} ({time}; `blocksim "
            "warmup` does it ahead)...",
    "diagram": "blocksim: compiling diagram '{diagram}' (fused tier), {scope} (seconds to a "
               "minute)...",
}
WIRED = "blocksim.engine.compiled.wired"
#: the data-wired loops: package modules ``wired_euler``, ... (or generated ``blocksim_wired_*``
#: in a development tree) and their interpreter ``wired``
WIRED_PREFIXES = (WIRED, "blocksim_wired_")
#: the names of the integration methods in the loop message (``Method`` values)
METHOD_NAMES = {0: "Euler", 1: "RK4", 2: "Dormand-Prince"}
#: how long a cold compile of a wired loop's ``run`` takes (cold warmup, 2 cores: Euler 3 s,
#: RK4 5 s, Dormand-Prince 7.5 s alone, 12 / 18 / 32 s with both cores busy; ``run_fixed``
#: 2-7 s, the batch loops 1-3 s)
LOOP_TIMES = {"Euler": "5-15 s", "RK4": "5-20 s", "Dormand-Prince": "10-30 s"}
#: compile categories (:meth:`CompileWatch.report`)
KINDS = ("kernels", "entries", "diagram", "loop")
_LOCK = "numba:compiler_lock"
_COMPILE = "numba:compile"
_active = [0]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


#: called with each announcement; the CLI replaces it to drive its progress display
announce: Callable[[str], None] = _stderr


def active() -> int:
    """How many compile watches are listening now (the interpreted notice of
    :mod:`blocksim.engine.compile_notice` leaves the announcing to them)."""
    return _active[0]


def _compiling_cfunc(frame: FrameType | None, depth: int = 12) -> Any:
    """The ``CFunc`` whose ``compile`` takes numba's compiler lock at ``frame`` (its
    ``global_compiler_lock`` wrapper is a few frames above the event), or None."""
    while frame is not None and depth > 0:
        if frame.f_code.co_name == "_acquire_compile_lock":
            args = frame.f_locals.get("args") or ()
            target = args[0] if args else None
            if type(target).__name__ == "CFunc" and hasattr(target, "_pyfunc"):
                return target
            return None
        frame = frame.f_back
        depth -= 1
    return None


def _in_cache(cfunc: Any) -> bool:
    """Whether numba's cache has an index for ``cfunc`` (it will load rather than compile)."""
    index = getattr(getattr(getattr(cfunc, "_cache", None), "_cache_file", None),
                    "_index_path", None)
    return bool(index) and os.path.exists(index)


@dataclass
class Compiled:
    """One compiled function of a :class:`CompileWatch`: its category, exclusive seconds
    (summed over its compiles) and distinct signatures."""

    name: str
    kind: str
    seconds: float = 0.0
    signatures: set[str] | None = None

    @property
    def nsignatures(self) -> int:
        return len(self.signatures or ())


def _in_llvm_callback(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs inside a ctypes callback from LLVM (llvmlite's object cache
    notifications): an exception raised there cannot leave it."""
    depth = 0
    while frame is not None and depth < 64:
        if "llvmlite" in frame.f_code.co_filename:
            return True
        frame, depth = frame.f_back, depth + 1
    return False


class CompileWatch(numba_event.Listener):
    """Exclusive compile seconds per kind and per function, and the functions compiled.

    Parameters
    ----------
    module_name : str
        The generated module of the diagram (its functions are "diagram" or "loop").
    diagram_name : str
        Used in the announcements.
    quiet : bool
        Announce nothing (``blocksim warmup`` shows its own progress).
    """

    #: the functions of loop_template.py that compile on their own (the entry points; the
    #: steps, ``locate`` and ``major`` are inlined into them)
    LOOP_FUNCTIONS = ("run", "run_fixed", "run_batch", "run_batch_fixed")

    def __init__(self, module_name: str, diagram_name: str, quiet: bool = False):
        self.module_name = module_name
        self.quiet = quiet
        self.diagram_name = diagram_name
        self.seconds = dict.fromkeys(KINDS, 0.0)
        #: every compile, in order (``module.qualname``; an entry counts once)
        self.compiled: list[str] = []
        self.by_function: dict[str, float] = {}
        #: per compiled function: kind, exclusive seconds, signatures
        self.functions: dict[str, Compiled] = {}
        self._stack: list[list[Any]] = []
        self._announced: set[str] = set()
        self._lock_depth = 0
        self._entry: Any = None  # the entry (CFunc) whose compile holds the lock
        self._entry_t0 = 0.0
        self._entry_inner = 0.0
        #: a SIGINT arrived while compiling (see the module docstring)
        self.interrupted = False
        self._saved_handler: Any = None
        self._depth = 0  # nested ``with`` of this watch
        self._thread: threading.Thread | None = None

    # -- classification and announcements ----------------------------------------------

    def _kind(self, dispatcher: Any) -> str:
        fn = getattr(dispatcher, "py_func", None)
        module = getattr(fn, "__module__", None) or ""
        if module.startswith("blocksim_entry_"):
            return "entries"
        if module.startswith(WIRED_PREFIXES):
            return "loop"
        if module and (module == self.module_name or module.startswith("blocksim_plan_")):
            return "loop" if fn.__name__ in self.LOOP_FUNCTIONS else "diagram"
        if module == "numba" or module.startswith(("numba.", "blocksim.engine.")):
            # numba's internals and the engine's helpers: for whoever needed them
            if self._stack:
                return self._stack[-1][0]
            if self._entry is not None:
                return "entries"
            return "loop" if module.startswith("blocksim.engine.") else "kernels"
        return "kernels"

    def _say(self, key: str, message: str) -> None:
        if key not in self._announced:
            self._announced.add(key)
            if not self.quiet:
                announce(message)

    def _what(self, name: str) -> str:
        diagram = f"diagram '{self.diagram_name}'" if self.diagram_name else "a diagram"
        return f"{diagram} (first: {name})"

    def _announce_compile(self, kind: str, dispatcher: Any, name: str) -> None:
        if kind == "kernels":
            self._say(kind, MESSAGES[kind].format(what=self._what(name),
                                                  scope=cache_scope(dispatcher)))
        elif kind == "entries":
            what = f"diagram '{self.diagram_name}'" if self.diagram_name else "a diagram"
            self._say(kind, MESSAGES[kind].format(what=what, scope=cache_scope(dispatcher)))
        elif kind in ("diagram", "loop"):
            fn = getattr(dispatcher, "py_func", None)
            module = getattr(fn, "__module__", "") or ""
            if module.startswith(WIRED_PREFIXES):
                method = METHOD_NAMES.get(getattr(fn, "__globals__", {}).get("METHOD"), "")
                key = module if module != WIRED else "loop"
                if key == "loop" and any(k.startswith(WIRED_PREFIXES) for k in self._announced):
                    return  # the interpreter compiles inside an announced loop
                self._say(key, MESSAGES["loop"].format(
                    method=method or "integration", scope=cache_scope(dispatcher),
                    time=LOOP_TIMES.get(method, "up to a few minutes")))
            elif module == self.module_name or module.startswith("blocksim_plan_"):
                scope = cache_scope(dispatcher)
                scope = scope if scope == NOT_CACHED else "once per diagram structure (cached)"
                self._say(module, MESSAGES["diagram"].format(diagram=self.diagram_name,
                                                             scope=scope))

    def _record(self, name: str, kind: str, seconds: float, signature: str) -> None:
        self.seconds[kind] += seconds
        self.by_function[name] = self.by_function.get(name, 0.0) + seconds
        f = self.functions.get(name)
        if f is None:
            f = self.functions[name] = Compiled(name, kind, 0.0, set())
        f.seconds += seconds
        assert f.signatures is not None
        f.signatures.add(signature)

    # -- numba's events ------------------------------------------------------------------

    def _on_sigint(self, signum: int, frame: Any) -> None:
        self.interrupted = True
        if _in_llvm_callback(frame):  # it would be printed and lost: raised at the next event
            return
        raise KeyboardInterrupt

    def _raise_if_interrupted(self) -> None:
        if self.interrupted:
            raise KeyboardInterrupt

    def on_start(self, event: Any) -> None:
        self._raise_if_interrupted()
        if getattr(event, "kind", _COMPILE) == _LOCK:
            self._lock_started()
            return
        data = getattr(event, "data", None) or {}
        dispatcher = data.get("dispatcher")
        kind = self._kind(dispatcher)
        name = function_name(dispatcher)
        self.compiled.append(name)
        self._announce_compile(kind, dispatcher, name)
        signature = str(tuple(data.get("args") or ()))
        self._stack.append([kind, time.perf_counter(), 0.0, name, signature])

    def on_end(self, event: Any) -> None:
        self._raise_if_interrupted()
        if getattr(event, "kind", _COMPILE) == _LOCK:
            self._lock_ended()
            return
        if not self._stack:
            return
        kind, start, inner, name, signature = self._stack.pop()
        total = time.perf_counter() - start
        self._record(name, kind, total - inner, signature)
        if self._stack:
            self._stack[-1][2] += total
        elif self._entry is not None:
            self._entry_inner += total

    def _lock_started(self) -> None:
        if threading.current_thread() is not self._thread:  # not the run's compiles
            return
        self._lock_depth += 1
        if self._lock_depth != 1 or self._stack:
            return
        cfunc = _compiling_cfunc(sys._getframe(2))
        if cfunc is None or not function_name(cfunc).startswith("blocksim_entry_"):
            return
        self._entry, self._entry_t0, self._entry_inner = cfunc, time.perf_counter(), 0.0
        if not _in_cache(cfunc):
            self._announce_compile("entries", cfunc, function_name(cfunc))

    def _lock_ended(self) -> None:
        if threading.current_thread() is not self._thread:
            return
        self._lock_depth = max(0, self._lock_depth - 1)
        if self._lock_depth or self._entry is None:
            return
        cfunc, self._entry = self._entry, None
        if getattr(cfunc, "_cache_hits", 1) == 0 and getattr(cfunc, "_library", None):
            name = function_name(cfunc)
            self.compiled.append(name)
            seconds = time.perf_counter() - self._entry_t0 - self._entry_inner
            self._record(name, "entries", max(0.0, seconds), str(getattr(cfunc, "_sig", "")))

    def __enter__(self) -> CompileWatch:
        self._depth += 1
        if self._depth > 1:
            return self
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._saved_handler = signal.signal(signal.SIGINT, self._on_sigint)
        self._thread = threading.current_thread()
        self._lock_depth = 0
        numba_event.register(_COMPILE, self)
        numba_event.register(_LOCK, self)
        _active[0] += 1
        return self

    def __exit__(self, exc_type: Any, *exc: object) -> None:
        self._depth -= 1
        if self._depth > 0:
            return
        _active[0] -= 1
        numba_event.unregister(_LOCK, self)
        numba_event.unregister(_COMPILE, self)
        if self._saved_handler is not None:
            signal.signal(signal.SIGINT, self._saved_handler)
            self._saved_handler = None
        if self.interrupted and exc_type is None:  # the KeyboardInterrupt was swallowed
            raise KeyboardInterrupt

    # -- the report ----------------------------------------------------------------------

    def report(self, n: int = 25) -> list[str]:
        """Lines for a person: the total compile seconds, the sum per category, and the ``n``
        slowest functions with their exclusive seconds, signature count and
        ``module.function``."""
        funcs = sorted(self.functions.values(), key=lambda f: -f.seconds)
        total = sum(f.seconds for f in funcs)
        if not funcs:
            return ["compile report: nothing compiled (everything came from numba's cache)"]
        nsig = sum(f.nsignatures for f in funcs)
        label = {"loop": "loops", "diagram": "fused diagrams"}
        by_kind = ", ".join(f"{label.get(k, k)} {self.seconds[k]:.1f} s" for k in KINDS
                            if self.seconds[k] or k != "diagram")
        lines = [f"compile report: {total:.1f} s compiling {len(funcs)} functions ({nsig} "
                 f"signatures): {by_kind}",
                 f"  {'seconds':>8}  {'sigs':>4}  {'kind':<8} function"]
        lines += [f"  {f.seconds:8.2f}  {f.nsignatures:4d}  {f.kind:<8} {f.name}"
                  for f in funcs[:n]]
        if len(funcs) > n:
            rest = sum(f.seconds for f in funcs[n:])
            lines.append(f"  {rest:8.2f}        {'':<8} ({len(funcs) - n} more functions)")
        return lines


__all__ = ["KINDS", "MESSAGES", "CompileWatch", "Compiled", "active", "announce"]
