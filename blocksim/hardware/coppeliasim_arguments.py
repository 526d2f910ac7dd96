"""Argument checks of the emulated CoppeliaSim's ``sim`` functions, with CoppeliaSim's wording.

Each served function (a ``sim_<name>`` method of the emulator) declares its arguments by its
signature: how many are required and allowed, and each one's kind by its annotation
(``int``, ``float``, ``str``, ``bool``, ``list[int]``, ``list[float]``, ``dict``; ``Any``: not
checked). :func:`check` compares a call's arguments with it before the function runs, and a
mismatch is a :class:`SimError` such as ``sim.getObject: one argument expected`` or
``sim.getObject: argument 1 is not a string``: a client never sees a Python signature.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["INT_RANGE", "SimError", "check", "is_int", "is_number"]

#: the integers an ``int`` argument may hold (CoppeliaSim's 64-bit integers)
INT_RANGE = (-(2**63), 2**63 - 1)
_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")
_KINDS = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "bool": "a boolean",
    "list[int]": "a table of integers",
    "list[float]": "a table of numbers",
    "dict": "a map",
}
_specs: dict[Any, tuple[list[str], int, int | None]] = {}


class SimError(Exception):
    """An error of a ``sim`` call, its message as CoppeliaSim words it."""


def is_number(v: Any) -> bool:
    """A CBOR number: an int or a float, not a bool."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_int(v: Any) -> bool:
    """An integer (a float with an integral value counts, as in Lua) in :data:`INT_RANGE`."""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return isinstance(v, int) and not isinstance(v, bool) and INT_RANGE[0] <= v <= INT_RANGE[1]


def _fits(kind: str, v: Any) -> bool:
    if kind == "int":
        return is_int(v)
    if kind == "float":
        return is_number(v)
    if kind == "str":
        return isinstance(v, str)
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "dict":
        return isinstance(v, dict)
    if kind in ("list[int]", "list[float]"):
        item = is_int if kind == "list[int]" else is_number
        return isinstance(v, list) and all(item(x) for x in v)
    return True


def _spec(fn: Callable[..., Any]) -> tuple[list[str], int, int | None]:
    """(the annotations of the positional parameters, how many are required, how many are
    allowed or None for any number)."""
    key = getattr(fn, "__func__", fn)
    if key not in _specs:
        kinds, required, most = [], 0, 0
        for p in inspect.signature(fn).parameters.values():
            if p.kind is p.VAR_POSITIONAL:
                most = None
                continue
            kinds.append(str(p.annotation))
            required += p.default is p.empty
            if most is not None:
                most += 1
        _specs[key] = (kinds, required, most)
    return _specs[key]


def _count(n: int) -> str:
    return f"{_WORDS[n] if n < len(_WORDS) else n} argument{'' if n == 1 else 's'}"


def check(func: str, fn: Callable[..., Any], args: list[Any]) -> list[Any]:
    """Check the arguments ``args`` of a call of ``func`` (served by ``fn``); the arguments,
    integral floats given for ``int`` parameters made ints.

    Raises
    ------
    SimError
        Too few or too many arguments, or one of the wrong kind.
    """
    kinds, required, most = _spec(fn)
    if len(args) < required:
        raise SimError(f"{func}: {_count(required)} expected")
    if most is not None and len(args) > most:
        raise SimError(f"{func}: at most {_count(most)} expected")
    for i, (kind, v) in enumerate(zip(kinds, args), start=1):
        if not _fits(kind, v):
            raise SimError(f"{func}: argument {i} is not {_KINDS[kind]}")
    return [
        int(v) if k == "int" and isinstance(v, float) else v for k, v in zip(kinds, args)
    ] + args[len(kinds) :]
