"""Block type names of diagram files -> block classes, from an explicit registry.

A file names a block's ``"type"``; it is looked up here and nowhere else: the library (every
:class:`~blocksim.engine.block.Block` class exported by :mod:`blocksim.blocks`, plus ``Inport``,
``Outport`` and ``Subsystem``, and by :mod:`blocksim.blocks.arm`, :mod:`blocksim.blocks.vision`
and :mod:`blocksim.blocks.sinks.animations`) and the classes registered from Python code with
:func:`register_block`, by hand or by the installed plugin packages (entry-point group
``blocksim.blocks``, :mod:`blocksim.io.plugins`, loaded when a file names a type neither knows).
A file can never make blocksim import a module or reach a class by a string it contains.

This module also answers the questions the loader asks about a block class's constructor:
its parameter names and whether a parameter accepts strings (which decides how a JSON string is
read, see :mod:`blocksim.io.values`).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import sys
import typing
from functools import lru_cache
from typing import Any

from blocksim.engine.block import Block
from blocksim.engine.errors import suggest
from blocksim.io.library_index import LIBRARY_INDEX

_USER: dict[str, type[Block]] = {}


#: the library's packages, a fixed list (never a name from a file): the general blocks, the
#: families kept out of blocksim.blocks so that importing it does not load the robotics core,
#: hardware drivers and the like, and the animation sinks
FAMILIES = (
    "blocksim.blocks",
    "blocksim.blocks.arm",
    "blocksim.blocks.vision",
    "blocksim.blocks.sinks.animations",
    "blocksim.blocks.quadrotor",
    "blocksim.blocks.hardware",
    "blocksim.blocks.floating",
    "blocksim.blocks.vehicle",
    "blocksim.blocks.planning",
    "blocksim.blocks.control",
    "blocksim.blocks.fmi",
)


def _index_rows() -> list[tuple[str, type[Block], str]]:
    """(type name, class, family) of every Block class the families export, by name."""
    rows = []
    for family in FAMILIES:
        lib = importlib.import_module(family)
        for name in lib.__all__:
            obj = getattr(lib, name)
            if inspect.isclass(obj) and issubclass(obj, Block):
                rows.append((name, obj, family))
    return sorted(rows, key=lambda r: r[0])


def scan_families() -> dict[str, type[Block]]:
    """Import every family of :data:`FAMILIES` and collect its Block classes by name."""
    out: dict[str, type[Block]] = {}
    for name, cls, _ in _index_rows():
        if name in out and out[name] is not cls:
            raise RuntimeError(f"block type name {name!r} is used twice in the library")
        out[name] = cls
    return out


@lru_cache(maxsize=1)
def _library() -> dict[str, type[Block]]:
    return scan_families()


def _family_of(name: str) -> str | None:
    """The family module that exports the library type ``name`` (from the index, without
    importing anything), or None."""
    family = LIBRARY_INDEX.get(name)
    return family if family in FAMILIES else None


def library_types() -> dict[str, type[Block]]:
    """The library's block classes by type name (imports every family)."""
    return dict(_library())


def block_types() -> dict[str, type[Block]]:
    """Every known block type: the library's, then the registered ones (imports every
    family; :func:`block_class` imports only the one a name needs)."""
    return {**_library(), **_USER}


def _library_class(name: str) -> type[Block] | None:
    """The library class of type ``name``, importing its family only, or None."""
    family = _family_of(name)
    if family is None:
        return None
    cls = getattr(importlib.import_module(family), name, None)
    return cls if inspect.isclass(cls) and issubclass(cls, Block) else None


def register_block(cls: type[Block], name: str | None = None) -> type[Block]:
    """Make the block class ``cls`` loadable from diagram files as ``"type": name``.

    Parameters
    ----------
    cls : type
        A subclass of :class:`~blocksim.engine.block.Block`.
    name : str, optional
        Type name in files; default the class name. Library names cannot be taken.

    Returns
    -------
    type
        ``cls``, so that this works as a class decorator.
    """
    if not (inspect.isclass(cls) and issubclass(cls, Block)):
        raise TypeError(f"register_block expects a Block subclass, got {cls!r}")
    name = name or cls.__name__
    if not name.isidentifier():
        raise ValueError(f"register_block: type name {name!r} must be an identifier")
    if _family_of(name) is not None and _library_class(name) is not cls:
        raise ValueError(
            f"register_block: '{name}' is a library block type; register "
            f"{cls.__name__} under another name"
        )
    if name in _USER and _USER[name] is not cls:
        raise ValueError(
            f"register_block: '{name}' is already registered for "
            f"{_USER[name].__module__}.{_USER[name].__qualname__}"
        )
    _USER[name] = cls
    return cls


def unregister_block(name: str) -> None:
    """Forget a type registered with :func:`register_block` (library types stay)."""
    _USER.pop(name, None)


