"""No silent waits: saying when numba compiles, how often that happens, and for whom.

numba compiles a jitted function at its first call with new argument types, which takes from a
fraction of a second to tens of seconds (the arm family's dynamics), and says nothing. Two
listeners of numba's compile events announce such waits on stderr (through
:data:`blocksim.engine.compiled.compile_watch.announce`, which the command line turns into a
status line):

* :class:`~blocksim.engine.compiled.compile_watch.CompileWatch`, while a compiled run prepares;
* :func:`watching`, around an interpreted run (and the dry run of a diagram's compilation):
  blocks such as the arm family call numba-jitted numerics from their Python methods. It
  listens only when numba is already imported (it never imports numba itself) and announces
  the first compile with the block that caused it.

:func:`cache_scope` says how often a compile happens, from where numba caches the function:
"once per installation" only when the cache is the package's own ``__pycache__``.

This module does not import numba.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

#: what the interpreted notice says ({who}: the diagram and the first block that compiled,
#: {scope}: :func:`cache_scope`)
INTERPRETED_MESSAGE = ("blocksim: compiling numba functions used by {who}, {scope} (seconds; "
                       "10-30 s for the arm family's dynamics; `blocksim warmup` does it "
                       "ahead)...")

NOT_CACHED = "not cached: read-only install, set NUMBA_CACHE_DIR (every process compiles again)"
#: a function jitted without ``cache=True``
NO_CACHE = "in every process (the function is not cached)"

_PACKAGE = Path(__file__).resolve().parents[1]  # the blocksim package folder


def _short(path: str | os.PathLike[str]) -> str:
    """``path`` with the home folder as ``~``."""
    text = str(path)
    home = str(Path.home())
    return "~" + text[len(home):] if home and text.startswith(home + os.sep) else text


def _writable(path: str) -> bool:
    return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)


def cache_scope(dispatcher: Any) -> str:
    """How often the compile of ``dispatcher`` (a numba dispatcher or ``cfunc``) happens, for
    a message: "once per installation" (cached in the package's ``__pycache__``), "once per
    NUMBA_CACHE_DIR (...)", "once per user (...)" (numba's user-wide cache: the install is
    read-only), "once per cache folder ..." (a generated module), :data:`NO_CACHE` (jitted
    without ``cache=True``) or :data:`NOT_CACHED`.

    Parameters
    ----------
    dispatcher : object
        What numba's compile event names (``event.data["dispatcher"]``), or a ``CFunc``.

    Returns
    -------
    str
        The phrase; :data:`NOT_CACHED` when numba does not cache the function or cannot write
        its cache folder.
    """
    cache = getattr(dispatcher, "_cache", None)
    if cache is None or type(cache).__name__ == "NullCache":
        return NO_CACHE
    impl = getattr(cache, "_impl", None)
    locator = getattr(impl, "locator", None)
    path = getattr(cache, "cache_path", None) or getattr(locator, "_cache_path", None)
    if locator is None or not path or not _writable(str(path)):
        return NOT_CACHED
    kind = type(locator).__name__
    if kind.startswith("UserProvided"):
        numba = sys.modules.get("numba")
        root = getattr(getattr(numba, "config", None), "CACHE_DIR", "") or path
        return f"once per NUMBA_CACHE_DIR ({_short(root)})"
    if kind.startswith("UserWide"):
        return f"once per user (numba's cache {_short(path)}: the install is read-only)"
    try:
        inside = Path(path).resolve().is_relative_to(_PACKAGE)
    except OSError:
        inside = False
    return "once per installation" if inside else f"once per cache folder {_short(path)}"


def function_name(dispatcher: Any) -> str:
    """``module.qualname`` of the Python function of a numba dispatcher (or ``CFunc``)."""
    fn = getattr(dispatcher, "py_func", None) or getattr(dispatcher, "_pyfunc", None)
    module = getattr(fn, "__module__", None) or "?"
    return f"{module}.{getattr(fn, '__qualname__', None) or getattr(fn, '__name__', '?')}"


def calling_block(frame: FrameType | None, depth: int = 80) -> Any:
    """The innermost blocksim block whose method is on the stack above ``frame`` (a frame
    whose ``self`` is a :class:`~blocksim.engine.block.Block`), or None."""
    block_mod = sys.modules.get("blocksim.engine.block")
    if block_mod is None:
        return None
    Block = block_mod.Block
    while frame is not None and depth > 0:
        candidate = frame.f_locals.get("self") if "self" in frame.f_code.co_varnames else None
        if isinstance(candidate, Block):
            return candidate
        frame = frame.f_back
        depth -= 1
    return None


def describe_block(block: Any) -> str:
    """``block 'ctrl' (InverseDynamics)``, or ``a block (InverseDynamics)`` without a name."""
    kind = type(block).__name__
    name = getattr(block, "name", None)
    return f"block '{name}' ({kind})" if name else f"a block ({kind})"


#: replaces the announcer while set (the command line's status line), without loading numba
announce: Any = None


def _announce(message: str) -> None:
    """Through :data:`announce` when set, else the compiled back-end's announcer when it is
    loaded (the command line may have replaced it by a status line), else on stderr."""
    if announce is not None:
        announce(message)
        return
    watch = sys.modules.get("blocksim.engine.compiled.compile_watch")
    if watch is not None:
        watch.announce(message)
    else:
        print(message, file=sys.stderr, flush=True)


def _compile_watch_active() -> bool:
    """Whether a compiled run's own watch is listening (it announces its compiles itself)."""
    watch = sys.modules.get("blocksim.engine.compiled.compile_watch")
    return watch is not None and watch.active() > 0


@functools.cache
def _notice_class() -> type:
    """The listener class (built on first use: numba is imported by then)."""
    from numba.core import event

    class Notice(event.Listener):
        """Announces the first numba compile (one line) and counts the compile seconds."""

        def __init__(self, label: str):
            self.label = label
            self.announced = ""
            self.count = 0
            self.seconds = 0.0
            self._starts: list[float] = []

        def on_start(self, ev: Any) -> None:
            self._starts.append(time.perf_counter())
            if self.announced or _compile_watch_active():
                return
            dispatcher = (ev.data or {}).get("dispatcher")
            block = calling_block(sys._getframe(1))
            first = describe_block(block) if block is not None else function_name(dispatcher)
            who = f"the blocks of {self.label} (first: {first})"
            self.announced = INTERPRETED_MESSAGE.format(who=who, scope=cache_scope(dispatcher))
            _announce(self.announced)

        def on_end(self, ev: Any) -> None:
            if self._starts:
                start = self._starts.pop()
                if not self._starts:
                    self.count += 1
                    self.seconds += time.perf_counter() - start

    return Notice


@contextlib.contextmanager
def watching(label: str = "the diagram") -> Iterator[Any]:
    """Announce numba's first compile while the body runs (see the module docstring).

    Parameters
    ----------
    label : str
        What runs, for the message ("the blocks of diagram 'x' (first: block 'p' (Kind))";
        the first compiled function's name when no block method is on the stack).

    Yields
    ------
    object or None
        The listener (``announced``: the message or "", ``count``/``seconds``: the outermost
        compiles), or None when numba is not imported (nothing to watch).
    """
    if "numba" not in sys.modules:
        yield None
        return
    from numba.core import event

    notice = _notice_class()(label)
    event.register("numba:compile", notice)
    try:
        yield notice
    finally:
        event.unregister("numba:compile", notice)


__all__ = ["INTERPRETED_MESSAGE", "NOT_CACHED", "NO_CACHE", "cache_scope", "calling_block",
           "describe_block", "function_name", "watching"]
