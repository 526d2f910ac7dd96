"""Block types from plugin packages: the ``blocksim.blocks`` entry-point group.

A package the user installed makes its block classes available to diagram files (and to
``blocksim run``, ``check``, ``blocks``) by declaring entry points in the group
:data:`GROUP`, e.g. in its ``pyproject.toml``::

    [project.entry-points."blocksim.blocks"]
    myblocks = "myblocks.blocks:register"

An entry point names one of

- a function, called with no argument, that registers its classes with
  :func:`blocksim.io.register_block` (or returns an iterable of Block classes, registered
  under their class names);
- a :class:`~blocksim.engine.block.Block` class, registered under the entry point's name;
- a module, whose import registers its classes.

Plugins are loaded once per process, lazily: when a diagram names a type that is neither the
library's nor registered, and when the catalog is listed (``blocksim blocks``). Only installed
distributions are consulted: a diagram file never names the code that runs. A plugin that
fails to load (it raises, or takes a library type's name) is skipped with a
:class:`RuntimeWarning` naming it and its distribution; blocksim and the other plugins go on.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import threading
import types
import warnings
from collections.abc import Iterable
from typing import Any

from blocksim.engine.block import Block

#: the entry-point group plugin packages declare their block types in
GROUP = "blocksim.blocks"

_lock = threading.RLock()
_loaded = False
#: type name -> the distribution (plugin package) that registered it
_ORIGINS: dict[str, str] = {}


def _distribution(ep: importlib.metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    name = getattr(dist, "name", None) if dist is not None else None
    return str(name) if name else "an unknown distribution"


def _register_all(classes: Iterable[Any], what: str) -> None:
    from blocksim.io.registry import register_block

    for cls in classes:
        if not (inspect.isclass(cls) and issubclass(cls, Block)):
            raise TypeError(f"{what} returned {cls!r}, not a Block class")
        register_block(cls)


def _load_one(ep: importlib.metadata.EntryPoint) -> None:
    """Load the entry point ``ep`` (it registers its block types)."""
    from blocksim.io.registry import register_block

    obj = ep.load()
    if inspect.isclass(obj) and issubclass(obj, Block):
        register_block(obj, ep.name)
    elif isinstance(obj, types.ModuleType):
        return  # its import registered its classes
    elif callable(obj):
        returned = obj()
        if returned is not None:
            _register_all(returned, f"{ep.value}()")
    else:
        raise TypeError(f"{ep.value} is {type(obj).__name__}, not a function, a Block class "
                        f"or a module")


def load_plugins() -> dict[str, str]:
    """Load every plugin of the group :data:`GROUP` (once per process; later calls return at
    once).

    Returns
    -------
    dict
        Type name -> the name of the distribution that provided it, for every type the
        plugins registered.
    """
    global _loaded
    with _lock:
        if _loaded:
            return dict(_ORIGINS)
        _loaded = True
        from blocksim.io.registry import registered_types, unregister_block

        try:
            points = list(importlib.metadata.entry_points(group=GROUP))
        except Exception as exc:  # a broken installation's metadata
            warnings.warn(f"blocksim plugins were not loaded: reading the installed "
                          f"distributions' entry points failed ({type(exc).__name__}: {exc})",
                          RuntimeWarning, stacklevel=2)
            return {}
        for ep in sorted(points, key=lambda p: (p.name, p.value)):
            dist = _distribution(ep)
            before = registered_types()
            try:
                _load_one(ep)
            except BaseException as exc:  # a plugin must not break blocksim (nor exit it)
                if isinstance(exc, KeyboardInterrupt):
                    raise
                for name in set(registered_types()) - set(before):  # half-loaded: forget it
                    unregister_block(name)
                message = " ".join(str(exc).split()) or "(no message)"
                warnings.warn(f"plugin {ep.name!r} of {dist} ({ep.value}) was not loaded, its "
                              f"block types are unavailable: {type(exc).__name__}: {message}",
                              RuntimeWarning, stacklevel=2)
                continue
            for name, cls in registered_types().items():
                if before.get(name) is not cls:
                    _ORIGINS[name] = dist
        return dict(_ORIGINS)


def plugin_of(name: str) -> str | None:
    """The distribution whose plugin registered type ``name``, or None."""
    return _ORIGINS.get(name)


def unload_plugins() -> None:
    """Forget the plugins' types (unregistered) so that the next :func:`load_plugins` reads
    the entry points again (for tests, and after installing a plugin in a running process)."""
    global _loaded
    from blocksim.io.registry import unregister_block

    with _lock:
        for name in _ORIGINS:
            unregister_block(name)
        _ORIGINS.clear()
        _loaded = False


__all__ = ["GROUP", "load_plugins", "plugin_of", "unload_plugins"]
