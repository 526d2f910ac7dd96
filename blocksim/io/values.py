"""How a JSON value in a diagram file becomes a Python value, and the names it may use.

The rule for a parameter value (documented in ``docs/diagram-format.md``):

* numbers, ``true``/``false``, ``null`` are themselves; a list is a list of values (each read by
  these same rules);
* ``{"str": "text"}`` is the string ``"text"``, always; ``{"slice": [start, stop, step]}`` is a
  Python ``slice``;
* a string starting with ``$`` is a reference: ``"$Kp"`` is the value of the shared parameter
  ``Kp``, or the clock or model of that name;
* a string starting with ``=`` is a numeric expression, always (``"=pi/2"``);
* any other string is **taken literally when the block parameter accepts strings** (its
  annotation says ``str``: Sum ``signs``, Scope ``labels``, MathFunction ``func``, ...), and is
  **a numeric expression otherwise** (``"pi/2"``, ``"[0, pi/4, -pi/2]"``, ``"2*Kp"``).

Shared parameters are read lazily, by the rule of the parameter that refers to them, so
``"labels": ["x", "F"]`` shared by two Scopes stays a list of strings while ``"Kp": "pi/2"`` used
by a PID is a number. Expressions are evaluated by :mod:`blocksim.io.expressions` only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from blocksim.engine.errors import suggest
from blocksim.io import guard as guard_module
from blocksim.io.errors import Source, ValueProblem
from blocksim.io.expressions import CONSTANTS, SHADOWABLE, ExpressionError, evaluate
from blocksim.io.guard import Guard, GuardError, count_elements, current, load_npy
from blocksim.io.locate import JsonPath, NumberList


class Entry:
    """A shared parameter as written: raw JSON value, where it is, and the namespace its own
    references resolve in."""

    def __init__(self, raw: Any, path: JsonPath, source: Source, ns: Namespace):
        self.raw = raw
        self.path = path
        self.source = source
        self.ns = ns


class Namespace:
    """The names visible to one diagram: shared parameters, clocks and models.

    An inline subsystem's namespace has its enclosing diagram's as ``parent`` (it sees, and may
    shadow, the outer names); an included file's namespace has none.
    """

    def __init__(self, parent: Namespace | None = None):
        self.parent = parent
        self.params: dict[str, Entry] = {}
        self.objects: dict[str, Any] = {}
        self.kinds: dict[str, str] = {}
        self._cache: dict[tuple[str, bool], tuple[Any, int]] = {}
        self._busy: list[str] = []
        #: clocks and models whose definition failed (reported once, where they are defined)
        self.broken: set[str] = set()

    def find(self, name: str) -> tuple[Namespace, str] | None:
        """The namespace defining ``name`` and its kind (``parameter``, ``clock``, ``model``)."""
        ns: Namespace | None = self
        while ns is not None:
            if name in ns.params:
                return ns, "parameter"
            if name in ns.objects:
                return ns, ns.kinds[name]
            ns = ns.parent
        return None

    def is_broken(self, name: str) -> bool:
        """Whether ``name`` is a clock or model of this namespace (or an enclosing one) whose
        definition failed."""
        ns: Namespace | None = self
        while ns is not None:
            if name in ns.broken:
                return True
            ns = ns.parent
        return False

    def visible(self) -> list[str]:
        """Every name visible here (inner names first)."""
        out: list[str] = []
        ns: Namespace | None = self
        while ns is not None:
            out += [n for n in (*ns.params, *ns.objects) if n not in out]
            ns = ns.parent
        return out

    def define(self, name: str, kind: str, obj: Any) -> None:
        """Define the clock or model ``name``."""
        self.objects[name] = obj
        self.kinds[name] = kind

    def resolve(self, name: str, strings: bool, source: Source, path: JsonPath) -> Any:
        """The value of ``name`` read under the string rule ``strings`` (see the module doc)."""
        found = self.find(name)
        if found is None and self.is_broken(name):
            raise Reported(source, path, f"'${name}' has a problem (reported where it is "
                                         f"defined)")
        if found is None:
            names = self.visible()
            listing = ", ".join(names) if names else "none are defined"
            raise ValueProblem(source, path, f"unknown name '${name}'{suggest(name, names)}; "
                               f"shared parameters, clocks and models here: {listing}")
        ns, kind = found
        if kind != "parameter":
            return ns.objects[name]
        key = (name, strings)
        if key in ns._cache:
            value, size = ns._cache[key]
            _spend(size, source, path, name)
            return _copy(value)
        if name in ns._busy:
            chain = " -> ".join([*ns._busy[ns._busy.index(name):], name])
            raise ValueProblem(source, path, f"shared parameter '{name}' refers to itself "
                               f"({chain})")
        entry = ns.params[name]
        ns._busy.append(name)
        guard = current()
        if guard is not None:
            guard.chain.append(name)
        try:
            value = interpret(entry.raw, entry.path, strings=strings, ns=entry.ns,
                              source=entry.source)
        finally:
            ns._busy.pop()
            if guard is not None:
                guard.chain.pop()
        size = count_elements(value, guard.remaining if guard is not None else 0)
        ns._cache[key] = (value, size)
        return _copy(value)


def expression(text: str, ns: Namespace, source: Source, path: JsonPath) -> Any:
    """Evaluate the numeric expression ``text`` with the names of ``ns``."""

    def lookup(name: str) -> Any:
        if ns.find(name) is None:
            if ns.is_broken(name):
                raise Reported(source, path, f"'{name}' has a problem (reported where it is "
                                             f"defined)")
            raise KeyError(name)
        return ns.resolve(name, False, source, path)

    try:
        return evaluate(text, lookup, tuple(ns.visible()))
    except ExpressionError as exc:
        raise ValueProblem(source, path, str(exc)) from None


def interpret(raw: Any, path: JsonPath, *, strings: bool, ns: Namespace,
              source: Source) -> Any:
    """The Python value of the JSON value ``raw`` (see the module docstring for the rule).

    Parameters
    ----------
    raw : Any
        The value as parsed from JSON.
    path : tuple
        Its JSON path, for error messages.
    strings : bool
        Whether the receiving parameter accepts strings (plain strings are then literal).
    ns : Namespace
        Names that ``$name`` references and expressions may use.
    source : Source
        The file, for error messages.

    Raises
    ------
    ValueProblem
        Naming the path and what is wrong.
    """
    if isinstance(raw, str):
        if raw.startswith("$"):
            name = raw[1:]
            if not name.isidentifier():
                raise ValueProblem(source, path, f"{raw!r} is not a reference: '$' must be "
                                   f"followed by a name (use {{\"str\": {raw!r}}} for the text)")
            return ns.resolve(name, strings, source, path)
        if raw.startswith("="):
            return _counted(expression(raw[1:], ns, source, path), source, path)
        if strings:
            return _text(raw, source, path)
        return _counted(expression(raw, ns, source, path), source, path)
    if isinstance(raw, list):
        _spend(len(raw), source, path)
        if isinstance(raw, NumberList) or all(type(v) in _PLAIN for v in raw):
            return list(raw)  # a table of numbers: nothing to read
        return [interpret(v, (*path, k), strings=strings, ns=ns, source=source)
                for k, v in enumerate(raw)]
    if isinstance(raw, dict):
        return _tagged(raw, path, source)
    return raw


def _text(text: str, source: Source, path: JsonPath) -> str:
    """``text``, a string parameter's value, if it is at most
    :data:`blocksim.io.guard.MAX_STRING_CHARS` characters and can be written as UTF-8 (no
    lone surrogate such as ``"\\ud800"``, which no file, terminal or figure can encode)."""
    limit = guard_module.MAX_STRING_CHARS
    if len(text) > limit:
        raise ValueProblem(source, path, f"a text of {len(text)} characters; a text value "
                           f"(title, label, file name, signs, ...) may have at most {limit} "
                           f"characters (blocksim.io.guard.MAX_STRING_CHARS, raise it in "
                           f"Python)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueProblem(source, path, f"the text has a lone surrogate "
                           f"(\\u{ord(text[exc.start]):04x}) at character {exc.start}, which "
                           f"cannot be written as UTF-8; write the character itself or its "
                           f"surrogate pair") from None
    return text


#: JSON scalars that are their own value
_PLAIN = (int, float, bool, type(None))


def _spend(n: int, source: Source, path: JsonPath, name: str | None = None) -> None:
    """Count ``n`` elements built in the load's budget (:mod:`blocksim.io.guard`)."""
    guard = current()
    if guard is None or not n:
        return
    if name is not None:
        guard.chain.append(name)
    try:
        guard.spend(n)
    except GuardError as exc:
        raise ValueProblem(source, path, str(exc)) from None
    finally:
        if name is not None:
            guard.chain.pop()


