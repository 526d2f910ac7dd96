"""Parse JSON text and remember where every value is: JSON path -> (line, column).

The standard :mod:`json` module gives no positions, so this is a small recursive-descent
parser of strict JSON (RFC 8259) that also

* records the line and column of every value and of every object key, by JSON path
  (a tuple of keys and list indices, e.g. ``("blocks", "pid", "params", "Kp")``);
* reports duplicate keys (the stdlib silently keeps the last one) instead of dropping them;
* bounds the input: text size, nesting depth and number length, so hostile input fails fast
  with a clear message instead of exhausting memory or the recursion limit.

Strings are decoded by :func:`json.decoder.scanstring` (the stdlib's own, C-accelerated).
"""

from __future__ import annotations

import bisect
import json.decoder
import math
import re
from dataclasses import dataclass, field
from typing import Any

JsonPath = tuple[str | int, ...]

#: largest accepted text [characters]
MAX_CHARS = 4_000_000
#: deepest accepted nesting of arrays and objects
MAX_DEPTH = 48
#: longest accepted number literal [characters]
MAX_NUMBER_CHARS = 64

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
#: the characters of a flat array of numbers: such an array is read in one piece by the C
#: JSON decoder (a table of a million numbers loads in a fraction of a second); its elements
#: get no positions of their own
_NUMBER_CHARS = re.compile(r"[-+0-9.eE, \t\n\r]*")
_LONG_NUMBER = re.compile(rf"[0-9.eE+-]{{{MAX_NUMBER_CHARS + 1}}}")


class NumberList(list):  # type: ignore[type-arg]
    """A list of plain JSON numbers read in one piece (later stages need not look at each
    element to know they are all numbers)."""
_INT64 = 2**63


