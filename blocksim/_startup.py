"""A quiet Ctrl-C while the ``blocksim`` command starts.

The command spends its first second or so importing numpy, scipy and numba, before
:func:`blocksim.cli.main` can catch anything. Importing this module (``blocksim/__init__``
does it first thing; it imports nothing of blocksim) calls :func:`install`, which does nothing
unless the program is the ``blocksim`` console script; there it makes a
:class:`KeyboardInterrupt` that reaches the top level print one line and exit with status 130
instead of a page of import traceback. Other exceptions keep Python's report.
"""

from __future__ import annotations

import os
import sys
from types import TracebackType

#: exit status after Ctrl-C (128 + SIGINT), as shells report it
STATUS = 130


def _is_command() -> bool:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return name in ("blocksim", "blocksim.exe", "blocksim-script.py")


def _hook(previous):  # type: ignore[no-untyped-def]
    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            try:
                sys.stderr.write("blocksim: interrupted\n")
                sys.stderr.flush()
            finally:
                os._exit(STATUS)
        previous(kind, value, tb)

    hook.blocksim_quiet_interrupt = True  # type: ignore[attr-defined]
    return hook


def install(force: bool = False) -> bool:
    """Make an uncaught Ctrl-C print one line and exit 130, when the program is the
    ``blocksim`` command (or ``force``); returns whether the hook is installed."""
    if getattr(sys.excepthook, "blocksim_quiet_interrupt", False):
        return True
    if not (force or _is_command()):
        return False
    sys.excepthook = _hook(sys.excepthook)
    return True


install()

__all__ = ["STATUS", "install"]
