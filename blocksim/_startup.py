"""A quiet Ctrl-C while the ``blocksim`` command starts.

The command spends its first second or so importing numpy, scipy and numba, before
:func:`blocksim.cli.main` can catch anything. Importing this module (``blocksim/__init__``
does it first thing; it imports nothing of blocksim) calls :func:`install`, which does nothing
unless the program is the ``blocksim`` console script; there it makes a
:class:`KeyboardInterrupt` that reaches the top level print one line and exit with status 130
instead of a page of import traceback. Other exceptions keep Python's report.

Until the command starts (:func:`command_starts`, called by :func:`blocksim.cli.main` once its
arguments are parsed), Ctrl-C does not even raise: a SIGINT handler prints the line and exits
at once. A KeyboardInterrupt raised inside an import can be swallowed by the library being
imported (numpy turns a failed import of its C extension into an ImportError; packages catch
ImportError around optional imports), and the command would then go on to run as if nothing
had been pressed.
"""

from __future__ import annotations

import os
import signal
import sys
from types import TracebackType

#: exit status after Ctrl-C (128 + SIGINT), as shells report it
STATUS = 130


def _is_command() -> bool:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return name in ("blocksim", "blocksim.exe", "blocksim-script.py")


def _exit_interrupted() -> None:
    """One line on stderr, then status 130 at once."""
    try:
        sys.stderr.write("blocksim: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(STATUS)


def _hook(previous):  # type: ignore[no-untyped-def]
    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            _exit_interrupted()
        previous(kind, value, tb)

    hook.blocksim_quiet_interrupt = True  # type: ignore[attr-defined]
    return hook


def _quiet_exit(signum: int, frame: object) -> None:
    """SIGINT while the command starts: the same exit, nothing raised."""
    _exit_interrupted()


def install(force: bool = False) -> bool:
    """Make an uncaught Ctrl-C print one line and exit 130, when the program is the
    ``blocksim`` command (or ``force``), and Ctrl-C before :func:`command_starts` exit the
    same way at once; returns whether the hook is installed."""
    if getattr(sys.excepthook, "blocksim_quiet_interrupt", False):
        return True
    if not (force or _is_command()):
        return False
    sys.excepthook = _hook(sys.excepthook)
    try:  # not where SIGINT is ignored (a background job) or handled by the program
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _quiet_exit)
    except ValueError:  # not the main thread: signals are not ours to set
        pass
    return True


def command_starts() -> None:
    """From here Ctrl-C raises KeyboardInterrupt again (the command stops what it does and
    keeps what it has, e.g. a run's partial result)."""
    try:
        if signal.getsignal(signal.SIGINT) is _quiet_exit:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # pragma: no cover - not the main thread
        pass


install()

__all__ = ["STATUS", "command_starts", "install"]