def _counted(value: Any, source: Source, path: JsonPath) -> Any:
    """``value`` (an expression's), its list elements counted in the budget (references inside
    the expression have counted their own copies already: the count errs on the safe side)."""
    guard = current()
    if guard is not None and isinstance(value, list):
        _spend(count_elements(value, guard.remaining), source, path)
    return value


def _copy(value: Any) -> Any:
    """A copy of a value built from JSON: nested lists copied, arrays copied, anything else
    (numbers, strings, slices, clocks, models) shared as it is immutable or never modified."""
    if isinstance(value, list):
        return [_copy(v) if isinstance(v, (list, np.ndarray)) else v for v in value]
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


class Reported(ValueProblem):
    """A value that cannot be read because something it uses has a problem already reported
    (a clock or model that failed): the loader does not report it again."""

    reported = True


def _tagged(raw: dict[str, Any], path: JsonPath, source: Source) -> Any:
    if set(raw) == {"str"} and isinstance(raw["str"], str):
        return _text(raw["str"], source, path)
    if set(raw) == {"npy"} and isinstance(raw["npy"], str):
        return _data_file(raw["npy"], path, source)
    if set(raw) == {"slice"} and isinstance(raw["slice"], list) and 1 <= len(raw["slice"]) <= 3 \
            and all(v is None or (isinstance(v, int) and not isinstance(v, bool))
                    for v in raw["slice"]):
        return slice(*raw["slice"])
    raise ValueProblem(source, path, "an object as a value must be {\"str\": text}, "
                       "{\"slice\": [start, stop, step]} (integers or null) or {\"npy\": "
                       "\"file.npy\"}")


