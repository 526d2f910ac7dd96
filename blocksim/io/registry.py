"""Block type names of diagram files -> block classes, from an explicit registry.

A file names a block's ``"type"``; it is looked up here and nowhere else: the library (every
:class:`~blocksim.engine.block.Block` class exported by :mod:`blocksim.blocks`, plus ``Inport``,
``Outport`` and ``Subsystem``, and by :mod:`blocksim.blocks.arm`, :mod:`blocksim.blocks.vision`
and :mod:`blocksim.blocks.sinks.animations`) and the classes registered from Python code with
:func:`register_block`. A file can never make blocksim import a module or reach a class by a
string it contains.

This module also answers the questions the loader asks about a block class's constructor:
its parameter names and whether a parameter accepts strings (which decides how a JSON string is
read, see :mod:`blocksim.io.values`).
"""

from __future__ import annotations

import ast
import inspect
import sys
import typing
from functools import lru_cache
from typing import Any

from blocksim.engine.block import Block
from blocksim.engine.errors import suggest

_USER: dict[str, type[Block]] = {}


@lru_cache(maxsize=1)
def _library() -> dict[str, type[Block]]:
    # the library's packages, a fixed list (never a name from a file): the general blocks, the
    # arm and vision families (kept out of blocksim.blocks so that importing it does not load
    # the robotics core) and the animation sinks
    import blocksim.blocks as general
    import blocksim.blocks.arm as arm
    import blocksim.blocks.floating as floating
    import blocksim.blocks.hardware as hardware
    import blocksim.blocks.planning as planning
    import blocksim.blocks.quadrotor as quadrotor
    import blocksim.blocks.sinks.animations as anim
    import blocksim.blocks.vehicle as vehicle
    import blocksim.blocks.vision as vision

    out: dict[str, type[Block]] = {}
    for lib in (general, arm, vision, anim, quadrotor, hardware, floating, vehicle, planning):
        for name in lib.__all__:
            obj = getattr(lib, name)
            if inspect.isclass(obj) and issubclass(obj, Block):
                if name in out and out[name] is not obj:
                    raise RuntimeError(f"block type name {name!r} is used twice in the library")
                out[name] = obj
    return out


def library_types() -> dict[str, type[Block]]:
    """The library's block classes by type name (those of :mod:`blocksim.blocks`)."""
    return dict(_library())


def block_types() -> dict[str, type[Block]]:
    """Every known block type: the library's, then the registered ones."""
    return {**_library(), **_USER}


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
    if name in _library() and _library()[name] is not cls:
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


def block_class(name: str) -> type[Block]:
    """The class registered as ``name``.

    Raises
    ------
    KeyError
        With a did-you-mean suggestion among the known type names.
    """
    types = block_types()
    if isinstance(name, str) and name in types:
        return types[name]
    raise KeyError(
        f"unknown block type {name!r}{suggest(str(name), types)}; see "
        f"`blocksim blocks` for the catalog, or register a Python block class with "
        f"blocksim.io.register_block"
    )


def type_name(block: Block) -> str:
    """The registered type name of ``block``'s class.

    Raises
    ------
    KeyError
        When the class is neither a library block nor registered.
    """
    cls = type(block)
    for name, c in block_types().items():
        if c is cls:
            return name
    raise KeyError(
        f"block class {cls.__module__}.{cls.__qualname__} is not registered; call "
        f"blocksim.io.register_block({cls.__name__}) to save and load it"
    )


def parameters(cls: type[Block]) -> list[inspect.Parameter]:
    """The constructor parameters of ``cls`` (without ``self`` and ``*args``/``**kwargs``)."""
    sig = inspect.signature(cls.__init__)
    return [
        p
        for p in list(sig.parameters.values())[1:]
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


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


def takes_callable(cls: type, param: str) -> bool:
    """Whether the annotation of ``param`` names a Python callable (not representable in a
    diagram file)."""
    try:
        ann = inspect.signature(cls.__init__).parameters[param].annotation
    except (KeyError, TypeError, ValueError):
        return False
    text = ann if isinstance(ann, str) else repr(ann)
    return "Callable" in text
