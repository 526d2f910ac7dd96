"""A quick interpreter exit: no garbage collection over the whole heap at shutdown.

When Python shuts down it runs full garbage collections (``Py_FinalizeEx``: after clearing
``sys.modules`` and again after freeing the module dictionaries), each one a traversal of every
object still tracked. A blocksim process holds a large heap of long-lived objects that are
freed with the process anyway (numba's type system and registries, llvmlite, scipy, networkx):
measured with ``perf`` on the PID diagram file in a new process, 0.36-0.40 s of the process's
wall time went after its last line, nearly all of it in CPython's ``gc_collect_main``
(``python -c "import numba"`` plus one cached njit call alone: 0.3-0.4 s at exit).

:func:`install` registers an :mod:`atexit` handler that calls :func:`gc.freeze`: every object
alive at that point moves to the permanent generation, which the shutdown collections skip
(the exit of that process: 0.02-0.04 s). Objects are still freed by reference counting when
the modules are cleared; what is skipped is only the collection of reference cycles at exit,
whose ``__del__`` methods Python does not promise to run at exit anyway (close files and
devices explicitly: blocksim's hardware blocks do in ``stop``). Handlers registered after
``import blocksim`` (atexit runs them last in, first out) still run before the freeze.

Set ``BLOCKSIM_EXIT_GC=1`` in the environment to keep Python's collections at exit.
"""

from __future__ import annotations

import atexit
import gc
import os

_installed = False


def _freeze() -> None:
    gc.freeze()


def install() -> bool:
    """Freeze the heap at exit (once per process) unless ``BLOCKSIM_EXIT_GC`` is set to a
    non-empty value other than ``0``; returns whether the handler is registered."""
    global _installed
    if _installed:
        return True
    if os.environ.get("BLOCKSIM_EXIT_GC", "") not in ("", "0"):
        return False
    atexit.register(_freeze)
    _installed = True
    return True


install()

__all__ = ["install"]