def _data_file(rel: str, path: JsonPath, source: Source) -> Any:
    """The array of the ``.npy`` file ``rel`` (relative to the file being read, confined like
    subsystem files)."""
    guard = current()
    if source.base_dir is None:
        raise ValueProblem(source, path, "a diagram read from a string cannot read data files "
                                         "(give base_dir)")
    try:
        target = (guard or Guard()).confine(source.base_dir, rel, "data file")
    except GuardError as exc:
        raise ValueProblem(source, path, str(exc)) from None
    try:
        return load_npy(target, guard)
    except GuardError as exc:
        raise ValueProblem(source, path, f"data file {rel!r}: {exc}") from None
    except FileNotFoundError:
        raise ValueProblem(source, path, f"data file {rel!r} not found") from None
    except OSError as exc:
        raise ValueProblem(source, path, f"cannot read data file {rel!r}: {exc.strerror}"
                           ) from None


def check_name(name: str, kind: str, ns: Namespace, source: Source,
               path: JsonPath) -> None:
    """Refuse a shared name that would shadow an expression constant or is defined twice in
    one diagram (parameters, clocks and models share one namespace)."""
    if name in CONSTANTS and name not in SHADOWABLE:
        reserved = [c for c in CONSTANTS if c not in SHADOWABLE]
        raise ValueProblem(source, path, f"{kind} name '{name}' is reserved (expressions use "
                           f"it: {', '.join(reserved)})", key=True)
    if name in ns.params or name in ns.objects:
        other = "parameter" if name in ns.params else ns.kinds[name]
        raise ValueProblem(source, path, f"{kind} name '{name}' is already a {other} of this "
                           f"diagram; parameters, clocks and models share one namespace",
                           key=True)