def registered_types() -> dict[str, type[Block]]:
    """The types registered with :func:`register_block` (from Python or by plugins)."""
    return dict(_USER)


def _with_plugins() -> None:
    """Load the installed plugins (:mod:`blocksim.io.plugins`, once per process)."""
    from blocksim.io.plugins import load_plugins

    load_plugins()


def block_class(name: str) -> type[Block]:
    """The class registered as ``name`` (a library type imports its family only).

    Raises
    ------
    KeyError
        With a did-you-mean suggestion among the known type names.
    """
    if isinstance(name, str):
        cls = _library_class(name) or _USER.get(name)
        if cls is None and name.isidentifier():  # perhaps an installed plugin's
            _with_plugins()
            cls = _USER.get(name)
        if cls is not None:
            return cls
    raise KeyError(
        f"unknown block type {name!r}{suggest(str(name), [*LIBRARY_INDEX, *_USER])}; see "
        f"`blocksim blocks` for the catalog, register a Python block class with "
        f"blocksim.io.register_block, or install a plugin package (entry points "
        f"'blocksim.blocks')"
    )


def type_name(block: Block) -> str:
    """The registered type name of ``block``'s class.

    Raises
    ------
    KeyError
        When the class is neither a library block nor registered.
    """
    cls = type(block)
    if _library_class(cls.__name__) is cls:
        return cls.__name__
    for attempt in range(2):
        if attempt:
            _with_plugins()  # a plugin's class, made in Python before its plugin was loaded
        for name, c in _USER.items():
            if c is cls:
                return name
    raise KeyError(
        f"block class {cls.__module__}.{cls.__qualname__} is not registered; call "
        f"blocksim.io.register_block({cls.__name__}) to save and load it"
    )


def parameters(cls: type[Block]) -> list[inspect.Parameter]:
    """The constructor parameters of ``cls`` (without ``self`` and ``*args``/``**kwargs``)."""
    return list(_parameters(cls))


@lru_cache(maxsize=1024)
def _parameters(cls: type[Block]) -> tuple[inspect.Parameter, ...]:
    sig = inspect.signature(cls.__init__)
    return tuple(
        p
        for p in list(sig.parameters.values())[1:]
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    )


@lru_cache(maxsize=1024)
def accepts_str(owner: Any, param: str) -> bool:
    """Whether the parameter ``param`` of ``owner`` (a block class: its constructor; or a
    function, e.g. a model builder) takes strings.

    Decided by its annotation (``str``, ``str | int``, ``Sequence[str]``, or an alias of the
    module such as ``FileArg = str | os.PathLike[str] | None``); without an annotation, by
    whether its default is a string.
    """
    func = owner.__init__ if inspect.isclass(owner) else owner
    try:
        p = inspect.signature(func).parameters[param]
    except (KeyError, TypeError, ValueError):
        return False
    ann = p.annotation
    if ann is inspect.Parameter.empty:
        return isinstance(p.default, str)
    module = sys.modules.get(getattr(func, "__module__", "") or "")
    return _names_str(ann, vars(module) if module else {}, 0)


def _names_str(ann: Any, scope: dict[str, Any], depth: int) -> bool:
    if depth > 5:
        return False
    if ann is str:
        return True
    if isinstance(ann, str):
        try:
            tree = ast.parse(ann, mode="eval")
        except SyntaxError:
            return "str" in ann
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                if node.id == "str":
                    return True
                alias = scope.get(node.id)
                if (
                    alias is not None
                    and not inspect.isclass(alias)
                    and _names_str(alias, scope, depth + 1)
                ):
                    return True
        return False
    return any(_names_str(a, scope, depth + 1) for a in typing.get_args(ann))


@lru_cache(maxsize=4096)
def takes_callable(cls: type, param: str) -> bool:
    """Whether the annotation of ``param`` names a Python callable (not representable in a
    diagram file)."""
    try:
        ann = inspect.signature(cls.__init__).parameters[param].annotation
    except (KeyError, TypeError, ValueError):
        return False
    text = ann if isinstance(ann, str) else repr(ann)
    return "Callable" in text


def index_source() -> str:
    """The text of :mod:`blocksim.io.library_index` for the families as they are now."""
    head = (pathlib.Path(__file__).parent / "library_index.py").read_text()
    head = head.split("LIBRARY_INDEX")[0]
    rows = "".join(f'    "{name}": "{family}",\n' for name, _, family in _index_rows())
    return f"{head}LIBRARY_INDEX: dict[str, str] = {{\n{rows}}}\n"


if __name__ == "__main__":  # python -m blocksim.io.registry: rewrite the index
    target = pathlib.Path(__file__).parent / "library_index.py"
    target.write_text(index_source())
    print(f"wrote {target} ({len(_index_rows())} block types)")
