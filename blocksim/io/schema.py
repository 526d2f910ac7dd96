"""Validation of a diagram document against the JSON Schema shipped with the package.

:func:`schema` returns the schema (``blocksim/io/schema.json``, format version 1);
:func:`validate` returns every violation as ``(json path, message, on_key)`` with messages
rewritten for people (did-you-mean for misspelt members, the expected form for a value) instead
of jsonschema's defaults. ``on_key`` says the problem is the member's name rather than its
value (so the reported line is that of the key).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from blocksim.engine.errors import suggest
from blocksim.io.locate import JsonPath, NumberList

#: the format version this module reads and writes
FORMAT_VERSION = 1

_TYPES = {"object": "an object", "array": "a list", "string": "a string",
          "number": "a number", "integer": "an integer", "boolean": "true or false",
          "null": "null"}


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema of diagram files (a fresh parse of the packaged ``schema.json``)."""
    text = resources.files("blocksim.io").joinpath("schema.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    return Draft202012Validator(schema())


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    for t, py in (("object", dict), ("array", list), ("string", str)):
        if isinstance(value, py):
            return _TYPES[t]
    return "a number"


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _message(err: ValidationError) -> tuple[JsonPath, str, bool]:
    path: JsonPath = tuple(err.absolute_path)
    v, sch, inst = err.validator, err.schema, err.instance
    if v == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return path, f"missing member '{missing}'", False
    if v == "additionalProperties" and isinstance(inst, dict):
        allowed = list(sch.get("properties", {}))
        extra = [k for k in inst if k not in allowed]
        if extra:
            k = extra[0]
            return (*path, k), (f"unknown member '{k}'{suggest(k, allowed)}; allowed here: "
                                f"{', '.join(allowed)}"), True
    if v == "propertyNames" or "propertyNames" in err.absolute_schema_path:
        return (*path, inst), (f"name {inst!r} is not valid: expected "
                               f"{sch.get('description') or err.message}"), True
    if v == "const":
        return path, f"expected {json.dumps(sch['const'])}, found {_short(inst)}" + (
            " (this blocksim reads format version 1)" if path == ("blocksim",) else ""), False
    if v == "enum":
        return path, (f"{_short(inst)} is not one of "
                      f"{', '.join(json.dumps(x) for x in sch['enum'])}"
                      f"{suggest(str(inst), [str(x) for x in sch['enum']])}"), False
    if v == "type":
        want = sch["type"] if isinstance(sch["type"], list) else [sch["type"]]
        return path, (f"expected {' or '.join(_TYPES.get(t, t) for t in want)}, found "
                      f"{_kind(inst)}"), False
    if v in ("anyOf", "oneOf"):
        deeper = [e for e in err.context or () if e.relative_path]
        if deeper:
            best = max(deeper, key=lambda e: len(e.relative_path))
            return _message(best)
        return path, f"{_short(inst)} is not valid: expected {sch.get('description')}", False
    if v == "pattern":
        return path, f"{_short(inst)} is not valid: expected {sch.get('description')}", False
    if v in ("maxLength", "maxItems", "minItems", "minLength", "minProperties"):
        return path, f"{_short(inst)}: {err.message.split(' is ', 1)[-1]}", False
    return path, err.message, False


#: a list of more numbers than this is validated as its first element (they share one rule)
_SHRINK = 16
_NUMBERS = (int, float)


def skeleton(document: Any) -> Any:
    """``document`` with every list of more than 16 plain numbers shortened to its first
    element: the schema gives every element of such a list the same rule and no length
    bound, so the verdict and the paths of the problems are the same, and validating a
    million-number table costs nothing."""
    if isinstance(document, dict):
        return {k: skeleton(v) for k, v in document.items()}
    if isinstance(document, NumberList):
        return document[:1]
    if isinstance(document, list):
        if len(document) > _SHRINK and all(type(v) in _NUMBERS for v in document):
            return document[:1]
        return [skeleton(v) for v in document]
    return document


class _Plain:
    """Conservative checks, in plain Python, that a block or a wire of the usual form is valid
    (every rule of the schema's ``block``/``wires`` items that such a form meets); anything
    else goes to jsonschema, which gives the messages. A diagram of 35 000 blocks is then
    validated in a fraction of a second instead of jsonschema's ~150 us per item."""

    def __init__(self) -> None:
        import re

        defs = schema()["$defs"]

        def rule(name: str) -> tuple[Any, int]:
            d = defs[name]
            return re.compile(d["pattern"]).fullmatch, int(d["maxLength"])

        self.ident, self.ident_len = rule("identifier")
        self.name, self.name_len = rule("blockName")
        self.end, self.end_len = rule("end")
        block = defs["block"]["properties"]
        self.type_len = int(block["type"]["maxLength"])
        self.file_len = int(block["file"]["maxLength"])

    def block_name(self, k: Any) -> bool:
        return isinstance(k, str) and len(k) <= self.name_len and self.name(k) is not None

    def value(self, v: Any, depth: int = 0) -> bool:
        if v is None or isinstance(v, (str, bool, int, float)):
            return True
        if isinstance(v, list) and depth < 8:
            return all(self.value(x, depth + 1) for x in v)
        if isinstance(v, dict) and len(v) == 1:
            (k, x), = v.items()
            return (k == "str" and isinstance(x, str)) or (
                k == "npy" and isinstance(x, str) and 0 < len(x) <= self.file_len)
        return False

    def block(self, b: Any) -> bool:
        if not isinstance(b, dict) or not isinstance(b.get("type"), str):
            return False
        if len(b["type"]) > self.type_len:
            return False
        for k, v in b.items():
            if k == "type":
                continue
            if k == "description":
                if not isinstance(v, str):
                    return False
            elif k == "file":
                if not (isinstance(v, str) and 0 < len(v) <= self.file_len):
                    return False
            elif k == "params":
                if not isinstance(v, dict):
                    return False
                for pk, pv in v.items():
                    if not (isinstance(pk, str) and len(pk) <= self.ident_len
                            and self.ident(pk) is not None and self.value(pv)):
                        return False
            else:  # "diagram", "parameters", or a member the schema refuses
                return False
        return True

    def end_ok(self, e: Any) -> bool:
        return isinstance(e, str) and len(e) <= self.end_len and self.end(e) is not None

    def wire(self, w: Any) -> bool:
        if not isinstance(w, dict) or len(w) != 2 or not self.end_ok(w.get("from")):
            return False
        to = w.get("to")
        if isinstance(to, list):
            return bool(to) and all(self.end_ok(e) for e in to)
        return self.end_ok(to)


@lru_cache(maxsize=1)
def _plain() -> _Plain:
    return _Plain()


#: a diagram with more blocks or wires than this has its plain ones checked in Python
_PLAIN_FROM = 32


def _prune(document: Any) -> tuple[Any, list[int] | None]:
    """``document`` without the top-level blocks and wires that :class:`_Plain` finds valid,
    and the original index of each wire kept (None when the wires are kept as they are)."""
    if not isinstance(document, dict):
        return document, None
    blocks, wires = document.get("blocks"), document.get("wires")
    big_blocks = isinstance(blocks, dict) and len(blocks) > _PLAIN_FROM
    big_wires = isinstance(wires, list) and len(wires) > _PLAIN_FROM
    if not (big_blocks or big_wires):
        return document, None
    plain = _plain()
    out = dict(document)
    if big_blocks:
        out["blocks"] = {k: b for k, b in blocks.items()
                         if not (plain.block_name(k) and plain.block(b))}
    kept = None
    if big_wires:
        kept = [i for i, w in enumerate(wires) if not plain.wire(w)]
        out["wires"] = [wires[i] for i in kept]
    return out, kept


def validate(document: Any) -> list[tuple[JsonPath, str, bool]]:
    """Every schema violation of ``document`` as ``(path, message, on_key)``, in document
    order (sorted by path)."""
    pruned, kept = _prune(document)
    errors = list(_validator().iter_errors(pruned))
    if kept is not None:  # the wires' paths name their index in the whole list
        for e in errors:
            if len(e.path) >= 2 and e.path[0] == "wires":
                e.path[1] = kept[e.path[1]]
    errors.sort(key=lambda e: [str(p) for p in e.absolute_path])
    out = []
    seen = set()
    for e in errors:
        item = _message(e)
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out