class JsonSyntaxError(ValueError):
    """The text is not valid JSON, or exceeds a limit; ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(f"line {line}, column {column}: {message}")
        self.reason = message
        self.line = line
        self.column = column


def format_path(path: JsonPath) -> str:
    """``("blocks", "pid", "params", "Kp")`` -> ``"blocks.pid.params.Kp"``; ``()`` -> ``"$"``.

    List indices are written in brackets: ``("wires", 3, "to")`` -> ``"wires[3].to"``.
    """
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "$"


@dataclass
class Located:
    """A parsed JSON document with the position of each of its values.

    Attributes
    ----------
    value : Any
        The document (dicts keep key order; lists; str, int, float, bool, None).
    values : dict
        JSON path -> (line, column) of the value's first character.
    keys : dict
        JSON path -> (line, column) of the key naming that member (objects only).
    duplicates : list of (path, line, column, first_line)
        Keys that occur twice in one object (the first occurrence is kept).
    """

    value: Any
    values: dict[JsonPath, tuple[int, int]] = field(default_factory=dict)
    keys: dict[JsonPath, tuple[int, int]] = field(default_factory=dict)
    duplicates: list[tuple[JsonPath, int, int, int]] = field(default_factory=list)

    def line(self, path: JsonPath, key: bool = False) -> int:
        """Line of the value at ``path`` (of its key when ``key``), or of its nearest known
        ancestor (an error about a missing member points at the enclosing object)."""
        p = tuple(path)
        while True:
            table = self.keys if key and p in self.keys else self.values
            if p in table:
                return table[p][0]
            if not p:
                return 1
            p = p[:-1]


class _Parser:
    def __init__(self, text: str, max_depth: int):
        self.text = text
        self.max_depth = max_depth
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.doc = Located(None)

    def where(self, pos: int) -> tuple[int, int]:
        k = bisect.bisect_right(self.line_starts, pos) - 1
        return k + 1, pos - self.line_starts[k] + 1

    def fail(self, message: str, pos: int) -> JsonSyntaxError:
        return JsonSyntaxError(message, *self.where(pos))

    def skip(self, pos: int) -> int:
        return _WS.match(self.text, pos).end()  # type: ignore[union-attr]

    def value(self, pos: int, path: JsonPath, depth: int) -> tuple[Any, int]:
        pos = self.skip(pos)
        self.doc.values[path] = self.where(pos)
        if pos >= len(self.text):
            raise self.fail("unexpected end of the text: a value is missing", pos)
        c = self.text[pos]
        if c in "{[":
            if depth >= self.max_depth:
                raise self.fail(f"nesting deeper than {self.max_depth} levels of arrays and "
                                f"objects; a diagram file never needs that many", pos)
            return (self.obj if c == "{" else self.array)(pos + 1, path, depth + 1)
        if c == '"':
            return self.string(pos)
        for word, hint in (("NaN", "nan"), ("Infinity", "inf"), ("-Infinity", "-inf")):
            if self.text.startswith(word, pos):
                raise self.fail(f"{word} is not JSON; write the expression string \"{hint}\" "
                                f"instead", pos)
        if c == "-" or c.isdigit():
            return self.number(pos)
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, pos):
                return val, pos + len(word)
        raise self.fail(f"expected a value (object, array, string, number, true, false or "
                        f"null), found {_char(c)}", pos)

    def string(self, pos: int) -> tuple[str, int]:
        try:
            return json.decoder.scanstring(self.text, pos + 1, True)  # type: ignore[no-any-return]
        except json.JSONDecodeError as exc:
            raise self.fail(exc.msg, exc.pos) from None

    def number(self, pos: int) -> tuple[int | float, int]:
        m = _NUMBER.match(self.text, pos)
        if m is None or m.end() == pos or (m.group() == "-"):
            raise self.fail("invalid number", pos)
        s = m.group()
        if len(s) > MAX_NUMBER_CHARS:
            raise self.fail(f"number literal longer than {MAX_NUMBER_CHARS} characters", pos)
        if m.group(1) is None and m.group(2) is None:
            v = int(s)
            if not -_INT64 <= v < _INT64:
                raise self.fail(f"integer {s} is outside the 64-bit range", pos)
            return v, m.end()
        f = float(s)
        if not math.isfinite(f):
            raise self.fail(f"number {s} is outside the float64 range (about 1.8e308)", pos)
        return f, m.end()

    def numbers(self, start: int) -> tuple[list[Any], int] | None:
        """The flat array of numbers starting at ``start`` (its ``[``) in one piece, or None
        when it is not one, or breaks a limit (then the element-wise reading reports it)."""
        end = self.text.find("]", start)
        if end < 0 or _NUMBER_CHARS.match(self.text, start + 1).end() != end:  # type: ignore[union-attr]
            return None
        chunk = self.text[start:end + 1]
        if _LONG_NUMBER.search(chunk):
            return None
        try:
            values = json.loads(chunk)
        except ValueError:
            return None
        # out of range (an integer beyond 64 bits, a float beyond float64): the element-wise
        # reading says which
        if values and not (-_INT64 <= min(values) and max(values) < _INT64):
            return None
        return NumberList(values), end + 1

    def array(self, pos: int, path: JsonPath, depth: int) -> tuple[list[Any], int]:
        out: list[Any] = []
        if self.text[pos:pos + 1] in "-0123456789" or self.text[pos:pos + 1].isspace():
            fast = self.numbers(pos - 1)
            if fast is not None:
                return fast
        pos = self.skip(pos)
        if self.text.startswith("]", pos):
            return out, pos + 1
        while True:
            v, pos = self.value(pos, (*path, len(out)), depth)
            out.append(v)
            pos = self.skip(pos)
            c = self.text[pos:pos + 1]
            if c == "]":
                return out, pos + 1
            if c != ",":
                raise self.fail(f"expected ',' or ']' after an array element, found "
                                f"{_char(c) if c else 'the end of the text'}", pos)
            pos += 1

    def obj(self, pos: int, path: JsonPath, depth: int) -> tuple[dict[str, Any], int]:
        out: dict[str, Any] = {}
        first: dict[str, int] = {}
        pos = self.skip(pos)
        if self.text.startswith("}", pos):
            return out, pos + 1
        while True:
            pos = self.skip(pos)
            if not self.text.startswith('"', pos):
                raise self.fail("expected a member name in double quotes", pos)
            kpos = self.where(pos)
            key, pos = self.string(pos)
            pos = self.skip(pos)
            if not self.text.startswith(":", pos):
                raise self.fail("expected ':' after a member name", pos)
            mpath = (*path, key)
            if key in out:
                self.doc.duplicates.append((mpath, *kpos, first[key]))
                saved = (dict(self.doc.values), dict(self.doc.keys))
                _, pos = self.value(pos + 1, mpath, depth)
                self.doc.values, self.doc.keys = saved  # keep the first one's positions
            else:
                self.doc.keys[mpath] = kpos
                first[key] = kpos[0]
                out[key], pos = self.value(pos + 1, mpath, depth)
            pos = self.skip(pos)
            c = self.text[pos:pos + 1]
            if c == "}":
                return out, pos + 1
            if c != ",":
                raise self.fail(f"expected ',' or '}}' after a member, found "
                                f"{_char(c) if c else 'the end of the text'}", pos)
            pos += 1


def _char(c: str) -> str:
    """One character of the text for a message: printable ASCII quoted, anything else by
    its code point (a message never quotes more of a file than that)."""
    return repr(c) if " " <= c <= "~" else f"the character U+{ord(c):04X}"


def parse(text: str, *, max_chars: int = MAX_CHARS, max_depth: int = MAX_DEPTH) -> Located:
    """Parse strict JSON ``text`` into a :class:`Located` document.

    Raises
    ------
    JsonSyntaxError
        Invalid JSON, or the text longer than ``max_chars`` characters, or nested deeper than
        ``max_depth``, with the line and column of the problem.
    """
    if len(text) > max_chars:
        raise JsonSyntaxError(f"the text has {len(text)} characters; diagram files are limited "
                              f"to {max_chars}", 1, 1)
    p = _Parser(text, max_depth)
    value, pos = p.value(0, (), 0)
    pos = p.skip(pos)
    if pos != len(text):
        raise p.fail("extra text after the JSON document", pos)
    p.doc.value = value
    return p.doc
